package constrain

// The compiled form of a schema: a graph of nodes, one per kind of JSON
// value a location may hold. A node lists what it allows of each JSON type:
// null and the two booleans as flags, strings and numbers as DFAs (over the
// decoded content of a string, and the text of a number), objects and arrays
// as specs whose members and elements are nodes again (recursion through
// $ref is a cycle in the graph). A node may hold several object or array
// specs: the branches of an anyOf, which the matcher follows side by side.

import "math/bits"

// node is the compiled form of a subschema: what it allows of each JSON
// type. Nodes are made by the compiler and shared: a subschema has one node
// however often it is referred to.
type node struct {
	null, tru, fal bool
	str            *dfa // decoded string content; nil: no strings
	// strMin and strMax bound the code points of a string (strMax < 0:
	// unbounded) when str is universal and the bounds are counted by the
	// matcher instead of the automaton.
	strCount       bool
	strMin, strMax int
	num            *dfa // the text of a number; nil: no numbers
	objs           []*objSpec
	arrs           []*arrSpec
	// alts are anyOf branches that were still being compiled (recursive
	// references) and so could not be merged in: each is followed apart.
	alts []*node

	nonempty bool   // some finite value matches
	filling  bool   // being compiled (a $ref cycle reached it)
	fwd      *node  // this node is that one (a reference resolved late)
	ptr      string // the subschema it was made for, to name it
	id       int32  // its index in the compiler's nodes
}

// deref follows the forwarding links from n to the node it stands for
// (nil stays nil): a node made for a $ref that closed a cycle is left
// forwarding to the node being filled, until resolveForwards rewrites
// every pointer to it.
func (n *node) deref() *node {
	for n != nil && n.fwd != nil {
		n = n.fwd
	}
	return n
}

// resolveForwards replaces every pointer to a forwarding node.
func (c *compiler) resolveForwards() {
	for _, o := range c.objs {
		for i, p := range o.props {
			o.props[i] = p.deref()
		}
		o.addl = o.addl.deref()
	}
	for _, a := range c.arrs {
		for i, p := range a.prefix {
			a.prefix[i] = p.deref()
		}
		a.items = a.items.deref()
	}
	for _, n := range c.nodes {
		for i, a := range n.alts {
			n.alts[i] = a.deref()
		}
	}
}

// anyNode returns a node accepting every JSON value.
func (c *compiler) anyNode() *node {
	if c.any == nil {
		n := c.newNode()
		n.null, n.tru, n.fal = true, true, true
		n.str = universalDFA
		n.num = numberDFA
		c.any = n
		n.objs = []*objSpec{c.newObj(nil, nil, n, 0, -1)}
		n.arrs = []*arrSpec{c.newArr(&arrSpec{items: n, maxItems: -1})}
	}
	return c.any
}

// isAny reports whether n is the compiler's node of every value, by
// identity: true schemas, and items or additionalProperties left out,
// share it, so intersect and union can skip it without looking inside.
func (n *node) isAny(c *compiler) bool { return n == c.any }

// objSpec is the compiled form of an object's keywords. A property is
// known by its index in names everywhere: in props, in the seenSets (req,
// empty, a frame's seen) and as the name a key automaton state ends.
type objSpec struct {
	names    []string // sorted
	props    []*node  // by name
	req      seenSet  // required names
	nreq     int
	addl     *node // additional properties; nil: none
	minProps int
	maxProps int // -1: unbounded
	keys     *keyDFA
	empty    seenSet // names whose node is empty (never allowed)
	nonempty bool
	// For the emptiness analysis: the required properties whose node is
	// not known nonempty yet (-1: the object is empty whatever they are),
	// and the properties whose node is.
	pendReq, avail int
	ptr            string // the subschema it was made for, to name it
	id             int32  // its index in the compiler's objects
}

// arrSpec is the compiled form of an array's keywords: the nodes of its
// first elements, then one node for all the others.
type arrSpec struct {
	prefix   []*node
	items    *node // after the prefix; nil: none
	minItems int
	maxItems int // -1: unbounded
	nonempty bool
	pend     int   // for the emptiness analysis: items needed not known nonempty yet (-1: never)
	id       int32 // its index in the compiler's arrays
}

