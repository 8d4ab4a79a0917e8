package openaicompat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResultsInCallOrder sends three parallel calls to one function and
// their results in every order, through both APIs: the prompt is the same
// for all six, with the results in the order of the calls, since the model
// can pair them by position only.
func TestResultsInCallOrder(t *testing.T) {
	enc := testenc.Encoding(t)
	perms := [][]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	cities := []string{"Oslo", "Lima", "Pune"}
	var want string
	for _, api := range []string{"chat", "responses"} {
		for _, p := range perms {
			var body string
			if api == "chat" {
				var calls, results []string
				for i, c := range cities {
					calls = append(calls, fmt.Sprintf(`{"id":"c%d","type":"function","function":{"name":"w","arguments":"{\"city\":\"%s\"}"}}`, i, c))
				}
				for _, i := range p {
					results = append(results, fmt.Sprintf(`{"role":"tool","tool_call_id":"c%d","content":"weather in %s"}`, i, cities[i]))
				}
				body = `{"tools":[{"type":"function","function":{"name":"w"}}],"messages":[{"role":"user","content":"?"},` +
					`{"role":"assistant","tool_calls":[` + strings.Join(calls, ",") + `]},` + strings.Join(results, ",") + `]}`
			} else {
				var items []string
				for i, c := range cities {
					items = append(items, fmt.Sprintf(`{"type":"function_call","call_id":"c%d","name":"w","arguments":"{\"city\":\"%s\"}"}`, i, c))
				}
				for _, i := range p {
					items = append(items, fmt.Sprintf(`{"type":"function_call_output","call_id":"c%d","output":"weather in %s"}`, i, cities[i]))
				}
				body = `{"tools":[{"type":"function","name":"w"}],"input":[{"role":"user","content":"?"},` + strings.Join(items, ",") + `]}`
			}
			conv, err := convertRequest(api, body)
			require.NoError(t, err, "%s %v", api, p)
			toks, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
			require.NoError(t, err)
			got, _ := enc.Decode(toks)
			if want == "" {
				want = got
				a, b, c := strings.Index(got, "weather in Oslo"), strings.Index(got, "weather in Lima"), strings.Index(got, "weather in Pune")
				require.True(t, a >= 0 && a < b && b < c, "results not in call order:\n%s", got)
			}
			assert.Equal(t, want, got, "%s %v renders", api, p)

		}
	}
}

func convertRequest(api, body string) (harmony.Conversation, error) {
	if api == "chat" {
		var r ChatCompletionRequest
		if err := DecodeRequest([]byte(body), &r); err != nil {
			return harmony.Conversation{}, err
		}
		return r.Conversation(nil)
	}
	var r ResponsesRequest
	if err := DecodeRequest([]byte(body), &r); err != nil {
		return harmony.Conversation{}, err
	}
	return r.Conversation(nil)
}
