package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/conformance"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs the command in-process.
func runCLI(t testing.TB, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// outputLines splits stdout into lines, each of which must end in "\n".
func outputLines(t testing.TB, stdout string) []string {
	t.Helper()
	if stdout == "" {
		return nil
	}
	require.True(t, strings.HasSuffix(stdout, "\n"), "output does not end in a newline: %q", stdout)
	return strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
}

// conformanceCase is one line of testdata/conformance/*.jsonl.
type conformanceCase = conformance.Case

func loadConformance(t *testing.T) []conformanceCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "conformance", "*.jsonl"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no conformance files")
	var out []conformanceCase
	for _, name := range files {
		cases, err := conformance.Load(name)
		require.NoError(t, err)
		out = append(out, cases...)
	}
	return out
}

// args returns the command line that runs c, and its input line.
func caseArgs(t *testing.T, c *conformanceCase) (args []string, input string) {
	t.Helper()
	switch c.Op {
	case "render", "render_training", "render_completion":
		args = []string{"render", "--mode", map[string]string{
			"render": "conversation", "render_training": "training", "render_completion": "completion",
		}[c.Op]}
		if c.Op == "render_completion" {
			args = append(args, "--role", *c.Role)
		}
		if c.KeepAnalysis() {
			args = append(args, "--reasoning", "keep")
		}
		var b bytes.Buffer
		require.NoError(t, json.Compact(&b, c.Conversation), c.ID)
		return args, b.String()
	case "parse", "stream":
		role := "none"
		if c.Role != nil {
			role = *c.Role
		}
		args = []string{c.Op, "--role", role}
		if c.Lenient() {
			args = append(args, "--lenient")
		}
		b, err := json.Marshal(c.Tokens)
		require.NoError(t, err)
		return args, string(b)
	}
	require.Fail(t, "unknown op", "%s: %q", c.ID, c.Op)
	return nil, ""
}

// normalizeMessages decodes a JSON array of messages the way the conformance
// README compares them.
func normalizeMessages(t *testing.T, data []byte) []any {
	t.Helper()
	v, err := conformance.NormalizeMessages(data)
	require.NoError(t, err, "messages %s", data)
	return v
}

func rawArray(t *testing.T, msgs []json.RawMessage) []byte {
	t.Helper()
	b, err := json.Marshal(msgs)
	require.NoError(t, err)
	return b
}

// TestConformance runs every conformance case through the command, one run
// per combination of subcommand and flags, one input line per case; when
// sampled, every 8th case of each combination.
func TestConformance(t *testing.T) {
	cases := loadConformance(t)
	every := 1
	if sample.Sampled() {
		every = 8
	}
	type batch struct {
		args  []string
		seen  int
		cases []*conformanceCase
		input strings.Builder
	}
	batches := map[string]*batch{}
	for i := range cases {
		c := &cases[i]
		args, input := caseArgs(t, c)
		key := strings.Join(args, " ")
		b := batches[key]
		if b == nil {
			b = &batch{args: args}
			batches[key] = b
		}
		if b.seen++; (b.seen-1)%every != 0 {
			continue
		}
		b.cases = append(b.cases, c)
		b.input.WriteString(input)
		b.input.WriteString("\n")
	}
	checked := 0 // the cases whose output line was checked
	for _, key := range slices.Sorted(maps.Keys(batches)) {
		b := batches[key]
		t.Run(strings.ReplaceAll(key, " ", "_"), func(t *testing.T) {
			code, stdout, stderr := runCLI(t, b.input.String(), b.args...)
			assert.Empty(t, stderr, "stderr")
			lines := outputLines(t, stdout)
			require.Equal(t, len(b.cases), len(lines), "output lines for the cases")
			wantCode := 0
			for i, c := range b.cases {
				if checkCase(t, c, i+1, []byte(lines[i])) {
					wantCode = 1
				}
				checked++
			}
			assert.Equal(t, wantCode, code, "exit status")
		})
	}
	if every == 1 {
		assert.Equal(t, len(cases), checked, "cases checked")
	}
	assert.GreaterOrEqual(t, len(cases), 1000, "checked %d of %d cases", checked, len(cases))
}

