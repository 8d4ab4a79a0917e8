package jsonschema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// invalidSchemas pairs broken schemas with the pointer and message of the
// error that names them.
var invalidSchemas = []struct {
	name, schema, pointer, msg string
}{
	{"type typo", `{"type":"object","properties":{"a":{"type":"strnig"}}}`, "/properties/a/type",
		`value must be one of "array", "boolean", "integer", "null", "number", "object", "string"`},
	{"not JSON", `{"type":"object",`, "", "invalid JSON: unexpected end of input at offset 17"},
	{"not a schema", `42`, "", "expected object or boolean, but got number"},
	{"required not an array", `{"type":"object","required":"a"}`, "/required", "expected array, but got string"},
	{"minimum a string (draft 7)", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"n":{"minimum":"1"}}}`, "/properties/n/minimum", "expected number, but got string"},
	{"draft 4 exclusiveMinimum", `{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMinimum":true}`, "", "property 'minimum' is required, if 'exclusiveMinimum' property exists"},
	{"bad pattern", `{"properties":{"a b":{"type":"string","pattern":"(?<=x)y"}}}`, "/properties/a b/pattern", `'(?<=x)y' is not valid 'regex'`},
	{"dangling $ref", `{"properties":{"a":{"$ref":"#/$defs/Missing"}}}`, "/properties/a/$ref", `$ref "#/$defs/Missing" does not resolve`},
	{"$ref loop", `{"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"}},"properties":{"x":{"$ref":"#/$defs/A"}}}`, "/properties/x/$ref", "$ref loop that never reaches a keyword"},
	{"remote $ref", `{"properties":{"a":{"$ref":"https://example.com/a.json#/x"}}}`, "/properties/a/$ref",
		`$ref "https://example.com/a.json#/x" refers to another document, which is never fetched (no network access)`},
	{"relative $ref", `{"items":{"$ref":"item.json"}}`, "/items/$ref", `$ref "item.json" refers to another document, which is never fetched (no network access)`},
	{"unknown $schema", `{"$schema":"https://example.com/my-meta","type":"string"}`, "/$schema",
		`$schema "https://example.com/my-meta" refers to another document, which is never fetched (no network access)`},
	{"$schema not a string", `{"$schema":7}`, "/$schema", "invalid $schema"},
	{"unknown vocabulary", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$vocabulary":{"https://example.com/vocab":true}}`, "/$vocabulary", `unsupported vocab "https://example.com/vocab"`},
}

func TestCheckDeveloperContent(t *testing.T) {
	v := New(nil)
	for _, tc := range invalidSchemas {
		t.Run(tc.name, func(t *testing.T) {
			d := harmony.NewDeveloperContent().WithFunctionTools(harmony.NewToolDescription("ok", "", json.RawMessage(`{"type":"object"}`)),
				harmony.NewToolDescription("bad", "", json.RawMessage(tc.schema)))
			err := v.CheckDeveloperContent(d)
			var se *harmony.SchemaError
			require.ErrorAs(t, err, &se)
			assert.ErrorIs(t, err, harmony.ErrInvalidSchema)
			assert.NotErrorIs(t, err, ErrSchemaTooComplex)
			assert.Equal(t, "functions.bad", se.Tool)
			assert.Equal(t, tc.pointer, se.Pointer)
			assert.EqualError(t, se.Err, tc.msg)
			want := "harmony: schema of functions.bad is invalid"
			if tc.pointer != "" {
				want += " at " + tc.pointer
			}
			assert.EqualError(t, err, want+": "+tc.msg)
		})
	}
}

func TestCheckValid(t *testing.T) {
	v := New(nil)
	for _, schema := range []string{
		`{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`,
		`true`,
		`{}`,
		`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/a"}}}`,
		`{"$schema":"https://json-schema.org/draft/2019-09/schema","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`,
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`,
		`{"$id":"https://example.com/root.json","$defs":{"a":{"$id":"a.json","type":"string"}},"properties":{"a":{"$ref":"a.json"}}}`,
		`{"type":"string","format":"not-a-known-format"}`,
		`{"type":"object","x-vendor-extension":{"anything":[1,2]}}`,
	} {
		d := harmony.NewDeveloperContent().WithFunctionTools(harmony.NewToolDescription("f", "", json.RawMessage(schema)))
		assert.NoError(t, v.CheckDeveloperContent(d), schema)
	}
	// No parameters at all.
	d := harmony.NewDeveloperContent().WithFunctionTools(harmony.NewToolDescription("f", "", nil), harmony.NewToolDescription("g", "", json.RawMessage(" null ")))
	assert.NoError(t, v.CheckDeveloperContent(d), "tools without parameters")
	assert.NoError(t, v.CheckSystemContent(harmony.NewSystemContent().WithTools(harmony.BrowserNamespace()).WithTools(harmony.PythonNamespace())), "built-in tools")
}

func TestCheckAll(t *testing.T) {
	v := New(nil)
	d := harmony.NewDeveloperContent().
		WithTools(harmony.ToolNamespaceConfig{Name: "zeta", Tools: []harmony.ToolDescription{harmony.NewToolDescription("z", "", json.RawMessage(`{"type":"nope"}`))}}).
		WithTools(harmony.ToolNamespaceConfig{Name: "alpha", Tools: []harmony.ToolDescription{
			harmony.NewToolDescription("a1", "", json.RawMessage(`{"type":"object"}`)),
			harmony.NewToolDescription("a2", "", json.RawMessage(`{"properties":{"x":{"minLength":-1}}}`)),
		}}).
		WithResponseFormat(harmony.ResponseFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"enum":7}}}`)}).
		WithResponseFormat(harmony.ResponseFormat{Name: "fine", Schema: json.RawMessage(`{"type":"object"}`)})
	err := v.CheckDeveloperContent(d)
	require.EqualError(t, err, "harmony: schema of alpha.a2 is invalid at /properties/x/minLength: must be >= 0 but found -1\n"+
		"harmony: schema of zeta.z is invalid at /type: value must be one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\"\n"+
		"harmony: schema of response format answer is invalid at /properties/n/enum: expected array, but got number")
	var se *harmony.SchemaError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "alpha.a2", se.Tool)

	sys := harmony.NewSystemContent().WithTools(harmony.ToolNamespaceConfig{Name: "functions", Tools: []harmony.ToolDescription{harmony.NewToolDescription("s", "", json.RawMessage(`{"type":1}`))}})
	err = v.CheckSystemContent(sys)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "harmony: schema of functions.s is invalid at /type: "), err.Error())

	// Parts may be values or pointers; nil pointers are skipped.
	var nilSys *harmony.SystemContent
	var nilDev *harmony.DeveloperContent
	conv := harmony.NewConversation(
		harmony.NewSystemMessage(sys),
		harmony.NewTextMessage(harmony.RoleUser, "hi"),
		harmony.Message{Author: harmony.Author{Role: harmony.RoleDeveloper}, Content: []harmony.Content{&d}},
		harmony.Message{Author: harmony.Author{Role: harmony.RoleSystem}, Content: []harmony.Content{&sys, nilSys}},
		harmony.Message{Author: harmony.Author{Role: harmony.RoleDeveloper}, Content: []harmony.Content{d, nilDev}},
	)
	err = v.CheckConversation(conv)
	require.Error(t, err)
	assert.Equal(t, 8, strings.Count(err.Error(), "harmony: schema of"), err.Error())
	assert.True(t, strings.HasPrefix(err.Error(), "harmony: schema of functions.s"), err.Error())
	assert.NoError(t, v.CheckConversation(harmony.NewConversation(harmony.NewSystemMessage(harmony.NewSystemContent().WithTools(harmony.BrowserNamespace())))))

	// A response format needs a schema: empty is not JSON, null not a schema.
	for schema, want := range map[string]string{
		"":     "harmony: schema of response format r is invalid: invalid JSON: unexpected end of input at offset 0",
		"null": "harmony: schema of response format r is invalid: expected object or boolean, but got null",
	} {
		err := v.CheckDeveloperContent(harmony.NewDeveloperContent().WithResponseFormat(harmony.ResponseFormat{Name: "r", Schema: json.RawMessage(schema)}))
		assert.EqualError(t, err, want, "response format schema %q", schema)
	}
}

