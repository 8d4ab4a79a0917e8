package constrain

// This file holds the byte-level automata every lexeme is checked with: the
// decoded content of a string (pattern, format, enum, length), the text of a
// number (type, range, enum) and the names of an object's properties. A
// regular expression is parsed by regexp/syntax, built into a Thompson NFA
// over UTF-8 bytes (rune ranges split into byte sequences, so an automaton
// only ever accepts valid UTF-8) and determinized by subset construction.
// Every DFA is trimmed: a state from which no accepting state can be reached
// is removed, so "the transition exists" means "the prefix can still be
// completed". That is what makes masks exact without lookahead.
//
// The NFA is built in nfa.go and determinized in subset.go; product.go
// combines automata (allOf, anyOf, lengths) and literals.go builds those of
// finite sets of strings directly. This file holds the dfa type and what is
// done to one once built: trimming, merging byte classes, and finding the
// states where a string's content is no longer constrained.

import "slices"

// maxDFAStates bounds every automaton a schema builds (and maxNFAStates the
// NFAs they come from); a schema that needs more is refused with
// ErrTooComplex.
const (
	maxDFAStates = 20000
	maxNFAStates = 200000
	// maxSubsetTotal bounds the NFA states summed over the DFA states of a
	// subset construction.
	maxSubsetTotal = 2000000
)

// dfa is a trimmed deterministic automaton over bytes. State 0 is the start;
// next[s*ncls+cls[b]] is the state after byte b, or -1 when no accepted
// string has that prefix. A nil *dfa accepts nothing.
//
// The table is indexed by byte class, not byte: cls maps each byte to one of
// ncls classes of bytes that every state treats alike, so that a row holds
// one entry per class instead of 256 and a product visits one byte per pair
// of classes.
type dfa struct {
	ncls      int
	cls       [256]uint8
	next      []int32
	accept    []bool
	universal bool // accepts exactly every valid UTF-8 string
	// ueq maps a state to the universal automaton's state with the same
	// continuations, -1 for none (see univEqStates); set on string
	// automata once compiled, nil otherwise.
	ueq []int32
}

// step returns the state after byte b from state s, or -1 when no string d
// accepts goes that way. s must be a state (not -1).
func (d *dfa) step(s int32, b byte) int32 { return d.next[int(s)*d.ncls+int(d.cls[b])] }

// states is the number of states of d, numbered from 0 (the start).
func (d *dfa) states() int { return len(d.accept) }

// bytes estimates the memory d holds for GrammarStats: the struct and its
// class table, and 4 bytes a table entry and 1 a state.
func (d *dfa) bytes() int { return 300 + 4*len(d.next) + len(d.accept) }

// trim removes the states that cannot reach an accepting state, and those
// the start cannot reach; nil when the start state is one of them. It is
// what every construction ends with, and what gives every automaton its
// invariant: a transition that exists can be completed to an accepted
// string, so the matcher needs no lookahead to keep a thread live.
//
// Liveness is found backwards from the accepting states over reverse edges
// (kept in CSR form: rev[revOff[t]:revOff[t+1]] are the states with an edge
// to t), then the live states are renumbered in breadth-first order from
// the start, which stays state 0, and the byte classes merged by
// compactClasses. It allocates some three times d's table.
func (d *dfa) trim(m *meter) (*dfa, error) {
	ns := d.states()
	// The reverse edges, live, num, order, and the trimmed table.
	if err := m.charge(0, 8*len(d.next)+14*ns); err != nil {
		return nil, err
	}
	live := make([]bool, ns)
	// Reverse edges, rev[revOff[t]:revOff[t+1]] the states with an edge
	// to t.
	revOff := make([]int32, ns+1)
	for _, t := range d.next {
		if t >= 0 {
			revOff[t+1]++
		}
	}
	for t := 0; t < ns; t++ {
		revOff[t+1] += revOff[t]
	}
	rev := make([]int32, revOff[ns])
	fill := slices.Clone(revOff[:ns])
	for s := 0; s < ns; s++ {
		for c := 0; c < d.ncls; c++ {
			if t := d.next[s*d.ncls+c]; t >= 0 {
				rev[fill[t]] = int32(s)
				fill[t]++
			}
		}
	}
	var stack []int32
	for s := 0; s < ns; s++ {
		if d.accept[s] {
			live[s] = true
			stack = append(stack, int32(s))
		}
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, p := range rev[revOff[s]:revOff[s+1]] {
			if !live[p] {
				live[p] = true
				stack = append(stack, p)
			}
		}
	}
	if ns == 0 || !live[0] {
		return nil, nil
	}
	// Renumber the live states reachable from the start, in BFS order.
	num := make([]int32, ns)
	for i := range num {
		num[i] = -1
	}
	order := []int32{0}
	num[0] = 0
	for i := 0; i < len(order); i++ {
		s := order[i]
		for c := 0; c < d.ncls; c++ {
			if t := d.next[int(s)*d.ncls+c]; t >= 0 && live[t] && num[t] < 0 {
				num[t] = int32(len(order))
				order = append(order, t)
			}
		}
	}
	out := &dfa{ncls: d.ncls, cls: d.cls, universal: d.universal}
	out.next = make([]int32, 0, len(order)*d.ncls)
	for _, s := range order {
		out.accept = append(out.accept, d.accept[s])
		for c := 0; c < d.ncls; c++ {
			t := d.next[int(s)*d.ncls+c]
			if t >= 0 && live[t] {
				out.next = append(out.next, num[t])
			} else {
				out.next = append(out.next, -1)
			}
		}
	}
	return out.compactClasses(), nil
}

