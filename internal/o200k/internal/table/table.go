// Package table defines the precomputed table that package o200k embeds: its
// binary layout, the hash function of its rank index, the character-class
// flags of its Unicode lookup tables, and the builder that `go generate`
// (../../gen) runs. The engine and the generator both import it, so the
// layout and the hash cannot drift apart.
//
// Layout. All integers are little-endian; every section starts at a multiple
// of 8 bytes from the start of the table.
//
//	header   64 bytes: Magic, then the uint32 counts NumRanks, BlobLen,
//	         HashBits, Stage1Len, Stage2Len, MaxTokenLen, CharBlocks,
//	         CharBefores, CharAfters and CharMulti, then zero padding
//	offsets  [NumRanks+1]uint32: token i is blob[offsets[i]:offsets[i+1]]
//	bytes    [256]uint32: the rank of each single byte
//	pairs    [65536]uint32: the rank of each two-byte string, or None
//	slots    [1<<HashBits]uint64: open-addressing index over the token
//	         bytes, linear probing, 0 = empty; see Slot
//	stage1   [Stage1Len]uint16: block number of each 1<<BlockShift code
//	         points
//	stage2   [Stage2Len]uint8: class flags, block by block
//	chars1   [Stage1Len]uint16: block number of each 1<<BlockShift code
//	         points in the character table (see chars.go)
//	chars2   [CharBlocks<<BlockShift]uint32: character entries, block by
//	         block
//	befores  [CharBefores][4]uint64, afters [CharAfters][4]uint64: the
//	         character table's sets of bytes
//	joins    [1<<JoinBits/64]uint64: the filter of characters that occur
//	         next to each other in tokens
//	filter   [1<<FilterBits/64]uint64: the filter of the tokens' hashes,
//	         see FilterBit
//	multi    [4*CharMulti]uint32: the parts of characters that merge into
//	         several tokens
//	blob     [BlobLen]byte: the bytes of every token, in rank order
package table

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strings"
)

// Magic starts every table; the last two bytes are the format version.
const Magic = "o200kT05"

// HeaderSize is the size of the fixed header.
const HeaderSize = 64

// BlockShift is log2 of the number of code points per stage-2 block.
const BlockShift = 7

// MaxRune is the number of code points covered by the class tables.
const MaxRune = 0x110000

// None marks a missing rank in the pairs section.
const None = ^uint32(0)

// Slot bit layout: tag (top 16 bits of the hash) | length (8) | blob offset
// (22) | rank (18).
const (
	SlotRankBits = 18
	SlotOffBits  = 22
	SlotLenBits  = 8
	SlotTagShift = SlotRankBits + SlotOffBits + SlotLenBits // 48
	SlotLenShift = SlotRankBits + SlotOffBits               // 40
)

// Class flags, one byte per code point. Each flag is one character class of
// the o200k pattern, so the pre-tokenizer tests membership with one AND.
const (
	FUpper   = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	FLower               // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	FPre                 // [^\r\n\p{L}\p{N}]
	FPunct               // [^\s\p{L}\p{N}]
	FNum                 // \p{N}
	FSpace               // \s (Unicode White_Space)
	FNewline             // [\r\n]
)

// Flags per class letter of gen/classes.txt; code points in no class get
// FlagsOther.
const (
	FlagsOther   = FPre | FPunct
	FlagsSpace   = FSpace | FPre
	FlagsNewline = FSpace | FNewline
	FlagsNum     = FNum
	FlagsUpper   = FUpper          // Lu, Lt
	FlagsLower   = FLower          // Ll
	FlagsLetter  = FUpper | FLower // Lm, Lo
	FlagsMark    = FUpper | FLower | FPre | FPunct
)

// Header holds the counts stored in a table's header.
type Header struct {
	NumRanks, BlobLen, HashBits, Stage1Len, Stage2Len, MaxTokenLen uint32
	CharBlocks, CharBefores, CharAfters, CharMulti                 uint32
}

