package openaicompat

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func testSealer(t *testing.T, keys ...string) *ReasoningSealer {
	t.Helper()
	var ks [][]byte
	for _, k := range keys {
		ks = append(ks, []byte(k))
	}
	s, err := NewReasoningSealer(ks...)
	require.NoError(t, err)
	return s
}

const (
	key1 = "0123456789abcdef0123456789abcdef"
	key2 = "fedcba9876543210fedcba9876543210"
)

func TestReasoningSealer(t *testing.T) {
	s := testSealer(t, key1)
	text := "Need to use get_weather for Zürich. 東京 🙂"
	const owner, id = "acme", "rs_1"
	sealed := s.Seal(owner, id, text)
	require.NotContains(t, sealed, "get_weather", "sealed text is readable")
	assert.NotEqual(t, sealed, s.Seal(owner, id, text), "two seals of one text are equal: the nonce is not fresh")
	got, err := s.Open(owner, id, sealed)
	require.NoError(t, err, "Open")
	require.Equal(t, text, got, "Open")
	// Rotation: a new key first seals; the old key still opens.
	rotated := testSealer(t, key2, key1)
	if got, err := rotated.Open(owner, id, sealed); assert.NoError(t, err, "rotated Open") {
		assert.Equal(t, text, got, "rotated Open")
	}
	_, err = s.Open(owner, id, rotated.Seal(owner, id, text))
	assert.ErrorIs(t, err, ErrSealedReasoning, "a foreign key's seal opened")
	raw, _ := base64.StdEncoding.DecodeString(sealed)
	v1 := append([]byte{1}, raw[1:]...)
	for name, bad := range map[string]string{
		"tampered":  base64.StdEncoding.EncodeToString(append(raw[:len(raw)-1:len(raw)-1], raw[len(raw)-1]^1)),
		"header":    base64.StdEncoding.EncodeToString(append([]byte{3}, raw[1:]...)),
		"version 1": base64.StdEncoding.EncodeToString(v1),
		"short":     base64.StdEncoding.EncodeToString(raw[:8]),
		"not b64":   "%%%",
		"empty":     "",
		"truncated": sealed[:len(sealed)-8],
	} {
		got, err := s.Open(owner, id, bad)
		assert.ErrorIs(t, err, ErrSealedReasoning, name)
		assert.Empty(t, got, name)
	}
	// The item id and the owner are bound: under any other the seal does
	// not open, with the error of a changed seal, whichever differs. The
	// owner's length is bound too, so that no owner and id run into
	// another pair ("acme"+"rs_1" is not "acm"+"ers_1").
	changed := func(o, i string) error { _, err := s.Open(o, i, s.Seal("x", "y", text)); return err }
	want := changed("x", "z").Error()
	for _, b := range []struct{ owner, id string }{
		{owner, "rs_2"}, {"other", id}, {"", id}, {owner, ""}, {"acm", "ers_1"}, {"acmer", "s_1"},
	} {
		got, err := s.Open(b.owner, b.id, sealed)
		assert.ErrorIs(t, err, ErrSealedReasoning, "Open(%q, %q)", b.owner, b.id)
		assert.Empty(t, got, "Open(%q, %q)", b.owner, b.id)
		assert.EqualError(t, err, want, "Open(%q, %q)", b.owner, b.id)
	}
	err = changed("x", "z")
	assert.True(t, strings.HasSuffix(err.Error(), ": it was changed, or sealed for another item"), "changed seal: %v", err)
	for _, bad := range [][][]byte{nil, {[]byte("short")}, {[]byte(key1), []byte(key1)}} {
		_, err := NewReasoningSealer(bad...)
		assert.Error(t, err, "NewReasoningSealer(%q)", bad)
	}
}