// item returns the node of element i; nil when a has no element i.
func (a *arrSpec) item(i int) *node {
	if i < len(a.prefix) {
		return a.prefix[i]
	}
	return a.items
}

// seenSet is a set of name indexes: inline up to 64, else copied on write.
// It is held by value in frames, which are copied at every byte of a mask
// walk, so the common small object costs no allocation, and a large set is
// shared between frames until one of them adds to it (with).
type seenSet struct {
	small uint64
	big   []uint64
}

// newSeenSet returns an empty set of indexes below n, to fill with add.
func newSeenSet(n int) seenSet {
	if n <= 64 {
		return seenSet{}
	}
	return seenSet{big: make([]uint64, (n+63)/64)}
}

// add puts i in s in place: only while s is being built, before any copy
// of it is shared.
func (s *seenSet) add(i int) {
	if s.big != nil {
		s.big[i/64] |= 1 << (i % 64)
	} else {
		s.small |= 1 << i
	}
}

// has reports whether i is in s.
func (s seenSet) has(i int) bool {
	if s.big != nil {
		return s.big[i/64]&(1<<(i%64)) != 0
	}
	return i < 64 && s.small&(1<<i) != 0
}

// with returns s with i added, leaving s as it is (other frames may hold
// its words); n is the number of names, which says the form.
func (s seenSet) with(i int, n int) seenSet {
	if n <= 64 {
		return seenSet{small: s.small | 1<<i}
	}
	b := make([]uint64, (n+63)/64)
	copy(b, s.big)
	b[i/64] |= 1 << (i % 64)
	return seenSet{big: b}
}

// word returns the w-th 64 indexes of s as bits, 0 past its end, so that
// sets of either form combine word by word.
func (s seenSet) word(w int) uint64 {
	if s.big != nil {
		if w < len(s.big) {
			return s.big[w]
		}
		return 0
	}
	if w == 0 {
		return s.small
	}
	return 0
}

// equal reports whether s and t hold the same indexes, whatever their form.
func (s seenSet) equal(t seenSet) bool {
	if s.big == nil && t.big == nil {
		return s.small == t.small
	}
	n := max(len(s.big), len(t.big), 1)
	for w := 0; w < n; w++ {
		if s.word(w) != t.word(w) {
			return false
		}
	}
	return true
}

// countIn is the number of indexes below n in both s and req.
func (s seenSet) countIn(req seenSet, n int) int {
	c := 0
	for w := 0; w < (n+63)/64; w++ {
		c += bits.OnesCount64(s.word(w) & req.word(w))
	}
	return c
}

// anyFree reports whether some index in [lo, hi) is in neither a nor b.
func anyFree(a, b seenSet, lo, hi int) bool {
	for lo < hi {
		w := lo / 64
		end := min(hi, (w+1)*64)
		var m uint64
		if end-lo == 64 {
			m = ^uint64(0)
		} else {
			m = ((1 << (end - lo)) - 1) << (lo % 64)
		}
		if m&^(a.word(w)|b.word(w)) != 0 {
			return true
		}
		lo = end
	}
	return false
}

// keyDFA recognizes the keys of an object: the names of its properties
// (a trie, states [0, ntrie)) and, when additional properties are allowed,
// every other string (the universal UTF-8 automaton, states from ntrie).
type keyDFA struct {
	d      *dfa
	ntrie  int32
	name   []int32 // per trie state: the name ending there, or -1
	ustate []int32 // per trie state: the universal UTF-8 automaton's state there
	lo, hi []int32 // per trie state: the names with that prefix
	other  []bool  // per state: accepting as a key that is no name
	addl   bool    // other keys can be reached
}

// newObj makes an object spec, charged as newNode is.
func (c *compiler) newObj(names []string, props []*node, addl *node, minProps, maxProps int) *objSpec {
	c.m.charge(0, objCost+40*len(names))
	o := &objSpec{names: names, props: props, addl: addl, minProps: minProps, maxProps: maxProps, ptr: c.m.atOrRoot(), id: int32(len(c.objs))}
	c.objs = append(c.objs, o)
	return o
}

