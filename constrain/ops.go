package constrain

// Intersection (allOf, $ref beside other keywords, enum beside type) and
// union (anyOf, provably disjoint oneOf) of nodes, and the emptiness
// analysis that runs once every node is built.

import (
	"fmt"
	"slices"
	"strconv"
)

// strDFA returns the string automaton of n with its counted length bounds
// folded in.
func (c *compiler) strDFA(n *node) (*dfa, error) {
	if n.str == nil || !n.strCount {
		return n.str, nil
	}
	ld, err := c.lengthDFA(n.strMin, n.strMax)
	if err != nil {
		return nil, err
	}
	return product(c.m, n.str, ld, opAnd)
}

// intersect returns the node of the values both a and b allow (allOf, $ref
// beside other keywords, enum beside type), memoized by the pair: the
// literals and automata are intersected, and each object spec of a merged
// with each of b's (their anyOf alternatives multiply, hence the bound of
// 64), arrays alike. Two unconstrained string contents keep their length
// bounds counted by the matcher; otherwise counted bounds are folded into
// automata (strDFA) before the product. A node still being compiled (a
// recursive $ref) cannot be read yet, so it is refused rather than
// approximated.
func (c *compiler) intersect(ptr string, a, b *node) (*node, error) {
	a, b = a.deref(), b.deref()
	if a == b || b.isAny(c) {
		return a, nil
	}
	if a.isAny(c) {
		return b, nil
	}
	if a.filling || b.filling || len(a.alts) > 0 || len(b.alts) > 0 {
		return nil, unsupported(ptr, "a recursive $ref combined with other keywords")
	}
	key := [2]*node{a, b}
	if r, ok := c.inter[key]; ok {
		return r, nil
	}
	r := c.newNode()
	c.inter[key] = r
	r.null = a.null && b.null
	r.tru = a.tru && b.tru
	r.fal = a.fal && b.fal
	var err error
	switch {
	case a.str == nil || b.str == nil:
	case a.str.universal && b.str.universal:
		r.str = universalDFA
		r.strCount = a.strCount || b.strCount
		r.strMin = max(a.strMin, b.strMin)
		r.strMax = a.strMax
		if r.strMax < 0 || (b.strMax >= 0 && b.strMax < r.strMax) {
			r.strMax = b.strMax
		}
		if r.strMax >= 0 && r.strMin > r.strMax {
			r.str = nil
		}
	default:
		sa, err := c.strDFA(a)
		if err != nil {
			return nil, unsupported(ptr, "string constraints combined: %v", err)
		}
		sb, err := c.strDFA(b)
		if err != nil {
			return nil, unsupported(ptr, "string constraints combined: %v", err)
		}
		if r.str, err = product(c.m, sa, sb, opAnd); err != nil {
			return nil, &SchemaError{Pointer: ptr, Err: err}
		}
	}
	if r.num, err = product(c.m, a.num, b.num, opAnd); err != nil {
		return nil, &SchemaError{Pointer: ptr, Err: err}
	}
	for _, oa := range a.objs {
		for _, ob := range b.objs {
			o, err := c.mergeObj(ptr, oa, ob)
			if err != nil {
				return nil, err
			}
			r.objs = append(r.objs, o)
		}
	}
	for _, aa := range a.arrs {
		for _, ab := range b.arrs {
			x, err := c.mergeArr(ptr, aa, ab)
			if err != nil {
				return nil, err
			}
			r.arrs = append(r.arrs, x)
		}
	}
	if len(r.objs) > 64 || len(r.arrs) > 64 {
		return nil, tooComplex(ptr, "more than 64 object or array alternatives")
	}
	return r, nil
}

// falseNode accepts nothing.
func (c *compiler) falseNode() *node { return c.newNode() }

// prop is the node of property name's value.
func (o *objSpec) prop(name string) *node {
	if i, ok := slices.BinarySearch(o.names, name); ok {
		return o.props[i]
	}
	return o.addl
}

// required reports whether o requires property name.
func (o *objSpec) required(name string) bool {
	i, ok := slices.BinarySearch(o.names, name)
	return ok && o.req.has(i)
}

