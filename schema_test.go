package harmony

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
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

func TestValidateSchemas(t *testing.T) {
	for _, tc := range invalidSchemas {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDeveloperContent().WithFunctionTools(NewToolDescription("ok", "", json.RawMessage(`{"type":"object"}`)),
				NewToolDescription("bad", "", json.RawMessage(tc.schema)))
			err := d.ValidateSchemas()
			var se *SchemaError
			if !errors.As(err, &se) {
				t.Fatalf("ValidateSchemas() = %v, want a *SchemaError", err)
			}
			if !errors.Is(err, ErrInvalidSchema) {
				t.Error("errors.Is(err, ErrInvalidSchema) is false")
			}
			if se.Tool != "functions.bad" || se.Pointer != tc.pointer || se.Err.Error() != tc.msg {
				t.Errorf("got Tool %q Pointer %q Err %q\nwant Tool %q Pointer %q Err %q", se.Tool, se.Pointer, se.Err, "functions.bad", tc.pointer, tc.msg)
			}
			want := "harmony: schema of functions.bad is invalid"
			if tc.pointer != "" {
				want += " at " + tc.pointer
			}
			if want += ": " + tc.msg; err.Error() != want {
				t.Errorf("Error() = %q\nwant      %q", err, want)
			}
		})
	}
}

func TestValidateSchemasValid(t *testing.T) {
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
		d := NewDeveloperContent().WithFunctionTools(NewToolDescription("f", "", json.RawMessage(schema)))
		if err := d.ValidateSchemas(); err != nil {
			t.Errorf("ValidateSchemas(%s) = %v", schema, err)
		}
	}
	// No parameters at all.
	d := NewDeveloperContent().WithFunctionTools(NewToolDescription("f", "", nil), NewToolDescription("g", "", json.RawMessage(" null ")))
	if err := d.ValidateSchemas(); err != nil {
		t.Errorf("tools without parameters: %v", err)
	}
	if err := NewSystemContent().WithBrowserTool().WithPythonTool().ValidateSchemas(); err != nil {
		t.Errorf("built-in tools: %v", err)
	}
}

func TestValidateSchemasAll(t *testing.T) {
	d := NewDeveloperContent().
		WithTools(ToolNamespaceConfig{Name: "zeta", Tools: []ToolDescription{NewToolDescription("z", "", json.RawMessage(`{"type":"nope"}`))}}).
		WithTools(ToolNamespaceConfig{Name: "alpha", Tools: []ToolDescription{
			NewToolDescription("a1", "", json.RawMessage(`{"type":"object"}`)),
			NewToolDescription("a2", "", json.RawMessage(`{"properties":{"x":{"minLength":-1}}}`)),
		}}).
		WithResponseFormat(ResponseFormat{Name: "answer", Schema: json.RawMessage(`{"type":"object","properties":{"n":{"enum":7}}}`)}).
		WithResponseFormat(ResponseFormat{Name: "fine", Schema: json.RawMessage(`{"type":"object"}`)})
	err := d.ValidateSchemas()
	want := "harmony: schema of alpha.a2 is invalid at /properties/x/minLength: must be >= 0 but found -1\n" +
		"harmony: schema of zeta.z is invalid at /type: value must be one of \"array\", \"boolean\", \"integer\", \"null\", \"number\", \"object\", \"string\"\n" +
		"harmony: schema of response format answer is invalid at /properties/n/enum: expected array, but got number"
	if err == nil || err.Error() != want {
		t.Fatalf("ValidateSchemas() =\n%v\nwant\n%s", err, want)
	}
	var se *SchemaError
	if !errors.As(err, &se) || se.Tool != "alpha.a2" {
		t.Errorf("errors.As found %+v", se)
	}

	sys := NewSystemContent().WithTools(ToolNamespaceConfig{Name: "functions", Tools: []ToolDescription{NewToolDescription("s", "", json.RawMessage(`{"type":1}`))}})
	if err := sys.ValidateSchemas(); err == nil || !strings.HasPrefix(err.Error(), "harmony: schema of functions.s is invalid at /type: ") {
		t.Errorf("SystemContent.ValidateSchemas() = %v", err)
	}

	conv := NewConversation(
		NewSystemMessage(sys),
		NewTextMessage(RoleUser, "hi"),
		Message{Author: Author{Role: RoleDeveloper}, Content: []Content{&d}},
	)
	err = ValidateConversationSchemas(conv)
	if err == nil || strings.Count(err.Error(), "harmony: schema of") != 4 || !strings.HasPrefix(err.Error(), "harmony: schema of functions.s") {
		t.Errorf("ValidateConversationSchemas() = %v", err)
	}
	if err := ValidateConversationSchemas(NewConversation(NewSystemMessage(NewSystemContent().WithBrowserTool()))); err != nil {
		t.Errorf("valid conversation: %v", err)
	}

	// A response format needs a schema: empty is not JSON, null not a schema.
	for schema, want := range map[string]string{
		"":     "harmony: schema of response format r is invalid: invalid JSON: unexpected end of input at offset 0",
		"null": "harmony: schema of response format r is invalid: expected object or boolean, but got null",
	} {
		err := NewDeveloperContent().WithResponseFormat(ResponseFormat{Name: "r", Schema: json.RawMessage(schema)}).ValidateSchemas()
		if err == nil || err.Error() != want {
			t.Errorf("response format schema %q: %v", schema, err)
		}
	}
}

