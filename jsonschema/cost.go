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

// refusal is the outcome of an analysis that refuses the schema.
type refusal struct {
	pointer string
	err     error
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
