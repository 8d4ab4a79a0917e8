package constrain

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestOverlapMatchesProduct: the search overlap does agrees with building
// the product of the two string automata, length counters included.
func TestOverlapMatchesProduct(t *testing.T) {
	var nodes []*node
	var names []string
	c := &compiler{opts: Options{}, byPtr: map[string]*node{}, inter: map[[2]*node]*node{}}
	for _, s := range []string{
		`{"type":"string"}`, `{"type":"string","maxLength":3}`, `{"type":"string","minLength":4}`,
		`{"type":"string","minLength":2,"maxLength":2}`, `{"type":"string","minLength":3,"maxLength":5}`,
		`{"const":"abc"}`, `{"enum":["é","éé","x"]}`, `{"type":"string","pattern":"^a+$"}`,
		`{"type":"string","pattern":"^a+$","maxLength":2}`, `{"type":"string","pattern":"b"}`,
		`{"type":"string","format":"date"}`, `{"enum":["","2024-01-01"]}`, `{"type":"string","pattern":"^[^a]*$","minLength":1}`,
	} {
		v, err := decodeSchema([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		n, err := c.compileMap("", v.(map[string]any))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		nodes = append(nodes, n)
		names = append(names, s)
	}
	for i, a := range nodes {
		for j, b := range nodes {
			sa, err1 := strDFA(a)
			sb, err2 := strDFA(b)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			p, err := product(sa, sb, opAnd)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := overlap(strLang(a), strLang(b)), p != nil; got != want {
				t.Errorf("%s and %s: overlap %v, product %v", names[i], names[j], got, want)
			}
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
		got, err := literalsDFA(strs)
		if err != nil {
			t.Fatal(err)
		}
		var re strings.Builder
		for i, s := range strs {
			if i > 0 {
				re.WriteByte('|')
			}
			for _, r := range s {
				fmt.Fprintf(&re, `\x{%x}`, r)
			}
		}
		want, err := anchoredDFA(re.String())
		if len(strs) == 0 {
			want, err = nil, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		if (got == nil) != (want == nil) || got != nil && got.states() != want.states() {
			t.Fatalf("round %d %q: %d states, the regexp's %d", round, strs, got.states(), want.states())
		}
		if got == nil {
			continue
		}
		for _, op := range []productOp{opAndNot, opAndNot} {
			if x, _ := product(got, want, op); x != nil {
				t.Fatalf("%q: the trie accepts more", strs)
			}
			got, want = want, got
		}
		for _, s := range strs {
			q := int32(0)
			for i := 0; i < len(s) && q >= 0; i++ {
				q = got.step(q, s[i])
			}
			if q < 0 || !got.accept[q] {
				t.Fatalf("%q: %q refused", strs, s)
			}
		}
	}
}
