package constrain

import (
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/require"
)

const benchSchema = `{"type":"object","properties":{"location":{"type":"string"},"unit":{"enum":["celsius","fahrenheit"]},"days":{"type":"integer","minimum":1,"maximum":14},"when":{"type":"string","format":"date"}},"required":["location"],"additionalProperties":false}`

// BenchmarkFillMask measures one mask at typical points of a tool call.
func BenchmarkFillMask(b *testing.B) {
	g := compile(b, benchSchema, nil)
	mask := make([]uint64, g.MaskWords())
	for _, bc := range []struct{ name, prefix string }{
		{"start", ``},
		{"key", `{"`},
		{"free-string", `{"location":"San Fra`},
		{"enum", `{"location":"x","unit":"cel`},
		{"after-value", `{"location":"x"`},
		{"integer", `{"location":"x","days":1`},
		{"date", `{"location":"x","when":"2024-0`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			m := g.NewMatcher()
			require.NoError(b, m.AcceptBytes([]byte(bc.prefix)))
			m.FillMask(mask)
			b.ReportAllocs()
			for b.Loop() {
				m.FillMask(mask)
			}
		})
	}
}

// BenchmarkFillMaskKeyEscape measures a mask inside an escape of a key
// that must be one of the required names: every code point the escape can
// still become is tried against the key automaton.
func BenchmarkFillMaskKeyEscape(b *testing.B) {
	g := compile(b, `{"type":"object","properties":{"a":{},"b":{}},"required":["a","b"],"maxProperties":2}`, nil)
	mask := make([]uint64, g.MaskWords())
	m := g.NewMatcher()
	require.NoError(b, m.AcceptBytes([]byte(`{"\u`)))
	b.ReportAllocs()
	for b.Loop() {
		m.FillMask(mask)
	}
}

// BenchmarkCompile measures compiling the schema and its first mask.
func BenchmarkCompile(b *testing.B) {
	enc := testenc.Encoding(b)
	compile(b, `{}`, nil)
	mask := make([]uint64, (enc.VocabSize()+63)/64)
	b.ReportAllocs()
	for b.Loop() {
		g, err := CompileJSONSchema(enc, []byte(benchSchema), nil)
		require.NoError(b, err)
		g.NewMatcher().FillMask(mask)
	}
}
