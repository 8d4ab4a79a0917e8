package harmony

// Benchmarks of the library's hot paths, each with a peer measured in the same
// run: tiktoken-go (github.com/pkoukk/tiktoken-go) encoding or decoding the
// same text. The conversations are those of package internal/testsupport/benchdata, which
// cmd/harmony's process benchmarks read too. BENCHMARKS.md turns them into
// ratios; compare runs with benchstat:
//
//	go test -run '^$' -bench . -count 6 . | tee new.txt
//	benchstat new.txt

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The conversations, in the reference's JSON: benchdata.Small is the small
// tool-calling request, a developer message with a function tool and the
// user's question; largeConversationJSON is the 2,000-message conversation
// (about 1.3M tokens), a system and a developer message, then turns of user
// questions, analysis, tool calls, tool results and commentary.
var largeConversationJSON = sync.OnceValue(benchdata.Large)

// benchConversation reads a conversation of package benchdata.
func benchConversation(b testing.TB, data []byte) Conversation {
	b.Helper()
	var c Conversation
	require.NoError(b, json.Unmarshal(data, &c))
	return c
}

// conversationTexts returns the texts a renderer encodes for the conversation
// data — header strings, and each content part's text (system and developer
// content as rendered) — which the peer encodes one by one.
func conversationTexts(b testing.TB, data []byte) (texts []string, size int) {
	b.Helper()
	texts, err := benchdata.Texts(data, renderedPart(mustEncoding(b)))
	require.NoError(b, err)
	return texts, benchdata.Size(texts)
}

// renderedPart returns a function that gives the text system or developer
// content, given as the JSON of a content part, renders to.
func renderedPart(enc *Encoding) func(raw []byte) (string, error) {
	return func(raw []byte) (string, error) {
		parts, err := unmarshalContent(append(append([]byte("["), raw...), ']'), "$")
		if err != nil {
			return "", err
		}
		switch v := parts[0].(type) {
		case SystemContent:
			b, err := enc.systemText(nil, &v, true)
			return string(b), err
		case DeveloperContent:
			b, err := enc.developerText(nil, &v)
			return string(b), err
		}
		return "", fmt.Errorf("unexpected content %T", parts[0])
	}
}

// TestBenchTexts checks that the texts the peers encode are those of the
// conversations as the library reads them.
func TestBenchTexts(t *testing.T) {
	inputs := [][]byte{benchdata.Small()}
	if !sample.Sampled() {
		inputs = append(inputs, largeConversationJSON())
	}
	for _, data := range inputs {
		c := benchConversation(t, data)
		enc := mustEncoding(t)
		var want []string
		for _, m := range c.Messages {
			want = append(want, string(m.Role), m.Channel, m.Recipient, m.ContentType)
			for _, part := range m.Content {
				var text string
				var err error
				switch v := part.(type) {
				case TextContent:
					text = v.Text
				case SystemContent:
					var b []byte
					b, err = enc.systemText(nil, &v, true)
					text = string(b)
				case DeveloperContent:
					var b []byte
					b, err = enc.developerText(nil, &v)
					text = string(b)
				}
				require.NoError(t, err)
				want = append(want, text)
			}
		}
		got, _ := conversationTexts(t, data)
		// Not assert.Equal: the large conversation's texts are 5 MB.
		assert.True(t, slices.Equal(got, want), "%d texts differ from the %d of the conversation", len(got), len(want))
	}
}

var tiktokenPeer = sync.OnceValues(newTiktokenOracle)

func peer(b *testing.B) *tiktokenEngine {
	b.Helper()
	tk, err := tiktokenPeer()
	if err != nil {
		b.Fatal(err)
	}
	return tk
}

func benchRender(b *testing.B, data []byte) {
	enc := mustEncoding(b)
	c := benchConversation(b, data)
	texts, size := conversationTexts(b, data)
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
	b.Run("Impl=harmony-cold", func(b *testing.B) {
		// As a first request: nothing cached (system and developer texts are
		// tokenized, tool schemas converted, every time).
		b.ReportAllocs()
		b.SetBytes(int64(size))
		var dst []Token
		for b.Loop() {
			cold := newEncoding(enc.encoder)
			var err error
			dst, err = cold.AppendConversationForCompletion(dst[:0], c, RoleAssistant, nil)
			if err != nil {
				b.Fatal(err)
			}
		}
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

func BenchmarkRenderSmall(b *testing.B) { benchRender(b, benchdata.Small()) }
func BenchmarkRenderLarge(b *testing.B) { benchRender(b, largeConversationJSON()) }

// benchParse parses the rendered tokens of c (all at once and token by token)
// and, as the peer, decodes them with tiktoken-go.
func benchParse(b *testing.B, toks []Token) {
	enc := mustEncoding(b)
	text, err := enc.AppendBytes(nil, toks)
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
	// Token by token, strict and in recovery, the mode a server parses in.
	for _, mode := range []struct {
		name string
		opts *ParseOptions
	}{{"Impl=harmony-stream", nil}, {"Impl=harmony-stream-recover", &ParseOptions{Mode: ParseRecover}}} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(size)
			p, err := enc.NewStreamParser("", mode.opts)
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
	}
	// Our own decode of the same ids to bytes: the floor that parsing is
	// measured against (target: batch parse within 1.5× of it). AppendBytes(nil, …)
	// allocates its result, as parsing must; decode-reuse appends into one
	// buffer kept across iterations, the bare copying.
	b.Run("Impl=harmony-decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		for b.Loop() {
			if _, err := enc.AppendBytes(nil, toks); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Impl=harmony-decode-reuse", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(size)
		var buf []byte
		for b.Loop() {
			if buf, err = enc.AppendBytes(buf[:0], toks); err != nil {
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
			_ = tk.tk.Tiktoken.Decode(ids)
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
	toks, err := enc.RenderConversation(benchConversation(b, largeConversationJSON()), &RenderOptions{Reasoning: ReasoningKeepAll})
	if err != nil {
		b.Fatal(err)
	}
	benchParse(b, toks)
}
