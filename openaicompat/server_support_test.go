package openaicompat

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidate(t *testing.T) {
	chat := `"messages": [{"role": "user", "content": "Hi"}]`
	tests := []struct {
		name     string
		chat     bool
		body     string
		param    string
		code     string
		sentinel error
		text     string
	}{
		{"n 2", true, `{"n": 2, ` + chat + `}`, "n", "unsupported_parameter", ErrUnsupportedParameter, "n is 2"},
		{"n 0", true, `{"n": 0, ` + chat + `}`, "n", "unsupported_parameter", ErrUnsupportedParameter, "n is 0"},
		{"n 1", true, `{"n": 1, ` + chat + `}`, "", "", nil, ""},
		{"max_tokens 0", true, `{"max_tokens": 0, ` + chat + `}`, "max_tokens", "invalid_request", ErrInvalidRequest, "max_tokens is 0: it must be at least 1"},
		{"max_tokens 1", true, `{"max_tokens": 1, ` + chat + `}`, "", "", nil, ""},
		{"max_completion_tokens -1", true, `{"max_completion_tokens": -1, ` + chat + `}`, "max_completion_tokens", "invalid_request", ErrInvalidRequest, "max_completion_tokens is -1: it must be at least 1"},
		{"stream_options without stream", true, `{"stream_options": {"include_usage": true}, ` + chat + `}`, "stream_options", "invalid_request", ErrInvalidRequest, "only allowed when stream is true"},
		{"stream_options with stream", true, `{"stream": true, "stream_options": {"include_usage": true}, ` + chat + `}`, "", "", nil, ""},
		{"max_output_tokens 0", false, `{"max_output_tokens": 0, "input": "Hi"}`, "max_output_tokens", "invalid_request", ErrInvalidRequest, "max_output_tokens is 0: it must be at least 1"},
		{"max_output_tokens -5", false, `{"max_output_tokens": -5, "input": "Hi"}`, "max_output_tokens", "invalid_request", ErrInvalidRequest, "max_output_tokens is -5"},
		{"max_output_tokens 16", false, `{"max_output_tokens": 16, "input": "Hi"}`, "", "", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var validate func() error
			var convert func() error
			if tc.chat {
				var r ChatCompletionRequest
				require.NoError(t, json.Unmarshal([]byte(tc.body), &r))
				validate = r.Validate
				convert = func() error { _, err := r.Conversation(nil); return err }
			} else {
				var r ResponsesRequest
				require.NoError(t, json.Unmarshal([]byte(tc.body), &r))
				validate = r.Validate
				convert = func() error { _, err := r.Conversation(nil); return err }
			}
			for _, f := range []struct {
				name string
				fn   func() error
			}{{"Validate", validate}, {"Conversation", convert}} {
				err := f.fn()
				if tc.sentinel == nil {
					assert.NoError(t, err, f.name)
					continue
				}
				var re *RequestError
				require.ErrorAs(t, err, &re, f.name)
				assert.Equal(t, -1, re.MessageIndex, f.name)
				assert.Equal(t, tc.param, re.Param, f.name)
				assert.Equal(t, tc.code, re.Code, f.name)
				assert.ErrorIs(t, err, tc.sentinel, f.name)
				assert.ErrorContains(t, err, tc.text, f.name)
			}
		})
	}
}

