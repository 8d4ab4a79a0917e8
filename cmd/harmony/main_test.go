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
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/conformance"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
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
	if !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("output does not end in a newline: %q", stdout)
	}
	return strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
}

// conformanceCase is one line of testdata/conformance/*.jsonl.
type conformanceCase = conformance.Case

func loadConformance(t *testing.T) []conformanceCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "conformance", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance files: %v", err)
	}
	var out []conformanceCase
	for _, name := range files {
		cases, err := conformance.Load(name)
		if err != nil {
			t.Fatal(err)
		}
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
		if err := json.Compact(&b, c.Conversation); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
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
		if err != nil {
			t.Fatal(err)
		}
		return args, string(b)
	}
	t.Fatalf("%s: unknown op %q", c.ID, c.Op)
	return nil, ""
}

// normalizeMessages decodes a JSON array of messages the way the conformance
// README compares them.
func normalizeMessages(t *testing.T, data []byte) []any {
	t.Helper()
	v, err := conformance.NormalizeMessages(data)
	if err != nil {
		t.Fatalf("messages %s: %v", data, err)
	}
	return v
}

func rawArray(t *testing.T, msgs []json.RawMessage) []byte {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
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
			if stderr != "" {
				t.Errorf("stderr: %s", stderr)
			}
			lines := outputLines(t, stdout)
			if len(lines) != len(b.cases) {
				t.Fatalf("%d output lines for %d cases", len(lines), len(b.cases))
			}
			wantCode := 0
			for i, c := range b.cases {
				if checkCase(t, c, i+1, []byte(lines[i])) {
					wantCode = 1
				}
				checked++
			}
			if code != wantCode {
				t.Errorf("exit status %d, want %d", code, wantCode)
			}
		})
	}
	if every == 1 && checked != len(cases) || len(cases) < 1000 {
		t.Errorf("checked %d of %d cases", checked, len(cases))
	}
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
		if err := json.Unmarshal(line, &got); err != nil {
			t.Errorf("%s: output %.200s: %v", c.ID, line, err)
			return isError
		}
		if !reflect.DeepEqual(got, c.ExpectTokens) {
			t.Errorf("%s: tokens differ\n got %v\nwant %v", c.ID, got, c.ExpectTokens)
		}
		return false
	case "parse":
		if c.ExpectError {
			var e map[string]string
			if err := json.Unmarshal(line, &e); err != nil || len(e) != 1 || !strings.HasPrefix(e["error"], errPrefix) {
				t.Errorf("%s: want an error line, got %.300s", c.ID, line)
			}
			return true
		}
		if isError {
			t.Errorf("%s: %s", c.ID, line)
			return true
		}
		if g, w := normalizeMessages(t, line), normalizeMessages(t, rawArray(t, c.ExpectMsgs)); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: messages differ\n got %v\nwant %v", c.ID, g, w)
		}
		return false
	case "stream":
		return checkStream(t, c, errPrefix, line)
	}
	t.Errorf("%s: unknown op %q", c.ID, c.Op)
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
	if err := dec.Decode(&out); err != nil {
		t.Errorf("%s: output %.300s: %v", c.ID, line, err)
		return c.ExpectErrAt != nil
	}
	errAt := -1
	if out.Error != nil {
		if out.Error.Index == nil || out.Error.Message == nil || !strings.HasPrefix(*out.Error.Message, errPrefix) {
			t.Errorf("%s: bad error object in %.300s", c.ID, line)
		} else {
			errAt = *out.Error.Index
		}
	}
	wantErrAt := -1
	if c.ExpectErrAt != nil {
		wantErrAt = *c.ExpectErrAt
	}
	if errAt != wantErrAt {
		t.Errorf("%s: error at %d, want %d", c.ID, errAt, wantErrAt)
	}
	if len(out.Steps) != len(c.ExpectSteps) {
		t.Errorf("%s: %d steps, want %d", c.ID, len(out.Steps), len(c.ExpectSteps))
	}
	for i := 0; i < len(out.Steps) && i < len(c.ExpectSteps); i++ {
		step := out.Steps[i]
		var first string
		if i < len(c.Tokens) {
			first = `"token":` + strconv.FormatUint(uint64(c.Tokens[i]), 10)
			if string(step["token"]) != strconv.FormatUint(uint64(c.Tokens[i]), 10) || step["eos"] != nil {
				t.Errorf("%s: step %d: token %s, eos %s; want token %d", c.ID, i, step["token"], step["eos"], c.Tokens[i])
				break
			}
		} else {
			first = `"eos":true`
			if string(step["eos"]) != "true" || step["token"] != nil {
				t.Errorf("%s: step %d: token %s, eos %s; want eos", c.ID, i, step["token"], step["eos"])
				break
			}
		}
		if len(step) != 6 {
			t.Errorf("%s: step %d has %d keys, want 6", c.ID, i, len(step))
			break
		}
		got := make([]*string, 5)
		for j, k := range []string{"role", "channel", "recipient", "content_type", "delta"} {
			if err := json.Unmarshal(step[k], &got[j]); err != nil {
				t.Errorf("%s: step %d: %s: %v", c.ID, i, k, err)
			}
		}
		if g, w := showStep(got), showStep(c.ExpectSteps[i][:]); g != w {
			t.Errorf("%s: step %d (%s): got %s, want %s", c.ID, i, first, g, w)
			break
		}
	}
	if g, w := normalizeMessages(t, out.Messages), normalizeMessages(t, rawArray(t, c.ExpectMsgs)); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: messages differ\n got %v\nwant %v", c.ID, g, w)
	}
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
			if code != tc.want {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tc.want, stderr)
			}
			if tc.want == 2 {
				if stdout != "" {
					t.Errorf("stdout %q, want nothing", stdout)
				}
				if !strings.Contains(stderr, "usage: harmony") {
					t.Errorf("stderr %q has no usage", stderr)
				}
			}
		})
	}
}