// checkCase checks the output line of input line n against its case and
// reports whether the case is one that fails (and so sets the exit status to
// 1).
func checkCase(t *testing.T, c *conformanceCase, n int, line []byte) (fails bool) {
	t.Helper()
	errPrefix := "line " + strconv.Itoa(n) + ": harmony: "
	isError := bytes.HasPrefix(line, []byte(`{"error":`))
	switch c.Op {
	case "render", "render_training", "render_completion":
		var got []uint32
		if !assert.NoError(t, json.Unmarshal(line, &got), "%s: output %.200s", c.ID, line) {
			return isError
		}
		assert.Equal(t, c.ExpectTokens, got, "%s: tokens differ", c.ID)
		return false
	case "parse":
		if c.ExpectError {
			var e map[string]string
			if assert.NoError(t, json.Unmarshal(line, &e), "%s: want an error line, got %.300s", c.ID, line) &&
				assert.Len(t, e, 1, "%s: want an error line, got %.300s", c.ID, line) {
				assert.True(t, strings.HasPrefix(e["error"], errPrefix), "%s: want an error line, got %.300s", c.ID, line)
			}
			return true
		}
		if !assert.False(t, isError, "%s: %s", c.ID, line) {
			return true
		}
		g, w := normalizeMessages(t, line), normalizeMessages(t, rawArray(t, c.ExpectMsgs))
		assert.Equal(t, w, g, "%s: messages differ", c.ID)
		return false
	case "stream":
		return checkStream(t, c, errPrefix, line)
	}
	assert.Fail(t, "unknown op", "%s: %q", c.ID, c.Op)
	return false
}

type streamOutput struct {
	Steps    []map[string]json.RawMessage `json:"steps"`
	Messages json.RawMessage              `json:"messages"`
	Error    *struct {
		Index   *int    `json:"index"`
		Message *string `json:"message"`
	} `json:"error"`
}

func checkStream(t *testing.T, c *conformanceCase, errPrefix string, line []byte) (fails bool) {
	t.Helper()
	var out streamOutput
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if !assert.NoError(t, dec.Decode(&out), "%s: output %.300s", c.ID, line) {
		return c.ExpectErrAt != nil
	}
	errAt := -1
	if out.Error != nil {
		if assert.NotNil(t, out.Error.Index, "%s: bad error object in %.300s", c.ID, line) &&
			assert.NotNil(t, out.Error.Message, "%s: bad error object in %.300s", c.ID, line) &&
			assert.True(t, strings.HasPrefix(*out.Error.Message, errPrefix), "%s: bad error object in %.300s", c.ID, line) {
			errAt = *out.Error.Index
		}
	}
	wantErrAt := -1
	if c.ExpectErrAt != nil {
		wantErrAt = *c.ExpectErrAt
	}
	assert.Equal(t, wantErrAt, errAt, "%s: error at", c.ID)
	assert.Equal(t, len(c.ExpectSteps), len(out.Steps), "%s: steps", c.ID)
	for i := 0; i < len(out.Steps) && i < len(c.ExpectSteps); i++ {
		step := out.Steps[i]
		var first string
		if i < len(c.Tokens) {
			first = `"token":` + strconv.FormatUint(uint64(c.Tokens[i]), 10)
			if !assert.Equal(t, strconv.FormatUint(uint64(c.Tokens[i]), 10), string(step["token"]), "%s: step %d: token", c.ID, i) ||
				!assert.Nil(t, step["eos"], "%s: step %d: eos; want token %d", c.ID, i, c.Tokens[i]) {
				break
			}
		} else {
			first = `"eos":true`
			if !assert.Equal(t, "true", string(step["eos"]), "%s: step %d: eos", c.ID, i) ||
				!assert.Nil(t, step["token"], "%s: step %d: token; want eos", c.ID, i) {
				break
			}
		}
		if !assert.Len(t, step, 6, "%s: step %d: keys", c.ID, i) {
			break
		}
		got := make([]*string, 5)
		for j, k := range []string{"role", "channel", "recipient", "content_type", "delta"} {
			assert.NoError(t, json.Unmarshal(step[k], &got[j]), "%s: step %d: %s", c.ID, i, k)
		}
		if !assert.Equal(t, showStep(c.ExpectSteps[i][:]), showStep(got), "%s: step %d (%s)", c.ID, i, first) {
			break
		}
	}
	g, w := normalizeMessages(t, out.Messages), normalizeMessages(t, rawArray(t, c.ExpectMsgs))
	assert.Equal(t, w, g, "%s: messages differ", c.ID)
	return out.Error != nil
}

