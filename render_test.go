package harmony

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/benchdata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func renderText(t *testing.T, enc *Encoding, toks []Token) string {
	t.Helper()
	s, err := enc.Decode(toks)
	require.NoError(t, err)
	return s
}

func TestRenderMessageHeaders(t *testing.T) {
	enc := mustEncoding(t)
	tests := []struct {
		name string
		msg  Message
		want string
	}{
		{"user", NewTextMessage(RoleUser, "Hi"), "<|start|>user<|message|>Hi<|end|>"},
		{"named user", NewTextMessage(RoleUser, "Hi").WithName("ann"), "<|start|>user:ann<|message|>Hi<|end|>"},
		{"recipient all is not rendered", NewTextMessage(RoleUser, "Hi").WithRecipient("all"), "<|start|>user<|message|>Hi<|end|>"},
		{"assistant to all still calls", NewTextMessage(RoleAssistant, "x").WithRecipient("all"), "<|start|>assistant<|message|>x<|call|>"},
		{"tool call", NewTextMessage(RoleAssistant, `{"a":1}`).WithChannel("commentary").WithRecipient("functions.f").WithContentType("<|constrain|>json"),
			`<|start|>assistant to=functions.f<|channel|>commentary <|constrain|>json<|message|>{"a":1}<|call|>`},
		{"plain content type", NewTextMessage(RoleAssistant, "print(1)").WithRecipient("python").WithContentType("code"), "<|start|>assistant to=python code<|message|>print(1)<|call|>"},
		{"tool reply", NewToolMessage("functions.f", "42").WithRecipient("assistant").WithChannel("commentary"), "<|start|>functions.f to=assistant<|channel|>commentary<|message|>42<|end|>"},
		{"several parts", NewTextMessage(RoleUser, "a").WithContent(TextContent{Text: "b"}, &TextContent{Text: "c"}), "<|start|>user<|message|>abc<|end|>"},
		{"empty system content", Message{Author: Author{Role: RoleSystem}, Content: []Content{SystemContent{}}}, "<|start|>system<|message|><|end|>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := enc.RenderMessage(tt.msg, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.want, renderText(t, enc, toks))
		})
	}
}

func TestRenderErrors(t *testing.T) {
	enc := mustEncoding(t)
	tests := []struct {
		name  string
		msgs  []Message
		index int
		err   error
	}{
		{"tool without name", []Message{NewTextMessage(RoleUser, "x"), {Author: Author{Role: RoleTool}, Content: []Content{TextContent{Text: "x"}}}}, 1, ErrMissingToolName},
		{"system content in user message", []Message{{Author: Author{Role: RoleUser}, Content: []Content{NewSystemContent()}}}, 0, ErrMisplacedContent},
		{"developer content in system message", []Message{{Author: Author{Role: RoleSystem}, Content: []Content{NewDeveloperContent()}}}, 0, ErrMisplacedContent},
		{"unknown role", []Message{NewTextMessage("robot", "x")}, 0, ErrUnknownRole},
		{"nil content part", []Message{{Author: Author{Role: RoleUser}, Content: []Content{nil}}}, 0, ErrUnsupportedContent},
		{"bad effort", []Message{NewSystemMessage(NewSystemContent().WithReasoningEffort("Extreme"))}, 0, ErrUnsupportedContent},
		{"bad schema", []Message{NewDeveloperMessage(NewDeveloperContent().WithFunctionTools(NewToolDescription("f", "d", json.RawMessage(`{"type":`))))}, 0, ErrInvalidSchema},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := []Token{1, 2, 3}
			out, err := enc.AppendConversation(dst, NewConversation(tt.msgs...), nil)
			var re *RenderError
			require.ErrorAs(t, err, &re)
			require.Equal(t, tt.index, re.MessageIndex, "the *RenderError's message index")
			require.ErrorIs(t, err, tt.err)
			assert.True(t, strings.HasPrefix(err.Error(), "harmony: "), "message %q lacks the package prefix", err)
			assert.Equal(t, dst, out)
		})
	}
	_, err := enc.RenderConversationForCompletion(Conversation{}, "robot", nil)
	assert.ErrorIs(t, err, ErrUnknownRole, "bad next role")
}