func TestUsageMessages(t *testing.T) {
	_, _, stderr := runCLI(t, "", "render", "--mode", "chat")
	if !strings.Contains(stderr, `invalid value "chat" for flag -mode: want completion, conversation or training`) {
		t.Errorf("stderr: %s", stderr)
	}
	_, _, stderr = runCLI(t, "", "parse", "--lenient", "--recover")
	if !strings.HasPrefix(stderr, "harmony parse: --lenient and --recover are two parse modes: give one (strict is the default)\nusage: harmony parse ") {
		t.Errorf("stderr: %s", stderr)
	}
	_, _, stderr = runCLI(t, "", "frobnicate")
	if !strings.HasPrefix(stderr, `harmony: unknown command "frobnicate"`) {
		t.Errorf("stderr: %s", stderr)
	}
}

const userHi = `{"messages":[{"role":"user","content":"hi & <bye>"}]}`

func TestRenderText(t *testing.T) {
	in := userHi + "\n\n" + `[{"role":"user","content":"hi & <bye>"},{"role":"assistant","channel":"final","content":"ok"}]` + "\n"
	want := `"<|start|>user<|message|>hi & <bye><|end|><|start|>assistant"` + "\n" +
		`"<|start|>user<|message|>hi & <bye><|end|><|start|>assistant<|channel|>final<|message|>ok<|end|><|start|>assistant"` + "\n"
	code, stdout, stderr := runCLI(t, in, "render", "--text")
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %q\n got %s\nwant %s", code, stderr, stdout, want)
	}

	want = `"<|start|>user<|message|>hi & <bye><|end|><|start|>tool"` + "\n"
	if code, stdout, _ := runCLI(t, userHi, "render", "--text", "--role", "tool"); code != 0 || stdout != want {
		t.Errorf("--role tool: exit %d\n got %s\nwant %s", code, stdout, want)
	}
	want = `"<|start|>user<|message|>hi & <bye><|end|>"` + "\n"
	if code, stdout, _ := runCLI(t, userHi, "render", "--text", "--mode", "conversation"); code != 0 || stdout != want {
		t.Errorf("conversation: exit %d\n got %s\nwant %s", code, stdout, want)
	}
	want = "[]\n"
	if code, stdout, _ := runCLI(t, `{"messages":[]}`, "render", "--mode=training"); code != 0 || stdout != want {
		t.Errorf("empty conversation: exit %d\n got %s\nwant %s", code, stdout, want)
	}

	// The token ids are those of the same text encoded with special tokens.
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		t.Fatal(err)
	}
	toks := enc.EncodeWithSpecialTokens("<|start|>user<|message|>hi & <bye><|end|><|start|>assistant")
	b, _ := json.Marshal(toks)
	if code, stdout, _ := runCLI(t, userHi, "render"); code != 0 || stdout != string(b)+"\n" {
		t.Errorf("ids: exit %d\n got %s\nwant %s", code, stdout, b)
	}
}

