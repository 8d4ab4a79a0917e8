package utf8x

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	tests := []struct {
		in            string
		valid, errLen int
	}{
		{"", 0, 0},
		{"héllo 🌍", len("héllo 🌍"), 0},
		{"ab\xE2\x82", 2, 0},           // incomplete at the end: more bytes could complete it
		{"\xC2", 0, 0},                 // incomplete two-byte sequence
		{"\xF0\x9F\x98A", 0, 3},        // maximal subpart of a four-byte sequence
		{"\xE0\x80\x80", 0, 1},         // overlong: E0 needs A0..BF next
		{"\xED\xA0\x80", 0, 1},         // surrogate: ED needs 80..9F next
		{"\xF4\x90\x80\x80", 0, 1},     // above U+10FFFF
		{"\xC0\xAF", 0, 1},             // never valid lead bytes
		{"\xFF", 0, 1},                 //
		{"a\x80", 1, 1},                // stray continuation byte
		{"\xE2\x82A", 0, 2},            // three-byte sequence cut by ASCII
		{"\xF0\x9F\x98\x80\xFF", 4, 1}, // valid emoji, then junk
	}
	for _, tt := range tests {
		valid, errLen := Check([]byte(tt.in))
		assert.Equal(t, [2]int{tt.valid, tt.errLen}, [2]int{valid, errLen}, "Check(%q): valid, errLen", tt.in)
	}
}

func TestAppendLossy(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"\xF0\x9F\x98A", "\uFFFDA"},
		{"a\xFF\xFEb", "a\uFFFD\uFFFDb"},
		{"\xE2\x82", "\uFFFD"},
		{"x\xED\xA0\x80y", "x\uFFFD\uFFFD\uFFFDy"},
		{"\xE0\x80\x80", "\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		assert.Equal(t, ">"+tt.want, string(AppendLossy([]byte(">"), []byte(tt.in))), "AppendLossy(%q)", tt.in)
	}
}

// FuzzCheck compares Check with unicode/utf8 on what both define: the valid
// prefix, and that the repaired text is valid.
func FuzzCheck(f *testing.F) {
	f.Add([]byte("\xF0\x9F\x98A\xE2\x82"))
	f.Fuzz(func(t *testing.T, b []byte) {
		valid, errLen := Check(b)
		require.LessOrEqual(t, valid, len(b), "Check(%q) = %d, %d", b, valid, errLen)
		require.LessOrEqual(t, valid+errLen, len(b), "Check(%q) = %d, %d", b, valid, errLen)
		require.True(t, utf8.Valid(b[:valid]), "Check(%q) = %d, %d: prefix not valid", b, valid, errLen)
		require.Equal(t, utf8.Valid(b), valid == len(b), "Check(%q) = %d disagrees with utf8.Valid", b, valid)
		require.True(t, utf8.Valid(AppendLossy(nil, b)), "AppendLossy(%q) is not valid UTF-8", b)
	})
}

func TestClip(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"", 4, ""},
		{"abcd", 4, "abcd"},
		{"abcde", 4, "abcd…"},
		{"abcé", 4, "abc…"},                      // é is 2 bytes: not cut in two
		{"ab🌍cd", 4, "ab…"},                      // the globe is 4 bytes
		{"\x80\x80\x80\x80\x80", 2, "\x80\x80…"}, // no rune starts: cut at max
	} {
		assert.Equal(t, tt.want, Clip(tt.in, tt.max), "Clip(%q, %d)", tt.in, tt.max)
	}
}