// mergeObj returns the spec of the objects both a and b allow. A spec that
// allows every object gives the other one; else the names are those of
// both, each property the intersection of its node on both sides (a side
// without the name gives its additional properties, and none there makes
// the property false), the additional properties intersected, a name
// required on either side required, and the tighter counts kept.
func (c *compiler) mergeObj(ptr string, a, b *objSpec) (*objSpec, error) {
	if a.addl == c.any && len(a.names) == 0 && a.minProps == 0 && a.maxProps < 0 {
		return b, nil
	}
	if b.addl == c.any && len(b.names) == 0 && b.minProps == 0 && b.maxProps < 0 {
		return a, nil
	}
	names := dedup(append(append([]string{}, a.names...), b.names...))
	props := make([]*node, len(names))
	for i, nm := range names {
		pa, pb := a.prop(nm), b.prop(nm)
		if pa == nil || pb == nil {
			props[i] = c.falseNode()
			continue
		}
		p, err := c.intersect(ptr, pa, pb)
		if err != nil {
			return nil, err
		}
		props[i] = p
	}
	var addl *node
	if a.addl != nil && b.addl != nil {
		x, err := c.intersect(ptr, a.addl, b.addl)
		if err != nil {
			return nil, err
		}
		addl = x
	}
	minP := max(a.minProps, b.minProps)
	maxP := a.maxProps
	if maxP < 0 || (b.maxProps >= 0 && b.maxProps < maxP) {
		maxP = b.maxProps
	}
	if minP > 1 && addl != nil {
		return nil, unsupported(ptr, "minProperties above 1 with additional properties allowed")
	}
	o := c.newObj(names, props, addl, minP, maxP)
	o.req = newSeenSet(len(names))
	for i, nm := range names {
		if a.required(nm) || b.required(nm) {
			o.req.add(i)
			o.nreq++
		}
	}
	return o, nil
}

// mergeArr returns the spec of the arrays both a and b allow: element by
// element over the longer prefix, then the items, intersected (false where
// a side allows no such element), and the tighter counts.
func (c *compiler) mergeArr(ptr string, a, b *arrSpec) (*arrSpec, error) {
	x := &arrSpec{minItems: max(a.minItems, b.minItems), maxItems: a.maxItems}
	if x.maxItems < 0 || (b.maxItems >= 0 && b.maxItems < x.maxItems) {
		x.maxItems = b.maxItems
	}
	c.newArr(x)
	for i := 0; i < max(len(a.prefix), len(b.prefix)); i++ {
		ia, ib := a.item(i), b.item(i)
		if ia == nil || ib == nil {
			x.prefix = append(x.prefix, c.falseNode())
			continue
		}
		n, err := c.intersect(ptr, ia, ib)
		if err != nil {
			return nil, err
		}
		x.prefix = append(x.prefix, n)
	}
	if a.items != nil && b.items != nil {
		n, err := c.intersect(ptr, a.items, b.items)
		if err != nil {
			return nil, err
		}
		x.items = n
	}
	return x, nil
}

// union is the node of the branches alts of keyword kw (anyOf, oneOf) at
// ptr. The string and number automata of the branches are merged pairwise
// in rounds, so that an automaton takes part in log2(len(alts)) products
// rather than in one product per later branch.
func (c *compiler) union(ptr, kw string, alts []*node) (*node, error) {
	if len(alts) == 1 {
		return alts[0], nil
	}
	for _, a := range alts {
		if a.isAny(c) {
			return a, nil
		}
	}
	kptr := ptrJoin(ptr, kw)
	r := c.newNode()
	var strs, nums []branchDFA
	var strNode *node // the first branch with strings
	for i, a := range alts {
		a = a.deref()
		if a.filling || len(a.alts) > 0 {
			r.alts = append(r.alts, a)
			continue
		}
		r.null = r.null || a.null
		r.tru = r.tru || a.tru
		r.fal = r.fal || a.fal
		if a.str != nil {
			if strNode == nil {
				strNode = a
			}
			strs = append(strs, branchDFA{a.str, i})
		}
		if a.num != nil {
			nums = append(nums, branchDFA{a.num, i})
		}
		r.objs = append(r.objs, a.objs...)
		r.arrs = append(r.arrs, a.arrs...)
		if len(r.objs) > 64 || len(r.arrs) > 64 {
			return nil, tooComplex(ptrJoin(kptr, strconv.Itoa(i)), "more than 64 object or array alternatives")
		}
	}
	if len(strs) == 1 {
		r.str, r.strCount, r.strMin, r.strMax = strNode.str, strNode.strCount, strNode.strMin, strNode.strMax
	} else if len(strs) > 1 {
		for i := range strs {
			d, err := c.strDFA(alts[strs[i].branch].deref())
			if err != nil {
				return nil, &SchemaError{Pointer: ptrJoin(kptr, strconv.Itoa(strs[i].branch)), Err: fmt.Errorf("strings of several branches: %w", err)}
			}
			strs[i].d = d
		}
		var err error
		if r.str, err = c.unionDFAs(kptr, strs); err != nil {
			return nil, err
		}
	}
	var err error
	if r.num, err = c.unionDFAs(kptr, nums); err != nil {
		return nil, err
	}
	return r, nil
}

