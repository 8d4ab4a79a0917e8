package harmony

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// conformanceCase is one line of testdata/conformance/*.jsonl: outputs of the
// reference implementation (see testdata/conformance/README.md).
type conformanceCase struct {
	ID           string            `json:"id"`
	Op           string            `json:"op"`
	Role         *string           `json:"role"`
	AutoDrop     *bool             `json:"auto_drop"`
	Strict       *bool             `json:"strict"`
	Conversation json.RawMessage   `json:"conversation"`
	Tokens       []Token           `json:"tokens"`
	ExpectTokens []Token           `json:"expect_tokens"`
	ExpectMsgs   []json.RawMessage `json:"expect_messages"`
	ExpectError  bool              `json:"expect_error"`
	ExpectSteps  [][5]*string      `json:"expect_steps"`
	ExpectErrAt  *int              `json:"expect_error_at"`
}

func loadConformance(t testing.TB, name string) []conformanceCase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "conformance", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []conformanceCase
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var c conformanceCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no cases", name)
	}
	return out
}

func mustEncoding(t testing.TB) *Encoding {
	t.Helper()
	enc, err := LoadEncoding(HarmonyGptOss)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func (c *conformanceCase) role() Role {
	if c.Role == nil {
		return ""
	}
	return Role(*c.Role)
}

func (c *conformanceCase) parseOptions() *ParseOptions {
	return &ParseOptions{Lenient: c.Strict != nil && !*c.Strict}
}

// runRender renders a render case through the Go API.
func runRender(enc *Encoding, c *conformanceCase) ([]Token, error) {
	var conv Conversation
	if err := json.Unmarshal(c.Conversation, &conv); err != nil {
		return nil, err
	}
	opts := &RenderOptions{KeepAnalysis: c.AutoDrop != nil && !*c.AutoDrop}
	switch c.Op {
	case "render":
		return enc.RenderConversation(conv, opts)
	case "render_training":
		return enc.RenderConversationForTraining(conv, opts)
	case "render_completion":
		return enc.RenderConversationForCompletion(conv, c.role(), opts)
	}
	return nil, errors.New("unknown op " + c.Op)
}

// normalizeMessages turns messages into generic JSON values compared the way
// the conformance README says: null fields dropped, a single text part equal
// to a string.
func normalizeMessages(t testing.TB, msgs any) []any {
	t.Helper()
	b, err := json.Marshal(msgs)
	if err != nil {
		t.Fatal(err)
	}
	var v []any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for _, m := range v {
		obj, ok := m.(map[string]any)
		if !ok {
			continue
		}
		for k, x := range obj {
			if x == nil {
				delete(obj, k)
			}
		}
		if parts, ok := obj["content"].([]any); ok && len(parts) == 1 {
			if p, ok := parts[0].(map[string]any); ok && p["type"] == "text" {
				obj["content"] = p["text"]
			}
		}
	}
	if v == nil {
		v = []any{}
	}
	return v
}

func checkConformanceFile(t *testing.T, name string) {
	enc := mustEncoding(t)
	cases := loadConformance(t, name)
	for i := range cases {
		c := &cases[i]
		switch c.Op {
		case "render", "render_training", "render_completion":
			got, err := runRender(enc, c)
			if err != nil {
				t.Errorf("%s: %v", c.ID, err)
				continue
			}
			if !reflect.DeepEqual(got, c.ExpectTokens) {
				t.Errorf("%s: tokens differ\n got %v\nwant %v", c.ID, got, c.ExpectTokens)
			}
		case "parse":
			got, err := enc.ParseCompletion(c.Tokens, c.role(), c.parseOptions())
			if c.ExpectError {
				if err == nil {
					t.Errorf("%s: want an error, got %d messages", c.ID, len(got))
				}
				continue
			}
			if err != nil {
				t.Errorf("%s: %v", c.ID, err)
				continue
			}
			if g, w := normalizeMessages(t, got), normalizeMessages(t, c.ExpectMsgs); !reflect.DeepEqual(g, w) {
				t.Errorf("%s: messages differ\n got %v\nwant %v", c.ID, g, w)
			}
		case "stream":
			checkStreamCase(t, enc, c)
		default:
			t.Errorf("%s: unknown op %q", c.ID, c.Op)
		}
	}
}

func optString(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func streamStep(p *StreamParser) [5]*string {
	d, ok := p.LastContentDelta()
	var delta *string
	if ok {
		delta = &d
	}
	return [5]*string{optString(string(p.CurrentRole())), optString(p.CurrentChannel()), optString(p.CurrentRecipient()), optString(p.CurrentContentType()), delta}
}

func showStep(s [5]*string) string {
	parts := make([]string, 5)
	for i, p := range s {
		if p == nil {
			parts[i] = "null"
		} else {
			parts[i] = "\"" + *p + "\""
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func checkStreamCase(t *testing.T, enc *Encoding, c *conformanceCase) {
	p, err := enc.NewStreamParser(c.role(), c.parseOptions())
	if err != nil {
		t.Fatalf("%s: %v", c.ID, err)
	}
	errAt := -1
	var steps [][5]*string
	for i, tok := range c.Tokens {
		if err := p.Process(tok); err != nil {
			errAt = i
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Index != i {
				t.Errorf("%s: error %v does not carry index %d", c.ID, err, i)
			}
			break
		}
		steps = append(steps, streamStep(p))
	}
	if errAt < 0 {
		if err := p.ProcessEOS(); err != nil {
			errAt = len(c.Tokens)
		} else {
			steps = append(steps, streamStep(p))
		}
	}
	wantErrAt := -1
	if c.ExpectErrAt != nil {
		wantErrAt = *c.ExpectErrAt
	}
	if errAt != wantErrAt {
		t.Errorf("%s: error at %d, want %d", c.ID, errAt, wantErrAt)
	}
	if len(steps) != len(c.ExpectSteps) {
		t.Errorf("%s: %d steps, want %d", c.ID, len(steps), len(c.ExpectSteps))
	}
	for i := 0; i < len(steps) && i < len(c.ExpectSteps); i++ {
		if g, w := showStep(steps[i]), showStep(c.ExpectSteps[i]); g != w {
			t.Errorf("%s: step %d: got %s, want %s", c.ID, i, g, w)
			break
		}
	}
	if g, w := normalizeMessages(t, p.Messages()), normalizeMessages(t, c.ExpectMsgs); !reflect.DeepEqual(g, w) {
		t.Errorf("%s: messages differ\n got %v\nwant %v", c.ID, g, w)
	}
}

func TestConformanceUpstream(t *testing.T) { checkConformanceFile(t, "upstream_tests.jsonl") }
func TestConformanceRender(t *testing.T)   { checkConformanceFile(t, "render.jsonl") }
func TestConformanceParse(t *testing.T)    { checkConformanceFile(t, "parse.jsonl") }
