package o200k

import (
	"slices"
	"unicode/utf8"
	"unsafe"
)

// Byte-pair merging. The result must be exactly that of tiktoken's
// byte_pair_merge: start from single bytes, and while some adjacent pair of
// parts concatenates to a token, merge the pair whose token has the lowest
// rank, the leftmost one on ties. (Ranks are compared by the bytes of the
// concatenation, not by a merge list, as tiktoken does.)
//
// Short ASCII pieces (up to 128 bytes, nearly all of them) run tiktoken's
// own quadratic loop on an array (bpeSmall). Long ones use rank buckets
// (bpeLarge), which do the same merges in the same order in near-linear
// time. A piece that is not all ASCII goes to bpeChars: its characters of
// two to four bytes start as their token (or the tokens their bytes merge
// into alone) instead of as their bytes wherever that cannot change the
// result, and the piece is cut where no token joins the characters on
// either side (chars.go); each segment is then merged by bpeSmall's loop,
// or by bpeLarge if it is long. CJK text is then a third of the parts, none
// of the merges within characters, and segments of one or two characters.
// Every merge looks pair ranks up through a small memo keyed by the two
// tokens' ids (pairRank).

// smallPiece is the longest ASCII piece merged by bpeSmall, and smallParts
// the most parts of a segment that bpeChars merges the same way: up to
// them it is faster than bpeLarge (see BenchmarkBPE).
const (
	smallPiece = 128
	smallParts = 64
)

// bpeSmall's packed parts: the pair rank in bits 63-32, the token in
// 31-startBits, where the part starts in p below.
const startBits = 14

// hugePiece is the length above which bpeLarge gives a bucket's buffer back
// as soon as the bucket is done, so that the buckets of a huge piece hold
// little more than its pending merges at any time. Below it the buffers
// are kept for the next bucket and the next call, which is faster; putWork
// drops the working memory of a piece longer than this anyway.
const hugePiece = 1 << 20

// appendPiece appends the ranks of one piece. *w is the working memory of
// the call, fetched the first time a piece needs merging.
//
// The piece may be invalid UTF-8 (the text is not checked first): each
// path finds that out from what it looks at anyway, and hands the piece to
// appendInvalid. A piece of one or two bytes is checked as it is read; a
// piece that is a token is invalid iff its first or its last character is
// (no token has an invalid byte elsewhere: TestTokenValidity); any other
// is merged by bpeChars, which decodes every character of it.
func (e *Engine) appendPiece(dst []uint32, p string, w **work) []uint32 {
	switch len(p) {
	case 1:
		if p[0] < utf8.RuneSelf {
			return append(dst, e.bytes[p[0]])
		}
	case 2:
		if a, b := p[0], p[1]; a|b < utf8.RuneSelf || a >= 0xC2 && a < 0xE0 && b&0xC0 == 0x80 {
			if r := e.pairs[uint16(a)<<8|uint16(b)]; r != none {
				return append(dst, r)
			}
			return append(dst, e.bytes[a], e.bytes[b])
		}
	default:
		if out, ok := e.appendMerged(dst, p, w); ok {
			return out
		}
	}
	return e.appendInvalid(dst, p, w)
}

// appendMerged appends the ranks of p (len(p) >= 2): its token if it is
// one, else its merge, and reports true; or reports false, with dst as it
// was, if p is not valid UTF-8. It never calls appendInvalid, which calls
// it: a cycle would make escape analysis take dst as escaping (and a
// caller's array with it).
func (e *Engine) appendMerged(dst []uint32, p string, w **work) ([]uint32, bool) {
	if r := e.lookup(p); r != none {
		if endsValid(p) {
			return append(dst, r), true
		}
		return dst, false
	}
	if *w == nil {
		*w = e.getWork()
	}
	return e.bpe(dst, p, *w)
}

