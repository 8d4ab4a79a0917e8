package harmony

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONReasoningFields checks the reasoning fields of datasets and
// OpenAI-compatible servers: each becomes an analysis message before its
// message, or an error naming it; none is dropped.
func TestJSONReasoningFields(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string // the conversation as MarshalJSON writes its messages
		path     string // or the error's path
		sentinel error
	}{
		{"thinking on a final answer",
			`{"messages":[{"role":"user","content":"Q"},{"role":"assistant","content":"F","channel":"final","thinking":"T"}]}`,
			`[{"role":"user","content":"Q"},{"role":"assistant","content":"T","channel":"analysis"},{"role":"assistant","content":"F","channel":"final"}]`, "", nil},
		{"reasoning_content on a call, which keeps its header",
			`[{"role":"assistant","recipient":"functions.f","content":"{}","channel":"commentary","content_type":"<|constrain|>json","reasoning_content":"T"}]`,
			`[{"role":"assistant","content":"T","channel":"analysis"},{"role":"assistant","recipient":"functions.f","content":"{}","channel":"commentary","content_type":"<|constrain|>json"}]`, "", nil},
		{"reasoning on an analysis message, with the author's name",
			`[{"role":"assistant","name":"bob","content":"A","channel":"analysis","reasoning":"T"}]`,
			`[{"role":"assistant","name":"bob","content":"T","channel":"analysis"},{"role":"assistant","name":"bob","content":"A","channel":"analysis"}]`, "", nil},
		{"null and empty add nothing, on any role",
			`[{"role":"user","content":"Q","thinking":null},{"role":"assistant","content":"F","reasoning_content":"","reasoning":null}]`,
			`[{"role":"user","content":"Q"},{"role":"assistant","content":"F"}]`, "", nil},
		{"the same text twice is one message",
			`[{"role":"assistant","content":"F","channel":"final","reasoning_content":"T","reasoning":"T"}]`,
			`[{"role":"assistant","content":"T","channel":"analysis"},{"role":"assistant","content":"F","channel":"final"}]`, "", nil},
		{"two texts conflict",
			`[{"role":"assistant","content":"F","channel":"final","reasoning_content":"T","reasoning":"U"}]`, "", "$[0].reasoning", ErrConflictingField},
		{"a user's reasoning",
			`{"messages":[{"role":"user","content":"Q","thinking":"T"}]}`, "", "$.messages[0].thinking", ErrMisplacedContent},
		{"a tool's reasoning",
			`[{"role":"tool","name":"functions.f","content":"ok","reasoning":"T"}]`, "", "$[0].reasoning", ErrMisplacedContent},
		{"an answer without a channel",
			`{"messages":[{"role":"user","content":"Q"},{"role":"assistant","content":"F","thinking":"T"}]}`, "", "$.messages[1].channel", ErrMissingField},
		{"an object",
			`[{"role":"assistant","content":"F","channel":"final","reasoning":{"effort":"high"}}]`, "", "$[0].reasoning", ErrUnsupportedContent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Conversation
			err := json.Unmarshal([]byte(tc.in), &c)
			if tc.sentinel != nil {
				var je *JSONError
				require.ErrorAs(t, err, &je)
				assert.Equal(t, tc.path, je.Path)
				assert.ErrorIs(t, err, tc.sentinel)
				return
			}
			require.NoError(t, err)
			got := []byte{'['}
			for i, m := range c.Messages {
				if i > 0 {
					got = append(got, ',')
				}
				got, err = m.AppendJSON(got)
				require.NoError(t, err)
			}
			assert.Equal(t, tc.want, string(append(got, ']')))
		})
	}
}

// TestJSONReasoningFieldsRender checks the reasoning of a dataset's example
// end to end: it is the trained turn's reasoning, learned.
func TestJSONReasoningFieldsRender(t *testing.T) {
	enc := mustEncoding(t)
	var c Conversation
	require.NoError(t, json.Unmarshal([]byte(`[{"role":"user","content":"Q"},{"role":"assistant","content":"F","channel":"final","thinking":"T"}]`), &c))
	toks, mask, err := enc.RenderTrainingExample(c, nil)
	require.NoError(t, err)
	assert.Equal(t, "<|channel|>analysis<|message|>T<|end|><|start|>assistant<|channel|>final<|message|>F<|return|>", learnedText(t, enc, toks, mask))
}

