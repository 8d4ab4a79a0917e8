package jsonschema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemanorm"
	"github.com/go-harmony/harmony/internal/testsupport/pointers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// acceptedNames returns the names among names whose JSON string the
// validator accepts against schema, or the schema's error.
func acceptedNames(t *testing.T, v *Validator, schema []byte, names []string) ([]string, error) {
	t.Helper()
	tool := harmony.NewToolDescription("f", "", json.RawMessage(schema))
	var accepted []string
	for _, name := range names {
		text, err := json.Marshal(name)
		require.NoError(t, err)
		err = v.ValidateToolArguments(tool, string(text))
		var ve *ValidationError
		switch {
		case err == nil:
			accepted = append(accepted, name)
		case !errors.As(err, &ve):
			return nil, err
		}
	}
	return accepted, nil
}

// TestPointerTableAgreesWithConstrain compiles the schema of each case of
// the table of internal/testsupport/pointers (a root "$ref" to one of the
// definitions, each {"const": its name}) with constrain and with the
// validator: the validator accepts exactly the names the grammar accepts,
// which is the name of the definition the table says; a reference the
// table says names nothing is an invalid schema for both.
func TestPointerTableAgreesWithConstrain(t *testing.T) {
	tab := pointers.Load(t)
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	require.NoError(t, err)
	v := New(nil)
	for _, r := range tab.Refs {
		schema := tab.Schema(t, r.Ref)
		accepted, verr := acceptedNames(t, v, schema, tab.Defs)

		g, cerr := constrain.CompileJSONSchema(enc, schema, nil)
		if r.Names == nil {
			require.ErrorIs(t, cerr, constrain.ErrInvalidSchema, r.Ref)
			var se *harmony.SchemaError
			require.ErrorAs(t, verr, &se, r.Ref)
			assert.ErrorIs(t, verr, harmony.ErrInvalidSchema, r.Ref)
			assert.Equal(t, "/$ref", se.Pointer, r.Ref)
			assert.Contains(t, se.Err.Error(), r.Ref, "the error names the reference as written")
			continue
		}
		require.NoError(t, cerr, r.Ref)
		require.NoError(t, verr, r.Ref)
		var grammar []string
		for _, name := range tab.Defs {
			text, err := json.Marshal(name)
			require.NoError(t, err)
			m := g.NewMatcher()
			if m.AcceptBytes(text) == nil && m.CanEnd() {
				grammar = append(grammar, name)
			}
		}
		assert.Equal(t, grammar, accepted, r.Ref)
		assert.Equal(t, []string{*r.Names}, accepted, r.Ref)
	}
}

// TestCanonicalSchemaUntouched: a schema whose references are all canonical
// goes to the compiler as the bytes the caller gave, and finding that out
// allocates nothing.
func TestCanonicalSchemaUntouched(t *testing.T) {
	schemas := []string{
		orderTool(0), recursiveTree, defsTree(50), weatherSchema, `true`, `{}`,
		`{"$defs":{"a b":{"type":"string"},"/":{},"~":{}},"properties":{"x":{"$ref":"#/$defs/a%20b"},"y":{"$ref":"#/$defs/~1"},"z":{"$ref":"#/$defs/~0"}},"items":{"$ref":"#"}}`,
		`{"$defs":{"a":{"$anchor":"x"}},"$ref":"#x","properties":{"r":{"$ref":"other.json#/a%2Fb"}}}`,
	}
	files, err := filepath.Glob("../testdata/schemas/*.json")
	require.NoError(t, err)
	for _, file := range files {
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		schemas = append(schemas, string(b))
	}
	for _, s := range schemas {
		raw := []byte(s)
		doc, err := ojson.ParseOptions{KeepNumberText: true}.Parse(raw)
		require.NoError(t, err)
		v := schemanorm.Decoded(doc)
		var changed bool
		var refusal *compiledSchema
		allocs := testing.AllocsPerRun(20, func() { changed, refusal = canonicalRefs(doc, v) })
		name := s[:min(len(s), 60)]
		assert.Zero(t, allocs, name)
		assert.False(t, changed, name)
		assert.Nil(t, refusal, name)
		src, err := compilerSource(raw, v, changed)
		require.NoError(t, err)
		assert.Equal(t, unsafe.SliceData(raw), unsafe.SliceData(src), "%s: the caller's bytes themselves", name)
		assert.Equal(t, len(raw), len(src), name)
	}

	// What looks like a reference but is not in a schema position is not
	// one: it is left alone too (found by a walk of the schema positions,
	// which allocates).
	raw := []byte(`{"const":{"$ref":"#/$defs/%7E1"},"default":{"$ref":"#/a b"},"properties":{"a":{"enum":[{"$ref":"#/"}]}}}`)
	doc, err := ojson.Parse(raw)
	require.NoError(t, err)
	v := schemanorm.Decoded(doc)
	changed, refusal := canonicalRefs(doc, v)
	assert.False(t, changed)
	assert.Nil(t, refusal)
	assert.Equal(t, schemanorm.Decoded(doc), v)
}

