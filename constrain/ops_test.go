package constrain

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileNode decodes schema and compiles it with c to its node.
func compileNode(t *testing.T, c *compiler, schema string) *node {
	t.Helper()
	v, err := decodeSchema([]byte(schema))
	require.NoError(t, err)
	n, err := c.compileMap("", v.(map[string]any))
	require.NoError(t, err, schema)
	return n
}

// TestOverlapMatchesProduct: the search overlap does agrees with building
// the product of the two string automata, length counters included.
func TestOverlapMatchesProduct(t *testing.T) {
	var nodes []*node
	var names []string
	c := newCompiler(context.Background(), &Options{}, &Budget{})
	for _, s := range []string{
		`{"type":"string"}`, `{"type":"string","maxLength":3}`, `{"type":"string","minLength":4}`,
		`{"type":"string","minLength":2,"maxLength":2}`, `{"type":"string","minLength":3,"maxLength":5}`,
		`{"const":"abc"}`, `{"enum":["é","éé","x"]}`, `{"type":"string","pattern":"^a+$"}`,
		`{"type":"string","pattern":"^a+$","maxLength":2}`, `{"type":"string","pattern":"b"}`,
		`{"type":"string","format":"date"}`, `{"enum":["","2024-01-01"]}`, `{"type":"string","pattern":"^[^a]*$","minLength":1}`,
	} {
		nodes = append(nodes, compileNode(t, c, s))
		names = append(names, s)
	}
	for i, a := range nodes {
		for j, b := range nodes {
			sa, err1 := c.strDFA(a)
			sb, err2 := c.strDFA(b)
			require.NoError(t, err1)
			require.NoError(t, err2)
			p, err := product(nil, sa, sb, opAnd)
			require.NoError(t, err)
			assert.Equal(t, p != nil, c.overlap(strLang(a), strLang(b)), "%s and %s: overlap, product", names[i], names[j])
		}
	}
}

// TestLiteralsDFA: the trie of an enum's strings is the automaton the
// subset construction makes of their alternation, state for state.
func TestLiteralsDFA(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "ab", "é", "\u2028", "😀", "\x00", "\""}
	for round := range 300 {
		var strs []string
		for range rng.IntN(12) {
			var b strings.Builder
			for range rng.IntN(5) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			strs = append(strs, b.String())
		}
		strs = dedup(strs)
		got, err := literalsDFA(nil, strs)
		require.NoError(t, err)
		var re strings.Builder
		for i, s := range strs {
			if i > 0 {
				re.WriteByte('|')
			}
			for _, r := range s {
				fmt.Fprintf(&re, `\x{%x}`, r)
			}
		}
		want, err := anchoredDFA(nil, re.String())
		if len(strs) == 0 {
			want, err = nil, nil
		}
		require.NoError(t, err)
		require.Equal(t, want == nil, got == nil, "round %d %q: nil", round, strs)
		if got == nil {
			continue
		}
		require.Equal(t, want.states(), got.states(), "round %d %q: states, the regexp's", round, strs)
		for _, op := range []productOp{opAndNot, opAndNot} {
			x, _ := product(nil, got, want, op)
			require.Nil(t, x, "%q: the trie accepts more", strs)
			got, want = want, got
		}
		for _, s := range strs {
			q := int32(0)
			for i := 0; i < len(s) && q >= 0; i++ {
				q = got.step(q, s[i])
			}
			require.True(t, q >= 0 && got.accept[q], "%q: %q refused", strs, s)
		}
	}
}

// univEqByRefinement is the definition univEqStates computes: for each
// state of d, a state of the universal automaton accepting the same
// continuations, found by refining all pairs until nothing changes.
func univEqByRefinement(d *dfa) []int32 {
	u := universalDFA
	ns, nu := d.states(), u.states()
	eq := make([]bool, ns*nu)
	for q := 0; q < ns; q++ {
		for s := 0; s < nu; s++ {
			eq[q*nu+s] = d.accept[q] == u.accept[s]
		}
	}
	for changed := true; changed; {
		changed = false
		for q := 0; q < ns; q++ {
			for s := 0; s < nu; s++ {
				if !eq[q*nu+s] {
					continue
				}
				for b := 0; b < 256; b++ {
					tq, ts := d.step(int32(q), byte(b)), u.step(int32(s), byte(b))
					if (tq < 0) != (ts < 0) || tq >= 0 && !eq[int(tq)*nu+int(ts)] {
						eq[q*nu+s] = false
						changed = true
						break
					}
				}
			}
		}
	}
	out := make([]int32, ns)
	for q := range out {
		out[q] = -1
		for s := 0; s < nu; s++ {
			if eq[q*nu+s] {
				out[q] = int32(s)
				break
			}
		}
	}
	return out
}

