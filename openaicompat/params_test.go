package openaicompat

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The request schemas are read from the shared folder beside the
// checkout (OpenAI's published components, ../shared/openai-openapi), as
// the developers and CI have it. Its subset was cut for what this package
// writes (responses, chunks, events); the request roots and the schemas
// only they need, cut from the same commit of the same spec, are
// testdata/openapi/openapi-requests.json, used where the shared file lacks
// them.
var (
	sharedSpecFile   = filepath.Join("..", "..", "shared", "openai-openapi", "openapi-subset.json")
	requestsSpecFile = filepath.Join("testdata", "openapi", "openapi-requests.json")
)

// specDoc is the part of a spec file the tests read.
type specDoc struct {
	Source     string `json:"source"`
	Components struct {
		Schemas map[string]json.RawMessage `json:"schemas"`
	} `json:"components"`
}

func readSpecDoc(t *testing.T, path string) *specDoc {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var doc specDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &doc
}

// requestSchemas returns the components of the shared spec, completed by
// openapi-requests.json; it skips the test when the shared file is absent.
func requestSchemas(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	shared := readSpecDoc(t, sharedSpecFile)
	if shared == nil {
		t.Skipf("OpenAI's request schemas: %s not found (the shared folder is not beside this checkout)", sharedSpecFile)
	}
	extra := readSpecDoc(t, requestsSpecFile)
	if extra == nil {
		t.Fatalf("%s is missing", requestsSpecFile)
	}
	if extra.Source != shared.Source {
		t.Fatalf("%s is cut from %q, the shared spec is %q: cut it again from the shared spec's source", requestsSpecFile, extra.Source, shared.Source)
	}
	all := shared.Components.Schemas
	for name, s := range extra.Components.Schemas {
		if have, ok := all[name]; ok {
			if !jsonEqual(t, have, s) {
				t.Errorf("%s differs between %s and %s", name, sharedSpecFile, requestsSpecFile)
			}
			continue
		}
		all[name] = s
	}
	return all
}

func jsonEqual(t *testing.T, a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		t.Fatalf("schema is not JSON")
	}
	return reflect.DeepEqual(x, y)
}

