package constrain

// Mask computation. A thread's mask is found by walking the token trie
// (vocab.go) with the thread: each trie node steps the threads of its
// parent by one byte, a node with no thread left skips its subtree, and a
// node that ends a token sets its bit. Stack links pushed during the walk
// come from an arena that is cut back as the walk backtracks.
//
// Inside a string almost every token is allowed, and a full walk would
// visit most of the trie. So a thread in a string is split in two: the
// tokens that stay inside the string depend only on the string's automaton
// state, and their mask is computed once and cached on the Grammar; the
// tokens that can leave it all contain a '"', and only their (much smaller)
// trie is walked with the whole thread.

// walker holds a mask walk's buffers, kept on the Matcher from one mask to
// the next: the threads of each depth of the trie path being walked, end
// to end in buf, and the arena their stack links come from, cut back to
// amark[d] when the walk returns to depth d.
type walker struct {
	buf   []thread
	lo    []int32 // per depth: threads of that depth in buf[lo[d]:hi[d]]
	hi    []int32
	amark []int32 // per depth: arena length before its threads were made
	arena []link
}

// walk ORs into mask the tokens of trie v that thread th can read; when
// stay is set, only those after which th is still inside its current
// string. It visits the trie in preorder, stepping the parent depth's
// threads by each node's byte and skipping the subtree (nskip) of a node
// no thread survives. A '"' that opens an unconstrained string in every
// thread takes the tokens below it from the precomputed open tables
// (takeOpen) instead of walking them.
func (m *Matcher) walk(v *vocab, th thread, mask []uint64, stay bool) {
	w := &m.wk
	if cap(w.arena) == 0 {
		w.arena = make([]link, 0, 1024)
	}
	depth := v.maxLen + 1
	if len(w.lo) < depth+1 {
		w.lo = make([]int32, depth+1)
		w.hi = make([]int32, depth+1)
		w.amark = make([]int32, depth+1)
	}
	w.buf = append(w.buf[:0], th)
	w.lo[0], w.hi[0] = 0, 1
	w.arena = w.arena[:0]
	w.amark[0] = 0
	st := &m.st
	rest := th.rest
	nb := v.nbyte
	n := int32(len(nb))
	for i := int32(0); i < n; {
		d := int(v.ndep[i])
		// Threads of the parent depth; drop deeper levels.
		plo, phi := w.lo[d-1], w.hi[d-1]
		w.buf = w.buf[:phi]
		w.arena = w.arena[:w.amark[d-1]]
		st.arena = w.arena
		c := nb[i]
		for j := plo; j < phi; j++ {
			w.buf = st.step(w.buf[j], c, w.buf)
		}
		w.arena = st.arena
		if stay {
			k := phi
			for j := phi; j < int32(len(w.buf)); j++ {
				if t := w.buf[j]; t.top.kind == fStr && t.rest == rest {
					w.buf[k] = t
					k++
				}
			}
			w.buf = w.buf[:k]
		}
		if int32(len(w.buf)) == phi {
			i = v.nskip[i]
			continue
		}
		if c == '"' && !stay && v.openAt != nil && v.openAt[i] >= 0 && m.openedFree(w.buf[phi:]) {
			m.takeOpen(v, i, w.buf[phi:], mask)
			i = v.nskip[i]
			continue
		}
		w.lo[d], w.hi[d] = phi, int32(len(w.buf))
		w.amark[d] = int32(len(w.arena))
		if t := v.ntok[i]; t >= 0 {
			mask[t>>6] |= 1 << (t & 63)
		}
		i++
	}
	st.arena = nil
}

// openedFree reports whether every thread in ts has just opened a string
// whose content is unconstrained (a key of an object that allows any key
// included), so that the tokens going on inside it are known in advance.
func (m *Matcher) openedFree(ts []thread) bool {
	for i := range ts {
		f := &ts[i].top
		if f.kind != fStr || f.st != 0 || f.esc != escNone {
			return false
		}
		if f.isKey {
			if !f.obj.keys.addl || f.phase != 0 {
				return false
			}
		} else if !(f.d.universal || f.d.ueq != nil && f.d.ueq[0] == 0) || (f.n.strCount && f.n.strMax >= 0) {
			return false
		}
	}
	return true
}

// takeOpen sets the tokens below trie node i for threads ts (which have
// just read its '"'): those that stay in the string all, those that leave
// it by replaying their rest.
func (m *Matcher) takeOpen(v *vocab, i int32, ts []thread, mask []uint64) {
	o := v.openAt[i]
	for _, t := range v.openStay[v.openOff[o]:v.openOff[o+1]] {
		mask[t>>6] |= 1 << (t & 63)
	}
	d := int(v.ndep[i])
	st := &m.st
	saved := st.arena
	st.arena = nil
	for _, t := range v.openExit[v.openExOff[o]:v.openExOff[o+1]] {
		if mask[t>>6]&(1<<(t&63)) != 0 {
			continue
		}
		rest := v.toks[t][d:]
		for _, th := range ts {
			if m.replay(th, rest) {
				mask[t>>6] |= 1 << (t & 63)
				break
			}
		}
	}
	st.arena = saved
}