// TestNoNetwork shows that references to other documents are never loaded,
// over HTTP or from files, even when they exist.
func TestNoNetwork(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		fmt.Fprint(w, `{"type":"string"}`)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "item.json")
	require.NoError(t, os.WriteFile(file, []byte(`{"type":"string"}`), 0o644))
	v := New(nil)
	for _, tc := range []struct{ schema, pointer string }{
		{`{"properties":{"a":{"$ref":"` + srv.URL + `/item.json"}}}`, "/properties/a/$ref"},
		{`{"$schema":"` + srv.URL + `/meta.json"}`, "/$schema"},
		{`{"items":{"$ref":"file://` + filepath.ToSlash(file) + `"}}`, "/items/$ref"},
		{`{"$id":"` + srv.URL + `/root.json","items":{"$ref":"item.json"}}`, "/items/$ref"},
	} {
		tool := harmony.NewToolDescription("f", "", json.RawMessage(tc.schema))
		err := v.ValidateToolArguments(tool, `["x"]`)
		var se *harmony.SchemaError
		if assert.ErrorAs(t, err, &se, tc.schema) {
			assert.Equal(t, tc.pointer, se.Pointer, tc.schema)
			assert.Contains(t, se.Err.Error(), "never fetched (no network access)", tc.schema)
		}
	}
	assert.Zero(t, hits.Load(), "requests to the server")
}

