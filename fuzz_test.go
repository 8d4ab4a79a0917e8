package harmony

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// tokensFromBytes maps fuzz bytes to token ids: mostly ordinary ranks, often
// the format's special tokens, sometimes ids the encoding does not know.
func tokensFromBytes(b []byte) []Token {
	specials := []Token{TokenStart, TokenMessage, TokenEnd, TokenChannel, TokenCall, TokenReturn, TokenConstrain, TokenEndOfText}
	var out []Token
	for len(b) >= 3 {
		v := binary.LittleEndian.Uint16(b[1:3])
		switch b[0] % 8 {
		case 0, 1, 2:
			out = append(out, specials[int(v)%len(specials)])
		case 3:
			out = append(out, Token(LastSpecialToken)+1+Token(v)) // unknown
		case 4:
			out = append(out, Token(v)%Token(vocabSize)) // anything known
		default:
			out = append(out, Token(v)) // low ranks: ASCII, bytes, common words
		}
		b = b[3:]
	}
	return out
}

type parseOutcome struct {
	msgs   []Message
	errAt  int
	errEOS bool
}

func batchParse(enc *Encoding, toks []Token, role Role, opts *ParseOptions) parseOutcome {
	msgs, err := enc.ParseCompletion(toks, role, opts)
	if err != nil {
		var pe *ParseError
		if !errors.As(err, &pe) {
			panic("not a *ParseError: " + err.Error())
		}
		return parseOutcome{errAt: pe.Index, errEOS: pe.EOS}
	}
	return parseOutcome{msgs: msgs, errAt: -1}
}

func streamParse(enc *Encoding, p *StreamParser, toks []Token) (parseOutcome, string) {
	var content strings.Builder
	for i, t := range toks {
		wasContent := p.State() == StateContent
		if err := p.Process(t); err != nil {
			return parseOutcome{errAt: i}, content.String()
		}
		if d, ok := p.LastContentDelta(); ok {
			if !wasContent || p.State() != StateContent {
				panic("delta outside content")
			}
			content.WriteString(d)
		}
		if p.State() == StateContent && p.CurrentContent() != "" && !strings.HasSuffix(content.String(), p.CurrentContent()) {
			panic("deltas do not add up to the current content")
		}
		if p.State() != StateContent {
			content.Reset()
		}
	}
	if err := p.ProcessEOS(); err != nil {
		return parseOutcome{errAt: len(toks), errEOS: true}, ""
	}
	return parseOutcome{msgs: p.Messages(), errAt: -1}, ""
}

// FuzzParse checks that no token sequence makes the parsers panic, that every
// error is a *ParseError, and that feeding tokens one at a time gives exactly
// what parsing them all at once gives, in every mode.
func FuzzParse(f *testing.F) {
	f.Add([]byte{0, 1, 0, 5, 0x10, 0x20, 0, 2, 0, 6, 0x41, 0, 0, 3, 0})
	f.Add([]byte{5, 0xF0, 0x9F, 3, 0xFF, 0xFF, 5, 0x10, 0x20})
	f.Add([]byte("some printable seed bytes that make ordinary ranks"))
	enc := mustEncoding(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		toks := tokensFromBytes(data)
		for _, role := range []Role{"", RoleAssistant, RoleTool} {
			for _, opts := range []*ParseOptions{{}, {Mode: ParseLenient}, {Mode: ParseRecover}, {Mode: ParseRecover, Namespaces: []string{"container"}}} {
				batch := batchParse(enc, toks, role, opts)
				p, err := enc.NewStreamParser(role, opts)
				require.NoError(t, err)
				stream, _ := streamParse(enc, p, toks)
				if opts.Mode == ParseRecover {
					require.Less(t, batch.errAt, 0, "role %q %+v: recovery failed", role, *opts)
				}
				if batch.errAt >= 0 {
					require.Equal(t, batch.errAt, stream.errAt, "role %q %+v: index of the error, batch and stream", role, *opts)
					continue
				}
				require.Less(t, stream.errAt, 0, "role %q %+v: the stream failed where the batch did not: %+v", role, *opts, stream)
				require.Equal(t, batch.msgs, stream.msgs, "role %q %+v: batch and stream", role, *opts)
				checkEvents(t, enc, toks, role, opts)
				for _, m := range batch.msgs {
					require.True(t, utf8.ValidString(m.Text()), "invalid UTF-8 in parsed content %q", m.Text())
				}
			}
		}
		checkHeaderForms(t, enc, toks)
	})
}

