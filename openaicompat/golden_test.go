package openaicompat

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Golden tests. Each testdata/requests/NAME.json is a request with the
// options to convert it with; NAME.golden is the rendered prompt (decoded
// text) or the error. Each testdata/outputs/NAME.json is a completion (as
// text with special tokens, or as ids) with sampling facts and options;
// NAME.golden holds the chat response, the chat chunks, the Responses
// response and its events. go test -update rewrites the goldens; every
// change must be read before it is committed.

type requestFixture struct {
	Comment   string          `json:"comment"`
	API       string          `json:"api"` // "chat" or "responses"
	WantError string          `json:"want_error"`
	Options   *fixtureOptions `json:"options"`
	Request   json.RawMessage `json:"request"`
}

type fixtureOptions struct {
	Date             string `json:"date"`
	Cutoff           string `json:"cutoff"`
	Effort           string `json:"effort"`
	Browser          bool   `json:"browser"`
	Python           bool   `json:"python"`
	ImagePlaceholder string `json:"image_placeholder"`
	KeepReasoning    bool   `json:"keep_reasoning"`
}

func (f *fixtureOptions) requestOptions() *RequestOptions {
	if f == nil {
		return nil
	}
	return &RequestOptions{
		ConversationStartDate: f.Date,
		KnowledgeCutoff:       f.Cutoff,
		ReasoningEffort:       harmony.ReasoningEffort(f.Effort),
		BrowserTool:           f.Browser,
		PythonTool:            f.Python,
		ImagePlaceholder:      f.ImagePlaceholder,
		KeepReasoning:         f.KeepReasoning,
	}
}

// requestFixtures reads the request fixtures, testdata/requests/*.json,
// in the order of their file names; none is an error.
func requestFixtures(tb testing.TB) (files []string, fxs []requestFixture) {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	require.NoError(tb, err, "request fixtures")
	require.NotEmpty(tb, files, "no request fixtures")
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(tb, err)
		var fx requestFixture
		require.NoError(tb, json.Unmarshal(data, &fx), file)
		fxs = append(fxs, fx)
	}
	return files, fxs
}

func (fx *requestFixture) convert() (harmony.Conversation, error) {
	switch fx.API {
	case "chat":
		var r ChatCompletionRequest
		if err := json.Unmarshal(fx.Request, &r); err != nil {
			return harmony.Conversation{}, fmt.Errorf("fixture: %w", err)
		}
		return r.Conversation(fx.Options.requestOptions())
	case "responses":
		var r ResponsesRequest
		if err := json.Unmarshal(fx.Request, &r); err != nil {
			return harmony.Conversation{}, fmt.Errorf("fixture: %w", err)
		}
		return r.Conversation(fx.Options.requestOptions())
	}
	return harmony.Conversation{}, fmt.Errorf("fixture: unknown api %q", fx.API)
}

func TestRequestGolden(t *testing.T) {
	enc := testenc.Encoding(t)
	files, fxs := requestFixtures(t)
	for i, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		fx := fxs[i]
		t.Run(name, func(t *testing.T) {
			conv, err := fx.convert()
			var got string
			switch {
			case err != nil:
				var re *RequestError
				require.ErrorAs(t, err, &re, "error is not a *RequestError")
				require.NotEmpty(t, fx.WantError, "unexpected error: %v", err)
				want := sentinelByCode(fx.WantError)
				require.NotNil(t, want, "no sentinel has the code %q", fx.WantError)
				require.ErrorIs(t, err, want)
				require.Equal(t, fx.WantError, re.Code, "error %v: code", err)
				assert.True(t, strings.HasPrefix(err.Error(), "openaicompat: "), "error %q lacks the package prefix", err)
				got = fmt.Sprintf("error\nmessage: %s\nindex: %d\nparam: %s\ncode: %s\nwire: %s",
					err, re.MessageIndex, re.Param, re.Code, marshalLine(errorBody(err)))
			case fx.WantError != "":
				require.Error(t, err, "want %s", fx.WantError)
			default:
				toks, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
				require.NoError(t, err)
				// The conversation comes pruned: the renderer's own drop
				// rule changes nothing.
				kept, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, &harmony.RenderOptions{Reasoning: harmony.ReasoningKeepAll})
				require.NoError(t, err)
				assert.True(t, equalTokens(toks, kept), "rendering with ReasoningKeepAll differs: the conversation was not pruned")
				got, err = enc.Decode(toks)
				require.NoError(t, err)
			}
			checkGolden(t, strings.TrimSuffix(file, ".json")+".golden", got)
		})
	}
}

func equalTokens(a, b []harmony.Token) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

