package openaicompat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestItemMarshalTrims checks that an item decoded with fields of other
// types (which a request may carry at any size) is written with the
// fields of its own type only, as a store keeps it.
func TestItemMarshalTrims(t *testing.T) {
	hidden := `"arguments":"A","name":"N","call_id":"C","encrypted_content":"E","summary":[{"type":"summary_text","text":"S"}],"output":"O","role":"R","content":"T"`
	for _, tc := range []struct{ in, want string }{
		{`{"type":"message","id":"m1",` + hidden + `}`, `{"type":"message","id":"m1","role":"R","content":"T"}`},
		{`{"role":"user",` + hidden[:len(hidden)-len(`,"role":"R","content":"T"`)] + `,"content":"T"}`, `{"type":"","role":"user","content":"T"}`},
		{`{"type":"item_reference","id":"r1",` + hidden + `}`, `{"type":"item_reference","id":"r1"}`},
		{`{"id":"r1","arguments":"A"}`, `{"type":"","id":"r1"}`},
		{`{"type":"function_call_output",` + hidden + `}`, `{"type":"function_call_output","call_id":"C","output":"O"}`},
		{`{"type":"message","role":"user","content":[{"type":"input_text","text":"t","annotations":[0,0],"logprobs":[0],"refusal":"r","image_url":"u"}]}`,
			`{"type":"message","role":"user","content":[{"type":"input_text","text":"t"}]}`},
		{`{"type":"message","role":"user","content":[{"type":"refusal","refusal":"r","text":"t","annotations":[0]}]}`,
			`{"type":"message","role":"user","content":[{"type":"refusal","refusal":"r"}]}`},
		{`{"type":"message","role":"user","content":[{"type":"input_image","image_url":"u","text":"t","logprobs":[0]}]}`,
			`{"type":"message","role":"user","content":[{"type":"input_image","image_url":"u"}]}`},
	} {
		var it Item
		require.NoError(t, json.Unmarshal([]byte(tc.in), &it))
		assert.Equal(t, tc.want, strings.TrimSpace(marshalLine(it)), tc.in)

	}
}
