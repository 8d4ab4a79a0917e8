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
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/openaicompat"
)

// testTime is the fixed clock of the tests: 2025-06-28 12:00:00 UTC.
var testTime = time.Date(2025, 6, 28, 12, 0, 0, 0, time.UTC)

func loadEncoding(t testing.TB) *harmony.Encoding {
	t.Helper()
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

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
	h := newServer(loadEncoding(t), m, prompts, opts)
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
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: status %d, body %s", url, resp.StatusCode, b)
	}
	if got := resp.Header.Get("Content-Type"); got != ct {
		t.Fatalf("POST %s: Content-Type %q, want %q", url, got, ct)
	}
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
			if !open {
				t.Fatalf("empty event in stream:\n%s", body)
			}
			events = append(events, cur)
			cur, open = sseEvent{}, false
		case strings.HasPrefix(line, "event: "):
			if open {
				t.Fatalf("event field after data: %q", line)
			}
			cur.Event, open = strings.TrimPrefix(line, "event: "), true
		case strings.HasPrefix(line, "data: "):
			if cur.Data != "" {
				t.Fatalf("second data line: %q", line)
			}
			cur.Data, open = strings.TrimPrefix(line, "data: "), true
		default:
			t.Fatalf("unexpected line in stream: %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if open || !bytes.HasSuffix(body, []byte("\n\n")) {
		t.Fatalf("stream does not end with a blank line:\n%s", body)
	}
	return events
}

// compact returns the compact form of the JSON text s.
func compact(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		t.Fatalf("%v in %s", err, s)
	}
	return b.String()
}