// TestParseLiteral checks that messages are written with "<", ">" and "&"
// literally, and that an escaped backslash stays escaped.
func TestParseLiteral(t *testing.T) {
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		t.Fatal(err)
	}
	text := `a <|start|> & \u003c "q" ` + "\u2028"
	msg := harmony.NewTextMessage(harmony.RoleAssistant, text).WithChannel("final")
	toks, err := enc.RenderConversation(harmony.NewConversation(msg), nil)
	if err != nil {
		t.Fatal(err)
	}
	in, _ := json.Marshal(toks)
	want := `[{"role":"assistant","content":"a <|start|> & \\u003c \"q\" \u2028","channel":"final"}]` + "\n"
	code, stdout, stderr := runCLI(t, string(in), "parse", "--role", "none")
	if code != 0 || stdout != want {
		t.Errorf("exit %d, stderr %q\n got %s\nwant %s", code, stderr, stdout, want)
	}
	var back []harmony.Message
	if err := json.Unmarshal([]byte(stdout), &back); err != nil || len(back) != 1 || back[0].Text() != text {
		t.Errorf("round trip: %v %+v", err, back)
	}
}

// TestRecoverFlag checks that --recover reads what strict parsing refuses:
// text with no header becomes analysis, never the answer.
func TestRecoverFlag(t *testing.T) {
	in := "[15390,23045,11,889,357,8535,1652,483,484,13,200007]\n" // "I'm sorry, but I can't help with that.<|end|>"
	code, out, _ := runCLI(t, in, "parse", "--role", "assistant", "--recover")
	if code != 0 || out != `[{"role":"assistant","content":"I'm sorry, but I can't help with that.","channel":"analysis"}]`+"\n" {
		t.Errorf("--recover: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, in, "parse", "--role", "assistant")
	if code != 1 || !strings.HasPrefix(out, `{"error":"line 1: harmony: parse: at end of stream`) {
		t.Errorf("strict: exit %d, %q", code, out)
	}
	code, out, _ = runCLI(t, in, "stream", "--role", "assistant", "--recover")
	if code != 0 || !strings.HasSuffix(out, `"messages":[{"role":"assistant","content":"I'm sorry, but I can't help with that.","channel":"analysis"}]}`+"\n") {
		t.Errorf("stream --recover: exit %d, %q", code, out)
	}
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
		okOut := stdout == tc.stdout
		if end, ok := strings.CutPrefix(tc.stdout, "..."); ok {
			okOut = strings.HasSuffix(stdout, end)
		}
		if code != tc.code || !okOut || stderr != tc.stderr {
			t.Errorf("%v: exit %d, stderr %q\n got %s\nwant exit %d, stderr %q\n     %s", tc.args, code, stderr, stdout, tc.code, tc.stderr, tc.stdout)
		}
	}
	for _, cmd := range []string{"parse", "stream"} {
		_, _, stderr := runCLI(t, "", cmd, "-h")
		if !strings.Contains(stderr, "The tokens are a completion, sampled after \"<|start|>assistant\", by default;") ||
			!strings.Contains(stderr, "assistant (the default) for a completion") {
			t.Errorf("%s -h does not give the default role:\n%s", cmd, stderr)
		}
	}
}

func TestEncodeCountDecode(t *testing.T) {
	text := "Grüße, 世界! 🌍🚀 naïve café\n\ttabs  and <|start|> too\n"
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		t.Fatal(err)
	}
	for _, special := range []bool{false, true} {
		var args []string
		want := enc.EncodeOrdinary(text)
		if special {
			args = []string{"--special"}
			want = enc.EncodeWithSpecialTokens(text)
		}
		wantJSON, _ := json.Marshal(want)
		code, stdout, stderr := runCLI(t, text, append([]string{"encode"}, args...)...)
		if code != 0 || stdout != string(wantJSON)+"\n" {
			t.Fatalf("encode %v: exit %d, stderr %q\n got %s\nwant %s", args, code, stderr, stdout, wantJSON)
		}
		code, count, _ := runCLI(t, text, append([]string{"count"}, args...)...)
		if code != 0 || count != strconv.Itoa(len(want))+"\n" {
			t.Errorf("count %v: exit %d, got %q, want %d", args, code, count, len(want))
		}
		code, decoded, _ := runCLI(t, stdout, "decode")
		if want := literalJSON(t, text); code != 0 || decoded != want {
			t.Errorf("decode %v: exit %d\n got %s\nwant %s", args, code, decoded, want)
		}
	}
	// One special token decodes to its text; the special flag changes the count.
	if _, out, _ := runCLI(t, "<|start|>", "count", "--special"); out != "1\n" {
		t.Errorf("count --special <|start|> = %q, want 1", out)
	}
	if _, out, _ := runCLI(t, "", "encode"); out != "[]\n" {
		t.Errorf("encode of nothing = %q, want []", out)
	}
	if _, out, _ := runCLI(t, "", "count"); out != "0\n" {
		t.Errorf("count of nothing = %q, want 0", out)
	}
	// A token that is only part of a UTF-8 character decodes lossily.
	partial := harmony.Token(0)
	for ; partial < 1000; partial++ {
		if b, err := enc.AppendBytes(nil, []harmony.Token{partial}); err == nil && !utf8.Valid(b) {
			break
		}
	}
	if partial == 1000 {
		t.Fatal("no token with invalid UTF-8 below 1000")
	}
	in := "[200006, " + strconv.Itoa(int(partial)) + "]\n"
	if code, out, _ := runCLI(t, in, "decode"); code != 0 || !strings.HasPrefix(out, `"<|start|>`) || !strings.Contains(out, "\uFFFD") {
		t.Errorf("decode %s: exit %d, got %q", in, code, out)
	}
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
		if code != tc.code || stdout != tc.want || stderr != "" {
			t.Errorf("%v on %q: exit %d, stderr %q\n got %s\nwant %s", tc.args, tc.in, code, stderr, stdout, tc.want)
		}
	}
	// Not at the start, U+FEFF is text.
	want := literalJSON(t, mustEnc(t).EncodeOrdinary("a"+bom))
	if code, stdout, _ := runCLI(t, "a"+bom, "encode"); code != 0 || stdout != want {
		t.Errorf("encode a+BOM: exit %d, got %s, want %s", code, stdout, want)
	}
}

