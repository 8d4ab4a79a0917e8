package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/openaicompat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// This file tests what the server checks in a request before the model
// sees it (parameters, schemas, the context window), its access log, its
// recovery of malformed completions, and that it runs with no flags.

const hi = `"messages": [{"role": "user", "content": "Hi"}]`

// TestUnknownParameters: a parameter OpenAI's API does not have is a 400
// in OpenAI's words, with param naming it; those that change nothing are
// accepted; values that cannot be honoured are refused by name. None of
// them reaches the model.
func TestUnknownParameters(t *testing.T) {
	enc := testenc.Encoding(t)
	prompts := &syncBuffer{}
	ts := startServer(t, replayOf(enc, answerLine), prompts)

	for _, tc := range []struct{ path, body, want string }{
		{chatPath, `{"model": "gpt-oss-120b", "max_tokns": 5, ` + hi + `}`,
			`{"error":{"message":"Unrecognized request argument supplied: max_tokns","type":"invalid_request_error","param":"max_tokns","code":"unknown_parameter"}}`},
		{responsesPath, `{"model": "gpt-oss-120b", "input": "Hi", "max_tokns": 5}`,
			`{"error":{"message":"Unknown parameter: 'max_tokns'.","type":"invalid_request_error","param":"max_tokns","code":"unknown_parameter"}}`},
		// Each API's own parameters are unknown to the other.
		{chatPath, `{"input": "Hi", ` + hi + `}`,
			`{"error":{"message":"Unrecognized request argument supplied: input","type":"invalid_request_error","param":"input","code":"unknown_parameter"}}`},
		{responsesPath, `{"input": "Hi", "max_tokens": 5}`,
			`{"error":{"message":"Unknown parameter: 'max_tokens'.","type":"invalid_request_error","param":"max_tokens","code":"unknown_parameter"}}`},
		// Streamed requests are refused before the stream starts.
		{chatPath, `{"stream": true, "Stream": true, ` + hi + `}`,
			`{"error":{"message":"Unrecognized request argument supplied: Stream","type":"invalid_request_error","param":"Stream","code":"unknown_parameter"}}`},
	} {
		resp, body := post(t, ts.URL+tc.path, tc.body)
		assert.Equal(t, 400, resp.StatusCode, "%s %s: status", tc.path, tc.body)
		assert.Equal(t, tc.want, strings.TrimSpace(string(body)), "%s %s: body", tc.path, tc.body)
	}
	for _, tc := range []struct{ path, body, param string }{
		{chatPath, `{"logprobs": true, ` + hi + `}`, "logprobs"},
		{chatPath, `{"modalities": ["text", "audio"], ` + hi + `}`, "modalities"},
		{chatPath, `{"functions": [{"name": "f"}], ` + hi + `}`, "functions"},
		{responsesPath, `{"input": "Hi", "background": true}`, "background"},
		{responsesPath, `{"input": "Hi", "conversation": "conv_1"}`, "conversation"},
	} {
		postError(t, ts.URL+tc.path, tc.body, 400, "invalid_request_error", tc.param, "unsupported_parameter", tc.param+": unsupported parameter: ")
	}
	require.Empty(t, prompts.String(), "a refused request reached the model")

	// What the clients send besides: accepted, and ignored where it
	// changes nothing.
	for _, tc := range []struct{ path, body string }{
		{chatPath, `{"model": "gpt-oss-120b", "store": false, "service_tier": "auto", "user": "u1", "metadata": {"k": "v"},
			"prompt_cache_key": "k", "safety_identifier": "s", "logprobs": false, "modalities": ["text"], "audio": null,
			"verbosity": "low", "temperature": 0.2, "top_p": 0.9, "seed": 7, "stop": ["\n\n"], "n": 1, "parallel_tool_calls": false,
			"reasoning_effort": "low", "reasoning": {"effort": "low"}, ` + hi + `}`},
		{responsesPath, `{"model": "gpt-oss-120b", "input": "Hi", "store": false, "service_tier": "default", "user": "u1",
			"metadata": {"k": "v"}, "prompt_cache_key": "k", "safety_identifier": "s", "background": false, "stream_options": null,
			"max_tool_calls": 2, "top_logprobs": 0, "truncation": "disabled", "temperature": 0.2}`},
	} {
		postOK(t, ts.URL+tc.path, tc.body, "application/json")
	}
}

