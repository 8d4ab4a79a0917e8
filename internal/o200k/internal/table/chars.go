package table

import (
	"math/bits"
	"slices"
	"unicode/utf8"
)

// The character table: for each character of two to four bytes that byte-pair
// merging turns into one token, that token and the bytes next to which the
// character may not start as one part. Package o200k (chars.go) says what
// the rule is and why it is exact; this is where it is computed, once, when
// the table is generated.
//
// Layout, in two stages like the class flags: charBlock1[c>>BlockShift] is
// the number of c's block in charEntries (block 0 is all 0, for "no
// entry"); an entry is the token in the low EntryTokenBits bits, then the
// index of its set of bytes before in CharBefores (EntryBeforeBits), then
// that of its set of bytes after in CharAfters (the rest). Set 0 is empty
// in both. A character whose bytes merge into several tokens (most often
// two: an emoji modifier, a rare ideograph) has, in place of a token, the
// number of ranks plus an index into the multi section, which holds four
// tokens per such character, None after its last.

// Joins is a filter of the pairs of characters, at least one of them not
// ASCII, that occur next to each other in some token: bit JoinHash(x, y)
// of the joins section is set for each such pair x, y. A clear bit means no
// token holds x followed by y, so no merge can join a part ending with x
// to one starting with y; a set bit may be a false positive (o200k_base
// has about 21,000 such pairs, so about 4% of other pairs read as set).
const JoinBits = 19

// JoinHash returns the bit of the pair x, y in the joins filter.
func JoinHash(x, y rune) uint64 {
	return (uint64(x)<<21 | uint64(y)) * 0x9E3779B97F4A7C15 >> (64 - JoinBits)
}

// Entry layout.
const (
	EntryTokenBits  = 18
	EntryBeforeBits = 6
	EntryAfterBits  = 32 - EntryTokenBits - EntryBeforeBits
)

// Chars is the computed character table.
type Chars struct {
	Block1          []uint16 // MaxRune>>BlockShift block numbers
	Entries         []uint32 // blocks of 1<<BlockShift entries
	Befores, Afters [][4]uint64
	Joins           []uint64 // 1<<JoinBits bits
	Multi           []uint32 // the parts of characters that merge into several, four each
	N               int      // characters with an entry
}

