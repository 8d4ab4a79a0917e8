package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/openaicompat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testTime is the fixed clock of the tests: 2025-06-28 12:00:00 UTC.
var testTime = time.Date(2025, 6, 28, 12, 0, 0, 0, time.UTC)

// counterIDs gives each response the ids suffixes 1, 2, 3, …
func counterIDs() func() string {
	n := 0
	return func() string { n++; return strconv.Itoa(n) }
}

// replayOf is a replay of the harmony texts, one line each.
func replayOf(enc *harmony.Encoding, texts ...string) *replay {
	r := &replay{}
	for _, s := range texts {
		r.lines = append(r.lines, enc.EncodeWithSpecialTokens(s))
	}
	return r
}

// syncBuffer is a prompt log the test can read while the server writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startServer serves the model with the test clock and counter ids.
func startServer(t *testing.T, m model, prompts io.Writer) *httptest.Server {
	t.Helper()
	return startServerWith(t, m, prompts, options{})
}

// startServerWith is startServer with options; the clock and ids are the
// tests'.
func startServerWith(t *testing.T, m model, prompts io.Writer, opts options) *httptest.Server {
	t.Helper()
	opts.Now, opts.NewIDs = func() time.Time { return testTime }, counterIDs
	h := newServer(testenc.Encoding(t), m, prompts, opts)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

// post sends body as JSON and returns the response with its whole body.
func post(t *testing.T, url, body string) (*http.Response, []byte) {
	t.Helper()
	return postAs(t, url, "", body)
}

// postOK is post that wants 200 and the Content-Type ct.
func postOK(t *testing.T, url, body, ct string) []byte {
	t.Helper()
	resp, b := post(t, url, body)
	require.Equal(t, http.StatusOK, resp.StatusCode, "POST %s: status, body %s", url, b)
	require.Equal(t, ct, resp.Header.Get("Content-Type"), "POST %s: Content-Type", url)
	return b
}

// sseEvent is one server-sent event.
type sseEvent struct {
	Event string // "" when the event has no name
	Data  string
}

// readSSE parses an event stream line by line: "event:" and "data:" fields,
// a blank line ending each event. It fails on any other line, on an event
// with several data lines and on a stream that does not end with a blank
// line.
func readSSE(t *testing.T, body []byte) []sseEvent {
	t.Helper()
	var events []sseEvent
	var cur sseEvent
	open := false
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			require.True(t, open, "empty event in stream:\n%s", body)
			events = append(events, cur)
			cur, open = sseEvent{}, false
		case strings.HasPrefix(line, "event: "):
			require.False(t, open, "event field after data: %q", line)
			cur.Event, open = strings.TrimPrefix(line, "event: "), true
		case strings.HasPrefix(line, "data: "):
			require.Empty(t, cur.Data, "second data line: %q", line)
			cur.Data, open = strings.TrimPrefix(line, "data: "), true
		default:
			require.Fail(t, "unexpected line in stream", "%q", line)
		}
	}
	require.NoError(t, sc.Err())
	require.False(t, open, "stream does not end with a blank line:\n%s", body)
	require.True(t, bytes.HasSuffix(body, []byte("\n\n")), "stream does not end with a blank line:\n%s", body)
	return events
}

// compact returns the compact form of the JSON text s.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Compact(&b, []byte(s)), "in %s", s)
	return b.String()
}

// unmarshal decodes the JSON data into v, or fails t.
func unmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(data, v), "in %s", data)
}

// Replay lines used by several tests.
const (
	answerLine = `<|channel|>analysis<|message|>Simple arithmetic.<|end|>` +
		`<|start|>assistant<|channel|>final<|message|>2 + 2 = 4.<|return|>`
	toolLine = `<|channel|>analysis<|message|>Need the weather.<|end|>` +
		`<|start|>assistant<|channel|>commentary<|message|>Checking both cities.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`
	parallelLine = `<|channel|>analysis<|message|>Two cities.<|end|>` +
		`<|start|>assistant<|channel|>analysis<|message|>Call twice.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Bergen"}<|call|>`
	weatherLine = `<|channel|>analysis<|message|>It is 21 degrees.<|end|>` +
		`<|start|>assistant<|channel|>final<|message|>It is 21 °C in Oslo.<|return|>`
	// badLine has a message from the user in the model's output.
	badLine = `<|channel|>final<|message|>Hi<|end|><|start|>user<|message|>Pretend.<|end|>`
)

const weatherTool = `{"type": "function", "function": {"name": "get_weather", "description": "Current weather.",
	"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}`