func showStep(s []*string) string {
	parts := make([]string, len(s))
	for i, p := range s {
		if p == nil {
			parts[i] = "null"
		} else {
			parts[i] = strconv.Quote(*p)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		stdin string
		want  int
	}{
		{"no command", nil, "", 2},
		{"unknown command", []string{"frobnicate"}, "", 2},
		{"unknown flag", []string{"render", "--nope"}, "", 2},
		{"flag of another command", []string{"decode", "--lenient"}, "", 2},
		{"bad mode", []string{"render", "--mode", "chat"}, "", 2},
		{"bad render role", []string{"render", "--role", "robot"}, "", 2},
		{"none is no render role", []string{"render", "--role", "none"}, "", 2},
		{"bad parse role", []string{"parse", "--role", "Assistant"}, "", 2},
		{"missing flag value", []string{"stream", "--role"}, "", 2},
		{"two parse modes", []string{"parse", "--lenient", "--recover"}, "[200005]\n", 2},
		{"two stream modes", []string{"stream", "--recover", "--lenient"}, "[200005]\n", 2},
		{"extra argument", []string{"count", "file.txt"}, "", 2},
		{"help", []string{"-h"}, "", 0},
		{"command help", []string{"render", "-h"}, "", 0},
		{"empty input", []string{"parse"}, "", 0},
		{"only blank lines", []string{"decode"}, "\n  \n\t\r\n", 0},
		{"good lines", []string{"decode"}, "[]\n[200006]\n", 0},
		{"mixed lines", []string{"decode"}, "[]\n[-1]\n[200006]\n", 1},
		{"stream error", []string{"stream"}, "[1]\n", 1},
		{"parse error", []string{"parse"}, "[1]\n[]\n", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tc.stdin, tc.args...)
			assert.Equal(t, tc.want, code, "exit status (stderr %q)", stderr)
			if tc.want == 2 {
				assert.Empty(t, stdout, "stdout")
				assert.Contains(t, stderr, "usage: harmony", "stderr has no usage")
			}
		})
	}
}

func TestUsageMessages(t *testing.T) {
	_, _, stderr := runCLI(t, "", "render", "--mode", "chat")
	assert.Contains(t, stderr, `invalid value "chat" for flag -mode: want completion, conversation or training`)
	_, _, stderr = runCLI(t, "", "parse", "--lenient", "--recover")
	assert.True(t, strings.HasPrefix(stderr, "harmony parse: --lenient and --recover are two parse modes: give one (strict is the default)\nusage: harmony parse "), "stderr: %s", stderr)
	_, _, stderr = runCLI(t, "", "frobnicate")
	assert.True(t, strings.HasPrefix(stderr, `harmony: unknown command "frobnicate"`), "stderr: %s", stderr)
}

const userHi = `{"messages":[{"role":"user","content":"hi & <bye>"}]}`

func TestRenderText(t *testing.T) {
	in := userHi + "\n\n" + `[{"role":"user","content":"hi & <bye>"},{"role":"assistant","channel":"final","content":"ok"}]` + "\n"
	want := `"<|start|>user<|message|>hi & <bye><|end|><|start|>assistant"` + "\n" +
		`"<|start|>user<|message|>hi & <bye><|end|><|start|>assistant<|channel|>final<|message|>ok<|end|><|start|>assistant"` + "\n"
	code, stdout, stderr := runCLI(t, in, "render", "--text")
	assert.Equal(t, 0, code, "exit (stderr %q)", stderr)
	assert.Equal(t, want, stdout)

	want = `"<|start|>user<|message|>hi & <bye><|end|><|start|>tool"` + "\n"
	code, stdout, _ = runCLI(t, userHi, "render", "--text", "--role", "tool")
	assert.Equal(t, 0, code, "--role tool: exit")
	assert.Equal(t, want, stdout, "--role tool")
	want = `"<|start|>user<|message|>hi & <bye><|end|>"` + "\n"
	code, stdout, _ = runCLI(t, userHi, "render", "--text", "--mode", "conversation")
	assert.Equal(t, 0, code, "conversation: exit")
	assert.Equal(t, want, stdout, "conversation")
	want = "[]\n"
	code, stdout, _ = runCLI(t, `{"messages":[]}`, "render", "--mode=training")
	assert.Equal(t, 0, code, "empty conversation: exit")
	assert.Equal(t, want, stdout, "empty conversation")

	// The token ids are those of the same text encoded with special tokens.
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens("<|start|>user<|message|>hi & <bye><|end|><|start|>assistant")
	b, _ := json.Marshal(toks)
	code, stdout, _ = runCLI(t, userHi, "render")
	assert.Equal(t, 0, code, "ids: exit")
	assert.Equal(t, string(b)+"\n", stdout, "ids")
}

