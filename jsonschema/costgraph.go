package jsonschema

// This file builds the graph the cost analysis (see cost.go) runs on: one
// node per compiled subschema, its in-place and descending edges, and the
// evaluations each node costs in place per JSON type.

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony/internal/schemanorm"
	js "github.com/santhosh-tekuri/jsonschema/v5"
)

// JSON types, as the validator's "type" keyword tells them apart ("integer"
// is a number).
const (
	tNull = iota
	tBoolean
	tNumber
	tString
	tArray
	tObject
	nTypes
)

// typeBit returns the bit of a "type" keyword's value.
func typeBit(t string) uint8 {
	switch t {
	case "null":
		return 1 << tNull
	case "boolean":
		return 1 << tBoolean
	case "number", "integer":
		return 1 << tNumber
	case "string":
		return 1 << tString
	case "array":
		return 1 << tArray
	case "object":
		return 1 << tObject
	}
	return 0
}

// pattern is a patternProperties edge.
type pattern struct {
	re *regexp.Regexp
	to int32
}

// gnode is one subschema of the compiled graph.
type gnode struct {
	s       *js.Schema
	types   uint8 // the types of values whose evaluation goes past "type"
	inPlace []int32
	inKw    []string // the keyword path of each in-place edge ("$ref", "allOf/0", ...)
	// Descending edges; -1 for none.
	props       map[string]int32
	patterns    []pattern
	additional  int32
	unevalProps int32
	names       int32 // propertyNames
	prefix      []int32
	rest        int32 // the elements after the prefix
	contains    int32
	unevalItems int32
	content     int32
	objects     bool // any descending edge for objects
	arrays      bool // any for arrays

	evals [nTypes]int64 // in-place evaluations per type, saturated at budget+1
	depth int32         // longest in-place chain from here
	mark  uint8         // 0 new, 1 on the stack, 2 done
}

type graph struct {
	nodes  []gnode
	index  map[*js.Schema]int32
	budget int64
	docs   docMap
	work   int64 // analysis steps left
	// workLimit is the steps the analysis may take: workLimit-work is
	// what it spent (for tests).
	workLimit int64
	// scratch for closures, indexed by node
	stamp  []uint32
	gen    uint32
	mult   []int64
	order  []int32
	refuse *refusal
	// matches is what is left of the budget for matching member names
	// against patternProperties.
	matches int64
	// start and path are the node where the current walk of in-place
	// edges started and the keywords of the edges it followed.
	start int32
	path  []string
	// overDepth is the shallowest depth of a location whose cost may pass
	// a bound, or -1; overAt is the pointer of the subschema at fault
	// there, and overWhy says what goes past which bound.
	overDepth int
	overAt    string
	overWhy   string
	// maxCost is the highest cost of a location seen, for tests.
	maxCost int64
}

// collect registers roots and, breadth first, every subschema they lead to.
func (g *graph) collect(roots []*js.Schema) {
	var list []*js.Schema
	for _, s := range roots {
		if _, ok := g.index[s]; !ok && s != nil {
			g.index[s] = int32(len(list))
			list = append(list, s)
		}
	}
	for q := 0; q < len(list); q++ {
		forEachChild(list[q], func(c *js.Schema) {
			if _, ok := g.index[c]; !ok {
				g.index[c] = int32(len(list))
				list = append(list, c)
			}
		})
	}
	g.nodes = make([]gnode, len(list))
	for i, s := range list {
		g.nodes[i].s = s
	}
}