// TestInvalidSchemas: a function's parameters or a response format's
// schema that is no valid JSON Schema is a 400 naming its parameter,
// whether or not the prompt would declare it.
func TestInvalidSchemas(t *testing.T) {
	enc := testenc.Encoding(t)
	prompts := &syncBuffer{}
	ts := startServer(t, replayOf(enc, answerLine), prompts)
	const okTool = `{"type": "function", "function": {"name": "ok", "parameters": {"type": "object"}}}`
	for _, tc := range []struct {
		name, path, body, param, code, message string
	}{
		{"chat tool", chatPath, `{` + hi + `, "tools": [` + okTool + `, {"type": "function", "function": {"name": "bad", "parameters": {"type": "objekt"}}}]}`,
			"tools[1].function.parameters", "invalid_function_parameters", `invalid schema for function "bad": at /type: `},
		{"chat tool, nested", chatPath, `{` + hi + `, "tools": [{"type": "function", "function": {"name": "bad", "parameters": {"type": "object", "properties": {"a": {"type": "strin"}}}}}]}`,
			"tools[0].function.parameters", "invalid_function_parameters", "at /properties/a/type: "},
		{"chat tool, tool_choice none", chatPath, `{` + hi + `, "tool_choice": "none", "tools": [{"type": "function", "function": {"name": "bad", "parameters": {"type": "objekt"}}}]}`,
			"tools[0].function.parameters", "invalid_function_parameters", `"bad"`},
		{"chat tool, remote $ref", chatPath, `{` + hi + `, "tools": [{"type": "function", "function": {"name": "bad", "parameters": {"$ref": "https://example.com/s.json"}}}]}`,
			"tools[0].function.parameters", "invalid_function_parameters", "never fetched"},
		{"chat format", chatPath, `{` + hi + `, "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "objekt"}}}}`,
			"response_format.json_schema.schema", "invalid_json_schema", `invalid schema for response format "answer": at /type: `},
		{"responses tool", responsesPath, `{"input": "Hi", "tools": [{"type": "function", "name": "bad", "parameters": {"type": "objekt"}}]}`,
			"tools[0].parameters", "invalid_function_parameters", `invalid schema for function "bad"`},
		{"responses format", responsesPath, `{"input": "Hi", "text": {"format": {"type": "json_schema", "name": "answer", "schema": {"required": "city"}}}}`,
			"text.format.schema", "invalid_json_schema", "at /required: "},
		{"streamed", responsesPath, `{"input": "Hi", "stream": true, "tools": [{"type": "function", "name": "bad", "parameters": {"type": "objekt"}}]}`,
			"tools[0].parameters", "invalid_function_parameters", `invalid schema for function "bad"`},
		// Shapes openaicompat refuses first, as before.
		{"parameters not an object", chatPath, `{` + hi + `, "tools": [{"type": "function", "function": {"name": "f", "parameters": []}}]}`,
			"tools[0].function.parameters", "invalid_tool", "must be a JSON Schema object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			postError(t, ts.URL+tc.path, tc.body, 400, "invalid_request_error", tc.param, tc.code, tc.message)
		})
	}
	require.Empty(t, prompts.String(), "a refused request reached the model")
	// Valid schemas, of another draft too, and functions without parameters.
	postOK(t, ts.URL+chatPath, `{`+hi+`, "tools": [`+weatherTool+`, {"type": "function", "function": {"name": "nothing"}},
		{"type": "function", "function": {"name": "old", "parameters": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}}}],
		"response_format": {"type": "json_schema", "json_schema": {"name": "a", "schema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/x"}}, "$defs": {"x": {"type": "integer"}}}}}}`,
		"application/json")
}

