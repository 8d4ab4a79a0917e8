package openaicompat

import (
	"fmt"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/toolname"
)

// Conversation turns the request into a harmony conversation ready for
// harmony's Encoding.RenderConversationForCompletion(conv,
// harmony.RoleAssistant, nil): a system message built from opts and the
// request's reasoning effort, a developer message with the instructions, the
// function tools and the response format, and the messages. A nil opts means
// the defaults. It calls [ChatCompletionRequest.Validate] first. Errors are
// [*RequestError]s.
func (r *ChatCompletionRequest) Conversation(opts *RequestOptions) (harmony.Conversation, error) {
	set, err := r.settings()
	if err != nil {
		return harmony.Conversation{}, err
	}
	if len(r.Messages) == 0 {
		return harmony.Conversation{}, reqErr(-1, "messages", ErrInvalidRequest, "at least one message is required")
	}
	b := newBuilder(opts, "messages")
	return b.build(set, len(r.Messages), func(i int) error { return b.chatMessage(i, &r.Messages[i]) })
}

// settings validates the request and reads what it says besides its
// messages.
func (r *ChatCompletionRequest) settings() (settings, error) {
	var s settings
	if err := r.Validate(); err != nil {
		return s, err
	}
	var err error
	if s.effort, err = effort(r.ReasoningEffort, "reasoning_effort", reasoningEffort(r.Reasoning), "reasoning.effort"); err != nil {
		return s, err
	}
	if s.tools, err = functionTools(r.toolDefs(), r.ToolChoice); err != nil {
		return s, err
	}
	if s.formats, err = r.formats(); err != nil {
		return s, err
	}
	return s, nil
}

// formats reads the request's response_format (see outputFormat).
func (r *ChatCompletionRequest) formats() ([]harmony.ResponseFormat, error) {
	if f := r.ResponseFormat; f != nil {
		return outputFormat("response_format", "response format", f.Type, f.JSONSchema, "response_format.json_schema")
	}
	return nil, nil
}

// toolDefs returns the request's tools in the form both APIs share.
func (r *ChatCompletionRequest) toolDefs() []toolDef {
	defs := make([]toolDef, len(r.Tools))
	for i, t := range r.Tools {
		defs[i] = toolDef{typ: t.Type, fn: t.Function, fnParam: fmt.Sprintf("tools[%d].function.", i)}
	}
	return defs
}

// Validate checks the request's parameters that are not part of the
// conversation: n must be 1 (one choice is sampled; [ErrUnsupportedParameter]),
// max_tokens and max_completion_tokens at least 1, and stream_options is
// allowed only with stream ([ErrInvalidRequest]). Errors are
// [*RequestError]s. [ChatCompletionRequest.Conversation] calls it.
func (r *ChatCompletionRequest) Validate() error {
	if r.N != nil && *r.N != 1 {
		return reqErr(-1, "n", ErrUnsupportedParameter, "n is %d: only one choice is sampled", *r.N)
	}
	if err := checkLimit("max_tokens", r.MaxTokens); err != nil {
		return err
	}
	if err := checkLimit("max_completion_tokens", r.MaxCompletionTokens); err != nil {
		return err
	}
	if r.StreamOptions != nil && !r.Stream {
		return reqErr(-1, "stream_options", ErrInvalidRequest, "stream_options is only allowed when stream is true")
	}
	return nil
}

func reasoningEffort(c *ReasoningConfig) string {
	if c == nil {
		return ""
	}
	return c.Effort
}