// buildKeys builds the key automaton of o: the trie of its sorted names,
// built from each name's common prefix with the one before, over byte
// classes of its own (each byte some name holds, and the universal
// automaton's classes for the others), so that its table has a column per
// class rather than per byte.
func buildKeys(m *meter, o *objSpec) (*keyDFA, error) {
	u := universalDFA
	addl := o.addl != nil
	// The trie, and k's entries for its nodes.
	var tr sortedTrie
	k := &keyDFA{addl: addl, name: []int32{-1}, ustate: []int32{0}, lo: []int32{0}, hi: []int32{int32(len(o.names))}}
	for j, nm := range o.names {
		common := tr.common(nm)
		// The new trie nodes: their edge and their entries in k.
		if err := m.charge(len(nm)-common, 32*(len(nm)-common)); err != nil {
			return nil, err
		}
		tr.extend(nm, common)
		for i := 0; i < len(nm); i++ {
			if i >= common {
				k.name = append(k.name, -1)
				k.ustate = append(k.ustate, u.step(k.ustate[tr.path[i]], nm[i]))
				k.lo = append(k.lo, int32(j))
				k.hi = append(k.hi, 0)
			}
			k.hi[tr.path[i+1]] = int32(j + 1)
		}
		k.name[tr.path[len(nm)]] = int32(j)
	}
	edges, used := tr.edges, &tr.used
	nt := len(k.name)
	k.ntrie = int32(nt)
	// Byte classes: a byte of a name alone, the others by the universal
	// automaton's class (all alike without additional properties).
	full := &dfa{}
	var clsOf [256 + 256]int16
	for i := range clsOf {
		clsOf[i] = -1
	}
	var reps []byte
	for b := 0; b < 256; b++ {
		key := 256 + int(u.cls[b])
		switch {
		case used[b]:
			key = b
		case !addl:
			key = 256
		}
		if clsOf[key] < 0 {
			clsOf[key] = int16(len(reps))
			reps = append(reps, byte(b))
		}
		full.cls[b] = uint8(clsOf[key])
	}
	full.ncls = len(reps)
	nu := u.states()
	total := nt
	if addl {
		total += nu
	}
	// The table and compactClasses' copy; the universal automaton's
	// states are new ones, the trie's were charged as they were made.
	if err := m.charge(total-nt, 4*total*full.ncls+2*total); err != nil {
		return nil, err
	}
	full.next = make([]int32, total*full.ncls)
	full.accept = make([]bool, total)
	for t := 0; t < nt; t++ {
		row := full.next[t*full.ncls : (t+1)*full.ncls]
		for c, b := range reps {
			row[c] = -1
			if addl {
				if us := u.step(k.ustate[t], b); us >= 0 {
					row[c] = int32(nt) + us
				}
			}
		}
		oth := addl && k.name[t] < 0 && u.accept[k.ustate[t]]
		k.other = append(k.other, oth)
		full.accept[t] = k.name[t] >= 0 || oth
	}
	for _, e := range edges {
		full.next[int(e.from)*full.ncls+int(full.cls[e.b])] = e.to
	}
	if addl {
		for s := 0; s < nu; s++ {
			row := full.next[(nt+s)*full.ncls : (nt+s+1)*full.ncls]
			for c, b := range reps {
				row[c] = u.step(int32(s), b)
				if row[c] >= 0 {
					row[c] += int32(nt)
				}
			}
			k.other = append(k.other, u.accept[s])
			full.accept[nt+s] = u.accept[s]
		}
	}
	k.d = full.compactClasses()
	if k.d != full {
		if err := m.charge(0, 4*len(k.d.next)); err != nil {
			return nil, err
		}
	}
	return k, nil
}

// bytes estimates the memory k holds.
func (k *keyDFA) bytes() int { return k.d.bytes() + 13*len(k.name) + len(k.other) }
