package openaicompat

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, json.Unmarshal([]byte(body), &req))
	conv, err := req.Conversation(nil)
	require.NoError(t, err)
	toks, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	require.NoError(t, err)
	text, err := enc.Decode(toks)
	require.NoError(t, err)
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
		require.NoError(t, err)
		msg, err := json.Marshal(resp.Choices[0].Message)
		require.NoError(t, err)
		wantField := `"reasoning":`
		if field {
			wantField = `"reasoning_content":`
		}
		require.Contains(t, string(msg), wantField, "message")
		id := resp.Choices[0].Message.ToolCalls[0].ID
		body := `{"model":"m","tools":[` + weatherTool + `],"messages":[{"role":"user","content":"Weather in Zürich?"},` +
			string(msg) + `,{"role":"tool","tool_call_id":"` + id + `","content":"{\"temp\": 20}"}]}`
		prompts = append(prompts, renderChat(t, enc, body))
	}

	resp, err := ResponseFromTokens(enc, toks, Sampling{}, nil)
	require.NoError(t, err)
	output, err := json.Marshal(resp.Output)
	require.NoError(t, err)
	var req ResponsesRequest
	body := `{"model":"m","tools":[{"type":"function","name":"get_weather","description":"Gets the weather.",` +
		`"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}],` +
		`"input":[{"role":"user","content":"Weather in Zürich?"}]}`
	require.NoError(t, json.Unmarshal([]byte(body), &req))
	var items []Item
	require.NoError(t, json.Unmarshal(output, &items))
	req.Input.Items = append(req.Input.Items, items...)
	req.Input.Items = append(req.Input.Items, Item{Type: "function_call_output", CallID: items[1].CallID, Output: &ItemContent{Text: `{"temp": 20}`}})
	conv, err := req.Conversation(nil)
	require.NoError(t, err)
	rt, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	require.NoError(t, err)
	text, _ := enc.Decode(rt)
	prompts = append(prompts, text)

	want := `<|start|>user<|message|>Weather in Zürich?<|end|>` +
		`<|start|>assistant<|channel|>analysis<|message|>Need to use get_weather for Zürich.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"location": "Zürich"}<|call|>` +
		`<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"temp": 20}<|end|><|start|>assistant`
	// Token for token, the prompt holds what the model sampled: the
	// server's prefix cache of the previous turn still matches.
	sampled := append(append([]harmony.Token{harmony.TokenStart}, enc.EncodeOrdinary("assistant")...), toks...)
	assert.True(t, containsRun(rt, sampled), "the prompt's tokens do not hold the sampled tokens")
	for i, p := range prompts {
		assert.True(t, strings.HasSuffix(p, want), "prompt %d does not end with the model's turn:\n%s", i, p)
		assert.Equal(t, prompts[0], p, "prompt %d differs from prompt 0", i)
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
	assert.NotContains(t, p, "R1", "answered turns kept their reasoning")
	assert.NotContains(t, p, "R2", "answered turns kept their reasoning")

	inProgress := `{"model":"m","tools":[` + weatherTool + `],"messages":[
		{"role":"user","content":"What is 2 + 2?"},
		{"role":"assistant","reasoning":"R1 simple arithmetic.","content":"4"},
		{"role":"user","content":"Weather?"},
		{"role":"assistant","reasoning":"R2 call the tool.","tool_calls":[{"id":"a","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"a","content":"sunny"},
		{"role":"assistant","reasoning_content":"R3 call again.","tool_calls":[{"id":"b","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"b","content":"still sunny"}]}`
	p = renderChat(t, enc, inProgress)
	assert.NotContains(t, p, "R1", "the answered turn kept its reasoning")
	assert.Contains(t, p, "R2 call the tool.", "the turn in progress lost its reasoning")
	assert.Contains(t, p, "R3 call again.", "the turn in progress lost its reasoning")

	// The renderer's default on the unpruned history of the first case:
	// it drops only the analysis before the first final message.
	var req ChatCompletionRequest
	require.NoError(t, json.Unmarshal([]byte(answered), &req))
	conv, err := req.Conversation(&RequestOptions{KeepReasoning: true})
	require.NoError(t, err)
	toks, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	require.NoError(t, err)
	text, _ := enc.Decode(toks)
	if !strings.Contains(text, "R2 add them.") {
		t.Log("harmony's renderer now drops the reasoning of later answered turns too; dropStaleReasoning may be redundant")
	}
	assert.NotContains(t, text, "R1", "unexpected: the renderer kept the first turn's reasoning")
}

