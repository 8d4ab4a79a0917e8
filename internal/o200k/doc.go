// Package o200k is the ordinary-text tokenizer of o200k_base (and so of
// o200k_harmony): a hand-written pre-tokenizer for the o200k pattern
// (pretok.go) and a byte-pair encoder (bpe.go) over a precomputed rank table
// that is embedded in the binary (o200k.bin, see internal/table). It encodes
// exactly as the reference, openai/harmony v0.0.8, does in
// CoreBPE::encode_ordinary (fancy-regex 0.13 over regex-syntax 0.8.5, then
// tiktoken's byte_pair_merge), and as github.com/pkoukk/tiktoken-go does
// with the same pattern and ranks except where those two differ.
//
// Special tokens are not this package's business: text is always encoded as
// ordinary text, so "<|start|>" becomes the tokens of its characters.
//
// # Where the reference and tiktoken-go differ
//
// This package follows the reference. Both differences are in the
// pre-tokenizer; the byte-pair merge is the same algorithm in both.
//
// Unicode version. The reference's classes are Unicode 16.0.0; tiktoken-go's
// are those of the Go release it is built with: Unicode 15.0.0 in Go 1.26.
// The 5,055 code points below are unassigned in 15.0.0, which makes them
// [^\s\p{L}\p{N}] (punctuation-like) for tiktoken-go, and letters, marks or
// numbers in 16.0.0 (Lu/Lt = upper, Ll = lower, Lm/Lo = letter, M = mark, N =
// number). Every other code point, and all of White_Space, agree.
//
//	U+0897             mark     ARABIC PEPET
//	U+1C89             upper    CYRILLIC CAPITAL LETTER TJE
//	U+1C8A             lower    CYRILLIC SMALL LETTER TJE
//	U+A7CB..U+A7CC     upper    Latin Extended-D
//	U+A7CD             lower
//	U+A7DA             upper
//	U+A7DB             lower
//	U+A7DC             upper
//	U+105C0..U+105F3   letter   Todhri
//	U+10D40..U+10D49   number   Garay
//	U+10D4A..U+10D4F   letter
//	U+10D50..U+10D65   upper
//	U+10D69..U+10D6D   mark
//	U+10D6F            letter
//	U+10D70..U+10D85   lower
//	U+10EC2..U+10EC4   letter   Arabic Extended-C
//	U+10EFC            mark
//	U+11380..U+11389   letter   Tulu-Tigalari
//	U+1138B            letter
//	U+1138E            letter
//	U+11390..U+113B5   letter
//	U+113B7            letter
//	U+113B8..U+113C0   mark
//	U+113C2            mark
//	U+113C5            mark
//	U+113C7..U+113CA   mark
//	U+113CC..U+113D0   mark
//	U+113D1            letter
//	U+113D2            mark
//	U+113D3            letter
//	U+113E1..U+113E2   mark
//	U+116D0..U+116E3   number   Myanmar Extended-C
//	U+11BC0..U+11BE0   letter   Sunuwar
//	U+11BF0..U+11BF9   number
//	U+11F5A            mark     Kawi
//	U+13460..U+143FA   letter   Egyptian Hieroglyphs Extended-A
//	U+16100..U+1611D   letter   Gurung Khema
//	U+1611E..U+1612F   mark
//	U+16130..U+16139   number
//	U+16D40..U+16D6C   letter   Kirat Rai
//	U+16D70..U+16D79   number
//	U+18CFF            letter   Khitan Small Script
//	U+1CCF0..U+1CCF9   number   Outlined digits
//	U+1E5D0..U+1E5ED   letter   Ol Onal
//	U+1E5EE..U+1E5EF   mark
//	U+1E5F0            letter
//	U+1E5F1..U+1E5FA   number
//	U+2EBF0..U+2EE5D   letter   CJK Unified Ideographs Extension I
//
// Case folding. The reference's (?i:'s|'t|'re|'ve|'m|'ll|'d) uses Unicode
// simple case folding, under which s also matches U+017F LATIN SMALL LETTER
// LONG S ("ſ"); regexp2 lowercases instead, and no other code point folds or
// lowercases to one of s, t, r, e, v, m, l, d. So "'ſ" (U+0027 U+017F) after
// a word is a contraction here and in the reference, not in tiktoken-go; for
// example " I'ſ" is [" I'", "ſ"] here and [" I", "'", "ſ"] there.
//
// The tests check both lists against the tables (TestUnicodeDelta,
// TestCaseFold), exclude exactly these from the comparison with tiktoken-go,
// and compare them with token ids the reference's own regex stack produced
// (testdata/reference_tokens.txt, generated during development by a small
// program linked against the crates the reference locks; that program is
// not part of this repository).
//
// # The table
//
// o200k.bin is generated: `go generate` in this directory runs ./gen, which
// reads the hash-checked o200k_base.tiktoken through internal/vocab and the
// Unicode 16.0.0 classes in gen/classes.txt, computes the table of
// characters that may start whole (chars.go), and also writes table_sum.go
// with the table's SHA-256, which [Load] checks. TestTableUpToDate fails if
// the committed table is not what gen would write now.
package o200k
