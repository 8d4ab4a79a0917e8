package harmony

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// renderBack renders parsed messages as the history of the next prompt:
// every message in its kept header form, every analysis message kept.
func renderBack(t *testing.T, enc *Encoding, msgs []Message) []Token {
	t.Helper()
	toks, err := enc.RenderConversation(NewConversation(msgs...), &RenderOptions{Reasoning: ReasoningKeepAll})
	require.NoError(t, err)
	return toks
}

// sampledAsHistory is what a completion becomes in the next prompt: the
// prompt's "<|start|>ROLE" before it when it starts inside a header, its
// <|return|> written <|end|> (as the harmony guide says a history must),
// and the closing token the renderer adds when the completion was cut
// before its stop token.
func sampledAsHistory(enc *Encoding, toks []Token, role Role, last *Message) []Token {
	var out []Token
	if role != "" {
		out = append(append(out, TokenStart), enc.EncodeOrdinary(string(role))...)
	}
	for _, t := range toks {
		if t == TokenReturn {
			t = TokenEnd
		}
		out = append(out, t)
	}
	if n := len(out); n > 0 && !isStopToken(out[n-1]) && last != nil {
		form, written := writtenForm(last)
		out = append(out, closingToken(last, form, written))
	}
	return out
}

// wellFormed reports whether a completion that parsed strictly into msgs
// follows the format: no special token inside content (text can never be
// rendered back as a special token), content that is UTF-8 (invalid bytes
// are U+FFFD in the text), each message closed by the token
// the format prescribes (<|call|> for a call, <|end|> or <|return|>
// otherwise), or cut off by the end, and no header field the renderer
// would refuse.
func wellFormed(enc *Encoding, toks []Token, msgs []Message) bool {
	for i := range msgs {
		if checkHeader(&msgs[i]) != nil {
			return false // a field the renderer refuses, as "<|constrain|>json" read as a recipient
		}
	}
	i, inContent, start := 0, false, 0
	for k, t := range toks {
		switch {
		case t == TokenMessage && !inContent:
			inContent, start = true, k+1
		case inContent && isStopToken(t):
			if i >= len(msgs) {
				return false
			}
			call := msgs[i].Role == RoleAssistant && msgs[i].Recipient != ""
			if call != (t == TokenCall) {
				return false
			}
			if b, err := enc.AppendBytes(nil, toks[start:k]); err != nil || !utf8.Valid(b) {
				return false // bytes that are no UTF-8 are U+FFFD in the text
			}
			i, inContent = i+1, false
		case inContent && isSpecial(t):
			return false
		}
	}
	if inContent {
		if b, err := enc.AppendBytes(nil, toks[start:]); err != nil || !utf8.Valid(b) {
			return false // cut off inside a character
		}
	}
	return true
}