// TestSealedReasoningRoundTrip is the stateless tool loop: a response with
// include reasoning.encrypted_content carries the sealed reasoning; sent
// back as input (with its plain content removed, or changed, as a client
// may) it renders the model's reasoning; tampered, foreign or unsealable
// it is a 400 naming the item.
func TestSealedReasoningRoundTrip(t *testing.T) {
	enc := testenc.Encoding(t)
	sealer := testSealer(t, key1)
	var req ResponsesRequest
	require.NoError(t, DecodeRequest([]byte(`{"model":"m","input":"Weather in Zürich?","store":false,"include":["reasoning.encrypted_content"],
		"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}]}`), &req))
	_, err := req.Conversation(nil)
	require.ErrorIs(t, err, ErrUnsupportedParameter, "include encrypted reasoning without a sealer")
	ro := req.ResponseOptions()
	ro.Sealer, ro.IDGenerator, ro.Created = sealer, counter(), 1
	toks := enc.EncodeWithSpecialTokens(sampledCall)
	resp, err := ResponseFromTokens(enc, toks, Sampling{}, &ro)
	require.NoError(t, err)
	events, err := streamResponses(enc, toks, Sampling{}, &ro)
	require.NoError(t, err)
	var streamed, streamedID string
	for _, e := range events {
		if e.Type == "response.output_item.done" && e.Item.Type == "reasoning" {
			streamed, streamedID = e.Item.EncryptedContent, e.Item.ID
		}
	}
	rs := resp.Output[0]
	require.Equal(t, "reasoning", rs.Type, "no sealed reasoning: %s", marshalLine(rs))
	require.NotEmpty(t, rs.EncryptedContent, "no sealed reasoning: %s", marshalLine(rs))
	require.NotEmpty(t, streamed, "no sealed reasoning streamed")
	for id, sealed := range map[string]string{rs.ID: rs.EncryptedContent, streamedID: streamed} {
		if got, err := sealer.Open("", id, sealed); assert.NoError(t, err, "the sealed reasoning of %s", id) {
			assert.Equal(t, "Need to use get_weather for Zürich.", got, "the sealed reasoning of %s", id)
		}
	}

	// Send the output back, the reasoning item with its content replaced.
	rs.Content = &ItemContent{Parts: []ItemPart{{Type: "reasoning_text", Text: "forged"}}}
	input := []Item{{Type: "message", Role: "user", Content: &ItemContent{Text: "Weather in Zürich?"}}, rs, resp.Output[1],
		{Type: "function_call_output", CallID: resp.Output[1].CallID, Output: &ItemContent{Text: `{"temp": 21}`}}}
	next := func(items []Item, opts *RequestOptions) (string, error) {
		body, _ := json.Marshal(map[string]any{"model": "m", "input": items,
			"tools": []map[string]any{{"type": "function", "name": "get_weather"}}})
		return responsesPrompt(t, enc, string(body), opts)
	}
	prompt, err := next(input, &RequestOptions{Sealer: sealer})
	require.NoError(t, err)
	assert.Contains(t, prompt, "<|start|>assistant<|channel|>analysis<|message|>Need to use get_weather for Zürich.<|end|>", "the prompt does not carry the sealed reasoning")
	assert.NotContains(t, prompt, "forged", "the prompt carries the client's reasoning")

	// The reasoning of another item: the same response's message, the
	// next response's reasoning, or another tenant's.
	other := resp.Output[1].ID
	const changed = `input[1].encrypted_content: encrypted reasoning cannot be opened: reasoning item "%s": it was changed, or sealed for another item`
	for name, tc := range map[string]struct {
		sealed string
		id     string // the item's id, when not rs's
		opts   *RequestOptions
		want   error
		msg    string
	}{
		"no key":      {rs.EncryptedContent, "", nil, ErrUnsupportedRequestContent, "input[1].encrypted_content: unsupported content: this server holds no key for encrypted reasoning: send the reasoning_text content"},
		"tampered":    {rs.EncryptedContent[:10] + "A" + rs.EncryptedContent[11:], "", &RequestOptions{Sealer: sealer}, ErrSealedReasoning, ""},
		"foreign":     {testSealer(t, key2).Seal("", "rs_2", "x"), "", &RequestOptions{Sealer: sealer}, ErrSealedReasoning, `input[1].encrypted_content: encrypted reasoning cannot be opened: reasoning item "rs_2": sealed with a key this server does not hold`},
		"other item":  {rs.EncryptedContent, other, &RequestOptions{Sealer: sealer}, ErrSealedReasoning, fmt.Sprintf(changed, other)},
		"no item id":  {rs.EncryptedContent, "-", &RequestOptions{Sealer: sealer}, ErrSealedReasoning, fmt.Sprintf(changed, "")},
		"streamed":    {streamed, "", &RequestOptions{Sealer: sealer}, ErrSealedReasoning, fmt.Sprintf(changed, rs.ID)},
		"other owner": {rs.EncryptedContent, "", &RequestOptions{Sealer: sealer, Owner: "tenant-b"}, ErrSealedReasoning, fmt.Sprintf(changed, rs.ID)},
	} {
		items := append([]Item(nil), input...)
		items[1].EncryptedContent = tc.sealed
		switch tc.id {
		case "":
		case "-":
			items[1].ID = ""
		default:
			items[1].ID = tc.id
		}
		if rs.EncryptedContent[10] == 'A' && name == "tampered" {
			items[1].EncryptedContent = rs.EncryptedContent[:10] + "B" + rs.EncryptedContent[11:]
		}
		_, err := next(items, tc.opts)
		var re *RequestError
		if !assert.ErrorIs(t, err, tc.want, name) || !assert.ErrorAs(t, err, &re, name) ||
			!assert.Equal(t, "input[1].encrypted_content", re.Param, name) {
			continue
		}
		status, _ := HTTPError(err)
		assert.Equal(t, 400, status, "%s: status", name)
		if tc.msg != "" {
			assert.EqualError(t, err, "openaicompat: "+tc.msg, name)
		}
	}

	// Sealed for a tenant (ResponseOptions.Owner), the reasoning opens in
	// that tenant's requests (RequestOptions.Owner) and no one else's.
	ro.Owner = "tenant-a"
	respA, err := ResponseFromTokens(enc, toks, Sampling{}, &ro)
	require.NoError(t, err)
	inputA := []Item{input[0], respA.Output[0], respA.Output[1],
		{Type: "function_call_output", CallID: respA.Output[1].CallID, Output: &ItemContent{Text: `{"temp": 21}`}}}
	inputA[1].Content = nil
	if prompt, err := next(inputA, &RequestOptions{Sealer: sealer, Owner: "tenant-a"}); assert.NoError(t, err, "tenant a's own sealed reasoning") {
		assert.Contains(t, prompt, "<|message|>Need to use get_weather for Zürich.<|end|>", "tenant a's own sealed reasoning")
	}
	for _, owner := range []string{"", "tenant-b", "tenant-"} {
		_, err := next(inputA, &RequestOptions{Sealer: sealer, Owner: owner})
		assert.ErrorIs(t, err, ErrSealedReasoning, "tenant a's sealed reasoning opened for %q", owner)
		assert.EqualError(t, err, "openaicompat: "+fmt.Sprintf(changed, respA.Output[0].ID), "tenant a's sealed reasoning for %q", owner)
	}
}