// TestSchemaErrorWraps: the error of an invalid schema is a
// *openaicompat.RequestError that wraps the package's sentinel and the
// *harmony.SchemaError.
func TestSchemaErrorWraps(t *testing.T) {
	s := newServer(testenc.Encoding(t), nil, nil, options{})
	var req openaicompat.ChatCompletionRequest
	require.NoError(t, openaicompat.DecodeRequest([]byte(`{`+hi+`, "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "objekt"}}}]}`), &req))
	err := checkSchemas(s.schemas, chatSchemas(&req))
	var re *openaicompat.RequestError
	var se *harmony.SchemaError
	assert.ErrorAs(t, err, &re)
	assert.ErrorIs(t, err, openaicompat.ErrInvalidTool)
	if assert.ErrorAs(t, err, &se) {
		assert.Equal(t, "/type", se.Pointer, "the SchemaError's pointer")
	}
	assert.ErrorIs(t, err, harmony.ErrInvalidSchema)
}

// TestContextWindow: with -context-window N, a prompt that does not fit
// with room for the completion is a 400 context_length_exceeded, before the
// model; Responses' truncation "auto" drops old turns instead.
func TestContextWindow(t *testing.T) {
	enc := testenc.Encoding(t)
	prompts := &syncBuffer{}
	ts := startServerWith(t, standIn{enc}, prompts, options{ContextWindow: 200})
	long := strings.Repeat("word ", 150)
	for _, tc := range []struct{ path, body, param string }{
		{chatPath, `{"max_tokens": 50, "messages": [{"role": "user", "content": "` + long + `"}]}`, "messages"},
		{chatPath, `{"stream": true, "max_tokens": 50, "messages": [{"role": "user", "content": "` + long + `"}]}`, "messages"},
		// No max tokens: 4096 are kept for the completion, more than the window.
		{chatPath, `{` + hi + `}`, "messages"},
		{responsesPath, `{"max_output_tokens": 50, "input": "` + long + `"}`, "input"},
		{responsesPath, `{"max_output_tokens": 50, "truncation": "auto", "input": "` + long + `"}`, "input"},
	} {
		postError(t, ts.URL+tc.path, tc.body, 400, "invalid_request_error", tc.param, "context_length_exceeded", "maximum context length is 200 tokens")
	}
	require.Empty(t, prompts.String(), "a refused request reached the model")
	// What fits is served; with truncation "auto" the old turns go.
	var r openaicompat.ChatCompletionResponse
	unmarshal(t, postOK(t, ts.URL+chatPath, `{"max_tokens": 50, `+hi+`}`, "application/json"), &r)
	if assert.NotNil(t, r.Usage, "usage") {
		assert.LessOrEqual(t, r.Usage.PromptTokens, 150, "prompt tokens")
	}
	var resp openaicompat.Response
	unmarshal(t, postOK(t, ts.URL+responsesPath, `{"max_output_tokens": 50, "truncation": "auto", "input": [
		{"role": "user", "content": "`+long+`"}, {"role": "assistant", "content": "Noted."}, {"role": "user", "content": "Hi"}]}`, "application/json"), &resp)
	if assert.NotNil(t, resp.Usage, "usage") {
		assert.LessOrEqual(t, resp.Usage.InputTokens, 150, "input tokens")
	}
	if logged := promptLines(t, enc, prompts.String()); assert.Len(t, logged, 2, "prompts") {
		assert.NotContains(t, logged[1].Text, "word", "the second prompt has the old turn")
	}
}

// recordHandler is a slog.Handler that sends each record's attributes,
// with its level and message, to a channel.
type recordHandler chan map[string]any

func (h recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h recordHandler) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h recordHandler) WithGroup(string) slog.Handler            { return h }
func (h recordHandler) Handle(_ context.Context, r slog.Record) error {
	m := map[string]any{"level": r.Level.String(), "msg": r.Message}
	r.Attrs(func(a slog.Attr) bool {
		m[a.Key] = a.Value.Any()
		return true
	})
	h <- m
	return nil
}

// next returns the next record; the timeout only stops a hung test.
func (h recordHandler) next(t *testing.T) map[string]any {
	t.Helper()
	select {
	case m := <-h:
		return m
	case <-time.After(time.Minute):
		require.Fail(t, "no access log line")
		return nil
	}
}

