package constrain

// The subset construction: the DFA of an NFA, each DFA state standing for
// the set of NFA states the text read so far can have reached.

import (
	"fmt"
	"slices"
)

// determinize builds the trimmed DFA of n from its entry state by the
// subset construction.
//
// A DFA state is the epsilon closure of a set of NFA states, kept as the
// sorted list of the states in it that do something (nByte, nMatch, and
// nEnd when not at the end): two closures with the same such states behave
// alike, and sorting makes them the same key. The anchors are resolved in
// the closure: nBegin passes only in the closure of the entry (atStart),
// nEnd only in a closure taken as if the text ended there (atEnd), which is
// why a state's acceptance comes from a second closure of its subset rather
// than from the subset itself.
//
// The states are numbered as they are found and their rows filled in that
// order, so the table grows a row at a time (growRow). Each new state is
// charged to the budget with its subset, key and row, and with the closure
// work since the last one (a state per visitsPerState NFA states visited);
// maxDFAStates bounds the states and maxSubsetTotal the NFA states summed
// over their subsets, which bounds the time and memory of the keys.
func (n *nfa) determinize(entry int32) (*dfa, error) {
	m := n.m
	d := &dfa{}
	// Byte classes: bytes that no range boundary separates behave alike.
	var edge [257]bool
	edge[0], edge[256] = true, true
	for _, s := range n.st {
		if s.op == nByte && s.lo <= s.hi {
			edge[s.lo] = true
			edge[int(s.hi)+1] = true
		}
	}
	c := -1
	for b := 0; b < 256; b++ {
		if edge[b] {
			c++
		}
		d.cls[b] = uint8(c)
	}
	d.ncls = c + 1

	// The subsets are kept end to end in one array, sets[i] being
	// all[off[i]:off[i+1]]; index finds a subset by its bytes. A closure
	// is computed into buf and copied only when it is a new subset.
	mark := make([]uint32, len(n.st))
	gen := uint32(0)
	var stack, buf []int32
	visited := 0 // NFA states visited by closures, charged with each DFA state
	closure := func(set []int32, atStart, atEnd bool) []int32 {
		gen++
		buf = buf[:0]
		stack = append(stack[:0], set...)
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if mark[s] == gen {
				continue
			}
			mark[s] = gen
			visited++
			st := &n.st[s]
			switch st.op {
			case nByte, nMatch:
				buf = append(buf, s)
			case nSplit:
				stack = append(stack, st.out1, st.out)
			case nEps:
				stack = append(stack, st.out)
			case nBegin:
				if atStart {
					stack = append(stack, st.out)
				}
			case nEnd:
				if atEnd {
					stack = append(stack, st.out)
				} else {
					buf = append(buf, s)
				}
			}
		}
		slices.Sort(buf)
		return buf
	}
	var keyBuf []byte
	key := func(set []int32) []byte {
		keyBuf = keyBuf[:0]
		for _, s := range set {
			keyBuf = append(keyBuf, byte(s), byte(s>>8), byte(s>>16), byte(s>>24))
		}
		return keyBuf
	}
	index := map[string]int32{}
	var all []int32
	off := []int{0}
	addSet := func(set []int32) (int32, error) {
		k := key(set)
		if i, ok := index[string(k)]; ok {
			return i, nil
		}
		// all holds the NFA states of every DFA state: it bounds time and
		// memory.
		if len(off) > maxDFAStates || len(all)+len(set) > maxSubsetTotal {
			return 0, fmt.Errorf("%w: automaton needs more than %d states", ErrTooComplex, maxDFAStates)
		}
		// The subset and its key, its row of the table, and the closures
		// computed since the last new state (4 bytes per NFA state they
		// visited).
		if err := m.charge(1+visited/visitsPerState, 8*len(set)+8*d.ncls+64+4*visited); err != nil {
			return 0, err
		}
		visited = 0
		i := int32(len(off) - 1)
		index[string(k)] = i
		all = append(all, set...)
		off = append(off, len(all))
		return i, nil
	}
	if _, err := addSet(closure([]int32{entry}, true, false)); err != nil {
		return nil, err
	}
	// The NFA states a byte class moves a subset to, gathered in one pass
	// over the subset; the DFA state each moved set leads to is memoized
	// by its bytes, so that a closure is computed once per moved set.
	moved := make([][]int32, d.ncls)
	byMoved := map[string]int32{}
	for i := 0; i+1 < len(off); i++ {
		d.next = growRow(d.next, d.ncls)
		acc := false
		for _, s := range closure(all[off[i]:off[i+1]], false, true) {
			if n.st[s].op == nMatch {
				acc = true
			}
		}
		d.accept = append(d.accept, acc)
		for c := range moved {
			moved[c] = moved[c][:0]
		}
		for _, s := range all[off[i]:off[i+1]] {
			if st := &n.st[s]; st.op == nByte && st.lo <= st.hi {
				for c := d.cls[st.lo]; c <= d.cls[st.hi]; c++ {
					moved[c] = append(moved[c], st.out)
				}
			}
		}
		for c := range moved {
			if len(moved[c]) == 0 {
				d.next = append(d.next, -1)
				continue
			}
			j, ok := byMoved[string(key(moved[c]))]
			if !ok {
				var err error
				if j, err = addSet(closure(moved[c], false, false)); err != nil {
					return nil, err
				}
				if err := m.charge(0, 4*len(moved[c])+48); err != nil {
					return nil, err
				}
				byMoved[string(key(moved[c]))] = j
			}
			d.next = append(d.next, j)
		}
	}
	return d.trim(m)
}
