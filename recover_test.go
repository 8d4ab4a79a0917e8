package harmony

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRecover pins each recovery rule of ParseRecover to exact
// messages, for the shapes of malformed output gpt-oss is known to write.
func TestRecover(t *testing.T) {
	enc := mustEncoding(t)
	a := func(channel, text string) Message {
		return NewTextMessage(RoleAssistant, text).WithChannel(channel)
	}
	call := func(recipient, ct, args string) Message {
		return NewTextMessage(RoleAssistant, args).WithChannel(ChannelCommentary).WithRecipient(recipient).WithContentType(ct)
	}
	for _, tc := range []struct {
		name    string
		role    Role
		text    string
		want    []Message
		dropped int
	}{
		{"well-formed tool call", RoleAssistant,
			`<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`,
			[]Message{a("analysis", "Need weather."), call("functions.get_weather", "<|constrain|>json", `{"city":"Oslo"}`)}, 0},
		{"recipient before the channel", RoleAssistant,
			`to=functions.get_weather<|channel|>commentary json<|message|>{}<|call|>`,
			[]Message{call("functions.get_weather", "json", `{}`)}, 0},
		{"constrain after final is a content type", RoleAssistant,
			`<|channel|>final <|constrain|>json<|message|>{"a":1}<|return|>`,
			[]Message{a("final", `{"a":1}`).WithContentType("<|constrain|>json")}, 0},
		{"a word after the channel is a content type", RoleAssistant,
			`<|channel|>final json<|message|>{"a":1}<|return|>`,
			[]Message{a("final", `{"a":1}`).WithContentType("json")}, 0},
		{"constrain with a schema name", RoleAssistant,
			`<|channel|>final <|constrain|>ShoppingList<|message|>{}<|return|>`,
			[]Message{a("final", `{}`).WithContentType("<|constrain|>ShoppingList")}, 0},
		{"to=assistant is dropped", RoleAssistant,
			`to=assistant<|channel|>final<|message|>Hi<|return|>`,
			[]Message{a("final", "Hi")}, 1},
		{"first to= wins", RoleAssistant,
			`<|channel|>commentary to=functions.f to=functions.f <|constrain|>json<|message|>{}<|call|>`,
			[]Message{call("functions.f", "<|constrain|>json", "{}")}, 1},
		{"to= a non-tool makes analysis", RoleAssistant,
			`<|channel|>commentary to=get_weather<|message|>{"city":"Oslo"}<|call|>`,
			[]Message{a("analysis", `{"city":"Oslo"}`)}, 1},
		{"built-ins", RoleAssistant,
			`<|channel|>analysis to=python code<|message|>print(1)<|call|><|start|>assistant to=browser.search<|channel|>analysis<|message|>{}<|call|>`,
			[]Message{a("analysis", "print(1)").WithRecipient("python").WithContentType("code"), a("analysis", "{}").WithRecipient("browser.search")}, 0},
		{"no header at all (refusal)", RoleAssistant,
			"I'm sorry, but I can't help with that.<|end|>",
			[]Message{a("analysis", "I'm sorry, but I can't help with that.")}, 0},
		{"header cut short by a stop token", RoleAssistant,
			"<|channel|>final The answer is\n4.<|return|>",
			[]Message{a("final", "The answer is\n4.")}, 1},
		{"channel without <|start|>assistant", RoleAssistant,
			`<|channel|>analysis<|message|>think<|end|><|channel|>final<|message|>Answer<|return|>`,
			[]Message{a("analysis", "think"), a("final", "Answer")}, 0},
		{"channel inside content", RoleAssistant,
			`<|channel|>analysis<|message|>think<|channel|>final<|message|>Answer<|return|>`,
			[]Message{a("analysis", "think"), a("final", "Answer")}, 0},
		{"a header begun again: the later channel", RoleAssistant,
			`<|channel|>commentary to=assistant<|channel|>final<|message|>Hi<|return|>`,
			[]Message{a(ChannelFinal, "Hi")}, 2},
		{"a header begun again: analysis wins", RoleAssistant,
			`<|channel|>analysis json<|channel|>final<|message|>think<|end|>`,
			[]Message{a(ChannelAnalysis, "think")}, 1},
		{"unknown channel is analysis", RoleAssistant,
			`<|channel|>commentary?commentary?<|message|>thinking<|end|>`,
			[]Message{a("analysis", "thinking")}, 1},
		{"text after <|call|> without <|start|>", RoleAssistant,
			`<|channel|>commentary to=functions.a <|constrain|>json<|message|>{"x":1}<|call|>commentary<|channel|>commentary to=functions.b <|constrain|>json<|message|>{"y":2}<|call|>`,
			[]Message{call("functions.a", "<|constrain|>json", `{"x":1}`), call("functions.b", "<|constrain|>json", `{"y":2}`)}, 1},
		{"missing <|end|> before <|start|>", RoleAssistant,
			`<|channel|>analysis<|message|>think<|start|>assistant<|channel|>final<|message|>Hi<|return|>`,
			[]Message{a("analysis", "think"), a("final", "Hi")}, 0},
		{"doubled <|start|>assistant", RoleAssistant,
			`<|start|>assistant<|channel|>final<|message|>Hi<|return|>`,
			[]Message{a("final", "Hi")}, 0},
		{"role written again", RoleAssistant,
			`assistant<|channel|>final<|message|>Hi<|return|>`,
			[]Message{a("final", "Hi")}, 0},
		{"constrain token in content", RoleAssistant,
			`<|channel|>final<|message|><|constrain|>Hi<|return|>`,
			[]Message{a("final", "Hi")}, 1},
		{"header cut off by the end", RoleAssistant,
			`<|channel|>final`,
			nil, 1},
		{"stray stop tokens between messages", "",
			`<|start|>assistant<|channel|>final<|message|>Hi<|end|><|end|><|return|>`,
			[]Message{a("final", "Hi")}, 2},
		{"tool message to the assistant", "",
			`<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"t":20}<|end|>`,
			[]Message{NewToolMessage("functions.get_weather", `{"t":20}`).WithRecipient("assistant").WithChannel("commentary")}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toks := enc.EncodeWithSpecialTokens(tc.text)
			got, err := enc.ParseCompletion(toks, tc.role, &ParseOptions{Mode: ParseRecover})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			p, err := enc.NewStreamParser(tc.role, &ParseOptions{Mode: ParseRecover})
			require.NoError(t, err)
			for _, tok := range toks {
				require.NoError(t, p.Process(tok))
			}
			require.NoError(t, p.ProcessEOS())
			assert.Equal(t, tc.dropped, p.Dropped(), "dropped")
		})
	}
}

