package o200k

//go:generate go run ./gen

import (
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/go-harmony/harmony/internal/o200k/internal/table"
)

// tableData is the table written by gen: token bytes, offsets, the rank
// index and the Unicode class tables. See internal/table for the layout.
//
//go:embed o200k.bin
var tableData string

// Engine encodes ordinary text to o200k_base ranks. It is safe for
// concurrent use; build it with [Load].
type Engine struct {
	blob     string         // token bytes in rank order
	offsets  []uint32       // token r is blob[offsets[r]:offsets[r+1]]
	bytes    *[256]uint32   // rank of each single byte
	pairs    *[65536]uint32 // rank of each two-byte string, or none
	slots    []uint64       // the rank index, see lookup
	filter   []uint64       // the token filter, see lookup
	mask     uint64         // len(slots)-1
	stage1   []uint16       // Unicode class tables, see runeFlags
	stage2   string
	flags2   *[0x800]uint8 // the flags of two-byte characters, see peekSlow
	numRanks int
	maxLen   int       // length of the longest token
	copied   bool      // sections were copied out of the table
	pool     sync.Pool // *work

	charTab charTable // see chars.go
}

// none marks a missing rank.
const none = table.None

var (
	loadOnce sync.Once
	loaded   *Engine
	loadErr  error
)

// Load returns the o200k_base engine. The first call checks the embedded
// table's SHA-256 and sets up views into it, which takes a few milliseconds
// and allocates almost nothing; later calls return the same *Engine.
func Load() (*Engine, error) {
	loadOnce.Do(func() {
		loaded, loadErr = newEngine(tableData, tableSHA256, tableSize, false)
	})
	return loaded, loadErr
}

// newEngine checks data against its size and SHA-256 and sets the engine up
// on it, viewing its sections in place unless forceCopy is set or the
// platform needs them copied (big-endian, or data not 8-byte aligned).
func newEngine(data, wantSum string, wantSize int, forceCopy bool) (*Engine, error) {
	if len(data) != wantSize {
		return nil, fmt.Errorf("o200k: table is %d bytes, want %d", len(data), wantSize)
	}
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(data), len(data)))
	if got := hex.EncodeToString(sum[:]); got != wantSum {
		return nil, fmt.Errorf("o200k: table SHA-256 is %s, want %s", got, wantSum)
	}
	h, s, err := table.ParseHeader(data)
	if err != nil {
		return nil, fmt.Errorf("o200k: %w", err)
	}
	inPlace := !forceCopy && binary.NativeEndian.Uint16([]byte{1, 0}) == 1 &&
		uintptr(unsafe.Pointer(unsafe.StringData(data)))%8 == 0
	e := &Engine{
		blob:     data[s.Blob:s.End],
		offsets:  section[uint32](data, s.Offsets, int(h.NumRanks)+1, inPlace),
		bytes:    (*[256]uint32)(section[uint32](data, s.Bytes, 256, inPlace)),
		pairs:    (*[65536]uint32)(section[uint32](data, s.Pairs, 65536, inPlace)),
		slots:    section[uint64](data, s.Slots, 1<<h.HashBits, inPlace),
		mask:     1<<h.HashBits - 1,
		filter:   section[uint64](data, s.Filter, 1<<table.FilterBits/64, inPlace),
		stage1:   section[uint16](data, s.Stage1, int(h.Stage1Len), inPlace),
		stage2:   data[s.Stage2 : s.Stage2+int(h.Stage2Len)],
		numRanks: int(h.NumRanks),
		maxLen:   int(h.MaxTokenLen),
		copied:   !inPlace,
		charTab: charTable{
			block:    section[uint16](data, s.Chars1, int(h.Stage1Len), inPlace),
			entries:  section[uint32](data, s.Chars2, int(h.CharBlocks)*charBlock, inPlace),
			befores:  sets(section[uint64](data, s.Befores, 4*int(h.CharBefores), inPlace)),
			afters:   sets(section[uint64](data, s.Afters, 4*int(h.CharAfters), inPlace)),
			joins:    section[uint64](data, s.Joins, 1<<table.JoinBits/64, inPlace),
			multi:    section[uint32](data, s.Multi, 4*int(h.CharMulti), inPlace),
			numRanks: h.NumRanks,
		},
	}
	if e.offsets[h.NumRanks] != h.BlobLen {
		return nil, fmt.Errorf("o200k: offsets end at %d, blob has %d bytes", e.offsets[h.NumRanks], h.BlobLen)
	}
	for _, b := range e.stage1 {
		if int(b)<<table.BlockShift >= len(e.stage2) {
			return nil, fmt.Errorf("o200k: stage-1 block %d out of range", b)
		}
	}
	for _, b := range e.charTab.block {
		if int(b)<<table.BlockShift >= len(e.charTab.entries) {
			return nil, fmt.Errorf("o200k: character block %d out of range", b)
		}
	}
	for _, t := range e.charTab.multi {
		if t != none && int(t) >= e.numRanks {
			return nil, fmt.Errorf("o200k: character part %d out of range", t)
		}
	}
	for _, v := range e.charTab.entries {
		if v != 0 && (int(v&(1<<entryTokenBits-1)) >= e.numRanks+int(h.CharMulti) ||
			int(v>>entryTokenBits&(1<<entryBeforeBits-1)) >= len(e.charTab.befores) ||
			int(v>>(entryTokenBits+entryBeforeBits)) >= len(e.charTab.afters)) {
			return nil, fmt.Errorf("o200k: character entry %#x out of range", v)
		}
	}
	e.flags2 = e.flags2Table()
	return e, nil
}