func TestChatCompletion(t *testing.T) {
	enc := testenc.Encoding(t)
	prompts := &syncBuffer{}
	ts := startServer(t, replayOf(enc, answerLine), prompts)
	body := postOK(t, ts.URL+chatPath, `{
		"model": "gpt-oss-20b",
		"reasoning_effort": "low",
		"messages": [
			{"role": "system", "content": "Answer briefly."},
			{"role": "user", "content": "What is 2 + 2?"}
		]
	}`, "application/json")
	want := compact(t, `{
		"id": "chatcmpl-1",
		"object": "chat.completion",
		"created": 1751112000,
		"model": "gpt-oss-20b",
		"choices": [{
			"index": 0,
			"message": {"role": "assistant", "content": "2 + 2 = 4.", "reasoning": "Simple arithmetic.", "refusal": null},
			"logprobs": null,
			"finish_reason": "stop"
		}],
		"usage": {"prompt_tokens": 85, "completion_tokens": 21, "total_tokens": 106,
			"prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 7}}
	}`) + "\n"
	assert.Equal(t, want, string(body), "response")

	// The prompt the usage counts, and the completion it counts.
	logged := promptLines(t, enc, prompts.String())
	require.Len(t, logged, 1, "prompts logged")
	wantPrompt := "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n" +
		"Knowledge cutoff: 2024-06\nCurrent date: 2025-06-28\n\nReasoning: low\n\n" +
		"# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|>" +
		"<|start|>developer<|message|># Instructions\n\nAnswer briefly.<|end|>" +
		"<|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant"
	assert.Equal(t, wantPrompt, logged[0].Text, "prompt")
	assert.Len(t, logged[0].Tokens, 85, "prompt tokens, as usage says")
	assert.Len(t, enc.EncodeWithSpecialTokens(answerLine), 21, "completion tokens, as usage says")
	analysis := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Simple arithmetic.<|end|>`)
	assert.Len(t, analysis, 7, "analysis message tokens, as usage says")
}

// loggedPrompt is a line of the prompt log.
type loggedPrompt struct {
	Text   string          `json:"text"`
	Tokens []harmony.Token `json:"tokens"`
}

// promptLines parses a prompt log, checking that every line has exactly
// the fields text and tokens, and that the tokens are the text.
func promptLines(t *testing.T, enc *harmony.Encoding, log string) []loggedPrompt {
	t.Helper()
	if log == "" {
		return nil
	}
	require.True(t, strings.HasSuffix(log, "\n"), "prompt log does not end with a newline: %q", log)
	var out []loggedPrompt
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		var fields map[string]json.RawMessage
		unmarshal(t, []byte(line), &fields)
		require.Len(t, fields, 2, "prompt log line has fields other than text and tokens: %s", line)
		require.NotNil(t, fields["text"], "prompt log line has fields other than text and tokens: %s", line)
		require.NotNil(t, fields["tokens"], "prompt log line has fields other than text and tokens: %s", line)
		var p loggedPrompt
		unmarshal(t, []byte(line), &p)
		text, err := enc.Decode(p.Tokens)
		require.NoError(t, err, "prompt log line: tokens decode")
		require.Equal(t, p.Text, text, "prompt log line: tokens decode to other text")
		out = append(out, p)
	}
	return out
}

// streamCases are replay lines, and request fields, for which a stream must
// say what the whole response says.
var streamCases = []struct {
	name  string
	line  string
	extra string // more request fields, with a leading comma
	limit int    // the token limit extra sets, if any
}{
	{"answer", answerLine, "", 0},
	{"preamble and call", toolLine, "", 0},
	{"parallel calls", parallelLine, "", 0},
	{"truncated", answerLine, `, "max_tokens": 9`, 9},
	{"truncated in header", answerLine, `, "max_completion_tokens": 8`, 8},
	{"truncated in call", toolLine, `, "max_tokens": 36`, 36},
	{"truncated after call header", toolLine, `, "max_tokens": 33, "max_completion_tokens": 33`, 33},
	{"limit not reached", answerLine, `, "max_tokens": 21`, 0},
	{"stand-in", "", "", 0},
}

// modelFor is the replay of one line, or the stand-in for "".
func modelFor(enc *harmony.Encoding, line string) model {
	if line == "" {
		return standIn{enc}
	}
	return replayOf(enc, line)
}

func TestChatStream(t *testing.T) {
	enc := testenc.Encoding(t)
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, modelFor(enc, tc.line), nil)
			req := `{"model": "gpt-oss-120b", "tools": [` + weatherTool + `],
				"messages": [{"role": "user", "content": "Weather in Oslo and Bergen?"}]` + tc.extra
			var whole openaicompat.ChatCompletionResponse
			unmarshal(t, postOK(t, ts.URL+chatPath, req+`}`, "application/json"), &whole)
			body := postOK(t, ts.URL+chatPath, req+`, "stream": true, "stream_options": {"include_usage": true}}`, "text/event-stream")

			events := readSSE(t, body)
			require.GreaterOrEqual(t, len(events), 4, "events")
			require.Equal(t, sseEvent{Data: "[DONE]"}, events[len(events)-1], "last event")
			var content, reasoning strings.Builder
			var calls []openaicompat.ToolCall
			var finish openaicompat.FinishReason
			var usage *openaicompat.ChatUsage
			for i, e := range events[:len(events)-1] {
				require.Empty(t, e.Event, "chat event %d has a name", i)
				var ch openaicompat.ChatCompletionChunk
				unmarshal(t, []byte(e.Data), &ch)
				require.Equal(t, whole.ID, ch.ID, "chunk %d: id", i)
				require.Equal(t, "chat.completion.chunk", ch.Object, "chunk %d: object", i)
				require.Equal(t, whole.Created, ch.Created, "chunk %d: created", i)
				require.Equal(t, whole.Model, ch.Model, "chunk %d: model", i)
				if ch.Usage != nil {
					require.Equal(t, len(events)-2, i, "usage chunk %d is not the last: %s", i, e.Data)
					require.Empty(t, ch.Choices, "usage chunk %d has choices: %s", i, e.Data)
					usage = ch.Usage
					continue
				}
				require.Len(t, ch.Choices, 1, "chunk %d: choices", i)
				c := ch.Choices[0]
				require.Empty(t, finish, "chunk %d after the finish reason: %s", i, e.Data)
				finish = c.FinishReason
				require.Equal(t, i == 0, c.Delta.Role == "assistant", "chunk %d: role %q", i, c.Delta.Role)
				content.WriteString(c.Delta.Content)
				reasoning.WriteString(c.Delta.Reasoning)
				for _, d := range c.Delta.ToolCalls {
					if d.ID != "" {
						require.Equal(t, len(calls), d.Index, "chunk %d starts a call: index", i)
						require.Empty(t, d.Function.Arguments, "chunk %d starts call %d with arguments", i, d.Index)
						calls = append(calls, openaicompat.ToolCall{ID: d.ID, Type: d.Type, Function: openaicompat.FunctionCall{Name: d.Function.Name}})
						continue
					}
					require.Equal(t, len(calls)-1, d.Index, "chunk %d: arguments for call %d of %d", i, d.Index, len(calls))
					calls[d.Index].Function.Arguments += d.Function.Arguments
				}
			}

			msg := whole.Choices[0].Message
			wantContent := ""
			if msg.Content != nil {
				wantContent = msg.Content.Text
			}
			assert.Equal(t, wantContent, content.String(), "streamed content, response's")
			assert.Equal(t, msg.Reasoning, reasoning.String(), "streamed reasoning, response's")
			assert.Equal(t, msg.ToolCalls, calls, "streamed calls, response's")
			assert.Equal(t, whole.Choices[0].FinishReason, finish, "streamed finish reason, response's")
			assert.Equal(t, whole.Usage, usage, "streamed usage, response's")

			// What each case is about.
			if tc.limit > 0 {
				assert.Equal(t, openaicompat.FinishLength, finish, "finish")
				assert.Equal(t, tc.limit, whole.Usage.CompletionTokens, "completion tokens")
			}
			switch tc.name {
			case "limit not reached":
				assert.Equal(t, openaicompat.FinishStop, finish, "finish")
				assert.Equal(t, 21, whole.Usage.CompletionTokens, "completion tokens")
			case "truncated in call":
				if assert.Len(t, calls, 1) {
					assert.Equal(t, `{"city":"`, calls[0].Function.Arguments)
				}
			case "parallel calls":
				if assert.Len(t, calls, 2) {
					assert.Equal(t, `{"city":"Bergen"}`, calls[1].Function.Arguments)
				}
				assert.Equal(t, "Two cities.\n\nCall twice.", msg.Reasoning)
			case "preamble and call":
				assert.Equal(t, "Checking both cities.", wantContent, "content")
				assert.Len(t, calls, 1)
				assert.Equal(t, openaicompat.FinishToolCalls, finish, "finish")
			case "stand-in":
				assert.Equal(t, "You said: Weather in Oslo and Bergen?", wantContent, "stand-in content")
			}
		})
	}
}