// TestPrefixExact is the property that keeps a server's prefix cache
// warm: every well-formed completion of the conformance and wild corpora,
// parsed with KeepHeaders and rendered again, gives back the tokens the
// model sampled (as a history writes them: <|return|> as <|end|>).
// Output that only recovery reads, or that is not well formed (special
// tokens inside content, a call closed by <|end|>), is left out: its junk is
// not rendered back.
func TestPrefixExact(t *testing.T) {
	enc := mustEncoding(t)
	all := conformanceCompletions(t, "parse.jsonl")
	nConf := len(all)
	all = append(all, wildCompletions(t, enc)...)
	ran, forms := 0, 0
	for _, c := range all {
		msgs, err := enc.ParseCompletion(c.toks, c.role, &ParseOptions{KeepHeaders: true})
		if err != nil || len(msgs) == 0 {
			continue // malformed: only recovery reads it
		}
		if !wellFormed(enc, c.toks, msgs) {
			continue
		}
		if c.role != "" {
			// A header read with its role known can read otherwise from its
			// <|start|> (the reference reads ":alice" after "assistant" as
			// a recipient, and "assistant:alice" as a name): such a
			// completion has no header the history can hold.
			full := append(append([]Token{TokenStart}, enc.EncodeOrdinary(string(c.role))...), c.toks...)
			again, err := enc.ParseCompletion(full, "", nil)
			plainMsgs, _ := enc.ParseCompletion(c.toks, c.role, nil)
			if err != nil || !reflect.DeepEqual(again, plainMsgs) {
				continue
			}
		}
		ran++
		for _, m := range msgs {
			if m.Header != "" {
				forms++
			}
		}
		want := sampledAsHistory(enc, c.toks, c.role, &msgs[len(msgs)-1])
		if got := renderBack(t, enc, msgs); !slices.Equal(got, want) {
			gs, _ := enc.Decode(got)
			ws, _ := enc.Decode(want)
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			assert.Equal(t, want, got, "%s: rendered back differs at token %d (%v vs %v)\n%s\nsampled\n%s", c.name, i, got[i:min(i+4, len(got))], want[i:min(i+4, len(want))], gs, ws)
		}
		// Without KeepHeaders the messages are the reference's.
		plain, err := enc.ParseCompletion(c.toks, c.role, nil)
		require.NoError(t, err)
		for i := range plain {
			plain[i].Header = msgs[i].Header
		}
		require.Equal(t, plain, msgs, c.name)
	}
	t.Logf("%d of %d completions well formed (%d conformance, %d wild); %d headers in the model's own form", ran, len(all), nConf, len(all)-nConf, forms)
	assert.GreaterOrEqual(t, ran, 250, "completions that ran")
	assert.GreaterOrEqual(t, forms, 20, "headers in a form of their own")
}

// TestGuideExamplesUnderGuidePolicy renders the harmony guide's two
// examples of what the next prompt holds, with the model's turns as a
// server has them, parsed from what it sampled (KeepHeaders), and the
// guides' reasoning policy: the function-calling example comes out exactly
// as the guide prints it, the call in the form the model wrote; the
// next-turn example too, but for the newlines the guide puts between
// messages for layout (see the seed case's guide_differs).
func TestGuideExamplesUnderGuidePolicy(t *testing.T) {
	enc := mustEncoding(t)
	ex := loadSeedExamples(t)
	sampled := func(name string) []Message {
		c := ex[name]
		require.NotNil(t, c, name)
		msgs, err := enc.ParseCompletion(enc.EncodeWithSpecialTokens(*c.TokensText), RoleAssistant, &ParseOptions{KeepHeaders: true})
		require.NoError(t, err)
		return msgs
	}
	render := func(msgs []Message) string {
		toks, err := enc.RenderConversationForCompletion(NewConversation(msgs...), RoleAssistant, &RenderOptions{Reasoning: ReasoningGuide})
		require.NoError(t, err)
		s, err := enc.Decode(toks)
		require.NoError(t, err)
		return s
	}

	// Function calling: system, developer and user from the seed case,
	// then the model's sampled analysis and call, then the tool's result.
	fc := ex["function_call_history_prompt"]
	require.NotNil(t, fc)
	var prompt []Message
	for _, m := range fc.Conversation.Messages {
		if m.Role == RoleSystem || m.Role == RoleDeveloper || m.Role == RoleUser {
			prompt = append(prompt, m)
		}
	}
	msgs := append(prompt, sampled("tool_call_completion")...)
	msgs = append(msgs, NewToolMessage("functions.get_current_weather", `{"sunny": true, "temperature": 20}`).
		WithRecipient("assistant").WithChannel(ChannelCommentary))
	require.Equal(t, *fc.GuideText, render(msgs))

	// The next turn: the first turn's analysis is dropped once it was
	// answered.
	nt := ex["cot_dropped_next_sampling"]
	require.NotNil(t, nt)
	msgs = append([]Message{NewTextMessage(RoleUser, "What is 2 + 2?")}, sampled("cot_first_output")...)
	msgs = append(msgs, NewTextMessage(RoleUser, "What about 9 / 2?"))
	require.Equal(t, strings.ReplaceAll(*nt.GuideText, "<|end|>\n<|start|>", "<|end|><|start|>"), render(msgs))
}
