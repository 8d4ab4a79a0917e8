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
	if err != nil || len(files) == 0 {
		tb.Fatalf("no request fixtures: %v", err)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		var fx requestFixture
		if err := json.Unmarshal(data, &fx); err != nil {
			tb.Fatal(err)
		}
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
				if !errors.As(err, &re) {
					t.Fatalf("error is not a *RequestError: %v", err)
				}
				if fx.WantError == "" {
					t.Fatalf("unexpected error: %v", err)
				}
				if want := sentinelByCode(fx.WantError); want == nil || !errors.Is(err, want) || re.Code != fx.WantError {
					t.Fatalf("error %v (code %q) is not %q", err, re.Code, fx.WantError)
				}
				if !strings.HasPrefix(err.Error(), "openaicompat: ") {
					t.Errorf("error %q lacks the package prefix", err)
				}
				got = fmt.Sprintf("error\nmessage: %s\nindex: %d\nparam: %s\ncode: %s\nwire: %s",
					err, re.MessageIndex, re.Param, re.Code, marshalLine(errorBody(err)))
			case fx.WantError != "":
				t.Fatalf("no error, want %s", fx.WantError)
			default:
				toks, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
				if err != nil {
					t.Fatal(err)
				}
				// The conversation comes pruned: the renderer's own drop
				// rule changes nothing.
				kept, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, &harmony.RenderOptions{Reasoning: harmony.ReasoningKeepAll})
				if err != nil {
					t.Fatal(err)
				}
				if !equalTokens(toks, kept) {
					t.Error("rendering with ReasoningKeepAll differs: the conversation was not pruned")
				}
				if got, err = enc.Decode(toks); err != nil {
					t.Fatal(err)
				}
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
	if err != nil || len(files) == 0 {
		t.Fatalf("no output fixtures: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var fx outputFixture
			if err := json.Unmarshal(data, &fx); err != nil {
				t.Fatal(err)
			}
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
				if err != nil {
					t.Fatal(err)
				}
				if err := sameChatMessage(msg, whole.Choices[0].Message); err != nil {
					t.Error(err)
				}
				if finish != whole.Choices[0].FinishReason {
					t.Errorf("streamed finish reason %q, whole %q", finish, whole.Choices[0].FinishReason)
				}
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
				if err != nil {
					t.Fatal(err)
				}
				if got, want := marshalLine(final), marshalLine(resp); got != want {
					t.Errorf("streamed response\n%s differs from whole response\n%s", got, want)
				}
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
	if (whole == nil) != (stream == nil) || (whole != nil && whole.Error() != stream.Error()) {
		t.Errorf("%s: whole error %v, stream error %v", what, whole, stream)
	}
}
