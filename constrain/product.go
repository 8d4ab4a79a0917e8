package constrain

// The product construction: the intersection, union or difference of two
// DFAs (allOf, anyOf, exclusive bounds), and lengthDFA, the product of the
// universal automaton with a counter of code points, built directly.

import "fmt"

// productOp says how a product combines its sides: opAnd accepts what both
// accept, opOr what either does, opAndNot what the first accepts and the
// second does not.
type productOp uint8

const (
	opAnd productOp = iota
	opOr
	opAndNot
)

// product combines a and b (nil is the empty language) by op. Its
// shortcuts take every automaton to accept only valid UTF-8, as those
// compiled from patterns do: the universal automaton is then a neutral
// element of opAnd. An automaton over raw bytes (the counter ops_test.go
// checks lengthDFA with) goes through cross instead.
func product(m *meter, a, b *dfa, op productOp) (*dfa, error) {
	switch op {
	case opAnd:
		if a == nil || b == nil {
			return nil, nil
		}
		if a.universal {
			return b, nil
		}
		if b.universal {
			return a, nil
		}
	case opOr:
		if a == nil {
			return b, nil
		}
		if b == nil || a == b {
			return a, nil
		}
		if a.universal || b.universal {
			return universalDFA, nil
		}
	case opAndNot:
		if a == nil || b == nil {
			return a, nil
		}
		if b.universal {
			return nil, nil
		}
	}
	return cross(m, a, b, op)
}

// cross is the product construction itself, without product's shortcuts;
// a and b are not nil (product answers for the empty language).
//
// A state is a pair of states, one of a and one of b, -1 on a side that has
// died: opOr goes on with either side alive and opAndNot with a alone (a
// string b can no longer complete is not in b). Pairs are explored from
// (0, 0) and numbered as found; the byte classes are the pairs of classes
// that occur, one byte of each standing for it. The index of a pair is a
// table of (a's states + 1) × (b's states + 1) entries when that is at most
// 2^14, which is cheaper to look up than a map, and a map past it, where
// the table would be mostly empty and too large to clear (its overhead is
// charged per state found). The result is trimmed, which also removes the
// pairs opAnd reaches that cannot end in an accepting one.
func cross(m *meter, a, b *dfa, op productOp) (*dfa, error) {
	d := &dfa{}
	type pair struct{ ca, cb uint8 }
	clsOf := map[pair]uint8{}
	var reps []byte
	for x := 0; x < 256; x++ {
		p := pair{a.cls[x], b.cls[x]}
		c, ok := clsOf[p]
		if !ok {
			c = uint8(len(reps))
			clsOf[p] = c
			reps = append(reps, byte(x))
		}
		d.cls[x] = c
	}
	d.ncls = len(reps)
	// The index of a pair of states (-1 for none on a side): a table when
	// the pairs are few enough, else a map.
	type st struct{ a, b int32 }
	na, nb := a.states()+1, b.states()+1
	var dense []int32
	var sparse map[st]int32
	perState := 24 + 8*d.ncls  // its pair, row and acceptance, as they grow
	stateCost := 1 + d.ncls/32 // a row of many classes takes longer
	if na*nb <= 1<<14 {
		if err := m.charge(0, 4*na*nb); err != nil {
			return nil, err
		}
		dense = make([]int32, na*nb)
		for i := range dense {
			dense[i] = -1
		}
		dense[nb+1] = 0
	} else {
		sparse = map[st]int32{{0, 0}: 0}
		perState += 64
	}
	states := []st{{0, 0}}
	for i := 0; i < len(states); i++ {
		d.next = growRow(d.next, d.ncls)
		s := states[i]
		accA := s.a >= 0 && a.accept[s.a]
		accB := s.b >= 0 && b.accept[s.b]
		switch op {
		case opAnd:
			d.accept = append(d.accept, accA && accB)
		case opOr:
			d.accept = append(d.accept, accA || accB)
		case opAndNot:
			d.accept = append(d.accept, accA && !accB)
		}
		for _, x := range reps {
			t := st{-1, -1}
			if s.a >= 0 {
				t.a = a.step(s.a, x)
			}
			if s.b >= 0 {
				t.b = b.step(s.b, x)
			}
			dead := false
			switch op {
			case opAnd:
				dead = t.a < 0 || t.b < 0
			case opOr:
				dead = t.a < 0 && t.b < 0
			case opAndNot:
				dead = t.a < 0
			}
			if dead {
				d.next = append(d.next, -1)
				continue
			}
			var j int32
			ok := false
			if dense != nil {
				j = dense[int(t.a+1)*nb+int(t.b+1)]
				ok = j >= 0
			} else {
				j, ok = sparse[t]
			}
			if !ok {
				if len(states) >= maxDFAStates {
					return nil, fmt.Errorf("%w: automaton needs more than %d states", ErrTooComplex, maxDFAStates)
				}
				if err := m.charge(stateCost, perState); err != nil {
					return nil, err
				}
				j = int32(len(states))
				if dense != nil {
					dense[int(t.a+1)*nb+int(t.b+1)] = j
				} else {
					sparse[t] = j
				}
				states = append(states, t)
			}
			d.next = append(d.next, j)
		}
	}
	return d.trim(m)
}

// lengthDFA accepts the valid UTF-8 strings of min to max code points
// (max < 0: no upper bound); nil when that is too many states.
func lengthDFA(m *meter, min, max int) (*dfa, error) {
	if max >= 0 && min > max {
		return nil, nil
	}
	top := min
	if max >= 0 {
		top = max
	}
	if top > maxDFAStates/8 {
		return nil, fmt.Errorf("%w: string length bound %d", ErrTooComplex, top)
	}
	// The product of the universal automaton (which keeps the bytes valid
	// UTF-8) with a counter of code points, which counts lead bytes: state
	// c*nu+s is c code points written and the universal state s. The
	// universal automaton's classes never mix lead and continuation bytes,
	// so they are the product's.
	u := universalDFA
	nu := u.states()
	ns := (top + 1) * nu
	if err := m.charge(ns, ns*(4*u.ncls+1)); err != nil {
		return nil, err
	}
	var reps [256]byte
	var seen [256]bool
	for b := 255; b >= 0; b-- {
		reps[u.cls[b]], seen[u.cls[b]] = byte(b), true
	}
	d := &dfa{ncls: u.ncls, cls: u.cls, next: make([]int32, ns*u.ncls), accept: make([]bool, ns)}
	for c := 0; c <= top; c++ {
		for s := 0; s < nu; s++ {
			q := c*nu + s
			d.accept[q] = u.accept[s] && c >= min
			for k := 0; k < u.ncls; k++ {
				t := u.step(int32(s), reps[k])
				nc := c
				if b := reps[k]; b < 0x80 || b >= 0xC0 {
					nc++
				}
				switch {
				case !seen[k] || t < 0:
					t = -1
				case nc > top && max >= 0:
					t = -1
				default:
					if nc > top {
						nc = top // unbounded: counts past min are alike
					}
					t += int32(nc * nu)
				}
				d.next[q*u.ncls+k] = t
			}
		}
	}
	return d.trim(m)
}
