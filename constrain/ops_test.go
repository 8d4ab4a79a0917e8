package constrain

import "testing"

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
