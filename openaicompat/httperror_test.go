package openaicompat

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHTTPError checks the status and body of every kind of error: what a
// client sends wrong is a 400 (413 for a body too large) with a code, what
// goes wrong on the server's side a 500.
func TestHTTPError(t *testing.T) {
	decode := func(body string) error {
		var req ChatCompletionRequest
		return DecodeRequest([]byte(body), &req)
	}
	convert := func(body string) error {
		var req ChatCompletionRequest
		if err := DecodeRequest([]byte(body), &req); err != nil {
			return err
		}
		_, err := req.Conversation(nil)
		return err
	}
	withTool := func(schema string) string {
		return `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":` + schema + `}}]}`
	}
	withFormat := func(schema string) string {
		return `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"r","schema":` + schema + `}}}`
	}
	for _, tc := range []struct {
		name   string
		err    error
		status int
		body   string
	}{
		{"truncated", decode(`{"messages":[`), 400,
			`{"error":{"message":"invalid JSON body: unexpected EOF","type":"invalid_request_error","param":null,"code":"invalid_json"}}`},
		{"syntax", decode(`{"messages":}`), 400,
			`{"error":{"message":"invalid JSON body: invalid character '}' looking for beginning of value","type":"invalid_request_error","param":null,"code":"invalid_json"}}`},
		{"type", decode(`{"stop":5}`), 400,
			`{"error":{"message":"invalid JSON body: json: cannot unmarshal number into Go struct field ChatCompletionRequest.stop of type []string","type":"invalid_request_error","param":"stop","code":"invalid_json"}}`},
		{"empty", decode(``), 400,
			`{"error":{"message":"invalid JSON body: the body is empty","type":"invalid_request_error","param":null,"code":"invalid_json"}}`},
		{"trailing", decode(`{} []`), 400,
			`{"error":{"message":"invalid JSON body: more after the request's JSON object","type":"invalid_request_error","param":null,"code":"invalid_json"}}`},
		{"raw encoding/json", json.Unmarshal([]byte(`[`), new(struct{})), 400,
			`{"error":{"message":"invalid JSON body: unexpected end of JSON input","type":"invalid_request_error","param":null,"code":"invalid_json"}}`},
		{"too large", fmt.Errorf("reading: %w", &http.MaxBytesError{Limit: 10}), 413,
			`{"error":{"message":"the request body is larger than 10 bytes","type":"invalid_request_error","param":null,"code":"request_too_large"}}`},
		{"read timeout", fmt.Errorf("read tcp 127.0.0.1:8080->127.0.0.1:5555: %w", os.ErrDeadlineExceeded), 408,
			`{"error":{"message":"the request was not received in time","type":"invalid_request_error","param":null,"code":"request_timeout"}}`},
		{"invalid UTF-8 key", convert(withTool("{\"properties\":{\"a\xff\":{}}}")), 400,
			`{"error":{"message":"tools[0].function.parameters: invalid tool: the parameters of \"f\" cannot be rendered: ojson: invalid UTF-8 in string at offset 17","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_tool"}}`},
		{"deep", convert(withTool(strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 200))), 400,
			`{"error":{"message":"tools[0].function.parameters: invalid tool: the parameters of \"f\" cannot be rendered: ojson: nesting too deep at offset 635","type":"invalid_request_error","param":"tools[0].function.parameters","code":"invalid_tool"}}`},
		{"huge number", convert(withFormat(`{"maximum":1e999999}`)), 400,
			`{"error":{"message":"response_format.json_schema.schema: invalid request: the schema cannot be rendered: ojson: number out of range at offset 11","type":"invalid_request_error","param":"response_format.json_schema.schema","code":"invalid_request"}}`},
		{"output", &OutputError{MessageIndex: 1, Err: fmt.Errorf("%w: a tool message", ErrUnexpectedMessage)}, 500,
			`{"error":{"message":"model output message 1: message not written by the assistant: a tool message","type":"server_error","param":null,"code":null}}`},
		{"render", &harmony.RenderError{MessageIndex: 0, Err: harmony.ErrInvalidHeader}, 500,
			`{"error":{"message":"` + (&harmony.RenderError{MessageIndex: 0, Err: harmony.ErrInvalidHeader}).Error() + `","type":"server_error","param":null,"code":null}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Error(t, tc.err)
			status, body := HTTPError(tc.err)
			assert.Equal(t, tc.status, status, "HTTPError(%v)", tc.err)
			assert.Equal(t, tc.body+"\n", marshalLine(body), "HTTPError(%v)", tc.err)
		})
	}
}

// TestRenderableRequests checks that a request whose schemas the prompt
// cannot carry is refused by Conversation, for both APIs, and that a
// request Conversation accepts renders.
func TestRenderableRequests(t *testing.T) {
	enc := testenc.Encoding(t)
	bad := []string{"{\"properties\":{\"a\xff\":{}}}", strings.Repeat(`{"a":`, 129) + "1" + strings.Repeat("}", 129), `{"default":-1e400}`}
	for i, schema := range bad {
		var chat ChatCompletionRequest
		require.NoError(t, DecodeRequest([]byte(`{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":`+schema+`}}]}`), &chat))
		_, err := chat.Conversation(nil)
		assert.ErrorIs(t, err, ErrInvalidTool, "chat schema %d", i)
		var resp ResponsesRequest
		require.NoError(t, DecodeRequest([]byte(`{"input":"hi","text":{"format":{"type":"json_schema","name":"r","schema":`+schema+`}}}`), &resp))
		_, err = resp.Conversation(nil)
		assert.ErrorIs(t, err, ErrInvalidRequest, "responses schema %d", i)
	}
	var ok ChatCompletionRequest
	require.NoError(t, DecodeRequest([]byte(`{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":`+strings.Repeat(`{"a":`, 120)+"1"+strings.Repeat("}", 120)+`}}]}`), &ok))
	conv, err := ok.Conversation(nil)
	require.NoError(t, err)
	_, err = enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	require.NoError(t, err)

}
