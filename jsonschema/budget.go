package jsonschema

// This file bounds what validating one value against a compiled schema can
// cost, before any value is validated. The rule, as the package
// documentation states it: the number of subschema evaluations at one
// location of a value is bounded by the budget for every value nested up to
// minNesting levels, else the schema is refused; where deeper values would
// pass the budget, or the validator's scope would pass maxScope, values are
// refused when validated.
//
// The analysis runs on the graph jsonschema/v5 compiled, so that its nodes
// and edges are exactly the *Schema values and references the validator
// follows: references are already resolved, "$id"s and anchors included.
// An in-place edge applies a subschema to the same value ($ref,
// $dynamicRef, $recursiveRef, allOf, anyOf, oneOf, not, if, then, else,
// dependentSchemas, schema-valued dependencies); a descending edge applies
// one to a member, an element, a property name or the decoded content of
// the value (properties, patternProperties, additionalProperties,
// unevaluatedProperties, propertyNames, items, prefixItems,
// additionalItems, contains, unevaluatedItems, contentSchema).
//
// The validator follows every in-place edge of a subschema it evaluates
// (anyOf does not stop at the first match), except when the subschema's
// "type" rejects the value, which ends its evaluation at once. So the
// evaluations at a location holding a value of JSON type t are the paths of
// in-place edges from the subschemas applied there that only go through
// subschemas accepting t: evals_t(n) = 1, plus the sum of evals_t over n's
// in-place edges when n accepts t; memoized, saturating above the budget.
// The cost of a location is the largest over t.
//
// A location is described by the multiset of subschemas its parent's
// descending edges apply to it (its "state"). The states of the members and
// elements of a location follow from the closure of its state over in-place
// edges, for objects and arrays respectively, and from the member name or
// element index, of which only the names some subschema lists, one other
// name, the indexes below the longest prefixItems and one other index are
// told apart. States are explored breadth first, each at the shallowest
// depth it occurs: a state whose subschemas were met before with as many
// evaluations each or more is not explored again; one with more is merged
// with them (the largest multiplicity of each) and explored again. The
// first depth holding a state over the budget limits the nesting of the
// values the schema accepts (or, below minNesting, refuses the schema).
//
// The scope of the validator grows at each level by the longest chain of
// in-place edges there, plus one; meeting a state again deeper with a
// longer scope measures how fast recursion makes it grow. The nesting of
// values is limited so that the scope stays within maxScope, assuming
// recursion at that rate from every location explored.
//
// Over-approximations, which only ever refuse more: an "other" member name
// matches every patternProperties and gets additionalProperties too,
// unevaluatedProperties and unevaluatedItems apply to every member and
// element, a dynamic reference may resolve to any subschema with its
// dynamic anchor, and conditional keywords (then, else, dependentSchemas,
// dependencies, the tail of a oneOf) are assumed to run.

import (
	"encoding/binary"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
	js "github.com/santhosh-tekuri/jsonschema/v5"
)

const (
	// maxInPlaceDepth bounds the longest chain of in-place edges. The
	// validator's work per evaluation and the length of the locations in
	// its errors grow with this depth: a 10,000-long chain of "$ref"s,
	// within the evaluation budget, would still build hundreds of
	// megabytes of error text. The longest in JSONSchemaBench is 11.
	maxInPlaceDepth = 64
	// maxScope bounds the validator's scope: the subschemas it evaluates
	// one inside the other, in place or on members and elements, from the
	// root of the value. The validator builds the location of each error
	// by appending the scope's entries to a string one by one, in time
	// quadratic in its length, so that a value nested 120 levels deep in
	// an ordinary recursive schema can take seconds. Values nested deeper
	// than the scope allows are refused when validated.
	maxScope = 128
	// maxValueDepth is the deepest location of a value the validator is
	// given: values are parsed by internal/ojson, which refuses deeper
	// nesting.
	maxValueDepth = ojson.DefaultMaxDepth
	// minNesting is the nesting up to which every value must be within the
	// budget at every location for a schema to be accepted. A schema whose
	// cost per location grows with nesting (mutually recursive types under
	// an anyOf, say) and passes the budget only deeper is accepted, and
	// values nested deeper than it allows are refused when validated.
	minNesting = 16
	// analysisWorkPerNode, analysisWorkPerBudget and maxAnalysisWork
	// bound the work of the analysis itself to analysisWorkPerNode × the
	// number of subschemas + analysisWorkPerBudget × the budget steps, and
	// maxAnalysisWork whatever the budget. A schema that needs more is
	// refused.
	analysisWorkPerNode   = 128
	analysisWorkPerBudget = 64
	maxAnalysisWork       = 1 << 23
	// analysisMatches bounds the matching of member names against
	// patternProperties, in matches of 16 bytes; past it, every pattern is
	// assumed to match.
	analysisMatches = 50_000
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

// refusal is the outcome of an analysis that refuses the schema.
type refusal struct {
	pointer string
	err     error
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

// analyzeGraph checks the compiled schema root against the budget. extra
// lists compiled subschemas the validator may reach that no exported field
// leads to (the targets of dynamic references). The result holds the
// refusal, if any, else the depth of the shallowest location of a value
// whose cost may pass a bound (-1 for none) and the subschema at fault
// there.
func analyzeGraph(root *js.Schema, extra []*js.Schema, budget int64, docs docMap) *graph {
	g := &graph{index: map[*js.Schema]int32{}, budget: budget, docs: docs, overDepth: -1}
	g.collect(append([]*js.Schema{root}, extra...))
	g.build()
	g.workLimit = min(analysisWorkPerNode*int64(len(g.nodes))+analysisWorkPerBudget*budget, maxAnalysisWork)
	g.work = g.workLimit
	g.matches = analysisMatches
	g.stamp = make([]uint32, len(g.nodes))
	g.mult = make([]int64, len(g.nodes))
	for i := range g.nodes {
		if g.nodes[i].mark == 0 {
			g.start, g.path = int32(i), g.path[:0]
			g.evalsOf(int32(i))
			if g.refuse != nil {
				return g
			}
		}
	}
	e := &explorer{g: g, seen: map[string]state{}}
	e.run()
	return g
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
			push("dependentSchemas/"+escapeToken(k), s.DependentSchemas[k])
		}
		for _, k := range sortedKeys(s.Dependencies) {
			if c, ok := s.Dependencies[k].(*js.Schema); ok {
				push("dependencies/"+escapeToken(k), c)
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
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
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

func addSat(a, b, budget int64) int64 {
	if s := a + b; s <= budget {
		return s
	}
	return budget + 1
}

func mulSat(a, b, budget int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > budget || b > budget {
		return budget + 1
	}
	if p := a * b; p <= budget {
		return p
	}
	return budget + 1
}

// sortedPatterns returns the keys of a patternProperties map by their
// source text (two keys with one text, which share() makes one, keep their
// order from the map).
func sortedPatterns(m map[*regexp.Regexp]*js.Schema) []*regexp.Regexp {
	keys := slices.Collect(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b *regexp.Regexp) int { return strings.Compare(a.String(), b.String()) })
	return keys
}
