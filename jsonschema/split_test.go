package jsonschema

import (
	"testing"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// compileBothWays compiles schema as one document and split into its
// definitions, which must be possible.
func compileBothWays(t *testing.T, schema string) (whole, split *compiledSchema) {
	t.Helper()
	raw := []byte(schema)
	doc, err := ojson.Parse(raw)
	require.NoError(t, err)
	plan, ok := planSplit(mustDecode(t, schema))
	require.True(t, ok, "the split applies to %s", schema)
	return compileWhole(raw, doc, DefaultMaxEvaluations), compileSplit(raw, doc, plan, DefaultMaxEvaluations)
}

// assertSameOutcome checks that two compilations of a schema report the
// same error, or validate values alike.
func assertSameOutcome(t *testing.T, whole, split *compiledSchema, values ...string) {
	t.Helper()
	if whole.err != nil || split.err != nil {
		require.Error(t, whole.err)
		require.Error(t, split.err)
		assert.Equal(t, whole.pointer, split.pointer)
		assert.Equal(t, whole.err.Error(), split.err.Error())
		return
	}
	for _, v := range values {
		ew := whole.validate("f", "arguments of tool f", v)
		es := split.validate("f", "arguments of tool f", v)
		if ew == nil || es == nil {
			assert.Equal(t, ew, es, v)
			continue
		}
		assert.Equal(t, ew.Error(), es.Error(), v)
	}
}

// TestSplitSameOutcome compiles schemas with definitions both ways: the
// errors and the violations are the same.
func TestSplitSameOutcome(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		values       []string
	}{
		{"escapes, booleans, references between documents", `{"$defs":{
			"a/b":{"type":"string"},"c~d":{"type":"integer","minimum":3},"F":false,"T":true,
			"obj":{"type":"object","properties":{"x":{"$ref":"#/$defs/c~0d"},"self":{"$ref":"#/$defs/obj"},"up":{"$ref":"#"},"s p":{"$ref":"#/$defs/a~1b"}}}},
			"type":"object","properties":{"s":{"$ref":"#/$defs/a~1b"},"n":{"$ref":"#/$defs/c~0d"},"f":{"$ref":"#/$defs/F"},"t":{"$ref":"#/$defs/T"},
			"o":{"$ref":"#/$defs/obj"},"deep":{"$ref":"#/$defs/obj/properties/x"}}}`,
			[]string{`{"s":"x","n":5,"t":[],"o":{"x":4,"self":{"x":1,"s p":2},"up":{"s":1,"f":0}},"deep":2}`, `{}`, `[]`, `{"o":{"up":{"o":{"up":{"n":"x"}}}}}`}},
		{"definitions and $defs", `{"definitions":{"t":{"type":"number","maximum":60}},"$defs":{"u":{"allOf":[{"$ref":"#/definitions/t"}],"multipleOf":0.5}},
			"properties":{"high":{"$ref":"#/$defs/u"},"low":{"$ref":"#/definitions/t"}},"required":["high"]}`,
			[]string{`{"high":21.5,"low":-3}`, `{"high":99.25,"low":"cold"}`, `{"low":61}`}},
		{"unevaluatedProperties through a reference", `{"$defs":{"base":{"properties":{"a":{"type":"string"}}}},"$ref":"#/$defs/base","properties":{"b":{}},"unevaluatedProperties":false}`,
			[]string{`{"a":"x","b":1}`, `{"a":1,"b":1,"c":2}`}},
		{"formats asserted without $schema", `{"$defs":{"e":{"type":"string","format":"email"}},"properties":{"m":{"$ref":"#/$defs/e"}}}`,
			[]string{`{"m":"a@example.com"}`, `{"m":"nope"}`}},
		{"formats not asserted with $schema 2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"e":{"type":"string","format":"email"}},"properties":{"m":{"$ref":"#/$defs/e"}}}`,
			[]string{`{"m":"a@example.com"}`, `{"m":"nope"}`}},
		{"an invalid definition nothing refers to", `{"$defs":{"bad":{"type":"strnig"},"ok":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/ok"}}}`, nil},
		{"an invalid definition and a loop", `{"$defs":{"bad":{"minLength":-1},"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}},"properties":{"x":{"$ref":"#/$defs/A"}}}`, nil},
		{"a loop between definitions", `{"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}},"properties":{"x":{"$ref":"#/$defs/A"}}}`, nil},
		{"a pattern Go refuses", `{"$defs":{"p":{"type":"string","pattern":"(?<=x)y"}},"properties":{"a":{"$ref":"#/$defs/p"}}}`, nil},
		{"a growing cost", `{"$defs":{"n":{"type":"object","properties":{"a":{"allOf":[{"$ref":"#/$defs/n"},{"$ref":"#/$defs/n"}]}}}},"$ref":"#/$defs/n"}`, nil},
		{"a depth limit", recursiveTree, []string{nestedKids(22), nestedKids(24), `{"kids":[{"name":1}]}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			whole, split := compileBothWays(t, tc.schema)
			assertSameOutcome(t, whole, split, tc.values...)
			if split.err == nil {
				assert.Greater(t, len(split.docs.prefixes), 1)
				assert.Equal(t, whole.maxDepth, split.maxDepth)
				assert.Equal(t, whole.depthAt, split.depthAt)
			}
		})
	}
	// The loop is found in the definition's document, and reported where
	// the caller's schema has it.
	_, split := compileBothWays(t, `{"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}},"properties":{"x":{"$ref":"#/$defs/A"}}}`)
	assert.Equal(t, "/properties/x/$ref", split.pointer)
}

// TestSplitApplies lists what keeps a schema whole.
func TestSplitApplies(t *testing.T) {
	for schema, want := range map[string]bool{
		`{"$defs":{"a":{}},"$ref":"#/$defs/a"}`:                                        true,
		`{"definitions":{"a":{}},"items":{"$ref":"#/definitions/a"}}`:                  true,
		`{"$schema":"https://json-schema.org/draft/2020-12/schema#","$defs":{"a":{}}}`: true,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{}}}`: false,
		`{"type":"object"}`: false, // nothing to split
		`true`:              false,
		`{"$defs":[]}`:      false,
		`{"$id":"https://example.com/s","$defs":{"a":{}}}`:                           false,
		`{"$defs":{"a":{"$anchor":"x"}}}`:                                            false,
		`{"$defs":{"a":{"$dynamicAnchor":"x"}}}`:                                     false,
		`{"$defs":{"a":{"$dynamicRef":"#x"}}}`:                                       false,
		`{"$defs":{"a":{"$schema":"https://json-schema.org/draft/2020-12/schema"}}}`: false,
		`{"$defs":{"a":{}},"$ref":"#/%24defs/a"}`:                                    false, // not canonical
		`{"$defs":{"a b":{}},"$ref":"#/$defs/a b"}`:                                  false, // not canonical
		`{"$defs":{"a b":{}},"$ref":"#/$defs/a%20b"}`:                                true,
		`{"$defs":{"a":{}},"$ref":"#/$defs"}`:                                        false, // not a subschema
		`{"$defs":{"a":{"enum":[{}]}},"$ref":"#/$defs/a/enum/0"}`:                    false,
		`{"$defs":{"a":{}},"$ref":"#/$defs/b"}`:                                      false, // does not resolve
		`{"$defs":{"a":{}},"$ref":"other.json#/$defs/a"}`:                            false,
		`{"$defs":{"a":{}},"properties":{"x":{"$ref":7}}}`:                           false,
		`{"$defs":{"a":{}},"x-ext":{"$ref":"#/$defs/a"}}`:                            true, // not a subschema: not compiled, not rewritten
		`{"$defs":{"a":{"items":[{"$ref":"#/$defs/a/items/0"}]}}}`:                   true,
	} {
		_, ok := planSplit(mustDecode(t, schema))
		assert.Equal(t, want, ok, schema)
	}
	for schema, want := range map[string]bool{
		"https://json-schema.org/draft/2020-12/schema":   true,
		"http://json-schema.org/draft/2020-12/schema#":   true,
		"https://json-schema.org/draft/2020-12/schema#/": true,
		"https://json-schema.org/schema":                 true,
		"https://json-schema.org/draft/2020-12/schema/":  false,
		"https://json-schema.org/draft/2020-12/schema#x": false,
		"https://json-schema.org/draft/2019-09/schema":   false,
		"http://json-schema.org/draft-07/schema#":        false,
	} {
		assert.Equal(t, want, isDraft2020(schema), schema)
	}
}