// TestRecoverNamespaces checks that a namespace given in the options is a
// recipient and an undeclared one is not.
func TestRecoverNamespaces(t *testing.T) {
	enc := mustEncoding(t)
	toks := enc.EncodeWithSpecialTokens(`<|channel|>commentary to=container.exec<|message|>ls<|call|>`)
	got, err := enc.ParseCompletion(toks, RoleAssistant, &ParseOptions{Mode: ParseRecover, Namespaces: []string{"container"}})
	require.NoError(t, err)
	assert.Equal(t, "container.exec", got[0].Recipient)
	got, err = enc.ParseCompletion(toks, RoleAssistant, &ParseOptions{Mode: ParseRecover})
	require.NoError(t, err)
	assert.Equal(t, NewTextMessage(RoleAssistant, "ls").WithChannel(ChannelAnalysis), got[0])
}

// TestRecoverFunctions reads a declared function named without its
// namespace as functions.NAME, and only a declared one.
func TestRecoverFunctions(t *testing.T) {
	enc := mustEncoding(t)
	parse := func(text string, fns ...string) []Message {
		got, err := enc.ParseCompletion(enc.EncodeWithSpecialTokens(text), RoleAssistant, &ParseOptions{Mode: ParseRecover, Functions: fns})
		require.NoError(t, err)
		return got
	}
	call := NewTextMessage(RoleAssistant, `{"city":"Oslo"}`).WithChannel(ChannelCommentary).WithRecipient("functions.get_weather")
	assert.Equal(t, []Message{call.WithContentType("<|constrain|>json")},
		parse(`<|channel|>commentary to=get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`, "get_weather", "other"))
	assert.Equal(t, []Message{call}, parse(`get_weather<|channel|>commentary<|message|>{"city":"Oslo"}<|call|>`, "get_weather"))
	// Undeclared, or not a valid name, or the assistant's own address: as before.
	analysis := NewTextMessage(RoleAssistant, `{"city":"Oslo"}`).WithChannel(ChannelAnalysis)
	assert.Equal(t, []Message{analysis}, parse(`<|channel|>commentary to=get_weather<|message|>{"city":"Oslo"}<|call|>`, "get_time"))
	assert.Equal(t, []Message{analysis.WithContentType("weather")}, parse(`<|channel|>commentary to=get weather<|message|>{"city":"Oslo"}<|call|>`, "get_weather"))
	// A declared name with a space is matched before the header is split.
	assert.Equal(t, []Message{call.WithRecipient("functions.get weather")}, parse(`<|channel|>commentary to=get weather<|message|>{"city":"Oslo"}<|call|>`, "get weather"))
	assert.Equal(t, []Message{NewTextMessage(RoleAssistant, "Hi").WithChannel(ChannelFinal)},
		parse(`<|channel|>final to=assistant<|message|>Hi<|return|>`, "assistant"))
}

// TestEvents checks the events of a stream with two messages, token by token.
func TestEvents(t *testing.T) {
	enc := mustEncoding(t)
	p, err := enc.NewStreamParser(RoleAssistant, nil)
	require.NoError(t, err)
	var got []Event
	for _, tok := range enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Hm.<|end|><|start|>assistant to=functions.f<|channel|>commentary<|message|>{}<|call|>`) {
		require.NoError(t, p.Process(tok))
		got = append(got, p.Events()...)
	}
	require.NoError(t, p.ProcessEOS())
	assert.Empty(t, p.Events())
	want := []Event{
		{Kind: EventMessageStart},
		{Kind: EventHeader, Role: RoleAssistant, Channel: "analysis"},
		{Kind: EventDelta, Text: "Hm"}, {Kind: EventDelta, Text: "."},
		{Kind: EventMessageEnd, Message: 0},
		{Kind: EventMessageStart},
		{Kind: EventHeader, Role: RoleAssistant, Channel: "commentary", Recipient: "functions.f"},
		{Kind: EventDelta, Text: "{}"},
		{Kind: EventMessageEnd, Message: 1},
	}
	assert.Equal(t, want, got)
}