func TestCheckHeaderField(t *testing.T) {
	for _, tt := range []struct{ s, err string }{
		{"", ""},
		{"functions.get_weather", ""},
		{"json", ""},
		{"é", ""},
		{"<x", ""},
		{"to", ""},
		{"\x7f", ""},
		{"a b", "has white space at byte 1"},
		{"a\tb", "has white space at byte 1"},
		{"ab\u00a0", "has white space at byte 2"},
		{"\u2003", "has white space at byte 0"},
		{"x<|y", `contains "<|"`},
		{"to=x", `starts with "to="`},
		{"to=é", `starts with "to="`},
	} {
		err := CheckHeaderField(tt.s)
		if tt.err == "" {
			assert.NoError(t, err, "CheckHeaderField(%q)", tt.s)
		} else {
			assert.EqualError(t, err, tt.err, "CheckHeaderField(%q)", tt.s)
		}
	}
}

func TestRenderAppendAndVariants(t *testing.T) {
	enc := mustEncoding(t)
	conv := NewConversation(
		NewTextMessage(RoleUser, "What is 2 + 2?"),
		NewTextMessage(RoleAssistant, "Easy.").WithChannel("analysis"),
		NewTextMessage(RoleAssistant, "4").WithChannel("final"),
	)
	plain, err := enc.RenderConversation(conv, nil)
	require.NoError(t, err)
	assert.Equal(t, "<|start|>user<|message|>What is 2 + 2?<|end|><|start|>assistant<|channel|>final<|message|>4<|end|>", renderText(t, enc, plain), "analysis not dropped")
	kept, _ := enc.RenderConversation(conv, &RenderOptions{Reasoning: ReasoningKeepAll})
	assert.Contains(t, renderText(t, enc, kept), "Easy.", "ReasoningKeepAll dropped analysis")
	training, _ := enc.RenderConversationForTraining(conv, nil)
	assert.Equal(t, append(append([]Token(nil), plain[:len(plain)-1]...), TokenReturn), training, "training")
	completion, _ := enc.RenderConversationForCompletion(conv, RoleAssistant, nil)
	assert.Equal(t, plain, completion[:len(plain)], "completion's prompt")
	assert.Equal(t, "<|start|>assistant", renderText(t, enc, completion[len(plain):]), "completion suffix")
	prefix := []Token{7, 8}
	appended, _ := enc.AppendConversationForTraining(prefix, conv, nil)
	assert.Equal(t, prefix, appended[:2], "Append form does not append")
	assert.Equal(t, training, appended[2:], "Append form does not append")
	// A single message renders as a one-message conversation does.
	one, _ := enc.RenderMessage(conv.Messages[0], nil)
	assert.Equal(t, plain[:len(one)], one, "RenderMessage differs from RenderConversation")
}

func TestFunctionToolsNote(t *testing.T) {
	enc := mustEncoding(t)
	note := "Calls to these tools must go to the commentary channel: 'functions'."
	sys := NewSystemMessage(NewSystemContent())
	withTools := NewDeveloperMessage(NewDeveloperContent().WithFunctionTools(NewToolDescription("f", "does f", nil)))
	noTools := NewDeveloperMessage(NewDeveloperContent().WithInstructions("be brief").WithFunctionTools())
	for _, tt := range []struct {
		conv Conversation
		want bool
	}{
		{NewConversation(sys, withTools), true},
		{NewConversation(sys, noTools), false},
		{NewConversation(sys), false},
	} {
		toks, err := enc.RenderConversation(tt.conv, nil)
		require.NoError(t, err)
		assert.Equal(t, tt.want, strings.Contains(renderText(t, enc, toks), note), "note present")
	}
	toks, _ := enc.RenderMessage(sys, &MessageOptions{ConversationHasFunctionTools: true})
	assert.Contains(t, renderText(t, enc, toks), note, "MessageOptions.ConversationHasFunctionTools ignored")
}