// TestAccessLog: one line per request when it ends, with its method, path,
// status, token counts when the model answered, the error's code when
// there was one, and a duration.
func TestAccessLog(t *testing.T) {
	enc := testenc.Encoding(t)
	log := make(recordHandler, 16)
	ts := startServerWith(t, replayOf(enc, answerLine, forgottenStart), nil, options{Strict: true, Log: slog.New(log)})
	usage := func(b []byte) (int, int) {
		var r openaicompat.ChatCompletionResponse
		unmarshal(t, b, &r)
		return r.Usage.PromptTokens, r.Usage.CompletionTokens
	}
	// Each request's line is read before the next request: lines are
	// written when the handler returns, which may be after the client
	// has read the response.
	check := func(i int, want map[string]any) {
		t.Helper()
		got := log.next(t)
		d, ok := got["duration"].(time.Duration)
		if assert.True(t, ok, "line %d: duration %v", i, got["duration"]) {
			assert.GreaterOrEqual(t, d, time.Duration(0), "line %d: duration", i)
		}
		delete(got, "duration")
		want["level"], want["msg"] = "INFO", "request"
		assert.Equal(t, fmt.Sprint(want), fmt.Sprint(got), "line %d", i)
	}

	pt, ct := usage(postOK(t, ts.URL+chatPath, `{`+hi+`}`, "application/json"))
	check(0, map[string]any{"method": "POST", "path": chatPath, "status": int64(200), "prompt_tokens": int64(pt), "completion_tokens": int64(ct)})

	post(t, ts.URL+responsesPath, `{"input": "Hi", "max_tokns": 1}`)
	check(1, map[string]any{"method": "POST", "path": responsesPath, "status": int64(400), "error": "unknown_parameter"})

	post(t, ts.URL+chatPath, `{"stream": true, "stream_options": {"include_usage": true}, `+hi+`}`) // the malformed line: strict
	check(2, map[string]any{"method": "POST", "path": chatPath, "status": int64(200), "prompt_tokens": int64(pt),
		"completion_tokens": int64(len(enc.EncodeWithSpecialTokens(forgottenStart))), "error": "server_error"})

	resp, err := http.Get(ts.URL + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	check(3, map[string]any{"method": "GET", "path": "/v1/models", "status": int64(404), "error": "unknown_url"})

	select {
	case m := <-log:
		assert.Fail(t, "a line more", "%v", m)
	default:
	}
}

// TestStreamFlushedThroughAccessWriter: the accessWriter every handler
// write to hides no flush: each event of a stream reaches the connection's
// own writer (SSEWriter flushes through http.ResponseController, which
// finds it by Unwrap).
func TestStreamFlushedThroughAccessWriter(t *testing.T) {
	enc := testenc.Encoding(t)
	s := newServer(enc, standIn{enc}, nil, options{})
	for _, path := range []string{chatPath, responsesPath} {
		body := `{"stream": true, ` + hi + `}`
		if path == responsesPath {
			body = `{"stream": true, "input": "Hi"}`
		}
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusOK, rec.Code, "%s: status", path)
		assert.True(t, rec.Flushed, "%s: flushed", path)
		assert.NotZero(t, rec.Body.Len(), "%s: bytes", path)
	}
}

// forgottenStart is a completion whose second message lacks its
// "<|start|>assistant": a call to get_weather after the reasoning.
const forgottenStart = `<|channel|>analysis<|message|>think<|end|>` +
	`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`

