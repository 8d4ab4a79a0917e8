package o200k

import "github.com/go-harmony/harmony/internal/o200k/internal/table"

// Whole characters as starting parts.
//
// Byte-pair merging starts from single bytes, so a character of three bytes
// (all of CJK) costs two merges before it can merge with anything else, and
// CJK text is mostly such merges. Most of them can be skipped: a character
// may start as one part, its token, with exactly the result of starting
// from its bytes, if it is atomic between the bytes next to it.
//
// Merging the bytes of a character c of two to four bytes alone (tiktoken's
// byte_pair_merge on c, without the whole-piece lookup) goes through states
// S0 (its bytes) to Sk, one merge each, of ranks q0 ... q(k-1); let R be
// the highest. Sk must be one part, c's token. In state Si let L be the
// first part and E the last. c is atomic after byte x and before byte y
// (either missing at the ends of the piece) if, for every i < k, no token
// that ends with x followed by L, nor one that starts with E followed by
// y, ranks below qi; and no token that ends with x followed by all of c,
// nor one that starts with c followed by y, ranks below R.
//
// Why that suffices. Merges go lowest rank first. While c is in state Si,
// its merge of rank qi is pending, so only a merge of lower rank can be
// made anywhere. A merge that joins a part of c to a part outside it can
// only join L to the part before (a token ending with x and then L) or E
// to the part after: those rank above qi, so c's bytes merge among
// themselves exactly as they would alone, until c is one part. Compare
// with the same piece started with c as its token. Outside c, the parts are
// the same in both, and so are the pending merges, except those with c:
// in the second these join c's token to its neighbours and rank above R,
// which is at least qi; in the first they rank above qi, or do not exist.
// So at every step the lowest pending merge outside c is the same in both
// (equal ranks are the same token, and c's own merges change nothing
// outside c): skipping c's merges changes no other merge, and the result
// is the same. This holds for every such character of the piece at once,
// each with its own neighbours (x and y are the bytes of the text, which
// is all a part next to c can end or start with).
//
// For each character that its bytes merge into, the bytes x before it and
// y after it that would break this are found from the vocabulary's tokens
// that end or start with part of a character, and kept as two sets of
// bytes; the generator does it (internal/table's BuildChars), and the table
// is part of o200k.bin. For o200k_base, 5,136 tokens are one character of
// two to four bytes; nearly all are atomic next to all but a few bytes
// (most often a space before them, which a piece of letters starts with).
//
// U+FFFD is atomic next to every byte in o200k_base (fffdAtomic checks it);
// an invalid byte is merged as if it were U+FFFD, so a long invalid piece
// starts each such byte as U+FFFD's token, without building the replaced
// text (see bpeLarge).

// charBlock is the number of code points in a block of the character table.
const charBlock = 1 << table.BlockShift

// charTable maps characters of two to four bytes to their token and the
// bytes next to which they are not atomic, in two stages:
// entries[block[c/128]*128+c%128] is c's entry, 0 if it never starts as one
// part (block 0 is all 0), else its token, the index of a set in befores
// that holds every byte before c next to which it is not atomic, and the
// index of one in afters likewise (see internal/table's entry layout; set 0
// is empty in both). It views o200k.bin.
type charTable struct {
	block           []uint16
	entries         []uint32
	befores, afters [][4]uint64
	joins           []uint64 // see mayJoin
	multi           []uint32 // the parts of characters that start as several
	numRanks        uint32   // a token at or above it indexes multi
}

// parts returns the parts that tok, a value token returned at or above
// numRanks, stands for: two to four tokens.
func (t *charTable) parts(tok uint32) []uint32 {
	ps := t.multi[4*(tok-t.numRanks):][:4]
	n := 4
	for ps[n-1] == none {
		n--
	}
	return ps[:n]
}

// mayJoin reports whether some token may hold character x followed by
// character y, one of them not ASCII: if not, no merge can join a part
// ending with x to one starting with y. It reads a filter (internal/table's
// joins), so it may answer true for a pair that no token holds.
func (t *charTable) mayJoin(x, y rune) bool {
	h := table.JoinHash(x, y)
	return t.joins[h/64]>>(h%64)&1 != 0
}

const (
	entryTokenBits  = table.EntryTokenBits
	entryBeforeBits = table.EntryBeforeBits
)

// noByte stands for the end of the piece, before or after a character.
const noByte = -1

// token returns the token of character c (of two to four bytes) if it may
// start as one part between the bytes before and after (noByte at the
// ends of the piece), or none. A value at or above numRanks means that c
// starts as several parts, which parts returns.
func (t *charTable) token(c rune, before, after int) uint32 {
	v := t.entries[int(t.block[c/charBlock])*charBlock+int(c%charBlock)]
	if v == 0 {
		return none
	}
	if s := &t.befores[v>>entryTokenBits&(1<<entryBeforeBits-1)]; before >= 0 && s[before>>6]>>(before&63)&1 != 0 {
		return none
	}
	if s := &t.afters[v>>(entryTokenBits+entryBeforeBits)]; after >= 0 && s[after>>6]>>(after&63)&1 != 0 {
		return none
	}
	return v & (1<<entryTokenBits - 1)
}

// atomicEverywhere reports whether character c may start as one part
// next to any bytes.
func (t *charTable) atomicEverywhere(c rune) bool {
	v := t.entries[int(t.block[c/charBlock])*charBlock+int(c%charBlock)]
	return v != 0 && v>>entryTokenBits == 0 && v < t.numRanks
}

// chars returns the engine's table of characters.
func (e *Engine) chars() *charTable { return &e.charTab }