// replay reports whether th can read b.
func (m *Matcher) replay(th thread, b []byte) bool {
	cur := append(m.tmpA[:0], th)
	for _, c := range b {
		next := m.tmpB[:0]
		for _, t := range cur {
			next = m.st.step(t, c, next)
		}
		m.tmpB = cur
		cur = next
		if len(cur) == 0 {
			m.tmpA = cur
			return false
		}
	}
	m.tmpA = cur
	return true
}

// fillThread ORs th's mask into mask. Outside a string it walks the whole
// trie; inside one, the tokens that stay inside come from a mask that
// depends on the string's state alone (precomputed per vocabulary for
// unconstrained content and the states equivalent to it, cached per
// Grammar otherwise), and only the trie of tokens holding a quote is walked
// with the thread. A key that may be any string is looked up as such.
func (m *Matcher) fillThread(th thread, mask []uint64) {
	f := &th.top
	if f.kind != fStr {
		m.walk(m.g.voc, th, mask, false)
		return
	}
	d, st := f.d, f.st
	if f.isKey {
		k := f.obj.keys
		if !k.addl || f.phase != 0 {
			m.walk(m.g.voc, th, mask, false)
			return
		}
		// Any key may come: the keys that stay open are the strings that
		// stay open, whichever names they pass by.
		d = universalDFA
		if st < k.ntrie {
			st = k.ustate[st]
		} else {
			st -= k.ntrie
		}
	}
	voc := m.g.voc
	counted := !f.isKey && f.n.strCount && f.n.strMax >= 0
	if !d.universal && d.ueq != nil && d.ueq[st] >= 0 {
		d, st = universalDFA, d.ueq[st]
	}
	switch {
	case d.universal && f.esc == escNone:
		in := voc.universalInner(m, st)
		if counted && f.n.strMax-int(f.count) < voc.maxCps {
			cm := voc.cpsMask(f.n.strMax - int(f.count))
			for i, w := range in {
				mask[i] |= w & cm[i]
			}
		} else {
			for i, w := range in {
				mask[i] |= w
			}
		}
	default:
		m.orInner(th, mask)
	}
	m.walk(voc.quote, th, mask, false)
}

// orInner ORs the tokens that keep th inside its string, cached on the
// Grammar.
func (m *Matcher) orInner(th thread, mask []uint64) {
	f := &th.top
	k := innerKey{d: f.d, st: f.st, acc: f.acc, esc: f.esc, key: f.isKey, room: -1}
	if !f.isKey && f.n.strCount && f.n.strMax >= 0 {
		k.room = min(int32(f.n.strMax)-f.count, int32(m.g.voc.maxCps+1))
	}
	g := m.g
	g.mu.Lock()
	in, ok := g.inner[k]
	g.mu.Unlock()
	if !ok {
		in = make([]uint64, len(mask))
		// The cached mask must not depend on what the thread has counted
		// beyond room: count from the bound.
		t := th
		if k.room >= 0 {
			t.top.count = int32(f.n.strMax) - k.room
		}
		if f.isKey {
			m.walk(g.voc, t, in, true)
		} else {
			m.walkInner(g.voc, t.top, in)
		}
		g.mu.Lock()
		if len(g.inner) < maxInnerMasks {
			g.inner[k] = in
		}
		g.mu.Unlock()
	}
	for i, w := range in {
		mask[i] |= w
	}
}

// innerState is the part of a string frame that changes inside a string.
type innerState struct {
	st    int32
	acc   uint32
	count int32
	esc   uint8
}

// walkInner ORs into mask the tokens of v that keep string frame f (not a
// key) inside its string: walk with stay set, specialized to a small state
// so that a near-full trie takes a few nanoseconds a node. Plain bytes are
// stepped inline; escapes go through stepString.
func (m *Matcher) walkInner(v *vocab, f frame, mask []uint64) {
	depth := v.maxLen + 1
	if cap(m.inner) < depth+1 {
		m.inner = make([]innerState, depth+1)
	}
	stack := m.inner[:depth+1]
	stack[0] = innerState{st: f.st, acc: f.acc, count: f.count, esc: f.esc}
	d := f.d
	counted := f.n.strCount && f.n.strMax >= 0
	maxc := int32(f.n.strMax)
	dummy := &link{f: frame{kind: fRoot, phase: 1}}
	var out [4]thread
	nb := v.nbyte
	n := int32(len(nb))
	for i := int32(0); i < n; {
		dp := int(v.ndep[i])
		p := stack[dp-1]
		b := nb[i]
		var q innerState
		if p.esc == escNone && b >= 0x20 && b != '"' && b != '\\' {
			s := d.step(p.st, b)
			if s < 0 {
				i = v.nskip[i]
				continue
			}
			q = innerState{st: s, count: p.count}
			if counted && (b < 0x80 || b >= 0xC0) {
				if q.count >= maxc {
					i = v.nskip[i]
					continue
				}
				q.count++
			}
		} else {
			g := f
			g.st, g.acc, g.count, g.esc = p.st, p.acc, p.count, p.esc
			res := m.st.stepString(thread{top: g, rest: dummy}, b, out[:0])
			if len(res) == 0 || res[0].top.kind != fStr {
				i = v.nskip[i]
				continue
			}
			t := &res[0].top
			q = innerState{st: t.st, acc: t.acc, count: t.count, esc: t.esc}
		}
		stack[dp] = q
		if t := v.ntok[i]; t >= 0 {
			mask[t>>6] |= 1 << (t & 63)
		}
		i++
	}
}