// TestForgottenStart: a malformed completion is recovered on every path
// (chat, chat stream, responses, responses stream) by default — 200, the
// reasoning and the call — and with -strict is the parse error: a 500,
// or the stream's error event.
func TestForgottenStart(t *testing.T) {
	enc := testenc.Encoding(t)
	const respTool = `{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}`
	chat := `{"messages": [{"role": "user", "content": "Weather in Oslo?"}], "tools": [` + weatherTool + `]`
	responses := `{"input": "Weather in Oslo?", "tools": [` + respTool + `]`
	const parseErr = "want <|start|>"

	t.Run("recovered", func(t *testing.T) {
		ts := startServer(t, replayOf(enc, forgottenStart), nil)
		var c openaicompat.ChatCompletionResponse
		unmarshal(t, postOK(t, ts.URL+chatPath, chat+`}`, "application/json"), &c)
		m := c.Choices[0].Message
		assert.Equal(t, "think", m.Reasoning, "chat: reasoning")
		assert.Nil(t, m.Content, "chat: content")
		if assert.Len(t, m.ToolCalls, 1, "chat: tool calls") {
			assert.Equal(t, "get_weather", m.ToolCalls[0].Function.Name, "chat: the call's name")
			assert.Equal(t, `{"city":"Oslo"}`, m.ToolCalls[0].Function.Arguments, "chat: the call's arguments")
		}
		assert.Equal(t, openaicompat.FinishToolCalls, c.Choices[0].FinishReason, "chat: finish reason")

		var reasoning, args, name, finish string
		for _, ev := range readSSE(t, postOK(t, ts.URL+chatPath, chat+`, "stream": true}`, "text/event-stream")) {
			if ev.Data == "[DONE]" {
				continue
			}
			var ch openaicompat.ChatCompletionChunk
			unmarshal(t, []byte(ev.Data), &ch)
			require.NotEmpty(t, ch.Choices, "chunk %s", ev.Data)
			d := ch.Choices[0].Delta
			reasoning += d.Reasoning
			for _, tc := range d.ToolCalls {
				name += tc.Function.Name
				args += tc.Function.Arguments
			}
			finish += string(ch.Choices[0].FinishReason)
		}
		assert.Equal(t, "think", reasoning, "chat stream: reasoning")
		assert.Equal(t, "get_weather", name, "chat stream: the call's name")
		assert.Equal(t, `{"city":"Oslo"}`, args, "chat stream: the call's arguments")
		assert.Equal(t, "tool_calls", finish, "chat stream: finish reason")

		var r openaicompat.Response
		unmarshal(t, postOK(t, ts.URL+responsesPath, responses+`}`, "application/json"), &r)
		checkRecoveredOutput(t, "responses", r)

		events := readSSE(t, postOK(t, ts.URL+responsesPath, responses+`, "stream": true}`, "text/event-stream"))
		last := events[len(events)-1]
		var done struct {
			Response openaicompat.Response `json:"response"`
		}
		unmarshal(t, []byte(last.Data), &done)
		assert.Equal(t, "response.completed", last.Event, "responses stream's last event")
		checkRecoveredOutput(t, "responses stream", done.Response)
	})

	t.Run("strict", func(t *testing.T) {
		// The typed error, as openaicompat gives it to the server.
		ids := enc.EncodeWithSpecialTokens(forgottenStart)
		_, err := openaicompat.ChatCompletionFromTokens(enc, ids, openaicompat.Sampling{}, &openaicompat.ResponseOptions{Strict: true})
		var oe *openaicompat.OutputError
		var pe *harmony.ParseError
		require.ErrorAs(t, err, &oe, "strict conversion")
		require.ErrorAs(t, err, &pe, "strict conversion")
		require.Equal(t, 1, oe.MessageIndex, "strict conversion: the OutputError's message")

		ts := startServerWith(t, replayOf(enc, forgottenStart), nil, options{Strict: true})
		for _, tc := range []struct{ path, body string }{{chatPath, chat + `}`}, {responsesPath, responses + `}`}} {
			postError(t, ts.URL+tc.path, tc.body, 500, "server_error", "", "", parseErr)
		}

		events := readSSE(t, postOK(t, ts.URL+chatPath, chat+`, "stream": true}`, "text/event-stream"))
		var e openaicompat.ErrorResponse
		unmarshal(t, []byte(events[len(events)-1].Data), &e)
		assert.Equal(t, "server_error", e.Error.Type, "chat stream ends with %s, want the parse error", events[len(events)-1].Data)
		assert.Contains(t, e.Error.Message, parseErr, "chat stream ends with %s, want the parse error", events[len(events)-1].Data)

		events = readSSE(t, postOK(t, ts.URL+responsesPath, responses+`, "stream": true}`, "text/event-stream"))
		if n := len(events); assert.GreaterOrEqual(t, n, 2, "responses stream's events") {
			assert.Equal(t, "error", events[n-2].Event, "responses stream ends with %+v, want error and response.failed", events[n-2:])
			assert.Contains(t, events[n-2].Data, parseErr, "responses stream ends with %+v, want error and response.failed", events[n-2:])
			assert.Equal(t, "response.failed", events[n-1].Event, "responses stream ends with %+v, want error and response.failed", events[n-2:])
		}
	})
}