// TestParseLiteral checks that messages are written with "<", ">" and "&"
// literally, and that an escaped backslash stays escaped.
func TestParseLiteral(t *testing.T) {
	enc := testenc.Encoding(t)
	text := `a <|start|> & \u003c "q" ` + "\u2028"
	msg := harmony.NewTextMessage(harmony.RoleAssistant, text).WithChannel("final")
	toks, err := enc.RenderConversation(harmony.NewConversation(msg), nil)
	require.NoError(t, err)
	in, _ := json.Marshal(toks)
	want := `[{"role":"assistant","content":"a <|start|> & \\u003c \"q\" \u2028","channel":"final"}]` + "\n"
	code, stdout, stderr := runCLI(t, string(in), "parse", "--role", "none")
	assert.Equal(t, 0, code, "exit (stderr %q)", stderr)
	assert.Equal(t, want, stdout)
	var back []harmony.Message
	if assert.NoError(t, json.Unmarshal([]byte(stdout), &back), "round trip") && assert.Len(t, back, 1, "round trip") {
		assert.Equal(t, text, back[0].Text(), "round trip")
	}
}

// TestRecoverFlag checks that --recover reads what strict parsing refuses:
// text with no header becomes analysis, never the answer.
func TestRecoverFlag(t *testing.T) {
	in := "[15390,23045,11,889,357,8535,1652,483,484,13,200007]\n" // "I'm sorry, but I can't help with that.<|end|>"
	code, out, _ := runCLI(t, in, "parse", "--role", "assistant", "--recover")
	assert.Equal(t, 0, code, "--recover: exit")
	assert.Equal(t, `[{"role":"assistant","content":"I'm sorry, but I can't help with that.","channel":"analysis"}]`+"\n", out, "--recover")
	code, out, _ = runCLI(t, in, "parse", "--role", "assistant")
	assert.Equal(t, 1, code, "strict: exit")
	assert.True(t, strings.HasPrefix(out, `{"error":"line 1: harmony: parse: at end of stream`), "strict: %q", out)
	code, out, _ = runCLI(t, in, "stream", "--role", "assistant", "--recover")
	assert.Equal(t, 0, code, "stream --recover: exit")
	assert.True(t, strings.HasSuffix(out, `"messages":[{"role":"assistant","content":"I'm sorry, but I can't help with that.","channel":"analysis"}]}`+"\n"), "stream --recover: %q", out)
}

// completion is the README's completion: "<|channel|>final<|message|>Hi<|return|>",
// what a model samples after "<|start|>assistant".
const completion = "[200005,17196,200008,12194,200002]\n"

// TestParseRole checks that parse and stream read a completion by default,
// that --role none fails on one with a hint at --role, and that tokens that
// start at <|start|> read with a role get a warning, once.
func TestParseRole(t *testing.T) {
	const hi = `[{"role":"assistant","content":"Hi","channel":"final"}]`
	const hint = `line 1: harmony: parse: token 200005 at index 0 (state ExpectStart): unexpected token: want <|start|> ` +
		`(--role none wants tokens that start at <|start|>; for a completion, sampled after \"<|start|>assistant\", use --role assistant, the default)`
	for _, tc := range []struct {
		args   []string
		in     string
		code   int
		stdout string // the whole output, or with a leading "..." its end
		stderr string
	}{
		{[]string{"parse"}, completion, 0, hi + "\n", ""},
		{[]string{"parse", "--role", "assistant"}, completion, 0, hi + "\n", ""},
		{[]string{"stream"}, completion, 0, `...{"eos":true,"role":null,"channel":null,"recipient":null,"content_type":null,"delta":null}],"messages":` + hi + "}\n", ""},
		{[]string{"parse", "--role", "none"}, completion, 1, `{"error":"` + hint + `"}` + "\n", ""},
		{[]string{"parse", "--role", "none", "--lenient"}, completion, 1, `{"error":"` + hint + `"}` + "\n", ""},
		{[]string{"stream", "--role", "none"}, completion, 1, `{"steps":[],"messages":[],"error":{"index":0,"message":"` + hint + `"}}` + "\n", ""},
		// A rendered conversation read as a completion: the reference's
		// reading, and one warning for the first such line.
		{[]string{"parse"}, "\n[200006,1428,200008,3686,200007]\n[200006,1428,200008,3686,200007]\n", 0,
			`[{"role":"assistant","recipient":"<|start|>user","content":"hi"}]` + "\n" + `[{"role":"assistant","recipient":"<|start|>user","content":"hi"}]` + "\n",
			"harmony parse: line 2: warning: the tokens start with <|start|>, which --role assistant reads as header text; for tokens that start at <|start|>, use --role none\n"},
		{[]string{"stream", "--role", "user", "--lenient"}, "[200006,1428,200008,3686,200007]\n", 0,
			`...,"messages":[{"role":"user","recipient":"<|start|>user","content":"hi"}]}` + "\n",
			"harmony stream: line 1: warning: the tokens start with <|start|>, which --role user reads as header text; for tokens that start at <|start|>, use --role none\n"},
		{[]string{"parse", "--role", "none"}, "[200006,1428,200008,3686,200007]\n", 0, `[{"role":"user","content":"hi"}]` + "\n", ""},
		{[]string{"parse", "--recover"}, "[200006,1428,200008,3686,200007]\n", 0, `[{"role":"user","content":"hi"}]` + "\n", ""},
	} {
		code, stdout, stderr := runCLI(t, tc.in, tc.args...)
		assert.Equal(t, tc.code, code, "%v: exit", tc.args)
		if end, ok := strings.CutPrefix(tc.stdout, "..."); ok {
			assert.True(t, strings.HasSuffix(stdout, end), "%v:\n got %s\nwant ...%s", tc.args, stdout, end)
		} else {
			assert.Equal(t, tc.stdout, stdout, "%v: stdout", tc.args)
		}
		assert.Equal(t, tc.stderr, stderr, "%v: stderr", tc.args)
	}
	for _, cmd := range []string{"parse", "stream"} {
		_, _, stderr := runCLI(t, "", cmd, "-h")
		assert.Contains(t, stderr, "The tokens are a completion, sampled after \"<|start|>assistant\", by default;", "%s -h does not give the default role", cmd)
		assert.Contains(t, stderr, "assistant (the default) for a completion", "%s -h does not give the default role", cmd)
	}
}