// literalJSON returns the JSON line of v with "<", ">" and "&" unescaped.
func literalJSON(t *testing.T, v any) string {
	t.Helper()
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		t.Fatal(err)
	}
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
	if code != 1 || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	lines := outputLines(t, stdout)
	if len(lines) != 11 {
		t.Fatalf("%d lines, want 11:\n%s", len(lines), stdout)
	}
	if lines[0] != `"<|start|>"` || lines[10] != `"<|start|><|end|>"` {
		t.Errorf("good lines: %s, %s", lines[0], lines[10])
	}
	wantErr := map[int]string{
		3: `{"error":"line 4: invalid token id -1 at index 0: want an integer from 0 to 4294967295"}`,
		5: `{"error":"line 6: invalid token id 4294967296 at index 0: want an integer from 0 to 4294967295"}`,
		6: `{"error":"line 7: invalid token id \"7\" at index 0: want an integer from 0 to 4294967295"}`,
		7: `{"error":"line 8: invalid input: want a JSON array of token ids"}`,
	}
	for i := 1; i <= 9; i++ {
		var e map[string]string
		if err := json.Unmarshal([]byte(lines[i]), &e); err != nil || len(e) != 1 || e["error"] == "" {
			t.Errorf("line %d: %s, want an error object", i, lines[i])
		}
		if w, ok := wantErr[i]; ok && lines[i] != w {
			t.Errorf("line %d: %s, want %s", i, lines[i], w)
		}
	}
	// An id the vocabulary lacks is valid input; decoding it fails.
	if !strings.HasPrefix(lines[9], `{"error":"line 10: harmony: decode: unknown token id 4294967295`) {
		t.Errorf("line 9: %s", lines[9])
	}

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
		if code != 1 || stdout != want || stderr != "" {
			t.Errorf("render --workers %s: exit %d, stderr %q\n got %s\nwant %s", workers, code, stderr, stdout, want)
		}
	}
}

