package jsonschema

// This file explores the states of the locations of a value, level by level
// over the graph of costgraph.go, to find the shallowest location whose cost
// passes a bound (see cost.go).

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// entry is one subschema applied to a location, with its multiplicity.
type entry struct {
	node int32
	mult int64
}

// state describes a location: the subschemas applied to it.
type state struct {
	entries []entry // sorted by node, no duplicates
	// scope is the length of the validator's scope (the subschemas it
	// is evaluating, one inside the other) when it enters the location,
	// along the path that led to the state; depth is the depth of the
	// location.
	scope   int32
	depth   int32
	name    bool // a property name: a string, with nothing below it
	content bool // inside a decoded contentSchema value, whose nesting is not bounded
}

type explorer struct {
	g      *graph
	seen   map[string]state // support → the largest multiplicities explored or queued
	queued map[string]int   // support → index in next
	key    []byte
	next   []state
	// rate is the fastest growth of the scope seen, per level of depth,
	// between a state and the same state met again deeper (recursion),
	// at the subschema rateAt.
	rate   int32
	rateAt int32
	// reached lists the explored states' depths and longest scopes.
	reached []reach
}

type reach struct {
	depth, scope int32
	node         int32
}

// run explores the locations level by level, each state once, at the
// shallowest depth it occurs, until a level holds a location over the
// budget (which sets g.overDepth and g.overAt, or refuses the schema) or
// nothing is left; then it bounds the scope.
func (e *explorer) run() {
	g := e.g
	level := []state{{entries: []entry{{0, 1}}}}
	e.remember(level[0])
	for depth := 0; len(level) > 0 && depth <= maxValueDepth; depth++ {
		e.next = nil
		e.queued = map[string]int{}
		for _, st := range level {
			cost, worst := e.cost(st)
			g.maxCost = max(g.maxCost, cost)
			if cost > g.budget {
				n := st.entries[worst].node
				n = g.deepestOver(n)
				if st.content || depth < minNesting {
					g.refuse = &refusal{g.pointer(n), overBudget(depth, g.budget)}
					return
				}
				if g.overDepth < 0 {
					g.overDepth, g.overAt = depth, g.pointer(n)
					g.overWhy = fmt.Sprintf("validating a value nested more than %d levels deep could take more than %d subschema evaluations at one location", depth-1, g.budget)
				}
				continue
			}
			var chain int32
			for _, en := range st.entries {
				chain = max(chain, g.nodes[en.node].depth)
			}
			scope := st.scope + chain + 1
			e.reached = append(e.reached, reach{st.depth, scope, st.entries[worst].node})
			if g.overDepth < 0 && depth < maxValueDepth && !st.name {
				e.expand(st, scope)
			}
			if g.refuse != nil {
				return
			}
		}
		if g.overDepth >= 0 {
			break
		}
		level = e.next
	}
	e.boundScope()
}

// boundScope limits the depth of values so that the validator's scope stays
// within maxScope: it grows by the longest in-place chain plus one at each
// level, and by rate per level through recursion, which is assumed to
// continue from every location explored.
func (e *explorer) boundScope() {
	g := e.g
	limit, at := int32(-1), int32(-1)
	for _, r := range e.reached {
		d := int32(-1)
		switch {
		case r.scope > maxScope:
			d = r.depth - 1
		case e.rate > 0:
			d = r.depth + (maxScope-r.scope)/e.rate
		}
		if d >= 0 && (limit < 0 || d < limit) {
			limit, at = d, r.node
			if r.scope <= maxScope {
				at = e.rateAt
			}
		}
	}
	if limit < 0 || limit >= maxValueDepth {
		return
	}
	if g.overDepth < 0 || int(limit) < g.overDepth-1 {
		g.overDepth, g.overAt = int(limit)+1, g.pointer(at)
		g.overWhy = fmt.Sprintf("validating a value nested more than %d levels deep could nest more than %d subschema evaluations one inside the other", limit, maxScope)
	}
}

