package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/openaicompat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests of this file assert the order in which requests finish, never
// how long they take: a request is held inside the model by a gate until
// the test lets it go, and what must happen meanwhile is checked while it
// is held. A timer only ends a hung test.

// gate is a model that holds each request whose last user message is
// "slow" inside the model until release is closed, and says on entered
// that it holds one. Slow requests go to slow, held in the compilation of
// their constraint (inCompile: the sampler compiles it in Complete) or at
// the start of Complete; the others go to plain, unheld.
type gate struct {
	slow, plain model
	inCompile   bool
	entered     chan uint64 // the number of each request held
	release     chan struct{}
}

func newGate(slow, plain model, inCompile bool) *gate {
	return &gate{slow: slow, plain: plain, inCompile: inCompile, entered: make(chan uint64), release: make(chan struct{})}
}

func (g *gate) Complete(n uint64, conv harmony.Conversation, prompt []harmony.Token, mk constraint) ([]harmony.Token, error) {
	if lastUserText(conv) != "slow" {
		return g.plain.Complete(n, conv, prompt, mk)
	}
	hold := func() {
		g.entered <- n
		<-g.release
	}
	if !g.inCompile {
		hold()
		return g.slow.Complete(n, conv, prompt, mk)
	}
	return g.slow.Complete(n, conv, prompt, func() (*constrain.Envelope, error) {
		hold()
		return mk()
	})
}

// waitEntered waits until the gate holds a request and returns its number.
func (g *gate) waitEntered(t *testing.T) uint64 {
	t.Helper()
	select {
	case n := <-g.entered:
		return n
	case <-time.After(hung):
		require.Fail(t, "no request reached the model")
		return 0
	}
}

// result is what a request sent in the background got.
type result struct {
	status int
	header http.Header
	body   []byte
	err    error
}

// client ends a request that hangs: it bounds no outcome.
var client = &http.Client{Timeout: hung}