// wireEvent is a Responses stream event as the wire writes it.
type wireEvent struct {
	Type           string                 `json:"type"`
	SequenceNumber *int                   `json:"sequence_number"`
	Response       json.RawMessage        `json:"response"`
	OutputIndex    int                    `json:"output_index"`
	ContentIndex   int                    `json:"content_index"`
	ItemID         string                 `json:"item_id"`
	Item           *openaicompat.Item     `json:"item"`
	Part           *openaicompat.ItemPart `json:"part"`
	Delta          string                 `json:"delta"`
	Text           string                 `json:"text"`
	Arguments      string                 `json:"arguments"`
}

func TestResponsesStream(t *testing.T) {
	enc := testenc.Encoding(t)
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, modelFor(enc, tc.line), nil)
			extra := strings.NewReplacer("max_tokens", "max_output_tokens", "max_completion_tokens", "max_output_tokens").Replace(tc.extra)
			req := `{"model": "gpt-oss-120b", "input": "Weather in Oslo and Bergen?",
				"tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]` + extra
			wholeBody := postOK(t, ts.URL+responsesPath, req+`}`, "application/json")
			var whole openaicompat.Response
			unmarshal(t, wholeBody, &whole)
			body := postOK(t, ts.URL+responsesPath, req+`, "stream": true}`, "text/event-stream")

			events := readSSE(t, body)
			var evs []wireEvent
			for i, e := range events {
				var w wireEvent
				unmarshal(t, []byte(e.Data), &w)
				require.Equal(t, e.Event, w.Type, "event %d: type and name", i)
				require.NotNil(t, w.SequenceNumber, "event %d (%s): sequence_number", i, e.Event)
				require.Equal(t, i, *w.SequenceNumber, "event %d (%s): sequence_number", i, e.Event)
				evs = append(evs, w)
			}
			require.GreaterOrEqual(t, len(evs), 3, "stream does not start with response.created, response.in_progress: %s", body)
			require.Equal(t, "response.created", evs[0].Type, "stream does not start with response.created, response.in_progress: %s", body)
			require.Equal(t, "response.in_progress", evs[1].Type, "stream does not start with response.created, response.in_progress: %s", body)
			last := evs[len(evs)-1]
			wantLast := "response.completed"
			if whole.Status == "incomplete" {
				wantLast = "response.incomplete"
			}
			require.Equal(t, wantLast, last.Type, "last event")
			assert.Equal(t, compact(t, string(wholeBody)), compact(t, string(last.Response)), "streamed response, whole response")

			// Each item: added, its part or arguments, done — in order, and
			// the deltas make the item of the whole response.
			type itemState struct {
				text  strings.Builder
				stage string
			}
			var items []*itemState
			for i, e := range evs[2 : len(evs)-1] {
				i += 2
				bad := func() { require.Fail(t, "event out of order", "event %d %s (%+v)", i, e.Type, e) }
				if e.Type == "response.output_item.added" {
					if e.OutputIndex != len(items) || e.Item == nil {
						bad()
					}
					items = append(items, &itemState{stage: "added"})
					continue
				}
				if len(items) == 0 || e.OutputIndex != len(items)-1 {
					bad()
				}
				it := items[e.OutputIndex]
				wantItem := whole.Output[e.OutputIndex]
				if e.Type != "response.output_item.done" {
					require.Equal(t, wantItem.ID, e.ItemID, "event %d: item_id", i)
				}
				switch e.Type {
				case "response.content_part.added":
					if it.stage != "added" || wantItem.Type == "function_call" {
						bad()
					}
					it.stage = "part"
				case "response.reasoning_text.delta", "response.output_text.delta":
					if it.stage != "part" || (e.Type == "response.reasoning_text.delta") != (wantItem.Type == "reasoning") {
						bad()
					}
					it.text.WriteString(e.Delta)
				case "response.reasoning_text.done", "response.output_text.done":
					if it.stage != "part" || e.Text != it.text.String() {
						bad()
					}
					it.stage = "text done"
				case "response.content_part.done":
					if it.stage != "text done" || e.Part == nil || e.Part.Text != it.text.String() {
						bad()
					}
					it.stage = "part done"
				case "response.function_call_arguments.delta":
					if it.stage != "added" || wantItem.Type != "function_call" {
						bad()
					}
					it.text.WriteString(e.Delta)
				case "response.function_call_arguments.done":
					if it.stage != "added" || e.Arguments != it.text.String() {
						bad()
					}
					it.stage = "part done"
				case "response.output_item.done":
					require.Equal(t, "part done", it.stage, "event %d: item done at stage", i)
					require.NotNil(t, e.Item, "event %d: item", i)
					require.Equal(t, wantItem, *e.Item, "event %d: item", i)
					it.stage = "done"
				default:
					bad()
				}
				var wantText string
				switch wantItem.Type {
				case "function_call":
					wantText = wantItem.Arguments
				default:
					wantText = wantItem.Content.Parts[0].Text
				}
				require.True(t, strings.HasPrefix(wantText, it.text.String()), "event %d: deltas %q are not a prefix of %q", i, it.text.String(), wantText)
			}
			require.Len(t, items, len(whole.Output), "items streamed, as in the response")
			for i, it := range items {
				assert.Equal(t, "done", it.stage, "item %d not done", i)
			}

			if tc.limit > 0 {
				assert.Equal(t, "incomplete", whole.Status, "status")
				if assert.NotNil(t, whole.IncompleteDetails, "incomplete_details") {
					assert.Equal(t, "max_output_tokens", whole.IncompleteDetails.Reason, "incomplete_details.reason")
				}
				assert.Equal(t, tc.limit, whole.Usage.OutputTokens, "output tokens")
			} else {
				assert.Equal(t, "completed", whole.Status, "status")
			}
			switch tc.name {
			case "parallel calls":
				if assert.Len(t, whole.Output, 4, "output") {
					assert.Equal(t, `{"city":"Bergen"}`, whole.Output[3].Arguments, "output 3")
				}
			}
		})
	}
}

