package jsonschema

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	js "github.com/santhosh-tekuri/jsonschema/v5"
)

// The tests bound the work of a call by counting it, never by timing it
// (the real costs are in the benchmarks): the subschemas the analysis
// covers and the steps it spends (compiledSchema.analyzed and
// analysisSteps), and the subschemas the validator evaluates (evalCounter).
// Anything exponential or quadratic in the schema or the value passes these
// bounds by far.

// analysisBound is the most steps the analysis may spend on a schema of
// size bytes that compiles to n subschemas: its limit, plus what the
// expansion of the location that passes it charges before the analysis
// stops. That is a few steps per subschema and per edge between them (the
// closures of the location, one member name), bounded here by 4 steps per
// byte of the schema; an analysis that went on past its limit would pass
// that by far (the 3,000 names and 600 patterns, by over 2 million steps).
func analysisBound(n, size int, budget int64) int64 {
	return min(analysisWorkPerNode*int64(n)+analysisWorkPerBudget*budget, maxAnalysisWork) + 4*int64(size)
}

// checkCompileWork checks the work compiling raw took, from its outcome c:
// nothing compiled or analyzed when the schema was refused before (compiled
// false), else at most maxSubschemas subschemas and analysisBound steps.
func checkCompileWork(t *testing.T, c *compiledSchema, raw []byte, budget int64, compiled bool, msgAndArgs ...any) {
	t.Helper()
	if !compiled {
		assert.Zero(t, c.analyzed, msgAndArgs...)
		assert.Zero(t, c.analysisSteps, msgAndArgs...)
		return
	}
	assert.Positive(t, c.analyzed, msgAndArgs...)
	assert.LessOrEqual(t, c.analyzed, maxSubschemas, msgAndArgs...)
	assert.LessOrEqual(t, c.analysisSteps, analysisBound(c.analyzed, len(raw), budget), msgAndArgs...)
}

// evalCounter counts the validator's evaluations of subschemas. Attached
// as an extension to every subschema of a compiled schema, it is called by
// jsonschema/v5 on each evaluation that gets past the subschema's "type"
// (a boolean subschema, or a "type" the value fails, ends its evaluation
// first), so that it counts at most the evaluations the budget bounds.
type evalCounter struct{ n int64 }

func (c *evalCounter) Validate(js.ValidationContext, any) error {
	c.n++
	return nil
}

// countEvaluations attaches a new evalCounter to every subschema of c,
// replacing any attached before, and returns it.
func countEvaluations(c *compiledSchema) *evalCounter {
	g := &graph{index: map[*js.Schema]int32{}}
	g.collect([]*js.Schema{c.schema})
	ec := &evalCounter{}
	for _, n := range g.nodes {
		if n.s.Extensions == nil {
			n.s.Extensions = map[string]js.ExtSchema{}
		}
		n.s.Extensions["harmony-test-count"] = ec
	}
	return ec
}

// locations returns the locations of the JSON value text, as the budget
// counts them: the value, and at every depth each member, member name and
// element. A text that is not JSON has none: nothing of it is validated.
func locations(text string) int64 {
	v, err := decodeInstance(text)
	if err != nil {
		return 0
	}
	var count func(any) int64
	count = func(v any) int64 {
		n := int64(1)
		switch x := v.(type) {
		case map[string]any:
			for _, m := range x {
				n += 1 + count(m)
			}
		case []any:
			for _, e := range x {
				n += count(e)
			}
		}
		return n
	}
	return count(v)
}

// validateCounted validates arguments against tool's schema with v, as
// ValidateToolArguments does, and returns the evaluations of subschemas the
// validator made and the error. The schema must compile.
func validateCounted(t *testing.T, v *Validator, tool harmony.ToolDescription, arguments string) (int64, error) {
	t.Helper()
	c := v.compile(tool.Parameters)
	require.NoError(t, c.err)
	require.Same(t, c, v.compile(tool.Parameters), "the compiled schema is cached")
	ec := countEvaluations(c)
	err := v.ValidateToolArguments(tool, arguments)
	return ec.n, err
}

// checkEvaluations checks the package's promise on a call that validated
// arguments: at most the budget's evaluations per location of the value.
func checkEvaluations(t *testing.T, v *Validator, evals int64, arguments string, msgAndArgs ...any) {
	t.Helper()
	assert.LessOrEqual(t, evals, v.budget*locations(arguments), msgAndArgs...)
}