func TestMessageJSON(t *testing.T) {
	in := `{"messages":[` +
		`{"role":"system","content":[{"type":"system_content","model_identity":"m","reasoning_effort":"High","conversation_start_date":"2025-06-28","knowledge_cutoff":"2024-06","channel_config":{"valid_channels":["analysis","final"],"channel_required":true},"tools":{"browser":{"name":"browser","description":null,"tools":[{"name":"search","description":"d","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}}}}]}}}]},` +
		`{"role":"developer","content":[{"type":"developer_content","instructions":"be brief"}]},` +
		`{"role":"user","name":null,"content":"Hi"},` +
		`{"role":"assistant","recipient":"functions.f","channel":"commentary","content_type":"<|constrain|>json","content":[{"type":"text","text":"{}"}]},` +
		`{"role":"tool","name":"functions.f","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}]}`
	var c Conversation
	require.NoError(t, json.Unmarshal([]byte(in), &c))
	require.Len(t, c.Messages, 5, "decoded %+v", c)
	require.Equal(t, "{}", c.Messages[3].Text(), "decoded %+v", c)
	require.Equal(t, "ab", c.Messages[4].Text(), "decoded %+v", c)
	require.Empty(t, c.Messages[2].Name, "decoded %+v", c)
	sys := c.Messages[0].Content[0].(SystemContent)
	assert.Equal(t, EffortHigh, sys.ReasoningEffort, "system content %+v", sys)
	assert.Equal(t, `{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"number"}}}`, string(sys.Tools["browser"].Tools[0].Parameters), "system content %+v", sys)
	out, err := json.Marshal(c)
	require.NoError(t, err)
	var back Conversation
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, c, back)
	// One text part is written as a string; unset fields are left out.
	m, _ := json.Marshal(c.Messages[3])
	assert.Equal(t, `{"role":"assistant","recipient":"functions.f","content":"{}","channel":"commentary","content_type":"\u003c|constrain|\u003ejson"}`, string(m))
	var arr Conversation
	assert.NoError(t, json.Unmarshal([]byte(`[{"role":"user","content":"x"}]`), &arr), "bare array")
	assert.Len(t, arr.Messages, 1, "bare array")
	for _, bad := range []string{
		`{"messages":[{"role":"robot","content":"x"}]}`,
		`{"messages":[{"role":"user"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"image","url":"x"}]}]}`,
		`{"messages":[{"role":"system","content":[{"type":"system_content","reasoning_effort":"Max"}]}]}`,
		`{"messages":[{"role":"user","content":42}]}`,
		`{"other":[]}`,
	} {
		var c Conversation
		assert.Error(t, json.Unmarshal([]byte(bad), &c), "accepted %s", bad)
	}
}

func TestConstructors(t *testing.T) {
	s := NewSystemContent()
	assert.Equal(t, DefaultModelIdentity, s.ModelIdentity, "default")
	assert.Equal(t, EffortMedium, s.ReasoningEffort, "default")
	assert.Equal(t, "2024-06", s.KnowledgeCutoff, "default")
	assert.Equal(t, &ChannelConfig{ValidChannels: []string{"analysis", "commentary", "final"}, ChannelRequired: true}, s.ChannelConfig, "default")
	withBrowser := s.WithTools(BrowserNamespace())
	assert.Nil(t, s.Tools, "WithTools modified its receiver")
	assert.Len(t, withBrowser.Tools, 1, "WithTools")
	both := withBrowser.WithTools(PythonNamespace())
	assert.Len(t, withBrowser.Tools, 1, "WithTools shares its map")
	assert.Len(t, both.Tools, 2, "WithTools")
	d := NewDeveloperContent().WithInstructions("x").WithFunctionTools(NewToolDescription("f", "", nil))
	assert.Equal(t, "functions", d.Tools["functions"].Name, "function tools %+v", d)
	assert.Len(t, d.Tools["functions"].Tools, 1, "function tools %+v", d)
	m := NewTextMessage(RoleUser, "a")
	m2 := m.WithContent(TextContent{Text: "b"})
	assert.Len(t, m.Content, 1, "WithContent shares its slice")
	assert.Equal(t, "ab", m2.Text())
}