// bpe appends the merged ranks of p, len(p) >= 2, and reports true; or
// reports false, with dst as it was, if p is not valid UTF-8.
func (e *Engine) bpe(dst []uint32, p string, w *work) ([]uint32, bool) {
	switch {
	case !ascii(p):
		return e.bpeChars(dst, p, w)
	case len(p) <= smallPiece:
		return e.bpeSmall(dst, p, w), true
	}
	return e.bpeLarge(dst, p, w), true
}

// endsValid reports whether the first and the last character of p (len(p)
// >= 1) are valid UTF-8.
func endsValid(p string) bool {
	if p[0] >= utf8.RuneSelf {
		if r, n := utf8.DecodeRuneInString(p); r == utf8.RuneError && n == 1 {
			return false
		}
	}
	if p[len(p)-1] >= utf8.RuneSelf {
		if r, n := utf8.DecodeLastRuneInString(p); r == utf8.RuneError && n == 1 {
			return false
		}
	}
	return true
}

// work is the working memory of an encoding call: the pair memo, and the
// buffers of bpeLarge. Engines pool them.
//
// memo caches the rank of the concatenation of two tokens, keyed by their
// ids; the answer depends on nothing else, so it stays valid across calls.
type work struct {
	memo  [1 << memoBits]uint64
	small [max(smallPiece, smallParts) + 1]uint64 // bpeSmall's parts
	large
	repl []byte // a short invalid piece, replaced
}

// The memo is direct-mapped; an entry is key+1 << 20 | rank+1, where key is
// left<<18 | right (ids are 18 bits) and rank+1 is 0 for none (none+1
// wraps to 0 in 32 bits, so that the rank is read back without a branch).
const (
	memoBits = 14
	memoRank = 1<<20 - 1
)

func (e *Engine) getWork() *work {
	if w, ok := e.pool.Get().(*work); ok {
		return w
	}
	return &work{}
}

func (e *Engine) putWork(w *work) {
	if cap(w.parts) > hugePiece || cap(w.repl) > 1<<16 {
		return // let a huge piece's buffers go
	}
	e.pool.Put(w)
}

// pairRank returns the rank of the token whose bytes are those of tokens
// left and right, which are p, or none. The hot loops ask memoGet and call
// pairRankMiss themselves, so that a hit costs no call.
func (e *Engine) pairRank(w *work, left, right uint32, p string) uint32 {
	slot, key, r, hit := w.memoGet(left, right)
	if !hit {
		r = e.pairRankMiss(slot, key, p)
	}
	return r
}

// pairRankMiss is pairRank when the memo does not know the pair.
func (e *Engine) pairRankMiss(slot *uint64, key uint64, p string) uint32 {
	r := e.lookup(p)
	memoPut(slot, key, r)
	return r
}

// memoGet looks the pair (left, right) up in the memo: its slot and key,
// and on a hit the rank (or none).
func (w *work) memoGet(left, right uint32) (slot *uint64, key uint64, r uint32, hit bool) {
	key = uint64(left)<<18 | uint64(right)
	slot = &w.memo[(key*0x9E3779B97F4A7C15)>>(64-memoBits)]
	if v := *slot; v>>20 == key+1 {
		return slot, key, uint32(v&memoRank) - 1, true
	}
	return slot, key, 0, false
}

// memoPut records rank r (or none) for key in its slot.
func memoPut(slot *uint64, key uint64, r uint32) {
	*slot = (key+1)<<20 | uint64((r+1)&memoRank)
}

// bpeSmall is tiktoken's byte_pair_merge on an array (kept in w, so that
// it is not cleared on every call), for an ASCII piece. There are m parts;
// parts[j] packs the rank of part j merged with part j+1, the token of part
// j and where it starts in p (see startBits); parts[m] holds only the
// sentinel start len(p). The lowest pair rank, leftmost on ties, is found
// with a branch-free scan.
func (e *Engine) bpeSmall(dst []uint32, p string, w *work) []uint32 {
	parts := &w.small
	n := len(p)
	_ = parts[n]
	for j := 0; j < n-1; j++ {
		parts[j] = uint64(e.pairs[uint16(p[j])<<8|uint16(p[j+1])])<<32 | uint64(e.bytes[p[j]])<<startBits | uint64(j)
	}
	parts[n-1] = uint64(none)<<32 | uint64(e.bytes[p[n-1]])<<startBits | uint64(n-1)
	parts[n] = uint64(n)
	return e.mergeSmall(dst, p, w, parts[:n+1])
}