func TestStreamShape(t *testing.T) {
	// A message ended by <|end|>, then by the end of the stream; a line that
	// fails at its first token; a message completed before an error; a
	// header cut short by the end of the stream.
	code, stdout, stderr := runCLI(t, "[200006, 173781, 200008, 200007]\n\n[1]\n[200006, 173781, 200008, 200007, 5]\n[200006, 173781]\n", "stream", "--role", "none")
	if code != 1 || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
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
	if len(lines) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), len(want), stdout)
	}
	for i, w := range want {
		if w != "" && lines[i] != w {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], w)
		}
	}
	var mid struct {
		Steps    []json.RawMessage `json:"steps"`
		Messages []json.RawMessage `json:"messages"`
		Error    map[string]any    `json:"error"`
	}
	if err := json.Unmarshal([]byte(lines[1]), &mid); err != nil {
		t.Fatal(err)
	}
	if len(mid.Steps) != 0 || mid.Steps == nil || len(mid.Messages) != 0 || len(mid.Error) != 2 || mid.Error["index"] != 0.0 ||
		!strings.HasPrefix(mid.Error["message"].(string), "line 3: harmony: parse: ") {
		t.Errorf("failed line: %s", lines[1])
	}

	// With --role assistant, deltas appear as content is read.
	enc, err := harmony.LoadEncoding(harmony.HarmonyGptOss)
	if err != nil {
		t.Fatal(err)
	}
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
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != 0 {
		t.Fatalf("exit %d, %v: %s", code, err, stdout)
	}
	var deltas string
	for _, s := range res.Steps {
		if s.Delta != nil {
			deltas += *s.Delta
		}
	}
	if deltas != "Hello" || len(res.Steps) != len(toks)+1 || *res.Steps[0].Role != "assistant" ||
		len(res.Messages) != 1 || string(res.Messages[0]) != `{"role":"assistant","content":"Hello","channel":"final"}` {
		t.Errorf("got %s", stdout)
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
	if code != 0 || len(lines) != 2 || lines[0] != lines[1] || stderr != "" {
		t.Fatalf("exit %d, %d lines, stderr %q", code, len(lines), stderr)
	}
	var msgs []harmony.Message
	if err := json.Unmarshal([]byte(lines[0]), &msgs); err != nil || len(msgs) != 1 || msgs[0].Role != harmony.RoleAssistant {
		t.Fatalf("%v: %.200s", err, lines[0])
	}
}

