package openaicompat

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/conformance"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConformanceStreamsMatchWhole runs every parse and stream case of the
// reference's conformance file that harmony parses without error, in the
// case's mode and (for strict cases) in lenient mode too, and checks for
// each API that streaming and not streaming agree:
//
//   - the chat chunks concatenate to the message that the messages path
//     (newChatCompletionResponse, the oracle of messages_test.go) builds
//     from harmony's parse (content, reasoning, each tool call's id, name
//     and arguments, finish reason);
//   - the Responses events replay to the response that newResponse builds;
//   - ChatCompletionFromTokens and ResponseFromTokens equal them too (in
//     lenient mode only when the converter recovered nothing harmony drops);
//   - when the conversion fails (a message from another role, in strict
//     mode), both fail alike.
//
// Under -short and under the race detector, it runs every 4th case.
func TestConformanceStreamsMatchWhole(t *testing.T) {
	enc := testenc.Encoding(t)
	cases, err := conformance.Load(filepath.Join("..", "testdata", "conformance", "parse.jsonl"))
	require.NoError(t, err)
	every := 1
	if sample.Sampled() {
		every = 4
	}
	ran, failedAlike := 0, 0
	for _, c := range sample.Every(cases, every) {
		if c.Op != "parse" && c.Op != "stream" {
			continue
		}
		role := harmony.Role("")
		if c.Role != nil {
			role = harmony.Role(*c.Role)
		}
		toks := make([]harmony.Token, len(c.Tokens))
		for i, tk := range c.Tokens {
			toks[i] = harmony.Token(tk)
		}
		modes := []bool{c.Lenient()}
		if !c.Lenient() {
			modes = append(modes, true)
		}
		for _, lenient := range modes {
			// Lenient conversion parses in harmony's recovery mode.
			msgs, err := enc.ParseCompletion(toks, role, &harmony.ParseOptions{Mode: parseMode(lenient)})
			if err != nil {
				continue
			}
			ran++
			name := fmt.Sprintf("%s/lenient=%v", c.ID, lenient)
			opts := func() *ResponseOptions {
				return &ResponseOptions{Model: "m", Created: 1, IDGenerator: counter(), Strict: !lenient, ExpectStart: role == ""}
			}
			failed := checkChatConformance(t, name, enc, toks, msgs, opts)
			failed2 := checkResponsesConformance(t, name, enc, toks, msgs, opts)
			assert.Equal(t, failed, failed2, "%s: chat failed %v, responses failed", name, failed)
			if failed {
				failedAlike++
			}
		}
	}
	assert.GreaterOrEqual(t, ran, 300/every, "case runs")
	t.Logf("%d case runs: %d failed alike as malformed", ran, failedAlike)
}

// checkChatConformance reports whether the conversion failed; the token path
// must see the same messages as harmony's parser in the same mode.
func checkChatConformance(t *testing.T, name string, enc *harmony.Encoding, toks []harmony.Token, msgs []harmony.Message, opts func() *ResponseOptions) (failed bool) {
	t.Helper()
	whole, wholeErr := newChatCompletionResponse(msgs, Sampling{}, opts())
	chunks, streamErr := streamChat(enc, toks, Sampling{}, opts())
	fromTokens, tokErr := ChatCompletionFromTokens(enc, toks, Sampling{}, opts())
	c, _ := NewChatStreamConverter(enc, opts())
	for _, tk := range toks {
		c.Process(tk)
	}
	c.Finish(Sampling{})
	same := reflect.DeepEqual(c.Messages(), msgs) || (len(msgs) == 0 && len(c.Messages()) == 0)
	if wholeErr != nil {
		assert.Error(t, streamErr, "%s: whole failed (%v), stream did not", name, wholeErr)
		if same {
			assert.EqualError(t, tokErr, wholeErr.Error(), "%s: from tokens, whole failed", name)
		}
		return true
	}
	assert.True(t, same, "%s: the stream converter saw other messages than harmony", name)
	streamOK := assert.NoError(t, streamErr, "%s: whole succeeded, stream failed", name)
	tokOK := assert.NoError(t, tokErr, "%s: whole succeeded, from tokens failed", name)
	if !streamOK || !tokOK {
		return false
	}
	m, finish, err := foldChunks(chunks)
	if !assert.NoError(t, err, name) {
		return false
	}
	// The usage is counted from tokens; a response from messages has none.
	if u := fromTokens.Usage; assert.NotNil(t, u, "%s: usage", name) {
		assert.Equal(t, len(toks), u.CompletionTokens, "%s: usage's completion tokens", name)
	}
	fromTokens.Usage = nil
	assert.Equal(t, marshalLine(whole), marshalLine(fromTokens), "%s: from tokens differs from parsed", name)
	assert.NoError(t, sameChatMessage(m, whole.Choices[0].Message), name)
	assert.Equal(t, whole.Choices[0].FinishReason, finish, "%s: streamed finish", name)
	return false
}

func checkResponsesConformance(t *testing.T, name string, enc *harmony.Encoding, toks []harmony.Token, msgs []harmony.Message, opts func() *ResponseOptions) (failed bool) {
	t.Helper()
	whole, wholeErr := newResponse(msgs, Sampling{}, opts())
	events, streamErr := streamResponses(enc, toks, Sampling{}, opts())
	fromTokens, tokErr := ResponseFromTokens(enc, toks, Sampling{}, opts())
	c, _ := NewResponsesStreamConverter(enc, opts())
	for _, tk := range toks {
		c.Process(tk)
	}
	c.Finish(Sampling{})
	same := reflect.DeepEqual(c.Messages(), msgs) || (len(msgs) == 0 && len(c.Messages()) == 0)
	if wholeErr != nil {
		assert.Error(t, streamErr, "%s: whole failed (%v), stream did not", name, wholeErr)
		return true
	}
	streamOK := assert.NoError(t, streamErr, "%s: whole succeeded, stream failed", name)
	tokOK := assert.NoError(t, tokErr, "%s: whole succeeded, from tokens failed", name)
	if !streamOK || !tokOK {
		return false
	}
	final, err := foldEvents(events)
	if !assert.NoError(t, err, name) {
		return false
	}
	assert.True(t, same, "%s: the stream converter saw other messages than harmony", name)
	assert.Equal(t, marshalLine(fromTokens), marshalLine(final), "%s: streamed differs from whole", name)
	// The usage is counted from tokens; a response from messages has none.
	if u := fromTokens.Usage; assert.NotNil(t, u, "%s: usage", name) {
		assert.Equal(t, len(toks), u.OutputTokens, "%s: usage's output tokens", name)
	}
	fromTokens.Usage = nil
	assert.Equal(t, marshalLine(whole), marshalLine(fromTokens), "%s: from tokens differs from parsed", name)
	return false

}

// parseMode is the harmony parse mode of a conversion: recovery unless
// strict.
func parseMode(recover bool) harmony.ParseMode {
	if recover {
		return harmony.ParseRecover
	}
	return harmony.ParseStrict
}
