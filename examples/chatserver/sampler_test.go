package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/constrain"
	"github.com/go-harmony/harmony/internal/testsupport/maskbench"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/jsonschema"
	"github.com/go-harmony/harmony/openaicompat"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// builtinSchemas are tool parameters and response formats of the kinds
// requests carry.
var builtinSchemas = []string{
	`{"type":"object","properties":{"city":{"type":"string","minLength":1},"unit":{"enum":["celsius","fahrenheit"]}},"required":["city"],"additionalProperties":false}`,
	`{"type":"object","properties":{"query":{"type":"string","maxLength":40},"limit":{"type":"integer","minimum":1,"maximum":50},"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]{2,8}$"},"maxItems":4}},"required":["query","limit"],"additionalProperties":false}`,
	`{"type":"object","properties":{"id":{"type":"string","format":"uuid"},"when":{"type":"string","format":"date-time"},"amount":{"type":"number","exclusiveMinimum":0},"meta":{"type":"object","additionalProperties":{"type":["string","boolean","null"]}}},"required":["id","amount"],"additionalProperties":false}`,
	`{"type":"object","properties":{"steps":{"type":"array","minItems":1,"maxItems":3,"items":{"type":"object","properties":{"action":{"const":"move"},"dx":{"type":"integer"}},"required":["action","dx"]}}},"required":["steps"]}`,
	`{"anyOf":[{"type":"object","properties":{"ok":{"const":true},"value":{"type":"string"}},"required":["ok","value"]},{"type":"object","properties":{"ok":{"const":false},"error":{"type":"string"}},"required":["ok","error"]}]}`,
}

// propertySchemas returns the built-in schemas and, when MaskBench is
// there, n of its schemas that constrain compiles, spread over the file.
func propertySchemas(t *testing.T, enc *harmony.Encoding, n int) []string {
	schemas := append([]string(nil), builtinSchemas...)
	entries, err := maskbench.Load(maskbench.Path(2), 997)
	if err != nil {
		t.Logf("no MaskBench (%v): built-in schemas only", err)
		return schemas
	}
	for _, e := range entries {
		if n == 0 {
			break
		}
		if len(e.Schema) == 0 || e.Schema[0] != '{' || len(e.Schema) > 8<<10 {
			continue
		}
		// The sampler cannot find the required keys of an object open to
		// any key: it writes random keys for ever. Take schemas whose
		// objects with required keys are closed (roughly: by count).
		if bytes.Count(e.Schema, []byte(`"required"`)) > bytes.Count(e.Schema, []byte(`"additionalProperties":false`)) {
			continue
		}
		if _, err := constrain.CompileJSONSchema(enc, e.Schema, nil); err != nil {
			continue
		}
		schemas = append(schemas, string(e.Schema))
		n--
	}
	return schemas
}

