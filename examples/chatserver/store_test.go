package main

import (
	"encoding/json"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/openaicompat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResponsesToolLoopStateless runs a Responses tool loop the ways
// clients keep the reasoning between calls: by item_reference to the stored
// output (store true, the API's default), by sealed encrypted_content
// (store:false and include), by the plain item, and by
// previous_response_id (the stored conversation). Each second prompt
// holds the model's reasoning; a reference with store:false, which the
// server did not keep, is a 400 that says so.
func TestResponsesToolLoopStateless(t *testing.T) {
	for _, mode := range []string{"reference", "sealed", "plain", "previous"} {
		t.Run(mode, func(t *testing.T) {
			prompts := &syncBuffer{}
			enc := testenc.Encoding(t)
			srv := startServer(t, replayOf(enc, toolLine, weatherLine), prompts)
			extra := ""
			if mode == "sealed" || mode == "plain" {
				extra = `,"store":false,"include":["reasoning.encrypted_content"]`
			}
			first := `{"model":"m","tools":[` + responsesWeatherTool + `],"input":[{"role":"user","content":"Weather in Oslo?"}]` + extra + `}`
			var resp openaicompat.Response
			require.NoError(t, json.Unmarshal(postOK(t, srv.URL+responsesPath, first, "application/json"), &resp))
			require.GreaterOrEqual(t, len(resp.Output), 2, "output %+v", resp.Output)
			require.Equal(t, "reasoning", resp.Output[0].Type, "output %+v", resp.Output)
			rs, call := resp.Output[0], resp.Output[len(resp.Output)-1]
			require.Equal(t, extra != "", rs.EncryptedContent != "", "%s: encrypted_content %q", mode, rs.EncryptedContent)
			if mode == "previous" {
				second := `{"model":"m","tools":[` + responsesWeatherTool + `],"previous_response_id":"` + resp.ID +
					`","input":[{"type":"function_call_output","call_id":"` + call.CallID + `","output":"{\"temp_c\": 21}"}]}`
				postOK(t, srv.URL+responsesPath, second, "application/json")
				if lines := strings.Split(strings.TrimSpace(prompts.String()), "\n"); assert.Len(t, lines, 2, "previous_response_id: prompts\n%s", prompts.String()) {
					assert.Contains(t, lines[1], `<|start|>assistant<|channel|>analysis<|message|>Need the weather.<|end|>`, "previous_response_id: the second prompt")
					assert.Contains(t, lines[1], `<|message|>{\"temp_c\": 21}<|end|>`, "previous_response_id: the second prompt")
				}
				return
			}
			var back any
			switch mode {
			case "reference":
				back = map[string]string{"type": "item_reference", "id": rs.ID}
			case "sealed":
				back = map[string]any{"type": "reasoning", "id": rs.ID, "summary": []any{}, "encrypted_content": rs.EncryptedContent}
			default:
				plain := rs
				plain.EncryptedContent = ""
				back = plain
			}
			input, _ := json.Marshal([]any{
				map[string]string{"role": "user", "content": "Weather in Oslo?"}, back, call,
				map[string]string{"type": "function_call_output", "call_id": call.CallID, "output": `{"temp_c": 21}`},
			})
			second := `{"model":"m","tools":[` + responsesWeatherTool + `],"input":` + string(input) + extra + `}`
			postOK(t, srv.URL+responsesPath, second, "application/json")
			lines := strings.Split(strings.TrimSpace(prompts.String()), "\n")
			require.Len(t, lines, 2, "prompts")
			assert.Contains(t, lines[1], `<|start|>assistant<|channel|>analysis<|message|>Need the weather.<|end|>`, "%s: the second prompt lacks the reasoning", mode)
		})
	}
	// A reference to an item the server did not keep (store:false).
	srv := startServer(t, replayOf(testenc.Encoding(t), toolLine), nil)
	body := `{"model":"m","input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"rs_nope"}]}`
	resp, got := post(t, srv.URL+responsesPath, body)
	assert.Equal(t, 400, resp.StatusCode, "unknown reference: %s", got)
	assert.Contains(t, string(got), `"code":"invalid_item_reference"`, "unknown reference")
}

const responsesWeatherTool = `{"type": "function", "name": "get_weather", "description": "Current weather.",
	"parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}`

// TestReasoningFlags checks that the reasoning flags are read, and refused
// when wrong, and that -reasoning-field names the chat field.
func TestReasoningFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-reasoning-field", "thoughts"},
		{"-reasoning-keys", "c2hvcnQ="}, // keys on the command line: refused
		{"-reasoning-keys-file", "/nonexistent/keys"},
		{"-store-bytes", "-1"},
	} {
		var stderr strings.Builder
		assert.Error(t, run(t.Context(), args, &stderr), "%q", args)
	}
	enc := testenc.Encoding(t)
	for _, tc := range []struct {
		field      openaicompat.ReasoningField
		want, lack string
	}{
		{openaicompat.ReasoningFieldReasoning, `"reasoning":"Simple arithmetic."`, `"reasoning_content"`},
		{openaicompat.ReasoningFieldReasoningContent, `"reasoning_content":"Simple arithmetic."`, `"reasoning":`},
		{openaicompat.ReasoningFieldBoth, `"reasoning":"Simple arithmetic.","reasoning_content":"Simple arithmetic."`, "\x00"},
	} {
		srv := startServerWith(t, replayOf(enc, answerLine), nil, options{ReasoningField: tc.field})
		got := string(postOK(t, srv.URL+chatPath, `{"messages":[{"role":"user","content":"2 + 2?"}]}`, "application/json"))
		assert.Contains(t, got, tc.want, tc.field)
		assert.NotContains(t, got, tc.lack, tc.field)
	}
}