const weatherSchema = `{
	"type": "object",
	"properties": {
		"location": {"type": "string", "minLength": 1},
		"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
		"days": {"type": "integer", "minimum": 1, "maximum": 16},
		"at": {"type": "array", "items": {"type": "number", "multipleOf": 0.5}}
	},
	"required": ["location"],
	"additionalProperties": false
}`

func TestValidateToolArguments(t *testing.T) {
	v := New(nil)
	tool := harmony.NewToolDescription("get_weather", "", json.RawMessage(weatherSchema))
	for _, tc := range []struct {
		name, args string
		want       []Violation
	}{
		{"valid", `{"location":"Paris","unit":"celsius","days":3,"at":[1.5,2,12345678901234567890.5]}`, nil},
		{"valid with space", " \n{\"location\":\"Oslo\"}\n", nil},
		{"many violations", `{"unit":"kelvin","days":0,"at":[1,2,3,4,5,6,7,8,9,1.25,"x"],"extra":true}`, []Violation{
			{"", "/additionalProperties", "additionalProperties 'extra' not allowed"},
			{"", "/required", "missing properties: 'location'"},
			{"/at/9", "/properties/at/items/multipleOf", "1.25 not multipleOf 0.5"},
			{"/at/10", "/properties/at/items/type", "expected number, but got string"},
			{"/days", "/properties/days/minimum", "must be >= 1 but found 0"},
			{"/unit", "/properties/unit/enum", `value must be one of "celsius", "fahrenheit"`},
		}},
		{"wrong type", `["Paris"]`, []Violation{{"", "/type", "expected object, but got array"}}},
		{"integer", `{"location":"x","days":2.5}`, []Violation{{"/days", "/properties/days/type", "expected integer, but got number"}}},
		{"escaped location", `{"location":"","a/b c":1}`, []Violation{
			{"", "/additionalProperties", "additionalProperties 'a/b c' not allowed"},
			{"/location", "/properties/location/minLength", "length must be >= 1, but got 0"},
		}},
		{"not JSON", `{"location": "Paris"`, []Violation{{"", "", "invalid JSON: unexpected end of input at offset 20"}}},
		{"empty", ``, []Violation{{"", "", "invalid JSON: unexpected end of input at offset 0"}}},
		{"two values", `{"location":"a"} {}`, []Violation{{"", "", "invalid JSON: trailing characters after value at offset 17"}}},
		{"invalid UTF-8", "{\"location\":\"\xff\"}", []Violation{{"", "", "invalid JSON: invalid UTF-8 in string at offset 13"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := v.ValidateToolArguments(tool, tc.args)
			if tc.want == nil {
				require.NoError(t, err)
				return
			}
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.ErrorIs(t, err, ErrSchemaViolation)
			assert.NotErrorIs(t, err, harmony.ErrInvalidSchema)
			assert.Equal(t, "arguments of tool get_weather", ve.Subject)
			assert.Equal(t, tc.want, ve.Violations)
		})
	}

	err := v.ValidateToolArguments(tool, `{"unit":"kelvin","days":0}`)
	assert.EqualError(t, err, `harmony: arguments of tool get_weather: 3 schema violations: (root): missing properties: 'location'; /days: must be >= 1 but found 0; /unit: value must be one of "celsius", "fahrenheit"`)
	err = v.ValidateToolArguments(tool, `{`)
	assert.EqualError(t, err, `harmony: arguments of tool get_weather: 1 schema violation: (root): invalid JSON: unexpected end of input at offset 1`)
	assert.EqualError(t, &ValidationError{Subject: "response for format f"}, "harmony: response for format f: schema violation")
}

func TestSortNames(t *testing.T) {
	for in, want := range map[string]string{
		`additionalProperties 'b', 'a' not allowed`:               `additionalProperties 'a', 'b' not allowed`,
		`additionalProperties 'x\', \'y', 'a\\', 'c' not allowed`: `additionalProperties 'a\\', 'c', 'x\', \'y' not allowed`,
		`additionalProperties 'only' not allowed`:                 `additionalProperties 'only' not allowed`,
		`additionalProperties 'b', 'a not allowed`:                `additionalProperties 'b', 'a not allowed`,
		`missing properties: 'b', 'a'`:                            `missing properties: 'b', 'a'`,
	} {
		assert.Equal(t, want, sortNames(in), in)
	}
}

func TestValidateToolArgumentsNoParameters(t *testing.T) {
	v := New(nil)
	for _, params := range []json.RawMessage{nil, json.RawMessage("null")} {
		tool := harmony.NewToolDescription("now", "", params)
		for _, args := range []string{"", "  ", "{}", `{"anything":[1]}`, `"x"`} {
			assert.NoError(t, v.ValidateToolArguments(tool, args), "%q", args)
		}
		var ve *ValidationError
		if assert.ErrorAs(t, v.ValidateToolArguments(tool, "{"), &ve) {
			assert.Equal(t, "invalid JSON: unexpected end of input at offset 1", ve.Violations[0].Message)
		}
	}
}

func TestValidateToolArgumentsInvalidSchema(t *testing.T) {
	tool := harmony.NewToolDescription("f", "", json.RawMessage(`{"type":"object","properties":{"a":{"type":"strnig"}}}`))
	err := New(nil).ValidateToolArguments(tool, `{"a":"x"}`)
	var se *harmony.SchemaError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "f", se.Tool)
	assert.Equal(t, "/properties/a/type", se.Pointer)
	assert.NotErrorIs(t, err, ErrSchemaViolation)
}