// branchDFA is an automaton of branch number branch.
type branchDFA struct {
	d      *dfa
	branch int
}

// unionDFAs merges the automata of the branches of the keyword at kptr
// pairwise in rounds; a merge that fails names the last branch it covers.
func (c *compiler) unionDFAs(kptr string, ds []branchDFA) (*dfa, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	defer func(at string) { c.m.at = at }(c.m.at)
	for len(ds) > 1 {
		next := ds[:0:0]
		for i := 0; i+1 < len(ds); i += 2 {
			c.m.at = ptrJoin(kptr, strconv.Itoa(ds[i+1].branch))
			u, err := product(c.m, ds[i].d, ds[i+1].d, opOr)
			if err != nil {
				return nil, &SchemaError{Pointer: ptrJoin(kptr, strconv.Itoa(ds[i+1].branch)), Err: err}
			}
			next = append(next, branchDFA{u, ds[i+1].branch})
		}
		if len(ds)%2 == 1 {
			next = append(next, ds[len(ds)-1])
		}
		ds = next
	}
	return ds[0].d, nil
}

// disjoint reports whether no value matches both a and b, as far as a
// structural look (depth levels deep) can prove it.
func (c *compiler) disjoint(a, b *node, depth int) bool {
	a, b = a.deref(), b.deref()
	if a.filling || b.filling || depth < 0 || len(a.alts) > 0 || len(b.alts) > 0 {
		return false
	}
	if a.null && b.null || a.tru && b.tru || a.fal && b.fal {
		return false
	}
	if c.m.charge(1, 0) != nil {
		return false // the budget is spent; the caller's error gives way to it
	}
	if a.str != nil && b.str != nil && c.overlap(strLang(a), strLang(b)) {
		return false
	}
	if a.num != nil && b.num != nil && c.overlap(lang{d: a.num, max: -1}, lang{d: b.num, max: -1}) {
		return false
	}
	for _, oa := range a.objs {
		for _, ob := range b.objs {
			if !c.disjointObj(oa, ob, depth) {
				return false
			}
		}
	}
	for _, aa := range a.arrs {
		for _, ab := range b.arrs {
			if !c.disjointArr(aa, ab, depth) {
				return false
			}
		}
	}
	return true
}

// lang is a language of strings: those d accepts, and when count is set,
// of min to max code points (max < 0: no upper bound).
type lang struct {
	d        *dfa
	count    bool
	min, max int
}

// strLang is the language of n's strings.
func strLang(n *node) lang {
	if !n.strCount {
		return lang{d: n.str, max: -1}
	}
	return lang{d: n.str, count: true, min: n.strMin, max: n.strMax}
}

// maxCounted bounds the code points an overlap search counts, as
// lengthDFA bounds the ones it counts.
const maxCounted = maxDFAStates / 8

