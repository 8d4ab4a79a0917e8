package constrain

// Automata of finite sets of strings, built as tries without going through
// a regular expression: enum and const strings (literalsDFA), and with the
// same sortedTrie, the names of an object's properties (buildKeys).

import "fmt"

// sortedTrie is the trie of a sorted list of strings, built a string at a
// time from its common prefix with the one before: node 0 is the root, the
// others are numbered as they are made.
type sortedTrie struct {
	edges []trieEdge
	used  [256]bool // the bytes some string holds
	nodes int32     // the nodes made, the root included
	path  []int32   // path[i]: the node of the last string's first i bytes
	prev  string    // the last string
}

// trieEdge goes from parent to child on b.
type trieEdge struct {
	from, to int32
	b        byte
}

// common returns the length of str's common prefix with the string
// before, to which it cuts path.
func (t *sortedTrie) common(str string) int {
	if t.nodes == 0 {
		t.nodes, t.path = 1, []int32{0}
	}
	common := 0
	for common < len(str) && common < len(t.prev) && str[common] == t.prev[common] {
		common++
	}
	t.path = t.path[:common+1]
	return common
}

// extend adds str, whose first common bytes are in the trie (as common
// returned): a new node for each byte after them, numbered in order, and
// path its nodes.
func (t *sortedTrie) extend(str string, common int) {
	for i := common; i < len(str); i++ {
		n := t.nodes
		t.nodes++
		t.edges = append(t.edges, trieEdge{t.path[i], n, str[i]})
		t.used[str[i]] = true
		t.path = append(t.path, n)
	}
	t.prev = str
}

// literalsDFA accepts exactly the given strings (valid UTF-8, sorted and
// without duplicates). It is their trie, built from each string's common
// prefix with the one before, with every leaf one accepting state: the
// automaton the subset construction makes of their alternation, without
// the regular expression. It fails as soon as that passes maxDFAStates.
func literalsDFA(m *meter, strs []string) (*dfa, error) {
	if len(strs) == 0 {
		return nil, nil
	}
	// Trie nodes 1.. as made; node 0 is the root, leaves counts the
	// leaves, which become one state.
	var tr sortedTrie
	accept := []bool{false}
	isLeaf := []bool{false}
	leaves := 0
	for _, str := range strs {
		common := tr.common(str)
		if common == len(tr.prev) && isLeaf[tr.path[common]] && common < len(str) {
			isLeaf[tr.path[common]] = false // the previous string is a prefix
			leaves--
		}
		// The string (dedup's copy), its new trie nodes and their edges.
		if err := m.charge(1+len(str)-common, 32+len(str)+24*(len(str)-common)); err != nil {
			return nil, err
		}
		tr.extend(str, common)
		for len(accept) < int(tr.nodes) {
			accept = append(accept, false)
			isLeaf = append(isLeaf, false)
		}
		end := tr.path[len(str)]
		accept[end] = true
		if len(str) > common || end == 0 {
			isLeaf[end] = true
			leaves++
		}
		if int(tr.nodes)-max(leaves-1, 0) > maxDFAStates {
			return nil, fmt.Errorf("%w: automaton needs more than %d states", ErrTooComplex, maxDFAStates)
		}
	}
	nodes, edges, used := int(tr.nodes), tr.edges, &tr.used
	// Number the states: the leaves share the number of the first.
	num := make([]int32, nodes)
	ns := int32(0)
	leaf := int32(-1)
	for t := range num {
		switch {
		case !isLeaf[t] || leaf < 0:
			num[t] = ns
			if isLeaf[t] {
				leaf = ns
			}
			ns++
		default:
			num[t] = leaf
		}
	}
	d := &dfa{}
	for b := 0; b < 256; b++ {
		if used[b] {
			d.ncls++
			d.cls[b] = uint8(d.ncls)
		}
	}
	d.ncls++ // class 0: the bytes no string holds
	if err := m.charge(0, int(ns)*(4*d.ncls+1)); err != nil {
		return nil, err
	}
	d.next = make([]int32, int(ns)*d.ncls)
	for i := range d.next {
		d.next[i] = -1
	}
	d.accept = make([]bool, ns)
	for t, a := range accept {
		d.accept[num[t]] = d.accept[num[t]] || a
	}
	for _, e := range edges {
		d.next[int(num[e.from])*d.ncls+int(d.cls[e.b])] = num[e.to]
	}
	return d.trim(m)
}
