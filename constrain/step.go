package constrain

// The byte-level pushdown automaton. A thread is one reading of the text so
// far: a stack of frames, the top one held by value and the rest as an
// immutable linked list, so that a thread is copied in O(1) and the mask
// walk can branch at every byte. A node that allows several object or array
// specs (anyOf) forks the thread when the value opens; threads die when a
// byte takes them nowhere. Every transition checks that the text can still be
// completed (the DFAs are trimmed, objects and arrays check what they still
// need), so a live thread always has a valid completion.

import "unicode/utf8"

const (
	fRoot = iota
	fObj
	fArr
	fStr
	fNum
	fLit
)

// Object phases.
const (
	oOpen       = iota // after '{'
	oComma             // after ','
	oKey               // after the key's closing quote
	oColon             // after ':'
	oAfterValue        // after a member's value
)

// Array phases.
const (
	aOpen = iota
	aComma
	aAfterValue
)

// String escape phases.
const (
	escNone  = 0
	escSlash = 1 // after '\'
	escHex   = 2 // 2..5: after "\u" and 0..3 hex digits
	escLowBS = 6 // after a high surrogate, expecting '\'
	escLowU  = 7 // expecting 'u'
	escLow   = 8 // 8..11: after "\u" of the low surrogate and 0..3 digits
)

// frame is one level of a thread's stack: the value being read there, of
// the kind fRoot to fLit, and how far it has got. Only the fields of its
// kind are set (the others stay zero), so that two frames are the same
// state exactly when equal finds every field equal.
type frame struct {
	kind  uint8
	phase uint8
	esc   uint8
	isKey bool
	ws    uint16 // whitespace bytes in the current run
	st    int32  // DFA state or literal position
	acc   uint32 // escape value so far; high surrogate
	count int32  // members, items or code points so far
	key   int32  // object: the current member's name index, -1 for another key
	n     *node  // root, string or number: the node
	obj   *objSpec
	arr   *arrSpec
	d     *dfa
	seen  seenSet
	lit   string
}

// link holds a frame below the top of a stack. Links are never changed once
// made, so threads that fork share the rest of their stacks.
type link struct {
	f    frame
	next *link
}

// thread is one reading of the text: the frame of the innermost value open
// and the stack of those around it.
type thread struct {
	top  frame
	rest *link
}

// stepper steps threads; push makes their stack links, from arena while it
// is set (a mask walk, which cuts it back as it backtracks) and from the
// heap when it is nil (accepting, where the links outlive the call).
type stepper struct {
	maxWS uint16
	arena []link
}

// push returns th with child as its top frame and th's top moved into a
// link, from the arena while it has room, else from the heap.
func (s *stepper) push(th thread, child frame) thread {
	var l *link
	if s.arena != nil && len(s.arena) < cap(s.arena) {
		s.arena = s.arena[:len(s.arena)+1]
		l = &s.arena[len(s.arena)-1]
		*l = link{f: th.top, next: th.rest}
	} else {
		l = &link{f: th.top, next: th.rest}
	}
	return thread{top: child, rest: l}
}