func TestToolRoundTrip(t *testing.T) {
	enc := testenc.Encoding(t)
	// The tool call and the tool result as the prompt of the second
	// request must show them. (harmony renders the recipient of a message
	// in the history before its channel, as the reference does; the model
	// may write it either side.)
	const wantTail = `<|start|>user<|message|>Weather in Oslo?<|end|>` +
		`<|start|>assistant<|channel|>analysis<|message|>Need the weather.<|end|>` +
		`<|start|>assistant<|channel|>commentary<|message|>Checking both cities.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>` +
		`<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp_c": 21}<|end|>` +
		`<|start|>assistant`

	t.Run("chat", func(t *testing.T) {
		prompts := &syncBuffer{}
		ts := startServer(t, replayOf(enc, toolLine, weatherLine), prompts)
		user := `{"role": "user", "content": "Weather in Oslo?"}`
		var first openaicompat.ChatCompletionResponse
		unmarshal(t, postOK(t, ts.URL+chatPath, `{"tools": [`+weatherTool+`], "messages": [`+user+`]}`, "application/json"), &first)
		require.Equal(t, openaicompat.FinishToolCalls, first.Choices[0].FinishReason, "finish reason")
		assistant, err := json.Marshal(first.Choices[0].Message) // sent back as it came
		require.NoError(t, err)
		callID := first.Choices[0].Message.ToolCalls[0].ID
		assert.Equal(t, "call_2", callID, "call id")
		tool := fmt.Sprintf(`{"role": "tool", "tool_call_id": %q, "content": "{\"temp_c\": 21}"}`, callID)
		var second openaicompat.ChatCompletionResponse
		unmarshal(t, postOK(t, ts.URL+chatPath, `{"tools": [`+weatherTool+`], "messages": [`+user+`, `+string(assistant)+`, `+tool+`]}`, "application/json"), &second)
		if c := second.Choices[0].Message.Content; assert.NotNil(t, c, "second answer") {
			assert.Equal(t, "It is 21 °C in Oslo.", c.Text, "second answer")
		}
		logged := promptLines(t, enc, prompts.String())
		require.Len(t, logged, 2, "prompts logged")
		assert.True(t, strings.HasSuffix(logged[1].Text, wantTail), "second prompt:\n%s\nwant it to end with:\n%s", logged[1].Text, wantTail)
		assert.Len(t, logged[1].Tokens, second.Usage.PromptTokens, "prompt tokens, as prompt_tokens says")
	})

	t.Run("responses", func(t *testing.T) {
		prompts := &syncBuffer{}
		ts := startServer(t, replayOf(enc, toolLine, weatherLine), prompts)
		tools := `"tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]`
		user := `{"type": "message", "role": "user", "content": "Weather in Oslo?"}`
		var first openaicompat.Response
		unmarshal(t, postOK(t, ts.URL+responsesPath, `{`+tools+`, "input": [`+user+`]}`, "application/json"), &first)
		require.Len(t, first.Output, 3, "output")
		require.Equal(t, "function_call", first.Output[2].Type, "output 2")
		input := []json.RawMessage{json.RawMessage(user)}
		for _, it := range first.Output { // sent back as they came
			b, err := json.Marshal(it)
			require.NoError(t, err)
			input = append(input, b)
		}
		input = append(input, json.RawMessage(fmt.Sprintf(`{"type": "function_call_output", "call_id": %q, "output": "{\"temp_c\": 21}"}`, first.Output[2].CallID)))
		in, err := json.Marshal(input)
		require.NoError(t, err)
		var second openaicompat.Response
		unmarshal(t, postOK(t, ts.URL+responsesPath, `{`+tools+`, "input": `+string(in)+`}`, "application/json"), &second)
		if assert.Len(t, second.Output, 2, "second output") {
			assert.Equal(t, "It is 21 °C in Oslo.", second.Output[1].Content.Parts[0].Text, "second output")
		}
		logged := promptLines(t, enc, prompts.String())
		require.Len(t, logged, 2, "prompts logged")
		assert.True(t, strings.HasSuffix(logged[1].Text, wantTail), "second prompt:\n%s\nwant it to end with:\n%s", logged[1].Text, wantTail)
	})
}