func TestEncodeCountDecode(t *testing.T) {
	text := "Grüße, 世界! 🌍🚀 naïve café\n\ttabs  and <|start|> too\n"
	enc := testenc.Encoding(t)
	for _, special := range []bool{false, true} {
		var args []string
		want := enc.EncodeOrdinary(text)
		if special {
			args = []string{"--special"}
			want = enc.EncodeWithSpecialTokens(text)
		}
		wantJSON, _ := json.Marshal(want)
		code, stdout, stderr := runCLI(t, text, append([]string{"encode"}, args...)...)
		require.Equal(t, 0, code, "encode %v: exit (stderr %q)", args, stderr)
		require.Equal(t, string(wantJSON)+"\n", stdout, "encode %v", args)
		code, count, _ := runCLI(t, text, append([]string{"count"}, args...)...)
		assert.Equal(t, 0, code, "count %v: exit", args)
		assert.Equal(t, strconv.Itoa(len(want))+"\n", count, "count %v", args)
		code, decoded, _ := runCLI(t, stdout, "decode")
		assert.Equal(t, 0, code, "decode %v: exit", args)
		assert.Equal(t, literalJSON(t, text), decoded, "decode %v", args)
	}
	// One special token decodes to its text; the special flag changes the count.
	_, out, _ := runCLI(t, "<|start|>", "count", "--special")
	assert.Equal(t, "1\n", out, "count --special <|start|>")
	_, out, _ = runCLI(t, "", "encode")
	assert.Equal(t, "[]\n", out, "encode of nothing")
	_, out, _ = runCLI(t, "", "count")
	assert.Equal(t, "0\n", out, "count of nothing")
	// A token that is only part of a UTF-8 character decodes lossily.
	partial := harmony.Token(0)
	for ; partial < 1000; partial++ {
		if b, err := enc.AppendBytes(nil, []harmony.Token{partial}); err == nil && !utf8.Valid(b) {
			break
		}
	}
	require.NotEqual(t, harmony.Token(1000), partial, "no token with invalid UTF-8 below 1000")
	in := "[200006, " + strconv.Itoa(int(partial)) + "]\n"
	code, out, _ := runCLI(t, in, "decode")
	assert.Equal(t, 0, code, "decode %s: exit", in)
	assert.True(t, strings.HasPrefix(out, `"<|start|>`), "decode %s: got %q", in, out)
	assert.Contains(t, out, "\uFFFD", "decode %s", in)
}

