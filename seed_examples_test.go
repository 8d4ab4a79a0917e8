// The cases of TestSeedExamples are the examples of OpenAI's harmony guide
// ("OpenAI harmony response format"; the copy in seeds/003_c3b52ba41ad376d5.txt
// of the shared folder, a Japanese translation whose code blocks are intact):
// every code block that shows harmony text — full prompts, single messages
// and sampled completions — turned into a test case in testdata/seed_examples.
// A render case rebuilds the conversation the example shows and must render to
// the example's text; a parse case parses the example's completion. Where the
// guide's text is not what the reference (openai/harmony v0.0.8) renders or
// parses, the case says why in "guide_differs", keeps the guide's text in
// "guide_text" and expects the reference's behaviour.

package harmony

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seedExample is one file of testdata/seed_examples.
type seedExample struct {
	Source string `json:"source"`
	Kind   string `json:"kind"` // "render" or "parse"

	// render: Op is "render_completion" (with Role), "render",
	// "render_training" or "render_message" (the single message of
	// Conversation, rendered with ConversationHasFunctionTools).
	Op                           string        `json:"op"`
	Role                         *Role         `json:"role"`
	KeepAnalysis                 bool          `json:"keep_analysis"`
	ConversationHasFunctionTools bool          `json:"conversation_has_function_tools"`
	Conversation                 *Conversation `json:"conversation"`
	ExpectText                   *string       `json:"expect_text"`

	// parse: TokensText is encoded with special tokens allowed; Tokens, when
	// given (the guide's own token ids), must be that encoding.
	TokensText     *string   `json:"tokens_text"`
	Tokens         []Token   `json:"tokens"`
	ExpectMessages []Message `json:"expect_messages"`

	// GuideText is the guide's literal text where it differs from what the
	// reference produces; GuideDiffers explains why.
	GuideText      *string `json:"guide_text"`
	GuideDiffers   string  `json:"guide_differs"`
	LibrarySuspect string  `json:"library_suspect"`
}

func loadSeedExamples(t *testing.T) map[string]*seedExample {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "seed_examples", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no files in testdata/seed_examples")
	out := make(map[string]*seedExample, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		var ex seedExample
		require.NoError(t, dec.Decode(&ex), f)
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = &ex
	}
	return out
}

func TestSeedExamples(t *testing.T) {
	enc := mustEncoding(t)
	examples := loadSeedExamples(t)
	names := make([]string, 0, len(examples))
	for name := range examples {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		ex := examples[name]
		t.Run(name, func(t *testing.T) {
			require.NotEmpty(t, ex.Source, "missing \"source\"")
			require.Equal(t, ex.GuideDiffers != "", ex.GuideText != nil, "\"guide_text\" and \"guide_differs\" go together")
			require.Empty(t, ex.LibrarySuspect, "library suspect (a bug to fix, not to skip)")
			switch ex.Kind {
			case "render":
				seedRender(t, enc, ex)
			case "parse":
				seedParse(t, enc, ex)
			default:
				require.Failf(t, "unknown kind", "%q", ex.Kind)
			}
		})
	}
}

func seedRender(t *testing.T, enc *Encoding, ex *seedExample) {
	t.Helper()
	require.NotNil(t, ex.Conversation, "a render case needs \"conversation\" and \"expect_text\"")
	require.NotNil(t, ex.ExpectText, "a render case needs \"conversation\" and \"expect_text\"")
	opts := &RenderOptions{}
	if ex.KeepAnalysis {
		opts.Reasoning = ReasoningKeepAll
	}
	var toks []Token
	var err error
	switch ex.Op {
	case "render_completion":
		require.NotNil(t, ex.Role, "render_completion needs \"role\"")
		toks, err = enc.RenderConversationForCompletion(*ex.Conversation, *ex.Role, opts)
	case "render":
		toks, err = enc.RenderConversation(*ex.Conversation, opts)
	case "render_training":
		toks, err = enc.RenderConversationForTraining(*ex.Conversation, opts)
	case "render_message":
		require.Len(t, ex.Conversation.Messages, 1, "render_message needs exactly one message")
		toks, err = enc.RenderMessage(ex.Conversation.Messages[0], &MessageOptions{ConversationHasFunctionTools: ex.ConversationHasFunctionTools})
	default:
		require.Failf(t, "unknown op", "%q", ex.Op)
	}
	require.NoError(t, err)
	got, err := enc.Decode(toks)
	require.NoError(t, err)
	assert.Equal(t, *ex.ExpectText, got, "rendered text differs\n%s", seedFirstDiff(got, *ex.ExpectText))
	if ex.GuideText != nil {
		assert.NotEqual(t, *ex.GuideText, got, "the guide's text is what we render: \"guide_differs\" is stale")
	}
}

func seedParse(t *testing.T, enc *Encoding, ex *seedExample) {
	t.Helper()
	require.NotNil(t, ex.TokensText, "a parse case needs \"tokens_text\" and \"expect_messages\"")
	require.NotNil(t, ex.ExpectMessages, "a parse case needs \"tokens_text\" and \"expect_messages\"")
	var role Role
	if ex.Role != nil {
		role = *ex.Role
	}
	toks := enc.EncodeWithSpecialTokens(*ex.TokensText)
	if ex.Tokens != nil {
		assert.True(t, slices.Equal(toks, ex.Tokens), "tokens_text encodes to\n%v\nthe guide's tokens are\n%v", toks, ex.Tokens)
	}
	got, err := enc.ParseCompletion(toks, role, nil)
	require.NoError(t, err)
	assert.Equal(t, ex.ExpectMessages, got, "parsed messages differ")
	if ex.GuideText != nil {
		// A completion the reference parses would be the expected messages
		// themselves; the guide's text differs when the reference rejects it.
		msgs, err := enc.ParseCompletion(enc.EncodeWithSpecialTokens(*ex.GuideText), role, nil)
		assert.Error(t, err, "the guide's text parses (to %+v): \"guide_differs\" is stale", msgs)
	}
}

// seedFirstDiff shows where two texts first differ.
func seedFirstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	lo := max(0, i-40)
	return "first difference at byte " + strconv.Itoa(i) + ":\n got ..." + quoteTail(got[lo:], 80) + "\nwant ..." + quoteTail(want[lo:], 80)
}

func quoteTail(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	b, _ := json.Marshal(s)
	return string(b)
}
