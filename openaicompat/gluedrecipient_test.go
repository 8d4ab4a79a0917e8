package openaicompat

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
)

// gluedRecipientOutput is real gpt-oss-20b output (../shared/wild, set
// 2026-11-27, aldehir-recipient-glued-to-analysis-then-channel-a): the
// recipient of a call's header glued to the end of the analysis, right
// before the <|channel|> that interrupts it.
const gluedRecipientOutput = `<|channel|>analysis<|message|>We need to get weather for many cities. The user provided list: new york city, denver, chicago, austin, seattle, boston, new orleans, las vegas, los angeles, miami. Note some duplicates? They wrote "chicago," then "Austin," etc. There's a stray comma after chicago and after boston. Also "seattle to=functions.get_weather" maybe mis-typo? Actually user wrote: "Get the weather for the following cities and tabulate the results: new york city, denver, chicago,, austin, seattle to=functions.get_weather<|channel|>commentary json<|message|>{"city": "New York City"}<|return|>`

// TestGluedRecipientStreams converts the real output whole and streamed,
// through chat and Responses: the "to=functions.get_weather" word before
// the interrupting <|channel|> is in no reasoning, whole or streamed (the
// parser held it back from the deltas), the JSON is no content but the
// call's arguments, and the streams fold to the whole responses.
func TestGluedRecipientStreams(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(gluedRecipientOutput)
	opts := func() *ResponseOptions {
		return &ResponseOptions{Functions: []string{"get_weather"}, IDGenerator: counter(), Created: 1, Model: "gpt-oss-20b"}
	}
	analysis := strings.TrimPrefix(gluedRecipientOutput[:strings.Index(gluedRecipientOutput, " to=functions.get_weather<|channel|>")], "<|channel|>analysis<|message|>")
	require.True(t, strings.HasSuffix(analysis, "chicago,, austin, seattle"), "%q", analysis)

	whole, err := ChatCompletionFromTokens(enc, toks, Sampling{}, opts())
	require.NoError(t, err)
	m := whole.Choices[0].Message
	assert.Equal(t, analysis, m.Reasoning, "reasoning")
	assert.Nil(t, m.Content, "content")
	require.Len(t, m.ToolCalls, 1, "the call the header begun by the word makes")
	assert.Equal(t, "get_weather", m.ToolCalls[0].Function.Name)
	assert.Equal(t, `{"city": "New York City"}`, m.ToolCalls[0].Function.Arguments)
	assert.Equal(t, FinishToolCalls, whole.Choices[0].FinishReason)
	chunks, err := streamChat(enc, toks, Sampling{}, opts())
	require.NoError(t, err)
	streamed, finish, err := foldChunks(chunks)
	require.NoError(t, err)
	assert.NoError(t, sameChatMessage(streamed, m), "chat: streamed and whole")
	assert.Equal(t, whole.Choices[0].FinishReason, finish, "chat: finish reason")
	assert.Equal(t, analysis, streamed.Reasoning, "chat: streamed reasoning")

	resp, err := ResponseFromTokens(enc, toks, Sampling{}, opts())
	require.NoError(t, err)
	events, err := streamResponses(enc, toks, Sampling{}, opts())
	require.NoError(t, err)
	final, err := foldEvents(events)
	require.NoError(t, err)
	assert.Equal(t, marshalLine(resp), marshalLine(final), "responses: streamed and whole")
	out := marshalLine(resp)
	assert.Equal(t, 1, strings.Count(out, "to=functions.get_weather"), "responses: the word only where the text quotes it: %s", out)
	assert.NotContains(t, out, `seattle to=functions.get_weather\u003c`, "responses")
	assert.Contains(t, out, "chicago,, austin, seattle\"", "responses: the reasoning ends before the word")
}