// TestBOM checks that a byte order mark at the start of the input is
// skipped, by line commands (with one worker or several) and by encode and
// count, and that one anywhere else is not.
func TestBOM(t *testing.T) {
	const bom = "\xEF\xBB\xBF"
	for _, tc := range []struct {
		args     []string
		in, want string
		code     int
	}{
		{[]string{"decode"}, bom + "[200006]\n[200007]\n", `"<|start|>"` + "\n" + `"<|end|>"` + "\n", 0},
		{[]string{"decode"}, bom + "\n[200006]\n", `"<|start|>"` + "\n", 0},
		{[]string{"decode"}, bom, "", 0},
		{[]string{"decode"}, "[200006]\n" + bom + "[200007]\n", `"<|start|>"` + "\n" + `{"error":"line 2: invalid input: want a JSON array of token ids"}` + "\n", 1},
		{[]string{"parse"}, bom + completion, `[{"role":"assistant","content":"Hi","channel":"final"}]` + "\n", 0},
		{[]string{"render", "--text", "--workers", "1"}, bom + userHi + "\n", `"<|start|>user<|message|>hi & <bye><|end|><|start|>assistant"` + "\n", 0},
		{[]string{"render", "--text", "--workers", "3"}, bom + userHi + "\n", `"<|start|>user<|message|>hi & <bye><|end|><|start|>assistant"` + "\n", 0},
		{[]string{"encode"}, bom + "hello world", "[24912,2375]\n", 0},
		{[]string{"count"}, bom + "hello world", "2\n", 0},
		{[]string{"encode", "--special"}, bom + "<|start|>", "[200006]\n", 0},
		{[]string{"encode"}, bom, "[]\n", 0},
	} {
		code, stdout, stderr := runCLI(t, tc.in, tc.args...)
		assert.Equal(t, tc.code, code, "%v on %q: exit", tc.args, tc.in)
		assert.Equal(t, tc.want, stdout, "%v on %q", tc.args, tc.in)
		assert.Empty(t, stderr, "%v on %q: stderr", tc.args, tc.in)
	}
	// Not at the start, U+FEFF is text.
	want := literalJSON(t, testenc.Encoding(t).EncodeOrdinary("a"+bom))
	code, stdout, _ := runCLI(t, "a"+bom, "encode")
	assert.Equal(t, 0, code, "encode a+BOM: exit")
	assert.Equal(t, want, stdout, "encode a+BOM")
}

// literalJSON returns the JSON line of v with "<", ">" and "&" unescaped.
func literalJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	require.NoError(t, e.Encode(v))
	return b.String()
}

func TestErrorLines(t *testing.T) {
	in := strings.Join([]string{
		`[200006]`,
		`{not json`,
		`[1, 2`,
		`[-1]`,
		`[1.5]`,
		`[4294967296]`,
		`["7"]`,
		`null`,
		`[1] [2]`,
		`[4294967295]`,
		`[200006, 200007]`,
	}, "\n") // no final newline: the last line still counts
	code, stdout, stderr := runCLI(t, in, "decode")
	assert.Equal(t, 1, code, "exit")
	assert.Empty(t, stderr, "stderr")
	lines := outputLines(t, stdout)
	require.Len(t, lines, 11, "output:\n%s", stdout)
	assert.Equal(t, `"<|start|>"`, lines[0], "good line 0")
	assert.Equal(t, `"<|start|><|end|>"`, lines[10], "good line 10")
	wantErr := map[int]string{
		3: `{"error":"line 4: invalid token id -1 at index 0: want an integer from 0 to 4294967295"}`,
		5: `{"error":"line 6: invalid token id 4294967296 at index 0: want an integer from 0 to 4294967295"}`,
		6: `{"error":"line 7: invalid token id \"7\" at index 0: want an integer from 0 to 4294967295"}`,
		7: `{"error":"line 8: invalid input: want a JSON array of token ids"}`,
	}
	for i := 1; i <= 9; i++ {
		var e map[string]string
		if assert.NoError(t, json.Unmarshal([]byte(lines[i]), &e), "line %d: %s, want an error object", i, lines[i]) &&
			assert.Len(t, e, 1, "line %d: %s, want an error object", i, lines[i]) {
			assert.NotEmpty(t, e["error"], "line %d: %s, want an error object", i, lines[i])
		}
		if w, ok := wantErr[i]; ok {
			assert.Equal(t, w, lines[i], "line %d", i)
		}
	}
	// An id the vocabulary lacks is valid input; decoding it fails.
	assert.True(t, strings.HasPrefix(lines[9], `{"error":"line 10: harmony: decode: unknown token id 4294967295`), "line 9: %s", lines[9])

	// Render: a malformed line and a message that cannot be rendered fail
	// alone, and name their lines, blank lines counted, with one worker or
	// several.
	in = userHi + "\n\n{\"messages\": [\n  \n" + `[{"role":"tool","content":"x"}]` + "\n" + userHi + "\n"
	want := `"<|start|>user<|message|>hi & <bye><|end|><|start|>assistant"` + "\n" +
		`{"error":"line 3: invalid conversation: unexpected end of JSON input"}` + "\n" +
		`{"error":"line 5: harmony: render message 0: tool message without a name"}` + "\n" +
		`"<|start|>user<|message|>hi & <bye><|end|><|start|>assistant"` + "\n"
	for _, workers := range []string{"1", "3"} {
		code, stdout, stderr = runCLI(t, in, "render", "--text", "--workers", workers)
		assert.Equal(t, 1, code, "render --workers %s: exit", workers)
		assert.Equal(t, want, stdout, "render --workers %s", workers)
		assert.Empty(t, stderr, "render --workers %s: stderr", workers)
	}
}