func unmarshal(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
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
	enc := loadEncoding(t)
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
	if string(body) != want {
		t.Errorf("response:\n%s\nwant:\n%s", body, want)
	}

	// The prompt the usage counts, and the completion it counts.
	logged := promptLines(t, enc, prompts.String())
	if len(logged) != 1 {
		t.Fatalf("%d prompts logged, want 1", len(logged))
	}
	wantPrompt := "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n" +
		"Knowledge cutoff: 2024-06\nCurrent date: 2025-06-28\n\nReasoning: low\n\n" +
		"# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|>" +
		"<|start|>developer<|message|># Instructions\n\nAnswer briefly.<|end|>" +
		"<|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant"
	if logged[0].Text != wantPrompt {
		t.Errorf("prompt:\n%q\nwant:\n%q", logged[0].Text, wantPrompt)
	}
	if n := len(logged[0].Tokens); n != 85 {
		t.Errorf("prompt has %d tokens, usage says 85", n)
	}
	if n := len(enc.EncodeWithSpecialTokens(answerLine)); n != 21 {
		t.Errorf("completion has %d tokens, usage says 21", n)
	}
	analysis := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Simple arithmetic.<|end|>`)
	if len(analysis) != 7 {
		t.Errorf("analysis message has %d tokens, usage says 7", len(analysis))
	}
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
	if !strings.HasSuffix(log, "\n") {
		t.Fatalf("prompt log does not end with a newline: %q", log)
	}
	var out []loggedPrompt
	for _, line := range strings.Split(strings.TrimSuffix(log, "\n"), "\n") {
		var fields map[string]json.RawMessage
		unmarshal(t, []byte(line), &fields)
		if len(fields) != 2 || fields["text"] == nil || fields["tokens"] == nil {
			t.Fatalf("prompt log line has fields other than text and tokens: %s", line)
		}
		var p loggedPrompt
		unmarshal(t, []byte(line), &p)
		if text, err := enc.Decode(p.Tokens); err != nil || text != p.Text {
			t.Fatalf("prompt log line: tokens decode to %q (%v), text is %q", text, err, p.Text)
		}
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
	enc := loadEncoding(t)
	for _, tc := range streamCases {
		t.Run(tc.name, func(t *testing.T) {
			ts := startServer(t, modelFor(enc, tc.line), nil)
			req := `{"model": "gpt-oss-120b", "tools": [` + weatherTool + `],
				"messages": [{"role": "user", "content": "Weather in Oslo and Bergen?"}]` + tc.extra
			var whole openaicompat.ChatCompletionResponse
			unmarshal(t, postOK(t, ts.URL+chatPath, req+`}`, "application/json"), &whole)
			body := postOK(t, ts.URL+chatPath, req+`, "stream": true, "stream_options": {"include_usage": true}}`, "text/event-stream")

			events := readSSE(t, body)
			if n := len(events); n < 4 {
				t.Fatalf("%d events", n)
			}
			if last := events[len(events)-1]; last != (sseEvent{Data: "[DONE]"}) {
				t.Fatalf("last event %+v, want data: [DONE]", last)
			}
			var content, reasoning strings.Builder
			var calls []openaicompat.ToolCall
			var finish openaicompat.FinishReason
			var usage *openaicompat.ChatUsage
			for i, e := range events[:len(events)-1] {
				if e.Event != "" {
					t.Fatalf("chat event %d has a name: %q", i, e.Event)
				}
				var ch openaicompat.ChatCompletionChunk
				unmarshal(t, []byte(e.Data), &ch)
				if ch.ID != whole.ID || ch.Object != "chat.completion.chunk" || ch.Created != whole.Created || ch.Model != whole.Model {
					t.Fatalf("chunk %d: id %q object %q created %d model %q; response: %q %d %q",
						i, ch.ID, ch.Object, ch.Created, ch.Model, whole.ID, whole.Created, whole.Model)
				}
				if ch.Usage != nil {
					if i != len(events)-2 || len(ch.Choices) != 0 {
						t.Fatalf("usage chunk %d is not the last, or has choices: %s", i, e.Data)
					}
					usage = ch.Usage
					continue
				}
				if len(ch.Choices) != 1 {
					t.Fatalf("chunk %d has %d choices", i, len(ch.Choices))
				}
				c := ch.Choices[0]
				if finish != "" {
					t.Fatalf("chunk %d after the finish reason: %s", i, e.Data)
				}
				finish = c.FinishReason
				if (i == 0) != (c.Delta.Role == "assistant") {
					t.Fatalf("chunk %d: role %q", i, c.Delta.Role)
				}
				content.WriteString(c.Delta.Content)
				reasoning.WriteString(c.Delta.Reasoning)
				for _, d := range c.Delta.ToolCalls {
					if d.ID != "" {
						if d.Index != len(calls) || d.Function.Arguments != "" {
							t.Fatalf("chunk %d starts call %d with arguments %q; have %d calls", i, d.Index, d.Function.Arguments, len(calls))
						}
						calls = append(calls, openaicompat.ToolCall{ID: d.ID, Type: d.Type, Function: openaicompat.FunctionCall{Name: d.Function.Name}})
						continue
					}
					if d.Index != len(calls)-1 {
						t.Fatalf("chunk %d: arguments for call %d of %d", i, d.Index, len(calls))
					}
					calls[d.Index].Function.Arguments += d.Function.Arguments
				}
			}

			msg := whole.Choices[0].Message
			wantContent := ""
			if msg.Content != nil {
				wantContent = msg.Content.Text
			}
			if content.String() != wantContent {
				t.Errorf("streamed content %q, response %q", content.String(), wantContent)
			}
			if reasoning.String() != msg.Reasoning {
				t.Errorf("streamed reasoning %q, response %q", reasoning.String(), msg.Reasoning)
			}
			if !reflect.DeepEqual(calls, msg.ToolCalls) {
				t.Errorf("streamed calls %+v, response %+v", calls, msg.ToolCalls)
			}
			if finish != whole.Choices[0].FinishReason {
				t.Errorf("streamed finish reason %q, response %q", finish, whole.Choices[0].FinishReason)
			}
			if !reflect.DeepEqual(usage, whole.Usage) {
				t.Errorf("streamed usage %+v, response %+v", usage, whole.Usage)
			}

			// What each case is about.
			if tc.limit > 0 && (finish != openaicompat.FinishLength || whole.Usage.CompletionTokens != tc.limit) {
				t.Errorf("finish %q, usage %+v; want length, %d tokens", finish, whole.Usage, tc.limit)
			}
			switch tc.name {
			case "limit not reached":
				if finish != openaicompat.FinishStop || whole.Usage.CompletionTokens != 21 {
					t.Errorf("finish %q, usage %+v", finish, whole.Usage)
				}
			case "truncated in call":
				if len(calls) != 1 || calls[0].Function.Arguments != `{"city":"` {
					t.Errorf("calls %+v", calls)
				}
			case "parallel calls":
				if len(calls) != 2 || calls[1].Function.Arguments != `{"city":"Bergen"}` || msg.Reasoning != "Two cities.\n\nCall twice." {
					t.Errorf("calls %+v, reasoning %q", calls, msg.Reasoning)
				}
			case "preamble and call":
				if wantContent != "Checking both cities." || len(calls) != 1 || finish != openaicompat.FinishToolCalls {
					t.Errorf("content %q, calls %+v, finish %q", wantContent, calls, finish)
				}
			case "stand-in":
				if wantContent != "You said: Weather in Oslo and Bergen?" {
					t.Errorf("stand-in content %q", wantContent)
				}
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
	enc := loadEncoding(t)
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
				if w.Type != e.Event {
					t.Fatalf("event %d named %q has type %q", i, e.Event, w.Type)
				}
				if w.SequenceNumber == nil || *w.SequenceNumber != i {
					t.Fatalf("event %d (%s) has sequence_number %v", i, e.Event, w.SequenceNumber)
				}
				evs = append(evs, w)
			}
			if len(evs) < 3 || evs[0].Type != "response.created" || evs[1].Type != "response.in_progress" {
				t.Fatalf("stream does not start with response.created, response.in_progress: %s", body)
			}
			last := evs[len(evs)-1]
			wantLast := "response.completed"
			if whole.Status == "incomplete" {
				wantLast = "response.incomplete"
			}
			if last.Type != wantLast {
				t.Fatalf("last event %q, want %q", last.Type, wantLast)
			}
			if got, want := compact(t, string(last.Response)), compact(t, string(wholeBody)); got != want {
				t.Errorf("streamed response:\n%s\nwhole response:\n%s", got, want)
			}

			// Each item: added, its part or arguments, done — in order, and
			// the deltas make the item of the whole response.
			type itemState struct {
				text  strings.Builder
				stage string
			}
			var items []*itemState
			for i, e := range evs[2 : len(evs)-1] {
				i += 2
				bad := func() { t.Fatalf("event %d %s out of order (%+v)", i, e.Type, e) }
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
				if e.Type != "response.output_item.done" && e.ItemID != wantItem.ID {
					t.Fatalf("event %d: item_id %q, want %q", i, e.ItemID, wantItem.ID)
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
					if it.stage != "part done" || e.Item == nil || !reflect.DeepEqual(*e.Item, wantItem) {
						t.Fatalf("event %d: item %+v, want %+v", i, e.Item, wantItem)
					}
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
				if !strings.HasPrefix(wantText, it.text.String()) {
					t.Fatalf("event %d: deltas %q are not a prefix of %q", i, it.text.String(), wantText)
				}
			}
			if len(items) != len(whole.Output) {
				t.Fatalf("%d items streamed, response has %d", len(items), len(whole.Output))
			}
			for i, it := range items {
				if it.stage != "done" {
					t.Errorf("item %d not done", i)
				}
			}

			if tc.limit > 0 {
				if whole.Status != "incomplete" || whole.IncompleteDetails == nil || whole.IncompleteDetails.Reason != "max_output_tokens" ||
					whole.Usage.OutputTokens != tc.limit {
					t.Errorf("status %q, details %+v, usage %+v", whole.Status, whole.IncompleteDetails, whole.Usage)
				}
			} else if whole.Status != "completed" {
				t.Errorf("status %q", whole.Status)
			}
			switch tc.name {
			case "parallel calls":
				if len(whole.Output) != 4 || whole.Output[3].Arguments != `{"city":"Bergen"}` {
					t.Errorf("output %+v", whole.Output)
				}
			}
		})
	}
}

