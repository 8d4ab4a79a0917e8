package corpus

import (
	"bytes"
	"testing"
	"unicode/utf8"
)

func TestGenerateDeterministicAndSized(t *testing.T) {
	g, err := NewGenerator("../../../internal/o200k/testdata/corpus")
	if err != nil {
		t.Fatal(err)
	}
	const size = 200_000
	for _, name := range Names {
		a, err := g.Generate(name, size)
		if err != nil {
			t.Fatal(err)
		}
		b, err := g.Generate(name, size)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two generations differ", name)
		}
		if len(a) > size || len(a) < size-utf8.UTFMax+1 {
			t.Errorf("%s: %d bytes, want %d cut at a rune boundary", name, len(a), size)
		}
		if !utf8.Valid(a) {
			t.Errorf("%s: not valid UTF-8", name)
		}
		// No long stretch repeats: a 200-byte probe every 997 bytes
		// occurs only once.
		for i := 0; i+200 <= len(a); i += 997 {
			if bytes.Count(a, a[i:i+200]) > 1 {
				t.Errorf("%s: the 200 bytes at %d repeat", name, i)
				break
			}
		}
	}
}