func TestResponsesStreamFail(t *testing.T) {
	enc := testenc.Encoding(t)
	tests := []struct {
		name   string
		tokens string
		err    error
		want   []string
	}{{
		name:   "sampler error mid-message",
		tokens: `<|channel|>final<|message|>Hi`,
		err:    errors.New("sampler died"),
		want: []string{
			`{"type":"error","code":null,"message":"sampler died","param":null,"sequence_number":5}`,
			`{"type":"response.failed","sequence_number":6,"response":{"id":"resp_1","object":"response","created_at":1,"status":"failed","error":{"code":"server_error","message":"sampler died"},"incomplete_details":null,"instructions":null,"model":"m","output":[{"type":"message","id":"msg_2","status":"incomplete","role":"assistant","content":[{"type":"output_text","text":"Hi","annotations":[],"logprobs":[]}]}],"parallel_tool_calls":true,"temperature":1,"tool_choice":"auto","tools":[],"top_p":1,"metadata":{}}}`,
		},
	}, {
		name:   "request error before any token",
		tokens: ``,
		err:    reqErr(-1, "tools[0].function.name", ErrInvalidTool, "bad"),
		want: []string{
			`{"type":"error","code":"invalid_tool","message":"tools[0].function.name: invalid tool: bad","param":"tools[0].function.name","sequence_number":2}`,
			`{"type":"response.failed","sequence_number":3,"response":{"id":"resp_1","object":"response","created_at":1,"status":"failed","error":{"code":"invalid_prompt","message":"tools[0].function.name: invalid tool: bad"},"incomplete_details":null,"instructions":null,"model":"m","output":[],"parallel_tool_calls":true,"temperature":1,"tool_choice":"auto","tools":[],"top_p":1,"metadata":{}}}`,
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewResponsesStreamConverter(enc, &ResponseOptions{Model: "m", Created: 1, IDGenerator: counter()})
			require.NoError(t, err)
			next := 0
			for _, tok := range enc.EncodeWithSpecialTokens(tc.tokens) {
				events, err := c.Process(tok)
				require.NoError(t, err)
				next += len(events)
			}
			if tc.tokens == "" {
				next = 2 // response.created and response.in_progress, sent by Fail
			}
			events := c.Fail(tc.err)
			require.GreaterOrEqual(t, len(events), len(tc.want), "events")
			events = events[len(events)-len(tc.want):]
			for i, e := range events {
				assert.Equal(t, tc.want[i], strings.TrimSpace(marshalLine(e)), "event %d", i)
			}
			assert.Equal(t, next, events[0].SequenceNumber, "the error event's sequence number")
			assert.Nil(t, c.Fail(tc.err), "second Fail")
			_, err = c.Process(1)
			assert.ErrorIs(t, err, ErrStreamFinished, "Process after Fail")
			_, err = c.Finish(Sampling{})
			assert.ErrorIs(t, err, ErrStreamFinished, "Finish after Fail")
		})
	}
	t.Run("after Finish", func(t *testing.T) {
		c, err := NewResponsesStreamConverter(enc, nil)
		require.NoError(t, err)
		_, err = c.Finish(Sampling{})
		require.NoError(t, err)
		assert.Nil(t, c.Fail(errors.New("late")), "Fail after Finish")
	})
}