// TestBinary builds the command and pipes render into parse through real
// processes.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "harmony")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	render := exec.Command(bin, "render", "--mode", "conversation")
	render.Stdin = strings.NewReader(`[{"role":"assistant","channel":"final","content":"1 < 2 & 🌍"}]` + "\n" +
		`{"messages":[{"role":"user","content":"hi"}]}` + "\n")
	parse := exec.Command(bin, "parse", "--role", "none")
	pipe, err := render.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	parse.Stdin = pipe
	var out, renderErrs, parseErrs bytes.Buffer // one buffer per process: they write concurrently
	parse.Stdout, parse.Stderr, render.Stderr = &out, &parseErrs, &renderErrs
	if err := render.Start(); err != nil {
		t.Fatal(err)
	}
	if err := parse.Start(); err != nil {
		t.Fatal(err)
	}
	if err := render.Wait(); err != nil {
		t.Errorf("render: %v", err)
	}
	if err := parse.Wait(); err != nil {
		t.Errorf("parse: %v", err)
	}
	want := `[{"role":"assistant","content":"1 < 2 & 🌍","channel":"final"}]` + "\n" +
		`[{"role":"user","content":"hi"}]` + "\n"
	if out.String() != want || renderErrs.Len() != 0 || parseErrs.Len() != 0 {
		t.Errorf("got %q, stderr %q %q; want %q", out.String(), renderErrs.String(), parseErrs.String(), want)
	}

	// Start-up initialises nothing it does not use: no schema validator
	// (harmony/jsonschema is a package of its own), no tiktoken-go.
	count := exec.Command(bin, "count")
	count.Stdin = strings.NewReader("")
	count.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	count.Stderr = &trace
	if out, err := count.Output(); err != nil || string(out) != "0\n" {
		t.Errorf("count of nothing: %q, %v", out, err)
	}
	if !strings.Contains(trace.String(), "init github.com/go-harmony/harmony @") {
		t.Errorf("no init trace of the harmony package:\n%s", trace.String())
	}
	for _, heavy := range []string{"jsonschema", "tiktoken", "regexp2"} {
		if strings.Contains(trace.String(), heavy) {
			t.Errorf("harmony count initialises %s:\n%s", heavy, trace.String())
		}
	}

	// Exit statuses of the real process.
	cmd := exec.Command(bin, "decode")
	cmd.Stdin = strings.NewReader("[1]\nnope\n")
	got, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("decode with a bad line: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(got))
	n := 0
	for sc.Scan() {
		n++
	}
	if n != 2 {
		t.Errorf("decode wrote %d lines: %q", n, got)
	}
	if err := exec.Command(bin, "render", "--bogus").Run(); err == nil || err.(*exec.ExitError).ExitCode() != 2 {
		t.Errorf("bad flag: %v", err)
	}

	// Interactive use: each answer arrives before the next line is written.
	cmd = exec.Command(bin, "decode")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() }) // only ends a hung test
	defer timer.Stop()
	answers := bufio.NewReader(stdout)
	for _, tc := range [][2]string{{"[200006]", `"<|start|>"`}, {"[200007]", `"<|end|>"`}, {"[x]", `{"error":`}} {
		if _, err := io.WriteString(in, tc[0]+"\n"); err != nil {
			t.Fatal(err)
		}
		line, err := answers.ReadString('\n')
		if err != nil || !strings.HasPrefix(line, tc[1]) {
			t.Fatalf("answer to %s: %q, %v (want %s...)", tc[0], line, err, tc[1])
		}
	}
	in.Close()
	if err := cmd.Wait(); err == nil || err.(*exec.ExitError).ExitCode() != 1 {
		t.Errorf("interactive decode: %v", err)
	}
}