// TestIDsUniqueWithRepeatingGenerator: a generator that repeats itself still
// gives distinct ids within a response.
func TestIDsUniqueWithRepeatingGenerator(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(`<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>` +
		`<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>`)
	same := func() string { return "x" }
	resp, err := ChatCompletionFromTokens(enc, toks, Sampling{}, &ResponseOptions{IDGenerator: same})
	require.NoError(t, err)
	calls := resp.Choices[0].Message.ToolCalls
	if assert.Len(t, calls, 2, "ids %+v", calls) {
		assert.Equal(t, "call_x", calls[0].ID)
		assert.Equal(t, "call_x_2", calls[1].ID)
	}
	r, err := ResponseFromTokens(enc, toks, Sampling{}, &ResponseOptions{IDGenerator: same})
	require.NoError(t, err)
	seen := map[string]bool{}
	for _, it := range r.Output {
		for _, id := range []string{it.ID, it.CallID} {
			assert.False(t, seen[id], "repeated id %q", id)
			seen[id] = true
		}
	}
	// Default ids are random and well formed.
	resp, err = ChatCompletionFromTokens(enc, toks, Sampling{}, nil)
	require.NoError(t, err)
	id := resp.Choices[0].Message.ToolCalls[0].ID
	assert.True(t, strings.HasPrefix(id, "call_"), "default id %q", id)
	assert.GreaterOrEqual(t, len(id), 20, "default id %q", id)
	assert.NotZero(t, resp.Created, "default envelope %+v", resp)
	assert.True(t, strings.HasPrefix(resp.ID, "chatcmpl-"), "default envelope %+v", resp)
}

// TestStreamAfterFinish: calls after Finish, or after an error, fail the
// same way every time and never panic.
func TestStreamAfterFinish(t *testing.T) {
	enc := testenc.Encoding(t)
	c, err := NewChatStreamConverter(enc, nil)
	require.NoError(t, err)
	_, err = c.Finish(Sampling{})
	require.NoError(t, err)
	_, err = c.Process(1)
	assert.Error(t, err, "Process after Finish")
	_, err = c.Finish(Sampling{})
	assert.Error(t, err, "second Finish")
	r, err := NewResponsesStreamConverter(enc, &ResponseOptions{Strict: true})
	require.NoError(t, err)
	_, err1 := r.Process(harmony.TokenEnd) // a stop token where the header should start: strict error at the end
	_, err2 := r.Finish(Sampling{})
	require.NoError(t, err1, "Process")
	require.Error(t, err2, "Finish")
	_, err3 := r.Process(1)
	assert.EqualError(t, err3, err2.Error(), "after an error")
	_, err = NewChatStreamConverter(nil, nil)
	assert.Error(t, err, "nil encoding accepted")
}

// TestWireJSON checks the shapes this package reads and writes that the
// goldens do not show.
func TestWireJSON(t *testing.T) {
	var req ChatCompletionRequest
	body := `{"model":"m","stop":"END","tool_choice":"required","max_tokens":5,"max_completion_tokens":7,
		"stream":true,"stream_options":{"include_usage":true},"reasoning":{"exclude":true},
		"messages":[{"role":"user","content":[]}]}`
	require.NoError(t, json.Unmarshal([]byte(body), &req))
	assert.Equal(t, StringList{"END"}, req.Stop, "decoded stop")
	assert.Equal(t, "required", req.ToolChoice.Mode, "decoded tool_choice")
	assert.Equal(t, 7, req.MaxOutputTokens(), "MaxOutputTokens()")
	o := req.ResponseOptions()
	assert.Equal(t, "m", o.Model, "response options")
	assert.True(t, o.ExcludeReasoning, "response options' ExcludeReasoning")
	assert.True(t, o.StreamUsage, "response options' StreamUsage")
	if c := req.Messages[0].Content; assert.NotNil(t, c, "empty parts list") {
		assert.NotNil(t, c.Parts, "empty parts list decoded as %+v", c)
		assert.Empty(t, c.Parts, "empty parts list decoded as %+v", c)
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
		if assert.NoError(t, err, "%#v", tc.v) {
			assert.Equal(t, tc.want, string(got), "%#v", tc.v)
		}
	}
	var rtc ResponsesToolChoice
	if assert.NoError(t, json.Unmarshal([]byte(`{"type":"function","name":"g"}`), &rtc)) {
		assert.Equal(t, "g", rtc.Name, "%+v", rtc)
	}
	var in ResponsesInput
	assert.Error(t, json.Unmarshal([]byte(`42`), &in), "a number accepted as input")
}

// TestStreamedArgumentsExact: the argument deltas of a streamed call, cut
// wherever the tokens fall (inside "Zürich", between the bytes of an
// emoji), concatenate to the exact text the model wrote.
func TestStreamedArgumentsExact(t *testing.T) {
	enc := testenc.Encoding(t)
	args := `{"location": "Zürich", "note": "東京 🙂", "n": [1, 2.5e3, null]}`
	toks := enc.EncodeWithSpecialTokens(`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>` + args + `<|call|>`)
	chunks, err := streamChat(enc, toks, Sampling{}, nil)
	require.NoError(t, err)
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
	assert.Equal(t, args, got.String(), "the deltas concatenated")
	assert.GreaterOrEqual(t, deltas, 10, "argument deltas")

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