// TestSampledCompletions is the proof by sampling: over seeds, schemas and
// tool choices, every completion the -sample model draws under a request's
// Envelope parses strictly, calls only an allowed function with arguments
// that pass the validator, answers in the response format, and obeys
// tool_choice. It draws 6 seeds per scenario, with 8 MaskBench schemas
// besides the built-in ones, and gives up on a completion after 2048
// tokens; under -short and under the race detector, 1 seed with 2 MaskBench
// schemas, after 512 tokens (the completions that end at all end well
// before: only the unfinished ones are cut shorter).
func TestSampledCompletions(t *testing.T) {
	enc := testenc.Encoding(t)
	seeds, fromMaskBench, hard := 6, 8, 2048
	if sample.Sampled() {
		seeds, fromMaskBench, hard = 1, 2, 512
	}
	schemas := propertySchemas(t, enc, fromMaskBench)
	s := newSampler(enc, 0)
	s.hard = hard
	unfinished := 0
	v := jsonschema.New(nil)
	completions, tokens := 0, 0
	for i, schema := range schemas {
		other := schemas[(i+1)%len(schemas)]
		tools := fmt.Sprintf(`[{"type":"function","function":{"name":"tool_a","parameters":%s}},{"type":"function","function":{"name":"tool_b","parameters":%s}},{"type":"function","function":{"name":"ping"}}]`, schema, other)
		for _, choice := range []string{`"auto"`, `"none"`, `"required"`, `{"type":"function","function":{"name":"tool_a"}}`, ""} {
			body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":` + tools
			if choice != "" {
				body += `,"tool_choice":` + choice
			} else {
				// No tool_choice: auto, with a structured answer.
				body += `,"response_format":{"type":"json_schema","json_schema":{"name":"answer","schema":` + other + `}}`
			}
			body += "}"
			var req openaicompat.ChatCompletionRequest
			require.NoError(t, openaicompat.DecodeRequest([]byte(body), &req))
			conv, err := req.Conversation(nil)
			require.NoError(t, err)
			prompt, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
			require.NoError(t, err)
			env, err := req.Matcher(enc, nil)
			require.NoError(t, err, "schema %d, tool_choice %s", i, choice)
			for seed := range uint64(seeds) {
				env.Reset()
				ids, err := s.sample(env, rand.New(rand.NewPCG(seed, uint64(i))), prompt)
				if errors.Is(err, errNoEnd) {
					unfinished++
					continue
				}
				if err != nil {
					text, _ := enc.Decode(ids[max(0, len(ids)-300):])
					assert.NoError(t, err, "schema %d, tool_choice %s, seed %d; ends %q", i, choice, seed, text)
					continue
				}
				completions++
				tokens += len(ids)
				where := fmt.Sprintf("schema %d, tool_choice %s, seed %d", i, choice, seed)
				checkSampled(t, enc, v, where, ids, &req, choice)
			}
		}
	}
	t.Logf("%d schemas, %d completions checked, %d tokens, %d unfinished after %d tokens", len(schemas), completions, tokens, unfinished, s.hard)
	assert.LessOrEqual(t, unfinished, completions/3, "completions unfinished, of %d finished", completions)
}

// checkSampled checks one sampled completion against its request.
func checkSampled(t *testing.T, enc *harmony.Encoding, v *jsonschema.Validator, where string, ids []harmony.Token, req *openaicompat.ChatCompletionRequest, choice string) {
	t.Helper()
	msgs, err := enc.ParseCompletion(ids, harmony.RoleAssistant, nil)
	require.NoError(t, err, "%s: strict parse", where)
	last := msgs[len(msgs)-1]
	for _, m := range msgs[:len(msgs)-1] {
		require.Empty(t, m.Recipient, "%s: a message before the last is %+v", where, m)
		require.Contains(t, []string{"analysis", "commentary"}, m.Channel, "%s: a message before the last is %+v", where, m)
		if choice == `"none"` {
			require.NotEqual(t, "commentary", m.Channel, "%s: a preamble with tool_choice none", where)
		}
	}
	if name, ok := strings.CutPrefix(last.Recipient, "functions."); ok {
		require.NotEqual(t, `"none"`, choice, "%s: a call with tool_choice none", where)
		if strings.Contains(choice, "tool_a") {
			require.Equal(t, "tool_a", name, "%s: a call, tool_choice names tool_a", where)
		}
		var params json.RawMessage
		for _, tl := range req.Tools {
			if tl.Function.Name == name {
				params = tl.Function.Parameters
			}
		}
		if name != "ping" {
			require.NotNil(t, params, "%s: a call to undeclared %q", where, name)
		}
		require.Equal(t, "commentary", last.Channel, "%s: call message %+v", where, last)
		require.Equal(t, "<|constrain|>json", last.ContentType, "%s: call message %+v", where, last)
		require.Equal(t, harmony.TokenCall, ids[len(ids)-1], "%s: call message %+v", where, last)
		require.NoError(t, v.ValidateToolArguments(harmony.NewToolDescription(name, "", params), last.Text()), "%s: arguments %s", where, last.Text())
		return
	}
	require.Equal(t, "final", last.Channel, "%s: last message %+v", where, last)
	require.Equal(t, harmony.TokenReturn, ids[len(ids)-1], "%s: last message %+v", where, last)
	require.False(t, choice == `"required"` || strings.Contains(choice, "tool_a"), "%s: a final answer with tool_choice %s", where, choice)
	if f := req.ResponseFormat; f != nil {
		rf := harmony.ResponseFormat{Name: f.JSONSchema.Name, Schema: f.JSONSchema.Schema}
		require.NoError(t, v.ValidateResponse(rf, last.Text()), "%s: answer %s", where, last.Text())
	}
}
