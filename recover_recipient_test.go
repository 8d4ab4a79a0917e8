package harmony

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realGluedRecipient is real gpt-oss-20b output (../shared/wild, set
// 2026-11-27, aldehir-recipient-glued-to-analysis-then-channel-a): the
// recipient of the call's header glued to the end of the analysis, right
// before the <|channel|> that interrupts it.
const realGluedRecipient = `<|channel|>analysis<|message|>We need to get weather for many cities. The user provided list: new york city, denver, chicago, austin, seattle, boston, new orleans, las vegas, los angeles, miami. Note some duplicates? They wrote "chicago," then "Austin," etc. There's a stray comma after chicago and after boston. Also "seattle to=functions.get_weather" maybe mis-typo? Actually user wrote: "Get the weather for the following cities and tabulate the results: new york city, denver, chicago,, austin, seattle to=functions.get_weather<|channel|>commentary json<|message|>{"city": "New York City"}<|return|>`

// streamDeltas streams toks through a new parser and returns its messages,
// the concatenated deltas of each message (from the events), every delta
// in order, and what it dropped.
func streamDeltas(t *testing.T, enc *Encoding, toks []Token, role Role, opts *ParseOptions) (msgs []Message, texts, deltas []string, dropped int) {
	t.Helper()
	p, err := enc.NewStreamParser(role, opts)
	require.NoError(t, err)
	var cur strings.Builder
	handle := func() {
		for _, ev := range p.Events() {
			switch ev.Kind {
			case EventDelta:
				require.NotEmpty(t, ev.Text, "an empty delta")
				cur.WriteString(ev.Text)
				deltas = append(deltas, ev.Text)
			case EventMessageEnd:
				texts = append(texts, cur.String())
				cur.Reset()
			}
		}
	}
	for _, tok := range toks {
		require.NoError(t, p.Process(tok))
		if p.State() == StateContent {
			d, _ := p.LastContentDelta()
			require.True(t, strings.HasSuffix(cur.String()+d, p.CurrentContent()), "CurrentContent is what the deltas gave")
		}
		handle()
	}
	require.NoError(t, p.ProcessEOS())
	handle()
	return p.Messages(), texts, deltas, p.Dropped()
}

// TestRecoverGluedRecipientReal reads the real output: the "to=X" word
// before the interrupting <|channel|> leaves the analysis (with the space
// before it) and is the call's recipient, in the batch parse (whose fast
// path decodes the analysis as one run) and token by token, where no
// delta ever carried the word.
func TestRecoverGluedRecipientReal(t *testing.T) {
	enc := mustEncoding(t)
	opts := &ParseOptions{Mode: ParseRecover, Functions: []string{"get_weather"}}
	toks := enc.EncodeWithSpecialTokens(realGluedRecipient)
	analysis := strings.TrimPrefix(realGluedRecipient[:strings.Index(realGluedRecipient, " to=functions.get_weather<|channel|>")], "<|channel|>analysis<|message|>")
	want := []Message{
		NewTextMessage(RoleAssistant, analysis).WithChannel(ChannelAnalysis),
		NewTextMessage(RoleAssistant, `{"city": "New York City"}`).WithChannel(ChannelCommentary).WithRecipient("functions.get_weather").WithContentType("json"),
	}
	require.True(t, strings.HasSuffix(analysis, `chicago,, austin, seattle`), "%q", analysis)
	got, err := enc.ParseCompletion(toks, RoleAssistant, opts)
	require.NoError(t, err)
	assert.Equal(t, want, got, "batch")
	msgs, texts, deltas, dropped := streamDeltas(t, enc, toks, RoleAssistant, opts)
	assert.Equal(t, want, msgs, "stream")
	assert.Equal(t, []string{analysis, `{"city": "New York City"}`}, texts, "the deltas of each message")
	assert.Equal(t, 1, dropped, "the word")
	assert.Equal(t, 1, strings.Count(strings.Join(deltas, ""), "to=functions.get_weather"), "the deltas: the word quoted in the text, not the one before <|channel|>")
}

// TestRecoverHeldWord pins what recovery holds back from the deltas and
// what becomes of it: a word that may be a "to=X" word is text again as
// soon as the next token shows that no <|channel|> follows it (text,
// white space, another special token, a stop token, the end), and leaves
// the message, with the white space before it, only before a <|channel|>
// and when X is a valid recipient. Each case: the messages (batch and
// stream the same), the deltas of the first message in order, and what
// was dropped.
func TestRecoverHeldWord(t *testing.T) {
	enc := mustEncoding(t)
	a := func(channel, text string) Message {
		return NewTextMessage(RoleAssistant, text).WithChannel(channel)
	}
	call := a(ChannelCommentary, "{}").WithRecipient("functions.f")
	const head = "<|channel|>analysis<|message|>"
	long := "to=functions." + strings.Repeat("x", maxHeldWord)
	for _, tc := range []struct {
		name      string
		functions []string
		text      string
		want      []Message
		deltas    []string // of the first message
		dropped   int
	}{
		{"followed by text", nil, head + "go to=functions.f now<|end|>",
			[]Message{a(ChannelAnalysis, "go to=functions.f now")}, nil, 0},
		{"followed by white space", nil, head + "go to=functions.f\n<|end|>",
			[]Message{a(ChannelAnalysis, "go to=functions.f\n")}, nil, 0},
		{"followed by the end", nil, head + "go to=functions.f",
			[]Message{a(ChannelAnalysis, "go to=functions.f")}, nil, 0},
		{"followed by <|end|>", nil, head + "go to=functions.f<|end|>",
			[]Message{a(ChannelAnalysis, "go to=functions.f")}, nil, 0},
		{"followed by <|start|>", nil, head + "go to=functions.f<|start|>assistant<|channel|>final<|message|>Hi<|end|>",
			[]Message{a(ChannelAnalysis, "go to=functions.f"), a(ChannelFinal, "Hi")}, nil, 0},
		{"followed by a dropped special token, then <|channel|>", nil, head + "go to=functions.f<|constrain|><|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go to=functions.f"), a(ChannelCommentary, "{}")}, nil, 1},
		{"followed by <|channel|>", nil, head + "go to=functions.f<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go"), call}, []string{"go"}, 1},
		{"white space before it is trimmed", nil, head + "go \n to=functions.f<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go"), call}, []string{"go"}, 1},
		{"the whole message", nil, head + "to=functions.f<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, ""), call}, nil, 1},
		{"no valid recipient stays text", nil, head + "go to=nowhere<|channel|>final<|message|>Hi<|return|>",
			[]Message{a(ChannelAnalysis, "go to=nowhere"), a(ChannelFinal, "Hi")}, []string{"go", " to=nowhere"}, 0},
		{"a word that continues one is no recipient", nil, head + "goto=functions.f<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "goto=functions.f"), a(ChannelCommentary, "{}")}, nil, 0},
		{"to alone is held and is text", nil, head + "go to<|channel|>final<|message|>Hi<|return|>",
			[]Message{a(ChannelAnalysis, "go to"), a(ChannelFinal, "Hi")}, []string{"go", " to"}, 0},
		{"a word too long is no recipient", nil, head + "go " + long + "<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go "+long), a(ChannelCommentary, "{}")}, nil, 0},
		{"a declared name with a space", []string{"Web Search"}, head + "go to=functions.Web Search<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go"), a(ChannelCommentary, "{}").WithRecipient("functions.Web Search")}, []string{"go"}, 1},
		{"a declared name with a space, without functions.", []string{"Web Search"}, head + "go to=Web Search<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go"), a(ChannelCommentary, "{}").WithRecipient("functions.Web Search")}, []string{"go"}, 1},
		{"the start of a declared name with a space is text", []string{"Web Search"}, head + "go to=functions.Web Sea<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go to=functions.Web Sea"), a(ChannelCommentary, "{}")}, nil, 0},
		{"a declared name with a space, then other text", []string{"Web Search"}, head + "go to=functions.Web Search now<|end|>",
			[]Message{a(ChannelAnalysis, "go to=functions.Web Search now")}, []string{"go", " to=functions.Web Search now"}, 0},
		{"a name with a space that is not declared", []string{"Web"}, head + "go to=functions.Web Search<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go to=functions.Web Search"), a(ChannelCommentary, "{}")}, nil, 0},
		{"white space beyond the bound stays", nil, head + "go" + strings.Repeat(" ", maxHeldSpace+8) + "to=functions.f<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go"+strings.Repeat(" ", 8)), call}, nil, 1},
		{"in a message read from a prefill", nil, "go to=functions.f<|channel|>commentary<|message|>{}<|call|>",
			[]Message{a(ChannelAnalysis, "go"), call}, []string{"go"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := &ParseOptions{Mode: ParseRecover, Functions: tc.functions}
			if !strings.HasPrefix(tc.text, "<|channel|>") {
				opts.Prefill = &Message{Author: Author{Role: RoleAssistant}, Channel: ChannelAnalysis}
			}
			toks := enc.EncodeWithSpecialTokens(tc.text)
			got, err := enc.ParseCompletion(toks, RoleAssistant, opts)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got, "batch")
			msgs, texts, deltas, dropped := streamDeltas(t, enc, toks, RoleAssistant, opts)
			assert.Equal(t, tc.want, msgs, "stream")
			require.Len(t, texts, len(msgs))
			for i, m := range msgs {
				assert.Equal(t, m.Text(), texts[i], "message %d: its deltas", i)
			}
			if tc.deltas != nil {
				assert.Equal(t, tc.deltas, deltas[:len(tc.deltas)], "the first message's deltas")
			}
			assert.Equal(t, tc.dropped, dropped, "dropped")
		})
	}
}

// TestRecoverHeldDeltas pins when held text reaches a delta: " to" waits
// for the next token, and comes with it.
func TestRecoverHeldDeltas(t *testing.T) {
	enc := mustEncoding(t)
	toks := enc.EncodeWithSpecialTokens("<|channel|>final<|message|>Go to the park \nnow<|return|>")
	var pieces []string
	for _, tok := range toks[3 : len(toks)-1] {
		b, err := enc.Decode([]Token{tok})
		require.NoError(t, err)
		pieces = append(pieces, b)
	}
	require.Equal(t, []string{"Go", " to", " the", " park", " \n", "now"}, pieces, "the tokens")
	_, _, deltas, _ := streamDeltas(t, enc, toks, RoleAssistant, &ParseOptions{Mode: ParseRecover})
	assert.Equal(t, []string{"Go", " to the", " park", " \nnow"}, deltas, "recover")
	_, _, deltas, _ = streamDeltas(t, enc, toks, RoleAssistant, &ParseOptions{Mode: ParseLenient})
	assert.Equal(t, pieces, deltas, "lenient: each token's text")
}
