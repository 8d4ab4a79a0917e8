package openaicompat

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/golden"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/wild"
)

// wildInput is what a server is given of a real model output: the
// completion, where it starts, what the request declared and whether
// sampling hit the token limit.
type wildInput struct {
	id                  string
	start               string // "assistant", or "" for output that starts at <|start|>
	text                *string
	tokens              []uint32
	functions, builtins []string
	truncated           bool
}

// wildExtract converts a real model output as a server does (recovering,
// with the case's declared tools) and returns what the chat completion
// holds.
func wildExtract(t *testing.T, enc *harmony.Encoding, in wildInput) wild.Extraction {
	t.Helper()
	var toks []harmony.Token
	if in.text != nil {
		toks = enc.EncodeWithSpecialTokens(*in.text)
	} else {
		for _, x := range in.tokens {
			toks = append(toks, harmony.Token(x))
		}
	}
	opts := &ResponseOptions{ExpectStart: in.start == "", Functions: in.functions, Namespaces: in.builtins,
		IDGenerator: counter(), Created: 1}
	r, err := ChatCompletionFromTokens(enc, toks, Sampling{Truncated: in.truncated}, opts)
	require.NoError(t, err, in.id)
	m := r.Choices[0].Message
	got := wild.Extraction{Reasoning: m.Reasoning}
	if m.Content != nil {
		got.Content = m.Content.Text
	}
	for _, tc := range m.ToolCalls {
		got.ToolCalls = append(got.ToolCalls, wild.ToolCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return got
}

// caseInput is the input of a case of testdata/wild.
func caseInput(c wild.Case) wildInput {
	return wildInput{id: c.ID, start: c.Start, text: c.Text, tokens: c.Tokens, functions: c.Tools, builtins: c.Builtins}
}

// TestWildOutputs converts every real model output of ../testdata/wild as
// a server does and checks that the chat completion gives at least what the
// best peer server extracted: the same content and tool calls, and its
// reasoning.
func TestWildOutputs(t *testing.T) {
	enc := testenc.Encoding(t)
	cases, err := wild.Load("../testdata/wild")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(cases), 60, "cases in the corpus")
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			assert.NoError(t, wild.AtLeast(wildExtract(t, enc, caseInput(c)), c.Best), "%s (%s)", c.ID, c.Kind)
		})
	}
}

const (
	wildBegin = "<!-- wild: made by go test ./openaicompat -run TestWildREADME -update -->\n"
	wildEnd   = "<!-- wild: end -->\n"
)

// TestWildREADME checks that the README's account of the corpus (its size,
// sources, and the table of what this library returns where a peer fails)
// is what the corpus and the converter give now; -update rewrites it.
func TestWildREADME(t *testing.T) {
	enc := testenc.Encoding(t)
	cases, err := wild.Load("../testdata/wild")
	require.NoError(t, err)
	got := map[string]wild.Extraction{}
	for _, c := range cases {
		got[c.File] = wildExtract(t, enc, caseInput(c))
	}
	table, err := wild.Table(cases, got)
	require.NoError(t, err)
	projects, tests, issues := wild.Sources(cases)
	names := make([]string, 0, len(projects))
	for p := range projects {
		names = append(names, p)
	}
	sort.Strings(names)
	var src []string
	for _, p := range names {
		src = append(src, fmt.Sprintf("%s %d", p, projects[p]))
	}
	section := fmt.Sprintf("`testdata/wild/` holds %d real outputs, %d from other servers' test suites and %d\n"+
		"from issue trackers (by source: %s), one JSON file each with its\n"+
		"source, what each peer returns, and the best correct extraction. `go test` runs\n"+
		"them through the parser and `ChatCompletionFromTokens`, and each returns at\n"+
		"least the best peer's answer, tool calls and reasoning. Where a peer does worse:\n\n%s",
		len(cases), tests, issues, strings.Join(src, ", "), table)

	readme, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	before, rest, ok1 := strings.Cut(string(readme), wildBegin)
	old, after, ok2 := strings.Cut(rest, wildEnd)
	require.True(t, ok1 && ok2, "README.md lacks the markers %q and %q", wildBegin, wildEnd)
	if golden.Updating() {
		require.NoError(t, os.WriteFile("../README.md", []byte(before+wildBegin+section+wildEnd+after), 0o644))
		return
	}
	assert.Equal(t, old, section, "README.md's wild section is out of date (go test ./openaicompat -run TestWildREADME -update)")

}