// Sections gives the byte offset of each section of a table.
type Sections struct {
	Offsets, Bytes, Pairs, Slots, Stage1, Stage2                     int
	Chars1, Chars2, Befores, Afters, Joins, Filter, Multi, Blob, End int
}

func align8(n int) int { return (n + 7) &^ 7 }

// Layout returns where each section of a table with header h lies.
func (h Header) Layout() Sections {
	var s Sections
	s.Offsets = HeaderSize
	s.Bytes = align8(s.Offsets + 4*(int(h.NumRanks)+1))
	s.Pairs = s.Bytes + 4*256
	s.Slots = s.Pairs + 4*65536
	s.Stage1 = s.Slots + 8<<h.HashBits
	s.Stage2 = align8(s.Stage1 + 2*int(h.Stage1Len))
	s.Chars1 = align8(s.Stage2 + int(h.Stage2Len))
	s.Chars2 = align8(s.Chars1 + 2*int(h.Stage1Len))
	s.Befores = s.Chars2 + 4*int(h.CharBlocks)<<BlockShift
	s.Afters = s.Befores + 32*int(h.CharBefores)
	s.Joins = s.Afters + 32*int(h.CharAfters)
	s.Filter = s.Joins + 1<<JoinBits/8
	s.Multi = s.Filter + 1<<FilterBits/8
	s.Blob = align8(s.Multi + 16*int(h.CharMulti))
	s.End = s.Blob + int(h.BlobLen)
	return s
}

// ParseHeader reads and checks the header of table data.
func ParseHeader(data string) (Header, Sections, error) {
	var h Header
	if len(data) < HeaderSize || data[:len(Magic)] != Magic {
		return h, Sections{}, errors.New("table: bad magic")
	}
	u32 := func(off int) uint32 { return binary.LittleEndian.Uint32([]byte(data[off : off+4])) }
	h = Header{u32(8), u32(12), u32(16), u32(20), u32(24), u32(28), u32(32), u32(36), u32(40), u32(44)}
	if h.MaxTokenLen == 0 || h.MaxTokenLen >= 1<<SlotLenBits || h.HashBits < 10 || h.HashBits > 30 || h.NumRanks >= 1<<SlotRankBits || h.BlobLen >= 1<<SlotOffBits ||
		h.Stage1Len != MaxRune>>BlockShift || h.Stage2Len%(1<<BlockShift) != 0 || h.Stage2Len>>BlockShift > 1<<16 ||
		h.CharBlocks == 0 || h.CharBlocks > 1<<16 || h.CharBefores == 0 || h.CharBefores > 1<<EntryBeforeBits ||
		h.CharAfters == 0 || h.CharAfters > 1<<EntryAfterBits || h.NumRanks+h.CharMulti > 1<<EntryTokenBits {
		return h, Sections{}, fmt.Errorf("table: bad header %+v", h)
	}
	s := h.Layout()
	if s.End != len(data) {
		return h, s, fmt.Errorf("table: size %d, header says %d", len(data), s.End)
	}
	return h, s, nil
}

const (
	k0 = 0xa0761d6478bd642f
	k1 = 0xe7037ed1a0b428db
	k2 = 0x8ebc6af09c88c6e3
)

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint64 {
	_ = s[3]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
}

// FilterBits is log2 of the number of bits of the token filter: two bits
// per token, FilterBit(h, 0) and FilterBit(h, 1) of its hash h, are set.
// A string whose two bits are not both set is no token, which is known
// without touching the much larger rank index (a quarter of a megabyte
// against four): with o200k_base's 200,000 tokens about 3% of other
// strings pass.
const FilterBits = 21

// FilterBit returns bit k (0 or 1) of hash h in the token filter: bits
// 19-39 or 40-60 of h, above those of the rank index's slot number.
func FilterBit(h uint64, k int) uint64 {
	return h >> (19 + 21*k) & (1<<FilterBits - 1)
}

