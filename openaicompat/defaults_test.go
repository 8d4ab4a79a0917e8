package openaicompat

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
)

// TestDefaultsRecover sends a completion with a slip gpt-oss makes (the
// <|start|>assistant before the call forgotten) through every path a
// server takes, with the options it gets without asking: the zero value,
// nil, and each request's ResponseOptions. Each recovers the call; with
// Strict each fails with the typed error.
func TestDefaultsRecover(t *testing.T) {
	enc := testenc.Encoding(t)
	toks := enc.EncodeWithSpecialTokens(`<|channel|>analysis<|message|>Need weather.<|end|>` +
		`<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`)
	var chatReq ChatCompletionRequest
	if err := DecodeRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"Weather?"}],
		"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}`), &chatReq); err != nil {
		t.Fatal(err)
	}
	var respReq ResponsesRequest
	if err := DecodeRequest([]byte(`{"model":"m","input":"Weather?",
		"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}}]}`), &respReq); err != nil {
		t.Fatal(err)
	}
	chatOpts, respOpts := chatReq.ResponseOptions(), respReq.ResponseOptions()
	for name, opts := range map[string]*ResponseOptions{"nil": nil, "zero": {}, "chat request": &chatOpts, "responses request": &respOpts} {
		chat, err := ChatCompletionFromTokens(enc, toks, Sampling{}, opts)
		if err != nil {
			t.Fatalf("%s: ChatCompletionFromTokens: %v", name, err)
		}
		m := chat.Choices[0].Message
		if m.Reasoning != "Need weather." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != "get_weather" ||
			m.ToolCalls[0].Function.Arguments != `{"city":"Oslo"}` || chat.Choices[0].FinishReason != FinishToolCalls {
			t.Errorf("%s: chat %s", name, marshalLine(chat))
		}
		resp, err := ResponseFromTokens(enc, toks, Sampling{}, opts)
		if err != nil {
			t.Fatalf("%s: ResponseFromTokens: %v", name, err)
		}
		if len(resp.Output) != 2 || resp.Output[0].Type != "reasoning" || resp.Output[1].Type != "function_call" ||
			resp.Output[1].Arguments != `{"city":"Oslo"}` {
			t.Errorf("%s: response %s", name, marshalLine(resp))
		}
		chunks, err := streamChat(enc, toks, Sampling{}, opts)
		if err != nil {
			t.Fatalf("%s: chat stream: %v", name, err)
		}
		folded, finish, err := foldChunks(chunks)
		if err != nil || folded.Reasoning != "Need weather." || len(folded.ToolCalls) != 1 ||
			folded.ToolCalls[0].Function.Arguments != `{"city":"Oslo"}` || finish != FinishToolCalls {
			t.Errorf("%s: chat stream %v %s", name, err, marshalLine(chunks))
		}
		events, err := streamResponses(enc, toks, Sampling{}, opts)
		if err != nil || events[len(events)-1].Type != "response.completed" ||
			!strings.Contains(marshalLine(events[len(events)-1]), `"arguments":"{\"city\":\"Oslo\"}"`) {
			t.Errorf("%s: responses stream %v %s", name, err, marshalLine(events))
		}
	}

	strict := &ResponseOptions{Strict: true}
	var oe *OutputError
	var pe *harmony.ParseError
	if _, err := ChatCompletionFromTokens(enc, toks, Sampling{}, strict); !errors.As(err, &oe) || !errors.As(err, &pe) {
		t.Errorf("strict chat: %v", err)
	}
	if _, err := ResponseFromTokens(enc, toks, Sampling{}, strict); !errors.As(err, &oe) {
		t.Errorf("strict responses: %v", err)
	}
	if _, err := streamChat(enc, toks, Sampling{}, strict); !errors.As(err, &oe) {
		t.Errorf("strict chat stream: %v", err)
	}
	if _, err := streamResponses(enc, toks, Sampling{}, strict); !errors.As(err, &oe) {
		t.Errorf("strict responses stream: %v", err)
	}
}