// mapStore is an ItemStore over a map, of the owner "".
type mapStore map[string]Item

func (m mapStore) Item(owner, id string) (Item, bool) {
	if owner != "" {
		return Item{}, false
	}
	it, ok := m[id]
	return it, ok
}

// TestItemReference resolves item references through the store, in both
// spellings, and refuses them without a store or for an unknown id.
func TestItemReference(t *testing.T) {
	enc := testenc.Encoding(t)
	store := mapStore{
		"rs_1": {Type: "reasoning", ID: "rs_1", Content: &ItemContent{Parts: []ItemPart{{Type: "reasoning_text", Text: "Call the tool."}}}},
		"fc_1": {Type: "function_call", ID: "fc_1", CallID: "call_1", Name: "f", Arguments: "{}"},
	}
	body := `{"model":"m","tools":[{"type":"function","name":"f"}],"input":[{"role":"user","content":"hi"},
		{"type":"item_reference","id":"rs_1"},{"id":"fc_1"},{"type":"function_call_output","call_id":"call_1","output":"ok"}]}`
	var r ResponsesRequest
	require.NoError(t, DecodeRequest([]byte(body), &r))
	conv, err := r.Conversation(&RequestOptions{Items: store})
	require.NoError(t, err)
	p, _ := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	prompt, _ := enc.Decode(p)
	want := `<|start|>user<|message|>hi<|end|><|start|>assistant<|channel|>analysis<|message|>Call the tool.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>` +
		`<|start|>functions.f to=assistant<|channel|>commentary<|message|>ok<|end|><|start|>assistant`
	assert.True(t, strings.HasSuffix(prompt, want), "prompt\n%s\nwant suffix\n%s", prompt, want)
	assert.Equal(t, "item_reference", r.Input.Items[1].Type, "resolving changed the request")
	for _, tc := range []struct {
		opts *RequestOptions
		msg  string
	}{
		{nil, `openaicompat: input[1]: item reference cannot be resolved: this server does not store responses, so it cannot resolve "rs_1": send the items themselves, with store:false (and include:["reasoning.encrypted_content"] to keep the reasoning)`},
		{&RequestOptions{Items: mapStore{}}, `openaicompat: input[1].id: item reference cannot be resolved: no stored item has the id "rs_1"`},
	} {
		_, err := r.Conversation(tc.opts)
		assert.ErrorIs(t, err, ErrItemReference)
		assert.EqualError(t, err, tc.msg)
		status, body := HTTPError(err)
		assert.Equal(t, 400, status, "HTTPError: %s", marshalLine(body))
		if assert.NotNil(t, body.Error.Code, "HTTPError: %s", marshalLine(body)) {
			assert.Equal(t, "invalid_item_reference", *body.Error.Code, "HTTPError: %s", marshalLine(body))
		}
	}
}