func TestValidateResponse(t *testing.T) {
	v := New(nil)
	format := harmony.ResponseFormat{Name: "weather_report", Schema: json.RawMessage(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"definitions": {"temp": {"type": "number", "minimum": -90, "maximum": 60}},
		"properties": {"high": {"$ref": "#/definitions/temp"}, "low": {"$ref": "#/definitions/temp"}, "summary": {"type": ["string", "null"]}},
		"required": ["high", "low", "summary"]
	}`)}
	require.NoError(t, v.ValidateResponse(format, `{"high":21.5,"low":-3,"summary":null}`))
	err := v.ValidateResponse(format, `{"high":99,"low":"cold"}`)
	var ve *ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "response for format weather_report", ve.Subject)
	assert.Equal(t, []Violation{
		{"", "/required", "missing properties: 'summary'"},
		{"/high", "/properties/high/$ref/maximum", "must be <= 60 but found 99"},
		{"/low", "/properties/low/$ref/type", "expected number, but got string"},
	}, ve.Violations)
	err = v.ValidateResponse(format, "```json\n{\"high\":1,\"low\":0,\"summary\":\"\"}\n```")
	if assert.ErrorAs(t, err, &ve) {
		assert.True(t, strings.HasPrefix(ve.Violations[0].Message, "invalid JSON"), ve.Violations[0].Message)
	}
	bad := harmony.ResponseFormat{Name: "broken", Schema: json.RawMessage(`{"type":"objekt"}`)}
	var se *harmony.SchemaError
	if assert.ErrorAs(t, v.ValidateResponse(bad, `{}`), &se) {
		assert.Equal(t, "response format broken", se.Tool)
		assert.Equal(t, "/type", se.Pointer)
	}
}

// TestCacheConcurrent validates from many goroutines at once (run with
// -race) through one small cache, and checks that it stays bounded.
func TestCacheConcurrent(t *testing.T) {
	v := New(&Options{CacheBytes: 1 << 20})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 400; i++ {
				schema := fmt.Sprintf(`{"type":"object","properties":{"n":{"type":"integer","maximum":%d}},"required":["n"]}`, i%300)
				tool := harmony.NewToolDescription("f", "", json.RawMessage(schema))
				err := v.ValidateToolArguments(tool, fmt.Sprintf(`{"n":%d}`, g))
				var ok bool
				if g > i%300 {
					ok = assert.Error(t, err, "maximum %d, n %d", i%300, g)
				} else {
					ok = assert.NoError(t, err, "maximum %d, n %d", i%300, g)
				}
				if !ok {
					return
				}
			}
		}(g)
	}
	wg.Wait()
	assert.LessOrEqual(t, v.cache.Bytes(), v.cache.Budget())
	assert.Positive(t, v.cache.Len())
}