func TestToolRoundTrip(t *testing.T) {
	enc := loadEncoding(t)
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
		if first.Choices[0].FinishReason != openaicompat.FinishToolCalls {
			t.Fatalf("finish reason %q", first.Choices[0].FinishReason)
		}
		assistant, err := json.Marshal(first.Choices[0].Message) // sent back as it came
		if err != nil {
			t.Fatal(err)
		}
		callID := first.Choices[0].Message.ToolCalls[0].ID
		if callID != "call_2" {
			t.Errorf("call id %q, want call_2", callID)
		}
		tool := fmt.Sprintf(`{"role": "tool", "tool_call_id": %q, "content": "{\"temp_c\": 21}"}`, callID)
		var second openaicompat.ChatCompletionResponse
		unmarshal(t, postOK(t, ts.URL+chatPath, `{"tools": [`+weatherTool+`], "messages": [`+user+`, `+string(assistant)+`, `+tool+`]}`, "application/json"), &second)
		if c := second.Choices[0].Message.Content; c == nil || c.Text != "It is 21 °C in Oslo." {
			t.Errorf("second answer %+v", c)
		}
		logged := promptLines(t, enc, prompts.String())
		if len(logged) != 2 {
			t.Fatalf("%d prompts logged", len(logged))
		}
		if !strings.HasSuffix(logged[1].Text, wantTail) {
			t.Errorf("second prompt:\n%s\nwant it to end with:\n%s", logged[1].Text, wantTail)
		}
		if second.Usage.PromptTokens != len(logged[1].Tokens) {
			t.Errorf("prompt_tokens %d, prompt has %d tokens", second.Usage.PromptTokens, len(logged[1].Tokens))
		}
	})

	t.Run("responses", func(t *testing.T) {
		prompts := &syncBuffer{}
		ts := startServer(t, replayOf(enc, toolLine, weatherLine), prompts)
		tools := `"tools": [{"type": "function", "name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}]`
		user := `{"type": "message", "role": "user", "content": "Weather in Oslo?"}`
		var first openaicompat.Response
		unmarshal(t, postOK(t, ts.URL+responsesPath, `{`+tools+`, "input": [`+user+`]}`, "application/json"), &first)
		if len(first.Output) != 3 || first.Output[2].Type != "function_call" {
			t.Fatalf("output %+v", first.Output)
		}
		input := []json.RawMessage{json.RawMessage(user)}
		for _, it := range first.Output { // sent back as they came
			b, err := json.Marshal(it)
			if err != nil {
				t.Fatal(err)
			}
			input = append(input, b)
		}
		input = append(input, json.RawMessage(fmt.Sprintf(`{"type": "function_call_output", "call_id": %q, "output": "{\"temp_c\": 21}"}`, first.Output[2].CallID)))
		in, err := json.Marshal(input)
		if err != nil {
			t.Fatal(err)
		}
		var second openaicompat.Response
		unmarshal(t, postOK(t, ts.URL+responsesPath, `{`+tools+`, "input": `+string(in)+`}`, "application/json"), &second)
		if n := len(second.Output); n != 2 || second.Output[1].Content.Parts[0].Text != "It is 21 °C in Oslo." {
			t.Errorf("second output %+v", second.Output)
		}
		logged := promptLines(t, enc, prompts.String())
		if len(logged) != 2 {
			t.Fatalf("%d prompts logged", len(logged))
		}
		if !strings.HasSuffix(logged[1].Text, wantTail) {
			t.Errorf("second prompt:\n%s\nwant it to end with:\n%s", logged[1].Text, wantTail)
		}
	})
}

