package harmony

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// injectionConversation puts s into every field a user, a tool, a model or a
// tool author controls.
func injectionConversation(s string) Conversation {
	schema, _ := json.Marshal(map[string]any{
		"type":        "object",
		"description": s,
		"properties": map[string]any{
			"p" + s: map[string]any{"type": "string", "description": s, "title": s, "enum": []string{s}, "default": s, "examples": []string{s}},
			"q":     map[string]any{"oneOf": []any{map[string]any{"type": "string", "description": s, "default": s}, map[string]any{"type": "number"}}},
		},
		"required": []string{"q"},
	})
	ns := ToolNamespaceConfig{Name: "ns" + s, Description: s + "\n" + s, Tools: []ToolDescription{
		{Name: "tool" + s, Description: s, Parameters: schema},
		{Name: s, Description: s},
	}}
	sys := SystemContent{
		ModelIdentity:         s,
		ReasoningEffort:       ReasoningHigh,
		ConversationStartDate: s,
		KnowledgeCutoff:       s,
		ChannelConfig:         &ChannelConfig{ValidChannels: []string{s, "final"}, ChannelRequired: true},
	}.WithTools(ns).WithTools(ToolNamespaceConfig{Name: s, Description: s})
	dev := DeveloperContent{Instructions: s}.WithTools(ns).WithFunctionTools(ToolDescription{Name: s, Description: s, Parameters: schema})
	return NewConversation(
		NewSystemMessage(sys),
		NewDeveloperMessage(dev),
		NewTextMessage(RoleUser, s).WithName(s),
		NewTextMessage(RoleAssistant, s).WithChannel(s).WithRecipient(s).WithContentType("json"+s),
		NewTextMessage(RoleAssistant, s).WithChannel("commentary").WithRecipient("functions."+s).WithContentType("<|constrain|>"+s),
		NewToolMessage(s, s).WithRecipient(s).WithChannel(s),
		NewTextMessage(RoleAssistant, "a"+s+"b").WithChannel(ChannelFinal),
	)
}

func specialsIn(tokens []Token) []Token {
	var out []Token
	for _, t := range tokens {
		if IsSpecial(t) {
			out = append(out, t)
		}
	}
	return out
}

// TestNoSpecialTokenFromText feeds the text of every special token through
// every field and checks that the special tokens of the output are exactly
// those of the same conversation with harmless text: the renderer's own.
func TestNoSpecialTokenFromText(t *testing.T) {
	enc := mustEncoding(t)
	render := func(c Conversation) []Token {
		toks, err := enc.RenderConversationForCompletion(c, RoleAssistant, &RenderOptions{KeepAnalysis: true})
		if err != nil {
			t.Fatal(err)
		}
		return toks
	}
	want := specialsIn(render(injectionConversation("x")))
	if n := strings.Count(showTokens(want), "200003"); n != 1 {
		t.Fatalf("baseline has %d <|constrain|> tokens, want 1", n)
	}
	names := SpecialTokens()
	if testing.Short() {
		names = names[:40]
	}
	for _, name := range append(names, "<|refusal|>", "<|untrusted|>", "<|end_untrusted|>", "<|meta_end|>") {
		got := specialsIn(render(injectionConversation(name)))
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: special tokens %v, want %v", name, got, want)
		}
	}
}

func showTokens(ts []Token) string {
	b, _ := json.Marshal(ts)
	return string(b)
}