type outputFixture struct {
	Comment    string   `json:"comment"`
	Completion string   `json:"completion"` // text; special tokens written out
	Tokens     []uint32 `json:"tokens"`     // or ids
	Sampling   struct {
		Truncated    bool `json:"truncated"`
		PromptTokens int  `json:"prompt_tokens"`
		CachedTokens int  `json:"cached_tokens"`
	} `json:"sampling"`
	Options struct {
		Lenient          bool   `json:"lenient"`
		ExcludeReasoning bool   `json:"exclude_reasoning"`
		ReasoningField   string `json:"reasoning_field"`
		StreamUsage      bool   `json:"stream_usage"`
		ExpectStart      bool   `json:"expect_start"`
	} `json:"options"`
}

func (fx *outputFixture) tokens(enc *harmony.Encoding) []harmony.Token {
	if fx.Tokens != nil {
		out := make([]harmony.Token, len(fx.Tokens))
		for i, t := range fx.Tokens {
			out[i] = harmony.Token(t)
		}
		return out
	}
	return enc.EncodeWithSpecialTokens(fx.Completion)
}

func (fx *outputFixture) sampling() Sampling {
	s := fx.Sampling
	return Sampling{Truncated: s.Truncated, PromptTokens: s.PromptTokens, CachedTokens: s.CachedTokens}
}

// responseOptions returns fresh options with deterministic ids and time.
func (fx *outputFixture) responseOptions() *ResponseOptions {
	o := fx.Options
	return &ResponseOptions{Model: "gpt-oss-120b", Created: 1700000000, IDGenerator: counter(),
		Strict: !o.Lenient, ExcludeReasoning: o.ExcludeReasoning, ReasoningField: ReasoningField(o.ReasoningField),
		StreamUsage: o.StreamUsage, ExpectStart: o.ExpectStart}
}

func TestOutputGolden(t *testing.T) {
	enc := testenc.Encoding(t)
	files, err := filepath.Glob(filepath.Join("testdata", "outputs", "*.json"))
	require.NoError(t, err, "output fixtures")
	require.NotEmpty(t, files, "no output fixtures")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			var fx outputFixture
			require.NoError(t, json.Unmarshal(data, &fx))
			toks := fx.tokens(enc)
			s := fx.sampling()
			var b strings.Builder

			b.WriteString("== chat\n")
			whole, wholeErr := ChatCompletionFromTokens(enc, toks, s, fx.responseOptions())
			writeResult(&b, whole, wholeErr)
			b.WriteString("== chat chunks\n")
			chunks, streamErr := streamChat(enc, toks, s, fx.responseOptions())
			for _, c := range chunks {
				b.WriteString(marshalLine(c))
			}
			if streamErr != nil {
				fmt.Fprintf(&b, "error: %v\n", streamErr)
			}
			checkSameOutcome(t, "chat", wholeErr, streamErr)
			if wholeErr == nil && streamErr == nil {
				msg, finish, err := foldChunks(chunks)
				require.NoError(t, err)
				assert.NoError(t, sameChatMessage(msg, whole.Choices[0].Message))
				assert.Equal(t, whole.Choices[0].FinishReason, finish, "streamed finish reason")
			}

			b.WriteString("== responses\n")
			resp, wholeErr := ResponseFromTokens(enc, toks, s, fx.responseOptions())
			writeResult(&b, resp, wholeErr)
			b.WriteString("== responses events\n")
			events, streamErr := streamResponses(enc, toks, s, fx.responseOptions())
			for _, e := range events {
				b.WriteString(marshalLine(e))
			}
			if streamErr != nil {
				fmt.Fprintf(&b, "error: %v\n", streamErr)
			}
			checkSameOutcome(t, "responses", wholeErr, streamErr)
			if wholeErr == nil && streamErr == nil {
				final, err := foldEvents(events)
				require.NoError(t, err)
				assert.Equal(t, marshalLine(resp), marshalLine(final), "streamed response differs from whole response")
			}
			checkGolden(t, strings.TrimSuffix(file, ".json")+".golden", b.String())
		})
	}
}

func writeResult(b *strings.Builder, v any, err error) {
	if err != nil {
		fmt.Fprintf(b, "error: %v\n", err)
		var oe *OutputError
		if !errors.As(err, &oe) {
			b.WriteString("(not an *OutputError)\n")
		}
		return
	}
	b.WriteString(marshalIndent(v))
}

func checkSameOutcome(t *testing.T, what string, whole, stream error) {
	t.Helper()
	if whole == nil {
		assert.NoError(t, stream, "%s: the whole conversion succeeded, the stream", what)
	} else {
		assert.EqualError(t, stream, whole.Error(), "%s: the stream's error, want the whole conversion's", what)
	}

}