// bpeChars merges a piece that is not all ASCII, of any length. Its atomic
// characters start as one part each (see chars.go), its other bytes as
// their own. And it is cut between two parts that are whole characters, one
// of them not ASCII, where no token holds the first followed by the second
// (mayJoin): the parts on either side of such a cut always end with the
// first and start with the second, so no merge crosses it, and each
// segment between cuts merges alone, exactly as the whole piece would
// there. In CJK text most segments are one or two characters. A segment of
// up to smallParts parts is merged as bpeSmall merges, a longer one by
// bpeLarge.
//
// If p is not valid UTF-8, bpeChars reports false and returns dst as it
// was (the segments before the invalid byte may have been appended past
// its length).
func (e *Engine) bpeChars(dst []uint32, p string, w *work) ([]uint32, bool) {
	ct := e.chars()
	start := len(dst)
	parts := &w.small // the segment's parts, starts relative to seg
	n := len(p)
	seg, m := 0, 0   // where the segment starts, and its number of parts
	prev := rune(-1) // the character of the last part if it is whole, else -1
	for j := 0; j < n; {
		r, size, tok := rune(p[j]), 1, uint32(none)
		if r < utf8.RuneSelf {
			tok = e.bytes[r]
		} else {
			r, size = decode(p, j)
			if size == 1 {
				return dst[:start], false // not valid UTF-8
			}
			before, after := noByte, noByte
			if j > 0 {
				before = int(p[j-1])
			}
			if j+size < n {
				after = int(p[j+size])
			}
			tok = ct.token(r, before, after)
		}
		if tok == none || tok >= ct.numRanks {
			// Its bytes, or the several parts they merge into alone: not
			// a whole character, so no cut next to it.
			if tok == none {
				for k := j; k < j+size; k++ {
					if m < smallParts {
						parts[m] = uint64(e.bytes[p[k]])<<startBits | uint64(k-seg)
					}
					m++
				}
			} else {
				k := j
				for _, t := range ct.parts(tok) {
					if m < smallParts {
						parts[m] = uint64(t)<<startBits | uint64(k-seg)
					}
					m, k = m+1, k+e.TokenLen(t)
				}
			}
			j, prev = j+size, -1
			continue
		}
		if prev >= 0 && (prev >= utf8.RuneSelf || r >= utf8.RuneSelf) && !ct.mayJoin(prev, r) {
			dst = e.mergeSegment(dst, p[seg:j], m, w)
			seg, m = j, 0
		}
		if m < smallParts {
			parts[m] = uint64(tok)<<startBits | uint64(j-seg)
		}
		m++
		j, prev = j+size, r
	}
	return e.mergeSegment(dst, p[seg:], m, w), true
}

// mergeSegment appends the merge of segment s of bpeChars, which starts
// with m parts, in w.small if m <= smallParts.
func (e *Engine) mergeSegment(dst []uint32, s string, m int, w *work) []uint32 {
	if m == 1 {
		return append(dst, uint32(w.small[0])>>startBits)
	}
	if m > smallParts {
		return e.bpeLarge(dst, s, w)
	}
	if m == 2 {
		a, b := uint32(w.small[0])>>startBits, uint32(w.small[1])>>startBits
		if r := e.pairRank(w, a, b, s); r != none {
			return append(dst, r)
		}
		return append(dst, a, b)
	}
	parts := w.small[:m+1]
	parts[m] = uint64(len(s))
	const startMask = 1<<startBits - 1
	for k := 0; k < m-1; k++ {
		a, b := int(parts[k]&startMask), int(parts[k+2]&startMask)
		var r uint32
		if b-a == 2 {
			r = e.pairs[uint16(s[a])<<8|uint16(s[a+1])]
		} else {
			slot, key, rr, hit := w.memoGet(uint32(parts[k])>>startBits, uint32(parts[k+1])>>startBits)
			if !hit {
				rr = e.pairRankMiss(slot, key, s[a:b])
			}
			r = rr
		}
		parts[k] |= uint64(r) << 32
	}
	parts[m-1] |= uint64(none) << 32
	return e.mergeSmall(dst, s, w, parts)
}