func TestJSONErrorsArePrefixed(t *testing.T) {
	for _, bad := range []string{`{"messages":[{"role":"robot","content":"x"}]}`, `{"messages":[{"role":1}]}`, `[{"role":"user","content":[{"type":"text","text":5}]}]`, `{"messages":`} {
		var c Conversation
		err := json.Unmarshal([]byte(bad), &c)
		if !assert.Error(t, err, bad) {
			continue
		}
		assert.True(t, strings.HasPrefix(err.Error(), "harmony: ") || strings.HasPrefix(err.Error(), "unexpected end of JSON"), "%s: %v", bad, err)
		assert.LessOrEqual(t, strings.Count(err.Error(), "harmony: "), 1, "%s: %v", bad, err)
	}
}

func TestResponseFormats(t *testing.T) {
	enc := mustEncoding(t)
	// The harmony guide's structured-output example.
	dev := NewDeveloperContent().WithInstructions("You are a helpful shopping assistant").WithResponseFormat(ResponseFormat{
		Name:   "shopping_list",
		Schema: json.RawMessage(`{"properties": {"items": {"type": "array", "description": "entries on the shopping list", "items": {"type": "string"}}}, "type": "object"}`),
	})
	conv := NewConversation(NewDeveloperMessage(dev), NewTextMessage(RoleUser, "I need to buy coffee, soda and eggs"))
	toks, err := enc.RenderConversationForCompletion(conv, RoleAssistant, nil)
	require.NoError(t, err)
	want := "<|start|>developer<|message|># Instructions\n\nYou are a helpful shopping assistant\n\n# Response Formats\n\n## shopping_list\n\n" +
		`{"properties":{"items":{"type":"array","description":"entries on the shopping list","items":{"type":"string"}}},"type":"object"}` +
		"<|end|><|start|>user<|message|>I need to buy coffee, soda and eggs<|end|><|start|>assistant"
	assert.Equal(t, want, renderText(t, enc, toks))
	// A description, a second format, numbers as the reference prints them.
	dev = NewDeveloperContent().WithResponseFormat(ResponseFormat{Name: "a", Description: "first\nline two", Schema: json.RawMessage(`{"type":"number","default":1e21,"minimum":-0}`)}).
		WithResponseFormat(ResponseFormat{Name: "b", Schema: json.RawMessage(`true`)})
	toks, err = enc.RenderMessage(NewDeveloperMessage(dev), nil)
	require.NoError(t, err)
	want = "<|start|>developer<|message|># Response Formats\n\n## a\n\n// first\n// line two\n" + `{"type":"number","default":1e21,"minimum":-0.0}` + "\n\n## b\n\ntrue<|end|>"
	assert.Equal(t, want, renderText(t, enc, toks))
	bad := NewDeveloperContent().WithResponseFormat(ResponseFormat{Name: "x", Schema: json.RawMessage(`{`)})
	_, err = enc.RenderMessage(NewDeveloperMessage(bad), nil)
	assert.ErrorIs(t, err, ErrInvalidSchema, "invalid schema")
	// JSON round trip; without formats the field is left out.
	b, _ := json.Marshal(NewDeveloperMessage(dev))
	var back Message
	assert.NoError(t, json.Unmarshal(b, &back), "round trip: %s", b)
	assert.Equal(t, NewDeveloperMessage(dev), back, "round trip: %s", b)
	b, _ = json.Marshal(NewDeveloperMessage(NewDeveloperContent().WithInstructions("x")))
	assert.NotContains(t, string(b), "response_formats", "empty formats written")
}

