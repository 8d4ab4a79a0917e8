package o200k

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/testsupport/tiktokenoracle"
	"github.com/pkoukk/tiktoken-go"
	"github.com/stretchr/testify/require"
)

// oracle returns tiktoken-go (internal/tiktokenoracle) and the ranks parsed
// from the hash-checked vocabulary.
func oracle(tb testing.TB) (*tiktoken.Tiktoken, [][]byte) {
	tb.Helper()
	o, err := tiktokenoracle.Shared()
	require.NoError(tb, err)
	return o.Tiktoken, o.Ranks
}

func oracleEncode(tb testing.TB, text string) []uint32 {
	tk, _ := oracle(tb)
	var out []uint32
	for _, id := range tk.EncodeOrdinary(text) {
		out = append(out, uint32(id))
	}
	return out
}

func mustLoad(tb testing.TB) *Engine {
	tb.Helper()
	e, err := Load()
	require.NoError(tb, err)
	return e
}

// corpus is one file of testdata/corpus.
type corpus struct {
	name string
	text string
}

func corpora(tb testing.TB) []corpus {
	tb.Helper()
	files, err := filepath.Glob("testdata/corpus/*")
	require.NoError(tb, err)
	require.NotEmpty(tb, files, "no corpora")
	var out []corpus
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(tb, err)
		out = append(out, corpus{filepath.Base(f), string(b)})
	}
	return out
}

// goFlags holds, for every code point, the class flags tiktoken-go's
// regexp2 gives it: its \s is unicode.IsSpace and its \p{..} are the tables
// of Go's unicode package. Built by walking the tables, which is much faster
// than asking about each code point (and matters under -race).
var goFlags = sync.OnceValue(func() []uint8 {
	f := make([]uint8, unicode.MaxRune+1)
	for i := range f {
		f[i] = fPre | fPunct
	}
	set := func(t *unicode.RangeTable, flags uint8) {
		for _, r := range t.R16 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				f[c] = flags
			}
		}
		for _, r := range t.R32 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				f[c] = flags
			}
		}
	}
	set(unicode.M, fUpper|fLower|fPre|fPunct)
	set(unicode.Lm, fUpper|fLower)
	set(unicode.Lo, fUpper|fLower)
	set(unicode.Ll, fLower)
	set(unicode.Lu, fUpper)
	set(unicode.Lt, fUpper)
	set(unicode.N, fNum)
	set(unicode.White_Space, fSpace|fPre)
	for c := rune(0); c < 256; c++ { // unicode.IsSpace's Latin-1 list
		if unicode.IsSpace(c) {
			f[c] = fSpace | fPre
		} else if f[c]&fSpace != 0 {
			f[c] = fPre | fPunct
		}
	}
	f['\r'], f['\n'] = fSpace|fNewline, fSpace|fNewline
	return f
})

// goFlagsSlow is goFlags for one code point, asked the obvious way.
func goFlagsSlow(r rune) uint8 {
	switch {
	case r == '\r' || r == '\n':
		return fSpace | fNewline
	case unicode.IsSpace(r):
		return fSpace | fPre
	case unicode.Is(unicode.N, r):
		return fNum
	case unicode.In(r, unicode.Lu, unicode.Lt):
		return fUpper
	case unicode.Is(unicode.Ll, r):
		return fLower
	case unicode.In(r, unicode.Lm, unicode.Lo):
		return fUpper | fLower
	case unicode.Is(unicode.M, r):
		return fUpper | fLower | fPre | fPunct
	}
	return fPre | fPunct
}

