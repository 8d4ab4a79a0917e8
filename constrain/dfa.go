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

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

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

func (d *dfa) step(s int32, b byte) int32 { return d.next[int(s)*d.ncls+int(d.cls[b])] }

func (d *dfa) states() int { return len(d.accept) }

// bytes is the memory d holds.
func (d *dfa) bytes() int { return 300 + 4*len(d.next) + len(d.accept) }

// NFA construction.

const (
	nByte  = iota // one byte in [lo, hi] to out
	nSplit        // epsilon to out and out1
	nEps          // epsilon to out
	nBegin        // epsilon to out, only at the start of the text
	nEnd          // epsilon to out, only at the end of the text
	nMatch
)

type nstate struct {
	op        uint8
	lo, hi    byte
	out, out1 int32
}

type nfa struct {
	st  []nstate
	err error
	m   *meter
}

func (n *nfa) add(s nstate) int32 {
	if len(n.st) >= maxNFAStates {
		n.err = fmt.Errorf("%w: regular expression needs more than %d NFA states", ErrTooComplex, maxNFAStates)
		return 0
	}
	if err := n.m.charge(1, 12); err != nil {
		n.err = err
		return 0
	}
	n.st = append(n.st, s)
	return int32(len(n.st) - 1)
}

// runeRange adds states matching one rune in [lo, hi] (surrogates excluded)
// and going on to next; it returns the entry state, or -1 for an empty range.
func (n *nfa) runeRange(lo, hi rune, next int32) int32 {
	entry := int32(-1)
	utf8Seqs(lo, hi, func(seq []byteRange) {
		e := next
		for i := len(seq) - 1; i >= 0; i-- {
			e = n.add(nstate{op: nByte, lo: seq[i].lo, hi: seq[i].hi, out: e})
		}
		if entry < 0 {
			entry = e
		} else {
			entry = n.add(nstate{op: nSplit, out: entry, out1: e})
		}
	})
	return entry
}

// class adds states for a set of rune ranges (pairs lo, hi).
func (n *nfa) class(ranges []rune, next int32) int32 {
	entry := int32(-1)
	for i := 0; i+1 < len(ranges); i += 2 {
		e := n.runeRange(ranges[i], ranges[i+1], next)
		if e < 0 {
			continue
		}
		if entry < 0 {
			entry = e
		} else {
			entry = n.add(nstate{op: nSplit, out: entry, out1: e})
		}
	}
	return entry
}

var anyRune = []rune{0, unicode.MaxRune}

// never returns a state with no way out (an empty class).
func (n *nfa) never() int32 { return n.add(nstate{op: nByte, lo: 1, hi: 0}) }

// compile adds states for re going on to next and returns the entry state.
func (n *nfa) compile(re *syntax.Regexp, next int32) int32 {
	if n.err != nil {
		return 0
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return n.never()
	case syntax.OpEmptyMatch:
		return next
	case syntax.OpLiteral:
		e := next
		for i := len(re.Rune) - 1; i >= 0; i-- {
			r := re.Rune[i]
			ranges := []rune{r, r}
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					ranges = append(ranges, f, f)
				}
			}
			e = n.class(ranges, e)
			if e < 0 {
				return n.never()
			}
		}
		return e
	case syntax.OpCharClass:
		e := n.class(re.Rune, next)
		if e < 0 {
			return n.never()
		}
		return e
	case syntax.OpAnyCharNotNL:
		return n.class([]rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, next)
	case syntax.OpAnyChar:
		return n.class(anyRune, next)
	case syntax.OpBeginText:
		return n.add(nstate{op: nBegin, out: next})
	case syntax.OpEndText:
		return n.add(nstate{op: nEnd, out: next})
	case syntax.OpCapture:
		return n.compile(re.Sub[0], next)
	case syntax.OpConcat:
		e := next
		for i := len(re.Sub) - 1; i >= 0; i-- {
			e = n.compile(re.Sub[i], e)
		}
		return e
	case syntax.OpAlternate:
		e := n.compile(re.Sub[0], next)
		for _, sub := range re.Sub[1:] {
			e = n.add(nstate{op: nSplit, out: e, out1: n.compile(sub, next)})
		}
		return e
	case syntax.OpStar:
		loop := n.add(nstate{op: nSplit})
		body := n.compile(re.Sub[0], loop)
		if n.err == nil {
			n.st[loop].out, n.st[loop].out1 = body, next
		}
		return loop
	case syntax.OpPlus:
		loop := n.add(nstate{op: nSplit})
		body := n.compile(re.Sub[0], loop)
		if n.err == nil {
			n.st[loop].out, n.st[loop].out1 = body, next
		}
		return body
	case syntax.OpQuest:
		return n.add(nstate{op: nSplit, out: n.compile(re.Sub[0], next), out1: next})
	case syntax.OpRepeat:
		if re.Max > 1000 || re.Min > 1000 {
			n.err = fmt.Errorf("%w: repetition count above 1000", ErrTooComplex)
			return 0
		}
		e := next
		if re.Max < 0 {
			e = n.compile(&syntax.Regexp{Op: syntax.OpStar, Sub: re.Sub, Flags: re.Flags}, next)
		} else {
			for i := re.Min; i < re.Max; i++ {
				e = n.add(nstate{op: nSplit, out: n.compile(re.Sub[0], e), out1: next})
			}
		}
		for i := 0; i < re.Min; i++ {
			e = n.compile(re.Sub[0], e)
		}
		return e
	}
	// OpBeginLine, OpEndLine (multi-line mode), OpWordBoundary,
	// OpNoWordBoundary: not done.
	n.err = fmt.Errorf("%w: regular expression operator %v", ErrUnsupported, re.Op)
	return 0
}