// TestValidateSchemasNoNetwork shows that references to other documents are
// never loaded, over HTTP or from files, even when they exist.
func TestValidateSchemasNoNetwork(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/schema+json")
		fmt.Fprint(w, `{"type":"string"}`)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "item.json")
	if err := os.WriteFile(file, []byte(`{"type":"string"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ schema, pointer string }{
		{`{"properties":{"a":{"$ref":"` + srv.URL + `/item.json"}}}`, "/properties/a/$ref"},
		{`{"$schema":"` + srv.URL + `/meta.json"}`, "/$schema"},
		{`{"items":{"$ref":"file://` + filepath.ToSlash(file) + `"}}`, "/items/$ref"},
		{`{"$id":"` + srv.URL + `/root.json","items":{"$ref":"item.json"}}`, "/items/$ref"},
	} {
		tool := NewToolDescription("f", "", json.RawMessage(tc.schema))
		err := ValidateToolArguments(tool, `["x"]`)
		var se *SchemaError
		if !errors.As(err, &se) || se.Pointer != tc.pointer || !strings.Contains(se.Err.Error(), "never fetched (no network access)") {
			t.Errorf("%s: got %v", tc.schema, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server was asked %d times", n)
	}
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
	tool := NewToolDescription("get_weather", "", json.RawMessage(weatherSchema))
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
			err := ValidateToolArguments(tool, tc.args)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("ValidateToolArguments = %v", err)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("ValidateToolArguments = %v, want a *ValidationError", err)
			}
			if !errors.Is(err, ErrSchemaViolation) || errors.Is(err, ErrInvalidSchema) {
				t.Error("wrong sentinel")
			}
			if ve.Subject != "arguments of tool get_weather" {
				t.Errorf("Subject %q", ve.Subject)
			}
			if !reflect.DeepEqual(ve.Violations, tc.want) {
				t.Errorf("violations:\n%q\nwant\n%q", ve.Violations, tc.want)
			}
		})
	}

	err := ValidateToolArguments(tool, `{"unit":"kelvin","days":0}`)
	want := `harmony: arguments of tool get_weather: 3 schema violations: (root): missing properties: 'location'; /days: must be >= 1 but found 0; /unit: value must be one of "celsius", "fahrenheit"`
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %v\nwant      %s", err, want)
	}
	err = ValidateToolArguments(tool, `{`)
	if want := `harmony: arguments of tool get_weather: 1 schema violation: (root): invalid JSON: unexpected end of input at offset 1`; err == nil || err.Error() != want {
		t.Errorf("Error() = %v\nwant      %s", err, want)
	}
}

func TestValidateToolArgumentsNoParameters(t *testing.T) {
	for _, params := range []json.RawMessage{nil, json.RawMessage("null")} {
		tool := NewToolDescription("now", "", params)
		for _, args := range []string{"", "  ", "{}", `{"anything":[1]}`, `"x"`} {
			if err := ValidateToolArguments(tool, args); err != nil {
				t.Errorf("%q: %v", args, err)
			}
		}
		var ve *ValidationError
		if err := ValidateToolArguments(tool, "{"); !errors.As(err, &ve) || ve.Violations[0].Message != "invalid JSON: unexpected end of input at offset 1" {
			t.Errorf("invalid JSON: %v", err)
		}
	}
}

func TestValidateToolArgumentsInvalidSchema(t *testing.T) {
	tool := NewToolDescription("f", "", json.RawMessage(`{"type":"object","properties":{"a":{"type":"strnig"}}}`))
	err := ValidateToolArguments(tool, `{"a":"x"}`)
	var se *SchemaError
	if !errors.As(err, &se) || se.Tool != "f" || se.Pointer != "/properties/a/type" || errors.Is(err, ErrSchemaViolation) {
		t.Errorf("ValidateToolArguments = %v", err)
	}
}

func TestValidateResponse(t *testing.T) {
	format := ResponseFormat{Name: "weather_report", Schema: json.RawMessage(`{
		"$schema": "http://json-schema.org/draft-07/schema#",
		"type": "object",
		"definitions": {"temp": {"type": "number", "minimum": -90, "maximum": 60}},
		"properties": {"high": {"$ref": "#/definitions/temp"}, "low": {"$ref": "#/definitions/temp"}, "summary": {"type": ["string", "null"]}},
		"required": ["high", "low", "summary"]
	}`)}
	if err := ValidateResponse(format, `{"high":21.5,"low":-3,"summary":null}`); err != nil {
		t.Errorf("valid response: %v", err)
	}
	err := ValidateResponse(format, `{"high":99,"low":"cold"}`)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("ValidateResponse = %v", err)
	}
	want := []Violation{
		{"", "/required", "missing properties: 'summary'"},
		{"/high", "/properties/high/$ref/maximum", "must be <= 60 but found 99"},
		{"/low", "/properties/low/$ref/type", "expected number, but got string"},
	}
	if ve.Subject != "response for format weather_report" || !reflect.DeepEqual(ve.Violations, want) {
		t.Errorf("got %q %q", ve.Subject, ve.Violations)
	}
	if err := ValidateResponse(format, "```json\n{\"high\":1,\"low\":0,\"summary\":\"\"}\n```"); !errors.As(err, &ve) || !strings.HasPrefix(ve.Violations[0].Message, "invalid JSON") {
		t.Errorf("fenced answer: %v", err)
	}
	bad := ResponseFormat{Name: "broken", Schema: json.RawMessage(`{"type":"objekt"}`)}
	var se *SchemaError
	if err := ValidateResponse(bad, `{}`); !errors.As(err, &se) || se.Tool != "response format broken" || se.Pointer != "/type" {
		t.Errorf("broken format: %v", err)
	}
}

// TestSchemaCacheConcurrent validates from many goroutines at once (run
// with -race) and checks that the cache stays bounded.
func TestSchemaCacheConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 400; i++ {
				schema := fmt.Sprintf(`{"type":"object","properties":{"n":{"type":"integer","maximum":%d}},"required":["n"]}`, i%300)
				tool := NewToolDescription("f", "", json.RawMessage(schema))
				err := ValidateToolArguments(tool, fmt.Sprintf(`{"n":%d}`, g))
				if (g > i%300) != (err != nil) {
					t.Errorf("maximum %d, n %d: %v", i%300, g, err)
					return
				}
				if _, err := NormalizeSchema(json.RawMessage(schema)); err != nil {
					t.Error(err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	if n := schemaCache.len(); n > schemaCacheSize {
		t.Errorf("cache holds %d entries", n)
	}
}

func (c *lru[V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

func TestSchemaCacheLRU(t *testing.T) {
	c := newLRU[int](2, 10)
	c.put([]byte("a"), 1)
	c.put([]byte("b"), 2)
	if v, ok := c.get([]byte("a")); !ok || v != 1 {
		t.Fatal("a missing")
	}
	c.put([]byte("c"), 3) // evicts b, the least recently used
	if _, ok := c.get([]byte("b")); ok {
		t.Error("b not evicted")
	}
	if v, ok := c.get([]byte("c")); !ok || v != 3 || c.len() != 2 {
		t.Error("c missing")
	}
	c.put(make([]byte, maxCachedSchema+1), 4)
	if c.len() != 2 {
		t.Error("oversized key cached")
	}
	c.put([]byte("0123456789"), 5) // 10 bytes: evicts everything else
	if _, ok := c.get([]byte("c")); ok || c.len() != 1 || c.bytes != 10 {
		t.Errorf("byte bound not kept: %d entries, %d bytes", c.len(), c.bytes)
	}
}

func BenchmarkValidateToolArguments(b *testing.B) {
	tool := NewToolDescription("get_weather", "", json.RawMessage(weatherSchema))
	args := `{"location":"Paris","unit":"celsius","days":3,"at":[1.5,2]}`
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateToolArguments(tool, args); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzValidateToolArguments compiles any schema and validates any arguments
// against it: no panic, and only the documented error types.
func FuzzValidateToolArguments(f *testing.F) {
	f.Add(weatherSchema, `{"location":"x"}`)
	for _, tc := range invalidSchemas {
		f.Add(tc.schema, `{}`)
	}
	for _, tc := range normalizeCases {
		f.Add(tc.in, `{"a":[1,null,"x"]}`)
	}
	f.Fuzz(func(t *testing.T, schema, args string) {
		err := ValidateToolArguments(NewToolDescription("f", "", json.RawMessage(schema)), args)
		var se *SchemaError
		var ve *ValidationError
		switch {
		case err == nil:
		case errors.As(err, &se):
			if !errors.Is(err, ErrInvalidSchema) || !strings.HasPrefix(err.Error(), "harmony: ") {
				t.Fatalf("bad schema error %v", err)
			}
		case errors.As(err, &ve):
			if len(ve.Violations) == 0 || !errors.Is(err, ErrSchemaViolation) {
				t.Fatalf("bad validation error %v", err)
			}
		default:
			t.Fatalf("unexpected error %T %v", err, err)
		}
	})
}
