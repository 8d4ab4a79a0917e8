package openaicompat

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
)

// fuzzTokens turns fuzz bytes into token ids, two bytes each, weighted
// towards what makes harmony structure: special tokens, header words,
// halves of UTF-8 characters, and now and then any id at all.
func fuzzTokens(enc *harmony.Encoding, data []byte) []harmony.Token {
	specials := []harmony.Token{harmony.TokenStart, harmony.TokenEnd, harmony.TokenMessage, harmony.TokenChannel,
		harmony.TokenConstrain, harmony.TokenReturn, harmony.TokenCall, 200013, 201088, 300000}
	var words []harmony.Token
	for _, w := range []string{"assistant", "user", "functions.f", "final", "analysis", "commentary", " to=functions.get",
		" to=", "python", "json", " ", "hello", "{\"", "\"}", "\n"} {
		words = append(words, enc.EncodeOrdinary(w)...)
	}
	words = append(words, 127, 102) // the two bytes of "é"
	var out []harmony.Token
	for i := 0; i+1 < len(data); i += 2 {
		a, b := data[i], data[i+1]
		switch a % 4 {
		case 0:
			out = append(out, specials[int(b)%len(specials)])
		case 3:
			out = append(out, harmony.Token(uint32(a)<<10|uint32(b)<<2))
		default:
			out = append(out, words[int(b)%len(words)])
		}
	}
	return out
}

// FuzzStreamConverters feeds random tokens to both stream converters in
// every mode: they must never panic, must fail exactly when the whole
// conversion fails, and must otherwise stream what the whole conversion
// returns.
func FuzzStreamConverters(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 0, 3, 1, 4, 0, 2, 1, 11, 0, 5})
	f.Add([]byte{1, 6, 0, 2, 1, 11, 0, 1, 0, 0, 1, 0, 0, 3, 1, 5, 0, 2, 1, 14, 0, 6})
	f.Add([]byte{1, 3, 1, 7, 0, 2, 3, 255, 1, 15, 1, 16, 0, 9})
	f.Add([]byte("random text that becomes ordinary tokens"))
	enc := mustEncoding(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		toks := fuzzTokens(enc, data)
		for mode := 0; mode < 8; mode++ {
			lenient, expectStart, truncated := mode&1 != 0, mode&2 != 0, mode&4 != 0
			opts := func() *ResponseOptions {
				return &ResponseOptions{Created: 1, IDGenerator: counter(), Lenient: lenient, ExpectStart: expectStart}
			}
			s := Sampling{Truncated: truncated}
			whole, wholeErr := ChatCompletionFromTokens(enc, toks, s, opts())
			chunks, streamErr := streamChat(enc, toks, s, opts())
			if (wholeErr == nil) != (streamErr == nil) || (wholeErr != nil && wholeErr.Error() != streamErr.Error()) {
				t.Fatalf("mode %d: whole error %v, stream error %v", mode, wholeErr, streamErr)
			}
			if lenient && wholeErr != nil && !errors.Is(wholeErr, ErrStreamFinished) {
				// Lenient conversion recovers everything but a parser that
				// cannot be created.
				t.Fatalf("mode %d: lenient conversion failed: %v", mode, wholeErr)
			}
			if wholeErr == nil {
				m, finish, err := foldChunks(chunks)
				if err != nil {
					t.Fatalf("mode %d: %v", mode, err)
				}
				if err := sameChatMessage(m, whole.Choices[0].Message); err != nil || finish != whole.Choices[0].FinishReason {
					t.Fatalf("mode %d: %v (finish %q vs %q)", mode, err, finish, whole.Choices[0].FinishReason)
				}
			}
			resp, wholeErr := ResponseFromTokens(enc, toks, s, opts())
			events, streamErr := streamResponses(enc, toks, s, opts())
			if (wholeErr == nil) != (streamErr == nil) {
				t.Fatalf("mode %d: whole error %v, stream error %v", mode, wholeErr, streamErr)
			}
			if wholeErr == nil {
				final, err := foldEvents(events)
				if err != nil {
					t.Fatalf("mode %d: %v", mode, err)
				}
				if a, b := marshalLine(final), marshalLine(resp); a != b {
					t.Fatalf("mode %d: streamed %s != whole %s", mode, a, b)
				}
			}
		}
	})
}

// requestSeeds adds the request fixtures as seeds.
func requestSeeds(f *testing.F, api string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "requests", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		var fx requestFixture
		if err := json.Unmarshal(data, &fx); err != nil {
			f.Fatal(err)
		}
		if fx.API == api {
			f.Add(string(fx.Request))
		}
	}
}

// checkConverted checks the outcome of converting a fuzzed request: a
// *RequestError, or a conversation that renders, the same with and without
// harmony's own analysis dropping.
func checkConverted(t *testing.T, enc *harmony.Encoding, conv harmony.Conversation, err error) {
	if err != nil {
		var re *RequestError
		if !errors.As(err, &re) || !strings.HasPrefix(err.Error(), "openaicompat: ") || re.Code == "" {
			t.Fatalf("bad error %T %v", err, err)
		}
		return
	}
	a, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	if err != nil {
		t.Fatalf("a converted conversation does not render: %v", err)
	}
	b, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, &harmony.RenderOptions{KeepAnalysis: true})
	if err != nil || !equalTokens(a, b) {
		t.Fatalf("KeepAnalysis changes the rendering (%v)", err)
	}
}

// FuzzChatRequest converts random JSON as a chat request.
func FuzzChatRequest(f *testing.F) {
	requestSeeds(f, "chat")
	f.Add(`{"messages":[{"role":"assistant","tool_calls":[{"id":"","function":{"name":"a b"}}]}]}`)
	enc := mustEncoding(f)
	f.Fuzz(func(t *testing.T, body string) {
		var req ChatCompletionRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		for _, opts := range []*RequestOptions{nil, {ImagePlaceholder: "[image]", BrowserTool: true, PythonTool: true, KeepReasoning: true}} {
			conv, err := req.Conversation(opts)
			if opts != nil && opts.KeepReasoning && err == nil {
				if _, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil); err != nil {
					t.Fatal(err)
				}
				continue
			}
			checkConverted(t, enc, conv, err)
		}
	})
}

// FuzzResponsesRequest converts random JSON as a Responses request.
func FuzzResponsesRequest(f *testing.F) {
	requestSeeds(f, "responses")
	f.Add(`{"input":[{"type":"reasoning","content":[{"type":"input_image"}]}]}`)
	enc := mustEncoding(f)
	f.Fuzz(func(t *testing.T, body string) {
		var req ResponsesRequest
		if json.Unmarshal([]byte(body), &req) != nil {
			return
		}
		conv, err := req.Conversation(&RequestOptions{ImagePlaceholder: "[image]"})
		checkConverted(t, enc, conv, err)
	})
}
