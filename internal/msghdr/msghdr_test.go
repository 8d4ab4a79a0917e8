package msghdr

import (
	"slices"
	"testing"
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
			if got := tt.f.Text(o); got != want {
				t.Errorf("%+v.Text(%d) = %q, want %q", tt.f, o, got, want)
			}
			if got := string(tt.f.AppendText([]byte("x"), o)); got != "x"+want {
				t.Errorf("%+v.AppendText(%d) = %q, want %q", tt.f, o, got, "x"+want)
			}
		}
	}

	var kinds []Kind
	for p := range Pieces(Reference, call.Author, call.Name, call.Recipient, call.Channel, call.ContentType) {
		kinds = append(kinds, p.Kind)
	}
	if want := []Kind{Text, Text, Channel, Text, Text, Constrain, Text}; !slices.Equal(kinds, want) {
		t.Errorf("kinds of the reference pieces = %v, want %v", kinds, want)
	}
	n := 0
	for range Pieces(GptOss, call.Author, call.Name, call.Recipient, call.Channel, call.ContentType) {
		if n++; n == 3 {
			break // stopping early is allowed
		}
	}
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
		if before != tt.before || k != tt.k || after != tt.after || found != tt.found {
			t.Errorf("CutMarker(%q) = %q, %d, %q, %v; want %q, %d, %q, %v",
				tt.s, before, k, after, found, tt.before, tt.k, tt.after, tt.found)
		}
	}
	if !IsMarker(ChannelMarker) || !IsMarker(ConstrainMarker) || IsMarker("<|start|>") {
		t.Error("IsMarker")
	}
	if Channel.Marker() != ChannelMarker || Constrain.Marker() != ConstrainMarker || Text.Marker() != "" {
		t.Error("Kind.Marker")
	}
}