func TestOptions(t *testing.T) {
	raw := []byte(weatherSchema)

	v := New(nil)
	assert.Equal(t, int64(DefaultCacheBytes), v.cache.Budget())
	assert.Equal(t, int64(DefaultMaxEvaluations), v.budget)
	assert.Same(t, v.compile(raw), v.compile(raw), "a cached schema is compiled once")

	v = New(&Options{CacheBytes: -1, MaxEvaluations: 7})
	assert.Nil(t, v.cache)
	assert.Equal(t, int64(7), v.budget)
	assert.NotSame(t, v.compile(raw), v.compile(raw), "without a cache, every call compiles")
	// Without in-place applicators, every location costs one evaluation.
	assert.NoError(t, v.ValidateToolArguments(harmony.NewToolDescription("f", "", raw), `{"location":"x"}`))
	tight := harmony.NewToolDescription("f", "", json.RawMessage(`{"allOf":[{"type":"object"},{"$ref":"#/$defs/a"}],"$defs":{"a":{"anyOf":[{},{},{},{},{},{}]}}}`))
	err := v.ValidateToolArguments(tight, `{}`)
	require.ErrorIs(t, err, ErrSchemaTooComplex)
	assert.EqualError(t, err, "harmony: schema of f is invalid at /allOf/1: schema too complex to validate: validating one value could take more than 7 subschema evaluations")

	// A cache keeps what fits its budget, evicting the least recently
	// used; an entry over an eighth of the budget is never kept.
	small := New(&Options{CacheBytes: 100})
	small.compile(raw)
	assert.Zero(t, small.cache.Len())
	entry := New(nil).compile(raw).size + int64(len(raw)) + 200
	lru := New(&Options{CacheBytes: 10 * entry})
	variant := func(i int) []byte { return []byte(weatherSchema + strings.Repeat(" ", i)) }
	for i := range 30 {
		lru.compile(variant(i))
		lru.compile(variant(0)) // keep the first one in use
	}
	for i, want := range map[int]bool{0: true, 1: false, 28: true, 29: true} {
		_, ok := lru.cache.GetBytes(variant(i))
		assert.Equal(t, want, ok, "variant %d cached", i)
	}
	assert.LessOrEqual(t, lru.cache.Bytes(), lru.cache.Budget())
	assert.GreaterOrEqual(t, lru.cache.Len(), 8)
}

func BenchmarkValidateToolArguments(b *testing.B) {
	v := New(nil)
	tool := harmony.NewToolDescription("get_weather", "", json.RawMessage(weatherSchema))
	args := `{"location":"Paris","unit":"celsius","days":3,"at":[1.5,2]}`
	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, v.ValidateToolArguments(tool, args))
	}
}

// FuzzValidateToolArguments compiles any schema and validates any arguments
// against it: no panic, and only the documented error types.
func FuzzValidateToolArguments(f *testing.F) {
	f.Add(weatherSchema, `{"location":"x"}`)
	for _, tc := range invalidSchemas {
		f.Add(tc.schema, `{}`)
	}
	for _, tc := range hostileSchemas() {
		if len(tc.schema) < 16<<10 { // the large ones make mutation slow
			f.Add(tc.schema, `{"a":{"a":[1,null,"x"]}}`)
		}
	}
	files, _ := filepath.Glob("../testdata/schemas/*.json")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(string(b), `{"a":[1,null,"x"]}`)
		}
	}
	v := New(&Options{CacheBytes: 4 << 20})
	f.Fuzz(func(t *testing.T, schema, args string) {
		err := v.ValidateToolArguments(harmony.NewToolDescription("f", "", json.RawMessage(schema)), args)
		var se *harmony.SchemaError
		var ve *ValidationError
		switch {
		case err == nil:
		case errors.As(err, &se):
			require.ErrorIs(t, err, harmony.ErrInvalidSchema, "bad schema error")
			require.True(t, strings.HasPrefix(err.Error(), "harmony: "), "bad schema error %v", err)
		case errors.As(err, &ve):
			require.NotEmpty(t, ve.Violations, "bad validation error %v", err)
			require.ErrorIs(t, err, ErrSchemaViolation, "bad validation error")
		default:
			require.Fail(t, "unexpected error", "%T %v", err, err)
		}
	})
}
