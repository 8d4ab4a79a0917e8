package harmony

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parsePrefilled parses a completion with ParseCompletion and token by
// token with a StreamParser (told RoleAssistant, with opts), and returns
// both readings and the stream's events written one per line.
func parsePrefilled(t *testing.T, enc *Encoding, toks []Token, opts *ParseOptions) (batch, stream []Message, events string) {
	t.Helper()
	batch, err := enc.ParseCompletion(toks, RoleAssistant, opts)
	require.NoError(t, err)
	p, err := enc.NewStreamParser(RoleAssistant, opts)
	require.NoError(t, err)
	var b strings.Builder
	log := func() {
		for _, ev := range p.Events() {
			switch ev.Kind {
			case EventHeader:
				fmt.Fprintf(&b, "Header %s %s %s %s\n", ev.Role, ev.Channel, ev.Recipient, ev.ContentType)
			case EventDelta:
				fmt.Fprintf(&b, "Delta %q\n", ev.Text)
			default:
				fmt.Fprintf(&b, "%s\n", ev.Kind)
			}
		}
	}
	for _, tok := range toks {
		require.NoError(t, p.Process(tok))
		log()
	}
	require.NoError(t, p.ProcessEOS())
	log()
	return batch, p.Messages(), b.String()
}

// TestPrefillParse: a completion that starts inside a prefilled message is
// that message's content, in every mode, batch and streamed token by
// token; without the prefill it reads as before.
func TestPrefillParse(t *testing.T) {
	enc := mustEncoding(t)
	final := NewTextMessage(RoleAssistant, "").WithChannel(ChannelFinal)
	final.Content = nil
	analysis := final.WithChannel(ChannelAnalysis)
	call := final.WithChannel(ChannelCommentary).WithRecipient("functions.f").WithContentType("<|constrain|>json")
	a := func(channel, text string) Message { return NewTextMessage(RoleAssistant, text).WithChannel(channel) }
	for _, tc := range []struct {
		name    string
		prefill *Message
		text    string
		want    []Message
	}{
		{"prefilled final", &final, "The answer is 4.<|return|>", []Message{a(ChannelFinal, "The answer is 4.")}},
		{"prefilled final to the end", &final, "4", []Message{a(ChannelFinal, "4")}},
		{"prefilled final, nothing sampled", &final, "", []Message{a(ChannelFinal, "")}},
		{"prefilled final, stop token only", &final, "<|return|>", []Message{a(ChannelFinal, "")}},
		{"prefilled analysis, then the answer", &analysis,
			"Easy.<|end|><|start|>assistant<|channel|>final<|message|>4<|return|>",
			[]Message{a(ChannelAnalysis, "Easy."), a(ChannelFinal, "4")}},
		{"prefilled call", &call, `{"x":1}<|call|>`,
			[]Message{a(ChannelCommentary, `{"x":1}`).WithRecipient("functions.f").WithContentType("<|constrain|>json")}},
	} {
		for _, mode := range []ParseMode{ParseStrict, ParseLenient, ParseRecover} {
			t.Run(tc.name+"/"+mode.String(), func(t *testing.T) {
				toks := specials(t, enc, tc.text)
				batch, stream, _ := parsePrefilled(t, enc, toks, &ParseOptions{Mode: mode, Prefill: tc.prefill})
				assert.Equal(t, tc.want, batch, "batch")
				assert.Equal(t, tc.want, stream, "stream")
			})
		}
	}

	// Without the prefill, bare text is reasoning under recovery (as
	// today) and an error when strict.
	toks := specials(t, enc, "The answer is 4.<|return|>")
	batch, stream, _ := parsePrefilled(t, enc, toks, &ParseOptions{Mode: ParseRecover})
	assert.Equal(t, []Message{a(ChannelAnalysis, "The answer is 4.")}, batch)
	assert.Equal(t, batch, stream)
	_, err := enc.ParseCompletion(toks, RoleAssistant, nil)
	require.Error(t, err, "strict, without the prefill")
}