// inlinePairs is the most pairs whose least mergeSmall finds with a plain
// loop: up to there it is cheaper than a call of minPair.
const inlinePairs = 12

// mergeSmall does bpeSmall's merges on its m = len(parts)-1 parts.
func (e *Engine) mergeSmall(dst []uint32, p string, w *work, parts []uint64) []uint32 {
	const startMask = 1<<startBits - 1
	start := func(j int) int { return int(parts[j] & startMask) }
	id := func(j int) uint32 { return uint32(parts[j]) >> startBits }
	for m := len(parts) - 1; m > 1; m-- {
		var best uint64
		if m-1 <= inlinePairs {
			best = ^uint64(0)
			for k, v := range parts[:m-1] {
				best = min(best, v>>32<<8|uint64(k))
			}
		} else {
			best = minPair(parts[:m-1])
		}
		r := uint32(best >> 8)
		if r == none {
			for _, v := range parts[:m] {
				dst = append(dst, uint32(v)>>startBits)
			}
			return dst
		}
		// Part j absorbs part j+1; its token is the pair's.
		j := int(best & 0xff)
		if j > 0 {
			slot, key, lr, hit := w.memoGet(id(j-1), r)
			if !hit {
				lr = e.pairRankMiss(slot, key, p[start(j-1):start(j+2)])
			}
			parts[j-1] = uint64(lr)<<32 | uint64(uint32(parts[j-1]))
		}
		nr := none
		if j+2 < m {
			slot, key, rr, hit := w.memoGet(r, id(j+2))
			if !hit {
				rr = e.pairRankMiss(slot, key, p[start(j):start(j+3)])
			}
			nr = rr
		}
		parts[j] = uint64(nr)<<32 | uint64(r)<<startBits | uint64(start(j))
		for k := j + 1; k < m; k++ {
			parts[k] = parts[k+1]
		}
	}
	return append(dst, id(0))
}

// ascii reports whether p is all ASCII.
func ascii(p string) bool {
	var or uint64
	i := 0
	for ; i+8 <= len(p); i += 8 {
		or |= le64(p[i:])
	}
	for ; i < len(p); i++ {
		or |= uint64(p[i])
	}
	return or&0x8080808080808080 == 0
}

// minPair returns the least (parts[k]>>32)<<8 | k: the lowest rank, leftmost
// on ties, and where it is. Four independent minima keep the loop from
// waiting on itself.
func minPair(parts []uint64) uint64 {
	b0, b1, b2, b3 := ^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)
	k := 0
	for ; k+4 <= len(parts); k += 4 {
		q := parts[k : k+4 : k+4]
		b0 = min(b0, q[0]>>32<<8|uint64(k))
		b1 = min(b1, q[1]>>32<<8|uint64(k+1))
		b2 = min(b2, q[2]>>32<<8|uint64(k+2))
		b3 = min(b3, q[3]>>32<<8|uint64(k+3))
	}
	for ; k < len(parts); k++ {
		b0 = min(b0, parts[k]>>32<<8|uint64(k))
	}
	return min(min(b0, b1), min(b2, b3))
}