// FuzzJSONString checks the fast string decoder of Conversation.UnmarshalJSON
// against encoding/json on every literal encoding/json accepts.
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{`"plain"`, `"a\nb\t\"q\"\\ \/ \u00e9 \ud83d\ude00 \ud800 x \udc00\ud800"`, `"\u0041\u00"`, "\"caf\xc3\xa9\"", "\"\xff\"", `"\b\f\r"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, lit []byte) {
		var want string
		if json.Unmarshal(lit, &want) != nil {
			return
		}
		if !json.Valid(lit) || len(lit) == 0 || lit[0] != '"' {
			return
		}
		got, err := jsonString(lit)
		require.NoError(t, err, "jsonString(%q)", lit)
		require.Equal(t, want, got, "jsonString(%q)", lit)
	})
}

// TestMessageAppendJSON checks the hand-written message JSON against
// encoding/json on awkward text.
func TestMessageAppendJSON(t *testing.T) {
	texts := []string{"plain", "quote \" backslash \\ slash /", "ctl \x00\x01\x1f \b\f\n\r\t", "html <|start|> & >", "\u2028\u2029", "bad \xff\xfe utf8", "emoji 🌍 e\u0301"}
	for _, s := range texts {
		m := NewTextMessage(RoleAssistant, s).WithChannel(s).WithRecipient(s).WithContentType(s).WithName(s)
		got, err := m.AppendJSON(nil)
		require.NoError(t, err)
		var want bytes.Buffer
		e := json.NewEncoder(&want)
		e.SetEscapeHTML(false)
		require.NoError(t, e.Encode(map[string]string{"x": s}))
		lit := strings.TrimSuffix(strings.TrimPrefix(want.String(), `{"x":`), "}\n")
		exp := `{"role":"assistant","name":` + lit + `,"recipient":` + lit + `,"content":` + lit + `,"channel":` + lit + `,"content_type":` + lit + `}`
		assert.Equal(t, exp, string(got), "%q", s)
	}
	two := NewTextMessage(RoleUser, "a").WithContent(TextContent{Text: "<b>"})
	got, _ := two.AppendJSON([]byte("x"))
	assert.Equal(t, `x{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"<b>"}]}`, string(got), "parts")
}

// TestWarmRenderAllocs pins the allocations of a warm small render — a
// server's steady state, with the developer message's text and tools cached
// — into a caller's buffer that is already large enough. Each message
// header's "to=" or ":name" concatenation may allocate; this conversation
// has none, so the render allocates nothing.
func TestWarmRenderAllocs(t *testing.T) {
	enc := mustEncoding(t)
	c := benchConversation(t, benchdata.Small())
	dst, err := enc.AppendConversationForCompletion(nil, c, RoleAssistant, nil)
	require.NoError(t, err)
	allocs := testing.AllocsPerRun(1000, func() {
		dst, err = enc.AppendConversationForCompletion(dst[:0], c, RoleAssistant, nil)
	})
	require.NoError(t, err)
	require.Equal(t, 0.0, allocs, "allocations per warm small render")
}

// TestJSONErrorPaths checks that JSON decoding errors are *JSONError values
// naming the offending value's path and wrapping the right sentinel.
func TestJSONErrorPaths(t *testing.T) {
	for _, tc := range []struct {
		in, path, msg string
		sentinel      error
	}{
		{`{"messages":[{"role":"user","content":"a"},{"role":"robot","content":"x"}]}`, "$.messages[1].role",
			`harmony: JSON $.messages[1].role: unknown role "robot"`, ErrUnknownRole},
		{`[{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"}]}]`, "$[0].content[1].type",
			`harmony: JSON $[0].content[1].type: unsupported content "image"`, ErrUnsupportedContent},
		{`{"messages":[{"role":"user","content":[{"type":"text"}]}]}`, "$.messages[0].content[0].text",
			`harmony: JSON $.messages[0].content[0].text: missing field`, ErrMissingField},
		{`{"messages":[{"role":"user"}]}`, "$.messages[0].content", `harmony: JSON $.messages[0].content: missing field`, ErrMissingField},
		{`{}`, "$.messages", `harmony: JSON $.messages: missing field`, ErrMissingField},
		{`[{"role":"system","content":[{"type":"system_content","reasoning_effort":"Extreme"}]}]`, "$[0].content[0]",
			`harmony: JSON $[0].content[0]: unknown reasoning effort "Extreme"`, ErrUnknownReasoningEffort},
	} {
		var c Conversation
		err := json.Unmarshal([]byte(tc.in), &c)
		var je *JSONError
		require.ErrorAs(t, err, &je, tc.in)
		assert.Equal(t, tc.path, je.Path, tc.in)
		assert.EqualError(t, err, tc.msg)
		assert.ErrorIs(t, err, tc.sentinel, tc.in)
	}
	// A message alone reports paths from its own root.
	var m Message
	err := json.Unmarshal([]byte(`{"role":"user","content":[{"type":"x"}]}`), &m)
	assert.EqualError(t, err, `harmony: JSON $.content[0].type: unsupported content "x"`)
	// encoding/json's type errors point at the field it names.
	err = json.Unmarshal([]byte(`{"messages":[{"role":1,"content":"x"}]}`), &Conversation{})
	var je *JSONError
	require.ErrorAs(t, err, &je)
	assert.Equal(t, "$.messages.role", je.Path)
}