// TestPrefillEvents: the prefilled message's start and header are reported
// with the first token (or at the end of an empty completion), before its
// first delta.
func TestPrefillEvents(t *testing.T) {
	enc := mustEncoding(t)
	final := Message{Author: Author{Role: RoleAssistant}, Channel: ChannelFinal}
	for _, tc := range []struct{ text, want string }{
		{"Hi there<|return|>", "MessageStart\nHeader assistant final  \nDelta \"Hi\"\nDelta \" there\"\nMessageEnd\n"},
		{"", "MessageStart\nHeader assistant final  \nMessageEnd\n"},
		{"Hi<|end|><|start|>assistant<|channel|>final<|message|>!<|return|>",
			"MessageStart\nHeader assistant final  \nDelta \"Hi\"\nMessageEnd\n" +
				"MessageStart\nHeader assistant final  \nDelta \"!\"\nMessageEnd\n"},
	} {
		for _, mode := range []ParseMode{ParseStrict, ParseRecover} {
			_, _, events := parsePrefilled(t, enc, specials(t, enc, tc.text), &ParseOptions{Mode: mode, Prefill: &final})
			assert.Equal(t, tc.want, events, "%q %s", tc.text, mode)
		}
	}

	// Reset starts inside the prefilled message again.
	p, err := enc.NewStreamParser(RoleAssistant, &ParseOptions{Prefill: &final})
	require.NoError(t, err)
	for range 2 {
		assert.Equal(t, StateContent, p.State())
		assert.Equal(t, ChannelFinal, p.CurrentChannel())
		for _, tok := range specials(t, enc, "ok<|return|>") {
			require.NoError(t, p.Process(tok))
		}
		require.NoError(t, p.ProcessEOS())
		assert.Equal(t, []Message{NewTextMessage(RoleAssistant, "ok").WithChannel(ChannelFinal)}, p.Messages())
		p.Reset()
	}
}

// TestPrefillRenderParse: the prompt RenderConversationWithPrefill renders
// ends in the prefilled header, written as RenderMessage writes a header;
// the prompt and the completion read back, strictly, as the conversation's
// messages and the prefilled message with the completion as its content,
// as ParseCompletion with the prefill reads the completion alone.
func TestPrefillRenderParse(t *testing.T) {
	enc := mustEncoding(t)
	conv := NewConversation(
		NewTextMessage(RoleUser, "What is 2+2?"),
	)
	header := func(m Message) Message { m.Content = nil; return m }
	for _, tc := range []struct {
		name   string
		want   Message // the prefilled message, with the completion as content
		suffix string  // the prompt's end: the prefilled header
		keep   bool    // KeepHeaders
		// The mode that reads the prompt and the completion back: strict,
		// but for the reference's quirk that a content type after the
		// channel is the recipient (recovery reads it as the content type).
		wholeMode ParseMode
	}{
		{"final", NewTextMessage(RoleAssistant, "4").WithChannel(ChannelFinal),
			"<|start|>assistant<|channel|>final<|message|>", false, ParseStrict},
		{"analysis", NewTextMessage(RoleAssistant, "Add them.").WithChannel(ChannelAnalysis),
			"<|start|>assistant<|channel|>analysis<|message|>", false, ParseStrict},
		{"structured final", NewTextMessage(RoleAssistant, `{"n":4}`).WithChannel(ChannelFinal).WithContentType("<|constrain|>json"),
			"<|start|>assistant<|channel|>final <|constrain|>json<|message|>", false, ParseRecover},
		{"call, as gpt-oss writes its header", func() Message {
			m := NewTextMessage(RoleAssistant, `{"a":2,"b":2}`).WithChannel(ChannelCommentary).
				WithRecipient("functions.add").WithContentType("<|constrain|>json")
			m.Header = "assistant<|channel|>commentary to=functions.add <|constrain|>json"
			return m
		}(), "<|start|>assistant<|channel|>commentary to=functions.add <|constrain|>json<|message|>", true, ParseStrict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefill := header(tc.want)
			prompt, err := enc.RenderConversationWithPrefill(conv, prefill, nil)
			require.NoError(t, err)
			history, err := enc.RenderConversation(conv, nil)
			require.NoError(t, err)
			assert.Equal(t, append(history, specials(t, enc, tc.suffix)...), prompt)

			dst := []Token{TokenStart}
			out, err := enc.AppendConversationWithPrefill(dst, conv, prefill, nil)
			require.NoError(t, err)
			assert.Equal(t, append([]Token{TokenStart}, prompt...), out, "Append appends")

			completion := enc.EncodeOrdinary(tc.want.Text())
			completion = append(completion, TokenEnd)
			opts := &ParseOptions{KeepHeaders: tc.keep, Prefill: &prefill}
			got, err := enc.ParseCompletion(completion, RoleAssistant, opts)
			require.NoError(t, err)
			assert.Equal(t, []Message{tc.want}, got, "the completion with the prefill")

			whole, err := enc.ParseCompletion(append(prompt, completion...), "", &ParseOptions{Mode: tc.wholeMode, KeepHeaders: tc.keep})
			require.NoError(t, err, "the prompt and the completion")
			require.Len(t, whole, len(conv.Messages)+1)
			assert.Equal(t, tc.want, whole[len(whole)-1], "the prompt and the completion")
		})
	}

	// A prefill of the role alone is the completion prompt and <|message|>.
	prompt, err := enc.RenderConversationWithPrefill(conv, Message{Author: Author{Role: RoleAssistant}}, nil)
	require.NoError(t, err)
	forCompletion, err := enc.RenderConversationForCompletion(conv, RoleAssistant, nil)
	require.NoError(t, err)
	assert.Equal(t, append(forCompletion, TokenMessage), prompt)
}