// section returns the n little-endian T at data[off:]: a view of data itself
// when inPlace, else a decoded copy.
func section[T uint16 | uint32 | uint64](data string, off, n int, inPlace bool) []T {
	size := int(unsafe.Sizeof(T(0)))
	b := data[off : off+n*size]
	if inPlace {
		return unsafe.Slice((*T)(unsafe.Pointer(unsafe.StringData(b))), n)
	}
	out := make([]T, n)
	for i := range out {
		var v uint64
		for k := size - 1; k >= 0; k-- {
			v = v<<8 | uint64(b[i*size+k])
		}
		out[i] = T(v)
	}
	return out
}

// sets views 4n words as n sets of bytes.
func sets(words []uint64) [][4]uint64 {
	return unsafe.Slice((*[4]uint64)(unsafe.Pointer(unsafe.SliceData(words))), len(words)/4)
}

// NumRanks returns the number of ordinary tokens, 199,998 for o200k_base.
// Ids 0 to NumRanks()-1 are ranks; the special tokens of o200k_harmony
// follow them and are not known here.
func (e *Engine) NumRanks() int { return e.numRanks }

// TokenBytes returns the bytes of the token with the given id, or nil if id
// is not a rank (id >= NumRanks()). The slice shares the engine's read-only
// table: it must not be modified.
func (e *Engine) TokenBytes(id uint32) []byte {
	if int(id) >= e.numRanks {
		return nil
	}
	tok := e.blob[e.offsets[id]:e.offsets[id+1]]
	return unsafe.Slice(unsafe.StringData(tok), len(tok))[:len(tok):len(tok)]
}

// AppendTokenBytes appends the bytes of the token with the given id to dst
// and reports true, or returns dst as it is and false if id is not a rank.
// A token of up to 16 bytes (nearly all) is copied as one 16-byte word when
// dst has room for that many, instead of through a call to copy: decoding
// and parsing do this once per token. So it may write up to 15 bytes past
// the token's, within dst's capacity: use it only on a buffer whose spare
// room nobody else reads.
func (e *Engine) AppendTokenBytes(dst []byte, id uint32) ([]byte, bool) {
	if int(id) >= e.numRanks {
		return dst, false
	}
	off, end := int(e.offsets[id]), int(e.offsets[id+1])
	if n := len(dst); end-off <= 16 && cap(dst)-n >= 16 && off+16 <= len(e.blob) {
		// The word read past the token is still in the blob, and the
		// word written past dst's length within its capacity.
		*(*[16]byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(dst)), n)) = *(*[16]byte)(unsafe.Pointer(unsafe.StringData(e.blob[off:])))
		return dst[:n+end-off], true
	}
	return append(dst, e.blob[off:end]...), true
}

