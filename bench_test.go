package harmony

// Benchmarks of the library's hot paths, each with a peer measured in the same
// run: tiktoken-go (github.com/pkoukk/tiktoken-go) encoding or decoding the
// same text. BENCHMARKS.md turns them into ratios; compare runs with
// benchstat:
//
//	go test -run '^$' -bench . -count 6 . | tee new.txt
//	benchstat new.txt

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/go-harmony/harmony/internal/vocab"
)

// Paragraphs of the kinds a conversation holds: prose, code, JSON, several
// scripts, emoji.
var benchParagraphs = []string{
	"The quick brown fox jumps over the lazy dog, and then it runs back again because it forgot its keys. I'LL be there at 10:30, don't worry; we've got 1,234 things to do before 2025-06-28.\n",
	"func (p *Parser) Next() (Kind, error) {\n\tfor p.pos < len(p.buf) {\n\t\tswitch c := p.buf[p.pos]; {\n\t\tcase c == '\\n':\n\t\t\tp.line++\n\t\t}\n\t\tp.pos++\n\t}\n\treturn EOF, nil\n}\n",
	`{"location": "San Francisco, CA", "format": "celsius", "days": [1, 2, 3], "nested": {"ok": true, "value": 3.14159}}` + "\n",
	"東京の天気は晴れです。明日は雨が降るかもしれませんので、傘を持って行ってください。人工知能の研究は急速に進んでいます。\n",
	"Привет, мир! Сегодня хорошая погода, и мы пойдём гулять в парк. Это пример текста на русском языке.\n",
	"مرحبا بالعالم. هذا نص تجريبي باللغة العربية لاختبار الترميز.\n",
	"Emoji 👨‍👩‍👧 family, 🌍 globe, 💖 heart, and naïve café résumé with e\u0301 combining marks.\n",
	"    indented   text\twith\ttabs   and   runs   of   spaces\r\n\r\n   \u00a0\u3000 wide spaces\n",
}

func benchText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(benchParagraphs[r.IntN(len(benchParagraphs))])
	}
	return b.String()
}

var weatherTool = NewToolDescription("get_current_weather", "Gets the current weather in the provided location.",
	json.RawMessage(`{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"format":{"type":"string","enum":["celsius","fahrenheit"],"default":"celsius"}},"required":["location"]}`))

// smallConversation is the small tool-calling request: a developer message
// with a function tool and the user's question.
func smallConversation() Conversation {
	return NewConversation(
		NewDeveloperMessage(NewDeveloperContent().WithInstructions("Always respond in riddles").WithFunctionTools(weatherTool)),
		NewTextMessage(RoleUser, "What is the weather in Tokyo?"),
	)
}

// largeConversation is a 2,000-message conversation (about 1.3M tokens): a
// system and a developer message, then turns of user questions, analysis,
// tool calls, tool results and final answers.
var largeConversation = sync.OnceValue(func() Conversation {
	r := rand.New(rand.NewPCG(1, 2))
	msgs := []Message{
		NewSystemMessage(NewSystemContent().WithConversationStartDate("2025-06-28").WithBrowserTool()),
		NewDeveloperMessage(NewDeveloperContent().WithInstructions("Answer carefully.").WithFunctionTools(weatherTool)),
	}
	for len(msgs) < 2000 {
		var m Message
		switch len(msgs) % 5 {
		case 2:
			m = NewTextMessage(RoleUser, benchText(r, 2950))
		case 3:
			m = NewTextMessage(RoleAssistant, benchText(r, 2950)).WithChannel(ChannelAnalysis)
		case 4:
			m = NewTextMessage(RoleAssistant, `{"location":"Tokyo"}`).WithChannel(ChannelCommentary).
				WithRecipient("functions.get_current_weather").WithContentType("<|constrain|>json")
		case 0:
			m = NewToolMessage("functions.get_current_weather", benchText(r, 2950)).WithRecipient(string(RoleAssistant)).WithChannel(ChannelCommentary)
		case 1:
			m = NewTextMessage(RoleAssistant, benchText(r, 2950)).WithChannel(ChannelCommentary)
		}
		msgs = append(msgs, m)
	}
	return NewConversation(msgs...)
})