func TestInvalidRequest(t *testing.T) {
	enc := testenc.Encoding(t)
	prompts := &syncBuffer{}
	ts := startServer(t, replayOf(enc, answerLine, weatherLine), prompts)

	// The exact body for an unknown tool_call_id.
	resp, body := post(t, ts.URL+chatPath, `{"model": "m", "messages": [
		{"role": "user", "content": "Go"},
		{"role": "tool", "tool_call_id": "call_9", "content": "phantom"}
	]}`)
	want := compact(t, `{"error": {
		"message": "messages[1].tool_call_id: unknown tool call id: no earlier tool call has the id \"call_9\"",
		"type": "invalid_request_error",
		"param": "messages[1].tool_call_id",
		"code": "unknown_tool_call_id"
	}}`) + "\n"
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "status")
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"), "Content-Type")
	assert.Equal(t, want, string(body), "body")

	for _, tc := range []struct {
		name, path, ct, body string
		status               int
		param, code          string // "" for null
		message              string // a part of the message
	}{
		{"responses unknown call_id", responsesPath, "", `{"input": [{"type": "function_call_output", "call_id": "call_x", "output": "1"}]}`,
			400, "input[0].call_id", "unknown_tool_call_id", `"call_x"`},
		{"streamed, unknown id", chatPath, "", `{"stream": true, "messages": [{"role": "user", "content": "Go"}, {"role": "tool", "tool_call_id": "call_9", "content": "x"}]}`,
			400, "messages[1].tool_call_id", "unknown_tool_call_id", `"call_9"`},
		{"missing tool result", chatPath, "", `{"messages": [{"role": "user", "content": "Go"},
			{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}]}`,
			400, "messages", "missing_tool_result", "c1"},
		{"no messages", chatPath, "", `{"messages": []}`, 400, "messages", "invalid_request", "at least one message"},
		{"unknown role", chatPath, "", `{"messages": [{"role": "function", "content": "x"}]}`, 400, "messages[0].role", "unknown_role", `"function"`},
		{"previous_response_id unknown", responsesPath, "", `{"input": "Hi", "previous_response_id": "resp_1"}`, 400, "previous_response_id", "invalid_request", "no stored response has the id"},
		{"n", chatPath, "", `{"n": 2, "messages": [{"role": "user", "content": "Hi"}]}`, 400, "n", "unsupported_parameter", "n is 2"},
		{"max_tokens 0", chatPath, "", `{"max_tokens": 0, "messages": [{"role": "user", "content": "Hi"}]}`, 400, "max_tokens", "invalid_request", "at least 1"},
		{"max_output_tokens -1", responsesPath, "", `{"max_output_tokens": -1, "input": "Hi"}`, 400, "max_output_tokens", "invalid_request", "at least 1"},
		{"stream_options without stream", chatPath, "", `{"stream_options": {"include_usage": true}, "messages": [{"role": "user", "content": "Hi"}]}`,
			400, "stream_options", "invalid_request", "only allowed when stream is true"},
		{"bad JSON", chatPath, "", `{"messages": [`, 400, "", "invalid_json", "invalid JSON body: unexpected EOF"},
		{"trailing data", chatPath, "", `{"messages": [{"role": "user", "content": "Hi"}]} {}`, 400, "", "invalid_json", "more after the request's JSON object"},
		{"wrong JSON type", chatPath, "", `{"messages": {"role": "user"}}`, 400, "messages", "invalid_json", "invalid JSON body: json: cannot unmarshal"},
		{"empty body", responsesPath, "", ``, 400, "", "invalid_json", "the body is empty"},
		{"text/plain", chatPath, "text/plain", `{"messages": [{"role": "user", "content": "Hi"}]}`, 415, "", "unsupported_content_type", "text/plain"},
		{"form", responsesPath, "application/x-www-form-urlencoded", `{"input": "Hi"}`, 415, "", "unsupported_content_type", "application/json"},
		{"latin1", chatPath, "application/json; charset=latin1", `{"messages": [{"role": "user", "content": "Hi"}]}`, 415, "", "unsupported_content_type", "charset"},
		{"too large", chatPath, "", `{"messages": [{"role": "user", "content": "` + strings.Repeat("x", 8<<20) + `"}]}`, 413, "", "request_too_large", "larger than 8388608 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ct := tc.ct
			if ct == "" {
				ct = "application/json; charset=utf-8"
			}
			resp, err := http.Post(ts.URL+tc.path, ct, strings.NewReader(tc.body))
			require.NoError(t, err)
			defer resp.Body.Close()
			checkError(t, resp, tc.status, "invalid_request_error", tc.param, tc.code, tc.message)
		})
	}

	// None of them took a replay line or logged a prompt.
	var r openaicompat.ChatCompletionResponse
	unmarshal(t, postOK(t, ts.URL+chatPath, `{"messages": [{"role": "user", "content": "Hi"}]}`, "application/json"), &r)
	if c := r.Choices[0].Message.Content; assert.NotNil(t, c, "first valid request") {
		assert.Equal(t, "2 + 2 = 4.", c.Text, "first valid request, want the first replay line")
	}
	assert.Len(t, promptLines(t, enc, prompts.String()), 1, "prompts logged")
}

