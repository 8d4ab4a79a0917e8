package jsonscan

import (
	"bytes"
	"math/bits"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestHasSpecial checks the eight-byte test of the string scanner against
// the byte table, for each byte value in each position: it finds each
// byte that is not plain, and the first it finds is the first there is.
func TestHasSpecial(t *testing.T) {
	for pos := range 8 {
		for c := range 256 {
			for _, fill := range []byte{'a', 0x80, 0xff, '"'} {
				b := bytes.Repeat([]byte{fill}, 8)
				b[pos] = byte(c)
				first := 8
				for j, x := range b {
					if !plain[x] {
						first = j
						break
					}
				}
				m := special(le64(b))
				assert.Equal(t, first < 8, m != 0, "% x", b)
				if m != 0 {
					assert.Equal(t, first, bits.TrailingZeros64(m)>>3, "% x", b)
				}
			}
		}
	}
	assert.Zero(t, special(le64([]byte("plain é "))), "special on plain bytes")
}

// scanCase is a text, where a scan of it starting at 0 ends, and whether
// it is well formed.
type scanCase struct {
	in  string
	end int
	ok  bool
}

func TestSpace(t *testing.T) {
	for _, tc := range []scanCase{{"", 0, true}, {" \t\r\nx", 4, true}, {"\v", 0, true}, {"\f ", 0, true}, {"   ", 3, true}} {
		assert.Equal(t, tc.end, Space(tc.in, 0), "%q", tc.in)
		assert.Equal(t, tc.end, Space([]byte(tc.in), 0), "%q", tc.in)
	}
}

func TestPlainASCII(t *testing.T) {
	for _, tc := range []scanCase{
		{"", 0, true}, {"abc", 3, true}, {`abc"`, 3, true}, {`abcdefghij\`, 10, true},
		{"abcdefgh\x1fij", 8, true}, {"abcé", 3, true}, {"abcdefghijé", 10, true}, {"\x7f abcdefgh\x00", 10, true},
	} {
		assert.Equal(t, tc.end, PlainASCII(tc.in, 0), "%q", tc.in)
		assert.Equal(t, tc.end, PlainASCII([]byte(tc.in), 0), "%q", tc.in)
	}
}

func TestString(t *testing.T) {
	for _, tc := range []struct {
		scanCase
		escaped bool
	}{
		{scanCase{`""`, 2, true}, false},
		{scanCase{`"abc"x`, 5, true}, false},
		{scanCase{`"a long string without escapes"`, 31, true}, false},
		{scanCase{`"\"\\\/\b\f\n\r\t"`, 18, true}, true},
		{scanCase{`"\u00e9\uD800\uABcd"`, 20, true}, true},
		{scanCase{"\"\xff\xfe\"", 4, true}, false},
		{scanCase{`x`, 0, false}, false},
		{scanCase{``, 0, false}, false},
		{scanCase{`"abc`, 4, false}, false},
		{scanCase{`"abcdefghijklmnop`, 17, false}, false},
		{scanCase{"\"ab\ncd\"", 3, false}, false},
		{scanCase{"\"abcdefghij\x00\"", 11, false}, false},
		{scanCase{`"\x"`, 1, false}, false},
		{scanCase{`"a\u12"`, 2, false}, false},
		{scanCase{`"a\u12g4"`, 2, false}, false},
		{scanCase{`"\n\`, 3, false}, true},
		{scanCase{`"\`, 1, false}, false},
	} {
		end, escaped, ok := String(tc.in, 0)
		assert.Equal(t, tc.scanCase, scanCase{tc.in, end, ok}, "%q", tc.in)
		if ok {
			assert.Equal(t, tc.escaped, escaped, "%q escaped", tc.in)
		}
		end2, escaped2, ok2 := String([]byte(tc.in), 0)
		assert.Equal(t, []any{end, escaped, ok}, []any{end2, escaped2, ok2}, "%q as bytes", tc.in)
	}
}

func TestNumber(t *testing.T) {
	for _, tc := range []scanCase{
		{"0", 1, true}, {"-0", 2, true}, {"01", 1, true}, {"123,", 3, true}, {"-1.5e+10]", 8, true},
		{"1E5", 3, true}, {"0.0e-0", 6, true}, {"1.5.5", 3, true}, {"1e5e5", 3, true},
		{"", 0, false}, {"-", 1, false}, {"-x", 1, false}, {"+1", 0, false}, {".5", 0, false},
		{"1.", 2, false}, {"1.x", 2, false}, {"1e", 2, false}, {"1e+", 3, false}, {"1ex", 2, false}, {"-.5", 1, false},
	} {
		end, ok := Number(tc.in, 0)
		assert.Equal(t, tc, scanCase{tc.in, end, ok}, "%q", tc.in)
		end, ok = Number([]byte(tc.in), 0)
		assert.Equal(t, tc, scanCase{tc.in, end, ok}, "%q as bytes", tc.in)
	}
}

func TestLiteral(t *testing.T) {
	for _, tc := range []scanCase{
		{"true", 4, true}, {"false,", 5, true}, {"null]", 4, true}, {"nullx", 4, true},
		{"", 0, false}, {"x", 0, false}, {"tru", 3, false}, {"nul l", 3, false}, {"fals", 4, false}, {"trUe", 2, false},
	} {
		end, ok := Literal(tc.in, 0)
		assert.Equal(t, tc, scanCase{tc.in, end, ok}, "%q", tc.in)
		end, ok = Literal([]byte(tc.in), 0)
		assert.Equal(t, tc, scanCase{tc.in, end, ok}, "%q as bytes", tc.in)
	}
}

func TestSkip(t *testing.T) {
	for _, tc := range []struct {
		scanCase
		depth int
	}{
		{scanCase{`1`, 1, true}, 0},
		{scanCase{`"a" `, 3, true}, 0},
		{scanCase{`null,`, 4, true}, 0},
		{scanCase{`[]`, 2, true}, 1},
		{scanCase{`{ }`, 3, true}, 1},
		{scanCase{`[ 1 , "a" , [ ] , { "k" : { } } ] x`, 33, true}, 3},
		{scanCase{`{"a":[[1]],"b":2}`, 17, true}, 3},
		{scanCase{``, 0, false}, 0},
		{scanCase{` 1`, 0, false}, 0},
		{scanCase{`]`, 0, false}, 0},
		{scanCase{`[1,]`, 3, false}, 0},
		{scanCase{`[1 2]`, 3, false}, 0},
		{scanCase{`[1}`, 2, false}, 0},
		{scanCase{`{"a" 1}`, 5, false}, 0},
		{scanCase{`{1:1}`, 1, false}, 0},
		{scanCase{`{"a":1,}`, 7, false}, 0},
		{scanCase{`{"a":}`, 5, false}, 0},
		{scanCase{`[`, 1, false}, 0},
		{scanCase{`[1`, 2, false}, 0},
		{scanCase{`[tru]`, 4, false}, 0},
		{scanCase{`[01]`, 2, false}, 0},
	} {
		end, depth, ok := Skip(tc.in, 0, 10)
		assert.Equal(t, tc.scanCase, scanCase{tc.in, end, ok}, "%q", tc.in)
		if ok {
			assert.Equal(t, tc.depth, depth, "%q depth", tc.in)
		}
		end2, depth2, ok2 := Skip([]byte(tc.in), 0, 10)
		assert.Equal(t, []any{end, depth, ok}, []any{end2, depth2, ok2}, "%q as bytes", tc.in)
	}
}

// TestSkipDepth checks the depth limit: maxDepth arrays or objects open at
// once, and not one more.
func TestSkipDepth(t *testing.T) {
	for _, open := range []string{"[", `{"a":`} {
		closing := "]"
		if open != "[" {
			closing = "}"
		}
		v := strings.Repeat(open, 5) + "1" + strings.Repeat(closing, 5)
		end, depth, ok := Skip(v, 0, 5)
		assert.True(t, ok, v)
		assert.Equal(t, len(v), end, v)
		assert.Equal(t, 5, depth, v)
		end, _, ok = Skip(v, 0, 4)
		assert.False(t, ok, v)
		assert.Equal(t, 4*len(open), end, "%s: refused at the fifth bracket", v)
	}
	_, _, ok := Skip("1", 0, 0)
	assert.True(t, ok, "a scalar nests 0 deep")
	_, _, ok = Skip("[]", 0, 0)
	assert.False(t, ok, "an array nests 1 deep")
}
