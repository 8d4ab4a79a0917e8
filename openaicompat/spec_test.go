package openaicompat

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of this file validate everything the package writes against
// OpenAI's schemas (openapi_test.go loads them): chat bodies against
// CreateChatCompletionResponse, chunks against
// CreateChatCompletionStreamResponse, Responses objects against Response,
// each Responses stream event against the member of ResponseStreamEvent
// whose "type" it has (so a failure names that event's schema, not 58
// alternatives), error bodies against ErrorResponse: those of the golden
// files, of the streams FuzzStreamConverters makes, of failed streams and
// of HTTPError.

// TestSpecGolden validates every body, chunk, event and error body of the
// golden files under testdata against the spec.
func TestSpecGolden(t *testing.T) {
	sp := mustSpec(t)
	outputs, _ := filepath.Glob(filepath.Join("testdata", "outputs", "*.golden"))
	requests, _ := filepath.Glob(filepath.Join("testdata", "requests", "*.golden"))
	require.NotEmpty(t, outputs, "no golden files of outputs")
	require.NotEmpty(t, requests, "no golden files of requests")
	checked := map[string]int{}
	check := func(t *testing.T, file string, line int, what string, doc []byte) {
		t.Helper()
		assert.NoError(t, sp.validate(what, doc), "%s:%d", file, line)
		checked[what]++
	}
	for _, file := range outputs {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		var section string
		var body []string
		start := 0
		flush := func() {
			defer func() { body = body[:0] }()
			if len(body) == 0 || strings.HasPrefix(body[0], "error: ") {
				return
			}
			switch section {
			case "chat":
				check(t, file, start, specChat, []byte(strings.Join(body, "\n")))
			case "responses":
				check(t, file, start, specResponse, []byte(strings.Join(body, "\n")))
			default:
				for i, l := range body {
					switch {
					case strings.HasPrefix(l, "error: "):
					case section == "chat chunks":
						check(t, file, start+i, specChunk, []byte(l))
					case section == "responses events":
						check(t, file, start+i, "", []byte(l))
					default:
						assert.Failf(t, "unknown section", "%s:%d: %q", file, start, section)
					}
				}
			}
		}
		for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if s, ok := strings.CutPrefix(l, "== "); ok {
				flush()
				section, start = s, i+2
				continue
			}
			body = append(body, l)
		}
		flush()
	}
	for _, file := range requests {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		for i, l := range strings.Split(string(data), "\n") {
			if wire, ok := strings.CutPrefix(l, "wire: "); ok {
				check(t, file, i+1, specError, []byte(wire))
			}
		}
	}
	for _, what := range []string{specChat, specChunk, specResponse, "", specError} {
		assert.NotZero(t, checked[what], "no %q document in the golden files", what)
	}
}

