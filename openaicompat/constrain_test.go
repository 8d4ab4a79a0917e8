package openaicompat

import (
	"errors"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
)

// accepts reports whether env accepts the completion text (special tokens
// written out) to its end.
func accepts(t *testing.T, enc *harmony.Encoding, env *constrain.Envelope, text string) bool {
	t.Helper()
	env.Reset()
	for _, tok := range enc.EncodeWithSpecialTokens(text) {
		if env.Accept(tok) != nil {
			return false
		}
	}
	return env.CanEnd()
}

func TestRequestMatcher(t *testing.T) {
	enc := mustEncoding(t)
	const tools = `"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}},{"type":"function","function":{"name":"ping"}}]`
	const (
		call  = `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Oslo"}<|call|>`
		bad   = `<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"town":"Oslo"}<|call|>`
		ping  = `<|channel|>commentary to=functions.ping <|constrain|>json<|message|>{}<|call|>`
		final = `<|channel|>final<|message|>Sunny.<|return|>`
		obj   = `<|channel|>final<|message|>{"ok": true}<|return|>`
	)
	tests := []struct {
		name, chat, responses string
		accept, refuse        []string
	}{
		{"auto", `{"model":"m","messages":[{"role":"user","content":"hi"}],` + tools + `}`,
			`{"model":"m","input":"hi","tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}},{"type":"function","name":"ping"}]}`,
			[]string{call, ping, final}, []string{bad}},
		{"none", `{"model":"m","messages":[{"role":"user","content":"hi"}],` + tools + `,"tool_choice":"none"}`,
			`{"model":"m","input":"hi","tools":[{"type":"function","name":"ping"}],"tool_choice":"none"}`,
			[]string{final}, []string{ping}},
		{"required", `{"model":"m","messages":[{"role":"user","content":"hi"}],` + tools + `,"tool_choice":"required"}`,
			`{"model":"m","input":"hi","tools":[{"type":"function","name":"ping"}],"tool_choice":"required"}`,
			[]string{ping}, []string{final}},
		{"named", `{"model":"m","messages":[{"role":"user","content":"hi"}],` + tools + `,"tool_choice":{"type":"function","function":{"name":"ping"}}}`,
			`{"model":"m","input":"hi","tools":[{"type":"function","name":"ping"},{"type":"function","name":"pong"}],"tool_choice":{"type":"function","name":"ping"}}`,
			[]string{ping}, []string{final, call}},
		{"json_object", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_object"}}`,
			`{"model":"m","input":"hi","text":{"format":{"type":"json_object"}}}`,
			[]string{obj}, []string{final, ping}},
		{"json_schema", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}}`,
			`{"model":"m","input":"hi","text":{"format":{"type":"json_schema","name":"r","schema":{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}}}}`,
			[]string{obj}, []string{final, `<|channel|>final<|message|>{}<|return|>`}},
	}
	for _, tt := range tests {
		var chat ChatCompletionRequest
		if err := DecodeRequest([]byte(tt.chat), &chat); err != nil {
			t.Fatal(err)
		}
		var resp ResponsesRequest
		if err := DecodeRequest([]byte(tt.responses), &resp); err != nil {
			t.Fatal(err)
		}
		ce, err := chat.Matcher(enc, nil)
		if err != nil {
			t.Fatalf("%s: chat: %v", tt.name, err)
		}
		re, err := resp.Matcher(enc, nil)
		if err != nil {
			t.Fatalf("%s: responses: %v", tt.name, err)
		}
		for api, env := range map[string]*constrain.Envelope{"chat": ce, "responses": re} {
			for _, s := range tt.accept {
				if !accepts(t, enc, env, s) {
					t.Errorf("%s %s: refused %s", tt.name, api, s)
				}
			}
			for _, s := range tt.refuse {
				if accepts(t, enc, env, s) {
					t.Errorf("%s %s: accepted %s", tt.name, api, s)
				}
			}
		}
	}
}

func TestRequestMatcherErrors(t *testing.T) {
	enc := mustEncoding(t)
	for body, want := range map[string]error{
		`{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","not":{}}}}]}`: constrain.ErrUnsupported,
		`{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":{"if":{}}}}}`:        constrain.ErrUnsupported,
		`{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"sometimes"}`:               ErrInvalidRequest,
		`{"model":"m","messages":[],"response_format":{"type":"xml"}}`:                                                              ErrInvalidRequest,
	} {
		var req ChatCompletionRequest
		if err := DecodeRequest([]byte(body), &req); err != nil {
			t.Fatal(err)
		}
		_, err := req.Matcher(enc, nil)
		if !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", body, err, want)
		}
		var se *constrain.SchemaError
		if want == constrain.ErrUnsupported && !errors.As(err, &se) {
			t.Errorf("%s: %v is not a *constrain.SchemaError", body, err)
		}
	}
}