// checkHeaderForms parses toks keeping the headers' forms and checks that
// a form changes nothing but tokens: the messages are those parsed without
// it, they render, and the rendered messages parse back (in the same mode)
// to what they parse back to in the reference's form, each written form read
// back as itself (a written header can never say more than its fields).
func checkHeaderForms(t *testing.T, enc *Encoding, toks []Token) {
	t.Helper()
	for _, opts := range []*ParseOptions{{KeepHeaders: true}, {KeepHeaders: true, Mode: ParseRecover}} {
		kept, err := enc.ParseCompletion(toks, "", opts)
		if err != nil {
			continue
		}
		plain, _ := enc.ParseCompletion(toks, "", &ParseOptions{Mode: opts.Mode})
		for i := range plain {
			plain[i].Header = kept[i].Header
		}
		require.Equal(t, plain, kept, "KeepHeaders changes the messages")
		out, err := enc.RenderConversation(NewConversation(kept...), &RenderOptions{Reasoning: ReasoningKeepAll})
		require.NoError(t, err, "renders what the parser kept (FuzzRenderParsed checks more)")
		canon := append([]Message(nil), kept...)
		for i := range canon {
			canon[i].Header = ""
		}
		out2, err := enc.RenderConversation(NewConversation(canon...), &RenderOptions{Reasoning: ReasoningKeepAll})
		if err != nil {
			continue // fields that only their written forms can write
		}
		back, err := enc.ParseCompletion(out, "", &ParseOptions{Mode: opts.Mode, KeepHeaders: true})
		back2, err2 := enc.ParseCompletion(out2, "", &ParseOptions{Mode: opts.Mode})
		require.Equal(t, err2 != nil, err != nil, "parsing back: %v with the forms, %v without", err, err2)
		if err != nil {
			continue // the reference's form does not round trip either
		}
		require.Equal(t, len(back2), len(back), "messages parsed back, without the forms and with them")
		for i := range back {
			if form, written := writtenForm(&kept[i]); written {
				require.Equal(t, form, back[i].Header, "message %d: the form parsed back", i)
			}
			back[i].Header = ""
		}
		require.Equal(t, back2, back, "the forms change what parses back")
	}
}

// checkEvents parses toks again and checks the parser's events against its
// messages: each message is reported by a start, a header with its fields,
// deltas that concatenate to its content and an end with its index, in that
// order, and nothing else is reported.
func checkEvents(t *testing.T, enc *Encoding, toks []Token, role Role, opts *ParseOptions) {
	t.Helper()
	p, err := enc.NewStreamParser(role, opts)
	require.NoError(t, err)
	var got []Message
	var cur *Message
	var text strings.Builder
	started := false
	handle := func(evs []Event) {
		for _, ev := range evs {
			switch ev.Kind {
			case EventMessageStart:
				// A start after a start is a header that was dropped.
				require.Nil(t, cur, "start inside a message: %+v", evs)
				started = true
			case EventHeader:
				require.True(t, started, "header without a start: %+v", evs)
				require.Nil(t, cur, "header without a start: %+v", evs)
				cur = &Message{Author: Author{Role: ev.Role, Name: ev.Name}, Recipient: ev.Recipient, Channel: ev.Channel, ContentType: ev.ContentType}
				text.Reset()
			case EventDelta:
				require.NotNil(t, cur, "delta outside content: %+v", evs)
				require.NotEmpty(t, ev.Text, "empty delta: %+v", evs)
				text.WriteString(ev.Text)
			case EventMessageEnd:
				require.NotNil(t, cur, "end without a header: %+v", evs)
				require.Equal(t, len(got), ev.Message, "end: index of the message")
				cur.Content = []Content{TextContent{Text: text.String()}}
				got = append(got, *cur)
				cur, started = nil, false
			default:
				require.Failf(t, "unknown event", "%+v", ev)
			}
		}
	}
	for _, tok := range toks {
		if p.Process(tok) != nil {
			return
		}
		handle(p.Events())
	}
	if p.ProcessEOS() != nil {
		return
	}
	handle(p.Events())
	require.Equal(t, len(p.Messages()), len(got), "messages the parser has and the events report")
	for i, m := range p.Messages() {
		require.Equal(t, m, got[i], "message %d: the parser's and the events'", i)
	}
}

// FuzzRenderParse checks that an assistant turn rendered by the renderer
// parses back to the same messages.
func FuzzRenderParse(f *testing.F) {
	f.Add("analysis", "", "", "thinking <|end|> about it", "final", "The answer is 4.")
	f.Add("commentary", "functions.get_weather", "<|constrain|>json", `{"city":"Zürich"}`, "", "")
	f.Add("commentary", "python", "code", "print('héllo 🌍')\r\n", "final", "done\xff")
	enc := mustEncoding(f)
	f.Fuzz(func(t *testing.T, ch1, recipient, ctype, text1, ch2, text2 string) {
		word := func(s string) string { // header words: no white space, no '<' in channels
			return strings.Map(func(r rune) rune {
				if r == '<' || r == '>' || r == '|' || r == utf8.RuneError || r > 0x7e || r <= ' ' {
					return -1
				}
				return r
			}, s)
		}
		ch1, recipient, ch2 = word(ch1), word(recipient), word(ch2)
		ctype = word(strings.TrimPrefix(ctype, "<|constrain|>"))
		if recipient == "all" || strings.HasPrefix(recipient, "to=") {
			recipient = ""
		}
		if ch1 == "" || strings.HasPrefix(ch1, "to=") {
			ch1 = "analysis"
		}
		if strings.HasPrefix(ch2, "to=") {
			ch2 = ""
		}
		if strings.HasPrefix(ctype, "to=") || (ctype != "" && recipient == "") {
			ctype = ""
		}
		text1, text2 = strings.ToValidUTF8(text1, "\uFFFD"), strings.ToValidUTF8(text2, "\uFFFD")
		msgs := []Message{NewTextMessage(RoleAssistant, text1).WithChannel(ch1).WithRecipient(recipient).WithContentType(ctype)}
		if ch2 != "" {
			msgs = append(msgs, NewTextMessage(RoleAssistant, text2).WithChannel(ch2))
		}
		toks, err := enc.RenderConversation(NewConversation(msgs...), &RenderOptions{Reasoning: ReasoningKeepAll})
		require.NoError(t, err)
		// The completion starts after "<|start|>assistant".
		got, err := enc.ParseCompletion(toks[2:], RoleAssistant, nil)
		require.NoError(t, err, "tokens %v", toks)
		require.Equal(t, msgs, got, "round trip")
	})
}