// AppendTokensBytes appends the bytes of the leading ids of ids to dst, as
// AppendTokenBytes appends each (so it may write up to 15 bytes past them
// within dst's capacity), in one loop: up to the first id that is not a
// rank, or while dst has room for any token and the 16-byte word after it.
// It returns dst and how many ids it took.
func (e *Engine) AppendTokensBytes(dst []byte, ids []uint32) ([]byte, int) {
	n, room := len(dst), cap(dst)-e.maxLen-16
	base := unsafe.Pointer(unsafe.SliceData(dst))
	blob, offsets := e.blob, e.offsets
	for k, id := range ids {
		if int(id) >= e.numRanks || n > room {
			return dst[:n], k
		}
		off, end := int(offsets[id]), int(offsets[id+1])
		if end-off <= 16 && off+16 <= len(blob) {
			*(*[16]byte)(unsafe.Add(base, n)) = *(*[16]byte)(unsafe.Pointer(unsafe.StringData(blob[off:])))
		} else {
			copy(dst[n:cap(dst)], blob[off:end])
		}
		n += end - off
	}
	return dst[:n], len(ids)
}

// TokenLen returns the length in bytes of the token with the given id, or 0
// if id is not a rank.
func (e *Engine) TokenLen(id uint32) int {
	if int(id) >= e.numRanks {
		return 0
	}
	return int(e.offsets[id+1] - e.offsets[id])
}

// AppendEncode appends the ranks of text, encoded as ordinary text (never
// special tokens), to dst and returns the extended slice.
//
// Text that is not valid UTF-8 is encoded as if each byte that does not
// belong to a valid encoding (as utf8.DecodeRuneInString sees it) were
// U+FFFD, whose bytes EF BF BD then go into the pieces: what tiktoken-go,
// which converts the text to []rune, does. (The reference takes Rust
// strings, which are always valid.)
//
// Where the reference and tiktoken-go differ (5,055 code points new in
// Unicode 16.0.0, and "'ſ"), this follows the reference: see the package
// documentation.
//
// Memory is in proportion to the longest piece, whatever the text: merging
// a piece of n bytes takes 4n bytes for its parts, 4 bytes per pending
// merge (at most about 2n at once), and a fixed 1 MiB of pooled tables;
// invalid UTF-8 costs no more, as it is never copied out replaced. With
// dst's own growth, TestMemoryBound holds the live heap's high water under
// 16 times the text plus 8 MiB for single 8 MiB runs of any one character,
// invalid bytes included (13–14.5× at worst).
func (e *Engine) AppendEncode(dst []uint32, text string) []uint32 {
	// A long text gets room for its tokens at once, instead of a series
	// of doublings that copy the ids and touch fresh memory again each
	// time: a token per four bytes of ASCII and per two bytes of the rest
	// (prose averages 4.5 bytes a token; CJK 3.2, emoji 2.3, of which a
	// quarter is ASCII). If the tokens come shorter than that (code
	// averages 3.1), the room is grown once to what the rest of the text
	// needs at the rate so far (growFor), not by doubling. (A long piece
	// is left to grow it as it needs: bpeLarge makes its room exactly.)
	long := len(text) >= longText
	start := len(dst)
	if long {
		if need := (len(text) + nonASCII(text)) / 4; cap(dst)-len(dst) < need {
			dst = slices.Grow(dst, need)
		}
	}
	var w *work
	for i := 0; i < len(text); {
		end := e.pieceEnd(text, i)
		if long && cap(dst)-len(dst) < min(end-i, smallPiece) {
			dst = growFor(dst, len(dst)-start, i, len(text))
		}
		dst = e.appendPiece(dst, text[i:end], &w)
		i = end
	}
	if w != nil {
		e.putWork(w)
	}
	return dst
}

// longText is the length from which AppendEncode sizes its result ahead.
const longText = 1 << 16