// TestPrefillErrors: the renderer and the parser refuse the same prefills.
func TestPrefillErrors(t *testing.T) {
	enc := mustEncoding(t)
	conv := NewConversation(NewTextMessage(RoleUser, "Hi"))
	for _, tc := range []struct {
		name    string
		prefill Message
		want    error
	}{
		{"content", NewTextMessage(RoleAssistant, "Sure").WithChannel(ChannelFinal), ErrUnsupportedContent},
		{"a channel with a space", Message{Author: Author{Role: RoleAssistant}, Channel: "fi nal"}, ErrInvalidHeader},
		{"an unknown role", Message{Author: Author{Role: "robot"}}, ErrUnknownRole},
		{"a tool without its name", Message{Author: Author{Role: RoleTool}}, ErrMissingToolName},
	} {
		dst := []Token{TokenStart}
		out, err := enc.AppendConversationWithPrefill(dst, conv, tc.prefill, nil)
		var re *RenderError
		require.ErrorAs(t, err, &re, tc.name)
		assert.Equal(t, 1, re.MessageIndex, tc.name)
		assert.ErrorIs(t, err, tc.want, tc.name)
		assert.Equal(t, dst, out, tc.name)

		role := tc.prefill.Role
		if !role.Valid() {
			role = RoleAssistant
		}
		_, err = enc.ParseCompletion(nil, role, &ParseOptions{Prefill: &tc.prefill})
		assert.ErrorIs(t, err, tc.want, "parse: "+tc.name)
		assert.True(t, strings.HasPrefix(err.Error(), "harmony: "), err.Error())
	}
	final := Message{Author: Author{Role: RoleAssistant}, Channel: ChannelFinal}
	_, err := enc.NewStreamParser(RoleUser, &ParseOptions{Prefill: &final})
	assert.ErrorIs(t, err, ErrInvalidHeader, "a role that is not the prefill's")
	_, err = enc.NewStreamParser("", &ParseOptions{Prefill: &final})
	assert.ErrorIs(t, err, ErrInvalidHeader, "no role")
}

// FuzzPrefill: with a prefill, in every mode, the batch and the stream
// read any tokens alike, the events describe the messages, recovery never
// fails, and the first message has the prefilled header.
func FuzzPrefill(f *testing.F) {
	f.Add([]byte{0, 1, 0, 5, 0x10, 0x20, 0, 2, 0, 6, 0x41, 0, 0, 3, 0})
	f.Add([]byte("some printable seed bytes that make ordinary ranks"))
	enc := mustEncoding(f)
	final := Message{Author: Author{Role: RoleAssistant}, Channel: ChannelFinal}
	call := Message{Author: Author{Role: RoleAssistant}, Channel: ChannelCommentary, Recipient: "functions.f", ContentType: "<|constrain|>json",
		Header: "assistant<|channel|>commentary to=functions.f <|constrain|>json"}
	f.Fuzz(func(t *testing.T, data []byte) {
		toks := tokensFromBytes(data)
		for _, prefill := range []*Message{&final, &call} {
			for _, mode := range []ParseMode{ParseStrict, ParseLenient, ParseRecover} {
				opts := &ParseOptions{Mode: mode, Prefill: prefill, KeepHeaders: true}
				batch := batchParse(enc, toks, RoleAssistant, opts)
				p, err := enc.NewStreamParser(RoleAssistant, opts)
				require.NoError(t, err)
				stream, _ := streamParse(enc, p, toks)
				if mode == ParseRecover {
					require.Less(t, batch.errAt, 0, "%s: recovery failed", mode)
				}
				require.Equal(t, batch, stream, "%s: batch and stream", mode)
				if batch.errAt >= 0 {
					continue
				}
				noForms := *opts
				noForms.KeepHeaders = false // the events carry no form
				checkEvents(t, enc, toks, RoleAssistant, &noForms)
				require.NotEmpty(t, batch.msgs, "%s: the prefilled message", mode)
				first := batch.msgs[0]
				first.Content = nil
				require.Equal(t, *prefill, first, "%s: the prefilled header", mode)
			}
		}
	})
}