// TestRefRewrite checks which references are given to the compiler in
// another form, and which form.
func TestRefRewrite(t *testing.T) {
	const defs = `"$defs":{"/":{},"~1":{},"a b":{},"é":{},"x~2":{},"0":{}},"allOf":[{},{}]`
	for ref, want := range map[string]string{
		"#/$defs/%7E1":   "#/$defs/~1",
		"#/$defs/~%31":   "#/$defs/~1",
		"#/$defs/~01":    "", // canonical
		"#/%24defs/a~1b": "#/$defs/a~1b",
		"#/$defs/a b":    "#/$defs/a%20b",
		"#/$defs/é":      "#/$defs/%C3%A9",
		"#/$defs/%c3%a9": "#/$defs/%C3%A9",
		"#/$defs/x~2":    unresolvableRef,
		"#/$defs/~":      unresolvableRef,
		"#/$defs/%7E2":   unresolvableRef,
		"#/allOf/01":     unresolvableRef,
		"#/allOf/+1":     unresolvableRef,
		"#/allOf/-0":     unresolvableRef,
		"#/$defs/0":      "", // a member, not an index
		"#/allOf/1":      "",
		"#/":             unresolvableRef,
		"#/$defs/%zz":    "", // net/url refuses it, and so the compiler
		"#/$defs/a\\b":   "", // the meta-schema refuses it
		"#":              "",
		"#x":             "",
		"#%2F$defs":      "", // an anchor for the compiler, and for constrain
	} {
		quoted := string(mustMarshal(t, ref))
		doc, err := ojson.Parse([]byte(`{` + defs + `,"properties":{"p":{"$dynamicRef":` + quoted + `}},"$ref":` + quoted + `}`))
		require.NoError(t, err, ref)
		v := schemanorm.Decoded(doc)
		changed, refusal := canonicalRefs(doc, v)
		require.Nil(t, refusal, ref)
		assert.Equal(t, want != "", changed, ref)
		if want == "" {
			want = ref
		}
		m := v.(map[string]any)
		assert.Equal(t, want, m["$ref"], ref)
		assert.Equal(t, want, m["properties"].(map[string]any)["p"].(map[string]any)["$dynamicRef"], ref)
	}

	// Below an "$id", a reference may start elsewhere than at the root:
	// "#/" and "01" are only given in canonical form there.
	doc, err := ojson.Parse([]byte(`{"$defs":{"a":{"$id":"a.json","allOf":[{}],"$ref":"#/allOf/00","properties":{"p":{"$ref":"#/"}}}}}`))
	require.NoError(t, err)
	v := schemanorm.Decoded(doc)
	changed, refusal := canonicalRefs(doc, v)
	assert.Nil(t, refusal)
	assert.False(t, changed)

	// Draft 4's meta-schema says nothing of "$ref": a backslash is no
	// reason to leave a reference as it is there.
	doc, err = ojson.Parse([]byte(`{"$schema":"http://json-schema.org/draft-04/schema#","definitions":{"/\\":{}},"$ref":"#/definitions/%7E1\\"}`))
	require.NoError(t, err)
	v = schemanorm.Decoded(doc)
	changed, refusal = canonicalRefs(doc, v)
	assert.Nil(t, refusal)
	assert.True(t, changed)
	assert.Equal(t, "#/definitions/~1%5C", v.(map[string]any)["$ref"])
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// resolvesIn reports whether the JSON pointer ptr names a value of schema.
func resolvesIn(t *testing.T, schema, ptr string) bool {
	t.Helper()
	doc, err := ojson.Parse([]byte(schema))
	require.NoError(t, err)
	_, ok := schemanorm.Resolve(doc, ptr)
	return ok
}

// TestRewrittenRefErrors: the errors of a schema whose references were
// rewritten name locations of the schema as the caller wrote it, and the
// references as written.
func TestRewrittenRefErrors(t *testing.T) {
	v := New(nil)
	check := func(schema, args, pointer, msg string) {
		t.Helper()
		err := v.ValidateToolArguments(harmony.NewToolDescription("f", "", json.RawMessage(schema)), args)
		var se *harmony.SchemaError
		require.ErrorAs(t, err, &se, schema)
		assert.Equal(t, pointer, se.Pointer, schema)
		assert.True(t, resolvesIn(t, schema, pointer), "%s: %s names nothing", schema, pointer)
		assert.EqualError(t, se.Err, msg, schema)
		assert.NotContains(t, err.Error(), unresolvableRef)
	}

	// The analysis refuses a definition reached by a reference that was
	// rewritten: it names the definition, "d/12", by its pointer.
	chain := strings.ReplaceAll(allOfChain(24), `"d`, `"d/`)
	chain = strings.ReplaceAll(chain, `#/$defs/d`, `#/$defs/d%7E1`)
	check(chain, `"x"`, "/$defs/d~112",
		"schema too complex to validate: validating one value could take more than 10000 subschema evaluations")

	// So does the depth at which the cost outgrows the budget.
	tree := strings.NewReplacer(`"A"`, `"A b"`, `/A"`, `/A b"`, `"B"`, `"B~"`, `/B"`, `/B%7E0"`).Replace(recursiveTree)
	c := v.compile([]byte(tree))
	require.NoError(t, c.err)
	assert.Equal(t, 23, c.maxDepth)
	assert.Equal(t, "/$defs/A b/properties/kids/items", c.depthAt)
	assert.True(t, resolvesIn(t, tree, c.depthAt))
	check(tree, nestedKids(24), "/$defs/A b/properties/kids/items",
		"schema too complex to validate: validating a value nested more than 23 levels deep could take more than 10000 subschema evaluations at one location; this one is nested deeper")

	// A loop through rewritten references.
	check(`{"$defs":{"/":{"$ref":"#/$defs/%7E1"}},"properties":{"x":{"$ref":"#/$defs/%7E1"}}}`, `{}`,
		"/properties/x/$ref", "$ref loop that never reaches a keyword")

	// References that RFC 6901 says name nothing, and the compiler would
	// have followed.
	check(`{"$defs":{"x~2":{}},"properties":{"a":{"$ref":"#/$defs/x~2"}}}`, `{}`,
		"/properties/a/$ref", `$ref "#/$defs/x~2" does not resolve`)
	check(`{"allOf":[{},{"type":"string"}],"properties":{"a":{"$ref":"#/allOf/01"}}}`, `{}`,
		"/properties/a/$ref", `$ref "#/allOf/01" does not resolve`)
	check(`{"properties":{"a":{"$ref":"#/"}}}`, `{}`,
		"/properties/a/$ref", `$ref "#/" does not resolve`)
	// and one the compiler cannot be made to follow.
	check(`{"":{"type":"string"},"properties":{"a":{"$ref":"#/"}}}`, `{}`,
		"/properties/a/$ref", `$ref "#/" names the member "" of the root, which the validator cannot tell from the root itself`)

	// A violation below a rewritten reference is located as usual.
	tool := harmony.NewToolDescription("f", "", json.RawMessage(`{"$defs":{"a b":{"type":"string"}},"properties":{"p":{"$ref":"#/$defs/a b"}}}`))
	var ve *ValidationError
	require.ErrorAs(t, v.ValidateToolArguments(tool, `{"p":1}`), &ve)
	assert.Equal(t, []Violation{{"/p", "/properties/p/$ref/type", "expected string, but got number"}}, ve.Violations)
}

// TestRewrittenRefsSplit: rewritten references let a schema of many
// definitions be split as its canonical twin is, and its violations are
// mapped back to the caller's schema.
func TestRewrittenRefsSplit(t *testing.T) {
	v := New(nil)
	schema := strings.ReplaceAll(defsTree(1000), `"#/$defs/d`, `"#/%24defs/d`)
	c := v.compile([]byte(schema))
	require.NoError(t, c.err)
	assert.Len(t, c.docs.prefixes, 1001, "the root and one document per definition")
	tool := harmony.NewToolDescription("tree", "", json.RawMessage(schema))
	var ve *ValidationError
	require.ErrorAs(t, v.ValidateToolArguments(tool, `{"l":{"r":{"l":{"x":1}}},"r":{"l":7}}`), &ve)
	assert.Equal(t, []Violation{
		{"/l/r/l", "/$ref/properties/l/$ref/properties/r/$ref/properties/l/$ref/additionalProperties", "additionalProperties 'x' not allowed"},
		{"/r/l", "/$ref/properties/r/$ref/properties/l/$ref/type", "expected object, but got number"},
	}, ve.Violations)
}

// FuzzRefAgreement compiles a schema whose root refers, by any reference,
// into definitions of any names, each {"const": its name}: when the
// validator accepts the schema, the reference names for RFC 6901 (as
// schemanorm and constrain read it) a value of the schema, and when that is
// a definition the validator accepts its name and nothing else; when the
// reference names nothing, the schema is refused.
func FuzzRefAgreement(f *testing.F) {
	for _, r := range pointers.Load(f).Refs {
		f.Add("~1", "/", r.Ref)
	}
	f.Add("a b", "é", "#/$defs/a b")
	f.Add("01", "1", "#/$defs/01")
	f.Add("x", "", "#/")
	v := New(&Options{CacheBytes: 4 << 20})
	f.Fuzz(func(t *testing.T, name1, name2, ref string) {
		defs := map[string]any{name1: map[string]any{"const": name1}, name2: map[string]any{"const": name2}}
		schema, err := json.Marshal(map[string]any{"$defs": defs, "$ref": ref, "allOf": []any{true, map[string]any{"$ref": ref}}})
		require.NoError(t, err)
		root, err := schemanorm.Decode(schema)
		require.NoError(t, err)
		var target any
		resolves := false
		if p, err := schemanorm.ParseFragment(ref); err == nil && strings.HasPrefix(ref, "#/") {
			target, resolves = schemanorm.ResolveDecoded(root, p)
		}
		// The names as the schema holds them (invalid UTF-8 replaced), and
		// a longer one.
		var names []string
		other := "!"
		for n := range root.(map[string]any)["$defs"].(map[string]any) {
			names = append(names, n)
			other += n
		}
		accepted, verr := acceptedNames(t, v, schema, append(names, other))
		if verr != nil {
			var se *harmony.SchemaError
			require.ErrorAs(t, verr, &se)
			return
		}
		require.True(t, resolves || ref == "#" || !strings.HasPrefix(ref, "#"), "%q resolves nowhere, yet the schema is accepted", ref)
		if def, ok := target.(map[string]any); ok {
			if name, ok := def["const"].(string); ok && len(def) == 1 {
				assert.Equal(t, []string{name}, accepted, "%q", ref)
			}
		}
	})
}