// TestSpecValidator checks the validator itself: it accepts null where the
// spec says nullable (an OpenAPI 3.0 leftover the conversion handles), and
// it can fail, saying where: a body without a required field, a value
// outside an enum, a field of the wrong type, an unknown kind of event or
// item.
func TestSpecValidator(t *testing.T) {
	sp := mustSpec(t)
	for _, doc := range []string{
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}],"usage":null}`,
		`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":{"content":null,"refusal":null},"finish_reason":"stop"}]}`,
	} {
		assert.NoError(t, sp.validate(specChunk, []byte(doc)), doc)
	}
	tests := []struct {
		component string
		doc       string
		want      []string // in the error
	}{
		{specChat, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","refusal":null},"finish_reason":"stop"}]}`,
			[]string{"$.choices[0]: required:", "logprobs", "#/components/schemas/CreateChatCompletionResponse/properties/choices/items/required"}},
		{specChunk, `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"done"}]}`,
			[]string{"$.choices[0].finish_reason: enum:"}},
		{"", `{"type":"response.output_text.delta","sequence_number":"4","item_id":"m","output_index":0,"content_index":0,"delta":"x","logprobs":[]}`,
			[]string{"$.sequence_number: type:", "ResponseTextDeltaEvent"}},
		{"", `{"type":"response.unknown","sequence_number":0}`, []string{`"response.unknown" is not in ResponseStreamEvent`}},
		{specError, `{"error":{"message":"m","type":"server_error","code":null}}`, []string{"$.error: required:", "param"}},
		// Of the 28 kinds of output item, only the message's failure is
		// shown.
		{"", `{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"type":"message","id":"m","role":"assistant","content":[]}}`,
			[]string{"$.item: required: missing properties: 'status' (at #/components/schemas/OutputMessage/required)"}},
		{"", `{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"type":"thought","id":"m"}}`,
			[]string{"$.item.type: enum:", "#/components/schemas/OutputItem/allOf/0/properties/type/enum"}},
	}
	for _, tc := range tests {
		err := sp.validate(tc.component, []byte(tc.doc))
		if !assert.Error(t, err, "%s accepted", tc.doc) {
			continue
		}
		for _, w := range tc.want {
			assert.ErrorContains(t, err, w, tc.doc)
		}
		if tc.component == "" {
			assert.LessOrEqual(t, strings.Count(err.Error(), "\n"), 1, "%s: failures reported, want 1:\n%v", tc.doc, err)
		}
	}
	// A Responses object is required to have its request's parameters.
	err := sp.validate(specResponse, []byte(`{"id":"r","object":"response","created_at":1,"status":"completed","model":"m","output":[]}`))
	for _, field := range []string{"error", "instructions", "tools", "tool_choice", "temperature", "top_p", "parallel_tool_calls", "metadata", "incomplete_details"} {
		assert.ErrorContains(t, err, "'"+field+"'", "a response without %s is not reported", field)
	}
}

// specRun validates the outputs of runs of the converters. With seen set
// (the fuzzer's), it skips a document whose skeleton it has validated
// before, since outputs repeat themselves: the delta events differ only in
// their text and counters, and a response holds many items of a few kinds.
// The skeleton is the document with its free text (strings that are no
// enum value of the spec) blanked, its counters zeroed, and each array
// reduced to the set of its elements' skeletons. Two documents with one
// skeleton are valid alike as long as the schemas of what the package
// writes constrain neither free text, counters, nor the length or order of
// arrays; in this spec the keywords that could (pattern, minLength,
// maxItems...) are all on request parameters, and none is positional
// (prefixItems, contains). A skeleton is only recorded once a document
// with it has validated, so an input that fails fails alone too. The golden
// and the other tests validate every document.
type specRun struct {
	sp   *spec
	seen map[string]bool // skeletons validated; nil validates every document
}

// maxSkeletons bounds specRun.seen, which starts again when it is full.
const maxSkeletons = 1 << 16

// counters are the members whose numbers differ from one output of a run to
// the next.
var counters = map[string]bool{"sequence_number": true, "output_index": true, "content_index": true, "index": true,
	"prompt_tokens": true, "completion_tokens": true, "total_tokens": true, "cached_tokens": true, "reasoning_tokens": true,
	"input_tokens": true, "output_tokens": true}

// check validates v, as the package writes it, against the named component
// ("" for a Responses stream event).
func (r *specRun) check(t testing.TB, component string, v any) {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var key string
	if r.seen != nil {
		skel, _ := r.skeleton(data, 0, "", []byte(component))
		if key = string(skel); r.seen[key] {
			return
		}
	}
	require.NoError(t, r.sp.validate(component, data), "%s", data)
	if r.seen != nil {
		if len(r.seen) == maxSkeletons {
			clear(r.seen)
		}
		r.seen[key] = true
	}
}