// compactClasses merges byte classes whose columns are identical: trimming
// and products leave classes that no state tells apart any more, and each
// class costs a table entry per state in this automaton and in every
// product it takes part in. Columns are grouped by an FNV hash of their
// entries and compared only within a group, so the work is linear in the
// table unless hashes collide. It returns d itself when no class merges.
func (d *dfa) compactClasses() *dfa {
	ns := d.states()
	same := func(a, b int) bool {
		for s := 0; s < ns; s++ {
			if d.next[s*d.ncls+a] != d.next[s*d.ncls+b] {
				return false
			}
		}
		return true
	}
	hash := make([]uint64, d.ncls)
	for i := range hash {
		hash[i] = 14695981039346656037
	}
	for s := 0; s < ns; s++ {
		row := d.next[s*d.ncls : (s+1)*d.ncls]
		for c, t := range row {
			hash[c] = (hash[c] ^ uint64(uint32(t))) * 1099511628211
		}
	}
	byHash := map[uint64][]int{} // kept classes by hash
	remap := make([]int, d.ncls)
	var keep []int
	for c := 0; c < d.ncls; c++ {
		j := -1
		for _, k := range byHash[hash[c]] {
			if same(keep[k], c) {
				j = k
				break
			}
		}
		if j < 0 {
			j = len(keep)
			byHash[hash[c]] = append(byHash[hash[c]], j)
			keep = append(keep, c)
		}
		remap[c] = j
	}
	if len(keep) == d.ncls {
		return d
	}
	out := &dfa{ncls: len(keep), accept: d.accept, universal: d.universal}
	for b := 0; b < 256; b++ {
		out.cls[b] = uint8(remap[d.cls[b]])
	}
	out.next = make([]int32, 0, ns*len(keep))
	for s := 0; s < ns; s++ {
		for _, c := range keep {
			out.next = append(out.next, d.next[s*d.ncls+c])
		}
	}
	return out
}

// growRow makes room in a table for a row of n more entries, doubling its
// capacity (append grows a large slice by a quarter, which allocates some
// five times the final table over its growth).
func growRow(next []int32, n int) []int32 {
	if len(next)+n <= cap(next) {
		return next
	}
	grown := make([]int32, len(next), max(2*cap(next), len(next)+n, 64))
	copy(grown, next)
	return grown
}

// universalDFA accepts every valid UTF-8 string: the content of an
// unconstrained string. Its states are the positions inside a UTF-8
// character (0 between characters); it is the neutral element of opAnd
// (product returns the other side) and the automaton whose string masks the
// vocabulary precomputes, one per state.
var universalDFA = func() *dfa {
	d, err := anchoredDFA(nil, `(?s).*`)
	if err != nil {
		panic(err)
	}
	d.universal = true
	return d
}()