// conversationTexts returns the texts a renderer encodes for c — header
// strings, and each content part's text (system and developer content as
// rendered) — which the peer encodes one by one.
func conversationTexts(b *testing.B, c Conversation) (texts []string, size int) {
	for _, m := range c.Messages {
		texts = append(texts, string(m.Role), m.Channel, m.Recipient, m.ContentType)
		for _, part := range m.Content {
			var text string
			var err error
			switch v := part.(type) {
			case TextContent:
				text = v.Text
			case SystemContent:
				text, err = systemText(&v, true)
			case DeveloperContent:
				text, err = developerText(&v)
			}
			if err != nil {
				b.Fatal(err)
			}
			texts = append(texts, text)
		}
	}
	for _, t := range texts {
		size += len(t)
	}
	return texts, size
}

// newTiktokenPeer builds tiktoken-go's o200k engine from the embedded file.
func newTiktokenPeer() (*tiktokenEngine, error) {
	data, err := vocab.Embedded()
	if err != nil {
		return nil, err
	}
	ranks, err := vocab.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	return newTiktokenEngine(ranks)
}

var tiktokenPeer = sync.OnceValues(newTiktokenPeer)

func peer(b *testing.B) *tiktokenEngine {
	b.Helper()
	tk, err := tiktokenPeer()
	if err != nil {
		b.Fatal(err)
	}
	return tk
}

func benchRender(b *testing.B, c Conversation) {
	enc := mustEncoding(b)
	texts, size := conversationTexts(b, c)
	b.Run("Impl=harmony", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(size))
		var dst []Token
		for b.Loop() {
			var err error
			dst, err = enc.AppendConversationForCompletion(dst[:0], c, RoleAssistant, nil)
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(dst)), "tokens/op")
	})
	b.Run("Impl=tiktoken-encode", func(b *testing.B) {
		tk := peer(b)
		b.ReportAllocs()
		b.SetBytes(int64(size))
		var dst []Token
		for b.Loop() {
			dst = dst[:0]
			for _, t := range texts {
				dst = tk.appendOrdinary(dst, t)
			}
		}
	})
}

func BenchmarkRenderSmall(b *testing.B) { benchRender(b, smallConversation()) }
func BenchmarkRenderLarge(b *testing.B) { benchRender(b, largeConversation()) }

// benchParse parses the rendered tokens of c (all at once and token by token)
// and, as the peer, decodes them with tiktoken-go.
func benchParse(b *testing.B, toks []Token) {
	enc := mustEncoding(b)
	text, err := enc.DecodeBytes(toks)
	if err != nil {
		b.Fatal(err)
	}
	size := int64(len(text))
	b.Run("Impl=harmony-batch", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			if _, err := enc.ParseCompletion(toks, "", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Impl=harmony-stream", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		p, err := enc.NewStreamParser("", nil)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			p.Reset()
			for _, t := range toks {
				if err := p.Process(t); err != nil {
					b.Fatal(err)
				}
			}
			if err := p.ProcessEOS(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Impl=tiktoken-decode", func(b *testing.B) {
		tk := peer(b)
		ids := make([]int, len(toks))
		for i, t := range toks {
			ids[i] = int(t)
		}
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			_ = tk.tk.Decode(ids)
		}
	})
}

func BenchmarkParseSmall(b *testing.B) {
	enc := mustEncoding(b)
	// A 40-token tool call, as the model samples it.
	toks := enc.EncodeWithSpecialTokens(`<|start|>assistant<|channel|>commentary to=functions.get_current_weather <|constrain|>json<|message|>{"location": "San Francisco, CA", "format":"fahrenheit","days":3,"hourly":true}<|call|>`)
	if len(toks) != 40 {
		b.Fatalf("%d tokens, want 40", len(toks))
	}
	benchParse(b, toks)
}

func BenchmarkParseLarge(b *testing.B) {
	enc := mustEncoding(b)
	toks, err := enc.RenderConversation(largeConversation(), &RenderOptions{KeepAnalysis: true})
	if err != nil {
		b.Fatal(err)
	}
	benchParse(b, toks)
}

// BenchmarkLoad builds the encoding from the embedded vocabulary, as the first
// LoadEncoding does, beside tiktoken-go building its o200k_base from the same
// file.
func BenchmarkLoad(b *testing.B) {
	b.Run("Impl=harmony", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := vocab.Embedded()
			if err != nil {
				b.Fatal(err)
			}
			if _, err := NewEncoding(bytes.NewReader(data)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Impl=tiktoken", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := newTiktokenPeer(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
