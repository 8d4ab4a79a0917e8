package openaicompat

import (
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBareAnswer: a completion that is bare text, without any header, is
// reasoning; when the request asked for a json_schema format and the text
// is JSON valid for its schema, it is the answer. Both APIs, whole and
// streamed token by token.
func TestBareAnswer(t *testing.T) {
	enc := testenc.Encoding(t)
	const schema = `{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}`
	var chatReq ChatCompletionRequest
	require.NoError(t, DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"Hi?"}],
		"response_format":{"type":"json_schema","json_schema":{"name":"reply","schema":`+schema+`}}}`), &chatReq))
	var respReq ResponsesRequest
	require.NoError(t, DecodeRequest([]byte(`{"model":"m","input":"Hi?",
		"text":{"format":{"type":"json_schema","name":"reply","schema":`+schema+`}}}`), &respReq))
	withFormat := chatReq.ResponseOptions()
	want := &harmony.ResponseFormat{Name: "reply", Schema: []byte(schema)}
	require.Equal(t, want, withFormat.ResponseFormat, "chat: ResponseOptions().ResponseFormat")
	require.Equal(t, want, respReq.ResponseOptions().ResponseFormat, "responses: ResponseOptions().ResponseFormat")

	var jsonObject ChatCompletionRequest
	require.NoError(t, DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"Hi?"}],
		"response_format":{"type":"json_object"}}`), &jsonObject))
	assert.Nil(t, jsonObject.ResponseOptions().ResponseFormat, "json_object has no schema")

	const answer = `{"answer": "hi"}`
	analysis := &harmony.Message{Author: harmony.Author{Role: harmony.RoleAssistant}, Channel: harmony.ChannelAnalysis}
	for _, tc := range []struct {
		name     string
		opts     ResponseOptions
		text     string
		read     string // the answer's or the reasoning's text
		answered bool   // else reasoning
	}{
		{"valid, then <|return|>", withFormat, answer + "<|return|>", answer, true},
		{"valid, then <|end|>", withFormat, answer + "<|end|>", answer, true},
		{"valid, to the end", withFormat, answer, answer, true},
		{"valid, with white space", withFormat, "\n" + answer + "\n<|return|>", answer, true},
		{"not valid for the schema", withFormat, `{"answer": 4}<|return|>`, `{"answer": 4}`, false},
		{"a member the schema does not allow", withFormat, `{"answer": "hi", "why": "x"}<|return|>`, `{"answer": "hi", "why": "x"}`, false},
		{"not JSON", withFormat, `{"answer": "hi"<|return|>`, `{"answer": "hi"`, false},
		{"text around the JSON", withFormat, "Sure: " + answer + "<|return|>", "Sure: " + answer, false},
		{"no format", ResponseOptions{}, answer + "<|return|>", answer, false},
		{"json_object", jsonObject.ResponseOptions(), answer + "<|return|>", answer, false},
		{"an analysis header", withFormat, "<|channel|>analysis<|message|>" + answer + "<|end|>", answer, false},
		{"a prefilled analysis message", ResponseOptions{ResponseFormat: want, Prefill: analysis}, answer + "<|return|>", answer, false},
		{"strict", ResponseOptions{ResponseFormat: want, Strict: true}, "<|channel|>analysis<|message|>" + answer + "<|end|>", answer, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantChat, wantResponses := "reasoning: "+tc.read+"\ncontent: \n", "reasoning: "+tc.read+"\n"
			if tc.answered {
				wantChat, wantResponses = "content: "+tc.read+"\n", "message: "+tc.read+"\n"
			}
			toks := enc.EncodeWithSpecialTokens(tc.text)
			chat, responses := readings(t, enc, toks, tc.opts)
			assert.Equal(t, wantChat, chat, "chat")
			assert.Equal(t, wantResponses, responses, "responses")

			// An answer is no reasoning in the usage either.
			wantReasoning := len(toks)
			if tc.answered {
				wantReasoning = 0
			}
			resp, err := ChatCompletionFromTokens(enc, toks, Sampling{}, &tc.opts)
			require.NoError(t, err)
			assert.Equal(t, wantReasoning, resp.Usage.CompletionTokensDetails.ReasoningTokens, "reasoning tokens")
		})
	}
}
