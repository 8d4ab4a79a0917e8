package o200k

import (
	"math/bits"
	"slices"
	"sort"
	"unicode/utf8"
)

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
// y after it that would break this are found by one pass over the
// vocabulary's tokens that end or start with part of a character, and kept
// as two sets of bytes. For o200k_base, 5,136 tokens are one character of
// two to four bytes; nearly all are atomic next to all but a few bytes
// (most often a space before them, which a piece of letters starts with).
//
// U+FFFD is atomic next to every byte in o200k_base (fffdAtomic checks it);
// an invalid byte is merged as if it were U+FFFD, so a long invalid piece
// starts each such byte as U+FFFD's token, without building the replaced
// text (see bpeLarge).

// charBlock is the number of code points in a block of the character table.
const charBlock = 128

// charTable maps characters of two to four bytes to their token and the
// bytes next to which they are not atomic, in two stages:
// entries[block[c/128]*128+c%128] is c's entry, 0 if it never starts as one
// part (block 0 is all 0), else its token | before<<18 | after<<24, where
// before indexes befores, a set of bytes before c that holds all those next
// to which it is not atomic, and after indexes afters likewise (set 0 is
// empty in both; when the indexes run out, a character gets the least
// superset of its set there is, which is at worst every byte).
type charTable struct {
	block           []uint16
	entries         []uint32
	befores, afters [][4]uint64
	n               int // the number of characters with an entry
}

// Entry layout: the token in the low 18 bits (there are fewer than 1<<18
// ranks), then the index of its set of bytes before (6 bits) and after
// (8 bits; these vary more).
const (
	entryTokenBits  = 18
	entryBeforeBits = 6
)

// noByte stands for the end of the piece, before or after a character.
const noByte = -1

// token returns the token of character c (of two to four bytes) if it may
// start as one part between the bytes before and after (noByte at the
// ends of the piece), or none.
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
	return v != 0 && v>>entryTokenBits == 0
}

// chars returns the engine's table of characters, built on first need (a
// few milliseconds, once per process).
func (e *Engine) chars() *charTable {
	e.charsOnce.Do(func() { e.charTab = e.buildChars() })
	return e.charTab
}

// buildChars builds the character table: see the comment above.
func (e *Engine) buildChars() *charTable {
	// The tokens that end with a byte and then a character's first bytes
	// (or all of it), and those that start with a character's last bytes
	// (or all of it) and then a byte, each as the fragment's bytes packed
	// into 32 bits (all are 0x80 or above, so the packing is unambiguous),
	// the byte, and the token's rank, packed so that sorting groups them
	// by fragment and byte, lowest rank first.
	var ends, starts []uint64
	triple := func(frag string, b byte, r int) uint64 {
		return uint64(packFrag(frag))<<32 | uint64(b)<<24 | uint64(r)
	}
	for id := 0; id < e.numRanks; id++ {
		t := e.blob[e.offsets[id]:e.offsets[id+1]]
		for i := max(1, len(t)-4); i < len(t); i++ {
			if size := seqLen(t[i]); size >= 2 && len(t)-i <= size {
				ends = append(ends, triple(t[i:], t[i-1], id))
			}
		}
		for k := 1; k < len(t) && k <= 3 && t[k-1]&0xC0 == 0x80; k++ {
			starts = append(starts, triple(t[:k], t[k], id))
		}
		if size := seqLen(t[0]); size >= 2 && size < len(t) {
			starts = append(starts, triple(t[:size], t[size], id))
		}
	}
	slices.Sort(ends)
	slices.Sort(starts)
	// mark adds to set the bytes b for which some token of list with
	// fragment frag and byte b ranks below limit.
	mark := func(set *[4]uint64, list []uint64, frag string, limit uint32) {
		key := uint64(packFrag(frag))
		i := sort.Search(len(list), func(i int) bool { return list[i]>>32 >= key })
		for ; i < len(list) && list[i]>>32 == key; i++ {
			if uint32(list[i]&(1<<24-1)) < limit {
				b := byte(list[i] >> 24)
				set[b>>6] |= 1 << (b & 63)
			}
		}
	}

	t := &charTable{
		block:   make([]uint16, (utf8.MaxRune+1)/charBlock),
		entries: make([]uint32, charBlock),
		befores: make([][4]uint64, 1),
		afters:  make([][4]uint64, 1),
	}
	for id := 0; id < e.numRanks; id++ {
		c := e.blob[e.offsets[id]:e.offsets[id+1]]
		ch, size := utf8.DecodeRuneInString(c)
		if size < 2 || size != len(c) {
			continue
		}
		// Merge c's bytes alone, marking the bytes next to which each
		// state's first and last parts would merge outward first.
		var before, after [4]uint64
		var at [5]int
		m := len(c)
		for i := range m + 1 {
			at[i] = i
		}
		high := uint32(0)
		for m > 1 {
			best, j := uint32(none), -1
			for k := 0; k+1 < m; k++ {
				if r := e.lookup(c[at[k]:at[k+2]]); r < best {
					best, j = r, k
				}
			}
			if j < 0 {
				break
			}
			mark(&before, ends, c[:at[1]], best)
			mark(&after, starts, c[at[m-1]:], best)
			high = max(high, best)
			copy(at[j+1:], at[j+2:m+1])
			m--
		}
		if m > 1 {
			continue // c's bytes do not merge into one token
		}
		mark(&before, ends, c, high)
		mark(&after, starts, c, high)
		bi := setIndex(&t.befores, before, 1<<entryBeforeBits)
		ai := setIndex(&t.afters, after, 1<<(32-entryTokenBits-entryBeforeBits))
		b := &t.block[ch/charBlock]
		if *b == 0 {
			*b = uint16(len(t.entries) / charBlock)
			t.entries = append(t.entries, make([]uint32, charBlock)...)
		}
		t.entries[int(*b)*charBlock+int(ch%charBlock)] = uint32(id) | bi<<entryTokenBits | ai<<(entryTokenBits+entryBeforeBits)
		t.n++
	}
	return t
}

// setIndex returns the index of set in *sets, adding it if it is new and
// there is room for it among limit sets (the last of which is kept for
// every byte), else the index of its least superset there.
func setIndex(sets *[][4]uint64, set [4]uint64, limit int) uint32 {
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

// packFrag packs up to four bytes, all 0x80 or above, into a map key.
func packFrag(s string) uint32 {
	var k uint32
	for i := len(s) - 1; i >= 0; i-- {
		k = k<<8 | uint32(s[i])
	}
	return k
}
