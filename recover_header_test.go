package harmony

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecoverHeaderWords pins the recovery of headers cut short,
// interrupted or left without <|message|> (issue 21): the real outputs
// that left header words in reasoning or misfiled text, each read to exact
// messages, and what recovery dropped.
func TestRecoverHeaderWords(t *testing.T) {
	enc := mustEncoding(t)
	a := func(channel, text string) Message {
		return NewTextMessage(RoleAssistant, text).WithChannel(channel)
	}
	for _, tc := range []struct {
		name      string
		role      Role
		functions []string
		text      string
		want      []Message
		dropped   int
	}{
		{"a header cut short by <|start|> and the end", RoleAssistant, nil,
			`<|channel|>analysis<|message|>Thinking...<|start|>assistant<|channel|>commentary to=functions.execute_command `,
			[]Message{a(ChannelAnalysis, "Thinking...")}, 2},
		{"a recipient-first header cut short after <|constrain|>", RoleAssistant, nil,
			`<|channel|>analysis<|message|>Need it.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json`,
			[]Message{a(ChannelAnalysis, "Need it.")}, 3},
		{"text after <|constrain|>'s word, ended by <|end|>", RoleAssistant, nil,
			`<|channel|>commentary to=functions.write <|constrain|>write: edit file with content.<|end|>`,
			[]Message{a(ChannelAnalysis, "edit file with content.")}, 3},
		{"a final header without <|message|> keeps its channel", RoleAssistant, nil,
			`<|start|>assistant<|channel|>final {"answer": "hi"}<|return|>`,
			[]Message{a(ChannelFinal, `{"answer": "hi"}`)}, 1},
		{"a final header with json and no <|message|>", RoleAssistant, nil,
			`<|channel|>final json {"a": 1}<|return|>`,
			[]Message{a(ChannelFinal, `{"a": 1}`)}, 2},
		{"text before the final channel is analysis", RoleAssistant, nil,
			`Thinking<|channel|>final hi<|return|>`,
			[]Message{a(ChannelAnalysis, "Thinking hi")}, 1},
		{"a final header addressed to a tool is analysis", RoleAssistant, nil,
			`<|channel|>final to=functions.f hi<|return|>`,
			[]Message{a(ChannelAnalysis, "hi")}, 2},
		{"a commentary header without <|message|> is analysis", RoleAssistant, nil,
			`<|channel|>commentary Hello<|end|>`,
			[]Message{a(ChannelAnalysis, "Hello")}, 1},
		{"a channel word run into text keeps the text", RoleAssistant, nil,
			`<|channel|>commentary?commentary?We need temperature.<|end|>`,
			[]Message{a(ChannelAnalysis, "We need temperature.")}, 1},
		{"a <|…|> that is no special token's text is text, not a header word", RoleAssistant, nil,
			`<|0AA|>cocaa <|800|>007X<|call|>`,
			[]Message{a(ChannelAnalysis, "<|0AA|>cocaa <|800|>007X")}, 0},
		{"a longer word is no channel name", RoleAssistant, nil,
			`<|channel|>finalize it<|end|>`,
			[]Message{a(ChannelAnalysis, "it")}, 1},
		{"the recipient glued to the content before <|channel|>", RoleAssistant, nil,
			`<|channel|>analysis<|message|>seattle to=functions.get_weather<|channel|>commentary json<|message|>{"city": "NYC"}<|return|>`,
			[]Message{a(ChannelAnalysis, "seattle"),
				a(ChannelCommentary, `{"city": "NYC"}`).WithRecipient("functions.get_weather").WithContentType("json")}, 1},
		{"a to= word naming no tool stays text", RoleAssistant, nil,
			`<|channel|>analysis<|message|>go to=nowhere<|channel|>final<|message|>Hi<|return|>`,
			[]Message{a(ChannelAnalysis, "go to=nowhere"), a(ChannelFinal, "Hi")}, 0},
		{"to=assistant before <|channel|> names no tool", "", nil,
			`<|start|>functions.f to=assistant<|channel|>commentary<|message|>{} to=assistant<|channel|>final<|message|>Hi<|return|>`,
			[]Message{NewToolMessage("functions.f", "{} to=assistant").WithRecipient("assistant").WithChannel(ChannelCommentary), a(ChannelFinal, "Hi")}, 0},
		{"the assistant's message to itself is analysis", RoleAssistant, nil,
			` to=assistant<|channel|>commentary<|message|>Some tool response<|call|><|start|>assistant<|channel|>final<|message|>Here is the answer<|end|>`,
			[]Message{a(ChannelAnalysis, "Some tool response"), a(ChannelFinal, "Here is the answer")}, 1},
		{"a declared name with a space", "", []string{"Web Search"},
			`<|start|>assistant<|channel|>commentary to=functions.Web Search <|constrain|>json<|message|>{"q": 1}`,
			[]Message{a(ChannelCommentary, `{"q": 1}`).WithRecipient("functions.Web Search").WithContentType("<|constrain|>json")}, 0},
		{"a declared name with a space in a header cut short", RoleAssistant, []string{"Web Search"},
			`<|channel|>commentary to=functions.Web Search <|constrain|>json`,
			nil, 3},
		{"an undeclared name with a space", "", []string{"Web"},
			`<|start|>assistant<|channel|>commentary to=functions.Web Search<|message|>{}`,
			[]Message{a(ChannelCommentary, `{}`).WithRecipient("functions.Web").WithContentType("Search")}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := &ParseOptions{Mode: ParseRecover, Functions: tc.functions}
			toks := enc.EncodeWithSpecialTokens(tc.text)
			got, err := enc.ParseCompletion(toks, tc.role, opts)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			p, err := enc.NewStreamParser(tc.role, opts)
			require.NoError(t, err)
			for _, tok := range toks {
				require.NoError(t, p.Process(tok))
			}
			require.NoError(t, p.ProcessEOS())
			assert.Equal(t, tc.want, p.Messages(), "streamed")
			assert.Equal(t, tc.dropped, p.Dropped(), "dropped")
		})
	}
}