// overlap reports whether some string is in both x and y, or may be: it
// searches the product of the automata depth first from the start, with the
// code points written so far when a length is bounded, and stops at the
// first string both accept. Nothing is built but the set of visited states,
// so that telling two branches of a oneOf apart costs at most the product's
// size, and usually much less. Both automata accept only valid UTF-8, so
// that code points are counted by their lead bytes. A length bound above
// maxCounted is not searched: the languages may overlap. Each state
// visited is charged to the budget; once it is spent, the languages may
// overlap too.
func (c *compiler) overlap(x, y lang) bool {
	if x.d == nil || y.d == nil {
		return false
	}
	lo, hi := 0, -1 // the code points both allow; hi < 0: unbounded
	counted := x.count || y.count
	for _, l := range []lang{x, y} {
		if !l.count {
			continue
		}
		lo = max(lo, l.min)
		if l.max >= 0 && (hi < 0 || l.max < hi) {
			hi = l.max
		}
	}
	if hi >= 0 && lo > hi {
		return false
	}
	top := lo // counts from top on are alike
	if hi >= 0 {
		top = hi
	}
	if top > maxCounted {
		return true
	}
	if !counted {
		top = 0
	}
	// The visited states: a table when there are few enough, else a map.
	type state struct{ a, b, k int32 }
	na, nb, nk := x.d.states(), y.d.states(), top+1
	nx, ny := x.d.ncls, y.d.ncls
	ndense := 0
	if na*nb*nk <= 1<<16 {
		ndense = na * nb * nk
	}
	// The class table and the visited table, before they are allocated.
	if c.m.charge(1, 32+2*nx*ny+ndense) != nil {
		return true
	}
	// Byte classes of the product, a continuation byte apart from a lead
	// byte when code points are counted.
	var reps []byte
	seen := make([]bool, 2*nx*ny)
	for b := 0; b < 256; b++ {
		k := 2 * (int(x.d.cls[b])*ny + int(y.d.cls[b]))
		if counted && b >= 0x80 && b < 0xC0 {
			k++
		}
		if !seen[k] {
			seen[k] = true
			reps = append(reps, byte(b))
		}
	}
	var dense []bool
	var sparse map[state]bool
	if ndense > 0 {
		dense = make([]bool, ndense)
	} else {
		sparse = map[state]bool{}
	}
	// mark reports whether t was not visited yet, and marks it.
	mark := func(t state) bool {
		if dense != nil {
			i := (int(t.a)*nb+int(t.b))*nk + int(t.k)
			if dense[i] {
				return false
			}
			dense[i] = true
			return true
		}
		if sparse[t] {
			return false
		}
		sparse[t] = true
		return true
	}
	mark(state{})
	stack := []state{{}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x.d.accept[s.a] && y.d.accept[s.b] && int(s.k) >= lo {
			return true
		}
		for _, r := range reps {
			t := state{x.d.step(s.a, r), y.d.step(s.b, r), s.k}
			if t.a < 0 || t.b < 0 {
				continue
			}
			if counted && (r < 0x80 || r >= 0xC0) {
				if hi >= 0 && int(t.k) == hi {
					continue
				}
				t.k = min(t.k+1, int32(top))
			}
			if mark(t) {
				if c.m.charge(1, 16) != nil {
					return true
				}
				stack = append(stack, t)
			}
		}
	}
	return false
}

// disjointObj reports whether no object satisfies both a and b, as far as
// their counts and required properties prove it: the counts exclude each
// other, or one requires a property the other forbids or whose values are
// disjoint from its own.
func (c *compiler) disjointObj(a, b *objSpec, depth int) bool {
	if a.maxProps >= 0 && b.minProps > a.maxProps || b.maxProps >= 0 && a.minProps > b.maxProps {
		return true
	}
	for i, nm := range a.names {
		if !a.req.has(i) {
			continue
		}
		pb := b.prop(nm)
		if pb == nil || isFalseNode(pb) {
			return true
		}
		if c.disjoint(a.props[i], pb, depth-1) {
			return true
		}
	}
	for i, nm := range b.names {
		if !b.req.has(i) {
			continue
		}
		pa := a.prop(nm)
		if pa == nil || isFalseNode(pa) {
			return true
		}
		if c.disjoint(b.props[i], pa, depth-1) {
			return true
		}
	}
	return false
}

// disjointArr reports whether no array satisfies both a and b, as far as
// their lengths and the elements both require (the first 8 looked at)
// prove it.
func (c *compiler) disjointArr(a, b *arrSpec, depth int) bool {
	if a.maxItems >= 0 && b.minItems > a.maxItems || b.maxItems >= 0 && a.minItems > b.maxItems {
		return true
	}
	for i := 0; i < min(a.minItems, b.minItems) && i < 8; i++ {
		ia, ib := a.item(i), b.item(i)
		if ia == nil || ib == nil || c.disjoint(ia, ib, depth-1) {
			return true
		}
	}
	return false
}

// analyze computes which nodes, objects and arrays have a finite valid
// value (a least fixpoint), and finishes the objects: key automata and the
// sets of names whose value can never be written.
func (c *compiler) analyze() error {
	c.resolveForwards()
	c.nonempty()
	for _, n := range c.nodes {
		if d := n.str; d != nil && d.ueq == nil && !d.universal {
			c.m.at = n.ptr
			var err error
			if d.ueq, err = d.univEqStates(c.m); err != nil {
				return err
			}
		}
	}
	for _, o := range c.objs {
		if !o.nonempty {
			continue
		}
		if o.addl != nil && !o.addl.nonempty {
			o.addl = nil
		}
		o.empty = newSeenSet(len(o.names))
		for i, p := range o.props {
			if !p.nonempty {
				o.empty.add(i)
			}
		}
		c.m.at = o.ptr
		var err error
		if o.keys, err = buildKeys(c.m, o); err != nil {
			return err
		}
	}
	return nil
}

