package openaicompat

import (
	"encoding/json"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDeclaredTools: a message to a recipient becomes a tool call only for
// a tool the options declare; otherwise it is reasoning (lenient, counted)
// or an error (strict).
func TestDeclaredTools(t *testing.T) {
	enc := testenc.Encoding(t)
	call := func(r string) string {
		return `<|channel|>commentary to=` + r + ` <|constrain|>json<|message|>{"q":1}<|call|>`
	}
	tests := []struct {
		name       string
		completion string
		tools      []string
		builtins   []string
		wantCall   string // name of the one call, or ""
		reasoning  string
		dropped    int
	}{
		{"nothing declared: any function", call("functions.get_weather"), nil, nil, "get_weather", "", 0},
		{"declared function", call("functions.get_weather"), []string{"get_weather"}, nil, "get_weather", "", 0},
		{"undeclared function", call("functions.rm_rf"), []string{"get_weather"}, nil, "", `{"q":1}`, 1},
		{"no tools at all", call("functions.get_weather"), []string{}, nil, "", `{"q":1}`, 1},
		{"declared built-in", call("browser.search"), []string{}, []string{"browser"}, "browser.search", "", 0},
		{"undeclared built-in", call("python"), []string{"f"}, []string{"browser"}, "", `{"q":1}`, 1},
		{"declared namespace", call("crm.lookup"), nil, []string{"crm"}, "crm.lookup", "", 0},
		{"a namespace the parser does not know", call("crm.lookup"), nil, nil, "", `{"q":1}`, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := &ResponseOptions{Functions: tc.tools, Namespaces: tc.builtins, IDGenerator: counter(), Created: 1}
			toks := enc.EncodeWithSpecialTokens(tc.completion)
			r, err := ChatCompletionFromTokens(enc, toks, Sampling{}, opts)
			require.NoError(t, err)
			m := r.Choices[0].Message
			var calls []string
			for _, c := range m.ToolCalls {
				calls = append(calls, c.Function.Name)
			}
			if tc.wantCall == "" {
				assert.Empty(t, calls, "calls")
			} else {
				assert.Equal(t, []string{tc.wantCall}, calls, "calls")
			}
			assert.Equal(t, tc.reasoning, m.Reasoning, "reasoning")
			c, _ := NewChatStreamConverter(enc, opts)
			for _, x := range toks {
				_, err := c.Process(x)
				require.NoError(t, err)
			}
			assert.Equal(t, tc.dropped, c.Dropped(), "Dropped()")
			if tc.wantCall != "" || tc.tools == nil && tc.builtins == nil {
				return
			}
			// Strict conversion refuses a call to an undeclared tool.
			opts.Strict = true
			_, err = ChatCompletionFromTokens(enc, toks, Sampling{}, opts)
			var oe *OutputError
			if assert.ErrorAs(t, err, &oe, "strict") {
				assert.ErrorIs(t, err, ErrUnexpectedMessage, "strict")
				assert.Equal(t, 0, oe.MessageIndex, "strict: the OutputError's message index")
			}
		})
	}
}

// TestLenientDropsOtherRoles: messages the model writes as another role
// (a tool's reply, a user turn) are dropped and counted.
func TestLenientDropsOtherRoles(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(`<|channel|>final<|message|>Hi<|end|><|start|>user<|message|>Pretend.<|end|>` +
		`<|start|>functions.f to=assistant<|channel|>commentary<|message|>{"fake":1}<|end|>`)
	opts := &ResponseOptions{IDGenerator: counter(), Created: 1}
	c, err := NewResponsesStreamConverter(enc, opts)
	require.NoError(t, err)
	for _, x := range toks {
		_, err := c.Process(x)
		require.NoError(t, err)
	}
	events, err := c.Finish(Sampling{})
	require.NoError(t, err)
	out, _ := json.Marshal(events[len(events)-1].Response.Output)
	const want = `[{"type":"message","id":"msg_2","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[],"logprobs":[]}]}]`
	assert.Equal(t, want, string(out), "output")
	assert.Equal(t, 2, c.Dropped(), "Dropped()")
	assert.Len(t, c.Messages(), 3, "want the 3 messages harmony parsed")
}

// TestRequestDeclaresTools: a request's ResponseOptions says which
// functions the model may call.
func TestRequestDeclaresTools(t *testing.T) {
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"messages":[]}`, []string{}},
		{`{"messages":[],"tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}}]}`, []string{"a", "b"}},
		{`{"messages":[],"tools":[{"type":"function","function":{"name":"a"}}],"tool_choice":"none"}`, []string{}},
		{`{"messages":[],"tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}}],"tool_choice":{"type":"function","function":{"name":"b"}}}`, []string{"b"}},
	} {
		var r ChatCompletionRequest
		require.NoError(t, json.Unmarshal([]byte(tc.body), &r))
		assert.Equal(t, tc.want, r.ResponseOptions().Functions, "chat %s: Functions", tc.body)
	}
	var r ResponsesRequest
	require.NoError(t, json.Unmarshal([]byte(`{"input":"x","tools":[{"type":"function","name":"a"}],"tool_choice":"auto"}`), &r))
	assert.Equal(t, []string{"a"}, r.ResponseOptions().Functions, "responses: Functions")

}
