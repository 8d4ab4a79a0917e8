package harmony

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slowWire is what Conversation.UnmarshalJSON decodes data to without the
// fast path: encoding/json's wire form, or its error.
func slowWire(data []byte) ([]messageJSON, string, error) {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		var wire []messageJSON
		return wire, "$", decodeStrict(data, &wire)
	}
	var raw struct {
		Messages *[]messageJSON `json:"messages"`
	}
	if err := decodeStrict(data, &raw); err != nil {
		return nil, "", err
	}
	if raw.Messages == nil {
		return nil, "", errMissingMessages
	}
	return *raw.Messages, "$.messages", nil
}

var errMissingMessages = &JSONError{Path: "$.messages", Err: ErrMissingField}

// checkFastWire checks that decodeWireFast, where it takes data, decodes
// it to what encoding/json does.
func checkFastWire(t *testing.T, data []byte) (took bool) {
	t.Helper()
	wire, prefix, ok := decodeWireFast(trimJSONSpace(data))
	if !ok {
		return false
	}
	want, wantPrefix, err := slowWire(data)
	require.NoError(t, err, "fast path took %q, which encoding/json refuses", data)
	require.True(t, json.Valid(data), "fast path took invalid JSON %q", data)
	require.Equal(t, wantPrefix, prefix, "fast path on %q: the path's prefix", data)
	require.Equal(t, normWire(want), normWire(wire), "fast path on %q", data)
	return true
}

// normWire makes empty wire lists compare equal to nil ones.
func normWire(w []messageJSON) []messageJSON {
	if len(w) == 0 {
		return nil
	}
	return w
}

var fastWireCases = []struct {
	in   string
	took bool // the fast path decodes it
}{
	{"[]\v", false}, // not JSON white space
	{`[]`, true},
	{`{"messages":[]}`, true},
	{` { "messages" : [ ] } `, true},
	{`{"messages":[{"role":"user","content":"hi"}]}`, true},
	{`[{"role":"assistant","name":"n","recipient":"functions.f","content":"{\"a\":1}","channel":"commentary","content_type":"<|constrain|>json"}]`, true},
	{`[{"role":"user","name":null,"recipient":null,"channel":null,"content_type":null,"header":null,"content":"x"}]`, true},
	{`[{"role":"user","name":"","content":"x","header":"h"}]`, true},
	{"[{\"role\":\"user\",\"content\":\"esc \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\ud83d\\ude00 \\ud800 x\"}]", true},
	{"[{\"role\":\"user\",\"content\":\"bad utf-8 \xff\xfe \xed\xa0\x80\"}]", true},
	{`[{"role":"system","content":[{"type":"system_content","model_identity":"m","tools":{"a":{"b":[1,-2.5e+3,0,true,false,null,{}]}}}]}]`, true},
	{`[{"role":"user","content":null}]`, true},
	{`[{"role":"user","content":5}]`, true},
	{`[{"role":"user"}]`, true},
	{`[{"role":"bogus","content":"x"}]`, true},
	{`[{"role":"assistant","content":"F","channel":"final","thinking":"T","reasoning_content":null,"reasoning":{"x":1}}]`, true},
	{`[{"content":"x","role":"user"}]`, true},

	// Left to encoding/json.
	{``, false},
	{`null`, false},
	{`{}`, false},
	{`{"messages":null}`, false},
	{`{"messages":[],"x":1}`, false},
	{`{"Messages":[]}`, false},
	{`{"messages":[],"messages":[]}`, false},
	{`[{}]`, false},
	{`[{"Role":"user","content":"x"}]`, false},
	{`[{"r\u006fle":"user","content":"x"}]`, false},
	{`[{"role":"user","role":"user","content":"x"}]`, false},
	{`[{"role":"user","content":"x","extra":1}]`, false},
	{`[{"role":null,"content":"x"}]`, false},
	{`[{"role":1,"content":"x"}]`, false},
	{`[{"role":"user","name":1,"content":"x"}]`, false},
	{`[{"role":"user","content":"x"}]x`, false},
	{`[{"role":"user","content":"x"},]`, false},
	{`[{"role":"user","content":"x",}]`, false},
	{`[{"role":"user","content":"a` + "\n" + `b"}]`, false},
	{`[{"role":"user","content":"\x"}]`, false},
	{`[{"role":"user","content":"\u12"}]`, false},
	{`[{"role":"user","content":01}]`, false},
	{`[{"role":"user","content":1.}]`, false},
	{`[{"role":"user","content":1e}]`, false},
	{`[{"role":"user","content":-}]`, false},
	{`[{"role":"user","content":tru}]`, false},
	{`[{"role":"user","content":[1 2]}]`, false},
	{`[{"role":"user","content":{"a" 1}}]`, false},
	{`[{"role":"user","content":{1:1}}]`, false},
	{`[{"role":"user","content":` + strings.Repeat("[", 300) + strings.Repeat("]", 300) + `}]`, false},
	{`[{"role":"user","content":"x"`, false},
}

func TestDecodeWireFast(t *testing.T) {
	for _, tc := range fastWireCases {
		assert.Equal(t, tc.took, checkFastWire(t, []byte(tc.in)), "%q: the fast path took it", tc.in)
	}
	convs := [][]byte{benchdata.Small()}
	if !sample.Sampled() {
		convs = append(convs, benchdata.Large())
	}
	for _, conv := range convs {
		assert.True(t, checkFastWire(t, conv), "fast path leaves a benchmark conversation to encoding/json")
	}
}

func FuzzDecodeWireFast(f *testing.F) {
	for _, tc := range fastWireCases {
		f.Add([]byte(tc.in))
	}
	f.Add(benchdata.Small())
	f.Fuzz(func(t *testing.T, data []byte) {
		checkFastWire(t, data)
	})
}

// TestUnmarshalOnlyJSONSpace checks that only JSON's white space is trimmed
// around a conversation or a message: a vertical tab is not JSON.
func TestUnmarshalOnlyJSONSpace(t *testing.T) {
	var c Conversation
	assert.NoError(t, c.UnmarshalJSON([]byte(" \t[]\r\n")), "JSON space")
	assert.Error(t, c.UnmarshalJSON([]byte("[]\v")), `conversation "[]\v" decoded`)
	var m Message
	assert.Error(t, m.UnmarshalJSON([]byte("\f{\"role\":\"user\",\"content\":\"hi\"}")), `message after "\f" decoded`)
}