// postError posts body as JSON to url and checks that the answer is the
// error checkError describes.
func postError(t *testing.T, url, body string, status int, typ, param, code, message string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	checkError(t, resp, status, typ, param, code, message)
}

// checkError checks an OpenAI error response: its status, Content-Type,
// shape (exactly error.message, type, param, code) and values.
func checkError(t *testing.T, resp *http.Response, status int, typ, param, code, message string) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, status, resp.StatusCode, "status; body %s", body)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"), "Content-Type; body %s", body)
	var shape map[string]map[string]json.RawMessage
	unmarshal(t, body, &shape)
	require.Len(t, shape, 1, "not an OpenAI error body: %s", body)
	require.Len(t, shape["error"], 4, "not an OpenAI error body: %s", body)
	var e openaicompat.ErrorResponse
	unmarshal(t, body, &e)
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	assert.Equal(t, typ, e.Error.Type, "error type in %s", body)
	assert.Equal(t, param, str(e.Error.Param), "error param in %s", body)
	assert.Equal(t, code, str(e.Error.Code), "error code in %s", body)
	assert.Contains(t, e.Error.Message, message, "error message in %s", body)
}

func TestMethodAndPath(t *testing.T) {
	ts := startServer(t, standIn{testenc.Encoding(t)}, nil)
	for _, tc := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", chatPath, 405, "method_not_allowed"},
		{"PUT", responsesPath, 405, "method_not_allowed"},
		{"DELETE", chatPath, 405, "method_not_allowed"},
		{"POST", "/v1/completions", 404, "unknown_url"},
		{"POST", "/v1/chat/completions/", 404, "unknown_url"},
		{"GET", "/", 404, "unknown_url"},
		{"POST", "/v1/models", 404, "unknown_url"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(`{"input": "Hi"}`))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			if tc.status == 405 {
				assert.Equal(t, "POST", resp.Header.Get("Allow"), "Allow")
			}
			checkError(t, resp, tc.status, "invalid_request_error", "", tc.code, tc.path)
		})
	}
}

// TestRecoveredOutput: by default the server recovers malformed output as
// a production server must: the user message the model wrote is dropped.
func TestRecoveredOutput(t *testing.T) {
	enc := testenc.Encoding(t)
	ts := startServer(t, replayOf(enc, badLine), nil)
	resp, body := post(t, ts.URL+chatPath, `{"messages": [{"role": "user", "content": "Hi"}]}`)
	require.Equal(t, 200, resp.StatusCode, "status: %s", body)
	const want = `{"id":"chatcmpl-1","object":"chat.completion","created":1751112000,"model":"gpt-oss-120b","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":68,"completion_tokens":12,"total_tokens":80,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`
	assert.Equal(t, want, strings.TrimSpace(string(body)))
}

// TestModelOutputError: a strict server fails malformed output.
func TestModelOutputError(t *testing.T) {
	enc := testenc.Encoding(t)
	ts := startServerWith(t, replayOf(enc, badLine), nil, options{Strict: true})
	const chat = `{"messages": [{"role": "user", "content": "Hi"}]`

	t.Run("chat", func(t *testing.T) {
		postError(t, ts.URL+chatPath, chat+`}`, 500, "server_error", "", "", "not written by the assistant")
	})
	t.Run("responses", func(t *testing.T) {
		postError(t, ts.URL+responsesPath, `{"input": "Hi"}`, 500, "server_error", "", "", "not written by the assistant")
	})
	t.Run("chat stream", func(t *testing.T) {
		events := readSSE(t, postOK(t, ts.URL+chatPath, chat+`, "stream": true}`, "text/event-stream"))
		last := events[len(events)-1]
		var e openaicompat.ErrorResponse
		unmarshal(t, []byte(last.Data), &e)
		assert.Equal(t, "server_error", e.Error.Type, "last event %+v, want an error", last)
		assert.Contains(t, e.Error.Message, "not written by the assistant", "last event %+v, want an error", last)
		var content strings.Builder
		for _, ev := range events[:len(events)-1] {
			var ch openaicompat.ChatCompletionChunk
			unmarshal(t, []byte(ev.Data), &ch)
			content.WriteString(ch.Choices[0].Delta.Content)
		}
		assert.Equal(t, "Hi", content.String(), "content before the error")
	})
	t.Run("responses stream", func(t *testing.T) {
		events := readSSE(t, postOK(t, ts.URL+responsesPath, `{"input": "Hi", "stream": true}`, "text/event-stream"))
		for i, ev := range events {
			var w wireEvent
			unmarshal(t, []byte(ev.Data), &w)
			require.NotNil(t, w.SequenceNumber, "event %d: %+v", i, ev)
			require.Equal(t, i, *w.SequenceNumber, "event %d: %+v", i, ev)
			require.Equal(t, ev.Event, w.Type, "event %d: %+v", i, ev)
			require.NotEqual(t, "response.completed", ev.Event, "completed despite the error")
		}
		require.GreaterOrEqual(t, len(events), 2, "events")
		errEv := events[len(events)-2]
		var e map[string]any
		unmarshal(t, []byte(errEv.Data), &e)
		assert.Equal(t, "error", errEv.Event, "next to last event %+v, want an error event", errEv)
		assert.Equal(t, "error", e["type"], "next to last event %+v, want an error event", errEv)
		assert.Nil(t, e["code"], "next to last event %+v, want an error event", errEv)
		assert.Nil(t, e["param"], "next to last event %+v, want an error event", errEv)
		assert.Contains(t, fmt.Sprint(e["message"]), "not written by the assistant", "next to last event %+v, want an error event", errEv)
		assert.Len(t, e, 5, "next to last event %+v, want an error event", errEv)
		last := events[len(events)-1]
		var f struct {
			Response openaicompat.Response `json:"response"`
		}
		unmarshal(t, []byte(last.Data), &f)
		assert.Equal(t, "response.failed", last.Event, "last event %+v, want response.failed", last)
		assert.Equal(t, "failed", f.Response.Status, "last event %+v, want response.failed", last)
		if assert.NotNil(t, f.Response.Error, "last event %+v, want response.failed", last) {
			assert.Equal(t, "server_error", f.Response.Error.Code, "last event %+v, want response.failed", last)
			assert.Contains(t, f.Response.Error.Message, "not written by the assistant", "last event %+v, want response.failed", last)
		}
	})
}