// overBudget describes a location over the budget at depth.
func overBudget(depth int, budget int64) error {
	if depth == 0 {
		return fmt.Errorf("%w: validating one value could take more than %d subschema evaluations", ErrSchemaTooComplex, budget)
	}
	levels := "levels"
	if depth == 1 {
		levels = "level"
	}
	return fmt.Errorf("%w: validating one value could take more than %d subschema evaluations at one location %d %s deep in it",
		ErrSchemaTooComplex, budget, depth, levels)
}

// cost returns the evaluations at a location of state st, for the
// costliest type of value, and the index of its costliest entry.
func (e *explorer) cost(st state) (cost int64, worst int) {
	g := e.g
	for t := range nTypes {
		if st.name && t != tString {
			continue
		}
		var c, wc int64 = 0, -1
		k := 0
		for i, en := range st.entries {
			x := mulSat(en.mult, g.nodes[en.node].evals[t], g.budget)
			if x > wc {
				k, wc = i, x
			}
			c = addSat(c, x, g.budget)
		}
		if c > cost {
			cost, worst = c, k
		}
	}
	return cost, worst
}

// remember records st, merging it with the states of the same support (the
// same subschemas, whatever their multiplicities) recorded before: st
// itself when it is the first, else the elementwise maximum of the two. It
// returns the state to explore, or false when the states recorded before
// already cover st (what they apply, they apply as many times or more, at
// a depth no deeper, so that nothing below st costs more than below them).
// Meeting a state again deeper with a longer scope measures the growth of
// the scope through recursion.
func (e *explorer) remember(st state) (state, bool) {
	e.key = e.key[:0]
	for _, en := range st.entries {
		e.key = binary.AppendUvarint(e.key, uint64(en.node))
	}
	if st.name {
		e.key = append(e.key, 0xfe)
	}
	if st.content {
		e.key = append(e.key, 0xff)
	}
	e.g.work -= int64(len(st.entries))
	old, ok := e.seen[string(e.key)]
	if !ok {
		e.seen[string(e.key)] = st
		return st, true
	}
	if st.scope > old.scope && st.depth > old.depth {
		levels := st.depth - old.depth
		if r := (st.scope - old.scope + levels - 1) / levels; r > e.rate {
			e.rate, e.rateAt = r, st.entries[0].node
		}
	}
	covered := true
	for i, en := range st.entries {
		if en.mult > old.entries[i].mult {
			covered = false
			break
		}
	}
	if covered {
		return state{}, false
	}
	merged := slices.Clone(old.entries)
	for i, en := range st.entries {
		merged[i].mult = max(merged[i].mult, en.mult)
	}
	st.entries = merged
	e.seen[string(e.key)] = st
	return st, true
}

// push queues the state of a child location, unless an explored or queued
// state covers it; a queued state of the same support absorbs it.
func (e *explorer) push(child []entry, parent state, scope int32, name, content bool) {
	st := state{entries: normalize(child, e.g.budget), scope: scope, depth: parent.depth + 1, name: name, content: content}
	if len(st.entries) == 0 {
		return
	}
	st, ok := e.remember(st)
	if !ok {
		return
	}
	if i, queued := e.queued[string(e.key)]; queued {
		e.next[i] = st
		return
	}
	e.queued[string(e.key)] = len(e.next)
	e.next = append(e.next, st)
}