// schemaProperties returns the top-level properties of component name,
// with those it takes through allOf and $ref from its base schemas.
func schemaProperties(t *testing.T, schemas map[string]json.RawMessage, name string) []string {
	t.Helper()
	seen := map[string]bool{}
	var walk func(raw json.RawMessage, where string)
	walk = func(raw json.RawMessage, where string) {
		var s struct {
			Ref        string                     `json:"$ref"`
			AllOf      []json.RawMessage          `json:"allOf"`
			AnyOf      []json.RawMessage          `json:"anyOf"`
			OneOf      []json.RawMessage          `json:"oneOf"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: %v", where, err)
		}
		if s.Ref != "" {
			ref := strings.TrimPrefix(s.Ref, "#/components/schemas/")
			sub, ok := schemas[ref]
			if !ok {
				t.Fatalf("%s: $ref %s is not in the spec", where, s.Ref)
			}
			walk(sub, ref)
		}
		for _, sub := range s.AllOf {
			walk(sub, where+"/allOf")
		}
		if s.AnyOf != nil || s.OneOf != nil {
			t.Fatalf("%s: an anyOf or oneOf at the top of a request schema: read its properties too", where)
		}
		for p := range s.Properties {
			seen[p] = true
		}
	}
	raw, ok := schemas[name]
	if !ok {
		t.Fatalf("%s is in neither %s nor %s", name, sharedSpecFile, requestsSpecFile)
	}
	walk(raw, name)
	props := make([]string, 0, len(seen))
	for p := range seen {
		props = append(props, p)
	}
	sort.Strings(props)
	return props
}

// jsonFields returns the JSON names of the fields of struct type T.
func jsonFields[T any]() map[string]bool {
	out := map[string]bool{}
	typ := reflect.TypeFor[T]()
	for i := range typ.NumField() {
		if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			out[name] = true
		}
	}
	return out
}

// paramExamples gives, for each parameter DecodeRequest ignores or
// refuses, a value it accepts and, for the refused ones, a value it
// refuses.
type paramExample struct{ ok, refused string }

var chatExamples = map[string]paramExample{
	"store":                  {ok: `true`},
	"service_tier":           {ok: `"flex"`},
	"prompt_cache_key":       {ok: `"user-42"`},
	"prompt_cache_retention": {ok: `"24h"`},
	"prompt_cache_options":   {ok: `{"ttl": "30m"}`},
	"safety_identifier":      {ok: `"hash-of-user"`},
	"prediction":             {ok: `{"type": "content", "content": "Hello"}`},
	"verbosity":              {ok: `"low"`},

	"n":                  {`1`, `2`},
	"logprobs":           {`false`, `true`},
	"top_logprobs":       {`0`, `5`},
	"logit_bias":         {`{}`, `{"50256": -100}`},
	"modalities":         {`["text"]`, `["text", "audio"]`},
	"audio":              {`null`, `{"voice": "alloy", "format": "wav"}`},
	"functions":          {`[]`, `[{"name": "f", "parameters": {"type": "object"}}]`},
	"function_call":      {`null`, `"auto"`},
	"web_search_options": {`null`, `{}`},
	"moderation":         {`null`, `{"model": "omni-moderation-latest"}`},
}

var responsesExamples = map[string]paramExample{
	"service_tier":           {ok: `"auto"`},
	"prompt_cache_key":       {ok: `"user-42"`},
	"prompt_cache_retention": {ok: `"in-memory"`},
	"prompt_cache_options":   {ok: `{"mode": "implicit"}`},
	"safety_identifier":      {ok: `"hash-of-user"`},
	"stream_options":         {ok: `{"include_obfuscation": false}`},
	"max_tool_calls":         {ok: `3`},

	"background":         {`false`, `true`},
	"conversation":       {`null`, `"conv_123"`},
	"prompt":             {`null`, `{"id": "pmpt_123"}`},
	"context_management": {`null`, `[{"type": "compaction"}]`},
	"top_logprobs":       {`0`, `2`},
	"moderation":         {`null`, `{"model": "omni-moderation-latest"}`},
}

// TestRequestParams checks that every top-level parameter of OpenAI's
// request schemas is used (a field of the request), ignored, or refused
// for the values that cannot be honoured, exactly one of them, as the
// tables of params.go say and DecodeRequest does; and that a parameter the
// schema does not have is refused.
func TestRequestParams(t *testing.T) {
	schemas := requestSchemas(t)
	for _, api := range []struct {
		schema     string
		params     map[string]param
		fields     map[string]bool
		examples   map[string]paramExample
		extensions []string // known, though not in OpenAI's schema
		base       string   // a valid request, without its closing brace
		api        string   // convertRequest's
	}{
		{"CreateChatCompletionRequest", chatParams, jsonFields[ChatCompletionRequest](), chatExamples, []string{"reasoning"},
			`{"messages": [{"role": "user", "content": "Hi"}]`, "chat"},
		{"CreateResponse", responsesParams, jsonFields[ResponsesRequest](), responsesExamples, nil,
			`{"input": "Hi"`, "responses"},
	} {
		t.Run(api.schema, func(t *testing.T) {
			decode := func(body string) error {
				_, err := convertRequest(api.api, body)
				return err
			}
			props := schemaProperties(t, schemas, api.schema)
			if len(props) < 20 {
				t.Fatalf("%s has %d properties: %v", api.schema, len(props), props)
			}
			var usedSet, ignoredSet, refusedSet []string
			for _, name := range props {
				p, ok := api.params[name]
				if !ok {
					t.Errorf("%s: not known: DecodeRequest refuses it as unknown", name)
					continue
				}
				switch p.use {
				case paramUsed:
					usedSet = append(usedSet, name)
					if !api.fields[name] {
						t.Errorf("%s: used, but the request has no such field", name)
					}
				case paramIgnored:
					ignoredSet = append(ignoredSet, name)
					if api.fields[name] {
						t.Errorf("%s: ignored, but the request has a field for it", name)
					}
				case paramRefused:
					refusedSet = append(refusedSet, name)
					if api.fields[name] == (p.refuse != nil) {
						t.Errorf("%s: refused values must be checked by Validate (a field) or DecodeRequest (not a field), once", name)
					}
				default:
					t.Errorf("%s: no use", name)
				}
			}
			if n := len(usedSet) + len(ignoredSet) + len(refusedSet); n != len(props) {
				t.Errorf("%d of %d properties in a set", n, len(props))
			}
			t.Logf("used %v\nignored %v\nrefused %v", usedSet, ignoredSet, refusedSet)

			// Known parameters outside the schema are the extensions, and
			// every field of the request is known.
			var extra []string
			for name := range api.params {
				if !slices.Contains(props, name) {
					extra = append(extra, name)
				}
			}
			sort.Strings(extra)
			if !slices.Equal(extra, api.extensions) {
				t.Errorf("known parameters outside the schema: %v, want %v", extra, api.extensions)
			}
			for name := range api.fields {
				if p := api.params[name]; p.use != paramUsed && (p.use != paramRefused || p.refuse != nil) {
					t.Errorf("field %s of the request is not known as used", name)
				}
			}

			// What DecodeRequest and Conversation do with each.
			if err := decode(api.base + `}`); err != nil {
				t.Fatalf("base request: %v", err)
			}
			for _, name := range append(ignoredSet, refusedSet...) {
				ex, ok := api.examples[name]
				if !ok {
					t.Errorf("%s: no example value in the test", name)
					continue
				}
				if err := decode(api.base + `, "` + name + `": ` + ex.ok + `}`); err != nil {
					t.Errorf("%s: %s: %v, want it accepted", name, ex.ok, err)
				}
				if api.params[name].use != paramRefused {
					continue
				}
				err := decode(api.base + `, "` + name + `": ` + ex.refused + `}`)
				var re *RequestError
				if !errors.As(err, &re) || re.Param != name || re.Code != "unsupported_parameter" || !errors.Is(err, ErrUnsupportedParameter) {
					t.Errorf("%s: %s: %v, want an unsupported_parameter error naming it", name, ex.refused, err)
				}
			}

			// A parameter the schema does not have; names are matched
			// exactly, as OpenAI matches them (encoding/json would read
			// "Model" into the model).
			for _, name := range []string{"max_tokns", "Model", "response-format", "x"} {
				if slices.Contains(props, name) {
					t.Fatalf("%s is in the schema", name)
				}
				err := decode(api.base + `, "` + name + `": "m"}`)
				var re *RequestError
				if !errors.As(err, &re) || re.Param != name || re.Code != "unknown_parameter" || !errors.Is(err, ErrUnknownParameter) {
					t.Errorf("%s: %v, want an unknown_parameter error naming it", name, err)
				}
			}
		})
	}
}

// TestUnknownParameterWire checks the bodies of an unknown parameter, in
// OpenAI's words for each API, with param naming it in both.
func TestUnknownParameterWire(t *testing.T) {
	for _, tc := range []struct {
		body string
		chat bool
		want string
	}{
		{`{"model": "m", "max_tokns": 5, "messages": []}`, true,
			`{"error":{"message":"Unrecognized request argument supplied: max_tokns","type":"invalid_request_error","param":"max_tokns","code":"unknown_parameter"}}`},
		{`{"model": "m", "input": "Hi", "max_tokns": null}`, false,
			`{"error":{"message":"Unknown parameter: 'max_tokns'.","type":"invalid_request_error","param":"max_tokns","code":"unknown_parameter"}}`},
		// The first unknown one, in the body's order.
		{`{"b_unknown": 1, "a_unknown": 2, "input": "Hi"}`, false,
			`{"error":{"message":"Unknown parameter: 'b_unknown'.","type":"invalid_request_error","param":"b_unknown","code":"unknown_parameter"}}`},
	} {
		var err error
		if tc.chat {
			var r ChatCompletionRequest
			err = DecodeRequest([]byte(tc.body), &r)
		} else {
			var r ResponsesRequest
			err = DecodeRequest([]byte(tc.body), &r)
		}
		status, body := HTTPError(err)
		got, _ := json.Marshal(body)
		if status != 400 || string(got) != tc.want {
			t.Errorf("%s: %d %s\nwant 400 %s", tc.body, status, got, tc.want)
		}
		if err == nil || !strings.HasPrefix(err.Error(), "openaicompat: ") {
			t.Errorf("%s: error %v", tc.body, err)
		}
	}
	// A body of null still decodes as an empty request, and a syntax or type
	// error is still invalid_json, before any unknown parameter.
	var r ResponsesRequest
	if err := DecodeRequest([]byte(`null`), &r); err != nil {
		t.Errorf("null: %v", err)
	}
	if status, body := HTTPError(DecodeRequest([]byte(`{"max_tokns": 1, "input": 3}`), &r)); status != 400 || *body.Error.Code != "invalid_json" {
		t.Errorf("type error: %d %+v", status, body)
	}
}
