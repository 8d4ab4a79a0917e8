package openaicompat

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, json.Unmarshal(data, &doc), path)
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
	require.NotNil(t, extra, "%s is missing", requestsSpecFile)
	require.Equal(t, shared.Source, extra.Source, "%s is not cut from the shared spec's source: cut it again from it", requestsSpecFile)
	all := shared.Components.Schemas
	for name, s := range extra.Components.Schemas {
		if have, ok := all[name]; ok {
			assert.JSONEq(t, string(have), string(s), "%s differs between %s and %s", name, sharedSpecFile, requestsSpecFile)
			continue
		}
		all[name] = s
	}
	return all
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
		require.NoError(t, json.Unmarshal(raw, &s), where)
		if s.Ref != "" {
			ref := strings.TrimPrefix(s.Ref, "#/components/schemas/")
			sub, ok := schemas[ref]
			require.True(t, ok, "%s: $ref %s is not in the spec", where, s.Ref)
			walk(sub, ref)
		}
		for _, sub := range s.AllOf {
			walk(sub, where+"/allOf")
		}
		require.True(t, s.AnyOf == nil && s.OneOf == nil, "%s: an anyOf or oneOf at the top of a request schema: read its properties too", where)
		for p := range s.Properties {
			seen[p] = true
		}
	}
	raw, ok := schemas[name]
	require.True(t, ok, "%s is in neither %s nor %s", name, sharedSpecFile, requestsSpecFile)
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
			require.GreaterOrEqual(t, len(props), 20, "%s's properties: %v", api.schema, props)
			var usedSet, ignoredSet, refusedSet []string
			for _, name := range props {
				p, ok := api.params[name]
				if !assert.True(t, ok, "%s: not known: DecodeRequest refuses it as unknown", name) {
					continue
				}
				switch p.use {
				case paramUsed:
					usedSet = append(usedSet, name)
					assert.True(t, api.fields[name], "%s: used, but the request has no such field", name)
				case paramIgnored:
					ignoredSet = append(ignoredSet, name)
					assert.False(t, api.fields[name], "%s: ignored, but the request has a field for it", name)
				case paramRefused:
					refusedSet = append(refusedSet, name)
					assert.NotEqual(t, api.fields[name], p.refuse != nil, "%s: refused values must be checked by Validate (a field) or DecodeRequest (not a field), once", name)
				default:
					assert.Fail(t, name+": no use")
				}
			}
			assert.Equal(t, len(props), len(usedSet)+len(ignoredSet)+len(refusedSet), "properties in a set")
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
			// Built by append, extra is nil or not empty, as are the
			// extensions: Equal is slices.Equal here.
			assert.Equal(t, api.extensions, extra, "known parameters outside the schema")
			for name := range api.fields {
				p := api.params[name]
				assert.True(t, p.use == paramUsed || p.use == paramRefused && p.refuse == nil, "field %s of the request is not known as used", name)
			}

			// What DecodeRequest and Conversation do with each.
			require.NoError(t, decode(api.base+`}`), "base request")
			for _, name := range append(ignoredSet, refusedSet...) {
				ex, ok := api.examples[name]
				if !assert.True(t, ok, "%s: no example value in the test", name) {
					continue
				}
				assert.NoError(t, decode(api.base+`, "`+name+`": `+ex.ok+`}`), "%s: %s, want it accepted", name, ex.ok)
				if api.params[name].use != paramRefused {
					continue
				}
				err := decode(api.base + `, "` + name + `": ` + ex.refused + `}`)
				var re *RequestError
				if assert.ErrorAs(t, err, &re, "%s: %s: want an unsupported_parameter error naming it", name, ex.refused) {
					assert.Equal(t, name, re.Param, "%s: %s", name, ex.refused)
					assert.Equal(t, "unsupported_parameter", re.Code, "%s: %s", name, ex.refused)
					assert.ErrorIs(t, err, ErrUnsupportedParameter, "%s: %s", name, ex.refused)
				}
			}

			// A parameter the schema does not have; names are matched
			// exactly, as OpenAI matches them (encoding/json would read
			// "Model" into the model).
			for _, name := range []string{"max_tokns", "Model", "response-format", "x"} {
				require.NotContains(t, props, name, "%s is in the schema", name)
				err := decode(api.base + `, "` + name + `": "m"}`)
				var re *RequestError
				if assert.ErrorAs(t, err, &re, "%s: want an unknown_parameter error naming it", name) {
					assert.Equal(t, name, re.Param, name)
					assert.Equal(t, "unknown_parameter", re.Code, name)
					assert.ErrorIs(t, err, ErrUnknownParameter, name)
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
		assert.Equal(t, 400, status, tc.body)
		assert.Equal(t, tc.want, string(got), tc.body)
		if assert.Error(t, err, tc.body) {
			assert.True(t, strings.HasPrefix(err.Error(), "openaicompat: "), "%s: error %v", tc.body, err)
		}
	}
	// A body of null still decodes as an empty request, and a syntax or type
	// error is still invalid_json, before any unknown parameter.
	var r ResponsesRequest
	assert.NoError(t, DecodeRequest([]byte(`null`), &r), "null")
	status, body := HTTPError(DecodeRequest([]byte(`{"max_tokns": 1, "input": 3}`), &r))
	assert.Equal(t, 400, status, "type error: %+v", body)
	if assert.NotNil(t, body.Error.Code, "type error: %+v", body) {
		assert.Equal(t, "invalid_json", *body.Error.Code, "type error")
	}

}