// large is the working memory of bpeLarge.
//
// Parts are identified by the byte offset where they start. parts[i] packs,
// for a live part i, its token and its length, so that the next part is
// found without a link; a byte that does not start a live part holds 0, so
// that the part before is found by stepping back over zeros (at most a
// token's length). The rank of a part's merge with the next one is not kept
// but asked of the memo again (see rankAt): 4 bytes per byte of the piece.
//
// Pending merges wait in buckets, one per rank, each a list of part
// offsets; bucketOf maps a rank to its bucket (-1: none yet) and heap holds
// the ranks of the buckets that may hold a pending merge, smallest first. An
// entry (r, i) is current iff part i is live and merges with the next part
// at rank r; stale ones are skipped when they come up. The initial pairs
// are counted before the buckets are filled, so that their buffers are
// allocated once at the size they need.
type large struct {
	parts    []uint32
	bucketOf []int32
	buckets  []bucket
	heap     []uint32
	cur      uint32 // rank of the bucket being worked through
	lower    bool   // a merge of rank < cur has been added
}

// A packed part: the token in bits 0-17 (there are fewer than 1<<18 ranks),
// the length (1 to 128) above.
const idBits = 18

func packPart(id uint32, size int32) uint32 { return id | uint32(size)<<idBits }
func partID(v uint32) uint32                { return v & (1<<idBits - 1) }
func partSize(v uint32) int32               { return int32(v >> idBits) }

// rankAt returns the rank of live part i's merge with the next part, or none.
func (e *Engine) rankAt(w *work, parts []uint32, i int32) uint32 {
	pi := parts[i]
	j := i + partSize(pi)
	if int(j) >= len(parts) {
		return none
	}
	return e.idPairRank(w, partID(pi), partID(parts[j]))
}

type bucket struct {
	buf     []int32 // entries buf[:n]; buf[head:n] are still to do
	n, head int32
	rank    uint32
	last    int32 // buf[n-1], if n > head
	dirty   bool  // buf[head:n] may be out of order
	inHeap  bool
}

