package openaicompat

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	enc := testenc.Encoding(t)
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
		require.NoError(t, DecodeRequest([]byte(tt.chat), &chat))
		var resp ResponsesRequest
		require.NoError(t, DecodeRequest([]byte(tt.responses), &resp))
		ce, err := chat.Matcher(enc, nil)
		require.NoError(t, err, "%s: chat", tt.name)
		re, err := resp.Matcher(enc, nil)
		require.NoError(t, err, "%s: responses", tt.name)
		for api, env := range map[string]*constrain.Envelope{"chat": ce, "responses": re} {
			for _, s := range tt.accept {
				assert.True(t, accepts(t, enc, env, s), "%s %s: refused %s", tt.name, api, s)
			}
			for _, s := range tt.refuse {
				assert.False(t, accepts(t, enc, env, s), "%s %s: accepted %s", tt.name, api, s)
			}
		}
	}
}

func TestRequestMatcherErrors(t *testing.T) {
	enc := testenc.Encoding(t)
	for body, want := range map[string]error{
		`{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","not":{}}}}]}`: constrain.ErrUnsupported,
		`{"model":"m","messages":[],"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":{"if":{}}}}}`:        constrain.ErrUnsupported,
		`{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"sometimes"}`:               ErrInvalidRequest,
		`{"model":"m","messages":[],"response_format":{"type":"xml"}}`:                                                              ErrInvalidRequest,
	} {
		var req ChatCompletionRequest
		require.NoError(t, DecodeRequest([]byte(body), &req))
		_, err := req.Matcher(enc, nil)
		assert.ErrorIs(t, err, want, body)
		if want == constrain.ErrUnsupported {
			var se *constrain.SchemaError
			assert.ErrorAs(t, err, &se, body)
		}
	}
}

// TestMatcherBudget: the schemas of a request share one budget. Each tool
// below compiles alone; together they pass the default budget, and the
// request is refused at the tool where it ran out, with the
// *constrain.SchemaError of its parameters.
func TestMatcherBudget(t *testing.T) {
	enc := testenc.Encoding(t)
	var params strings.Builder
	params.WriteString(`{"anyOf":[`)
	for i := range 400 {
		if i > 0 {
			params.WriteByte(',')
		}
		fmt.Fprintf(&params, `{"type":"string","pattern":"^p%d[a-z]*$"}`, i)
	}
	params.WriteString(`]}`)
	alone := &constrain.Budget{}
	_, err := constrain.CompileJSONSchema(enc, []byte(params.String()), &constrain.Options{Budget: alone})
	require.NoError(t, err)
	states, bytes := alone.Spent()
	k := min(constrain.DefaultMaxStates/states, constrain.DefaultMaxBytes/bytes) // tools that fit
	n := k + 2
	var body strings.Builder
	body.WriteString(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tool_choice":"required","tools":[`)
	for i := range n {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"type":"function","function":{"name":"f%d","parameters":%s}}`, i, params.String())
	}
	body.WriteString(`]}`)
	var req ChatCompletionRequest
	require.NoError(t, DecodeRequest([]byte(body.String()), &req))
	_, err = req.Matcher(enc, nil)
	var se *constrain.SchemaError
	require.ErrorAs(t, err, &se, "%d tools: want the budget's *constrain.SchemaError", n)
	require.ErrorIs(t, err, constrain.ErrTooComplex, "%d tools: want the budget's *constrain.SchemaError", n)
	assert.ErrorContains(t, err, fmt.Sprintf("(tools[%d])", k), "%d tools", n)
	// With a budget of its own, each compiles.
	_, err = req.Matcher(enc, &constrain.Options{Budget: &constrain.Budget{MaxStates: 1 << 30, MaxBytes: 1 << 40}})
	assert.NoError(t, err, "with a large budget")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = req.MatcherContext(ctx, enc, nil)
	assert.ErrorIs(t, err, context.Canceled, "canceled")
	assert.NotErrorAs(t, err, &se, "canceled")

}
