package harmony

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// referenceTestData is where the reference's golden files live in a checkout
// with the shared folder beside it. They are read, never copied.
var referenceTestData = filepath.Join("..", "shared", "reference", "test-data")

func readGolden(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(referenceTestData, name))
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("reference golden files not found at %s (the shared folder is not beside this checkout)", referenceTestData)
	}
	require.NoError(t, err)
	// As the reference's own tests read them: CRLF folded, trailing space cut.
	return strings.TrimRight(strings.ReplaceAll(string(b), "\r\n", "\n"), " \t\r\n")
}

// goldenRenders maps each rendered-prompt golden file to the upstream
// conformance case that renders the same conversation (the scenario of the
// reference test that reads the file).
var goldenRenders = map[string]string{
	"test_simple_convo.txt":                              "test_simple_convo__1",
	"test_simple_convo_low_effort.txt":                   "test_simple_convo_with_effort__1",
	"test_simple_convo_medium_effort.txt":                "test_simple_convo_with_effort__2",
	"test_simple_convo_high_effort.txt":                  "test_simple_convo_with_effort__3",
	"test_simple_convo_low_effort_no_instruction.txt":    "test_simple_convo_with_effort__4",
	"test_simple_convo_medium_effort_no_instruction.txt": "test_simple_convo_with_effort__5",
	"test_simple_convo_high_effort_no_instruction.txt":   "test_simple_convo_with_effort__6",
	"test_reasoning_system_message.txt":                  "test_reasoning_system_message__1",
	"test_reasoning_system_message_no_instruction.txt":   "test_reasoning_system_message_no_instruction__1",
	"test_reasoning_system_message_with_dates.txt":       "test_reasoning_system_message_with_dates__1",
	"test_render_functions_with_parameters.txt":          "test_render_functions_with_parameters__1",
	"test_browser_and_python_tool.txt":                   "test_browser_and_python_tool__1",
	"test_browser_and_function_tool.txt":                 "test_browser_and_function_tool__1",
	"test_browser_tool_only.txt":                         "test_browser_tool_only__1",
	"test_dropping_cot_by_default.txt":                   "test_dropping_cot_by_default__1",
	"test_does_not_drop_if_ongoing_analysis.txt":         "test_does_not_drop_if_ongoing_analysis__1",
	"test_preserve_cot.txt":                              "test_preserve_cot__1",
	"test_no_tools.txt":                                  "test_no_tools__1",
	"test_keep_analysis_between_finals.txt":              "test_keep_analysis_between_final_messages__1",
}

// TestReferenceGoldenRenders renders each golden scenario and compares the
// decoded prompt with the reference's golden text.
func TestReferenceGoldenRenders(t *testing.T) {
	enc := mustEncoding(t)
	cases := map[string]*conformanceCase{}
	all := loadConformance(t, "upstream_tests.jsonl")
	for i := range all {
		cases[all[i].ID] = &all[i]
	}
	for file, id := range goldenRenders {
		t.Run(file, func(t *testing.T) {
			want := readGolden(t, file)
			c := cases[id]
			require.NotNil(t, c, "no upstream case %s", id)
			toks, err := runRender(enc, c)
			require.NoError(t, err)
			got, err := enc.Decode(toks)
			require.NoError(t, err)
			assert.Equal(t, want, got, "rendered text differs from %s", file)
		})
	}
}

func goldenIDs(t *testing.T, name string) []Token {
	var out []Token
	for _, f := range strings.Fields(readGolden(t, name)) {
		n, err := strconv.ParseUint(f, 10, 32)
		require.NoError(t, err)
		out = append(out, Token(n))
	}
	return out
}

// TestReferenceGoldenParses parses the golden completion token files.
func TestReferenceGoldenParses(t *testing.T) {
	enc := mustEncoding(t)
	t.Run("simple_reasoning_response", func(t *testing.T) {
		got, err := enc.ParseCompletion(goldenIDs(t, "test_simple_reasoning_response.txt"), RoleAssistant, nil)
		require.NoError(t, err)
		want := []Message{
			NewTextMessage(RoleAssistant, `User asks: "What is 2 + 2?" Simple arithmetic. Provide answer.`).WithChannel("analysis"),
			NewTextMessage(RoleAssistant, "2 + 2 = 4.").WithChannel("final"),
		}
		assert.Equal(t, want, got)
	})
	t.Run("simple_tool_call", func(t *testing.T) {
		got, err := enc.ParseCompletion(goldenIDs(t, "test_simple_tool_call.txt"), RoleAssistant, nil)
		require.NoError(t, err)
		want := []Message{
			NewTextMessage(RoleAssistant, `User asks: "What is the weather in Tokyo?" We need to use lookup_weather tool.`).WithChannel("analysis"),
			NewTextMessage(RoleAssistant, `{"location": "Tokyo"}`).WithChannel("analysis").WithRecipient("lookup_weather").WithContentType("code"),
		}
		assert.Equal(t, want, got)
	})
	t.Run("tool_response_parsing", func(t *testing.T) {
		text := readGolden(t, "test_tool_response_parsing.txt")
		toks := enc.EncodeWithSpecialTokens(text)
		back, _ := enc.Decode(toks)
		require.Equal(t, text, back, "decode(encode(text))")
		got, err := enc.ParseCompletion(toks, "", nil)
		require.NoError(t, err)
		want := []Message{NewToolMessage("browser.search", `{"result": "https://openai.com/"}`).WithChannel("commentary").WithRecipient("assistant")}
		assert.Equal(t, want, got)
	})
	t.Run("streamable_parser", func(t *testing.T) {
		toks := enc.EncodeWithSpecialTokens(readGolden(t, "test_streamable_parser.txt"))
		p, err := enc.NewStreamParser(RoleAssistant, nil)
		require.NoError(t, err)
		for _, tok := range toks {
			require.NoError(t, p.Process(tok))
		}
		require.Len(t, p.Messages(), 3)
		got := p.Messages()[1]
		assert.Equal(t, "browser.search", got.Recipient, "second message header: %+v", got)
		assert.Equal(t, "code", got.ContentType, "second message header: %+v", got)
		assert.Equal(t, "commentary", got.Channel, "second message header: %+v", got)
	})
}