// skeleton appends the skeleton of the JSON value at data[i:], written by
// encoding/json (no spaces), to b and returns it with the index after the
// value; key is the value's member name.
func (r *specRun) skeleton(data []byte, i int, key string, b []byte) ([]byte, int) {
	switch c := data[i]; c {
	case '{', '[':
		i++
		var elems []string
		for data[i] != c+2 { // '}' or ']'
			if data[i] == ',' {
				i++
			}
			var k string
			var m []byte
			if c == '{' {
				end := stringEnd(data, i)
				k = string(data[i+1 : end-1])
				m = append(data[i:end:end], ':')
				i = end + 1
			}
			m, i = r.skeleton(data, i, k, m)
			elems = append(elems, string(m))
		}
		if c == '[' {
			slices.Sort(elems)
			elems = slices.Compact(elems)
		}
		return append(append(b, c), strings.Join(elems, ",")+string(c+2)...), i + 1
	case '"':
		end := stringEnd(data, i)
		switch s := data[i+1 : end-1]; {
		case r.sp.enums[string(s)]:
			return append(b, data[i:end]...), end
		case len(s) == 0:
			return append(b, `""`...), end
		}
		return append(b, `"…"`...), end
	}
	end := i
	for end < len(data) && !strings.ContainsRune(",]}", rune(data[end])) {
		end++
	}
	if counters[key] {
		return append(b, '0'), end
	}
	return append(b, data[i:end]...), end
}

// stringEnd returns the index after the JSON string starting at data[i].
func stringEnd(data []byte, i int) int {
	for i++; data[i] != '"'; i++ {
		if data[i] == '\\' {
			i++
		}
	}
	return i + 1
}

// chat validates a chat completion (nil when it failed) and its chunks.
func (r *specRun) chat(t testing.TB, whole *ChatCompletionResponse, chunks []ChatCompletionChunk) {
	t.Helper()
	if whole != nil {
		r.check(t, specChat, whole)
	}
	for _, c := range chunks {
		r.check(t, specChunk, c)
	}
}

// responses validates a Responses object (nil when it failed) and a
// stream's events.
func (r *specRun) responses(t testing.TB, whole *Response, events []ResponseEvent) {
	t.Helper()
	if whole != nil {
		r.check(t, specResponse, whole)
	}
	for _, e := range events {
		r.check(t, "", e)
	}
}

// failStream streams tokens until the first error, then fails the stream
// with it (or with a sampler's error, when there is none), and returns
// every event.
func failStream(enc *harmony.Encoding, toks []harmony.Token, opts *ResponseOptions) []ResponseEvent {
	c, err := NewResponsesStreamConverter(enc, opts)
	if err != nil {
		return nil
	}
	var out []ResponseEvent
	for _, tok := range toks {
		var events []ResponseEvent
		events, err = c.Process(tok)
		out = append(out, events...)
		if err != nil {
			break
		}
	}
	if err == nil {
		err = errors.New("sampler stopped")
	}
	return append(out, c.Fail(err)...)
}

// echoRequest is a Responses request that sets every parameter a response
// repeats.
const echoRequest = `{"model": "gpt-oss-20b", "input": "Weather in Oslo?", "instructions": "Be brief.",
	"tools": [{"type": "function", "name": "get_weather", "description": "Current weather.",
		"parameters": {"type": "object", "properties": {"city": {"type": "string"}}}, "strict": true},
		{"type": "function", "name": "noop"}],
	"tool_choice": {"type": "function", "name": "get_weather"}, "temperature": 0.2, "top_p": 0.5,
	"parallel_tool_calls": false, "metadata": {"user": "42"}}`

// specEcho returns what echoRequest asks a response to repeat.
func specEcho() ResponseEcho {
	var req ResponsesRequest
	if err := json.Unmarshal([]byte(echoRequest), &req); err != nil {
		panic(err)
	}
	return req.ResponseOptions().Echo
}

