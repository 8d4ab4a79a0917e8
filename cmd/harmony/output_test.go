package main

// Tests that hold the hand-written output and the id scanner of main.go to
// encoding/json: the bytes written are those encoding/json writes, and the ids
// read are those it reads.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/jsonw"
	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceStep and referenceResult are what stream wrote with encoding/json
// before its output was written by hand; streamLine.write must write the same
// bytes.
type referenceStep struct {
	Token       *harmony.Token `json:"token,omitempty"`
	EOS         bool           `json:"eos,omitempty"`
	Role        *string        `json:"role"`
	Channel     *string        `json:"channel"`
	Recipient   *string        `json:"recipient"`
	ContentType *string        `json:"content_type"`
	Delta       *string        `json:"delta"`
}

type referenceResult struct {
	Steps    []referenceStep   `json:"steps"`
	Messages []harmony.Message `json:"messages"`
	Error    *streamError      `json:"error,omitempty"`
}

func optionalString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func referenceStepOf(p *harmony.StreamParser, tok *harmony.Token) referenceStep {
	s := referenceStep{
		Token:       tok,
		EOS:         tok == nil,
		Role:        optionalString(string(p.CurrentRole())),
		Channel:     optionalString(p.CurrentChannel()),
		Recipient:   optionalString(p.CurrentRecipient()),
		ContentType: optionalString(p.CurrentContentType()),
	}
	if d, ok := p.LastContentDelta(); ok {
		s.Delta = &d
	}
	return s
}

// referenceStream returns the line stream wrote for toks, on input line n,
// with encoding/json.
func referenceStream(t *testing.T, role harmony.Role, lenient bool, n int, toks []harmony.Token) string {
	t.Helper()
	opts := &harmony.ParseOptions{}
	if lenient {
		opts.Mode = harmony.ParseLenient
	}
	p, err := testenc.Encoding(t).NewStreamParser(role, opts)
	require.NoError(t, err)
	res := referenceResult{Steps: make([]referenceStep, 0, len(toks)+1)}
	fail := func(index int, err error) {
		var pe *harmony.ParseError
		if errors.As(err, &pe) {
			index = pe.Index
		}
		res.Error = &streamError{Index: index, Message: "line " + strconv.Itoa(n) + ": " + withRoleHint(err, role).Error()}
	}
	for i := range toks {
		if err := p.Process(toks[i]); err != nil {
			fail(i, err)
			break
		}
		res.Steps = append(res.Steps, referenceStepOf(p, &toks[i]))
	}
	if res.Error == nil {
		if err := p.ProcessEOS(); err != nil {
			fail(len(toks), err)
		} else {
			res.Steps = append(res.Steps, referenceStepOf(p, nil))
		}
	}
	res.Messages = p.Messages()
	if res.Messages == nil {
		res.Messages = []harmony.Message{} // [] rather than null
	}
	return literalJSON(t, res)
}

// streamInput is one stream line: the parser's options and the tokens.
type streamInput struct {
	role    harmony.Role
	lenient bool
	toks    []harmony.Token
}