// isWS reports whether b is JSON whitespace (RFC 8259's four bytes).
func isWS(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// ws handles a whitespace byte in a phase that allows it: one more byte of
// the current run, refused past the run's bound (Options.MaxWhitespace).
func (s *stepper) ws(th thread, out []thread) []thread {
	if th.top.ws >= s.maxWS {
		return out
	}
	th.top.ws++
	return append(out, th)
}

// step appends the threads th becomes after byte b: none when b is
// refused, more than one when a value opens on a node with several specs.
// A number has no closing byte: it ends at the first byte its automaton
// refuses, if it is in an accepting state and b cannot be part of a number,
// and b is then stepped again in the frame around it.
func (s *stepper) step(th thread, b byte, out []thread) []thread {
	f := &th.top
	switch f.kind {
	case fStr:
		return s.stepString(th, b, out)
	case fNum:
		if t := f.d.step(f.st, b); t >= 0 {
			f.st = t
			return append(out, th)
		}
		if !f.d.accept[f.st] || numberByte(b) {
			return out
		}
		return s.step(s.pop(th), b, out)
	case fLit:
		if b != f.lit[f.st] {
			return out
		}
		f.st++
		if int(f.st) == len(f.lit) {
			th = s.pop(th)
		}
		return append(out, th)
	case fRoot:
		if isWS(b) {
			return s.ws(th, out)
		}
		if f.phase != 0 {
			return out
		}
		f.phase, f.ws = 1, 0
		return s.startValue(th, f.n, b, out)
	case fObj:
		return s.stepObj(th, b, out)
	case fArr:
		return s.stepArr(th, b, out)
	}
	return out
}

// pop returns to the parent frame, which was set to its after-value phase
// when the child was pushed; a key string hands its result to the object.
func (s *stepper) pop(th thread) thread {
	child := th.top
	th.top, th.rest = th.rest.f, th.rest.next
	if child.isKey {
		o := th.top.obj
		k := o.keys
		j := int32(-1)
		if child.st < k.ntrie {
			j = k.name[child.st]
		}
		th.top.key = j
		if j >= 0 {
			th.top.seen = th.top.seen.with(int(j), len(o.names))
		}
		th.top.count++
	}
	return th
}

// startValue begins a value of node n with its first byte b; th's top
// frame is already in its after-value phase.
func (s *stepper) startValue(th thread, n *node, b byte, out []thread) []thread {
	for _, a := range n.alts {
		if a.nonempty {
			out = s.startValue(th, a, b, out)
		}
	}
	switch b {
	case '{':
		for _, o := range n.objs {
			if o.nonempty {
				out = append(out, s.push(th, frame{kind: fObj, obj: o, seen: o.empty, key: -1}))
			}
		}
	case '[':
		for _, a := range n.arrs {
			if a.nonempty {
				out = append(out, s.push(th, frame{kind: fArr, arr: a}))
			}
		}
	case '"':
		if n.str != nil && (!n.strCount || n.strMin == 0 || n.strMax != 0) {
			out = append(out, s.push(th, frame{kind: fStr, n: n, d: n.str}))
		}
	case 't':
		if n.tru {
			out = append(out, s.push(th, frame{kind: fLit, lit: "true", st: 1}))
		}
	case 'f':
		if n.fal {
			out = append(out, s.push(th, frame{kind: fLit, lit: "false", st: 1}))
		}
	case 'n':
		if n.null {
			out = append(out, s.push(th, frame{kind: fLit, lit: "null", st: 1}))
		}
	default:
		if n.num != nil {
			if t := n.num.step(0, b); t >= 0 {
				out = append(out, s.push(th, frame{kind: fNum, n: n, d: n.num, st: t}))
			}
		}
	}
	return out
}

// Objects.

// keyLive reports whether key state q (with the names in seen already used)
// can still end as an allowed key.
func keyLive(o *objSpec, q int32, seen seenSet, onlyReq bool) bool {
	k := o.keys
	if q >= k.ntrie {
		return !onlyReq // beyond the names: another key, always completable
	}
	if k.addl && !onlyReq {
		return true
	}
	if !onlyReq {
		return anyFree(seen, seenSet{}, int(k.lo[q]), int(k.hi[q]))
	}
	// Only the required names not seen yet may come.
	for j := k.lo[q]; j < k.hi[q]; j++ {
		if o.req.has(int(j)) && !seen.has(int(j)) {
			return true
		}
	}
	return false
}

// mustBeRequired reports whether the next key has to be a required one:
// maxProperties leaves no room for any other.
func mustBeRequired(f *frame) bool {
	o := f.obj
	if o.maxProps < 0 {
		return false
	}
	left := o.nreq - f.seen.countIn(o.req, len(o.names)) + f.seen.countIn(o.empty, len(o.names))*0
	return int(f.count)+left >= o.maxProps
}

// canClose reports whether the object may end now.
func canClose(f *frame) bool {
	o := f.obj
	return int(f.count) >= o.minProps && f.seen.countIn(o.req, len(o.names)) == o.nreq
}

// canAdd reports whether another member may come.
func canAdd(f *frame) bool {
	o := f.obj
	if o.maxProps >= 0 && int(f.count) >= o.maxProps {
		return false
	}
	return keyLive(o, 0, f.seen, mustBeRequired(f))
}

// stepObj steps object frame th by b through the phases of a member. A key
// may open only when another member can still be added and completed
// (canAdd), and is read as a string frame over the key automaton with the
// names seen so far and, in its phase, whether it must be a required name;
// the value starts with the node of the name the key turned out to be (or
// of additional properties), and ',' and '}' come only when they leave the
// object completable.
func (s *stepper) stepObj(th thread, b byte, out []thread) []thread {
	f := &th.top
	if isWS(b) {
		return s.ws(th, out)
	}
	f.ws = 0
	switch f.phase {
	case oOpen, oComma:
		switch {
		case b == '"' && (f.phase == oComma || canAdd(f)):
			f.phase = oKey
			return append(out, s.push(th, frame{kind: fStr, isKey: true, d: f.obj.keys.d, obj: f.obj, seen: f.seen, esc: escNone, phase: boolByte(mustBeRequired(f))}))
		case b == '}' && f.phase == oOpen && canClose(f):
			return append(out, s.pop(th))
		}
	case oKey:
		if b == ':' {
			f.phase = oColon
			return append(out, th)
		}
	case oColon:
		var n *node
		if f.key >= 0 {
			n = f.obj.props[f.key]
		} else {
			n = f.obj.addl
		}
		f.phase = oAfterValue
		return s.startValue(th, n, b, out)
	case oAfterValue:
		switch {
		case b == ',' && canAdd(f):
			f.phase = oComma
			return append(out, th)
		case b == '}' && canClose(f):
			return append(out, s.pop(th))
		}
	}
	return out
}

// boolByte is 1 for true, 0 for false: a key frame keeps mustBeRequired
// in its phase byte, which a key frame has no other use for.
func boolByte(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// Arrays.

// arrCanAdd reports whether array frame f may take another element:
// maxItems leaves room and the next element's node has a value.
func arrCanAdd(f *frame) bool {
	a := f.arr
	if a.maxItems >= 0 && int(f.count) >= a.maxItems {
		return false
	}
	it := a.item(int(f.count))
	return it != nil && it.nonempty
}

// stepArr steps array frame th by b: an element is counted when its first
// byte starts it, ']' comes once minItems elements have been.
func (s *stepper) stepArr(th thread, b byte, out []thread) []thread {
	f := &th.top
	if isWS(b) {
		return s.ws(th, out)
	}
	f.ws = 0
	switch f.phase {
	case aOpen, aComma:
		if b == ']' && f.phase == aOpen && f.arr.minItems == 0 {
			return append(out, s.pop(th))
		}
		if b == ']' || !arrCanAdd(f) {
			return out
		}
		n := f.arr.item(int(f.count))
		f.count++
		f.phase = aAfterValue
		return s.startValue(th, n, b, out)
	case aAfterValue:
		switch {
		case b == ',' && arrCanAdd(f):
			f.phase = aComma
			return append(out, th)
		case b == ']' && int(f.count) >= f.arr.minItems:
			return append(out, s.pop(th))
		}
	}
	return out
}

// Strings.

// strLive reports whether string state q (after writing one more code
// point when counted) can still be completed.
func strLive(f *frame, q int32) bool {
	if f.isKey {
		return keyLive(f.obj, q, f.seen, f.phase == 1)
	}
	return true
}

// feedRune feeds the UTF-8 bytes of code point r, the value of an escape,
// to the string automaton, counting it when the length is counted. r is
// always a Unicode scalar value: stepString diverts a high surrogate to
// wait for its low half, refuses a lone low one, and combines a pair into
// U+10000..U+10FFFF, so utf8.EncodeRune never meets the surrogates or
// out-of-range values it would write as U+FFFD (TestEscapeBytes pins it).
func (s *stepper) feedRune(th thread, r rune, out []thread) []thread {
	f := &th.top
	var buf [4]byte
	nb := utf8.EncodeRune(buf[:], r)
	q := f.st
	for i := 0; i < nb && q >= 0; i++ {
		q = f.d.step(q, buf[i])
	}
	if q < 0 || !strLive(f, q) {
		return out
	}
	if f.n != nil && f.n.strCount {
		if f.n.strMax >= 0 && int(f.count) >= f.n.strMax {
			return out
		}
		f.count++
	}
	f.st = q
	f.esc = escNone
	return append(out, th)
}

// runeRangeLive reports whether some code point in [lo, hi] can come next.
func runeRangeLive(f *frame, lo, hi rune) bool {
	if lo > hi {
		return false
	}
	if f.n != nil && f.n.strCount && f.n.strMax >= 0 && int(f.count) >= f.n.strMax {
		return false
	}
	if !f.isKey {
		return f.d.liveInRange(f.st, lo, hi)
	}
	found := false
	utf8Seqs(lo, hi, func(seq []byteRange) {
		if !found {
			found = keySeqLive(f, f.st, seq)
		}
	})
	return found
}

// keySeqLive is dfa.liveSeq for a key frame f: the state the bytes reach
// must also be able to end as a key still allowed (strLive), which the key
// automaton alone does not say (a name may be used already, or not be
// required when only required names may come).
func keySeqLive(f *frame, q int32, seq []byteRange) bool {
	if len(seq) == 0 {
		return strLive(f, q)
	}
	// One byte of each class: the bytes of a class lead to the same state
	// (without this, a range of three-byte code points took 50,000 steps).
	var tried [256 / 64]uint64
	r := seq[0]
	for b := int(r.lo); b <= int(r.hi); b++ {
		c := f.d.cls[b]
		if tried[c/64]&(1<<(c%64)) != 0 {
			continue
		}
		tried[c/64] |= 1 << (c % 64)
		if t := f.d.step(q, byte(b)); t >= 0 && keySeqLive(f, t, seq[1:]) {
			return true
		}
	}
	return false
}

// hexRange is the range of 16-bit values an escape with k of its 4 hex
// digits read (value v) can still take.
func hexRange(v int32, k int) (rune, rune) {
	sh := uint(4 * (4 - k))
	return rune(v) << sh, rune(v)<<sh | (1<<sh - 1)
}

// escLive reports whether an escape "\u" with k digits (value v) can still
// become a code point the string can take, through a surrogate pair too.
func escLive(f *frame, v int32, k int) bool {
	lo, hi := hexRange(v, k)
	if runeRangeLive(f, max(lo, 0), min(hi, 0xD7FF)) || runeRangeLive(f, max(lo, 0xE000), min(hi, 0xFFFF)) {
		return true
	}
	hlo, hhi := max(lo, 0xD800), min(hi, 0xDBFF)
	if hlo > hhi {
		return false
	}
	return runeRangeLive(f, 0x10000+(hlo-0xD800)<<10, 0x10000+(hhi-0xD800)<<10+0x3FF)
}

// lowLive is escLive for the low surrogate after high surrogate h.
func lowLive(f *frame, h, v int32, k int) bool {
	lo, hi := hexRange(v, k)
	lo, hi = max(lo, 0xDC00), min(hi, 0xDFFF)
	if lo > hi {
		return false
	}
	base := 0x10000 + (rune(h)-0xD800)<<10
	return runeRangeLive(f, base+lo-0xDC00, base+hi-0xDC00)
}

// hexVal returns the value of hexadecimal digit b, -1 when b is none.
func hexVal(b byte) int32 {
	switch {
	case b >= '0' && b <= '9':
		return int32(b - '0')
	case b >= 'a' && b <= 'f':
		return int32(b-'a') + 10
	case b >= 'A' && b <= 'F':
		return int32(b-'A') + 10
	}
	return -1
}

// stepString steps string frame th by b. Outside an escape, a byte goes to
// the automaton, the closing quote needs an accepting state (and, for a
// key, a name still allowed or an allowed other key), and a control byte
// is refused. An escape is read a byte at a time, a \u escape's digits
// each kept only if some code point the escape can still become is live
// (escLive, lowLive), so that no mask allows an escape that cannot be
// finished; a surrogate pair is read as one code point, and a lone
// surrogate is refused (the package documentation's narrowing).
func (s *stepper) stepString(th thread, b byte, out []thread) []thread {
	f := &th.top
	switch {
	case f.esc == escNone:
		switch {
		case b == '"':
			if !f.d.accept[f.st] {
				return out
			}
			if f.isKey {
				k := f.obj.keys
				if f.st < k.ntrie {
					if j := k.name[f.st]; j >= 0 {
						if f.seen.has(int(j)) || (f.phase == 1 && !f.obj.req.has(int(j))) {
							return out
						}
					} else if !k.other[f.st] || f.phase == 1 {
						return out
					}
				} else if f.phase == 1 {
					return out
				}
			} else if f.n.strCount && int(f.count) < f.n.strMin {
				return out
			}
			return append(out, s.pop(th))
		case b == '\\':
			if !runeRangeLive(f, 0, 0x10FFFF) {
				return out
			}
			f.esc = escSlash
			return append(out, th)
		case b < 0x20:
			return out
		}
		q := f.d.step(f.st, b)
		if q < 0 || !strLive(f, q) {
			return out
		}
		if f.n != nil && f.n.strCount && (b < 0x80 || b >= 0xC0) {
			if f.n.strMax >= 0 && int(f.count) >= f.n.strMax {
				return out
			}
			f.count++
		}
		f.st = q
		return append(out, th)
	case f.esc == escSlash:
		var r rune
		switch b {
		case '"', '\\', '/':
			r = rune(b)
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			if !escLive(f, 0, 0) {
				return out
			}
			f.esc, f.acc = escHex, 0
			return append(out, th)
		default:
			return out
		}
		return s.feedRune(th, r, out)
	case f.esc >= escHex && f.esc < escHex+4:
		h := hexVal(b)
		if h < 0 {
			return out
		}
		k := int(f.esc-escHex) + 1
		v := int32(f.acc)<<4 | h
		if k < 4 {
			if !escLive(f, v, k) {
				return out
			}
			f.esc, f.acc = escHex+uint8(k), uint32(v)
			return append(out, th)
		}
		switch {
		case v >= 0xD800 && v <= 0xDBFF:
			if !escLive(f, v, 4) {
				return out
			}
			f.esc, f.acc = escLowBS, uint32(v)
			return append(out, th)
		case v >= 0xDC00 && v <= 0xDFFF:
			return out // a lone low surrogate
		}
		return s.feedRune(th, rune(v), out)
	case f.esc == escLowBS:
		if b != '\\' {
			return out
		}
		f.esc = escLowU
		return append(out, th)
	case f.esc == escLowU:
		if b != 'u' {
			return out
		}
		f.esc = escLow
		f.acc <<= 16
		return append(out, th)
	default: // low surrogate digits
		h := hexVal(b)
		if h < 0 {
			return out
		}
		k := int(f.esc-escLow) + 1
		hi := int32(f.acc >> 16)
		v := int32(f.acc&0xFFFF)<<4 | h
		if !lowLive(f, hi, v, k) {
			return out
		}
		if k < 4 {
			f.esc, f.acc = escLow+uint8(k), uint32(hi)<<16|uint32(v)
			return append(out, th)
		}
		return s.feedRune(th, 0x10000+(rune(hi)-0xD800)<<10+rune(v)-0xDC00, out)
	}
}

// canEnd reports whether th has read a complete value: the root has its
// value, or a number at the top level is in an accepting state (a number
// has no closing byte, so the end of the text is what ends it).
func canEnd(th thread) bool {
	if th.top.kind == fRoot {
		return th.top.phase == 1
	}
	if th.top.kind == fNum && th.top.d.accept[th.top.st] && th.rest != nil && th.rest.f.kind == fRoot && th.rest.next == nil {
		return true
	}
	return false
}

// equal reports whether two threads are the same reading.
func (a thread) equal(b thread) bool {
	if !a.top.equal(&b.top) {
		return false
	}
	la, lb := a.rest, b.rest
	for la != lb {
		if la == nil || lb == nil || !la.f.equal(&lb.f) {
			return false
		}
		la, lb = la.next, lb.next
	}
	return true
}

// equal reports whether f and g are the same state: every field equal, the
// node, specs and automaton by identity.
func (f *frame) equal(g *frame) bool {
	return f.kind == g.kind && f.phase == g.phase && f.esc == g.esc && f.isKey == g.isKey &&
		f.ws == g.ws && f.st == g.st && f.acc == g.acc && f.count == g.count && f.key == g.key &&
		f.n == g.n && f.obj == g.obj && f.arr == g.arr && f.d == g.d && f.lit == g.lit && f.seen.equal(g.seen)
}