// unicode16Delta lists the code points whose class differs between the
// reference (Unicode 16.0.0, regex-syntax 0.8.5) and tiktoken-go built with
// Go 1.26 (unicode.Version 15.0.0): all are unassigned in Unicode 15.0.0,
// hence punctuation-like ([^\s\p{L}\p{N}]) for tiktoken-go, and letters,
// marks or numbers in Unicode 16.0.0 (added in 15.1 or 16.0). 5,055 code
// points; White_Space and every other code point agree. Each range is
// "first, last, flags in Unicode 16.0.0".
var unicode16Delta = []runeRange{
	{0x0897, 0x0897, mark},                           // ARABIC PEPET
	{0x1C89, 0x1C89, upper}, {0x1C8A, 0x1C8A, lower}, // CYRILLIC TJE
	{0xA7CB, 0xA7CC, upper}, {0xA7CD, 0xA7CD, lower}, // Latin Extended-D
	{0xA7DA, 0xA7DA, upper}, {0xA7DB, 0xA7DB, lower},
	{0xA7DC, 0xA7DC, upper},
	{0x105C0, 0x105F3, letter}, // Todhri
	{0x10D40, 0x10D49, number}, // Garay
	{0x10D4A, 0x10D4F, letter},
	{0x10D50, 0x10D65, upper},
	{0x10D69, 0x10D6D, mark},
	{0x10D6F, 0x10D6F, letter},
	{0x10D70, 0x10D85, lower},
	{0x10EC2, 0x10EC4, letter}, // Arabic Extended-C
	{0x10EFC, 0x10EFC, mark},
	{0x11380, 0x11389, letter}, // Tulu-Tigalari
	{0x1138B, 0x1138B, letter},
	{0x1138E, 0x1138E, letter},
	{0x11390, 0x113B5, letter},
	{0x113B7, 0x113B7, letter},
	{0x113B8, 0x113C0, mark},
	{0x113C2, 0x113C2, mark},
	{0x113C5, 0x113C5, mark},
	{0x113C7, 0x113CA, mark},
	{0x113CC, 0x113D0, mark},
	{0x113D1, 0x113D1, letter},
	{0x113D2, 0x113D2, mark},
	{0x113D3, 0x113D3, letter},
	{0x113E1, 0x113E2, mark},
	{0x116D0, 0x116E3, number}, // Myanmar Extended-C
	{0x11BC0, 0x11BE0, letter}, // Sunuwar
	{0x11BF0, 0x11BF9, number},
	{0x11F5A, 0x11F5A, mark},   // Kawi
	{0x13460, 0x143FA, letter}, // Egyptian Hieroglyphs Extended-A
	{0x16100, 0x1611D, letter}, // Gurung Khema
	{0x1611E, 0x1612F, mark},
	{0x16130, 0x16139, number},
	{0x16D40, 0x16D6C, letter}, // Kirat Rai
	{0x16D70, 0x16D79, number},
	{0x18CFF, 0x18CFF, letter}, // KHITAN SMALL SCRIPT CHARACTER-18CFF
	{0x1CCF0, 0x1CCF9, number}, // Outlined digits
	{0x1E5D0, 0x1E5ED, letter}, // Ol Onal
	{0x1E5EE, 0x1E5EF, mark},
	{0x1E5F0, 0x1E5F0, letter},
	{0x1E5F1, 0x1E5FA, number},
	{0x2EBF0, 0x2EE5D, letter}, // CJK Unified Ideographs Extension I
}

// runeRange is a range of code points and their class flags.
type runeRange struct {
	lo, hi rune
	flags  uint8
}

// Flags of the classes in unicode16Delta.
const (
	upper  = fUpper
	lower  = fLower
	letter = fUpper | fLower
	mark   = fUpper | fLower | fPre | fPunct
	number = fNum
)

// unicodeDelta computes the ranges where e's classes and Go's differ.
func unicodeDelta(e *Engine) []runeRange {
	var out []runeRange
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		ours := asciiOr(e, r)
		if ours == goFlags()[r] {
			continue
		}
		if n := len(out); n > 0 && out[n-1].hi == r-1 && out[n-1].flags == ours {
			out[n-1].hi = r
			continue
		}
		out = append(out, runeRange{r, r, ours})
	}
	return out
}

func asciiOr(e *Engine, r rune) uint8 {
	if r < utf8.RuneSelf {
		return asciiFlags[r]
	}
	return e.runeFlags(r)
}

// deltaRunes is the set of code points of unicode16Delta, or of the delta
// computed for the Go release at hand if it has another Unicode version.
var deltaRunes = sync.OnceValue(func() map[rune]bool {
	e, err := Load()
	if err != nil {
		panic(err)
	}
	d := unicode16Delta
	if unicode.Version != "15.0.0" {
		d = unicodeDelta(e)
	}
	m := map[rune]bool{}
	for _, r := range d {
		for c := r.lo; c <= r.hi; c++ {
			m[c] = true
		}
	}
	return m
})

// tiktokenDiffers reports whether s holds something on which the reference
// (and so this package) and tiktoken-go are documented to differ: a code
// point of unicode16Delta, or "'ſ" (U+017F, a contraction only with
// Unicode case folding).
func tiktokenDiffers(s string) bool {
	if strings.Contains(s, "'\u017f") {
		return true
	}
	d := deltaRunes()
	for _, r := range s {
		if d[r] {
			return true
		}
	}
	return false
}

// firstDiff describes where two id sequences part.
func firstDiff(e *Engine, text string, got, want []uint32) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(i-3, 0)
	show := func(ids []uint32) string {
		var parts []string
		for _, id := range ids[lo:min(i+4, len(ids))] {
			parts = append(parts, strings.ReplaceAll(string(e.TokenBytes(id)), "\n", `\n`)+"|")
		}
		return strings.Join(parts, "")
	}
	return "token " + strconv.Itoa(i) + ": got " + show(got) + " want " + show(want)
}