// nonempty computes the least fixpoint of "has a finite valid value" with
// a worklist: each node, object and array counts what it still waits for,
// and is visited again only when something it waits for becomes nonempty,
// so that the work is linear in the size of the graph.
func (c *compiler) nonempty() {
	// What waits for a node: objects (as a property, slot >= 0, or as
	// additional properties, slot -1), arrays and nodes (as an alternative).
	type waiter struct {
		obj  *objSpec
		arr  *arrSpec
		n    *node
		slot int
	}
	waiting := make([][]waiter, len(c.nodes)) // by node id
	objOf := make([][]*node, len(c.objs))     // the nodes that allow an object, by its id
	arrOf := make([][]*node, len(c.arrs))
	var nodes []*node
	var objs []*objSpec
	var arrs []*arrSpec
	setNode := func(n *node) {
		if !n.nonempty {
			n.nonempty = true
			nodes = append(nodes, n)
		}
	}
	setObj := func(o *objSpec) {
		if !o.nonempty {
			o.nonempty = true
			objs = append(objs, o)
		}
	}
	setArr := func(a *arrSpec) {
		if !a.nonempty {
			a.nonempty = true
			arrs = append(arrs, a)
		}
	}
	objReady := func(o *objSpec) bool {
		return o.pendReq == 0 && (o.addl != nil && o.addl.nonempty || o.avail >= o.minProps)
	}
	for _, o := range c.objs {
		if o.maxProps >= 0 && (o.minProps > o.maxProps || o.nreq > o.maxProps) {
			o.pendReq = -1 // never
			continue
		}
		for i, p := range o.props {
			waiting[p.id] = append(waiting[p.id], waiter{obj: o, slot: i})
			if o.req.has(i) {
				o.pendReq++
			}
		}
		if o.addl != nil {
			waiting[o.addl.id] = append(waiting[o.addl.id], waiter{obj: o, slot: -1})
		}
		if objReady(o) {
			setObj(o)
		}
	}
	for _, a := range c.arrs {
		if a.maxItems >= 0 && a.minItems > a.maxItems {
			continue
		}
		for i := 0; i < a.minItems; i++ {
			it := a.item(i)
			if it == nil {
				a.pend = -1 // never
				break
			}
			waiting[it.id] = append(waiting[it.id], waiter{arr: a})
			a.pend++
			if i >= len(a.prefix) {
				break // the rest are all a.items
			}
		}
		if a.pend == 0 {
			setArr(a)
		}
	}
	for _, n := range c.nodes {
		for _, a := range n.alts {
			waiting[a.id] = append(waiting[a.id], waiter{n: n})
		}
		for _, o := range n.objs {
			objOf[o.id] = append(objOf[o.id], n)
		}
		for _, a := range n.arrs {
			arrOf[a.id] = append(arrOf[a.id], n)
		}
		if n.null || n.tru || n.fal || n.str != nil || n.num != nil {
			setNode(n)
		}
	}
	for len(nodes)+len(objs)+len(arrs) > 0 {
		switch {
		case len(objs) > 0:
			o := objs[len(objs)-1]
			objs = objs[:len(objs)-1]
			for _, n := range objOf[o.id] {
				setNode(n)
			}
		case len(arrs) > 0:
			a := arrs[len(arrs)-1]
			arrs = arrs[:len(arrs)-1]
			for _, n := range arrOf[a.id] {
				setNode(n)
			}
		default:
			n := nodes[len(nodes)-1]
			nodes = nodes[:len(nodes)-1]
			for _, w := range waiting[n.id] {
				switch {
				case w.obj != nil && w.obj.pendReq >= 0:
					if w.slot >= 0 {
						w.obj.avail++
						if w.obj.req.has(w.slot) {
							w.obj.pendReq--
						}
					}
					if objReady(w.obj) {
						setObj(w.obj)
					}
				case w.arr != nil && w.arr.pend > 0:
					if w.arr.pend--; w.arr.pend == 0 {
						setArr(w.arr)
					}
				case w.n != nil:
					setNode(w.n)
				}
			}
		}
	}
}