// BuildChars computes the character table of the given ranks (token bytes
// indexed by rank).
func BuildChars(ranks [][]byte) Chars {
	index := make(map[string]uint32, len(ranks))
	for r, tok := range ranks {
		index[string(tok)] = uint32(r)
	}
	lookup := func(s string) uint32 {
		if r, ok := index[s]; ok {
			return r
		}
		return None
	}

	// The tokens that end with a byte and then a character's first bytes
	// (or all of it), and those that start with a character's last bytes
	// (or all of it) and then a byte: per fragment, the lowest rank for
	// each byte.
	ends, starts := map[string]*[256]uint32{}, map[string]*[256]uint32{}
	note := func(m map[string]*[256]uint32, frag string, b byte, r uint32) {
		low := m[frag]
		if low == nil {
			low = new([256]uint32)
			for i := range low {
				low[i] = None
			}
			m[frag] = low
		}
		low[b] = min(low[b], r)
	}
	for id, tok := range ranks {
		t, r := string(tok), uint32(id)
		for i := max(1, len(t)-4); i < len(t); i++ {
			if size := seqLen(t[i]); size >= 2 && len(t)-i <= size {
				note(ends, t[i:], t[i-1], r)
			}
		}
		for k := 1; k < len(t) && k <= 3 && t[k-1]&0xC0 == 0x80; k++ {
			note(starts, t[:k], t[k], r)
		}
		if size := seqLen(t[0]); size >= 2 && size < len(t) {
			note(starts, t[:size], t[size], r)
		}
	}
	// mark adds to set every byte b for which m has a token with
	// fragment frag and byte b of rank below limit.
	mark := func(set *[4]uint64, m map[string]*[256]uint32, frag string, limit uint32) {
		if low := m[frag]; low != nil {
			for b, r := range low {
				if r < limit {
					set[b>>6] |= 1 << (b & 63)
				}
			}
		}
	}

	const block = 1 << BlockShift
	c := Chars{
		Block1:  make([]uint16, MaxRune>>BlockShift),
		Entries: make([]uint32, block),
		Befores: make([][4]uint64, 1),
		Afters:  make([][4]uint64, 1),
		Joins:   make([]uint64, 1<<JoinBits/64),
	}
	for _, tok := range ranks {
		prev := rune(-1)
		for t := string(tok); len(t) > 0; {
			r, size := utf8.DecodeRuneInString(t)
			t = t[size:]
			if r == utf8.RuneError && size == 1 {
				prev = -1 // not a whole character
				continue
			}
			if prev >= 0 && (prev >= utf8.RuneSelf || r >= utf8.RuneSelf) {
				h := JoinHash(prev, r)
				c.Joins[h/64] |= 1 << (h % 64)
			}
			prev = r
		}
	}
	// The candidates: every character of two to four bytes in a block of
	// 1<<BlockShift code points where some token holds a character whole
	// (the blocks of the scripts and symbols the vocabulary knows, so that
	// the table grows with them and not with all of Unicode).
	inBlock := map[rune]bool{}
	for _, tok := range ranks {
		for t := string(tok); len(t) > 0; {
			r, size := utf8.DecodeRuneInString(t)
			t = t[size:]
			if size >= 2 {
				inBlock[r>>BlockShift] = true
			}
		}
	}
	var cands []rune
	for b := range inBlock {
		for r := b << BlockShift; r < (b+1)<<BlockShift; r++ {
			if r >= 0x80 && utf8.ValidRune(r) {
				cands = append(cands, r)
			}
		}
	}
	slices.Sort(cands)
	for _, ch := range cands {
		s := string(ch)
		// Merge the bytes alone, by tiktoken's rule, marking before each
		// merge the bytes next to which the first part (or the last)
		// would merge outward first.
		var before, after [4]uint64
		var at [5]int
		m := len(s)
		for i := range m + 1 {
			at[i] = i
		}
		high := uint32(0)
		for m > 1 {
			best, j := None, -1
			for k := 0; k+1 < m; k++ {
				if r := lookup(s[at[k]:at[k+2]]); r < best {
					best, j = r, k
				}
			}
			if j < 0 {
				break
			}
			mark(&before, ends, s[:at[1]], best)
			mark(&after, starts, s[at[m-1]:], best)
			high = max(high, best)
			copy(at[j+1:], at[j+2:m+1])
			m--
		}
		if m == len(s) {
			continue // no merge to skip
		}
		// The final parts: their first and last must not merge outward
		// before the highest of the merges that made them.
		mark(&before, ends, s[:at[1]], high)
		mark(&after, starts, s[at[m-1]:], high)
		tok := lookup(s)
		if m > 1 {
			if len(ranks)+len(c.Multi)/4 >= 1<<EntryTokenBits {
				continue // no room: the character starts as its bytes
			}
			tok = uint32(len(ranks) + len(c.Multi)/4)
			for k := range 4 {
				part := None
				if k < m {
					part = lookup(s[at[k]:at[k+1]])
				}
				c.Multi = append(c.Multi, part)
			}
		}
		bi := SetIndex(&c.Befores, before, 1<<EntryBeforeBits)
		ai := SetIndex(&c.Afters, after, 1<<EntryAfterBits)
		b := &c.Block1[ch>>BlockShift]
		if *b == 0 {
			*b = uint16(len(c.Entries) / block)
			c.Entries = append(c.Entries, make([]uint32, block)...)
		}
		c.Entries[int(*b)*block+int(ch%block)] = tok | bi<<EntryTokenBits | ai<<(EntryTokenBits+EntryBeforeBits)
		c.N++
	}
	return c
}

// SetIndex returns the index of set in *sets, adding it if it is new and
// there is room for it among limit sets (the last of which is kept for
// every byte), else the index of its least superset there: a character
// given a superset only starts as its bytes more often.
func SetIndex(sets *[][4]uint64, set [4]uint64, limit int) uint32 {
	if i := slices.Index(*sets, set); i >= 0 {
		return uint32(i)
	}
	if len(*sets) < limit-1 {
		*sets = append(*sets, set)
		return uint32(len(*sets) - 1)
	}
	if len(*sets) < limit {
		all := ^uint64(0)
		*sets = append(*sets, [4]uint64{all, all, all, all})
	}
	best, size := limit-1, 257
	for i, s := range *sets {
		if s[0]&set[0] == set[0] && s[1]&set[1] == set[1] && s[2]&set[2] == set[2] && s[3]&set[3] == set[3] {
			if n := bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3]); n < size {
				best, size = i, n
			}
		}
	}
	return uint32(best)
}

// seqLen returns the length of the UTF-8 sequence that lead byte b starts:
// 2 to 4, or 1 for an ASCII or continuation byte (or a byte that starts
// nothing valid).
func seqLen(b byte) int {
	switch {
	case b >= 0xC2 && b < 0xE0:
		return 2
	case b >= 0xE0 && b < 0xF0:
		return 3
	case b >= 0xF0 && b < 0xF5:
		return 4
	}
	return 1
}