func TestPromptsFile(t *testing.T) {
	enc := testenc.Encoding(t)
	path := filepath.Join(t.TempDir(), "prompts.jsonl")
	earlier := fmt.Sprintf(`{"text":"earlier","tokens":%s}`+"\n", strings.ReplaceAll(fmt.Sprint(enc.EncodeOrdinary("earlier")), " ", ","))
	require.NoError(t, os.WriteFile(path, []byte(earlier), 0o644))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644) // as -prompts opens it
	require.NoError(t, err)
	defer f.Close()
	ts := startServer(t, standIn{enc}, f)

	var usage []int
	for _, q := range []string{"first <|start|>question", "second"} {
		var r openaicompat.ChatCompletionResponse
		unmarshal(t, postOK(t, ts.URL+chatPath, `{"messages": [{"role": "user", "content": "`+q+`"}]}`, "application/json"), &r)
		usage = append(usage, r.Usage.PromptTokens)
	}
	var r openaicompat.Response
	unmarshal(t, postOK(t, ts.URL+responsesPath, `{"input": "third", "instructions": "Be terse."}`, "application/json"), &r)
	usage = append(usage, r.Usage.InputTokens)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	logged := promptLines(t, enc, string(data))
	require.Len(t, logged, 4, "prompt log:\n%s", data)
	require.Equal(t, "earlier", logged[0].Text, "prompt log:\n%s", data)
	for i, want := range []string{
		"<|start|>user<|message|>first <|start|>question<|end|><|start|>assistant",
		"<|start|>user<|message|>second<|end|><|start|>assistant",
		"<|start|>developer<|message|># Instructions\n\nBe terse.<|end|><|start|>user<|message|>third<|end|><|start|>assistant",
	} {
		p := logged[i+1]
		assert.True(t, strings.HasSuffix(p.Text, want), "prompt %d:\n%s\nwant it to end with\n%s", i, p.Text, want)
		assert.Len(t, p.Tokens, usage[i], "prompt %d: tokens, as usage says", i)
	}
	// The user's "<|start|>" is ordinary text, not the special token.
	start, _ := harmony.SpecialToken("<|start|>")
	n := 0
	for _, tok := range logged[1].Tokens {
		if tok == start {
			n++
		}
	}
	assert.Equal(t, 3, n, "first prompt's <|start|> tokens: system, user, assistant")
	// The log is literal: no \u003c escapes.
	assert.Contains(t, string(data), `"text":"<|start|>system<|message|>`, "prompt log is escaped")
}

func TestReplayCycles(t *testing.T) {
	enc := testenc.Encoding(t)
	lines := []string{
		`<|channel|>final<|message|>A<|return|>`,
		`<|channel|>final<|message|>B<|return|>`,
		// Sampling stops at <|return|>: the rest is never seen.
		`<|channel|>final<|message|>C<|return|><|start|>assistant<|channel|>final<|message|>D<|return|>`,
	}

	t.Run("in order", func(t *testing.T) {
		ts := startServer(t, replayOf(enc, lines...), nil)
		var got []string
		for i := range 7 {
			if i%2 == 0 {
				var r openaicompat.ChatCompletionResponse
				unmarshal(t, postOK(t, ts.URL+chatPath, `{"messages": [{"role": "user", "content": "Hi"}]}`, "application/json"), &r)
				got = append(got, r.Choices[0].Message.Content.Text)
			} else {
				var r openaicompat.Response
				unmarshal(t, postOK(t, ts.URL+responsesPath, `{"input": "Hi"}`, "application/json"), &r)
				got = append(got, r.Output[0].Content.Parts[0].Text)
			}
		}
		assert.Equal(t, "A B C A B C A", strings.Join(got, " "))
	})

	t.Run("concurrent", func(t *testing.T) {
		prompts := &syncBuffer{}
		ts := startServer(t, replayOf(enc, lines...), prompts)
		const n = 30
		var mu sync.Mutex
		count := map[string]int{}
		byPrompt := map[string]string{}
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				q := fmt.Sprintf("question %d", i)
				body := `{"messages": [{"role": "user", "content": "` + q + `"}]`
				if i%3 == 0 {
					body += `, "stream": true`
				}
				resp, err := http.Post(ts.URL+chatPath, "application/json", strings.NewReader(body+`}`))
				if !assert.NoError(t, err) {
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				if !assert.NoError(t, err) || !assert.Equal(t, 200, resp.StatusCode, "status") {
					return
				}
				var answer string
				if i%3 == 0 {
					for _, line := range strings.Split(string(b), "\n") {
						if s, ok := strings.CutPrefix(line, `data: {`); ok && strings.Contains(s, `"content":"`) {
							var ch openaicompat.ChatCompletionChunk
							if json.Unmarshal([]byte("{"+s), &ch) == nil {
								answer += ch.Choices[0].Delta.Content
							}
						}
					}
				} else {
					var r openaicompat.ChatCompletionResponse
					if !assert.NoError(t, json.Unmarshal(b, &r)) {
						return
					}
					answer = r.Choices[0].Message.Content.Text
				}
				mu.Lock()
				count[answer]++
				byPrompt[q] = answer
				mu.Unlock()
			})
		}
		wg.Wait()
		assert.Equal(t, map[string]int{"A": 10, "B": 10, "C": 10}, count, "answers")
		// Line k of the prompt log got replay line k mod 3.
		logged := promptLines(t, enc, prompts.String())
		require.Len(t, logged, n, "prompts logged")
		for k, p := range logged {
			_, rest, _ := strings.Cut(p.Text, "<|start|>user<|message|>")
			q, _, _ := strings.Cut(rest, "<|end|>")
			assert.Equal(t, []string{"A", "B", "C"}[k%3], byPrompt[q], "prompt log line %d (%q)", k, q)
		}
	})
}

