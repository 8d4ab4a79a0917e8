package harmony

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func specials(t *testing.T, enc *Encoding, text string) []Token {
	t.Helper()
	return enc.EncodeWithSpecialTokens(text)
}

func TestParseHeaderVariants(t *testing.T) {
	enc := mustEncoding(t)
	call := NewTextMessage(RoleAssistant, `{"latitude":48.8566,"longitude":2.3522}`).
		WithChannel("commentary").WithRecipient("functions.get_weather").WithContentType("<|constrain|>json")
	tests := []struct {
		name string
		text string
		role Role
		want []Message
	}{
		{"constrain adjacent to recipient", `<|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>{"latitude":48.8566,"longitude":2.3522}<|call|>`, "", []Message{call}},
		{"channel before recipient", `<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"latitude":48.8566,"longitude":2.3522}<|call|>`, "", []Message{call}},
		{"recipient before channel", `<|start|>assistant to=functions.get_weather<|channel|>commentary <|constrain|>json<|message|>{"latitude":48.8566,"longitude":2.3522}<|call|>`, "", []Message{call}},
		{"known role", `<|channel|>final<|message|>Hi<|return|>`, RoleAssistant, []Message{NewTextMessage(RoleAssistant, "Hi").WithChannel("final")}},
		{"tool author", `<|start|>functions.lookup to=assistant<|channel|>commentary<|message|>{}<|end|>`, "", []Message{NewToolMessage("functions.lookup", "{}").WithRecipient("assistant").WithChannel("commentary")}},
		{"literal tool role keeps its name", `<|start|>tool to=assistant<|message|>x<|end|>`, "", []Message{NewToolMessage("tool", "x").WithRecipient("assistant")}},
		{"lone word is a recipient", `<|start|>assistant python<|message|>print(1)<|call|>`, "", []Message{NewTextMessage(RoleAssistant, "print(1)").WithRecipient("python")}},
		{"end of stream ends content", `<|start|>user<|message|>partial`, "", []Message{NewTextMessage(RoleUser, "partial")}},
		{"specials in content are text", `<|start|>assistant<|message|>a<|start|>b<|channel|>c<|end|>`, "", []Message{NewTextMessage(RoleAssistant, "a<|start|>b<|channel|>c")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := enc.ParseCompletion(specials(t, enc, tt.text), tt.role, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseErrors(t *testing.T) {
	enc := mustEncoding(t)
	tests := []struct {
		name    string
		tokens  []Token
		role    Role
		lenient bool
		index   int
		eos     bool
		err     error
	}{
		{"token before start", specials(t, enc, "hello<|start|>"), "", false, 0, false, ErrUnexpectedToken},
		{"stop token while expecting start", specials(t, enc, "<|start|>user<|message|>a<|end|><|end|>"), "", false, 5, false, ErrUnexpectedToken},
		{"end inside header", specials(t, enc, "<|start|>assistant<|channel|>final"), "", false, 4, true, ErrUnexpectedEOS},
		{"unknown role", specials(t, enc, "<|start|>robot<|message|>x<|end|>"), "", false, 2, false, ErrUnknownRole},
		{"empty channel", specials(t, enc, "<|start|>assistant<|channel|> x<|message|>"), "", false, 4, false, ErrInvalidHeader},
		{"junk in header", specials(t, enc, "<|start|>assistant to=a b c<|message|>"), "", false, 6, false, ErrInvalidHeader},
		{"unknown id in header", []Token{TokenStart, 173781, 300000, TokenMessage}, "", false, 3, false, ErrUnknownToken},
		{"invalid UTF-8 in header", []Token{TokenStart, 173781, 9552, TokenMessage}, "", false, 3, false, ErrInvalidUTF8},
		{"no role word", []Token{TokenStart, TokenMessage}, "", false, 1, false, ErrInvalidHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := enc.ParseCompletion(tt.tokens, tt.role, &ParseOptions{Mode: map[bool]ParseMode{true: ParseLenient}[tt.lenient]})
			var pe *ParseError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, tt.index, pe.Index, "index")
			assert.Equal(t, tt.eos, pe.EOS, "EOS")
			assert.ErrorIs(t, err, tt.err)
			assert.True(t, strings.HasPrefix(err.Error(), "harmony: "), "message %q lacks the package prefix", err)
		})
	}
}

func TestParseLenientHeaderCutShort(t *testing.T) {
	enc := mustEncoding(t)
	toks := specials(t, enc, "<|channel|>commentary Hello there<|end|>")
	_, err := enc.ParseCompletion(toks, RoleAssistant, nil)
	require.Error(t, err, "strict mode")
	got, err := enc.ParseCompletion(toks, RoleAssistant, &ParseOptions{Mode: ParseLenient})
	require.NoError(t, err)
	want := []Message{NewTextMessage(RoleAssistant, "Hello there").WithChannel("commentary")}
	assert.Equal(t, want, got)
}

// The streaming scenarios of the reference's own tests.
func TestStreamUTF8(t *testing.T) {
	enc := mustEncoding(t)
	start := specials(t, enc, "<|start|>assistant<|message|>")
	newParser := func() *StreamParser {
		p, err := enc.NewStreamParser("", nil)
		require.NoError(t, err)
		for _, tok := range start {
			require.NoError(t, p.Process(tok))
		}
		return p
	}

	t.Run("character split across tokens waits", func(t *testing.T) {
		p := newParser()
		emoji := enc.EncodeOrdinary("💖")
		require.GreaterOrEqual(t, len(emoji), 2, "want a multi-token emoji, got %v", emoji)
		p.Process(emoji[0])
		d, ok := p.LastContentDelta()
		require.False(t, ok, "after the first piece: delta %q", d)
		require.Empty(t, p.CurrentContent(), "after the first piece: content")
		for _, tok := range emoji[1:] {
			p.Process(tok)
		}
		d, ok = p.LastContentDelta()
		require.True(t, ok, "after the last piece: no delta")
		require.Equal(t, "💖", d, "after the last piece: delta")
		require.Equal(t, "💖", p.CurrentContent(), "after the last piece: content")
	})
	t.Run("partial bytes flushed at EOS", func(t *testing.T) {
		p := newParser()
		p.Process(9552)
		for _, tok := range enc.EncodeOrdinary("Hi") {
			p.Process(tok)
		}
		require.NoError(t, p.ProcessEOS())
		want := []Message{NewTextMessage(RoleAssistant, " \uFFFDHi")}
		assert.Equal(t, want, p.Messages())
		_, ok := p.LastContentDelta()
		assert.False(t, ok, "state left over after EOS: a delta")
		assert.Empty(t, p.CurrentContent(), "state left over after EOS: content")
	})
	t.Run("nothing leaks into the next message", func(t *testing.T) {
		p := newParser()
		toks := append([]Token{9552, 9552}, specials(t, enc, "<|end|><|start|>assistant<|message|>Hi<|end|>")...)
		for _, tok := range toks {
			require.NoError(t, p.Process(tok))
		}
		require.Len(t, p.Messages(), 2)
		assert.Equal(t, NewTextMessage(RoleAssistant, "Hi"), p.Messages()[1], "second message")
	})
	t.Run("unknown id in content", func(t *testing.T) {
		// Strict: an error at the id's index. The reference instead decodes
		// nothing after the id and ends the message with one U+FFFD,
		// silently losing the rest.
		content := append(enc.EncodeOrdinary("Practice."), 0xFFFFFFFF, 24912)
		p := newParser()
		var err error
		for _, tok := range content {
			if err = p.Process(tok); err != nil {
				break
			}
		}
		var pe *ParseError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, len(start)+len(content)-2, pe.Index)
		assert.ErrorIs(t, err, ErrUnknownToken)
		// ParseLenient and ParseRecover: U+FFFD, and the rest of the message is kept.
		for _, opts := range []*ParseOptions{{Mode: ParseLenient}, {Mode: ParseRecover}} {
			got, err := enc.ParseCompletion(append(specials(t, enc, "<|channel|>final<|message|>"), content...), RoleAssistant, opts)
			require.NoError(t, err)
			assert.Equal(t, []Message{NewTextMessage(RoleAssistant, "Practice.\uFFFDhello").WithChannel(ChannelFinal)}, got, "%+v", *opts)
		}
	})
}

func TestStreamParserReset(t *testing.T) {
	enc := mustEncoding(t)
	toks := specials(t, enc, "<|channel|>final<|message|>Hello<|return|>")
	p, err := enc.NewStreamParser(RoleAssistant, nil)
	require.NoError(t, err)
	var first []Message
	for round := 0; round < 2; round++ {
		for _, tok := range toks {
			require.NoError(t, p.Process(tok))
		}
		require.NoError(t, p.ProcessEOS())
		if round == 0 {
			first = p.Messages()
		} else {
			require.Equal(t, first, p.Messages(), "after Reset")
		}
		require.Len(t, p.Tokens(), len(toks), "Tokens()")
		p.Reset()
		require.Equal(t, StateHeader, p.State(), "state after Reset")
		require.Equal(t, RoleAssistant, p.CurrentRole(), "role after Reset")
		require.Empty(t, p.Messages(), "messages after Reset")
	}
}

// TestStreamAllocs pins the streaming parser's cost per content token: after
// warm-up, feeding content allocates nothing.
func TestStreamAllocs(t *testing.T) {
	enc := mustEncoding(t)
	p, err := enc.NewStreamParser(RoleAssistant, nil)
	require.NoError(t, err)
	for _, tok := range specials(t, enc, "<|channel|>final<|message|>") {
		require.NoError(t, p.Process(tok))
	}
	content := enc.EncodeOrdinary("Hello, world! Ünïcödé 🌍 and more words to stream, one token at a time. ")
	i := 0
	allocs := testing.AllocsPerRun(20000, func() {
		// The plain test first: what is measured is Process alone.
		if err := p.Process(content[i%len(content)]); err != nil {
			require.NoError(t, err)
		}
		i++
	})
	assert.Zero(t, allocs, "allocations per content token")
	d, ok := p.LastContentDelta()
	assert.True(t, ok || d != "" || p.CurrentContent() != "", "no content streamed")
}

// TestBatchContentRuns checks ParseCompletion's whole-run decoding of
// content (contentRun) against the stream, token by token, on content of
// single-byte tokens: characters split across tokens, invalid sequences
// (which send a run back through Process), and both at a run's end.
func TestBatchContentRuns(t *testing.T) {
	enc := mustEncoding(t)
	head := specials(t, enc, "<|start|>assistant<|message|>")
	byteTok := byteTokens(t, enc)
	for _, content := range []string{"abc", "é中😀", "a\xffb", "中\xe4\xb8", "\xe4\xb8", "\xff", "x\xf0\x9f\x98\x80y\xc3", "\xc3\xa9\xed\xa0\x80z"} {
		for _, split := range []bool{false, true} {
			toks := append([]Token(nil), head...)
			if split {
				for i := 0; i < len(content); i++ {
					toks = append(toks, byteTok[content[i]])
				}
			} else {
				toks = append(toks, enc.EncodeOrdinary("ok ")...)
				for i := 0; i < len(content); i++ {
					toks = append(toks, byteTok[content[i]])
				}
			}
			toks = append(toks, TokenEnd)
			toks = append(toks, head...)
			toks = append(toks, byteTok['q'])
			batch, stream := parseBoth(t, enc, toks)
			assert.Equal(t, stream, batch, "%q split=%v", content, split)
		}
	}
}

// TestBatchArenaBlocks parses completions whose tokens average far more
// than the four bytes ParseCompletion makes room for (runs of spaces are
// tokens of up to 128 bytes), across several messages and with a character
// cut between tokens at a block's end, so that the content goes on in new
// blocks: batch and stream must give the texts that were rendered.
func TestBatchArenaBlocks(t *testing.T) {
	enc := mustEncoding(t)
	byteTok := byteTokens(t, enc)
	var toks []Token
	var want []Message
	for i, text := range []string{
		strings.Repeat(" ", 200_000) + "x",
		"short",
		strings.Repeat("é"+strings.Repeat(" ", 127), 3000) + "中",
		strings.Repeat("\t", 70_000),
	} {
		m := NewTextMessage(RoleAssistant, text).WithChannel(ChannelFinal)
		want = append(want, m)
		toks = append(toks, specials(t, enc, "<|start|>assistant<|channel|>final<|message|>")...)
		body := enc.EncodeOrdinary(text)
		if i == 2 {
			// Its last character "中" as its bytes' tokens: a pending
			// character.
			body = enc.EncodeOrdinary(strings.TrimSuffix(text, "中"))
			for _, c := range []byte("中") {
				body = append(body, byteTok[c])
			}
		}
		toks = append(toks, body...)
		toks = append(toks, TokenEnd)
	}
	require.Less(t, 4*len(toks), 600_000, "the tokens must average well over four bytes")
	batch, stream := parseBoth(t, enc, toks)
	for name, got := range map[string][]Message{"batch": batch, "stream": stream} {
		require.Len(t, got, len(want), name)
		for i := range want {
			// Not assert.Equal: a diff of 200 kB would not print.
			assert.True(t, reflect.DeepEqual(got[i], want[i]), "%s: message %d differs (%d bytes of content, want %d)", name, i, len(got[i].Text()), len(want[i].Text()))
		}
	}
}

// byteTokens returns the rank of each single byte.
func byteTokens(t *testing.T, enc *Encoding) map[byte]Token {
	t.Helper()
	byteTok := map[byte]Token{}
	for id := Token(0); id < FirstSpecialToken && len(byteTok) < 256; id++ {
		if b, _ := enc.tokenBytes(id); len(b) == 1 {
			byteTok[b[0]] = id
		}
	}
	require.Len(t, byteTok, 256)
	return byteTok
}

// parseBoth parses a completion with ParseCompletion and token by token
// with a StreamParser, both strict and from a <|start|>.
func parseBoth(t *testing.T, enc *Encoding, toks []Token) (batch, stream []Message) {
	t.Helper()
	batch, err := enc.ParseCompletion(toks, "", nil)
	require.NoError(t, err)
	p, err := enc.NewStreamParser("", nil)
	require.NoError(t, err)
	for _, tok := range toks {
		require.NoError(t, p.Process(tok))
	}
	require.NoError(t, p.ProcessEOS())
	return batch, p.Messages()
}

func TestParseModeText(t *testing.T) {
	for _, m := range []ParseMode{ParseStrict, ParseLenient, ParseRecover} {
		var back ParseMode
		require.NoError(t, back.UnmarshalText([]byte(m.String())))
		require.Equal(t, m, back)
	}
	var m ParseMode
	require.EqualError(t, m.UnmarshalText([]byte("loose")), `harmony: parse mode "loose" is not strict, lenient or recover`)
	require.Equal(t, "ParseMode(3)", ParseMode(3).String())
	_, err := mustEncoding(t).NewStreamParser(RoleAssistant, &ParseOptions{Mode: 3})
	require.EqualError(t, err, "harmony: unknown parse mode 3")
	_, err = mustEncoding(t).ParseCompletion(nil, RoleAssistant, &ParseOptions{Mode: 3})
	require.EqualError(t, err, "harmony: unknown parse mode 3")
}