func TestReasoningTokens(t *testing.T) {
	enc := testenc.Encoding(t)
	tok := func(s string) []harmony.Token { return enc.EncodeWithSpecialTokens(s) }
	analysis := `<|channel|>analysis<|message|>Think it through.<|end|>`
	final := `<|start|>assistant<|channel|>final<|message|>Done.<|return|>`
	tests := []struct {
		name    string
		tokens  []harmony.Token
		want    int
		lenient bool
	}{
		{"analysis then final", tok(analysis + final), len(tok(analysis)), false},
		{"final only", tok(`<|channel|>final<|message|>Done.<|return|>`), 0, false},
		{"two analysis messages", tok(analysis + `<|start|>assistant` + analysis + final), len(tok(analysis + `<|start|>assistant` + analysis)), false},
		{"unfinished analysis", tok(`<|channel|>analysis<|message|>Still think`), len(tok(`<|channel|>analysis<|message|>Still think`)), false},
		{"call on commentary after analysis", tok(analysis + `<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>`), len(tok(analysis)), false},
		{"junk then analysis, lenient", tok(`<|channel|>final<|message|>A<|end|>oops<|start|>assistant` + analysis), len(tok(`oops<|start|>assistant` + analysis)), true},
		{"junk header, lenient", tok(`oops<|start|>assistant` + analysis), len(tok(`oops<|start|>assistant` + analysis)), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := &ResponseOptions{Strict: !tc.lenient, IDGenerator: counter(), Created: 1}
			s := Sampling{PromptTokens: 7, CachedTokens: 3}
			cc, err := NewChatStreamConverter(enc, opts)
			require.NoError(t, err)
			rc, err := NewResponsesStreamConverter(enc, opts)
			require.NoError(t, err)
			for _, x := range tc.tokens {
				_, err := cc.Process(x)
				require.NoError(t, err)
				_, err = rc.Process(x)
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want, cc.ReasoningTokens(), "chat, before Finish")
			assert.Equal(t, tc.want, rc.ReasoningTokens(), "responses, before Finish")
			o := *opts
			o.StreamUsage = true
			cc, _ = NewChatStreamConverter(enc, &o)
			for _, x := range tc.tokens {
				cc.Process(x)
			}
			chunks, err := cc.Finish(s)
			require.NoError(t, err)
			assert.Equal(t, tc.want, cc.ReasoningTokens(), "after Finish")
			assert.Equal(t, tc.want, detail(chunks[len(chunks)-1].Usage), "stream usage: reasoning tokens")
			events, err := rc.Finish(s)
			require.NoError(t, err)
			streamUsage := events[len(events)-1].Response.Usage
			assert.Equal(t, tc.want, respDetail(streamUsage), "responses stream usage: %+v", streamUsage)
			cr, err := ChatCompletionFromTokens(enc, tc.tokens, s, opts)
			require.NoError(t, err)
			assert.Equal(t, tc.want, detail(cr.Usage), "ChatCompletionFromTokens")
			r, err := ResponseFromTokens(enc, tc.tokens, s, opts)
			require.NoError(t, err)
			assert.Equal(t, tc.want, respDetail(r.Usage), "ResponseFromTokens")
			// The converters count the completion's tokens themselves.
			wantChat := ChatUsage{PromptTokens: 7, CompletionTokens: len(tc.tokens), TotalTokens: 7 + len(tc.tokens),
				PromptTokensDetails: &PromptTokensDetails{CachedTokens: 3}, CompletionTokensDetails: &CompletionTokensDetails{ReasoningTokens: tc.want}}
			assert.Equal(t, wantChat, *cr.Usage, "ChatCompletionFromTokens usage")
			assert.Equal(t, wantChat, *chunks[len(chunks)-1].Usage, "stream usage")
			u := r.Usage
			assert.Equal(t, 7, u.InputTokens, "ResponseFromTokens usage %s", marshalLine(u))
			assert.Equal(t, len(tc.tokens), u.OutputTokens, "ResponseFromTokens usage %s", marshalLine(u))
			assert.Equal(t, 7+len(tc.tokens), u.TotalTokens, "ResponseFromTokens usage %s", marshalLine(u))
		})
	}
}

// detail returns the reasoning tokens of a chat usage, 0 without one.
func detail(u *ChatUsage) int {
	if u == nil || u.CompletionTokensDetails == nil {
		return 0
	}
	return u.CompletionTokensDetails.ReasoningTokens
}

// respDetail returns the reasoning tokens of a Responses usage, 0
// without one.
func respDetail(u *ResponsesUsage) int {

	if u == nil {
		return 0
	}
	return u.OutputTokensDetails.ReasoningTokens
}

// TestRequestSentinels: every request sentinel has a code of its own, and
// none is (or wraps) one of harmony's sentinels, whose names two of them
// used to share.
func TestRequestSentinels(t *testing.T) {
	byCode := map[string]error{}
	for err, code := range codes {
		require.NotEmpty(t, code, "%v", err)
		assert.NotContains(t, byCode, code, "%v", err)
		byCode[code] = err
		assert.NotErrorIs(t, err, harmony.ErrUnknownRole)
		assert.NotErrorIs(t, err, harmony.ErrUnsupportedContent)
	}
	tests := []struct {
		body     string
		sentinel error
		code     string
	}{
		{`{"messages":[{"role":"function","content":"x"}]}`, ErrUnknownMessageRole, "unknown_role"},
		{`{"messages":[{"role":"user","content":[{"type":"input_audio"}]}]}`, ErrUnsupportedRequestContent, "unsupported_content"},
	}
	for _, tc := range tests {
		var req ChatCompletionRequest
		require.NoError(t, json.Unmarshal([]byte(tc.body), &req))
		_, err := req.Conversation(nil)
		var re *RequestError
		require.ErrorAs(t, err, &re, tc.body)
		assert.ErrorIs(t, err, tc.sentinel, tc.body)
		assert.Equal(t, tc.code, re.Code, tc.body)
	}
}
