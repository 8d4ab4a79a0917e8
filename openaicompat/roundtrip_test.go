package openaicompat

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
)

// The model's turn, as sampled: reasoning, then a call.
const sampledCall = `<|channel|>analysis<|message|>Need to use get_weather for Zürich.<|end|>` +
	`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Zürich"}<|call|>`

const weatherTool = `{"type":"function","function":{"name":"get_weather","description":"Gets the weather.",` +
	`"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}`

// renderChat converts and renders a chat request given as JSON.
func renderChat(t *testing.T, enc *harmony.Encoding, body string) string {
	t.Helper()
	var req ChatCompletionRequest
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	conv, err := req.Conversation(nil)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, err := enc.Decode(toks)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// TestReasoningRoundTrip sends a response's message back as history, with
// the reasoning under "reasoning" and under "reasoning_content", and through
// the Responses API's output items: the model's turn comes back as it wrote
// it, reasoning included (the turn ended in a tool call), and all three
// render the same prompt.
func TestReasoningRoundTrip(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(sampledCall)
	var prompts []string
	for _, field := range []bool{false, true} {
		rf := ReasoningFieldReasoning
		if field {
			rf = ReasoningFieldReasoningContent
		}
		resp, err := ChatCompletionFromTokens(enc, toks, Sampling{}, &ResponseOptions{ReasoningField: rf})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := json.Marshal(resp.Choices[0].Message)
		if err != nil {
			t.Fatal(err)
		}
		wantField := `"reasoning":`
		if field {
			wantField = `"reasoning_content":`
		}
		if !strings.Contains(string(msg), wantField) {
			t.Fatalf("message %s lacks %s", msg, wantField)
		}
		id := resp.Choices[0].Message.ToolCalls[0].ID
		body := `{"model":"m","tools":[` + weatherTool + `],"messages":[{"role":"user","content":"Weather in Zürich?"},` +
			string(msg) + `,{"role":"tool","tool_call_id":"` + id + `","content":"{\"temp\": 20}"}]}`
		prompts = append(prompts, renderChat(t, enc, body))
	}

	resp, err := ResponseFromTokens(enc, toks, Sampling{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	output, err := json.Marshal(resp.Output)
	if err != nil {
		t.Fatal(err)
	}
	var req ResponsesRequest
	body := `{"model":"m","tools":[{"type":"function","name":"get_weather","description":"Gets the weather.",` +
		`"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}],` +
		`"input":[{"role":"user","content":"Weather in Zürich?"}]}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	var items []Item
	if err := json.Unmarshal(output, &items); err != nil {
		t.Fatal(err)
	}
	req.Input.Items = append(req.Input.Items, items...)
	req.Input.Items = append(req.Input.Items, Item{Type: "function_call_output", CallID: items[1].CallID, Output: &ItemContent{Text: `{"temp": 20}`}})
	conv, err := req.Conversation(nil)
	if err != nil {
		t.Fatal(err)
	}
	rt, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := enc.Decode(rt)
	prompts = append(prompts, text)

	want := `<|start|>user<|message|>Weather in Zürich?<|end|>` +
		`<|start|>assistant<|channel|>analysis<|message|>Need to use get_weather for Zürich.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Zürich"}<|call|>` +
		`<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp": 20}<|end|><|start|>assistant`
	// Token for token, the prompt holds what the model sampled: the
	// server's prefix cache of the previous turn still matches.
	sampled := append(append([]harmony.Token{harmony.TokenStart}, enc.EncodeOrdinary("assistant")...), toks...)
	if !containsRun(rt, sampled) {
		t.Errorf("the prompt's tokens do not hold the sampled tokens")
	}
	for i, p := range prompts {
		if !strings.HasSuffix(p, want) {
			t.Errorf("prompt %d does not end with the model's turn:\n%s", i, p)
		}
		if p != prompts[0] {
			t.Errorf("prompt %d differs from prompt 0:\n%s\n%s", i, p, prompts[0])
		}
	}
}

// TestReasoningDropRules checks the two cases of the raw chain-of-thought
// guide on multi-turn histories, and that harmony's renderer default alone
// would not be enough.
func TestReasoningDropRules(t *testing.T) {
	enc := testenc.Encoding(t)
	answered := `{"model":"m","messages":[
		{"role":"user","content":"What is 2 + 2?"},
		{"role":"assistant","reasoning":"R1 simple arithmetic.","content":"4"},
		{"role":"user","content":"And 3 + 5?"},
		{"role":"assistant","reasoning":"R2 add them.","content":"8"},
		{"role":"user","content":"And 9 / 2?"}]}`
	p := renderChat(t, enc, answered)
	if strings.Contains(p, "R1") || strings.Contains(p, "R2") {
		t.Errorf("answered turns kept their reasoning:\n%s", p)
	}

	inProgress := `{"model":"m","tools":[` + weatherTool + `],"messages":[
		{"role":"user","content":"What is 2 + 2?"},
		{"role":"assistant","reasoning":"R1 simple arithmetic.","content":"4"},
		{"role":"user","content":"Weather?"},
		{"role":"assistant","reasoning":"R2 call the tool.","tool_calls":[{"id":"a","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"a","content":"sunny"},
		{"role":"assistant","reasoning_content":"R3 call again.","tool_calls":[{"id":"b","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"b","content":"still sunny"}]}`
	p = renderChat(t, enc, inProgress)
	if strings.Contains(p, "R1") || !strings.Contains(p, "R2 call the tool.") || !strings.Contains(p, "R3 call again.") {
		t.Errorf("the turn in progress lost its reasoning, or the answered one kept it:\n%s", p)
	}

	// The renderer's default on the unpruned history of the first case:
	// it drops only the analysis before the first final message.
	var req ChatCompletionRequest
	if err := json.Unmarshal([]byte(answered), &req); err != nil {
		t.Fatal(err)
	}
	conv, err := req.Conversation(&RequestOptions{KeepReasoning: true})
	if err != nil {
		t.Fatal(err)
	}
	toks, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := enc.Decode(toks)
	if !strings.Contains(text, "R2 add them.") {
		t.Log("harmony's renderer now drops the reasoning of later answered turns too; dropStaleReasoning may be redundant")
	}
	if strings.Contains(text, "R1") {
		t.Errorf("unexpected: the renderer kept the first turn's reasoning")
	}
}

// TestIDsUniqueWithRepeatingGenerator: a generator that repeats itself still
// gives distinct ids within a response.
func TestIDsUniqueWithRepeatingGenerator(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(`<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>` +
		`<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>`)
	same := func() string { return "x" }
	resp, err := ChatCompletionFromTokens(enc, toks, Sampling{}, &ResponseOptions{IDGenerator: same})
	if err != nil {
		t.Fatal(err)
	}
	calls := resp.Choices[0].Message.ToolCalls
	if len(calls) != 2 || calls[0].ID != "call_x" || calls[1].ID != "call_x_2" {
		t.Errorf("ids %+v", calls)
	}
	r, err := ResponseFromTokens(enc, toks, Sampling{}, &ResponseOptions{IDGenerator: same})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, it := range r.Output {
		for _, id := range []string{it.ID, it.CallID} {
			if seen[id] {
				t.Errorf("repeated id %q", id)
			}
			seen[id] = true
		}
	}
	// Default ids are random and well formed.
	resp, err = ChatCompletionFromTokens(enc, toks, Sampling{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if id := resp.Choices[0].Message.ToolCalls[0].ID; !strings.HasPrefix(id, "call_") || len(id) < 20 {
		t.Errorf("default id %q", id)
	}
	if resp.Created == 0 || !strings.HasPrefix(resp.ID, "chatcmpl-") {
		t.Errorf("default envelope %+v", resp)
	}
}

// TestStreamAfterFinish: calls after Finish, or after an error, fail the
// same way every time and never panic.
func TestStreamAfterFinish(t *testing.T) {
	enc := testenc.Encoding(t)
	c, err := NewChatStreamConverter(enc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Finish(Sampling{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Process(1); err == nil {
		t.Error("Process after Finish succeeded")
	}
	if _, err := c.Finish(Sampling{}); err == nil {
		t.Error("second Finish succeeded")
	}
	r, err := NewResponsesStreamConverter(enc, &ResponseOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err1 := r.Process(harmony.TokenEnd) // a stop token where the header should start: strict error at the end
	_, err2 := r.Finish(Sampling{})
	if err1 != nil || err2 == nil {
		t.Fatalf("errors %v, %v", err1, err2)
	}
	if _, err3 := r.Process(1); err3 == nil || err3.Error() != err2.Error() {
		t.Errorf("after an error: %v, want %v", err3, err2)
	}
	if _, err := NewChatStreamConverter(nil, nil); err == nil {
		t.Error("nil encoding accepted")
	}
}

// TestWireJSON checks the shapes this package reads and writes that the
// goldens do not show.
func TestWireJSON(t *testing.T) {
	var req ChatCompletionRequest
	body := `{"model":"m","stop":"END","tool_choice":"required","max_tokens":5,"max_completion_tokens":7,
		"stream":true,"stream_options":{"include_usage":true},"reasoning":{"exclude":true},
		"messages":[{"role":"user","content":[]}]}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if len(req.Stop) != 1 || req.Stop[0] != "END" || req.ToolChoice.Mode != "required" || req.MaxOutputTokens() != 7 {
		t.Errorf("decoded %+v", req)
	}
	if o := req.ResponseOptions(); o.Model != "m" || !o.ExcludeReasoning || !o.StreamUsage {
		t.Errorf("response options %+v", o)
	}
	if c := req.Messages[0].Content; c == nil || c.Parts == nil || len(c.Parts) != 0 {
		t.Errorf("empty parts list decoded as %+v", c)
	}
	for _, tc := range []struct {
		v    any
		want string
	}{
		{ToolChoice{Mode: "function", Function: "f"}, `{"type":"function","function":{"name":"f"}}`},
		{ToolChoice{Mode: "auto"}, `"auto"`},
		{ResponsesToolChoice{Mode: "function", Name: "f"}, `{"type":"function","name":"f"}`},
		{Content{Parts: []ContentPart{{Type: "text", Text: "a"}}}, `[{"type":"text","text":"a"}]`},
		{Item{Type: "function_call_output", CallID: "c", Output: &ItemContent{Text: "x"}}, `{"type":"function_call_output","call_id":"c","output":"x"}`},
		{Item{Type: "other", Role: "user", Name: "n"}, `{"type":"other","role":"user","name":"n"}`},
		{ItemPart{Type: "input_image", ImageURL: "u", Detail: "low"}, `{"type":"input_image","image_url":"u","detail":"low"}`},
		{FinishReason(""), `null`},
	} {
		got, err := json.Marshal(tc.v)
		if err != nil || string(got) != tc.want {
			t.Errorf("%#v: %s, %v; want %s", tc.v, got, err, tc.want)
		}
	}
	var rtc ResponsesToolChoice
	if err := json.Unmarshal([]byte(`{"type":"function","name":"g"}`), &rtc); err != nil || rtc.Name != "g" {
		t.Errorf("%+v %v", rtc, err)
	}
	var in ResponsesInput
	if err := json.Unmarshal([]byte(`42`), &in); err == nil {
		t.Error("a number accepted as input")
	}
}

// TestStreamedArgumentsExact: the argument deltas of a streamed call, cut
// wherever the tokens fall (inside "Zürich", between the bytes of an
// emoji), concatenate to the exact text the model wrote.
func TestStreamedArgumentsExact(t *testing.T) {
	enc := testenc.Encoding(t)
	args := `{"location": "Zürich", "note": "東京 🙂", "n": [1, 2.5e3, null]}`
	toks := enc.EncodeWithSpecialTokens(`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>` + args + `<|call|>`)
	chunks, err := streamChat(enc, toks, Sampling{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	deltas := 0
	for _, c := range chunks {
		for _, ch := range c.Choices {
			for _, tc := range ch.Delta.ToolCalls {
				if tc.ID == "" {
					deltas++
				}
				got.WriteString(tc.Function.Arguments)
			}
		}
	}
	if got.String() != args || deltas < 10 {
		t.Errorf("%d deltas concatenate to %q, want %q", deltas, got.String(), args)
	}
}

// containsRun reports whether run occurs in toks.
func containsRun(toks, run []harmony.Token) bool {
	for i := 0; i+len(run) <= len(toks); i++ {
		if slices.Equal(toks[i:i+len(run)], run) {
			return true
		}
	}
	return false
}
