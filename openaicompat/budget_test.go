package openaicompat

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
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
		if err := DecodeRequest([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		conv, err := req.Conversation(opts)
		if err != nil {
			t.Fatal(err)
		}
		toks, err := req.RenderPrompt(enc, conv, opts)
		return toks, conv, err
	}
	body := longChat(10, "")
	full, conv, err := prompt(body, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil); !slices.Equal(full, want) {
		t.Fatal("without a context window, the prompt is not the plain render")
	}
	window := len(full) + DefaultCompletionReserve

	// Fits: the prompt is unchanged.
	got, _, err := prompt(body, &RequestOptions{ContextWindow: window})
	if err != nil || !slices.Equal(got, full) {
		t.Fatalf("fits: %v", err)
	}
	// One token short: a 400, by default.
	_, _, err = prompt(body, &RequestOptions{ContextWindow: window - 1})
	status, resp := HTTPError(err)
	want := fmt.Sprintf(`{"error":{"message":"messages: context length exceeded: this model's maximum context length is %d tokens, but %d were requested (%d in the messages, %d for the completion): shorten the messages or the completion's max tokens","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
		window-1, window, len(full), DefaultCompletionReserve)
	if got := marshalLine(resp); status != 400 || got != want+"\n" {
		t.Errorf("got %d %s\nwant 400 %s", status, got, want)
	}
	var be *harmony.BudgetError
	if !errors.Is(err, ErrContextLengthExceeded) || !errors.Is(err, harmony.ErrContextTooLong) || !errors.As(err, &be) || be.Tokens != len(full) {
		t.Errorf("%v does not wrap the sentinels and the counts", err)
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
		if _, _, err := prompt(longChat(10, tc.extra), &tc.opts); err != nil {
			t.Errorf("%s %+v: %v", tc.extra, tc.opts, err)
		}
		tc.opts.ContextWindow--
		if _, _, err := prompt(longChat(10, tc.extra), &tc.opts); !errors.Is(err, ErrContextLengthExceeded) {
			t.Errorf("%s %+v: %v, want an error", tc.extra, tc.opts, err)
		}
	}
	// Truncation by the server's choice: old tool output goes first, then
	// old turns.
	opts := &RequestOptions{ContextWindow: window - 1, Truncation: TruncationAuto}
	got, conv, err = prompt(body, opts)
	if err != nil {
		t.Fatal(err)
	}
	fitted, r, err := enc.RenderConversationWithinBudget(conv, harmony.RoleAssistant, harmony.Budget{MaxTokens: window - 1, Reserve: DefaultCompletionReserve}, nil)
	if err != nil || !slices.Equal(got, fitted) || len(r.Elided) != 1 || r.DroppedTurns != 0 {
		t.Errorf("auto: %v, %+v", err, r)
	}
	opts.ContextWindow = DefaultCompletionReserve + 400
	got, _, err = prompt(body, opts)
	if err != nil || len(got) > 400 {
		t.Fatalf("auto, small window: %d tokens, %v", len(got), err)
	}
	if text, _ := enc.Decode(got); !strings.Contains(text, "[tool output elided]") || strings.Contains(text, "Question 0?") || !strings.HasSuffix(text, "<|start|>user<|message|>And now?<|end|><|start|>assistant") {
		t.Errorf("auto, small window: %q", text)
	}
	// Too small even for the system and developer messages and the question.
	opts.ContextWindow = DefaultCompletionReserve + 50
	_, _, err = prompt(body, opts)
	if !errors.Is(err, ErrContextLengthExceeded) || !strings.Contains(err.Error(), "(at least ") || !strings.Contains(err.Error(), " in the messages even with its older turns dropped, 4096 for the completion)") {
		t.Errorf("auto, tiny window: %v", err)
	}
	opts.Truncation = "sometimes"
	if _, _, err = prompt(body, opts); err == nil || errors.As(err, new(*RequestError)) {
		t.Errorf("bad RequestOptions.Truncation: %v, want a server error", err)
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
		if err := DecodeRequest([]byte(`{"model":"m",`+extra+`"input":`+input+`}`), &req); err != nil {
			t.Fatal(err)
		}
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
	if err != nil {
		t.Fatal(err)
	}
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
		var re *RequestError
		switch {
		case tc.code == "" && err != nil:
			t.Errorf("%s: %v", tc.extra, err)
		case tc.code != "" && (!errors.As(err, &re) || re.Code != tc.code || re.Param != tc.param):
			t.Errorf("%s: %v, want code %s param %s", tc.extra, err, tc.code, tc.param)
		}
	}
	// With truncation auto, the older image is elided first.
	got, err := render(decode(`"max_output_tokens":100,"truncation":"auto",`), opts)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := enc.Decode(got)
	if !strings.Contains(text, "Look at this: [image elided]") || !strings.Contains(text, "And this? "+opts.ImagePlaceholder) || strings.Contains(text, "[tool output elided]") {
		t.Errorf("auto: %q", text)
	}
	// The server's default applies when the request does not say, not when
	// it says "disabled".
	opts.Truncation = TruncationAuto
	if _, err := render(decode(`"max_output_tokens":100,`), opts); err != nil {
		t.Errorf("server default auto: %v", err)
	}
	if _, err := render(decode(`"max_output_tokens":100,"truncation":"disabled",`), opts); !errors.Is(err, ErrContextLengthExceeded) {
		t.Errorf("request disabled over server auto: %v", err)
	}
	// The field round-trips.
	req := decode(`"truncation":"auto",`)
	if req.Truncation != TruncationAuto || !strings.Contains(marshalLine(req), `"truncation":"auto"`) || strings.Contains(marshalLine(decode("")), "truncation") {
		t.Errorf("truncation field: %+v", req)
	}
}