func TestInvalidRequest(t *testing.T) {
	enc := loadEncoding(t)
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
	if resp.StatusCode != http.StatusBadRequest || resp.Header.Get("Content-Type") != "application/json" || string(body) != want {
		t.Errorf("status %d, Content-Type %q, body:\n%s\nwant 400, application/json,\n%s",
			resp.StatusCode, resp.Header.Get("Content-Type"), body, want)
	}

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
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			checkError(t, resp, tc.status, "invalid_request_error", tc.param, tc.code, tc.message)
		})
	}

	// None of them took a replay line or logged a prompt.
	var r openaicompat.ChatCompletionResponse
	unmarshal(t, postOK(t, ts.URL+chatPath, `{"messages": [{"role": "user", "content": "Hi"}]}`, "application/json"), &r)
	if c := r.Choices[0].Message.Content; c == nil || c.Text != "2 + 2 = 4." {
		t.Errorf("first valid request got %+v, want the first replay line", c)
	}
	if n := len(promptLines(t, enc, prompts.String())); n != 1 {
		t.Errorf("%d prompts logged, want 1", n)
	}
}

// checkError checks an OpenAI error response: its status, Content-Type,
// shape (exactly error.message, type, param, code) and values.
// postError posts body as JSON to url and checks that the answer is the
// error checkError describes.
func postError(t *testing.T, url, body string, status int, typ, param, code, message string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	checkError(t, resp, status, typ, param, code, message)
}