// chatMessage adds message i of the request.
func (b *builder) chatMessage(i int, m *ChatMessage) error {
	if m.Name != "" && !toolname.Valid(m.Name, 0) {
		return reqErr(i, b.param(i, "name"), ErrInvalidName, "%q does not match ^[a-zA-Z0-9_-]+$", clip(m.Name))
	}
	// Fields that belong to another role are errors rather than dropped.
	if len(m.ToolCalls) > 0 && m.Role != "assistant" {
		return reqErr(i, b.param(i, "tool_calls"), ErrInvalidRequest, "only assistant messages have tool_calls")
	}
	if m.ToolCallID != "" && m.Role != "tool" {
		return reqErr(i, b.param(i, "tool_call_id"), ErrInvalidRequest, "only tool messages have a tool_call_id")
	}
	if m.Role != "assistant" {
		for _, f := range []struct{ name, v string }{{"reasoning", m.Reasoning}, {"reasoning_content", m.ReasoningContent}, {"refusal", m.Refusal}} {
			if f.v != "" {
				return reqErr(i, b.param(i, f.name), ErrInvalidRequest, "only assistant messages have %s", f.name)
			}
		}
	}
	switch m.Role {
	case "system", "developer":
		if m.Name != "" {
			return reqErr(i, b.param(i, "name"), ErrUnsupportedRequestContent,
				"a name on a %s message cannot be rendered: system and developer messages become the developer message's instructions", m.Role)
		}
		text, err := b.chatText(i, m.Content, true)
		if err != nil {
			return err
		}
		b.instruct(text)
	case "user":
		text, err := b.chatText(i, m.Content, true)
		if err != nil {
			return err
		}
		return b.user(i, m.Name, text)
	case "assistant":
		return b.chatAssistant(i, m)
	case "tool":
		text, err := b.chatText(i, m.Content, true)
		if err != nil {
			return err
		}
		return b.result(i, b.param(i, "tool_call_id"), m.ToolCallID, b.param(i, "name"), m.Name, text)
	default:
		return reqErr(i, b.param(i, "role"), ErrUnknownMessageRole, "%q is not system, developer, user, assistant or tool", clip(m.Role))
	}
	return nil
}

func (b *builder) chatAssistant(i int, m *ChatMessage) error {
	reasoning := m.Reasoning
	if m.ReasoningContent != "" {
		if reasoning != "" && reasoning != m.ReasoningContent {
			return reqErr(i, b.param(i, "reasoning_content"), ErrInvalidRequest, "reasoning and reasoning_content differ")
		}
		reasoning = m.ReasoningContent
	}
	text, err := b.chatText(i, m.Content, false)
	if err != nil {
		return err
	}
	if m.Refusal != "" {
		text = joinText(text, m.Refusal)
	}
	if m.Content == nil && m.Refusal == "" && reasoning == "" && len(m.ToolCalls) == 0 {
		return reqErr(i, b.param(i, "content"), ErrInvalidRequest, "an assistant message needs content, reasoning or tool_calls")
	}
	if reasoning != "" {
		b.reasoning(m.Name, reasoning)
	}
	if text != "" || (len(m.ToolCalls) == 0 && (m.Content != nil || m.Refusal != "")) {
		b.say(m.Name, text, len(m.ToolCalls) > 0)
	}
	for j, tc := range m.ToolCalls {
		p := b.param(i, fmt.Sprintf("tool_calls[%d]", j))
		if tc.Type != "" && tc.Type != "function" {
			return reqErr(i, p+".type", ErrInvalidToolCall, "tool call type %q is not supported (only \"function\")", clip(tc.Type))
		}
		if err := b.call(i, p, m.Name, tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
			return err
		}
	}
	return nil
}

// joinText joins two pieces of visible text with a blank line.
func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// chatText flattens a message's content into text: parts are concatenated
// as they are, with no separator. A refusal part is its text; an image is
// the placeholder or an error; any other part type is an error. A nil
// content is an error when required, else "".
func (b *builder) chatText(i int, c *Content, required bool) (string, error) {
	if c == nil {
		if required {
			return "", reqErr(i, b.param(i, "content"), ErrInvalidRequest, "content is required")
		}
		return "", nil
	}
	if c.Parts == nil {
		return c.Text, nil
	}
	return flatten(b, i, "content", c.Parts, chatPartText, "image_url", "content part type %q is not supported")
}

// chatPartText returns the type of a content part and, for a text or
// refusal part, its text.
func chatPartText(p *ContentPart) (typ, text string, ok bool) {
	switch p.Type {
	case "text":
		return p.Type, p.Text, true
	case "refusal":
		return p.Type, p.Refusal, true
	}
	return p.Type, "", false
}
