package openaicompat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// longChat is a Chat Completions request of n answered turns, each with a
// tool call and a long result, and a new question.
func longChat(n int, extra string) string {
	var b strings.Builder
	b.WriteString(`{"model":"gpt-oss-120b",` + extra + `"tools":[{"type":"function","function":{"name":"lookup","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}}],"messages":[{"role":"system","content":"Be brief."}`)
	for i := range n {
		fmt.Fprintf(&b, `,{"role":"user","content":"Question %d?"}`, i)
		fmt.Fprintf(&b, `,{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"%d\"}"}}]}`, i, i)
		fmt.Fprintf(&b, `,{"role":"tool","tool_call_id":"c%d","content":"%s"}`, i, strings.Repeat("Some long search result. ", 40))
		fmt.Fprintf(&b, `,{"role":"assistant","content":"Answer %d."}`, i)
	}
	b.WriteString(`,{"role":"user","content":"And now?"}]}`)
	return b.String()
}

func TestRenderPromptChat(t *testing.T) {
	enc := testenc.Encoding(t)
	prompt := func(body string, opts *RequestOptions) ([]harmony.Token, harmony.Conversation, error) {
		t.Helper()
		var req ChatCompletionRequest
		require.NoError(t, DecodeRequest([]byte(body), &req))
		conv, err := req.Conversation(opts)
		require.NoError(t, err)
		toks, err := req.RenderPrompt(enc, conv, opts)
		return toks, conv, err
	}
	body := longChat(10, "")
	full, conv, err := prompt(body, nil)
	require.NoError(t, err)
	plain, _ := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	require.Equal(t, plain, full, "without a context window, the prompt is not the plain render")
	window := len(full) + DefaultCompletionReserve

	// Fits: the prompt is unchanged.
	got, _, err := prompt(body, &RequestOptions{ContextWindow: window})
	require.NoError(t, err, "fits")
	require.Equal(t, full, got, "fits")
	// One token short: a 400, by default.
	_, _, err = prompt(body, &RequestOptions{ContextWindow: window - 1})
	status, resp := HTTPError(err)
	want := fmt.Sprintf(`{"error":{"message":"messages: context length exceeded: this model's maximum context length is %d tokens, but %d were requested (%d in the messages, %d for the completion): shorten the messages or the completion's max tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		window-1, window, len(full), DefaultCompletionReserve)
	assert.Equal(t, 400, status)
	assert.Equal(t, want+"\n", marshalLine(resp))
	assert.ErrorIs(t, err, ErrContextLengthExceeded)
	assert.ErrorIs(t, err, harmony.ErrContextTooLong)
	var be *harmony.BudgetError
	if assert.ErrorAs(t, err, &be) {
		assert.Equal(t, len(full), be.Tokens, "BudgetError.Tokens")
	}
	// The request's max tokens is the reserve, else the server's.
	for _, tc := range []struct {
		extra   string
		opts    RequestOptions
		reserve int
	}{
		{`"max_tokens":100,`, RequestOptions{}, 100},
		{`"max_tokens":100,"max_completion_tokens":200,`, RequestOptions{}, 200},
		{``, RequestOptions{CompletionReserve: 300}, 300},
		{`"max_tokens":100,`, RequestOptions{CompletionReserve: 300}, 100},
	} {
		tc.opts.ContextWindow = len(full) + tc.reserve
		_, _, err := prompt(longChat(10, tc.extra), &tc.opts)
		assert.NoError(t, err, "%s %+v", tc.extra, tc.opts)
		tc.opts.ContextWindow--
		_, _, err = prompt(longChat(10, tc.extra), &tc.opts)
		assert.ErrorIs(t, err, ErrContextLengthExceeded, "%s %+v", tc.extra, tc.opts)
	}
	// Truncation by the server's choice: old tool output goes first, then
	// old turns.
	opts := &RequestOptions{ContextWindow: window - 1, Truncation: TruncationAuto}
	got, conv, err = prompt(body, opts)
	require.NoError(t, err)
	fitted, r, err := enc.RenderConversationWithinBudget(conv, harmony.RoleAssistant, harmony.Budget{MaxTokens: window - 1, Reserve: DefaultCompletionReserve}, nil)
	if assert.NoError(t, err, "auto") {
		assert.Equal(t, fitted, got, "auto")
		assert.Len(t, r.Elided, 1, "auto: %+v", r)
		assert.Equal(t, 0, r.DroppedTurns, "auto: %+v", r)
	}
	opts.ContextWindow = DefaultCompletionReserve + 400
	got, _, err = prompt(body, opts)
	require.NoError(t, err, "auto, small window")
	require.LessOrEqual(t, len(got), 400, "auto, small window: tokens")
	text, _ := enc.Decode(got)
	assert.Contains(t, text, "[tool output elided]", "auto, small window")
	assert.NotContains(t, text, "Question 0?", "auto, small window")
	assert.True(t, strings.HasSuffix(text, "<|start|>user<|message|>And now?<|end|><|start|>assistant"), "auto, small window: %q", text)
	// Too small even for the system and developer messages and the question.
	opts.ContextWindow = DefaultCompletionReserve + 50
	_, _, err = prompt(body, opts)
	if assert.ErrorIs(t, err, ErrContextLengthExceeded, "auto, tiny window") {
		assert.ErrorContains(t, err, "(at least ", "auto, tiny window")
		assert.ErrorContains(t, err, " in the messages even with its older turns dropped, 4096 for the completion)", "auto, tiny window")
	}
	opts.Truncation = "sometimes"
	_, _, err = prompt(body, opts)
	if assert.Error(t, err, "bad RequestOptions.Truncation: want a server error") {
		assert.NotErrorAs(t, err, new(*RequestError), "bad RequestOptions.Truncation: want a server error")
	}
}

func TestRenderPromptResponses(t *testing.T) {
	enc := testenc.Encoding(t)
	const image = `{"type":"input_image","image_url":"https://example.com/chart.png"}`
	input := `[{"role":"user","content":[{"type":"input_text","text":"Look at this: "},` + image + `]},` +
		`{"type":"function_call","call_id":"c1","name":"lookup","arguments":"{}"},` +
		`{"type":"function_call_output","call_id":"c1","output":"` + strings.Repeat("Result. ", 50) + `"},` +
		`{"role":"assistant","content":"Done."},` +
		`{"role":"user","content":[{"type":"input_text","text":"And this? "},` + image + `]}]`
	decode := func(extra string) *ResponsesRequest {
		var req ResponsesRequest
		require.NoError(t, DecodeRequest([]byte(`{"model":"m",`+extra+`"input":`+input+`}`), &req))
		return &req
	}
	render := func(req *ResponsesRequest, opts *RequestOptions) ([]harmony.Token, error) {
		conv, err := req.Conversation(opts)
		if err != nil {
			return nil, err
		}
		return req.RenderPrompt(enc, conv, opts)
	}
	opts := &RequestOptions{ImagePlaceholder: "[an image: a chart of sales by month, in blue, with a legend and a title]"}
	full, err := render(decode(`"max_output_tokens":100,`), opts)
	require.NoError(t, err)
	opts.ContextWindow = len(full) + 99 // one token short
	for _, tc := range []struct {
		extra, code, param string
	}{
		{``, "context_length_exceeded", "input"},
		{`"truncation":"disabled",`, "context_length_exceeded", "input"},
		{`"truncation":"auto",`, "", ""},
		{`"truncation":"middle",`, "invalid_request", "truncation"},
	} {
		_, err := render(decode(`"max_output_tokens":100,`+tc.extra), opts)
		if tc.code == "" {
			assert.NoError(t, err, tc.extra)
			continue
		}
		var re *RequestError
		if assert.ErrorAs(t, err, &re, tc.extra) {
			assert.Equal(t, tc.code, re.Code, tc.extra)
			assert.Equal(t, tc.param, re.Param, tc.extra)
		}
	}
	// With truncation auto, the older image is elided first.
	got, err := render(decode(`"max_output_tokens":100,"truncation":"auto",`), opts)
	require.NoError(t, err)
	text, _ := enc.Decode(got)
	assert.Contains(t, text, "Look at this: [image elided]", "auto")
	assert.Contains(t, text, "And this? "+opts.ImagePlaceholder, "auto")
	assert.NotContains(t, text, "[tool output elided]", "auto")
	// The server's default applies when the request does not say, not when
	// it says "disabled".
	opts.Truncation = TruncationAuto
	_, err = render(decode(`"max_output_tokens":100,`), opts)
	assert.NoError(t, err, "server default auto")
	_, err = render(decode(`"max_output_tokens":100,"truncation":"disabled",`), opts)
	assert.ErrorIs(t, err, ErrContextLengthExceeded, "request disabled over server auto")
	// The field round-trips.
	req := decode(`"truncation":"auto",`)
	assert.Equal(t, TruncationAuto, req.Truncation, "truncation field")
	assert.Contains(t, marshalLine(req), `"truncation":"auto"`, "truncation field")
	assert.NotContains(t, marshalLine(decode("")), "truncation", "truncation field")
}
