package jsonscan

import (
	"strings"
	"testing"
)

// benchStrings are string literals as the module's JSON holds them: a
// member name, a paragraph of text, and a text with a line feed or a
// quote every forty bytes or so.
var benchStrings = []struct{ name, lit string }{
	{"key", `"content"`},
	{"text", `"` + strings.Repeat("The quick brown fox jumps over the lazy dog. ", 20) + `"`},
	{"escapes", `"` + strings.Repeat(`The quick brown fox jumps over the \"lazy\" dog.\n`, 20) + `"`},
}

func BenchmarkString(b *testing.B) {
	for _, s := range benchStrings {
		data := []byte(s.lit)
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if end, _, ok := String(data, 0); !ok || end != len(data) {
					b.Fatal(end, ok)
				}
			}
		})
	}
}

func BenchmarkSkip(b *testing.B) {
	data := []byte(`{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"format":{"type":"string","enum":["celsius","fahrenheit"],"default":"celsius"},"days":{"type":"integer","minimum":1,"maximum":16.5}},"required":["location"],"x":[true,false,null,-1.5e3]}`)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if end, _, ok := Skip(data, 0, 100); !ok || end != len(data) {
			b.Fatal(end, ok)
		}
	}
}
