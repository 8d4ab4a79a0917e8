package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// patternTexts exercise every branch of the o200k pattern: cased words with
// contractions, numbers, punctuation runs, newlines, trailing white space,
// several scripts and marks.
var patternTexts = []string{
	"I'm HERE, you're THERE'S; they'LL've we'D it's ǅungla ǈudevit Ǌ",
	"123456789 1,234.5678 ١٢٣٤ ⅷ 2025-06-28T10:30:00Z",
	"a/b/\n\n//\r\n  x  \n\t\n   \n \u00a0\u3000y   ",
	"!!!??? ...\n--->> <|start|> <|end|>",
	"e\u0301 ñ Ǆ ǅ ǆ ΣΊΣΥΦΟΣ σίσυφος",
}

func TestSameEncoding(t *testing.T) {
	enc := testenc.Encoding(t)
	tk, err := newTiktoken()
	require.NoError(t, err)
	texts := append(slices.Clone(patternTexts), strings.Join(benchdata.Paragraphs, ""))
	large, err := benchdata.Texts(benchdata.Large(), nil)
	require.NoError(t, err)
	texts = append(texts, large[:200]...)
	for _, text := range texts {
		want := enc.EncodeOrdinary(text)
		got := tk.EncodeOrdinary(text)
		// slices.Equal: an empty text gives no ids, nil or not.
		assert.True(t, slices.Equal(ints(want), got), "%.60q: tiktokenpeer %v, harmony %v", text, got, want)
	}
}

func ints(toks []harmony.Token) []int {
	out := make([]int, len(toks))
	for i, t := range toks {
		out[i] = int(t)
	}
	return out
}

func runPeer(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestEncodeDecode(t *testing.T) {
	enc := testenc.Encoding(t)
	small := benchdata.Small()
	texts, err := benchdata.Texts(small, nil)
	require.NoError(t, err)
	want := []int{}
	for _, text := range texts {
		want = append(want, ints(enc.EncodeOrdinary(text))...)
	}
	in := string(small) + "\n\n" + `[{"role":"user","content":"hi & <bye>"}]` + "\n"
	code, stdout, stderr := runPeer(t, in, "encode")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	require.Equal(t, 0, code, "encode: exit code")
	require.Empty(t, stderr, "encode: stderr")
	require.Len(t, lines, 2, "encode: lines")
	var got []int
	if assert.NoError(t, json.Unmarshal([]byte(lines[0]), &got), "encode") {
		assert.True(t, slices.Equal(got, want), "encode:\n got %v\nwant %v", got, want)
	}

	// Decoding gives back the texts; special tokens add nothing.
	code, stdout, _ = runPeer(t, "[200006,"+strings.TrimPrefix(lines[1], "[")+"\n"+lines[0], "decode")
	wantOut := `"userhi & <bye>"` + "\n" + literal(t, strings.Join(texts, "")) + "\n"
	assert.Equal(t, 0, code, "decode: exit code")
	assert.Equal(t, wantOut, stdout, "decode")
}

func literal(t *testing.T, s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	require.NoError(t, e.Encode(s))
	return strings.TrimSuffix(b.String(), "\n")
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		stdin string
		want  int
	}{
		{nil, "", 2},
		{[]string{"parse"}, "", 2},
		{[]string{"encode", "x"}, "", 2},
		{[]string{"decode"}, "", 0},
		{[]string{"decode"}, "[1]\n{}\n", 1},
		{[]string{"decode"}, "[-1\n", 1},
		{[]string{"encode"}, "[1]\n", 1},
	} {
		code, _, _ := runPeer(t, tc.stdin, tc.args...)
		assert.Equal(t, tc.want, code, "%v on %q: exit code", tc.args, tc.stdin)
	}
}