// bpeLarge merges like bpeSmall, in O(n log n) worst case and close to
// linear time in practice, however long p is.
//
// The order is the same: the next merge is the one of lowest rank, the
// leftmost among equal ranks. The bucket of the lowest rank in the heap is
// worked through in order of position; all entries of a bucket are in it
// before its turn comes, because a merge only creates pairs that contain
// the token just formed, and so are longer and of another rank. A merge may
// create a pair of lower rank than the bucket being worked on; it then goes
// on top of the heap and is done next, as in tiktoken, and the interrupted
// bucket is resumed afterwards. Entries that arrive out of position order
// (in a bucket not being worked on) mark it dirty, and it is sorted before
// its next use.
//
// Atomic characters start as one part (see chars.go). p may be invalid
// UTF-8 if fffdAtomic holds: each byte that does not belong to a valid
// encoding then starts as the token of U+FFFD, as if the text were
// replaced. Pair ranks are looked up by token ids, never by slicing p, so
// the replaced text is never built.
func (e *Engine) bpeLarge(dst []uint32, p string, w *work) []uint32 {
	s := &w.large
	if s.bucketOf == nil {
		s.bucketOf = make([]int32, e.numRanks)
		for i := range s.bucketOf {
			s.bucketOf[i] = -1
		}
	}
	n := len(p)
	s.parts = grow(s.parts, n)
	parts := s.parts
	ct := e.chars()
	// Each character is decoded once, as the one after the last; a byte
	// that is not valid UTF-8 decodes as U+FFFD of size 1 and, as far as
	// its neighbours are concerned, is U+FFFD's bytes.
	decode := func(i int) (rune, int) {
		if c := p[i]; c < utf8.RuneSelf {
			return rune(c), 1
		}
		return utf8.DecodeRuneInString(p[i:])
	}
	before := noByte
	r, size := decode(0)
	for i := 0; i < n; {
		next, nextSize := utf8.RuneError, 0
		after := noByte
		if i+size < n {
			next, nextSize = decode(i + size)
			after = int(p[i+size])
			if next == utf8.RuneError && nextSize == 1 {
				after = 0xEF
			}
		}
		last := int(p[i+size-1])
		if size == 1 && r >= utf8.RuneSelf {
			last = 0xBD // an invalid byte, as U+FFFD
		}
		var t uint32 = none
		if size > 1 || r >= utf8.RuneSelf {
			// An invalid byte starts as U+FFFD's token: the caller
			// has checked with fffdAtomic that it may, next to any
			// bytes.
			t = ct.token(r, before, after)
		}
		switch {
		case t != none && t < ct.numRanks:
			parts[i] = packPart(t, int32(size))
			for k := 1; k < size; k++ {
				parts[i+k] = 0
			}
		case t != none:
			for k := 1; k < size; k++ {
				parts[i+k] = 0
			}
			k := i
			for _, pt := range ct.parts(t) {
				l := e.TokenLen(pt)
				parts[k] = packPart(pt, int32(l))
				k += l
			}
		default:
			for k := range size {
				parts[i+k] = packPart(e.bytes[p[i+k]], 1)
			}
		}
		i += size
		before, r, size = last, next, nextSize
	}
	// initial returns the rank of the merge of part i, which starts a part
	// that is not the last, with the next part.
	initial := func(i int) uint32 {
		pi := parts[i]
		j := i + int(partSize(pi))
		if pi == packPart(e.bytes[p[i]], 1) && parts[j] == packPart(e.bytes[p[j]], 1) {
			return e.pairs[uint16(p[i])<<8|uint16(p[j])]
		}
		return e.idPairRank(w, partID(pi), partID(parts[j]))
	}
	// The initial pairs: count them per rank, size the buckets, then fill
	// them in position order.
	s.cur = 0 // below every pair rank: adds take the fast path
	for i := 0; i+int(partSize(parts[i])) < n; i += int(partSize(parts[i])) {
		if r := initial(i); r != none {
			bi := s.bucketOf[r]
			if bi < 0 {
				bi = s.newBucket(r)
			}
			s.buckets[bi].n++
		}
	}
	for bi := range s.buckets {
		b := &s.buckets[bi]
		if int(b.n) > len(b.buf) {
			b.buf = make([]int32, b.n)
		}
		b.n = 0
	}
	var b *bucket
	for i := 0; i+int(partSize(parts[i])) < n; i += int(partSize(parts[i])) {
		r := initial(i)
		if r == none {
			continue
		}
		if b == nil || b.rank != r {
			b = &s.buckets[s.bucketOf[r]]
		}
		b.buf[b.n] = int32(i)
		b.n++
		b.last = int32(i)
	}
	for bi := range s.buckets {
		s.buckets[bi].inHeap = true
		s.pushHeap(s.buckets[bi].rank)
	}

	for len(s.heap) > 0 {
		r := s.heap[0]
		b := &s.buckets[s.bucketOf[r]]
		if b.head == b.n {
			b.n, b.head, b.dirty, b.inHeap = 0, 0, false, false
			if n > hugePiece && len(b.buf) > 1<<12 {
				b.buf = nil // memory in proportion to p: see hugePiece
			}
			s.popHeap()
			continue
		}
		if b.dirty {
			slices.Sort(b.buf[b.head:b.n])
			b.dirty = false
		}
		// Work through the bucket until it is done or a merge of lower
		// rank turns up. Nothing is added to it meanwhile, so pos stays
		// valid while s.buckets may move.
		pos, head := b.buf[:b.n], b.head
		s.cur, s.lower = r, false
		for int(head) < len(pos) && !s.lower {
			i := pos[head]
			head++
			pi := parts[i]
			if pi == 0 {
				continue // stale: i is no longer a part
			}
			// Part i absorbs part j; k is the part after them.
			j := i + partSize(pi)
			if int(j) >= n {
				continue // stale
			}
			pj := parts[j]
			if e.idPairRank(w, partID(pi), partID(pj)) != r {
				continue // stale
			}
			k := j + partSize(pj)
			parts[j] = 0
			if int(head) < len(pos) && pos[head] == j {
				head++ // j's entry, now stale
			}
			parts[i] = packPart(r, k-i)
			if int(k) < n {
				if nr := e.idPairRank(w, r, partID(parts[k])); nr != none {
					// If part k merges at rank r too, it is ahead
					// in this bucket, and that merge will redo this
					// pair before any rank above r comes up: no
					// entry needed unless nr < r.
					if nr < r || e.rankAt(w, parts, k) != r {
						s.add(nr, i)
					}
				}
			}
			if i > 0 {
				h := i - 1
				for parts[h] == 0 {
					h--
				}
				if hr := e.idPairRank(w, partID(parts[h]), r); hr != none {
					s.add(hr, h)
				}
			}
		}
		s.buckets[s.bucketOf[r]].head = head
	}

	// Room for the ids at once: growing dst by append would hold the old
	// and the new array, several times over, beside the parts.
	k := 0
	for i := 0; i < n; i += int(partSize(parts[i])) {
		k++
	}
	dst = slices.Grow(dst, k)
	for i := 0; i < n; i += int(partSize(parts[i])) {
		dst = append(dst, partID(parts[i]))
	}
	for _, b := range s.buckets {
		s.bucketOf[b.rank] = -1
	}
	s.buckets = s.buckets[:0]
	return dst
}