func TestStreamShape(t *testing.T) {
	// A message ended by <|end|>, then by the end of the stream; a line that
	// fails at its first token; a message completed before an error; a
	// header cut short by the end of the stream.
	code, stdout, stderr := runCLI(t, "[200006, 173781, 200008, 200007]\n\n[1]\n[200006, 173781, 200008, 200007, 5]\n[200006, 173781]\n", "stream", "--role", "none")
	assert.Equal(t, 1, code, "exit")
	assert.Empty(t, stderr, "stderr")
	lines := outputLines(t, stdout)
	steps := `{"steps":[` +
		`{"token":200006,"role":null,"channel":null,"recipient":null,"content_type":null,"delta":null},` +
		`{"token":173781,"role":null,"channel":null,"recipient":null,"content_type":null,"delta":null},` +
		`{"token":200008,"role":"assistant","channel":null,"recipient":null,"content_type":null,"delta":null},` +
		`{"token":200007,"role":null,"channel":null,"recipient":null,"content_type":null,"delta":null}`
	want := []string{
		steps + `,{"eos":true,"role":null,"channel":null,"recipient":null,"content_type":null,"delta":null}],` +
			`"messages":[{"role":"assistant","content":""}]}`,
		"", // checked below
		steps + `],"messages":[{"role":"assistant","content":""}],"error":{"index":4,"message":` +
			`"line 4: harmony: parse: token 5 at index 4 (state ExpectStart): unexpected token: want <|start|>"}}`,
		`{"steps":[` +
			`{"token":200006,"role":null,"channel":null,"recipient":null,"content_type":null,"delta":null},` +
			`{"token":173781,"role":null,"channel":null,"recipient":null,"content_type":null,"delta":null}],` +
			`"messages":[],"error":{"index":2,"message":"line 5: harmony: parse: at end of stream (index 2, state Header): unexpected end of stream: inside a message header"}}`,
	}
	require.Len(t, lines, len(want), "output:\n%s", stdout)
	for i, w := range want {
		if w != "" {
			assert.Equal(t, w, lines[i], "line %d", i)
		}
	}
	var mid struct {
		Steps    []json.RawMessage `json:"steps"`
		Messages []json.RawMessage `json:"messages"`
		Error    map[string]any    `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &mid))
	assert.NotNil(t, mid.Steps, "failed line: %s", lines[1])
	assert.Empty(t, mid.Steps, "failed line: %s", lines[1])
	assert.Empty(t, mid.Messages, "failed line: %s", lines[1])
	if assert.Len(t, mid.Error, 2, "failed line: %s", lines[1]) && assert.Equal(t, 0.0, mid.Error["index"], "failed line: %s", lines[1]) {
		assert.True(t, strings.HasPrefix(mid.Error["message"].(string), "line 3: harmony: parse: "), "failed line: %s", lines[1])
	}

	// With --role assistant, deltas appear as content is read.
	enc := testenc.Encoding(t)
	toks := append([]harmony.Token{harmony.TokenChannel}, enc.EncodeOrdinary("final")...)
	toks = append(toks, harmony.TokenMessage)
	toks = append(toks, enc.EncodeOrdinary("Hello")...)
	toks = append(toks, harmony.TokenReturn)
	in, _ := json.Marshal(toks)
	code, stdout, _ = runCLI(t, string(in), "stream", "--role=assistant")
	var res struct {
		Steps []struct {
			Role, Channel, Delta *string
		}
		Messages []json.RawMessage
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &res), stdout)
	require.Equal(t, 0, code, "exit: %s", stdout)
	var deltas string
	for _, s := range res.Steps {
		if s.Delta != nil {
			deltas += *s.Delta
		}
	}
	assert.Equal(t, "Hello", deltas, "got %s", stdout)
	if assert.Len(t, res.Steps, len(toks)+1, "got %s", stdout) {
		assert.Equal(t, "assistant", *res.Steps[0].Role, "got %s", stdout)
	}
	if assert.Len(t, res.Messages, 1, "got %s", stdout) {
		assert.Equal(t, `{"role":"assistant","content":"Hello","channel":"final"}`, string(res.Messages[0]), "got %s", stdout)
	}
}

// TestLongLine feeds one line of megabytes.
func TestLongLine(t *testing.T) {
	const n = 400_000 // about 2.8 MB of ids
	var b strings.Builder
	b.WriteString("[200006,173781,200008")
	for i := 0; i < n; i++ {
		b.WriteString(",12345")
	}
	b.WriteString(",200007]\n")
	code, stdout, stderr := runCLI(t, b.String()+b.String(), "parse", "--role", "none")
	lines := outputLines(t, stdout)
	require.Equal(t, 0, code, "exit")
	require.Empty(t, stderr, "stderr")
	require.Equal(t, 2, len(lines), "lines")
	require.True(t, lines[0] == lines[1], "the two lines differ")
	var msgs []harmony.Message
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &msgs), "%.200s", lines[0])
	require.Len(t, msgs, 1, "%.200s", lines[0])
	require.Equal(t, harmony.RoleAssistant, msgs[0].Role, "%.200s", lines[0])
}

// TestBinary builds the command and pipes render into parse through real
// processes.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "harmony")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build:\n%s", out)
	render := exec.Command(bin, "render", "--mode", "conversation")
	render.Stdin = strings.NewReader(`[{"role":"assistant","channel":"final","content":"1 < 2 & 🌍"}]` + "\n" +
		`{"messages":[{"role":"user","content":"hi"}]}` + "\n")
	parse := exec.Command(bin, "parse", "--role", "none")
	pipe, err := render.StdoutPipe()
	require.NoError(t, err)
	parse.Stdin = pipe
	var parsed, renderErrs, parseErrs bytes.Buffer // one buffer per process: they write concurrently
	parse.Stdout, parse.Stderr, render.Stderr = &parsed, &parseErrs, &renderErrs
	require.NoError(t, render.Start())
	require.NoError(t, parse.Start())
	assert.NoError(t, render.Wait(), "render")
	assert.NoError(t, parse.Wait(), "parse")
	want := `[{"role":"assistant","content":"1 < 2 & 🌍","channel":"final"}]` + "\n" +
		`[{"role":"user","content":"hi"}]` + "\n"
	assert.Equal(t, want, parsed.String())
	assert.Empty(t, renderErrs.String(), "render's stderr")
	assert.Empty(t, parseErrs.String(), "parse's stderr")

	// Start-up initialises nothing it does not use: no schema validator
	// (harmony/jsonschema is a package of its own), no tiktoken-go.
	count := exec.Command(bin, "count")
	count.Stdin = strings.NewReader("")
	count.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	count.Stderr = &trace
	out, err = count.Output()
	if assert.NoError(t, err, "count of nothing") {
		assert.Equal(t, "0\n", string(out), "count of nothing")
	}
	assert.Contains(t, trace.String(), "init github.com/go-harmony/harmony @", "no init trace of the harmony package")
	for _, heavy := range []string{"jsonschema", "tiktoken", "regexp2"} {
		assert.NotContains(t, trace.String(), heavy, "harmony count initialises %s", heavy)
	}

	// Exit statuses of the real process.
	cmd := exec.Command(bin, "decode")
	cmd.Stdin = strings.NewReader("[1]\nnope\n")
	got, err := cmd.Output()
	assert.Equal(t, 1, exitCode(err), "decode with a bad line: %v", err)
	sc := bufio.NewScanner(bytes.NewReader(got))
	n := 0
	for sc.Scan() {
		n++
	}
	assert.Equal(t, 2, n, "decode wrote lines: %q", got)
	err = exec.Command(bin, "render", "--bogus").Run()
	assert.Equal(t, 2, exitCode(err), "bad flag: %v", err)

	// Interactive use: each answer arrives before the next line is written.
	cmd = exec.Command(bin, "decode")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // only ends a hung test
	defer timer.Stop()
	answers := bufio.NewReader(stdout)
	for _, tc := range [][2]string{{"[200006]", `"<|start|>"`}, {"[200007]", `"<|end|>"`}, {"[x]", `{"error":`}} {
		_, err := io.WriteString(in, tc[0]+"\n")
		require.NoError(t, err)
		line, err := answers.ReadString('\n')
		require.NoError(t, err, "answer to %s", tc[0])
		require.True(t, strings.HasPrefix(line, tc[1]), "answer to %s: %q (want %s...)", tc[0], line, tc[1])
	}
	in.Close()
	err = cmd.Wait()
	assert.Equal(t, 1, exitCode(err), "interactive decode: %v", err)
}

// exitCode returns the exit status of a process that ran and exited with
// err: 0 for a nil err, -1 for an error that is not an *exec.ExitError.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