// expand queues the states of the members, property names, elements and
// decoded contents of a location of state st, where the scope reaches
// scope.
func (e *explorer) expand(st state, scope int32) {
	g := e.g
	var child []entry
	addTo := func(dst []entry, node int32, mult int64) []entry {
		if node >= 0 {
			dst = append(dst, entry{node, mult})
		}
		return dst
	}

	// Objects: every name some schema lists, then any other name. A
	// member gets what the schemas listing its name give it, and what the
	// schemas with patternProperties, additionalProperties or
	// unevaluatedProperties give any member.
	if desc := g.closure(st.entries, tObject, func(n *gnode) bool { return n.objects }); len(desc) > 0 {
		byName := map[string][]int32{} // name → the indexes in desc of the schemas listing it
		var generic []int32            // the indexes of the schemas that give any member something
		for k, d := range desc {
			n := &g.nodes[d.node]
			for name := range n.props {
				byName[name] = append(byName[name], int32(k))
			}
			if n.patterns != nil || n.additional >= 0 || n.unevalProps >= 0 {
				generic = append(generic, int32(k))
			}
			g.work -= int64(1 + len(n.props))
		}
		names := sortedKeys(byName)
		// generic gives name what the schema desc[k] gives it, listing it
		// or not.
		give := func(k int32, name string, listed, other bool) {
			d := desc[k]
			n := &g.nodes[d.node]
			if listed {
				child = addTo(child, n.props[name], d.mult)
			}
			matched := false
			for _, p := range n.patterns {
				// Matching costs time: past its own budget, the analysis
				// assumes every pattern matches.
				match := other || g.matches <= 0
				if !match {
					g.matches -= int64(1 + len(name)/16)
					match = p.re.MatchString(name)
				}
				if match {
					child = addTo(child, p.to, d.mult)
					matched = true
				}
			}
			if !listed && (other || !matched) {
				child = addTo(child, n.additional, d.mult)
			}
			child = addTo(child, n.unevalProps, d.mult)
		}
		for _, name := range names {
			child = child[:0]
			listing := byName[name]
			for _, k := range listing {
				give(k, name, true, false)
			}
			for _, k := range generic {
				if _, found := slices.BinarySearch(listing, k); !found {
					give(k, name, false, false)
				}
			}
			g.work -= int64(len(listing) + len(generic) + len(child))
			if e.push(child, st, scope, false, st.content); g.work < 0 {
				break
			}
		}
		child = child[:0]
		for _, k := range generic {
			give(k, "", false, true)
		}
		e.push(child, st, scope, false, st.content)
		child = child[:0]
		for _, d := range desc {
			child = addTo(child, g.nodes[d.node].names, d.mult)
		}
		e.push(child, st, scope, true, st.content)
	}

	// Arrays: every index below the longest prefix, then any other.
	if desc := g.closure(st.entries, tArray, func(n *gnode) bool { return n.arrays }); len(desc) > 0 {
		longest := 0
		for _, d := range desc {
			longest = max(longest, len(g.nodes[d.node].prefix))
		}
		for i := 0; i <= longest && g.work >= 0; i++ {
			child = child[:0]
			for _, d := range desc {
				n := &g.nodes[d.node]
				if i < len(n.prefix) {
					child = addTo(child, n.prefix[i], d.mult)
				} else {
					child = addTo(child, n.rest, d.mult)
				}
				child = addTo(child, n.contains, d.mult)
				child = addTo(child, n.unevalItems, d.mult)
			}
			g.work -= int64(len(desc) + len(child))
			e.push(child, st, scope, false, st.content)
		}
	}

	// Strings: their decoded content, whose nesting is not bounded.
	if desc := g.closure(st.entries, tString, func(n *gnode) bool { return n.content >= 0 }); len(desc) > 0 {
		child = child[:0]
		for _, d := range desc {
			child = addTo(child, g.nodes[d.node].content, d.mult)
		}
		e.push(child, st, scope, false, true)
	}
	if g.work < 0 {
		g.tooComplex(st.entries[0].node, "its cost could not be bounded within the analysis budget")
	}
}

// normalize sorts a state by node and merges duplicates; it returns a copy.
func normalize(s []entry, budget int64) []entry {
	if len(s) == 0 {
		return nil
	}
	out := slices.Clone(s)
	slices.SortFunc(out, func(a, b entry) int { return int(a.node - b.node) })
	w := 0
	for _, en := range out {
		if w > 0 && out[w-1].node == en.node {
			out[w-1].mult = addSat(out[w-1].mult, en.mult, budget)
			continue
		}
		out[w] = en
		w++
	}
	return out[:w]
}
