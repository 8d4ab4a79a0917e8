package msghdr

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestText(t *testing.T) {
	call := Fields{Author: "assistant", Recipient: "functions.f", Channel: "commentary", ContentType: JSONContentType}
	tests := []struct {
		f         Fields
		reference string
		gptOss    string
	}{
		{call,
			"assistant to=functions.f<|channel|>commentary <|constrain|>json",
			"assistant<|channel|>commentary to=functions.f <|constrain|>json"},
		{Fields{Author: "functions.f", Recipient: "assistant", Channel: "commentary"},
			"functions.f to=assistant<|channel|>commentary",
			"functions.f<|channel|>commentary to=assistant"},
		{Fields{Author: "user", Name: "bob"}, "user:bob", "user:bob"},
		{Fields{Author: "user", Recipient: "all", Channel: "final"}, "user<|channel|>final", "user<|channel|>final"},
		{Fields{Author: "assistant", Recipient: "python", ContentType: "code"},
			"assistant to=python code", "assistant to=python code"},
		{Fields{Channel: "analysis"}, "<|channel|>analysis", "<|channel|>analysis"},
		{Fields{Author: "assistant"}, "assistant", "assistant"},
		{Fields{Author: "a", ContentType: ConstrainMarker}, "a <|constrain|>", "a <|constrain|>"},
		{Fields{}, "", ""},
	}
	for _, tt := range tests {
		for o, want := range map[Order]string{Reference: tt.reference, GptOss: tt.gptOss} {
			assert.Equal(t, want, tt.f.Text(o), "%+v.Text(%d)", tt.f, o)
			assert.Equal(t, "x"+want, string(tt.f.AppendText([]byte("x"), o)), "%+v.AppendText(%d)", tt.f, o)
		}
	}

	var kinds []Kind
	for p := range Pieces(Reference, call.Author, call.Name, call.Recipient, call.Channel, call.ContentType) {
		kinds = append(kinds, p.Kind)
	}
	assert.Equal(t, []Kind{Text, Text, Channel, Text, Text, Constrain, Text}, kinds, "kinds of the reference pieces")
	n := 0
	for range Pieces(GptOss, call.Author, call.Name, call.Recipient, call.Channel, call.ContentType) {
		if n++; n == 3 {
			break // stopping early is allowed
		}
	}
	assert.Equal(t, 3, n, "pieces yielded before the loop stopped")
}

func TestCutMarker(t *testing.T) {
	tests := []struct {
		s, before string
		k         Kind
		after     string
		found     bool
	}{
		{"assistant", "assistant", Text, "", false},
		{"", "", Text, "", false},
		{"a<|channel|>b", "a", Channel, "b", true},
		{"a <|constrain|>json", "a ", Constrain, "json", true},
		{"<|channel|>x<|constrain|>y", "", Channel, "x<|constrain|>y", true},
		{"a<|end|>b<|channel|>c", "a<|end|>b", Channel, "c", true},
		{"a<|<|channel|>", "a<|", Channel, "", true},
		{"a<|end|>", "a<|end|>", Text, "", false},
		{"<|", "<|", Text, "", false},
	}
	for _, tt := range tests {
		before, k, after, found := CutMarker(tt.s)
		assert.Equal(t, []any{tt.before, tt.k, tt.after, tt.found}, []any{before, k, after, found}, "CutMarker(%q)", tt.s)
	}
	assert.True(t, IsMarker(ChannelMarker), "IsMarker(ChannelMarker)")
	assert.True(t, IsMarker(ConstrainMarker), "IsMarker(ConstrainMarker)")
	assert.False(t, IsMarker("<|start|>"), "IsMarker(<|start|>)")
	assert.Equal(t, ChannelMarker, Channel.Marker())
	assert.Equal(t, ConstrainMarker, Constrain.Marker())
	assert.Equal(t, "", Text.Marker())
}