// forEachChild calls fn for every subschema s refers to.
func forEachChild(s *js.Schema, fn func(*js.Schema)) {
	one := func(c *js.Schema) {
		if c != nil {
			fn(c)
		}
	}
	anyOne := func(v any) {
		switch c := v.(type) {
		case *js.Schema:
			one(c)
		case []*js.Schema:
			for _, e := range c {
				one(e)
			}
		}
	}
	one(s.Ref)
	one(s.RecursiveRef)
	one(s.DynamicRef)
	one(s.Not)
	for _, c := range s.AllOf {
		one(c)
	}
	for _, c := range s.AnyOf {
		one(c)
	}
	for _, c := range s.OneOf {
		one(c)
	}
	one(s.If)
	one(s.Then)
	one(s.Else)
	// Maps in key order, so that the subschemas are numbered, and a
	// refusal names one of them, the same way every time.
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		one(s.DependentSchemas[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		anyOne(s.Dependencies[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		one(s.Properties[k])
	}
	for _, re := range sortedPatterns(s.PatternProperties) {
		one(s.PatternProperties[re])
	}
	anyOne(s.AdditionalProperties)
	one(s.UnevaluatedProperties)
	one(s.PropertyNames)
	anyOne(s.Items)
	anyOne(s.AdditionalItems)
	for _, c := range s.PrefixItems {
		one(c)
	}
	one(s.Items2020)
	one(s.Contains)
	one(s.UnevaluatedItems)
	one(s.ContentSchema)
}

// build fills the edges of every node.
func (g *graph) build() {
	var recursiveAnchors []int32
	dynamicAnchors := map[string][]int32{}
	for i := range g.nodes {
		s := g.nodes[i].s
		if s.RecursiveAnchor {
			recursiveAnchors = append(recursiveAnchors, int32(i))
		}
		if s.DynamicAnchor != "" {
			dynamicAnchors[s.DynamicAnchor] = append(dynamicAnchors[s.DynamicAnchor], int32(i))
		}
	}
	id := func(s *js.Schema) int32 {
		if s == nil {
			return -1
		}
		return g.index[s]
	}
	for i := range g.nodes {
		n := &g.nodes[i]
		s := n.s
		n.types = 1<<nTypes - 1
		if len(s.Types) > 0 {
			n.types = 0
			for _, t := range s.Types {
				n.types |= typeBit(t)
			}
		}
		if s.Always != nil {
			n.types = 0 // a boolean schema decides at once
		}

		var in []int32
		var kws []string
		push := func(kw string, c *js.Schema) {
			if c != nil {
				in = append(in, g.index[c])
				kws = append(kws, kw)
			}
		}
		// A dynamic or recursive reference evaluates one subschema: its
		// static target, or one that the dynamic scope picks. Each
		// candidate counts once.
		oneOfTargets := func(kw string, static *js.Schema, candidates []int32) {
			t := g.index[static]
			in = append(in, t)
			kws = append(kws, kw)
			for _, c := range candidates {
				if c != t {
					in = append(in, c)
					kws = append(kws, kw)
				}
			}
		}
		push("$ref", s.Ref)
		if s.RecursiveRef != nil {
			var candidates []int32
			if s.RecursiveRef.RecursiveAnchor {
				candidates = recursiveAnchors
			}
			oneOfTargets("$recursiveRef", s.RecursiveRef, candidates)
		}
		if s.DynamicRef != nil {
			oneOfTargets("$dynamicRef", s.DynamicRef, dynamicAnchors[s.DynamicRef.DynamicAnchor])
		}
		push("not", s.Not)
		for i, c := range s.AllOf {
			push("allOf/"+strconv.Itoa(i), c)
		}
		for i, c := range s.AnyOf {
			push("anyOf/"+strconv.Itoa(i), c)
		}
		for i, c := range s.OneOf {
			push("oneOf/"+strconv.Itoa(i), c)
		}
		if s.If != nil {
			push("if", s.If)
			push("then", s.Then)
			push("else", s.Else)
		}
		for _, k := range sortedKeys(s.DependentSchemas) {
			push("dependentSchemas/"+schemanorm.EscapeToken(k), s.DependentSchemas[k])
		}
		for _, k := range sortedKeys(s.Dependencies) {
			if c, ok := s.Dependencies[k].(*js.Schema); ok {
				push("dependencies/"+schemanorm.EscapeToken(k), c)
			}
		}
		n.inPlace, n.inKw = in, kws

		n.additional, n.unevalProps, n.names, n.rest, n.contains, n.unevalItems, n.content = -1, -1, -1, -1, -1, -1, -1
		if len(s.Properties) > 0 {
			n.props = make(map[string]int32, len(s.Properties))
			for k, c := range s.Properties {
				n.props[k] = id(c)
			}
		}
		for _, re := range sortedPatterns(s.PatternProperties) {
			n.patterns = append(n.patterns, pattern{re, id(s.PatternProperties[re])})
		}
		slices.SortFunc(n.patterns, func(a, b pattern) int { return int(a.to - b.to) })
		if c, ok := s.AdditionalProperties.(*js.Schema); ok {
			n.additional = id(c)
		}
		n.unevalProps = id(s.UnevaluatedProperties)
		n.names = id(s.PropertyNames)
		switch items := s.Items.(type) {
		case *js.Schema:
			n.rest = id(items)
		case []*js.Schema:
			for _, c := range items {
				n.prefix = append(n.prefix, id(c))
			}
			if c, ok := s.AdditionalItems.(*js.Schema); ok {
				n.rest = id(c)
			}
		}
		if len(s.PrefixItems) > 0 {
			n.prefix = n.prefix[:0]
			for _, c := range s.PrefixItems {
				n.prefix = append(n.prefix, id(c))
			}
		}
		if s.Items2020 != nil {
			n.rest = id(s.Items2020)
		}
		n.contains = id(s.Contains)
		n.unevalItems = id(s.UnevaluatedItems)
		n.content = id(s.ContentSchema)
		n.objects = n.props != nil || n.patterns != nil || n.additional >= 0 || n.unevalProps >= 0 || n.names >= 0
		n.arrays = n.prefix != nil || n.rest >= 0 || n.contains >= 0 || n.unevalItems >= 0
	}
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(m))
	return keys
}

func (g *graph) pointer(i int32) string { return g.docs.pointer(g.nodes[i].s.Location) }

func (g *graph) tooComplex(i int32, format string, args ...any) {
	if g.refuse == nil {
		g.refuse = &refusal{g.pointer(i), fmt.Errorf("%w: "+format, append([]any{ErrSchemaTooComplex}, args...)...)}
	}
}

// evalsOf computes evals and depth for i and everything it reaches in place.
func (g *graph) evalsOf(i int32) {
	n := &g.nodes[i]
	n.mark = 1
	var depth int32
	for t := range nTypes {
		n.evals[t] = 1
	}
	for k, c := range n.inPlace {
		cn := &g.nodes[c]
		g.path = append(g.path, n.inKw[k])
		switch cn.mark {
		case 0:
			g.evalsOf(c)
			if g.refuse != nil {
				return
			}
		case 1:
			// An in-place cycle: the compiler refuses most of them; this
			// one it let through (it compiles each document from a fresh
			// start), and the validator would fail on it.
			g.refuse = &refusal{g.cyclePointer(i, k), errLoop}
			return
		}
		g.path = g.path[:len(g.path)-1]
		for t := range nTypes {
			if n.types&(1<<t) != 0 {
				n.evals[t] = addSat(n.evals[t], cn.evals[t], g.budget)
			}
		}
		depth = max(depth, cn.depth+1)
	}
	n.depth, n.mark = depth, 2
	if depth > maxInPlaceDepth {
		g.tooComplex(i, "more than %d nested in-place applicators ($ref, allOf, anyOf, oneOf, not, if, ...)", maxInPlaceDepth)
	}
}

// cyclePointer names an in-place cycle the way the compiler does: the
// location where the chain of in-place edges that closes it starts,
// followed by the keywords of the chain up to its first "$ref" (as
// "/properties/x/$ref"). Without a "$ref", it is the edge k of from that
// closes the cycle.
func (g *graph) cyclePointer(from int32, k int) string {
	ptr := g.pointer(g.start)
	for _, kw := range g.path {
		ptr += "/" + kw
		if kw == "$ref" {
			return ptr
		}
	}
	return g.pointer(from) + "/" + g.nodes[from].inKw[k]
}

// closure returns the nodes keep accepts among those evaluated in place
// from entries on a value of type t, with the number of times each is
// evaluated. Evaluation does not go past a node that rejects t.
func (g *graph) closure(entries []entry, t int, keep func(*gnode) bool) []entry {
	g.gen++
	gen := g.gen
	g.order = g.order[:0]
	// Depth-first post-order over the in-place edges (acyclic by now).
	var visit func(int32)
	visit = func(i int32) {
		g.stamp[i] = gen
		g.mult[i] = 0
		if n := &g.nodes[i]; n.types&(1<<t) != 0 {
			for _, c := range n.inPlace {
				if g.stamp[c] != gen {
					visit(c)
				}
			}
		}
		g.order = append(g.order, i)
	}
	for _, en := range entries {
		if g.stamp[en.node] != gen {
			visit(en.node)
		}
	}
	for _, en := range entries {
		g.mult[en.node] = addSat(g.mult[en.node], en.mult, g.budget)
	}
	var out []entry
	for k := len(g.order) - 1; k >= 0; k-- {
		i := g.order[k]
		n := &g.nodes[i]
		if n.types&(1<<t) == 0 {
			continue
		}
		m := g.mult[i]
		g.work -= int64(1 + len(n.inPlace))
		for _, c := range n.inPlace {
			g.mult[c] = addSat(g.mult[c], m, g.budget)
		}
		if keep(n) {
			out = append(out, entry{i, m})
		}
	}
	return out
}

// deepestOver follows in-place edges from i to the last node whose
// evaluations, for some type, are over the budget: the subschema whose
// expansion passes it. It returns i when i itself is not over.
func (g *graph) deepestOver(i int32) int32 {
	over := func(n int32) bool {
		for _, e := range g.nodes[n].evals {
			if e > g.budget {
				return true
			}
		}
		return false
	}
	if !over(i) {
		return i
	}
	for {
		next := int32(-1)
		for _, c := range g.nodes[i].inPlace {
			if over(c) {
				next = c
				break
			}
		}
		if next < 0 {
			return i
		}
		i = next
	}
}

// sortedPatterns returns the keys of a patternProperties map by their
// source text (two keys with one text, which share() makes one, keep their
// order from the map).
func sortedPatterns(m map[*regexp.Regexp]*js.Schema) []*regexp.Regexp {
	keys := slices.Collect(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b *regexp.Regexp) int { return strings.Compare(a.String(), b.String()) })
	return keys
}