func checkError(t *testing.T, resp *http.Response, status int, typ, param, code, message string) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, Content-Type %q, want %d, application/json; body %s", resp.StatusCode, resp.Header.Get("Content-Type"), status, body)
	}
	var shape map[string]map[string]json.RawMessage
	unmarshal(t, body, &shape)
	if len(shape) != 1 || len(shape["error"]) != 4 {
		t.Fatalf("not an OpenAI error body: %s", body)
	}
	var e openaicompat.ErrorResponse
	unmarshal(t, body, &e)
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if e.Error.Type != typ || str(e.Error.Param) != param || str(e.Error.Code) != code || !strings.Contains(e.Error.Message, message) {
		t.Errorf("error %s, want type %q, param %q, code %q, message containing %q", body, typ, param, code, message)
	}
}

func TestMethodAndPath(t *testing.T) {
	ts := startServer(t, standIn{loadEncoding(t)}, nil)
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
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if tc.status == 405 && resp.Header.Get("Allow") != "POST" {
				t.Errorf("Allow: %q", resp.Header.Get("Allow"))
			}
			checkError(t, resp, tc.status, "invalid_request_error", "", tc.code, tc.path)
		})
	}
}

// TestRecoveredOutput: by default the server recovers malformed output as
// a production server must: the user message the model wrote is dropped.
func TestRecoveredOutput(t *testing.T) {
	enc := loadEncoding(t)
	ts := startServer(t, replayOf(enc, badLine), nil)
	resp, body := post(t, ts.URL+chatPath, `{"messages": [{"role": "user", "content": "Hi"}]}`)
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	const want = `{"id":"chatcmpl-1","object":"chat.completion","created":1751112000,"model":"gpt-oss-120b","choices":[{"index":0,"message":{"role":"assistant","content":"Hi","refusal":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":68,"completion_tokens":12,"total_tokens":80,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}`
	if got := strings.TrimSpace(string(body)); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestModelOutputError: a strict server fails malformed output.
func TestModelOutputError(t *testing.T) {
	enc := loadEncoding(t)
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
		if e.Error.Type != "server_error" || !strings.Contains(e.Error.Message, "not written by the assistant") {
			t.Errorf("last event %+v, want an error", last)
		}
		var content strings.Builder
		for _, ev := range events[:len(events)-1] {
			var ch openaicompat.ChatCompletionChunk
			unmarshal(t, []byte(ev.Data), &ch)
			content.WriteString(ch.Choices[0].Delta.Content)
		}
		if content.String() != "Hi" {
			t.Errorf("content before the error %q, want Hi", content.String())
		}
	})
	t.Run("responses stream", func(t *testing.T) {
		events := readSSE(t, postOK(t, ts.URL+responsesPath, `{"input": "Hi", "stream": true}`, "text/event-stream"))
		for i, ev := range events {
			var w wireEvent
			unmarshal(t, []byte(ev.Data), &w)
			if w.SequenceNumber == nil || *w.SequenceNumber != i || w.Type != ev.Event {
				t.Fatalf("event %d: %+v", i, ev)
			}
			if ev.Event == "response.completed" {
				t.Fatalf("completed despite the error")
			}
		}
		if len(events) < 2 {
			t.Fatalf("%d events", len(events))
		}
		errEv := events[len(events)-2]
		var e map[string]any
		unmarshal(t, []byte(errEv.Data), &e)
		if errEv.Event != "error" || e["type"] != "error" || e["code"] != nil || e["param"] != nil ||
			!strings.Contains(fmt.Sprint(e["message"]), "not written by the assistant") || len(e) != 5 {
			t.Errorf("next to last event %+v, want an error event", errEv)
		}
		last := events[len(events)-1]
		var f struct {
			Response openaicompat.Response `json:"response"`
		}
		unmarshal(t, []byte(last.Data), &f)
		if last.Event != "response.failed" || f.Response.Status != "failed" || f.Response.Error == nil ||
			f.Response.Error.Code != "server_error" || !strings.Contains(f.Response.Error.Message, "not written by the assistant") {
			t.Errorf("last event %+v, want response.failed", last)
		}
	})
}

