package openaicompat

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/internal/testsupport/wild"
)

// wildSetException is a case of the sets judged wrongly labelled: it reads
// as got, by the rule why names, instead of as the set expects.
type wildSetException struct {
	why string
	got wild.Extraction
}

// wildSetExceptions are the cases judged wrongly labelled, by the set and
// id of each.
var wildSetExceptions = map[string]wildSetException{
	"set-2026-11-23.jsonl/vllm-recipient-assistant-not-a-call": {
		"an assistant message to=assistant off the final channel (a tool's reply the model made up, " +
			"ended by <|call|>) is analysis: neither answer nor call, but the model's own text, kept as " +
			"reasoning like any other text recovery cannot place; the set drops it",
		wild.Extraction{Content: "Here is the answer", Reasoning: "Some tool response"}},
	"set-2026-11-23.jsonl/vllm-recipient-browser-builtin": {
		"browser is called only as browser.TOOL (toolname, rule (c)), and a message whose to= names " +
			"no tool is analysis, never content nor a call; the set drops it or calls \"browser\"",
		wild.Extraction{Reasoning: "Ignore this"}},
	"set-2026-11-23.jsonl/llamacpp-25321-bare-final-text": {
		"text outside any header is analysis unless the caller says the prompt prefilled the final " +
			"header (issue 21, point 5): without that the safe reading is reasoning",
		wild.Extraction{Reasoning: "Hello, world!\nWhat's up?"}},
	"set-2026-11-23.jsonl/llamacpp-25321-bare-final-json": {
		"as llamacpp-25321-bare-final-text: bare output is the answer only after a prefilled final header",
		wild.Extraction{Reasoning: `{"status": "ok", "items": [1, 2, 3]}`}},
	"set-2026-11-23.jsonl/tiles-145-reasoning-after-constrain": {
		"header words are never text, and the text around them is kept: the words after " +
			"<|constrain|>write: are the model's reasoning (harmony PR #114), a header without <|message|> " +
			"addressed to a tool is analysis; the set drops them (set-2026-11-27's copy does not score them)",
		wild.Extraction{Reasoning: "edit file with content.", ToolCalls: []wild.ToolCall{{Name: "write", Arguments: `{"path":"notes.txt","content":"hi"}`}}}},
}

// setInput is the input of a case of a set.
func setInput(c wild.SetCase) wildInput {
	return wildInput{id: c.ID, start: c.Start, text: c.Text, tokens: c.Tokens,
		functions: c.Tools, builtins: c.Builtins, truncated: c.Truncated}
}

// TestWildSets converts every case of the two sets of real outputs in
// testdata/wild/sets (copied from ../shared/wild) and checks that each
// reads as its expected reading or one the set accepts, but for the
// documented exceptions, which must read as their reason says they do not.
func TestWildSets(t *testing.T) {
	enc := testenc.Encoding(t)
	files, err := filepath.Glob("../testdata/wild/sets/set-*.jsonl")
	require.NoError(t, err)
	require.Len(t, files, 2)
	pass, total := 0, 0
	for _, f := range files {
		cases, err := wild.LoadSet(f)
		require.NoError(t, err)
		for _, c := range cases {
			total++
			t.Run(c.Set+"/"+c.ID, func(t *testing.T) {
				got := wildExtract(t, enc, setInput(c))
				_, err := c.Match(got)
				if e, ok := wildSetExceptions[c.Set+"/"+c.ID]; ok {
					assert.Error(t, err, "%s is an exception (%s) but reads as expected", c.ID, e.why)
					assert.Equal(t, e.got, got, "%s: %s", c.ID, e.why)
					return
				}
				if assert.NoError(t, err, c.ID) {
					pass++
				}
			})
		}
	}
	t.Logf("%d of %d cases read as expected, %d exceptions", pass, total, len(wildSetExceptions))
	assert.Equal(t, total, pass+len(wildSetExceptions), "every case reads as expected or is an exception")
}