// liveInRange reports whether some code point in [lo, hi], written in UTF-8
// from state s, leaves d in a live state. It is how an escape \uXXXX is
// checked before all its hex digits are known.
func (d *dfa) liveInRange(s int32, lo, hi rune) bool {
	found := false
	utf8Seqs(lo, hi, func(seq []byteRange) {
		if !found {
			found = d.liveSeq(s, seq)
		}
	})
	return found
}

// liveSeq reports whether some byte string of seq (a byte from each range
// in turn) leads d from s to a state; since d is trimmed, a state reached is
// live. It tries one byte of each class of a range, since the bytes of a
// class lead to the same state.
func (d *dfa) liveSeq(s int32, seq []byteRange) bool {
	if len(seq) == 0 {
		return true
	}
	var tried [256 / 64]uint64
	r := seq[0]
	for b := int(r.lo); b <= int(r.hi); b++ {
		c := d.cls[b]
		if tried[c/64]&(1<<(c%64)) != 0 {
			continue
		}
		tried[c/64] |= 1 << (c % 64)
		if t := d.step(s, byte(b)); t >= 0 && d.liveSeq(t, seq[1:]) {
			return true
		}
	}
	return false
}

// univEqStates returns, for each state of d, the state of universalDFA
// that accepts exactly the same continuations, or -1: the states where the
// content is no longer constrained (after a pattern's match, say), whose
// string masks are those of the universal automaton.
//
// d accepts only valid UTF-8, so the text that leads to a state of d leaves
// the universal automaton in one state, its partner, found by walking both
// automata together from their starts; a state reached with two partners
// has none. A state is equivalent to its partner unless they differ in
// acceptance or in which bytes they take, or one of its successors is not
// equivalent to its own partner: that is propagated back along d's edges,
// so the work is linear in d's size. Between two characters this finds
// every equivalent state; inside a character, a state can be equivalent to
// a state of another character than its partner's (after the byte E1, a
// pattern may allow only what the universal automaton allows after E0),
// which is not found: that state's masks are walked, exactly as before.
func (d *dfa) univEqStates(m *meter) ([]int32, error) {
	u := universalDFA
	ns := d.states()
	// partner, bad, the queue, the reverse edges and the result.
	if err := m.charge(0, 17*ns+4*len(d.next)); err != nil {
		return nil, err
	}
	// Representative bytes of the joint classes.
	var reps []byte
	seen := map[[2]uint8]bool{}
	for b := 0; b < 256; b++ {
		k := [2]uint8{d.cls[b], u.cls[b]}
		if !seen[k] {
			seen[k] = true
			reps = append(reps, byte(b))
		}
	}
	partner := make([]int32, ns)
	for q := range partner {
		partner[q] = -1
	}
	bad := make([]bool, ns)
	partner[0] = 0
	queue := []int32{0}
	for len(queue) > 0 {
		q := queue[0]
		queue = queue[1:]
		s := partner[q]
		if d.accept[q] != u.accept[s] {
			bad[q] = true
		}
		for _, b := range reps {
			tq, ts := d.step(q, b), u.step(s, b)
			switch {
			case tq < 0 && ts < 0:
			case tq < 0 || ts < 0:
				bad[q] = true
			case partner[tq] < 0:
				partner[tq] = ts
				queue = append(queue, tq)
			case partner[tq] != ts:
				bad[tq] = true
			}
		}
	}
	// Propagate back: a state with a bad successor is bad.
	rev := make([][]int32, ns)
	for q := 0; q < ns; q++ {
		for c := 0; c < d.ncls; c++ {
			if t := d.next[q*d.ncls+c]; t >= 0 {
				rev[t] = append(rev[t], int32(q))
			}
		}
	}
	var stack []int32
	for q := range bad {
		if bad[q] {
			stack = append(stack, int32(q))
		}
	}
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, q := range rev[t] {
			if !bad[q] {
				bad[q] = true
				stack = append(stack, q)
			}
		}
	}
	out := make([]int32, ns)
	for q := range out {
		out[q] = -1
		if !bad[q] && partner[q] >= 0 {
			out[q] = partner[q]
		}
	}
	return out, nil
}