// parseRegexp parses an ECMA-262 pattern as Go's regexp package reads it
// (RE2 syntax, Perl flags), which is what the validator does.
func parseRegexp(pattern string) (*syntax.Regexp, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return re.Simplify(), nil
}

// searchDFA compiles pattern with JSON Schema's semantics: the string
// matches when it contains a match (unanchored), over valid UTF-8.
func searchDFA(m *meter, pattern string) (*dfa, error) {
	if err := chargePattern(m, pattern); err != nil {
		return nil, err
	}
	re, err := parseRegexp(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: pattern %q: %v", ErrInvalidSchema, pattern, err)
	}
	return regexpDFA(m, re, true)
}

// anchoredDFA compiles a pattern that must match the whole string.
func anchoredDFA(m *meter, pattern string) (*dfa, error) {
	if err := chargePattern(m, pattern); err != nil {
		return nil, err
	}
	re, err := parseRegexp(`^(?:` + pattern + `)$`)
	if err != nil {
		return nil, err
	}
	return regexpDFA(m, re, false)
}

// chargePattern charges parsing pattern and the fixed costs of a subset
// construction (its maps and buffers).
func chargePattern(m *meter, pattern string) error {
	return m.charge(1+len(pattern)/16, 2048+patternBytesPerByte*len(pattern))
}

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

// regexpDFA builds the DFA of re; unanchored adds the implicit .* on both
// sides of a search.
func regexpDFA(m *meter, re *syntax.Regexp, unanchored bool) (*dfa, error) {
	n := &nfa{m: m}
	match := n.add(nstate{op: nMatch})
	end := match
	if unanchored {
		end = n.add(nstate{op: nSplit, out1: match})
		n.st[end].out = n.class(anyRune, end)
	}
	entry := n.compile(re, end)
	if unanchored {
		loop := n.add(nstate{op: nSplit, out1: entry})
		n.st[loop].out = n.class(anyRune, loop)
		entry = loop
	}
	if n.err != nil {
		return nil, n.err
	}
	return n.determinize(entry)
}

// determinize runs the subset construction.
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

// trim removes the states that cannot reach an accepting state; nil when the
// start state is one of them. It allocates some three times d's table.
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

// compactClasses merges byte classes whose columns are identical. Columns
// are grouped by a hash and compared only within a group.
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

// Product construction.

type productOp uint8

const (
	opAnd productOp = iota
	opOr
	opAndNot
)

// product combines a and b (nil is the empty language) by op. Its
// shortcuts take every automaton to accept only valid UTF-8, as those
// compiled from patterns do: the universal automaton is then a neutral
// element of opAnd. An automaton over raw bytes (lengthDFA's counter) goes
// through cross instead.
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

// universalDFA accepts every valid UTF-8 string.
var universalDFA = func() *dfa {
	d, err := anchoredDFA(nil, `(?s).*`)
	if err != nil {
		panic(err)
	}
	d.universal = true
	return d
}()

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

// UTF-8 range splitting.

type byteRange struct{ lo, hi byte }

// utf8Seqs calls emit with sequences of byte ranges whose concatenations
// are exactly the UTF-8 encodings of the runes in [lo, hi], surrogates
// excluded (the algorithm of Russ Cox's and Rust's utf8-ranges).
func utf8Seqs(lo, hi rune, emit func([]byteRange)) {
	if hi > unicode.MaxRune {
		hi = unicode.MaxRune
	}
	if lo < 0 {
		lo = 0
	}
	type rr struct{ lo, hi rune }
	stack := []rr{{lo, hi}}
	var buf [4]byteRange
outer:
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if r.lo > r.hi {
			continue
		}
		// Surrogates.
		if r.lo < 0xE000 && r.hi > 0xD7FF {
			if r.lo < 0xD800 {
				stack = append(stack, rr{0xE000, r.hi}, rr{r.lo, 0xD7FF})
			} else {
				stack = append(stack, rr{0xE000, r.hi})
			}
			continue
		}
		// Split at encoding length boundaries.
		for _, max := range []rune{0x7F, 0x7FF, 0xFFFF} {
			if r.lo <= max && max < r.hi {
				stack = append(stack, rr{max + 1, r.hi}, rr{r.lo, max})
				continue outer
			}
		}
		if r.hi <= 0x7F {
			emit([]byteRange{{byte(r.lo), byte(r.hi)}})
			continue
		}
		for i := 1; i < 4; i++ {
			m := rune(1)<<(6*i) - 1
			if r.lo&^m != r.hi&^m {
				if r.lo&m != 0 {
					stack = append(stack, rr{(r.lo | m) + 1, r.hi}, rr{r.lo, r.lo | m})
					continue outer
				}
				if r.hi&m != m {
					stack = append(stack, rr{r.hi &^ m, r.hi}, rr{r.lo, (r.hi &^ m) - 1})
					continue outer
				}
			}
		}
		var a, b [4]byte
		na := utf8.EncodeRune(a[:], r.lo)
		utf8.EncodeRune(b[:], r.hi)
		for i := 0; i < na; i++ {
			buf[i] = byteRange{a[i], b[i]}
		}
		emit(buf[:na])
	}
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
