package openaicompat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestErrorsClipClientStrings sends ids, names and types of a megabyte
// wherever an error quotes one: the error stays small, and says where it
// cut.
func TestErrorsClipClientStrings(t *testing.T) {
	long := strings.Repeat("x", 1<<20)
	for _, tc := range []struct{ api, body string }{
		{"responses", `{"input":[{"type":"function_call_output","call_id":"` + long + `","output":"x"}]}`},
		{"responses", `{"previous_response_id":"` + long + `","input":"hi"}`},
		{"responses", `{"input":[{"role":"user","content":"hi"},{"type":"item_reference","id":"` + long + `"}]}`},
		{"responses", `{"input":[{"type":"` + long + `"}]}`},
		{"responses", `{"input":[{"role":"` + long + `","content":"hi"}]}`},
		{"responses", `{"input":[{"role":"user","content":[{"type":"` + long + `"}]}]}`},
		{"responses", `{"input":"hi","` + long + `":1}`},
		{"responses", `{"input":"hi","truncation":"` + long + `"}`},
		{"responses", `{"input":"hi","reasoning":{"effort":"` + long + `"}}`},
		{"responses", `{"input":"hi","tools":[{"type":"` + long + `"}]}`},
		{"responses", `{"input":"hi","tools":[{"type":"function","name":"` + long + `"}]}`},
		{"responses", `{"input":"hi","tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"` + long + `"}}`},
		{"responses", `{"input":"hi","tool_choice":"` + long + `"}`},
		{"responses", `{"input":"hi","text":{"format":{"type":"` + long + `"}}}`},
		{"responses", `{"input":[{"role":"user","content":"hi"},{"type":"reasoning","id":"` + long + `","encrypted_content":"AAAA"}]}`},
		{"responses", `{"input":[{"type":"function_call","call_id":"c","name":"` + long + `","arguments":"{}"}]}`},
		{"responses", `{"input":[{"type":"function_call","call_id":"` + long + `","name":"f","arguments":"{}"},{"type":"function_call","call_id":"` + long + `","name":"f","arguments":"{}"}]}`},
		{"responses", `{"input":[{"type":"function_call","call_id":"` + long + `","name":"f.` + long + `","arguments":"{}"},{"role":"user","content":"hi"}]}`},
		{"chat", `{"messages":[{"role":"tool","tool_call_id":"` + long + `","content":"x"}]}`},
		{"chat", `{"messages":[{"role":"` + long + `","content":"x"}]}`},
		{"chat", `{"messages":[{"role":"user","name":"` + long + `!","content":"x"}]}`},
		{"chat", `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"` + long + `","function":{"name":"f","arguments":"{}"}}]}]}`},
		{"chat", `{"messages":[{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","name":"` + long + `","content":"x"}]}`},
		{"chat", `{"messages":[{"role":"user","content":"x"}],"reasoning_effort":"low","reasoning":{"effort":"` + long + `"}}`},
		{"chat", `{"messages":[{"role":"user","content":"x"}],"modalities":["` + long + `"]}`},
		{"chat", `{"messages":[{"role":"user","content":"x"}],"` + long + `":1}`},
	} {
		var err error
		if tc.api == "chat" {
			var r ChatCompletionRequest
			if err = DecodeRequest([]byte(tc.body), &r); err == nil {
				_, err = r.Conversation(nil)
			}
		} else {
			var r ResponsesRequest
			if err = DecodeRequest([]byte(`{"model":"m",`+tc.body[1:]), &r); err == nil {
				sealer := testSealer(t, key1)
				_, err = r.Conversation(&RequestOptions{Items: mapStore{}, Responses: respStore{}, Sealer: sealer})
			}
		}
		if !assert.Error(t, err, "%.80s…", tc.body) {
			continue
		}
		status, body := HTTPError(err)
		b, _ := json.Marshal(body)
		assert.Equal(t, 400, status, "%.80s…: %.300s", tc.body, b)
		assert.LessOrEqual(t, len(b), 1024, "%.80s…: %.300s", tc.body, b)
		// Not assert.Contains: that would quote the whole body.
		assert.True(t, strings.Contains(string(b), "xxx…"), "%.80s…: no clipped string in %.300s", tc.body, b)

	}
}