// checkRecoveredOutput checks the output of a recovered forgottenStart:
// the reasoning, then the call.
func checkRecoveredOutput(t *testing.T, where string, r openaicompat.Response) {
	t.Helper()
	b, _ := json.Marshal(r.Output)
	assert.Equal(t, "completed", r.Status, "%s: status; output %s", where, b)
	if !assert.Len(t, r.Output, 2, "%s: output %s", where, b) {
		return
	}
	rs, call := r.Output[0], r.Output[1]
	assert.Equal(t, "reasoning", rs.Type, "%s: output %s", where, b)
	if assert.NotNil(t, rs.Content, "%s: output %s", where, b) && assert.Len(t, rs.Content.Parts, 1, "%s: output %s", where, b) {
		assert.Equal(t, "think", rs.Content.Parts[0].Text, "%s: output %s", where, b)
	}
	assert.Equal(t, "function_call", call.Type, "%s: output %s", where, b)
	assert.Equal(t, "get_weather", call.Name, "%s: output %s", where, b)
	assert.Equal(t, `{"city":"Oslo"}`, call.Arguments, "%s: output %s", where, b)
}

// TestRunStandIn: with no flags but the address the server runs the
// built-in stand-in model, says so, answers, and logs the request.
func TestRunStandIn(t *testing.T) {
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, pw); pw.Close() }()
	lines := make(chan string, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				require.Fail(t, "the server stopped", "%v", <-done)
			}
			return l
		case <-time.After(time.Minute): // only to stop a hung test
			require.Fail(t, "no line from the server")
			return ""
		}
	}
	addr, ok := strings.CutPrefix(next(), "chatserver: listening on http://")
	require.True(t, ok, "first line is not the address")
	l := next()
	assert.True(t, strings.HasPrefix(l, "chatserver: model: the built-in stand-in"), "second line %q, want the model", l)
	var r openaicompat.ChatCompletionResponse
	unmarshal(t, postOK(t, "http://"+addr+chatPath, `{"model": "gpt-oss-120b", "messages": [{"role": "user", "content": "What is 2 + 2?"}]}`, "application/json"), &r)
	if c := r.Choices[0].Message.Content; assert.NotNil(t, c, "content") {
		assert.Equal(t, "You said: What is 2 + 2?", c.Text, "content")
	}
	assert.Contains(t, next(), " msg=request method=POST path=/v1/chat/completions status=200 prompt_tokens=", "access log line")
	cancel()
	assert.NoError(t, <-done, "run")
	for l := range lines {
		assert.Fail(t, "more output", "%q", l)
	}

	// A negative window is refused.
	var stderr strings.Builder
	assert.ErrorContains(t, run(t.Context(), []string{"-context-window", "-1"}, &stderr), "-context-window -1")
}

// TestRequestTooComplex: a body within -max-body-bytes that would take far
// more memory decoded than its size, as issue 19's annotations of a
// million numbers, is a 400 request_too_complex naming the list, and
// never reaches the model.
func TestRequestTooComplex(t *testing.T) {
	prompts := &syncBuffer{}
	ts := startServer(t, standIn{testenc.Encoding(t)}, prompts)
	zeros := strings.TrimSuffix(strings.Repeat("0,", 1<<20), ",")
	for _, tc := range []struct{ path, body, param string }{
		{responsesPath, `{"input": [{"role": "assistant", "content": [{"type": "output_text", "text": "x", "annotations": [` + zeros + `]}]}]}`,
			"input[0].content[0].annotations"},
		{chatPath, `{"messages": [` + strings.TrimSuffix(strings.Repeat("{},", 1<<20), ",") + `]}`, "messages"},
	} {
		postError(t, ts.URL+tc.path, tc.body, 400, "invalid_request_error", tc.param, "request_too_complex", "16 times its")
	}
	require.Empty(t, prompts.String(), "a refused request reached the model")
}