// TestStoreHoldsWhatItCounts posts, through the server's handler, Responses
// requests with store whose input items carry fields of other types (a
// message's "arguments", "encrypted_content", "output", …; an input_text
// part's "annotations"), megabytes that a decoded item keeps but its JSON
// does not write. The store keeps the items as their JSON, so the bytes
// it counts stay within -store-bytes, and so does the Go heap, with a
// fixed allowance for the rest of the server. The stored conversation
// still continues with previous_response_id.
func TestStoreHoldsWhatItCounts(t *testing.T) {
	const budget = 4 << 20
	enc := testenc.Encoding(t)
	prompts := &syncBuffer{}
	h := newServer(enc, standIn{enc}, prompts, options{StoreBytes: budget, Now: func() time.Time { return testTime }})
	srv := httptest.NewServer(h)
	defer srv.Close()

	// The bodies are made for each request, so that none is alive when
	// the heap is read.
	body := func(i int) string {
		big := strings.Repeat("x", 1<<20)
		switch i % 3 {
		case 0:
			return `{"model":"m","store":true,"input":[{"type":"message","role":"user","content":"hello there","arguments":"` + big + big + big + `"}]}`
		case 1:
			return `{"model":"m","input":[{"role":"user","content":"hello there","encrypted_content":"` + big + `","output":"` + big +
				`","name":"` + big + `","summary":[{"type":"summary_text","text":"s"}]}]}`
		}
		// Lists of megabyte strings: a list of a million zeros is refused by
		// DecodeRequest's bound on what a body costs decoded, before any
		// store sees it (TestDecodeBound in openaicompat).
		return `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hello there","annotations":["` + big + `"],"logprobs":["` + big + `"]}]}]}`
	}
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC() // and what sync.Pools kept through the first
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	postOK(t, srv.URL+responsesPath, `{"model":"m","input":"warm up"}`, "application/json")
	before := heap()
	// Before the store kept JSON, each round of the three kept some 20 MB.
	n := 24
	if testing.Short() {
		n = 9 // the race detector makes decoding megabytes slow
	}
	var last openaicompat.Response
	for i := range n {
		unmarshal(t, postOK(t, srv.URL+responsesPath, body(i), "application/json"), &last)
	}
	after := heap()
	assert.LessOrEqual(t, h.items.c.Bytes(), int64(budget), "the store's bytes, over its budget")
	// The allowance: the harmony encoding's and the server's caches of
	// these small prompts, connections' buffers.
	const allowance = 4 << 20
	if after > before {
		assert.LessOrEqual(t, after-before, uint64(budget+allowance), "the heap grew over %d requests: more than the store's %d and %d besides", n, budget, allowance)
	}
	t.Logf("heap %d → %d bytes; the store counts %d in %d entries", before, after, h.items.c.Bytes(), h.items.c.Len())

	// What was kept is the items' own fields: the conversation goes on.
	postOK(t, srv.URL+responsesPath, `{"model":"m","previous_response_id":"`+last.ID+`","input":"and again"}`, "application/json")
	lines := strings.Split(strings.TrimSpace(prompts.String()), "\n")
	// Not assert.Contains: a failure would print megabytes.
	got := lines[len(lines)-1]
	assert.True(t, strings.Contains(got, "hello there"), "the continued prompt: %.300s", got)
	assert.True(t, strings.Contains(got, "and again"), "the continued prompt: %.300s", got)
	assert.False(t, strings.Contains(got, "xxx"), "the continued prompt: %.300s", got)
}
