package openaicompat

import (
	"fmt"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultsRecover sends a completion with a slip gpt-oss makes (the
// <|start|>assistant before the call forgotten) through every path a
// server takes, with the options it gets without asking: the zero value,
// nil, and each request's ResponseOptions. Each recovers the call; with
// Strict each fails with the typed error.
func TestDefaultsRecover(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Need weather.<|end|>` +
		`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`)
	var chatReq ChatCompletionRequest
	require.NoError(t, DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"Weather?"}],
		"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}`), &chatReq))
	var respReq ResponsesRequest
	require.NoError(t, DecodeRequest([]byte(`{"model":"m","input":"Weather?",
		"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}}]}`), &respReq))
	chatOpts, respOpts := chatReq.ResponseOptions(), respReq.ResponseOptions()
	for name, opts := range map[string]*ResponseOptions{"nil": nil, "zero": {}, "chat request": &chatOpts, "responses request": &respOpts} {
		chat, err := ChatCompletionFromTokens(enc, toks, Sampling{}, opts)
		require.NoError(t, err, "%s: ChatCompletionFromTokens", name)
		m := chat.Choices[0].Message
		msg := fmt.Sprintf("%s: chat %s", name, marshalLine(chat))
		assert.Equal(t, "Need weather.", m.Reasoning, msg)
		if assert.Len(t, m.ToolCalls, 1, msg) {
			assert.Equal(t, "get_weather", m.ToolCalls[0].Function.Name, msg)
			assert.Equal(t, `{"city":"Oslo"}`, m.ToolCalls[0].Function.Arguments, msg)
		}
		assert.Equal(t, FinishToolCalls, chat.Choices[0].FinishReason, msg)

		resp, err := ResponseFromTokens(enc, toks, Sampling{}, opts)
		require.NoError(t, err, "%s: ResponseFromTokens", name)
		msg = fmt.Sprintf("%s: response %s", name, marshalLine(resp))
		if assert.Len(t, resp.Output, 2, msg) {
			assert.Equal(t, "reasoning", resp.Output[0].Type, msg)
			assert.Equal(t, "function_call", resp.Output[1].Type, msg)
			assert.Equal(t, `{"city":"Oslo"}`, resp.Output[1].Arguments, msg)
		}

		chunks, err := streamChat(enc, toks, Sampling{}, opts)
		require.NoError(t, err, "%s: chat stream", name)
		folded, finish, err := foldChunks(chunks)
		msg = fmt.Sprintf("%s: chat stream %s", name, marshalLine(chunks))
		if assert.NoError(t, err, msg) {
			assert.Equal(t, "Need weather.", folded.Reasoning, msg)
			if assert.Len(t, folded.ToolCalls, 1, msg) {
				assert.Equal(t, `{"city":"Oslo"}`, folded.ToolCalls[0].Function.Arguments, msg)
			}
			assert.Equal(t, FinishToolCalls, finish, msg)
		}

		events, err := streamResponses(enc, toks, Sampling{}, opts)
		msg = fmt.Sprintf("%s: responses stream %s", name, marshalLine(events))
		if assert.NoError(t, err, msg) {
			last := events[len(events)-1]
			assert.Equal(t, "response.completed", last.Type, msg)
			assert.Contains(t, marshalLine(last), `"arguments":"{\"city\":\"Oslo\"}"`, msg)
		}
	}

	strict := &ResponseOptions{Strict: true}
	var oe *OutputError
	var pe *harmony.ParseError
	_, err := ChatCompletionFromTokens(enc, toks, Sampling{}, strict)
	assert.ErrorAs(t, err, &oe, "strict chat")
	assert.ErrorAs(t, err, &pe, "strict chat")
	_, err = ResponseFromTokens(enc, toks, Sampling{}, strict)
	assert.ErrorAs(t, err, &oe, "strict responses")
	_, err = streamChat(enc, toks, Sampling{}, strict)
	assert.ErrorAs(t, err, &oe, "strict chat stream")
	_, err = streamResponses(enc, toks, Sampling{}, strict)
	assert.ErrorAs(t, err, &oe, "strict responses stream")

}