// checkStreamBytes runs stream on the inputs, grouped by flags, and compares
// its output with the reference's byte for byte.
func checkStreamBytes(t *testing.T, inputs []streamInput) {
	t.Helper()
	type batch struct {
		args       []string
		in, want   strings.Builder
		lines      int
		wantFailed bool
		wantStderr string
	}
	batches := map[string]*batch{}
	var keys []string
	for _, in := range inputs {
		role := string(in.role)
		if role == "" {
			role = "none"
		}
		args := []string{"stream", "--role", role}
		if in.lenient {
			args = append(args, "--lenient")
		}
		key := strings.Join(args, " ")
		b := batches[key]
		if b == nil {
			b = &batch{args: args}
			batches[key] = b
			keys = append(keys, key)
		}
		line, err := json.Marshal(in.toks)
		require.NoError(t, err)
		b.in.Write(line)
		b.in.WriteString("\n")
		want := referenceStream(t, in.role, in.lenient, b.lines+1, in.toks)
		if b.wantStderr == "" && in.role != "" && len(in.toks) > 0 && in.toks[0] == harmony.TokenStart {
			b.wantStderr = fmt.Sprintf("harmony stream: line %d: warning: the tokens start with <|start|>, which --role %s reads as header text; "+
				"for tokens that start at <|start|>, use --role none\n", b.lines+1, in.role)
		}
		b.want.WriteString(want)
		b.wantFailed = b.wantFailed || strings.Contains(want, `,"error":{"index":`)
		b.lines++
	}
	for _, key := range keys {
		b := batches[key]
		code, stdout, stderr := runCLI(t, b.in.String(), b.args...)
		if want := b.want.String(); !assert.True(t, stdout == want, "%s: output differs from encoding/json's", key) {
			got, wantLines := outputLines(t, stdout), outputLines(t, want)
			assert.Equal(t, len(wantLines), len(got), "%s: lines", key)
			for i := range min(len(got), len(wantLines)) {
				if g, w := got[i], wantLines[i]; g != w {
					at := 0
					for at < len(g) && at < len(w) && g[at] == w[at] {
						at++
					}
					from := max(at-80, 0)
					t.Logf("%s: line %d differs at byte %d:\n got ...%.200s\nwant ...%.200s", key, i, at, g[from:], w[from:])
					break
				}
			}
		}
		assert.Equal(t, map[bool]int{false: 0, true: 1}[b.wantFailed], code, "%s: exit", key)
		assert.Equal(t, b.wantStderr, stderr, "%s: stderr", key)
	}
}

// TestStreamBytes checks that stream writes what encoding/json wrote, on
// every conformance case and on text that needs escaping everywhere a string
// goes: deltas (with control characters, quotes, invalid UTF-8 from tokens
// that split characters, U+2028), header fields read leniently, and errors.
func TestStreamBytes(t *testing.T) {
	enc := testenc.Encoding(t)
	var inputs []streamInput
	for _, c := range loadConformance(t) {
		if c.Op != "stream" {
			continue
		}
		var role harmony.Role
		if c.Role != nil && *c.Role != "none" {
			role = harmony.Role(*c.Role)
		}
		toks := make([]harmony.Token, len(c.Tokens))
		for i, id := range c.Tokens {
			toks[i] = harmony.Token(id)
		}
		inputs = append(inputs, streamInput{role, c.Lenient(), toks})
	}
	require.GreaterOrEqual(t, len(inputs), 100, "stream cases")

	nasty := "quote \" backslash \\ nul \x00 \x01\x1f bell \a \b\f\n\r\t del \x7f <a&b> \u2028\u2029 \ufffd é 👨‍👩‍👧 東京"
	special := func(s string) []harmony.Token { return enc.EncodeWithSpecialTokens(s) }
	ordinary := enc.EncodeOrdinary
	cat := func(parts ...[]harmony.Token) []harmony.Token { return slices.Concat(parts...) }
	r := rand.New(rand.NewPCG(3, 4))
	randomIDs := func(n int) []harmony.Token {
		toks := make([]harmony.Token, n)
		for i := range toks {
			toks[i] = harmony.Token(r.IntN(200_000))
		}
		return toks
	}
	for _, lenient := range []bool{false, true} {
		inputs = append(inputs,
			streamInput{"", lenient, cat(special("<|start|>assistant<|channel|>final<|message|>"), ordinary(nasty), special("<|end|>"))},
			streamInput{"", lenient, cat(special("<|start|>assistant<|channel|>analysis<|message|>"), randomIDs(3000), special("<|return|>"))},
			streamInput{harmony.RoleAssistant, lenient, cat(special("<|channel|>commentary to=functions.x <|constrain|>json<|message|>"), ordinary(nasty), special("<|call|>"))},
			// Header fields with text that needs escaping.
			streamInput{"", lenient, cat(special("<|start|>assistant<|channel|>"), ordinary("fi\"nal\\\x01\u2028"), special("<|message|>"), ordinary("x"), special("<|end|>"))},
			streamInput{"", lenient, cat(special("<|start|>"), ordinary("functions.a\"b\\ to=c\td"), special("<|message|>"), ordinary(nasty), special("<|end|>"))},
			streamInput{"", lenient, cat(special("<|start|>assistant to=\"x\\\n <|constrain|>"), ordinary("j\"s\x7fon\u2029"), special("<|message|>{}<|call|>"))},
			// Errors: at a token, at the end of the stream, in a header.
			streamInput{"", lenient, cat(special("<|start|>assistant<|message|>"), ordinary(nasty), special("<|start|>"))},
			streamInput{"", lenient, cat(special("<|start|>assistant<|message|>"), ordinary(nasty))},
			streamInput{"", lenient, cat(special("<|start|>"), ordinary(nasty))},
			streamInput{"", lenient, randomIDs(50)},
			streamInput{"", lenient, []harmony.Token{}},
		)
	}
	// The head of the benchmarks' large conversation: every kind of its
	// messages, 30,000 tokens.
	conv := benchConversation(t)
	conv.Messages = conv.Messages[:52]
	toks, err := enc.RenderConversation(conv, &harmony.RenderOptions{Reasoning: harmony.ReasoningKeepAll})
	require.NoError(t, err)
	inputs = append(inputs, streamInput{"", false, toks}, streamInput{harmony.RoleAssistant, true, toks})
	checkStreamBytes(t, inputs)
}