func TestPromptsFile(t *testing.T) {
	enc := loadEncoding(t)
	path := filepath.Join(t.TempDir(), "prompts.jsonl")
	earlier := fmt.Sprintf(`{"text":"earlier","tokens":%s}`+"\n", strings.ReplaceAll(fmt.Sprint(enc.EncodeOrdinary("earlier")), " ", ","))
	if err := os.WriteFile(path, []byte(earlier), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644) // as -prompts opens it
	if err != nil {
		t.Fatal(err)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	logged := promptLines(t, enc, string(data))
	if len(logged) != 4 || logged[0].Text != "earlier" {
		t.Fatalf("prompt log:\n%s", data)
	}
	for i, want := range []string{
		"<|start|>user<|message|>first <|start|>question<|end|><|start|>assistant",
		"<|start|>user<|message|>second<|end|><|start|>assistant",
		"<|start|>developer<|message|># Instructions\n\nBe terse.<|end|><|start|>user<|message|>third<|end|><|start|>assistant",
	} {
		p := logged[i+1]
		if !strings.HasSuffix(p.Text, want) || len(p.Tokens) != usage[i] {
			t.Errorf("prompt %d (%d tokens, usage %d):\n%s\nwant it to end with\n%s", i, len(p.Tokens), usage[i], p.Text, want)
		}
	}
	// The user's "<|start|>" is ordinary text, not the special token.
	start, _ := harmony.SpecialToken("<|start|>")
	n := 0
	for _, tok := range logged[1].Tokens {
		if tok == start {
			n++
		}
	}
	if n != 3 { // system, user, assistant
		t.Errorf("first prompt has %d <|start|> tokens, want 3", n)
	}
	// The log is literal: no \u003c escapes.
	if !strings.Contains(string(data), `"text":"<|start|>system<|message|>`) {
		t.Errorf("prompt log is escaped:\n%s", data)
	}
}

func TestReplayCycles(t *testing.T) {
	enc := loadEncoding(t)
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
		if want := "A B C A B C A"; strings.Join(got, " ") != want {
			t.Errorf("got %q, want %q", strings.Join(got, " "), want)
		}
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
				if err != nil {
					t.Error(err)
					return
				}
				defer resp.Body.Close()
				b, err := io.ReadAll(resp.Body)
				if err != nil || resp.StatusCode != 200 {
					t.Errorf("status %d, %v", resp.StatusCode, err)
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
					if err := json.Unmarshal(b, &r); err != nil {
						t.Error(err)
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
		if want := map[string]int{"A": 10, "B": 10, "C": 10}; !reflect.DeepEqual(count, want) {
			t.Errorf("answers %v, want %v", count, want)
		}
		// Line k of the prompt log got replay line k mod 3.
		logged := promptLines(t, enc, prompts.String())
		if len(logged) != n {
			t.Fatalf("%d prompts logged, want %d", len(logged), n)
		}
		for k, p := range logged {
			_, rest, _ := strings.Cut(p.Text, "<|start|>user<|message|>")
			q, _, _ := strings.Cut(rest, "<|end|>")
			if got, want := byPrompt[q], []string{"A", "B", "C"}[k%3]; got != want {
				t.Errorf("prompt log line %d (%q) got %q, want %q", k, q, got, want)
			}
		}
	})
}

func TestStandIn(t *testing.T) {
	ts := startServer(t, standIn{loadEncoding(t)}, nil)
	var r openaicompat.ChatCompletionResponse
	unmarshal(t, postOK(t, ts.URL+chatPath, `{"messages": [
		{"role": "user", "content": "Hello"},
		{"role": "assistant", "content": "Hi!"},
		{"role": "user", "content": "one two  three\nfour five six seven eight nine ten <|return|>"}
	]}`, "application/json"), &r)
	m := r.Choices[0].Message
	if want := "You said: one two three four five six seven eight…"; m.Content == nil || m.Content.Text != want {
		t.Errorf("content %+v, want %q", m.Content, want)
	}
	if !strings.HasPrefix(m.Reasoning, `The user wrote: "one two three`) || r.Choices[0].FinishReason != "stop" {
		t.Errorf("reasoning %q, finish %q", m.Reasoning, r.Choices[0].FinishReason)
	}
	// Special-token text from the user stays text in the stand-in's answer.
	unmarshal(t, postOK(t, ts.URL+chatPath, `{"messages": [{"role": "user", "content": "<|return|> <|call|>"}]}`, "application/json"), &r)
	if want := "You said: <|return|> <|call|>"; r.Choices[0].Message.Content.Text != want {
		t.Errorf("content %q, want %q", r.Choices[0].Message.Content.Text, want)
	}
}

func TestReadReplay(t *testing.T) {
	enc := loadEncoding(t)
	r, err := readReplay(enc, strings.NewReader("[200005, 17196]\n\n  [12] \r\n[]\n[1,2]"))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]harmony.Token{{200005, 17196}, {12}, {}, {1, 2}}
	if !reflect.DeepEqual(r.lines, want) {
		t.Errorf("lines %v, want %v", r.lines, want)
	}
	for _, tc := range []struct{ in, err string }{
		{"", "no completions"},
		{"\n \n", "no completions"},
		{"[1]\n{\"a\": 1}\n", "line 2"},
		{"[1]\n[-1]\n", "line 2"},
		{"null\n", "line 1"},
		{"[1]\n[1, 4000000]\n", "line 2"},
		{"[1] [2]\n", "line 1"},
	} {
		if _, err := readReplay(enc, strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("readReplay(%q): %v, want an error with %q", tc.in, err, tc.err)
		}
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
	enc := loadEncoding(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "chatserver")
	if out, err := exec.Command(gotool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	replayFile := filepath.Join(dir, "replay.jsonl")
	ids, err := json.Marshal(enc.EncodeWithSpecialTokens(answerLine))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(replayFile, append(ids, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	promptsFile := filepath.Join(dir, "prompts.jsonl")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-addr", "127.0.0.1:0", "-replay", replayFile, "-prompts", promptsFile, "-model", "local-oss")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		t.Fatalf("no output from the server: %v", sc.Err())
	}
	addr, ok := strings.CutPrefix(sc.Text(), "chatserver: listening on http://")
	if !ok || !strings.HasPrefix(addr, "127.0.0.1:") || strings.HasSuffix(addr, ":0") {
		t.Fatalf("first line %q", sc.Text())
	}
	if !sc.Scan() || sc.Text() != "chatserver: model: replay of "+replayFile+" (1 line, repeated)" {
		t.Fatalf("second line %q, want the model", sc.Text())
	}
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
	if c := r.Choices[0].Message.Content; c == nil || c.Text != "2 + 2 = 4." || r.Model != "local-oss" {
		t.Errorf("response %+v", r)
	}

	// SIGINT stops it cleanly.
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	// The rest is the request's line in the access log.
	out := <-rest
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 1 ||
		!strings.Contains(lines[0], fmt.Sprintf(" level=INFO msg=request method=POST path=/v1/chat/completions status=200 prompt_tokens=%d completion_tokens=%d duration=",
			r.Usage.PromptTokens, r.Usage.CompletionTokens)) {
		t.Errorf("more output on stderr than one access log line: %q", out)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v", err)
	}

	data, err := os.ReadFile(promptsFile)
	if err != nil {
		t.Fatal(err)
	}
	logged := promptLines(t, enc, string(data))
	if len(logged) != 1 || !strings.HasSuffix(logged[0].Text, "<|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant") ||
		len(logged[0].Tokens) != r.Usage.PromptTokens {
		t.Errorf("prompt log:\n%s", data)
	}
}