// TestUnivEqStates: univEqStates finds the states equivalent to a state of
// the universal automaton, every one between two characters, on automata
// of patterns, formats, enums and lengths.
func TestUnivEqStates(t *testing.T) {
	canon := univEqByRefinement(universalDFA)
	c := newCompiler(context.Background(), &Options{}, &Budget{})
	for _, s := range []string{
		`{"pattern":"a"}`, `{"pattern":"^a"}`, `{"pattern":"é$"}`, `{"pattern":"^[\\x{1800}-\\x{1FFF}]"}`,
		`{"pattern":"[0-9]{3}-"}`, `{"format":"date"}`, `{"enum":["a","ab","é"]}`, `{"pattern":"^x","maxLength":4}`,
		`{"pattern":"^(?s:.{0,40})$"}`, `{"pattern":"😀|\\x{10FFFF}"}`, `{"pattern":"^[^a]*a"}`, `{"const":""}`,
	} {
		n := compileNode(t, c, s)
		d, err := c.strDFA(n)
		require.NoError(t, err)
		got, err := d.univEqStates(nil)
		require.NoError(t, err)
		want := univEqByRefinement(d)
		found := 0
		for q := range got {
			if got[q] >= 0 {
				got[q] = canon[got[q]] // the universal automaton has equivalent states
			}
			// A state inside a character may be equivalent to a state of
			// another character than the one that led to it (after E1, a
			// pattern may allow only what follows E0): not found, which
			// only costs a mask walk.
			assert.True(t, got[q] == want[q] || got[q] < 0 && want[q] != canon[0], "%s: state %d: %d, want %d", s, q, got[q], want[q])
			if got[q] >= 0 {
				found++
			}
		}
		t.Logf("%s: %d states, %d like the universal automaton's", s, len(got), found)
	}
}

// TestLengthDFA: lengthDFA is the product of the universal automaton with
// a counter of lead bytes, built here with cross.
func TestLengthDFA(t *testing.T) {
	u := universalDFA
	for b := 0; b < 256; b++ {
		cont := b >= 0x80 && b < 0xC0
		for b2 := 0; b2 < 256; b2++ {
			require.False(t, u.cls[b] == u.cls[b2] && cont != (b2 >= 0x80 && b2 < 0xC0), "bytes %#x and %#x share a class of the universal automaton", b, b2)
		}
	}
	for _, r := range [][2]int{{0, 0}, {0, 1}, {1, 1}, {0, 5}, {3, 7}, {2, -1}, {0, -1}, {40, 40}, {5, 3}} {
		lo, hi := r[0], r[1]
		got, err := lengthDFA(nil, lo, hi)
		require.NoError(t, err)
		top := lo
		if hi >= 0 {
			top = hi
		}
		counter := &dfa{ncls: 2}
		for b := 0x80; b < 0xC0; b++ {
			counter.cls[b] = 1
		}
		for c := 0; c <= top; c++ {
			counter.accept = append(counter.accept, c >= lo)
			nx := int32(c + 1)
			if c == top {
				nx = -1
				if hi < 0 {
					nx = int32(c)
				}
			}
			counter.next = append(counter.next, nx, int32(c))
		}
		want, _ := cross(nil, u, counter, opAnd)
		if hi >= 0 && lo > hi {
			want = nil
		}
		require.Equal(t, want == nil, got == nil, "%v: nil", r)
		if got == nil {
			continue
		}
		assert.Equal(t, want.states(), got.states(), "%v: states", r)
		for _, op := range []productOp{opAndNot, opAndNot} {
			x, _ := cross(nil, got, want, op)
			require.Nil(t, x, "%v: the languages differ", r)
			got, want = want, got
		}
	}
}