// idPairRank returns the rank of the token whose bytes are those of tokens
// left and right, or none, through the memo; on a miss it puts their bytes
// together on the stack.
func (e *Engine) idPairRank(w *work, left, right uint32) uint32 {
	slot, key, r, hit := w.memoGet(left, right)
	if hit {
		return r
	}
	a, b := e.TokenBytes(left), e.TokenBytes(right)
	if len(a)+len(b) > e.maxLen {
		memoPut(slot, key, none)
		return none
	}
	var buf [256]byte
	m := copy(buf[:], a)
	m += copy(buf[m:], b)
	r = e.lookup(unsafe.String(&buf[0], m))
	memoPut(slot, key, r)
	return r
}

// newBucket makes an empty bucket for rank r and returns its index.
func (s *large) newBucket(r uint32) int32 {
	bi := int32(len(s.buckets))
	s.bucketOf[r] = bi
	if len(s.buckets) < cap(s.buckets) {
		s.buckets = s.buckets[:bi+1]
		b := &s.buckets[bi]
		*b = bucket{buf: b.buf, rank: r}
	} else {
		s.buckets = append(s.buckets, bucket{rank: r})
	}
	return bi
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// add records a pending merge of rank r at part i.
func (s *large) add(r uint32, i int32) {
	if bi := s.bucketOf[r]; bi >= 0 {
		if b := &s.buckets[bi]; b.inHeap && b.n < int32(len(b.buf)) && r > s.cur && b.last <= i {
			b.buf[b.n] = i
			b.n++
			b.last = i
			return
		}
	}
	s.addSlow(r, i)
}

func (s *large) addSlow(r uint32, i int32) {
	bi := s.bucketOf[r]
	if bi < 0 {
		bi = s.newBucket(r)
	}
	if r < s.cur {
		s.lower = true
	}
	b := &s.buckets[bi]
	b.dirty = b.dirty || b.last > i && b.n > b.head
	b.last = i
	if int(b.n) == len(b.buf) {
		b.buf = slices.Grow(b.buf[:b.n], 1)
		b.buf = b.buf[:cap(b.buf)]
	}
	b.buf[b.n] = i
	b.n++
	if !b.inHeap {
		b.inHeap = true
		s.pushHeap(r)
	}
}

func (s *large) pushHeap(r uint32) {
	h := append(s.heap, r)
	for c := len(h) - 1; c > 0; {
		p := (c - 1) / 2
		if h[p] <= r {
			break
		}
		h[c], h[p] = h[p], r
		c = p
	}
	s.heap = h
}

func (s *large) popHeap() {
	h := s.heap
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for c := 0; ; {
		l := 2*c + 1
		if l >= len(h) {
			break
		}
		if r := l + 1; r < len(h) && h[r] < h[l] {
			l = r
		}
		if h[c] <= h[l] {
			break
		}
		h[c], h[l] = h[l], h[c]
		c = l
	}
	s.heap = h
}