// growFor makes room in dst for the ids of the rest of a text of total
// bytes, done tokens having come from its first at bytes: the rest at the
// same rate, an eighth more, and a margin (never more than a token a byte).
func growFor(dst []uint32, done, at, total int) []uint32 {
	rest := total - at
	need := rest
	if at > 0 {
		need = min(rest, int(float64(rest)*float64(done)/float64(at)*1.125)+smallPiece)
	}
	return slices.Grow(dst, need)
}

// nonASCII returns the number of bytes of s that are not ASCII.
func nonASCII(s string) int {
	n, i := 0, 0
	for ; i+8 <= len(s); i += 8 {
		n += bits.OnesCount64(le64(s[i:]) & 0x8080808080808080)
	}
	for ; i < len(s); i++ {
		n += int(s[i] >> 7)
	}
	return n
}

// appendInvalid appends the ranks of a piece that is not valid UTF-8, as if
// each byte that does not belong to a valid encoding were U+FFFD. The
// replaced piece is built only if it is short; a long one is merged in
// place, each such byte an initial part of its own (see fffdAtomic), so
// that memory stays in proportion to the piece, not to three times it.
func (e *Engine) appendInvalid(dst []uint32, p string, w **work) []uint32 {
	if *w == nil {
		*w = e.getWork()
	}
	if len(p) > smallPiece && e.fffdAtomic() {
		return e.bpeLarge(dst, p, *w)
	}
	buf := appendReplaced((*w).repl[:0], p)
	(*w).repl = buf
	// The replaced piece is valid and at least 3 bytes long (U+FFFD).
	dst, _ = e.appendMerged(dst, unsafe.String(unsafe.SliceData(buf), len(buf)), w)
	return dst
}

// fffdAtomic reports whether U+FFFD is atomic next to any bytes (see
// chars.go), so that a piece may start with it as one part instead of
// three, with the same result, wherever it is. o200k_base passes; a table that did not would have invalid
// pieces built replaced, at three times the memory.
func (e *Engine) fffdAtomic() bool {
	return e.chars().atomicEverywhere(utf8.RuneError)
}

// appendReplaced appends s to dst with every byte that is not part of a
// valid UTF-8 encoding replaced by U+FFFD.
func appendReplaced(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[i:i+n]...)
		}
		i += n
	}
	return dst
}

// replaceInvalid returns s with every byte that is not part of a valid UTF-8
// encoding replaced by U+FFFD.
func replaceInvalid(s string) string {
	return string(appendReplaced(make([]byte, 0, len(s)+16), s))
}

// lookup returns the rank of the token whose bytes are s, or none. The
// token filter answers most misses (most pieces and pairs that BPE asks
// about are no token) from a quarter of a megabyte, before the rank index.
func (e *Engine) lookup(s string) uint32 {
	if len(s) > e.maxLen {
		return none
	}
	h := table.Hash(s)
	b0, b1 := table.FilterBit(h, 0), table.FilterBit(h, 1)
	if (e.filter[b0/64]>>(b0%64))&(e.filter[b1/64]>>(b1%64))&1 == 0 {
		return none
	}
	want := h>>table.SlotTagShift<<table.SlotLenBits | uint64(len(s))
	for i := h & e.mask; ; i = (i + 1) & e.mask {
		slot := e.slots[i]
		if slot>>table.SlotLenShift == want {
			off := int(slot>>table.SlotRankBits) & (1<<table.SlotOffBits - 1)
			if equal(e.blob[off:off+len(s)], s) {
				return uint32(slot) & (1<<table.SlotRankBits - 1)
			}
		}
		if slot == 0 {
			return none
		}
	}
}

// equal reports whether a == b, for len(a) == len(b): short strings are
// compared with a few loads, as table.Hash reads them, instead of a call.
func equal(a, b string) bool {
	switch n := len(b); {
	case n > 16:
		return a == b
	case n >= 8:
		return le64(a) == le64(b) && le64(a[n-8:]) == le64(b[n-8:])
	case n >= 4:
		return le32(a) == le32(b) && le32(a[n-4:]) == le32(b[n-4:])
	case n > 0:
		return a[0] == b[0] && a[n>>1] == b[n>>1] && a[n-1] == b[n-1]
	}
	return true
}

func le64(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func le32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}