// TestJSONUnknownFields checks that a field the reference's JSON does not
// have is an error naming it, in document order, and that the fields it has
// are accepted in any case, as encoding/json matches them.
func TestJSONUnknownFields(t *testing.T) {
	for _, tc := range []struct {
		in, path, msg string
	}{
		{`{"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"},{"role":"user","content":"c"},{"role":"user","content":"d","foo":1}]}`,
			"$.messages[3].foo", "harmony: JSON $.messages[3].foo: unknown field"},
		{`[{"role":"assistant","content":"","tool_calls":[{"id":"x"}],"bar":2}]`, "$[0].tool_calls", "harmony: JSON $[0].tool_calls: unknown field"},
		{`{"messages":[],"tools":[]}`, "$.tools", "harmony: JSON $.tools: unknown field"},
		{`{"id":7,"messages":[{"role":"user","content":"a","foo":1}]}`, "$.id", "harmony: JSON $.id: unknown field"},
		{`[{"author":{"role":"user"},"content":"a"}]`, "$[0].author", "harmony: JSON $[0].author: unknown field"},
	} {
		var c Conversation
		err := json.Unmarshal([]byte(tc.in), &c)
		var je *JSONError
		require.ErrorAs(t, err, &je, tc.in)
		assert.Equal(t, tc.path, je.Path, tc.in)
		assert.EqualError(t, err, tc.msg)
		assert.ErrorIs(t, err, ErrUnknownField, tc.in)
	}

	// The reference's own fields, nulls included (the Python library writes
	// "name": null), in any case.
	var c Conversation
	require.NoError(t, json.Unmarshal([]byte(`{"Messages":[{"ROLE":"tool","Name":"functions.f","recipient":null,"content":"x","channel":null,"content_type":null}]}`), &c))
	assert.Equal(t, []Message{NewToolMessage("functions.f", "x")}, c.Messages)

	// A type error before the unknown field is reported as before.
	err := json.Unmarshal([]byte(`{"messages":[{"role":1,"content":"x","foo":1}]}`), &c)
	var je *JSONError
	require.ErrorAs(t, err, &je)
	assert.Equal(t, "$.messages.role", je.Path)

	// A message alone.
	var m Message
	assert.EqualError(t, json.Unmarshal([]byte(`{"role":"user","content":"a","foo":1}`), &m), "harmony: JSON $.foo: unknown field")
	err = json.Unmarshal([]byte(`{"role":"assistant","content":"a","channel":"final","thinking":"T"}`), &m)
	require.ErrorAs(t, err, &je)
	assert.Equal(t, "$.thinking", je.Path)
	assert.ErrorIs(t, err, ErrUnsupportedContent)
	require.NoError(t, json.Unmarshal([]byte(`{"role":"assistant","content":"a","thinking":null}`), &m))

	// Called directly, UnmarshalJSON still refuses what follows the value.
	assert.Error(t, c.UnmarshalJSON([]byte(`{"messages":[]} x`)))
	assert.Error(t, c.UnmarshalJSON([]byte(`[] ]`)))
	assert.Error(t, m.UnmarshalJSON([]byte(`{"role":"user","content":"a"}}`)))
	assert.NoError(t, c.UnmarshalJSON([]byte(" {\"messages\":[]}\n\t")))
}

// FuzzConversationJSON checks that any document decodes to a conversation
// or to a *JSONError with a path, and that a decoded conversation written
// back decodes to the same messages.
func FuzzConversationJSON(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":"Q"},{"role":"assistant","content":"F","channel":"final","thinking":"T"}]}`))
	f.Add([]byte(`[{"role":"assistant","recipient":"functions.f","content":[{"type":"text","text":"{}"}],"channel":"commentary","reasoning":"T","reasoning_content":"T"}]`))
	f.Add([]byte(`{"messages":[{"role":"user","content":"a","foo":{"messages":[1]}}],"bar":[]}`))
	f.Add([]byte(`[{"role":"system","content":[{"type":"system_content","reasoning_effort":"high"}],"name":null}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Conversation
		if err := json.Unmarshal(data, &c); err != nil {
			var je *JSONError
			var se *json.SyntaxError
			if !errors.As(err, &se) {
				require.ErrorAs(t, err, &je, "%T %v", err, err)
				require.True(t, strings.HasPrefix(je.Path, "$"), "%T %v: path", err, err)
			}
			return
		}
		out, err := json.Marshal(c)
		if err != nil {
			return // content that has no JSON form, such as an invalid schema
		}
		var back Conversation
		require.NoError(t, json.Unmarshal(out, &back), "%s", out)
		again, err := json.Marshal(back)
		require.NoError(t, err)
		require.Equal(t, string(out), string(again))
	})
}

// BenchmarkUnmarshalConversation decodes the small and the large
// conversation of package benchdata from the reference's JSON.
func BenchmarkUnmarshalConversation(b *testing.B) {
	for _, in := range []struct {
		name string
		data []byte
	}{{"Size=small", benchdata.Small()}, {"Size=large", largeConversationJSON()}} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.data)))
			b.ReportAllocs()
			for b.Loop() {
				var c Conversation
				if err := json.Unmarshal(in.data, &c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
