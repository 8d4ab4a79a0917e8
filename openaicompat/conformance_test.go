package openaicompat

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/conformance"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
)

// TestConformanceStreamsMatchWhole runs every parse and stream case of the
// reference's conformance file that harmony parses without error, in the
// case's mode and (for strict cases) in lenient mode too, and checks for
// each API that streaming and not streaming agree:
//
//   - the chat chunks concatenate to the message that the messages path
//     (newChatCompletionResponse, the oracle of messages_test.go) builds
//     from harmony's parse (content, reasoning, each tool call's id, name
//     and arguments, finish reason);
//   - the Responses events replay to the response that newResponse builds;
//   - ChatCompletionFromTokens and ResponseFromTokens equal them too (in
//     lenient mode only when the converter recovered nothing harmony drops);
//   - when the conversion fails (a message from another role, in strict
//     mode), both fail alike.
//
// Under -short and under the race detector, it runs every 4th case.
func TestConformanceStreamsMatchWhole(t *testing.T) {
	enc := testenc.Encoding(t)
	cases, err := conformance.Load(filepath.Join("..", "testdata", "conformance", "parse.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	every := 1
	if sample.Sampled() {
		every = 4
	}
	ran, failedAlike := 0, 0
	for _, c := range sample.Every(cases, every) {
		if c.Op != "parse" && c.Op != "stream" {
			continue
		}
		role := harmony.Role("")
		if c.Role != nil {
			role = harmony.Role(*c.Role)
		}
		toks := make([]harmony.Token, len(c.Tokens))
		for i, tk := range c.Tokens {
			toks[i] = harmony.Token(tk)
		}
		modes := []bool{c.Lenient()}
		if !c.Lenient() {
			modes = append(modes, true)
		}
		for _, lenient := range modes {
			// Lenient conversion parses in harmony's recovery mode.
			msgs, err := enc.ParseCompletion(toks, role, &harmony.ParseOptions{Mode: parseMode(lenient)})
			if err != nil {
				continue
			}
			ran++
			name := fmt.Sprintf("%s/lenient=%v", c.ID, lenient)
			opts := func() *ResponseOptions {
				return &ResponseOptions{Model: "m", Created: 1, IDGenerator: counter(), Strict: !lenient, ExpectStart: role == ""}
			}
			failed := checkChatConformance(t, name, enc, toks, msgs, opts)
			failed2 := checkResponsesConformance(t, name, enc, toks, msgs, opts)
			if failed != failed2 {
				t.Errorf("%s: chat failed %v, responses failed %v", name, failed, failed2)
			}
			if failed {
				failedAlike++
			}
		}
	}
	if ran < 300/every {
		t.Errorf("only %d cases ran", ran)
	}
	t.Logf("%d case runs: %d failed alike as malformed", ran, failedAlike)
}

// checkChatConformance reports whether the conversion failed; the token path
// must see the same messages as harmony's parser in the same mode.
func checkChatConformance(t *testing.T, name string, enc *harmony.Encoding, toks []harmony.Token, msgs []harmony.Message, opts func() *ResponseOptions) (failed bool) {
	t.Helper()
	whole, wholeErr := newChatCompletionResponse(msgs, Sampling{}, opts())
	chunks, streamErr := streamChat(enc, toks, Sampling{}, opts())
	fromTokens, tokErr := ChatCompletionFromTokens(enc, toks, Sampling{}, opts())
	c, _ := NewChatStreamConverter(enc, opts())
	for _, tk := range toks {
		c.Process(tk)
	}
	c.Finish(Sampling{})
	same := reflect.DeepEqual(c.Messages(), msgs) || (len(msgs) == 0 && len(c.Messages()) == 0)
	if !same && wholeErr == nil {
		t.Errorf("%s: the stream converter saw other messages than harmony", name)
	}
	if wholeErr != nil {
		if streamErr == nil || (same && (tokErr == nil || tokErr.Error() != wholeErr.Error())) {
			t.Errorf("%s: whole failed (%v), stream error %v, from tokens error %v", name, wholeErr, streamErr, tokErr)
		}
		return true
	}
	if streamErr != nil || tokErr != nil {
		t.Errorf("%s: whole succeeded, stream error %v, from tokens error %v", name, streamErr, tokErr)
		return false
	}
	m, finish, err := foldChunks(chunks)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return false
	}
	// The usage is counted from tokens; a response from messages has none.
	if u := fromTokens.Usage; u == nil || u.CompletionTokens != len(toks) {
		t.Errorf("%s: usage %s, want %d completion tokens", name, marshalLine(u), len(toks))
	}
	fromTokens.Usage = nil
	if a, b := marshalLine(fromTokens), marshalLine(whole); a != b {
		t.Errorf("%s: from tokens\n%s differs from parsed\n%s", name, a, b)
	}
	if err := sameChatMessage(m, whole.Choices[0].Message); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	if finish != whole.Choices[0].FinishReason {
		t.Errorf("%s: streamed finish %q, whole %q", name, finish, whole.Choices[0].FinishReason)
	}
	return false
}

func checkResponsesConformance(t *testing.T, name string, enc *harmony.Encoding, toks []harmony.Token, msgs []harmony.Message, opts func() *ResponseOptions) (failed bool) {
	t.Helper()
	whole, wholeErr := newResponse(msgs, Sampling{}, opts())
	events, streamErr := streamResponses(enc, toks, Sampling{}, opts())
	fromTokens, tokErr := ResponseFromTokens(enc, toks, Sampling{}, opts())
	c, _ := NewResponsesStreamConverter(enc, opts())
	for _, tk := range toks {
		c.Process(tk)
	}
	c.Finish(Sampling{})
	same := reflect.DeepEqual(c.Messages(), msgs) || (len(msgs) == 0 && len(c.Messages()) == 0)
	if wholeErr != nil {
		if streamErr == nil {
			t.Errorf("%s: whole failed (%v), stream did not", name, wholeErr)
		}
		return true
	}
	if streamErr != nil || tokErr != nil {
		t.Errorf("%s: whole succeeded, stream error %v, from tokens error %v", name, streamErr, tokErr)
		return false
	}
	final, err := foldEvents(events)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return false
	}
	if !same {
		t.Errorf("%s: the stream converter saw other messages than harmony", name)
	}
	if a, b := marshalLine(final), marshalLine(fromTokens); a != b {
		t.Errorf("%s: streamed\n%s differs from whole\n%s", name, a, b)
	}
	// The usage is counted from tokens; a response from messages has none.
	if u := fromTokens.Usage; u == nil || u.OutputTokens != len(toks) {
		t.Errorf("%s: usage %s, want %d output tokens", name, marshalLine(u), len(toks))
	}
	fromTokens.Usage = nil
	if a, b := marshalLine(fromTokens), marshalLine(whole); a != b {
		t.Errorf("%s: from tokens\n%s differs from parsed\n%s", name, a, b)
	}
	return false
}

// parseMode is the harmony parse mode of a conversion: recovery unless
// strict.
func parseMode(recover bool) harmony.ParseMode {
	if recover {
		return harmony.ParseRecover
	}
	return harmony.ParseStrict
}