// Hash is the hash of the rank index: a wyhash-style multiply-mix, fixed
// forever for a given Magic because the generator stores its results.
func Hash(s string) uint64 {
	n := len(s)
	var a, b uint64
	switch {
	case n > 16:
		return hashLong(s)
	case n >= 8:
		a, b = le64(s), le64(s[n-8:])
	case n >= 4:
		a, b = le32(s), le32(s[n-4:])
	case n > 0:
		a = uint64(s[0])<<16 | uint64(s[n>>1])<<8 | uint64(s[n-1])
	}
	return mix(mix(a^k0, b^k1)^uint64(n), k2)
}

func hashLong(s string) uint64 {
	n := len(s)
	h := uint64(n) * k2
	for p := s; len(p) > 16; p = p[16:] {
		h = mix(le64(p)^k0, le64(p[8:])^h^k1)
	}
	return mix(mix(le64(s[n-16:])^k0^h, le64(s[n-8:])^k1)^uint64(n), k2)
}

// Slot packs one index entry; tag is the hash's top 16 bits.
func Slot(hash uint64, length, off, rank int) uint64 {
	return hash>>SlotTagShift<<SlotTagShift | uint64(length)<<SlotLenShift | uint64(off)<<SlotRankBits | uint64(rank)
}

// ParseClasses reads gen/classes.txt and returns the class flags of every
// code point below MaxRune.
func ParseClasses(r io.Reader) ([]uint8, error) {
	flags := make([]uint8, MaxRune)
	for i := range flags {
		flags[i] = FlagsOther
	}
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		var lo, hi uint32
		var cls string
		if _, err := fmt.Sscanf(text, "%X %X %s", &lo, &hi, &cls); err != nil || lo > hi || hi >= MaxRune {
			return nil, fmt.Errorf("table: classes line %d: %q", line, text)
		}
		var f uint8
		switch cls {
		case "S":
			f = FlagsSpace
		case "N":
			f = FlagsNum
		case "U":
			f = FlagsUpper
		case "l":
			f = FlagsLower
		case "O":
			f = FlagsLetter
		case "M":
			f = FlagsMark
		default:
			return nil, fmt.Errorf("table: classes line %d: unknown class %q", line, cls)
		}
		for c := lo; c <= hi; c++ {
			flags[c] = f
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	flags['\r'], flags['\n'] = FlagsNewline, FlagsNewline
	return flags, nil
}

// Build lays out the table for the given ranks (token bytes indexed by
// rank) and class flags (one per code point, from ParseClasses).
func Build(ranks [][]byte, flags []uint8) ([]byte, error) {
	if len(ranks) >= 1<<SlotRankBits {
		return nil, fmt.Errorf("table: %d ranks, at most %d fit", len(ranks), 1<<SlotRankBits-1)
	}
	if len(flags) != MaxRune {
		return nil, fmt.Errorf("table: %d class flags, want %d", len(flags), MaxRune)
	}
	blobLen, maxLen := 0, 0
	for i, tok := range ranks {
		if len(tok) == 0 || len(tok) >= 1<<SlotLenBits {
			return nil, fmt.Errorf("table: rank %d has %d bytes", i, len(tok))
		}
		blobLen += len(tok)
		maxLen = max(maxLen, len(tok))
	}
	if blobLen >= 1<<SlotOffBits {
		return nil, fmt.Errorf("table: %d token bytes, at most %d fit", blobLen, 1<<SlotOffBits-1)
	}
	// At most half full: o200k_base fills 38%, where linear probing takes
	// ~1.3 probes for a hit and ~1.8 for a miss.
	hashBits := uint32(10)
	for 1<<hashBits < 2*len(ranks) {
		hashBits++
	}

	// Stage tables: deduplicated blocks of 1<<BlockShift code points.
	const block = 1 << BlockShift
	var stage1 []uint16
	var stage2 []byte
	seen := map[string]uint16{}
	for lo := 0; lo < MaxRune; lo += block {
		b := string(flags[lo : lo+block])
		n, ok := seen[b]
		if !ok {
			n = uint16(len(stage2) / block)
			seen[b] = n
			stage2 = append(stage2, b...)
		}
		stage1 = append(stage1, n)
	}

	chars := BuildChars(ranks)
	h := Header{uint32(len(ranks)), uint32(blobLen), hashBits, uint32(len(stage1)), uint32(len(stage2)), uint32(maxLen),
		uint32(len(chars.Entries) >> BlockShift), uint32(len(chars.Befores)), uint32(len(chars.Afters)), uint32(len(chars.Multi) / 4)}
	s := h.Layout()
	out := make([]byte, s.End)
	copy(out, Magic)
	le := binary.LittleEndian
	le.PutUint32(out[8:], h.NumRanks)
	le.PutUint32(out[12:], h.BlobLen)
	le.PutUint32(out[16:], h.HashBits)
	le.PutUint32(out[20:], h.Stage1Len)
	le.PutUint32(out[24:], h.Stage2Len)
	le.PutUint32(out[28:], h.MaxTokenLen)
	le.PutUint32(out[32:], h.CharBlocks)
	le.PutUint32(out[36:], h.CharBefores)
	le.PutUint32(out[40:], h.CharAfters)
	le.PutUint32(out[44:], h.CharMulti)

	for i := range 256 {
		le.PutUint32(out[s.Bytes+4*i:], None)
	}
	for i := range 65536 {
		le.PutUint32(out[s.Pairs+4*i:], None)
	}
	mask := uint64(1)<<hashBits - 1
	off := 0
	for rank, tok := range ranks {
		le.PutUint32(out[s.Offsets+4*rank:], uint32(off))
		copy(out[s.Blob+off:], tok)
		switch len(tok) {
		case 1:
			le.PutUint32(out[s.Bytes+4*int(tok[0]):], uint32(rank))
		case 2:
			le.PutUint32(out[s.Pairs+4*(int(tok[0])<<8|int(tok[1])):], uint32(rank))
		}
		hash := Hash(string(tok))
		for k := range 2 {
			b := FilterBit(hash, k)
			p := s.Filter + 8*int(b/64)
			le.PutUint64(out[p:], le.Uint64(out[p:])|1<<(b%64))
		}
		for i := hash & mask; ; i = (i + 1) & mask {
			p := s.Slots + 8*int(i)
			e := le.Uint64(out[p:])
			if e == 0 {
				le.PutUint64(out[p:], Slot(hash, len(tok), off, rank))
				break
			}
			o, n := int(e>>SlotRankBits)&(1<<SlotOffBits-1), int(e>>SlotLenShift)&(1<<SlotLenBits-1)
			if string(out[s.Blob+o:s.Blob+o+n]) == string(tok) {
				return nil, fmt.Errorf("table: ranks %d and %d have the same bytes %q", e&(1<<SlotRankBits-1), rank, tok)
			}
		}
		off += len(tok)
	}
	le.PutUint32(out[s.Offsets+4*len(ranks):], uint32(off))
	for i := range 256 {
		if le.Uint32(out[s.Bytes+4*i:]) == None {
			return nil, fmt.Errorf("table: byte %#x is not a rank", i)
		}
	}
	for i, n := range stage1 {
		le.PutUint16(out[s.Stage1+2*i:], n)
	}
	copy(out[s.Stage2:], stage2)
	for i, n := range chars.Block1 {
		le.PutUint16(out[s.Chars1+2*i:], n)
	}
	for i, v := range chars.Entries {
		le.PutUint32(out[s.Chars2+4*i:], v)
	}
	for i, set := range append(chars.Befores, chars.Afters...) {
		for k, w := range set {
			le.PutUint64(out[s.Befores+32*i+8*k:], w)
		}
	}
	for i, w := range chars.Joins {
		le.PutUint64(out[s.Joins+8*i:], w)
	}
	for i, t := range chars.Multi {
		le.PutUint32(out[s.Multi+4*i:], t)
	}
	return out, nil
}
