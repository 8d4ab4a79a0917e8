package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// maxNesting is encoding/json's limit on nesting.
const maxNesting = 10000

// FuzzScan checks the scanner against encoding/json on the same bytes:
// Skip accepts a text (between white space) just when json.Valid does, and
// String, Number and Literal accept the whole of it just when it is valid
// and a string, a number or a literal. What each accepts of a prefix is
// valid JSON by itself, and String's escaped says whether there is a
// backslash. PlainASCII stops where it should. The scans of a string and
// of a []byte agree.
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		``, ` `, `0`, `-0.5e+7`, `01`, `1.`, `-`, `true`, `nul`, `"a"`, `"\u00e9\n"`, `"\ud800"`, "\"\xff\"", "\"\x01\"",
		`"\x"`, `[]`, `[1,2,[3]]`, `[1,]`, `{"a":{"b":[null]}}`, `{"a" 1}`, `{"a":1,}`, ` [ 1 ] `, `[1]x`, `"abcdefghijklmnop\"q"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		s := string(data)
		i := Space(data, 0)
		require.Equal(t, i, Space(s, 0))

		end, depth, ok := Skip(data, i, maxNesting)
		end2, depth2, ok2 := Skip(s, i, maxNesting)
		require.Equal(t, []any{end, depth, ok}, []any{end2, depth2, ok2}, "Skip of a string")
		require.Equal(t, valid, ok && Space(data, end) == len(data), "Skip of %q", data)
		if ok {
			require.True(t, json.Valid(data[i:end]), "Skip took %q of %q", data[i:end], data)
		}

		whole := func(name string, end int, ok bool) {
			t.Helper()
			if ok {
				require.True(t, json.Valid(data[:end]), "%s took %q of %q", name, data[:end], data)
			}
			if ok && end == len(data) {
				require.True(t, valid, "%s took %q", name, data)
			}
		}
		// PlainASCII stops at the first byte that is not ASCII, nor plain.
		stop := bytes.IndexFunc(data, func(r rune) bool { return r < 0x20 || r == '"' || r == '\\' || r >= 0x80 })
		if stop < 0 {
			stop = len(data)
		}
		require.Equal(t, stop, PlainASCII(data, 0), "PlainASCII of %q", data)
		require.Equal(t, stop, PlainASCII(s, 0), "PlainASCII of a string")

		end, escaped, ok := String(data, 0)
		end2, escaped2, ok2 := String(s, 0)
		require.Equal(t, []any{end, escaped, ok}, []any{end2, escaped2, ok2}, "String of a string")
		whole("String", end, ok)
		if ok {
			require.Equal(t, bytes.IndexByte(data[:end], '\\') >= 0, escaped, "String's escaped for %q", data)
		}
		if valid && len(data) > 0 && data[0] == '"' && data[len(data)-1] == '"' {
			require.True(t, ok && end == len(data), "String refused %q", data)
		}

		end, ok = Number(data, 0)
		end2, ok2 = Number(s, 0)
		require.Equal(t, []any{end, ok}, []any{end2, ok2}, "Number of a string")
		whole("Number", end, ok)
		if valid && len(data) > 0 && (data[0] == '-' || isDigit(data[0])) && isDigit(data[len(data)-1]) {
			require.True(t, ok && end == len(data), "Number refused %q", data)
		}

		end, ok = Literal(data, 0)
		end2, ok2 = Literal(s, 0)
		require.Equal(t, []any{end, ok}, []any{end2, ok2}, "Literal of a string")
		whole("Literal", end, ok)
		if w := string(data); valid && (w == "true" || w == "false" || w == "null") {
			require.True(t, ok && end == len(data), "Literal refused %q", data)
		}
	})
}

// TestSkipAsDeepAsEncodingJSON checks that Skip, given encoding/json's
// limit, accepts as deep a nesting as json.Valid does, and not one more.
func TestSkipAsDeepAsEncodingJSON(t *testing.T) {
	for _, n := range []int{maxNesting, maxNesting + 1} {
		data := bytes.Repeat([]byte("["), n)
		data = append(data, bytes.Repeat([]byte("]"), n)...)
		end, _, ok := Skip(data, 0, maxNesting)
		require.Equal(t, json.Valid(data), ok && end == len(data), "%d arrays", n)
	}
}