// allOfChain is the 1.5 KB schema: definitions d0..dn, each an
// allOf of two references to the next, which costs 2^n evaluations.
func allOfChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"d%d":{"allOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]},`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	return b.String()
}

// manyDefs returns a schema of n definitions, each referenced by one
// property of the root.
func manyDefs(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","$defs":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"d%d":{"type":"string","maxLength":%d}`, i, i+1)
	}
	b.WriteString(`},"properties":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{"$ref":"#/$defs/d%d"}`, i, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// defsTree returns a schema of n definitions, each an object whose members
// "l" and "r" are the definitions 2i+1 and 2i+2 (a string past the end): a
// binary tree of references, every definition referenced once.
func defsTree(n int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		ref := func(j int) string {
			if j < n {
				return fmt.Sprintf(`{"$ref":"#/$defs/d%d"}`, j)
			}
			return `{"type":"string"}`
		}
		fmt.Fprintf(&b, `"d%d":{"type":"object","properties":{"l":%s,"r":%s},"additionalProperties":false}`, i, ref(2*i+1), ref(2*i+2))
	}
	b.WriteString(`}}`)
	return b.String()
}

// flatProperties returns a schema of n empty properties.
func flatProperties(n int, schema string) string {
	var b strings.Builder
	b.WriteString(`{`)
	if schema != "" {
		fmt.Fprintf(&b, `"$schema":%q,`, schema)
	}
	b.WriteString(`"type":"object","properties":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d":{}`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// refChain returns definitions d0..dn, each a reference to the next.
func refChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `"d%d":{"$ref":"#/$defs/d%d"},`, i, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"string"}}}`, n)
	return b.String()
}

// recursiveTree is a tree of two mutually recursive kinds of node under an
// anyOf: every level validates the next through both branches, so the cost
// of a location doubles every two levels.
const recursiveTree = `{"$ref":"#/$defs/A","$defs":{
	"A":{"type":"object","properties":{"name":{"type":"string"},"kids":{"type":"array","items":{"anyOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}]}}}},
	"B":{"type":"object","properties":{"kids":{"type":"array","items":{"anyOf":[{"$ref":"#/$defs/A"},{"$ref":"#/$defs/B"}]}}},"required":["kids"]}}}`

// nestedKids returns a recursiveTree value nested depth levels deep.
func nestedKids(depth int) string {
	s := `{}`
	for d := 0; d < depth; d += 2 {
		s = `{"kids":[` + s + `]}`
	}
	return s
}

// namesAndPatterns returns a schema of many properties and many
// patternProperties: the states of its members are large, and the analysis
// runs out of its own budget.
func namesAndPatterns(names, patterns int) string {
	var b strings.Builder
	b.WriteString(`{"$schema":"http://json-schema.org/draft-07/schema#","properties":{`)
	for i := 0; i < names; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"name%d":{}`, i)
	}
	b.WriteString(`},"patternProperties":{`)
	for i := 0; i < patterns; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"^n.*%d$":{}`, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

// manyPatterns returns a schema of n properties, each with its own pattern
// of a thousand letters or digits.
func manyPatterns(n int) string {
	var b strings.Builder
	b.WriteString(`{"properties":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%03d":{"type":"string","pattern":"^[\\p{L}\\p{N}]{1000}%d$"}`, i, i)
	}
	b.WriteString(`}}`)
	return b.String()
}

type hostile struct {
	name, schema string
	pointer, msg string // of the refusal
	compiled     bool   // refused by the analysis of the compiled schema, not before compiling
}

func hostileSchemas() []hostile {
	return []hostile{
		{"allOf chain", allOfChain(24), "/$defs/d12",
			"schema too complex to validate: validating one value could take more than 10000 subschema evaluations", true},
		{"10,000 $defs", manyDefs(10000), "",
			"schema too complex to validate: more than 20000 subschemas", false},
		{"one document of 2,500 subschemas", flatProperties(2500, ""), "",
			"schema too complex to validate: compiling it would take about 6255001 steps, more than 4000000", false},
		{"doubling with depth", `{"properties":{"a":{"allOf":[{"$ref":"#"},{"$ref":"#"}]}}}`, "/properties/a",
			"schema too complex to validate: validating one value could take more than 10000 subschema evaluations at one location 12 levels deep in it", true},
		{"300 nested references", refChain(300), "/$defs/d235",
			"schema too complex to validate: more than 64 nested in-place applicators ($ref, allOf, anyOf, oneOf, not, if, ...)", true},
		{"anyOf over anyOf", `{"$defs":{"x":{"anyOf":[{"$ref":"#/$defs/y"},{"$ref":"#/$defs/y"},{"$ref":"#/$defs/y"}]},"y":{"anyOf":[{"$ref":"#/$defs/z"},{"$ref":"#/$defs/z"},{"$ref":"#/$defs/z"}]},"z":{"oneOf":[{"$ref":"#/$defs/w"},{"$ref":"#/$defs/w"},{"$ref":"#/$defs/w"}]},"w":{"not":{"$ref":"#/$defs/v"},"if":{"$ref":"#/$defs/v"},"then":{"$ref":"#/$defs/v"},"else":{"$ref":"#/$defs/v"}},"v":{"allOf":[{"$ref":"#/$defs/u"},{"$ref":"#/$defs/u"},{"$ref":"#/$defs/u"},{"$ref":"#/$defs/u"},{"$ref":"#/$defs/u"},{"$ref":"#/$defs/u"},{"$ref":"#/$defs/u"},{"$ref":"#/$defs/u"}]},"u":{"dependentSchemas":{"a":{"$ref":"#/$defs/t"},"b":{"$ref":"#/$defs/t"}}},"t":{"anyOf":[{},{},{},{},{},{},{},{}]}},"properties":{"p":{"$ref":"#/$defs/x"}}}`,
			"/$defs/x", "schema too complex to validate: validating one value could take more than 10000 subschema evaluations at one location 1 level deep in it", true},
		{"1,000 patterns of 1,000 letters", manyPatterns(1000), "/properties/p049/pattern",
			"schema too complex to validate: its regular expressions would compile to more than 100000 instructions", false},
		{"3,000 properties and 600 patterns", namesAndPatterns(3000, 600), "",
			"schema too complex to validate: its cost could not be bounded within the analysis budget", true},
	}
}

// TestHostileSchemas feeds the schemas of the issue and their relatives:
// each call is refused, deterministically, naming the subschema at fault,
// before the validator evaluates anything, after compiling and analyzing
// within the bounds or before compiling at all.
func TestHostileSchemas(t *testing.T) {
	v := New(nil)
	for _, tc := range hostileSchemas() {
		t.Run(tc.name, func(t *testing.T) {
			tool := harmony.NewToolDescription("f", "", json.RawMessage(tc.schema))
			for _, call := range []func() error{
				func() error { return v.ValidateToolArguments(tool, `{"a":{"a":{}},"p":"x"}`) },
				func() error { return v.CheckDeveloperContent(harmony.NewDeveloperContent().WithFunctionTools(tool)) },
				func() error {
					return New(&Options{CacheBytes: -1}).ValidateResponse(harmony.ResponseFormat{Name: "f", Schema: tool.Parameters}, `"x"`)
				},
			} {
				err := call()
				var se *harmony.SchemaError
				require.ErrorAs(t, err, &se)
				assert.ErrorIs(t, err, ErrSchemaTooComplex)
				assert.ErrorIs(t, err, harmony.ErrInvalidSchema)
				assert.Equal(t, tc.pointer, se.Pointer)
				assert.EqualError(t, se.Err, tc.msg)
			}
			// The outcome the calls had (cached; a refusal holds no
			// compiled schema, so nothing was validated).
			c := v.compile(tool.Parameters)
			require.Error(t, c.err)
			assert.Nil(t, c.schema)
			checkCompileWork(t, c, tool.Parameters, v.budget, tc.compiled)
		})
	}
}

// TestManyDefinitionsLinear compiles thousands of definitions, each
// referenced once, given to the compiler as documents of their own.
func TestManyDefinitionsLinear(t *testing.T) {
	v := New(&Options{CacheBytes: 1 << 30})
	schema := defsTree(1000)
	c := v.compile([]byte(schema))
	require.NoError(t, c.err)
	assert.Len(t, c.docs.prefixes, 1001, "the root and one document per definition")
	checkCompileWork(t, c, []byte(schema), v.budget, true)
	tool := harmony.NewToolDescription("tree", "", json.RawMessage(schema))
	const value = `{"l":{"l":{},"r":{"l":{}}},"r":{}}`
	evals, err := validateCounted(t, v, tool, value)
	assert.NoError(t, err)
	// The value's 6 objects, two subschemas each: the root and d0, then
	// for each member its reference and the definition it leads to.
	assert.Equal(t, int64(6*2), evals)
	err = v.ValidateToolArguments(tool, `{"l":{"r":{"l":{"x":1}}},"r":{"l":7}}`)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, []Violation{
		{"/l/r/l", "/$ref/properties/l/$ref/properties/r/$ref/properties/l/$ref/additionalProperties", "additionalProperties 'x' not allowed"},
		{"/r/l", "/$ref/properties/r/$ref/properties/l/$ref/type", "expected object, but got number"},
	}, ve.Violations)

	// The same number of definitions in one document would cost more
	// steps than the bound: they are only accepted split.
	whole := []splitDoc{{url: inMemorySchemaID, value: mustDecode(t, schema)}}
	steps, _, total := compileSteps(whole, true)
	assert.Greater(t, steps, int64(maxCompileSteps))
	assert.Equal(t, int64(1000*4+1), total, "an object, two members and additionalProperties per definition")
}

// TestGrowthWithDepth accepts a schema whose cost grows with the nesting of
// the value, up to the depth the budget allows, and refuses deeper values
// when they are validated.
func TestGrowthWithDepth(t *testing.T) {
	v := New(nil)
	c := v.compile([]byte(recursiveTree))
	require.NoError(t, c.err)
	assert.Equal(t, 23, c.maxDepth, "the elements 24 levels deep pass the budget")
	assert.Equal(t, "/$defs/A/properties/kids/items", c.depthAt)

	tool := harmony.NewToolDescription("tree", "", json.RawMessage(recursiveTree))
	assert.NoError(t, v.ValidateToolArguments(tool, `{"name":"root","kids":[{"kids":[]},{"name":"leaf"}]}`))
	var ve *ValidationError
	require.ErrorAs(t, v.ValidateToolArguments(tool, `{"name":7}`), &ve)
	assert.Equal(t, []Violation{{"/name", "/$ref/properties/name/type", "expected string, but got number"}}, ve.Violations)

	checkCompileWork(t, c, []byte(recursiveTree), v.budget, true)
	evals, err := validateCounted(t, v, tool, nestedKids(22))
	assert.NoError(t, err, "as deep as the budget allows")
	checkEvaluations(t, v, evals, nestedKids(22))
	err = v.ValidateToolArguments(tool, nestedKids(24))
	var se *harmony.SchemaError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, ErrSchemaTooComplex)
	assert.Equal(t, "/$defs/A/properties/kids/items", se.Pointer)
	assert.EqualError(t, err, "harmony: schema of tree is invalid at /$defs/A/properties/kids/items: schema too complex to validate: "+
		"validating a value nested more than 23 levels deep could take more than 10000 subschema evaluations at one location; this one is nested deeper")
	// The check of the schema itself passes.
	assert.NoError(t, v.CheckDeveloperContent(harmony.NewDeveloperContent().WithFunctionTools(tool)))

	assert.Equal(t, 0, nesting(json.Number("1"), 5))
	assert.Equal(t, 1, nesting(map[string]any{"a": map[string]any{}}, 5))
	assert.Equal(t, 3, nesting([]any{[]any{[]any{"x"}}}, 5))
	assert.Equal(t, 2, nesting([]any{[]any{[]any{"x"}}}, 1), "stops past the limit")
}

// unionTree returns a recursive discriminated union of k kinds of node, each
// with its own member holding the next node: nothing multiplies, but every
// level of a value goes three subschemas deeper into the validator's scope
// (the member, the union, the kind).
func unionTree(k int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/node","$defs":{"node":{"anyOf":[`)
	for i := 0; i < k; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"object","properties":{"kind":{"const":"k%d"},"c%d":{"$ref":"#/$defs/node"}},"required":["kind"]}`, i, i)
	}
	b.WriteString(`]}}}`)
	return b.String()
}

// nestedUnion returns a unionTree value nested depth levels deep.
func nestedUnion(depth int) string {
	return strings.Repeat(`{"kind":"k0","c0":`, depth) + `{"kind":"k0"}` + strings.Repeat(`}`, depth)
}

// TestScopeLimit bounds the nesting of values in a recursive schema so that
// the validator's scope stays within maxScope: unbounded, a value nested 120
// levels deep in a union of 60 kinds takes over a second, building the
// locations of the errors of the kinds it does not match.
func TestScopeLimit(t *testing.T) {
	v := New(nil)
	schema := unionTree(60)
	c := v.compile([]byte(schema))
	require.NoError(t, c.err)
	assert.Equal(t, 41, c.maxDepth)
	assert.Equal(t, "/$defs/node/anyOf/0/properties/c0", c.depthAt)

	checkCompileWork(t, c, []byte(schema), v.budget, true)
	tool := harmony.NewToolDescription("tree", "", json.RawMessage(schema))
	evals, err := validateCounted(t, v, tool, nestedUnion(40))
	assert.NoError(t, err, "as deep as the scope allows")
	checkEvaluations(t, v, evals, nestedUnion(40))
	err = v.ValidateToolArguments(tool, nestedUnion(41))
	assert.ErrorIs(t, err, ErrSchemaTooComplex)
	assert.EqualError(t, err, "harmony: schema of tree is invalid at /$defs/node/anyOf/0/properties/c0: schema too complex to validate: "+
		"validating a value nested more than 41 levels deep could nest more than 128 subschema evaluations one inside the other; this one is nested deeper")
}

// TestAnalysisPrecision checks the parts of the analysis that keep real
// schemas in: a "type" that rejects the value stops its evaluation,
// patternProperties only apply to the listed names they match, and
// recursion that does not multiply costs nothing more.
func TestAnalysisPrecision(t *testing.T) {
	cost := func(schema string) (int64, int) {
		t.Helper()
		c := compileUncached([]byte(schema), 1<<30)
		require.NoError(t, c.err, schema)
		g := analyzeGraph(c.schema, nil, 1<<30, c.docs)
		require.Nil(t, g.refuse)
		return g.maxCost, g.overDepth
	}
	// A value is a string or an object: never both.
	maxCost, _ := cost(`{"anyOf":[{"type":"string","allOf":[{},{},{},{}]},{"type":"object","allOf":[{},{}]}]}`)
	assert.Equal(t, int64(1+1+4+1), maxCost)
	// "b" matches one pattern, so its location gets that one only.
	maxCost, _ = cost(`{"properties":{"b":{"allOf":[{},{}]}},"patternProperties":{"^a":{"allOf":[{},{},{},{},{},{},{},{}]},"^b":{}},"additionalProperties":{"anyOf":[{},{},{}]}}`)
	assert.Equal(t, int64(9+1+4), maxCost, "an other name: every pattern and additionalProperties")
	maxCost, _ = cost(`{"properties":{"b":{"allOf":[{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}]}},"patternProperties":{"^a":{"allOf":[{},{}]},"^b":{}}}`)
	assert.Equal(t, int64(17+1), maxCost, `"b": its property and the pattern it matches`)
	// A recursive schema whose cost does not grow is only limited by the
	// scope: two more subschemas per level ("next", then "n").
	_, over := cost(`{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"},"v":{"anyOf":[{"type":"string"},{"type":"number"}]}}}},"$ref":"#/$defs/n"}`)
	assert.Equal(t, 64, over)
	_, over = cost(weatherSchema)
	assert.Equal(t, -1, over, "no recursion, no limit")
	// A dynamic reference may reach every subschema with its anchor.
	maxCost, _ = cost(`{"$id":"https://example.com/tree","$dynamicAnchor":"node","type":"object","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}}}}`)
	assert.Equal(t, int64(2), maxCost, "an element: the reference and the tree")
}

// TestRealSchemasAccepted compiles the real schemas of the repository's
// testdata: none is refused; the recursive ones accept values nested 42
// levels deep or more.
func TestRealSchemasAccepted(t *testing.T) {
	files, err := filepath.Glob("../testdata/schemas/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	v := New(nil)
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		c := v.compile(b)
		assert.NoError(t, c.err, file)
		if c.maxDepth != -1 {
			assert.GreaterOrEqual(t, c.maxDepth, 42, file)
			assert.Contains(t, c.depthWhy, "could nest more than 128 subschema evaluations one inside the other", file)
		}
	}
}

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeSchema([]byte(s))
	require.NoError(t, err)
	return v
}
