package openaicompat

import (
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// reading is what a response says, written the same way for both APIs and
// both paths: "content: …" and "reasoning: …" lines (Chat), or one
// "TYPE: …" line per output item (Responses).
func chatReading(m ChatMessage) string {
	var b strings.Builder
	if m.Reasoning != "" || m.ReasoningContent != "" {
		b.WriteString("reasoning: " + m.Reasoning + m.ReasoningContent + "\n")
	}
	if m.Content != nil {
		b.WriteString("content: " + m.Content.Text + "\n")
	}
	return b.String()
}

func responsesReading(r *Response) string {
	var b strings.Builder
	for i := range r.Output {
		b.WriteString(r.Output[i].Type + ": " + itemText(&r.Output[i]) + "\n")
	}
	return b.String()
}

// readings converts toks with opts through ChatCompletionFromTokens, the
// chat stream converter, ResponseFromTokens and the Responses stream
// converter (token by token), checks that each stream says what its whole
// response says, and returns the chat and the Responses readings.
func readings(t *testing.T, enc *harmony.Encoding, toks []harmony.Token, opts ResponseOptions) (chat, responses string) {
	t.Helper()
	opts.IDGenerator, opts.Created = counter(), 1
	whole, err := ChatCompletionFromTokens(enc, toks, Sampling{}, &opts)
	require.NoError(t, err)
	opts.IDGenerator = counter()
	chunks, err := streamChat(enc, toks, Sampling{}, &opts)
	require.NoError(t, err)
	streamed, _, err := foldChunks(chunks)
	require.NoError(t, err)
	chat = chatReading(whole.Choices[0].Message)
	assert.Equal(t, chat, chatReading(streamed), "chat: streamed and whole")

	opts.IDGenerator = counter()
	resp, err := ResponseFromTokens(enc, toks, Sampling{}, &opts)
	require.NoError(t, err)
	opts.IDGenerator = counter()
	events, err := streamResponses(enc, toks, Sampling{}, &opts)
	require.NoError(t, err)
	final, err := foldEvents(events)
	require.NoError(t, err)
	responses = responsesReading(resp)
	assert.Equal(t, responses, responsesReading(final), "responses: streamed and whole")
	return chat, responses
}

// TestPrefillOutput: a prefilled final completion reads as the answer, a
// prefilled analysis one as reasoning; without the prefill, bare text reads
// as reasoning, as before. Both APIs, whole and streamed token by token.
func TestPrefillOutput(t *testing.T) {
	enc := testenc.Encoding(t)
	final := &harmony.Message{Author: harmony.Author{Role: harmony.RoleAssistant}, Channel: harmony.ChannelFinal}
	analysis := &harmony.Message{Author: harmony.Author{Role: harmony.RoleAssistant}, Channel: harmony.ChannelAnalysis}
	for _, tc := range []struct {
		name          string
		prefill       *harmony.Message
		strict        bool
		text          string
		chat, respons string
	}{
		{"prefilled final", final, false, "The answer is 4.<|return|>",
			"content: The answer is 4.\n", "message: The answer is 4.\n"},
		{"prefilled final, strict", final, true, "The answer is 4.<|return|>",
			"content: The answer is 4.\n", "message: The answer is 4.\n"},
		{"without the prefill", nil, false, "The answer is 4.<|return|>",
			"reasoning: The answer is 4.\ncontent: \n", "reasoning: The answer is 4.\n"},
		{"prefilled analysis", analysis, false, "Easy.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>",
			"reasoning: Easy.\ncontent: 4\n", "reasoning: Easy.\nmessage: 4\n"},
		{"prefilled analysis, then a call", analysis, false,
			`Need it.<|end|><|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>`,
			"reasoning: Need it.\n", "reasoning: Need it.\nfunction_call: {}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toks := enc.EncodeWithSpecialTokens(tc.text)
			chat, responses := readings(t, enc, toks, ResponseOptions{Prefill: tc.prefill, Strict: tc.strict})
			assert.Equal(t, tc.chat, chat, "chat")
			assert.Equal(t, tc.respons, responses, "responses")
		})
	}

	_, err := ChatCompletionFromTokens(enc, nil, Sampling{}, &ResponseOptions{Prefill: final, ExpectStart: true})
	assert.ErrorIs(t, err, harmony.ErrInvalidHeader, "a prefill and ExpectStart")
}

// TestPrefillPrompt: RenderPrompt ends the prompt in the prefilled header,
// with or without a context window, and with truncation "auto" its budget
// counts the header.
func TestPrefillPrompt(t *testing.T) {
	enc := testenc.Encoding(t)
	var req ChatCompletionRequest
	require.NoError(t, DecodeRequest([]byte(`{"model":"m","messages":[
		{"role":"user","content":"`+strings.Repeat("old question ", 200)+`"},
		{"role":"assistant","content":"old answer"},
		{"role":"user","content":"What is 2+2?"}]}`), &req))
	final := harmony.Message{Author: harmony.Author{Role: harmony.RoleAssistant}, Channel: harmony.ChannelFinal}
	opts := &RequestOptions{Prefill: &final}
	conv, err := req.Conversation(opts)
	require.NoError(t, err)
	want, err := enc.RenderConversationWithPrefill(conv, final, nil)
	require.NoError(t, err)
	header := enc.EncodeWithSpecialTokens("<|start|>assistant<|channel|>final<|message|>")
	require.Equal(t, header, want[len(want)-len(header):], "the prompt's end")

	got, err := req.RenderPrompt(enc, conv, opts)
	require.NoError(t, err)
	assert.Equal(t, want, got, "no context window")
	for _, truncation := range []string{TruncationAuto, TruncationDisabled} {
		o := *opts
		o.ContextWindow, o.CompletionReserve, o.Truncation = len(want)+10, 10, truncation
		got, err = req.RenderPrompt(enc, conv, &o)
		require.NoError(t, err, truncation)
		assert.Equal(t, want, got, "%s, the prompt fits exactly", truncation)

		o.ContextWindow-- // the header's tokens count
		got, err = req.RenderPrompt(enc, conv, &o)
		if truncation == TruncationDisabled {
			assert.ErrorIs(t, err, ErrContextLengthExceeded, truncation)
			assert.Contains(t, err.Error(), "10 for the completion", truncation)
			continue
		}
		require.NoError(t, err, truncation)
		assert.Equal(t, header, got[len(got)-len(header):], "auto: the end of the prompt with the old turn dropped")
		assert.Less(t, len(got), len(want)-200, "auto: the old turn dropped")
		kept := req.Messages[2:]
		short := ChatCompletionRequest{Model: "m", Messages: kept}
		shortConv, err := short.Conversation(opts)
		require.NoError(t, err)
		shortWant, err := enc.RenderConversationWithPrefill(shortConv, final, nil)
		require.NoError(t, err)
		assert.Equal(t, shortWant, got, "auto: the prompt of the turns kept, prefilled")

		o.ContextWindow = len(shortWant) + 9 // one token short, the turn kept
		_, err = req.RenderPrompt(enc, conv, &o)
		assert.ErrorIs(t, err, ErrContextLengthExceeded, "auto, too short")
		var be *harmony.BudgetError
		require.ErrorAs(t, err, &be)
		assert.Equal(t, 10, be.Reserve, "auto: the reserve is the completion's, without the prefilled header")
		assert.Contains(t, err.Error(), "10 for the completion", "auto, too short")
	}
}