func TestStandIn(t *testing.T) {
	ts := startServer(t, standIn{testenc.Encoding(t)}, nil)
	var r openaicompat.ChatCompletionResponse
	unmarshal(t, postOK(t, ts.URL+chatPath, `{"messages": [
		{"role": "user", "content": "Hello"},
		{"role": "assistant", "content": "Hi!"},
		{"role": "user", "content": "one two  three\nfour five six seven eight nine ten <|return|>"}
	]}`, "application/json"), &r)
	m := r.Choices[0].Message
	if assert.NotNil(t, m.Content, "content") {
		assert.Equal(t, "You said: one two three four five six seven eight…", m.Content.Text, "content")
	}
	assert.True(t, strings.HasPrefix(m.Reasoning, `The user wrote: "one two three`), "reasoning %q", m.Reasoning)
	assert.Equal(t, openaicompat.FinishReason("stop"), r.Choices[0].FinishReason, "finish")
	// Special-token text from the user stays text in the stand-in's answer.
	unmarshal(t, postOK(t, ts.URL+chatPath, `{"messages": [{"role": "user", "content": "<|return|> <|call|>"}]}`, "application/json"), &r)
	assert.Equal(t, "You said: <|return|> <|call|>", r.Choices[0].Message.Content.Text, "content")
}

func TestReadReplay(t *testing.T) {
	enc := testenc.Encoding(t)
	r, err := readReplay(enc, strings.NewReader("[200005, 17196]\n\n  [12] \r\n[]\n[1,2]"))
	require.NoError(t, err)
	want := [][]harmony.Token{{200005, 17196}, {12}, {}, {1, 2}}
	assert.Equal(t, want, r.lines, "lines")
	for _, tc := range []struct{ in, err string }{
		{"", "no completions"},
		{"\n \n", "no completions"},
		{"[1]\n{\"a\": 1}\n", "line 2"},
		{"[1]\n[-1]\n", "line 2"},
		{"null\n", "line 1"},
		{"[1]\n[1, 4000000]\n", "line 2"},
		{"[1] [2]\n", "line 1"},
	} {
		_, err := readReplay(enc, strings.NewReader(tc.in))
		assert.ErrorContains(t, err, tc.err, "readReplay(%q)", tc.in)
	}
}

// TestBinary builds the command and runs it on a free loopback port, with
// -replay and -prompts, sends it a request, and stops it.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	enc := testenc.Encoding(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "chatserver")
	out, err := exec.Command(gotool, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	replayFile := filepath.Join(dir, "replay.jsonl")
	ids, err := json.Marshal(enc.EncodeWithSpecialTokens(answerLine))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(replayFile, append(ids, '\n'), 0o644))
	promptsFile := filepath.Join(dir, "prompts.jsonl")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0", "-replay", replayFile, "-prompts", promptsFile, "-model", "local-oss")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	require.True(t, sc.Scan(), "no output from the server: %v", sc.Err())
	addr, ok := strings.CutPrefix(sc.Text(), "chatserver: listening on http://")
	require.True(t, ok, "first line %q", sc.Text())
	require.True(t, strings.HasPrefix(addr, "127.0.0.1:"), "first line %q", sc.Text())
	require.False(t, strings.HasSuffix(addr, ":0"), "first line %q", sc.Text())
	require.True(t, sc.Scan(), "no second line, want the model")
	require.Equal(t, "chatserver: model: replay of "+replayFile+" (1 line, repeated)", sc.Text(), "second line, want the model")
	rest := make(chan string)
	go func() {
		var b strings.Builder
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
		}
		rest <- b.String()
	}()

	var r openaicompat.ChatCompletionResponse
	unmarshal(t, postOK(t, "http://"+addr+chatPath, `{"messages": [{"role": "user", "content": "What is 2 + 2?"}]}`, "application/json"), &r)
	if c := r.Choices[0].Message.Content; assert.NotNil(t, c, "response %+v", r) {
		assert.Equal(t, "2 + 2 = 4.", c.Text, "response %+v", r)
	}
	assert.Equal(t, "local-oss", r.Model, "response %+v", r)

	// SIGINT stops it cleanly.
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	// The rest is the request's line in the access log.
	logLines := <-rest
	if lines := strings.Split(strings.TrimSuffix(logLines, "\n"), "\n"); assert.Len(t, lines, 1, "more output on stderr than one access log line: %q", logLines) {
		assert.Contains(t, lines[0], fmt.Sprintf(" level=INFO msg=request method=POST path=/v1/chat/completions status=200 prompt_tokens=%d completion_tokens=%d duration=",
			r.Usage.PromptTokens, r.Usage.CompletionTokens), "access log line")
	}
	assert.NoError(t, cmd.Wait(), "exit")

	data, err := os.ReadFile(promptsFile)
	require.NoError(t, err)
	logged := promptLines(t, enc, string(data))
	if assert.Len(t, logged, 1, "prompt log:\n%s", data) {
		assert.True(t, strings.HasSuffix(logged[0].Text, "<|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant"), "prompt log:\n%s", data)
		assert.Len(t, logged[0].Tokens, r.Usage.PromptTokens, "prompt log: tokens, as prompt_tokens says")
	}
}
