package harmony

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/conformance"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conformanceCase is one line of testdata/conformance/*.jsonl: outputs of the
// reference implementation (see testdata/conformance/README.md).
type conformanceCase = conformance.Case

func loadConformance(t testing.TB, name string) []conformanceCase {
	t.Helper()
	cases, err := conformance.Load(filepath.Join("testdata", "conformance", name))
	require.NoError(t, err)
	return cases
}

func tokens(ids []uint32) []Token {
	out := make([]Token, len(ids))
	for i, id := range ids {
		out[i] = Token(id)
	}
	return out
}

// mustEncoding returns the HarmonyGptOss encoding or fails t: the root
// package's own tests cannot import internal/testsupport/testenc (it
// imports this package), so this is their one loader.
func mustEncoding(t testing.TB) *Encoding {
	t.Helper()
	enc, err := LoadEncoding(HarmonyGptOss)
	require.NoError(t, err, "LoadEncoding(HarmonyGptOss)")
	return enc
}

func caseRole(c *conformanceCase) Role {
	if c.Role == nil {
		return ""
	}
	return Role(*c.Role)
}

func caseParseOptions(c *conformanceCase) *ParseOptions {
	if c.Lenient() {
		return &ParseOptions{Mode: ParseLenient}
	}
	return &ParseOptions{}
}

// runRender renders a render case through the Go API.
func runRender(enc *Encoding, c *conformanceCase) ([]Token, error) {
	var conv Conversation
	if err := json.Unmarshal(c.Conversation, &conv); err != nil {
		return nil, err
	}
	opts := &RenderOptions{}
	if c.KeepAnalysis() {
		opts.Reasoning = ReasoningKeepAll
	}
	switch c.Op {
	case "render":
		return enc.RenderConversation(conv, opts)
	case "render_training":
		return enc.RenderConversationForTraining(conv, opts)
	case "render_completion":
		return enc.RenderConversationForCompletion(conv, caseRole(c), opts)
	}
	return nil, errors.New("unknown op " + c.Op)
}

// normalizeMessages turns messages into generic JSON values compared the way
// the conformance README says.
func normalizeMessages(t testing.TB, msgs any) []any {
	t.Helper()
	b, err := json.Marshal(msgs)
	require.NoError(t, err)
	v, err := conformance.NormalizeMessages(b)
	require.NoError(t, err)
	return v
}

// checkConformanceFile checks the cases of a conformance file, every k-th
// of them.
func checkConformanceFile(t *testing.T, name string, k int) {
	enc := mustEncoding(t)
	cases := sample.Every(loadConformance(t, name), k)
	for i := range cases {
		c := &cases[i]
		switch c.Op {
		case "render", "render_training", "render_completion":
			got, err := runRender(enc, c)
			if !assert.NoError(t, err, c.ID) {
				continue
			}
			assert.Equal(t, tokens(c.ExpectTokens), got, "%s: tokens differ", c.ID)
		case "parse":
			got, err := enc.ParseCompletion(tokens(c.Tokens), caseRole(c), caseParseOptions(c))
			if c.ExpectError {
				assert.Error(t, err, "%s: got %d messages", c.ID, len(got))
				continue
			}
			if !assert.NoError(t, err, c.ID) {
				continue
			}
			assert.Equal(t, normalizeMessages(t, c.ExpectMsgs), normalizeMessages(t, got), "%s: messages differ", c.ID)
		case "stream":
			checkStreamCase(t, enc, c)
		default:
			assert.Failf(t, "unknown op", "%s: unknown op %q", c.ID, c.Op)
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
	p, err := enc.NewStreamParser(caseRole(c), caseParseOptions(c))
	require.NoError(t, err, c.ID)
	errAt := -1
	var steps [][5]*string
	for i, tok := range c.Tokens {
		if err := p.Process(Token(tok)); err != nil {
			errAt = i
			var pe *ParseError
			if assert.ErrorAs(t, err, &pe, c.ID) {
				assert.Equal(t, i, pe.Index, "%s: index of error %v", c.ID, err)
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
	assert.Equal(t, wantErrAt, errAt, "%s: index of the error", c.ID)
	assert.Equal(t, len(c.ExpectSteps), len(steps), "%s: steps", c.ID)
	for i := 0; i < len(steps) && i < len(c.ExpectSteps); i++ {
		if !assert.Equal(t, showStep(c.ExpectSteps[i]), showStep(steps[i]), "%s: step %d", c.ID, i) {
			break
		}
	}
	assert.Equal(t, normalizeMessages(t, c.ExpectMsgs), normalizeMessages(t, p.Messages()), "%s: messages differ", c.ID)
}

func TestConformanceUpstream(t *testing.T) { checkConformanceFile(t, "upstream_tests.jsonl", 1) }
func TestConformanceRender(t *testing.T)   { checkConformanceFile(t, "render.jsonl", every()) }
func TestConformanceParse(t *testing.T)    { checkConformanceFile(t, "parse.jsonl", every()) }