// TestReasoningPolicies renders histories under each policy: the
// reference's drops only the analysis before the first final, and only when
// the last assistant message is final; the guides' drops the analysis of
// every answered turn and keeps that of a turn still in its tool calls.
func TestReasoningPolicies(t *testing.T) {
	enc := mustEncoding(t)
	u := func(s string) Message { return NewTextMessage(RoleUser, s) }
	a := func(ch, s string) Message { return NewTextMessage(RoleAssistant, s).WithChannel(ch) }
	call := NewTextMessage(RoleAssistant, `{}`).WithChannel(ChannelCommentary).WithRecipient("functions.f").WithContentType("<|constrain|>json")
	result := NewToolMessage("functions.f", "ok").WithRecipient("assistant").WithChannel(ChannelCommentary)
	multi := []Message{u("Q1"), a("analysis", "A1"), a("final", "F1"), u("Q2"), a("analysis", "A2"), a("final", "F2"), u("Q3")}
	tools := []Message{u("Q1"), a("analysis", "A1"), a("final", "F1"), u("Q2"), a("analysis", "A2"), call, result, a("analysis", "A3")}
	texts := func(msgs []Message) string {
		var out []string
		for _, m := range msgs {
			out = append(out, m.Text())
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct {
		name   string
		msgs   []Message
		policy ReasoningPolicy
		want   string
	}{
		{"multi-turn, reference", multi, ReasoningReference, "Q1 F1 Q2 A2 F2 Q3"}, // it keeps A2, stale
		{"multi-turn, guide", multi, ReasoningGuide, "Q1 F1 Q2 F2 Q3"},
		{"multi-turn, keep", multi, ReasoningKeepAll, "Q1 A1 F1 Q2 A2 F2 Q3"},
		{"answered, reference", multi[:6], ReasoningReference, "Q1 F1 Q2 A2 F2"},
		{"answered, guide", multi[:6], ReasoningGuide, "Q1 F1 Q2 F2"},
		{"in tool calls, reference", tools, ReasoningReference, "Q1 A1 F1 Q2 A2 {} ok A3"},
		{"in tool calls, guide", tools, ReasoningGuide, "Q1 F1 Q2 A2 {} ok A3"},
		{"in tool calls, keep", tools, ReasoningKeepAll, "Q1 A1 F1 Q2 A2 {} ok A3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kept := tc.policy.Apply(tc.msgs)
			require.Equal(t, tc.want, texts(kept), "Apply keeps")
			got, err := enc.RenderConversation(NewConversation(tc.msgs...), &RenderOptions{Reasoning: tc.policy})
			require.NoError(t, err)
			want, err := enc.RenderConversation(NewConversation(kept...), &RenderOptions{Reasoning: ReasoningKeepAll})
			require.NoError(t, err)
			require.Equal(t, want, got, "rendering drops what Apply drops")
		})
	}
	for _, p := range []ReasoningPolicy{ReasoningReference, ReasoningGuide, ReasoningKeepAll} {
		var q ReasoningPolicy
		require.NoError(t, q.UnmarshalText([]byte(p.String())))
		require.Equal(t, p, q)
	}
	var q ReasoningPolicy
	require.Error(t, q.UnmarshalText([]byte("drop")))
	require.Equal(t, "ReasoningPolicy(7)", ReasoningPolicy(7).String())
}