// send posts body to url and returns what it got.
func send(url, body string) result {
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return result{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return result{status: resp.StatusCode, header: resp.Header, body: b, err: err}
}

// sendAsync sends in the background; the channel gets the result.
func sendAsync(url, body string) <-chan result {
	c := make(chan result, 1)
	go func() { c <- send(url, body) }()
	return c
}

// wait returns the result of a request sent with sendAsync.
func wait(t *testing.T, c <-chan result) result {
	t.Helper()
	select {
	case r := <-c:
		return r
	case <-time.After(2 * hung):
		require.Fail(t, "the request never finished")
		return result{}
	}
}

// slowChat must call ping: its constraint is compiled from the tools.
const slowChat = `{"messages": [{"role": "user", "content": "slow"}], "tools": [{"type": "function", "function": {"name": "ping"}}], "tool_choice": "required"}`

// TestSlowRequestStallsNoOther: while one request is inside the model, held
// in the compilation of its constraint (-sample), a plain request sent
// after it is served to the end; the held one then finishes as it would
// have. The prompt log still has the prompts in the order the requests
// reached the model, each with its number.
func TestSlowRequestStallsNoOther(t *testing.T) {
	enc := testenc.Encoding(t)
	g := newGate(newSampler(enc, 1), standIn{enc}, true)
	prompts := &syncBuffer{}
	ts := startServerWith(t, g, prompts, options{MaxConcurrent: 2})

	slow := sendAsync(ts.URL+chatPath, slowChat)
	require.Equal(t, uint64(0), g.waitEntered(t), "the slow request's number")
	plain := send(ts.URL+chatPath, `{`+hi+`}`)
	require.NoError(t, plain.err, "plain request beside the held one")
	require.Equal(t, http.StatusOK, plain.status, "plain request beside the held one: %s", plain.body)
	var r openaicompat.ChatCompletionResponse
	unmarshal(t, plain.body, &r)
	if c := r.Choices[0].Message.Content; assert.NotNil(t, c, "plain request: content") {
		assert.Equal(t, "You said: Hi", c.Text, "plain request: content")
	}
	select {
	case got := <-slow:
		require.Fail(t, "the held request finished before it was let go", "%d %s", got.status, got.body)
	default:
	}

	close(g.release)
	got := wait(t, slow)
	require.NoError(t, got.err, "held request")
	require.Equal(t, http.StatusOK, got.status, "held request: %s", got.body)
	var sr openaicompat.ChatCompletionResponse
	unmarshal(t, got.body, &sr)
	c := sr.Choices[0]
	assert.Equal(t, openaicompat.FinishToolCalls, c.FinishReason, "held request under tool_choice required: %s", got.body)
	if assert.NotEmpty(t, c.Message.ToolCalls, "held request under tool_choice required: %s", got.body) {
		assert.Equal(t, "ping", c.Message.ToolCalls[0].Function.Name, "held request under tool_choice required: %s", got.body)
	}
	logged := promptLines(t, enc, prompts.String())
	if assert.Len(t, logged, 2, "prompt log, want the slow prompt, then Hi") {
		assert.Contains(t, logged[0].Text, "<|message|>slow<|end|>", "prompt log, want the slow prompt first")
		assert.Contains(t, logged[1].Text, "<|message|>Hi<|end|>", "prompt log, want Hi second")
	}
}

// TestMaxConcurrent: with MaxConcurrent requests held in the model, the
// next gets 429 in OpenAI's shape, with Retry-After, before its stream
// would start, and takes no number (no prompt log line, no replay line);
// once they are let go, requests are served again.
func TestMaxConcurrent(t *testing.T) {
	enc := testenc.Encoding(t)
	g := newGate(standIn{enc}, standIn{enc}, false)
	prompts := &syncBuffer{}
	ts := startServerWith(t, g, prompts, options{MaxConcurrent: 2})

	held := []<-chan result{sendAsync(ts.URL+chatPath, slowChat), sendAsync(ts.URL+responsesPath, `{"input": "slow"}`)}
	g.waitEntered(t)
	g.waitEntered(t)

	const want = `{"error":{"message":"This server is busy: 2 requests are in the model, as many as it runs at once. Please try again in 1s.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`
	for _, tc := range []struct{ path, body string }{
		{chatPath, `{` + hi + `}`},
		{chatPath, `{"stream": true, ` + hi + `}`},
		{responsesPath, `{"input": "Hi", "stream": true}`},
	} {
		got := send(ts.URL+tc.path, tc.body)
		if assert.NoError(t, got.err, "%s %s past the bound", tc.path, tc.body) {
			assert.Equal(t, http.StatusTooManyRequests, got.status, "%s %s past the bound: status", tc.path, tc.body)
			assert.Equal(t, want, strings.TrimSpace(string(got.body)), "%s %s past the bound: body", tc.path, tc.body)
			assert.Equal(t, "1", got.header.Get("Retry-After"), "%s %s past the bound: Retry-After", tc.path, tc.body)
			assert.Equal(t, "application/json", got.header.Get("Content-Type"), "%s %s past the bound: Content-Type", tc.path, tc.body)
		}
	}
	assert.Len(t, promptLines(t, enc, prompts.String()), 2, "prompts logged, want the 2 held: refused requests take no line")

	close(g.release)
	for i, c := range held {
		got := wait(t, c)
		if assert.NoError(t, got.err, "held request %d", i) {
			assert.Equal(t, http.StatusOK, got.status, "held request %d: %s", i, got.body)
		}
	}
	postOK(t, ts.URL+chatPath, `{`+hi+`}`, "application/json")
	logged := promptLines(t, enc, prompts.String())
	if assert.Len(t, logged, 3, "prompt log, want the 2 held and then Hi") {
		assert.Contains(t, logged[2].Text, "<|message|>Hi<|end|>", "prompt log, want Hi last")
	}
}