// respStore is a ResponseStore over a map, of the owner "".
type respStore map[string][]Item

func (m respStore) ResponseItems(owner, id string) ([]Item, bool) {
	if owner != "" {
		return nil, false
	}
	it, ok := m[id]
	return it, ok
}

// TestPreviousResponse continues a stored response's conversation with
// previous_response_id, as the openai SDKs' tool loops do: the stored
// items, then the request's own input. Errors in the request's input are
// at their own indices; an unknown id, or no store, is a 400.
func TestPreviousResponse(t *testing.T) {
	enc := testenc.Encoding(t)
	store := respStore{"resp_1": {
		{Type: "message", Role: "user", Content: &ItemContent{Text: "Weather in Oslo?"}},
		{Type: "reasoning", ID: "rs_1", Content: &ItemContent{Parts: []ItemPart{{Type: "reasoning_text", Text: "Call it."}}}},
		{Type: "function_call", ID: "fc_1", CallID: "call_1", Name: "w", Arguments: `{"city":"Oslo"}`},
	}}
	convert := func(body string, opts *RequestOptions) (string, error) { return responsesPrompt(t, enc, body, opts) }
	const tools = `"tools":[{"type":"function","name":"w"}]`
	prompt, err := convert(`{`+tools+`,"previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"call_1","output":"21 C"}]}`, &RequestOptions{Responses: store})
	require.NoError(t, err)
	want := `<|start|>user<|message|>Weather in Oslo?<|end|><|start|>assistant<|channel|>analysis<|message|>Call it.<|end|>` +
		`<|start|>assistant<|channel|>commentary to=functions.w <|constrain|>json<|message|>{"city":"Oslo"}<|call|>` +
		`<|start|>functions.w to=assistant<|channel|>commentary<|message|>21 C<|end|><|start|>assistant`
	assert.True(t, strings.HasSuffix(prompt, want), "prompt\n%s\nwant suffix\n%s", prompt, want)
	for _, tc := range []struct {
		body  string
		opts  *RequestOptions
		index int
		param string
		code  string
	}{
		{`{` + tools + `,"previous_response_id":"resp_1","input":"Go on"}`, nil, -1, "previous_response_id", "unsupported_parameter"},
		{`{` + tools + `,"previous_response_id":"resp_9","input":"Go on"}`, &RequestOptions{Responses: store}, -1, "previous_response_id", "invalid_request"},
		// The call is answered twice: the second result is input[1].
		{`{` + tools + `,"previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"call_1","output":"a"},{"type":"function_call_output","call_id":"call_1","output":"b"}]}`,
			&RequestOptions{Responses: store}, 1, "input[1].call_id", "tool_call_already_answered"},
		// A user turn before the stored call is answered: the error names
		// where, not the stored items.
		{`{` + tools + `,"previous_response_id":"resp_1","input":"Never mind"}`, &RequestOptions{Responses: store}, 0, "input[0]", "missing_tool_result"},
	} {
		_, err := convert(tc.body, tc.opts)
		var re *RequestError
		if assert.ErrorAs(t, err, &re, tc.body) {
			assert.Equal(t, tc.index, re.MessageIndex, tc.body)
			assert.Equal(t, tc.param, re.Param, tc.body)
			assert.Equal(t, tc.code, re.Code, tc.body)
		}
	}
}

// responsesPrompt converts a Responses request body and renders its prompt
// as text; the error is Conversation's.
func responsesPrompt(t *testing.T, enc *harmony.Encoding, body string, opts *RequestOptions) (string, error) {
	t.Helper()
	var r ResponsesRequest
	require.NoError(t, DecodeRequest([]byte(body), &r))
	conv, err := r.Conversation(opts)
	if err != nil {
		return "", err
	}
	p, err := enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, nil)
	require.NoError(t, err)
	return enc.Decode(p)

}