// benchConversation reads the large conversation of package benchdata.
func benchConversation(t testing.TB) harmony.Conversation {
	t.Helper()
	var c harmony.Conversation
	require.NoError(t, json.Unmarshal(benchdata.Large(), &c))
	return c
}

// TestIDBytes checks the hand-written arrays of ids of render and encode.
func TestIDBytes(t *testing.T) {
	many := make([]harmony.Token, 5000)
	for i := range many {
		many[i] = harmony.Token(i * 858_993)
	}
	for _, toks := range [][]harmony.Token{nil, {}, {0}, {1<<32 - 1, 0, 200006}, many} {
		var out bytes.Buffer
		lw := newLineWriter(&out)
		require.NoError(t, lw.write(toks))
		require.NoError(t, lw.flush())
		assert.Equal(t, literalJSON(t, toks), out.String(), "%d ids", len(toks))
	}
}

// stringSamples are strings that exercise every branch of jsonw.AppendString.
func stringSamples() []string {
	out := []string{"", "plain", "\u2028\u2029", "\xff", "\xe6\x9d", "a\xe6\x9d\xb1b", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\ufffd", "\U0010ffff"}
	for b := 0; b < 256; b++ {
		out = append(out, string([]byte{byte(b)}), "x"+string([]byte{byte(b)})+"y")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		b := make([]byte, r.IntN(24))
		for i := range b {
			switch r.IntN(4) {
			case 0:
				b[i] = byte(r.IntN(256))
			case 1:
				b[i] = byte(r.IntN(0x20))
			default:
				b[i] = byte(0x20 + r.IntN(0x60))
			}
		}
		out = append(out, string(b))
	}
	for ru := rune(0x2000); ru < 0x2100; ru++ {
		out = append(out, string(ru))
	}
	return out
}

func TestAppendString(t *testing.T) {
	for _, s := range stringSamples() {
		checkAppendString(t, s)
	}
}

func checkAppendString(t *testing.T, s string) {
	t.Helper()
	want := strings.TrimSuffix(literalJSON(t, s), "\n")
	assert.Equal(t, "x"+want, string(jsonw.AppendString([]byte("x"), s)), "appendString(%q)", s)
}

func FuzzAppendString(f *testing.F) {
	for _, s := range stringSamples()[:40] {
		f.Add(s)
	}
	f.Fuzz(checkAppendString)
}

// idSamples are lines for parseIDs: well-formed ones and near misses.
var idSamples = []string{
	"[]", "[ ]", "[\t\r\n]", "[0]", "[1,2,3]", "[ 1 , 2 ,\t3 ]", "[4294967295]", "[4294967296]", "[9999999999]",
	"[12345678901]", "[00]", "[01]", "[0,0]", "[-0]", "[-1]", "[1.0]", "[1e3]", "[1E3]", "[1,]", "[,1]", "[1 2]",
	"[1]]", "[[1]]", "[1] ", "[1] [2]", "[1]x", "[\"1\"]", "[null]", "[true]", "{}", "1", "[", "[1", "[1,", "[ 1 ,",
	"[\u00a01]", "[1\u00a0]", "[\v1]", "[\f1]", "[1\x00]", "[200006,173781,200008,200007]", "[ 0 ]", "[007]",
	"[18446744073709551616]", "[4294967295,4294967295]", "[1,,2]", "[1 , ]", "[+1]", "[0x1]",
}

// TestParseIDs checks that every line the fast scanner reads is read to the
// same ids by encoding/json, and that it reads the lines ids are written as.
func TestParseIDs(t *testing.T) {
	for _, s := range idSamples {
		checkParseIDs(t, s)
	}
	for _, s := range []string{"[]", "[0]", "[1,2,3]", "[ 1 , 2 ,\t3 ]", "[4294967295]", "[0,0]", "[200006,173781,200008,200007]"} {
		_, ok := scanIDs([]byte(s))
		assert.True(t, ok, "scanIDs(%s) fell back to encoding/json", s)
	}
}

func checkParseIDs(t *testing.T, s string) {
	t.Helper()
	line := bytes.TrimSpace([]byte(s))
	if len(line) == 0 {
		return // eachLine skips blank lines
	}
	fast, ok := scanIDs(line)
	slow, err := parseIDsJSON(line)
	if ok && assert.NoError(t, err, "%q: scanIDs read %v, encoding/json fails", s, fast) {
		assert.NotNil(t, slow, "%q: scanIDs read %v, encoding/json nil", s, fast)
		assert.True(t, slices.Equal(fast, slow), "%q: scanIDs read %v, encoding/json %v", s, fast, slow)
	}
	got, gotErr := parseIDs(line)
	assert.True(t, slices.Equal(got, slow), "%q: parseIDs %v; want %v", s, got, slow)
	if err == nil {
		assert.NoError(t, gotErr, "%q: parseIDs", s)
	} else {
		assert.EqualError(t, gotErr, err.Error(), "%q: parseIDs", s)
	}
}

func FuzzParseIDs(f *testing.F) {
	for _, s := range idSamples {
		f.Add(s)
	}
	f.Fuzz(checkParseIDs)
}

// TestAppendIDs checks the hand-rolled id writer against encoding/json, at
// every number of digits and its edges.
func TestAppendIDs(t *testing.T) {
	toks := []harmony.Token{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 199997, 199998, 200006, 201087, 1<<32 - 1}
	for p := harmony.Token(1); p < 1e9; p *= 10 {
		toks = append(toks, p-1, p, p+1, 2*p, 5*p+3)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		toks = append(toks, harmony.Token(r.Uint32()), harmony.Token(r.IntN(201088)))
	}
	for _, ts := range [][]harmony.Token{{}, {7}, toks} {
		want, err := json.Marshal(ts)
		require.NoError(t, err)
		got := appendIDs([]byte("x"), ts)
		assert.Equal(t, "x"+string(want), string(got), "appendIDs(%v)", ts)
		assert.GreaterOrEqual(t, cap(got)-len(got), 1, "appendIDs left no room for the newline")
	}
}
