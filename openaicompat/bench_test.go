package openaicompat

import (
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
)

// benchCompletion is a typical tool-using turn: reasoning, a preamble, a
// call, then (after the tool's reply, not part of it) nothing more.
func benchCompletion(enc *harmony.Encoding) []harmony.Token {
	return enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>` + strings.Repeat("The user wants the weather in Oslo. ", 40) +
		`<|end|><|start|>assistant<|channel|>commentary<|message|>Let me check.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo", "unit": "celsius"}<|call|>`)
}

func benchStream(b *testing.B, lenient bool) {
	enc := testenc.Encoding(b)
	toks := benchCompletion(enc)
	opts := &ResponseOptions{Strict: !lenient, Created: 1, IDGenerator: counter()}
	b.ReportAllocs()
	b.SetBytes(int64(len(toks)))
	for b.Loop() {
		c, err := NewChatStreamConverter(enc, opts)
		if err != nil {
			b.Fatal(err)
		}
		for _, t := range toks {
			if _, err := c.Process(t); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := c.Finish(Sampling{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChatStream converts a completion token by token into chunks;
// SetBytes counts tokens, so MB/s reads as millions of tokens a second.
func BenchmarkChatStream(b *testing.B)        { benchStream(b, false) }
func BenchmarkChatStreamLenient(b *testing.B) { benchStream(b, true) }