// TestResponseEcho checks that a response repeats its request's parameters,
// and OpenAI's defaults for the zero ResponseEcho, whole and streamed.
func TestResponseEcho(t *testing.T) {
	enc := testenc.Encoding(t)
	run := &specRun{sp: mustSpec(t)}
	var req ResponsesRequest
	require.NoError(t, json.Unmarshal([]byte(echoRequest), &req))
	toks := enc.EncodeWithSpecialTokens(`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>`)
	const (
		defaults = `"instructions":null,"model":"m","output":[],"parallel_tool_calls":true,"temperature":1,"tool_choice":"auto","tools":[],"top_p":1,"metadata":{}}`
		echoed   = `"instructions":"Be brief.","model":"gpt-oss-20b","output":[],"parallel_tool_calls":false,"temperature":0.2,` +
			`"tool_choice":{"type":"function","name":"get_weather"},"tools":[{"type":"function","name":"get_weather","description":"Current weather.",` +
			`"parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":true},{"type":"function","name":"noop","parameters":null,"strict":null}],` +
			`"top_p":0.5,"metadata":{"user":"42"}}`
	)
	for _, tc := range []struct {
		name string
		opts ResponseOptions
		want string // the end of the response.created event
	}{
		{"zero", ResponseOptions{Model: "m"}, defaults},
		{"request", req.ResponseOptions(), echoed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Created, tc.opts.IDGenerator = 1, counter()
			events, err := streamResponses(enc, toks, Sampling{}, &tc.opts)
			require.NoError(t, err)
			got := strings.TrimSpace(marshalLine(events[0]))
			assert.True(t, strings.HasSuffix(got, tc.want+"}"), "response.created\n got %s\nwant …%s}", got, tc.want)
			tc.opts.IDGenerator = counter()
			resp, err := ResponseFromTokens(enc, toks, Sampling{}, &tc.opts)
			require.NoError(t, err)
			final, err := foldEvents(events)
			require.NoError(t, err)
			assert.Equal(t, marshalLine(resp), marshalLine(final), "streamed, want the whole response")
			run.responses(t, resp, events)
		})
	}
}

// TestSpecSealed validates a response whose reasoning items carry their
// sealed text (encrypted_content), whole and streamed.
func TestSpecSealed(t *testing.T) {
	enc := testenc.Encoding(t)
	run := &specRun{sp: mustSpec(t)}
	toks := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi.<|return|>`)
	opts := &ResponseOptions{Created: 1, IDGenerator: counter(), SealReasoning: true, Sealer: testSealer(t, key1)}
	resp, err := ResponseFromTokens(enc, toks, Sampling{}, opts)
	require.NoError(t, err)
	require.NotEmpty(t, resp.Output[0].EncryptedContent, "no encrypted_content: %s", marshalLine(resp))
	events, err := streamResponses(enc, toks, Sampling{}, opts)
	require.NoError(t, err)
	run.responses(t, resp, events)
}

// TestSpecFail validates the events of streams failed by Fail: before any
// token, in the middle of each kind of item, on a request error and on an
// error of strict conversion.
func TestSpecFail(t *testing.T) {
	enc := testenc.Encoding(t)
	run := &specRun{sp: mustSpec(t)}
	text := `<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>`
	toks := enc.EncodeWithSpecialTokens(text)
	for n := 0; n <= len(toks); n++ {
		run.responses(t, nil, failStream(enc, toks[:n], &ResponseOptions{Created: 1, IDGenerator: counter(), Echo: specEcho()}))
	}
	c, err := NewResponsesStreamConverter(enc, nil)
	require.NoError(t, err)
	run.responses(t, nil, c.Fail(reqErr(-1, "tools[0].name", ErrInvalidTool, "bad")))
	events := failStream(enc, enc.EncodeWithSpecialTokens(`<|start|>user<|message|>Hi<|end|>`), &ResponseOptions{ExpectStart: true})
	last := events[len(events)-1]
	if assert.Equal(t, "response.failed", last.Type, "strict conversion of a user message: %s", marshalLine(last)) {
		assert.Equal(t, "server_error", last.Response.Error.Code, "strict conversion of a user message: %s", marshalLine(last))
	}

	run.responses(t, nil, events)
}

// TestSpecErrors validates the error bodies of HTTPError, for each kind of
// error it knows.
func TestSpecErrors(t *testing.T) {
	run := &specRun{sp: mustSpec(t)}
	var chat ChatCompletionRequest
	for _, err := range []error{
		reqErr(2, "messages[2].tool_call_id", ErrUnknownToolCallID, "call_x"),
		reqErr(-1, "", ErrInvalidRequest, ""),
		&OutputError{MessageIndex: 1, Err: ErrUnexpectedMessage},
		DecodeRequest([]byte(`{"messages": [`), &chat),
		DecodeRequest([]byte(`{"messages": 3}`), &chat),
		&http.MaxBytesError{Limit: 1 << 20},
		errors.New("sampler died"),
	} {
		_, body := HTTPError(err)
		run.check(t, specError, body)
	}
}
