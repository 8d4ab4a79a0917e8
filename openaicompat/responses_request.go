package openaicompat

import (
	"fmt"
	"strings"

	"github.com/go-harmony/harmony"
)

// Conversation turns the request into a harmony conversation, as
// [ChatCompletionRequest.Conversation] does: the instructions, then the
// system and developer messages of the input, become the developer message's
// instructions; items are paired and checked by call_id with the same rules
// and errors. An assistant message followed by function calls in the same
// turn (before the next item that is not reasoning, an assistant message or
// a function call) is a commentary preamble, otherwise a final answer. A
// reasoning item's reasoning_text parts are its analysis message; its summary
// stands in only when it has no content. A nil opts means the defaults. It
// calls [ResponsesRequest.Validate] first. Errors are [*RequestError]s.
func (r *ResponsesRequest) Conversation(opts *RequestOptions) (harmony.Conversation, error) {
	if err := r.Validate(); err != nil {
		return harmony.Conversation{}, err
	}
	b := newBuilder(opts, "input")
	var eff harmony.ReasoningEffort
	if r.Reasoning != nil {
		var err error
		if eff, err = effort(r.Reasoning.Effort, "reasoning.effort", "", ""); err != nil {
			return harmony.Conversation{}, err
		}
	}
	tools, err := responsesTools(r.Tools, r.ToolChoice)
	if err != nil {
		return harmony.Conversation{}, err
	}
	formats, err := responsesFormat(r.Text)
	if err != nil {
		return harmony.Conversation{}, err
	}
	b.instruct(r.Instructions)
	items := r.Input.Items
	if items == nil {
		if r.Input.Text == "" {
			return harmony.Conversation{}, reqErr(-1, "input", ErrInvalidRequest, "input is required")
		}
		if err := b.user(0, "", r.Input.Text); err != nil {
			return harmony.Conversation{}, err
		}
		return b.conversation(eff, tools, formats), nil
	}
	if len(items) == 0 {
		return harmony.Conversation{}, reqErr(-1, "input", ErrInvalidRequest, "at least one input item is required")
	}
	preamble := preambles(items)
	for i := range items {
		if err := b.item(i, &items[i], preamble[i]); err != nil {
			return harmony.Conversation{}, err
		}
	}
	if err := b.requireResults(len(items), "input", "at the end of the input"); err != nil {
		return harmony.Conversation{}, err
	}
	return b.conversation(eff, tools, formats), nil
}

// preambles reports, for each item, whether it is an assistant message that
// function calls follow within the same turn.
// Validate checks the request's parameters that are not part of the
// conversation: previous_response_id is refused ([ErrUnsupportedParameter]),
// and max_output_tokens must be at least 1 ([ErrInvalidRequest]). Errors are
// [*RequestError]s. [ResponsesRequest.Conversation] calls it.
func (r *ResponsesRequest) Validate() error {
	if r.PreviousResponseID != "" {
		return reqErr(-1, "previous_response_id", ErrUnsupportedParameter,
			"responses are not stored: send the whole conversation as input")
	}
	return checkLimit("max_output_tokens", r.MaxOutputTokens)
}

func preambles(items []Item) []bool {
	out := make([]bool, len(items))
	callAhead := false
	for i := len(items) - 1; i >= 0; i-- {
		it := &items[i]
		switch {
		case it.Type == "function_call":
			callAhead = true
		case it.Type == "reasoning":
		case (it.Type == "message" || it.Type == "") && it.Role == "assistant":
			out[i] = callAhead
		default:
			callAhead = false
		}
	}
	return out
}

func responsesTools(tools []ResponsesTool, choice *ResponsesToolChoice) ([]harmony.ToolDescription, error) {
	seen := map[string]bool{}
	out := make([]harmony.ToolDescription, 0, len(tools))
	for i, t := range tools {
		p := fmt.Sprintf("tools[%d].", i)
		if t.Type != "function" {
			return nil, reqErr(-1, p+"type", ErrInvalidTool, "tool type %q is not supported (only \"function\")", t.Type)
		}
		d, err := functionTool(p, t.Name, t.Description, t.Parameters, seen)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	var tc *ToolChoice
	if choice != nil {
		tc = &ToolChoice{Mode: choice.Mode, Function: choice.Name}
	}
	declare, err := toolChoice(tc, "tool_choice", seen)
	if err != nil || !declare {
		return nil, err
	}
	return out, nil
}

func responsesFormat(t *ResponsesText) ([]harmony.ResponseFormat, error) {
	if t == nil || t.Format == nil {
		return nil, nil
	}
	f := t.Format
	switch f.Type {
	case "text", "json_object":
		return nil, nil
	case "json_schema":
		rf, err := schemaFormat("text.format.", f.Name, f.Description, f.Schema)
		if err != nil {
			return nil, err
		}
		return []harmony.ResponseFormat{rf}, nil
	}
	return nil, reqErr(-1, "text.format.type", ErrInvalidRequest, "text format %q is not text, json_object or json_schema", f.Type)
}

// item adds input item i.
func (b *builder) item(i int, it *Item, preamble bool) error {
	switch it.Type {
	case "message", "":
		if it.Type == "" && it.Role == "" {
			return reqErr(i, b.param(i, "type"), ErrUnknownItemType, "an input item needs a type or a role")
		}
		return b.messageItem(i, it, preamble)
	case "reasoning":
		if it.EncryptedContent != "" {
			return reqErr(i, b.param(i, "encrypted_content"), ErrUnsupportedContent,
				"encrypted reasoning cannot be read: send the reasoning_text content")
		}
		parts, field := it.Content, "content"
		if parts == nil || (parts.Parts != nil && len(parts.Parts) == 0) {
			parts, field = &ItemContent{Parts: it.Summary}, "summary"
		}
		text, err := b.itemText(i, field, parts, "reasoning_text", "summary_text")
		if err != nil {
			return err
		}
		if text != "" {
			b.reasoning("", text)
		}
		return nil
	case "function_call":
		return b.call(i, b.param(i, ""), "", it.CallID, it.Name, it.Arguments)
	case "function_call_output":
		text, err := b.itemText(i, "output", it.Output, "input_text", "output_text")
		if err != nil {
			return err
		}
		return b.result(i, b.param(i, "call_id"), it.CallID, "", "", text)
	}
	return reqErr(i, b.param(i, "type"), ErrUnknownItemType, "input item type %q is not supported", it.Type)
}

func (b *builder) messageItem(i int, it *Item, preamble bool) error {
	if it.Content == nil {
		return reqErr(i, b.param(i, "content"), ErrInvalidRequest, "content is required")
	}
	text, err := b.itemText(i, "content", it.Content, "input_text", "output_text", "text")
	if err != nil {
		return err
	}
	switch it.Role {
	case "system", "developer":
		b.instruct(text)
		return nil
	case "user":
		return b.user(i, "", text)
	case "assistant":
		b.say("", text, preamble)
		return nil
	}
	return reqErr(i, b.param(i, "role"), ErrUnknownRole, "%q is not system, developer, user or assistant", it.Role)
}

// itemText flattens item content into text: the parts of the text types
// given (and refusals) are concatenated with no separator; an image is the
// placeholder or an error; any other part is an error.
func (b *builder) itemText(i int, field string, c *ItemContent, textTypes ...string) (string, error) {
	if c == nil {
		return "", nil
	}
	if c.Parts == nil {
		return c.Text, nil
	}
	var sb strings.Builder
parts:
	for j, p := range c.Parts {
		for _, t := range textTypes {
			if p.Type == t {
				sb.WriteString(p.Text)
				continue parts
			}
		}
		switch p.Type {
		case "refusal":
			sb.WriteString(p.Refusal)
		case "input_image":
			if b.opts.ImagePlaceholder == "" {
				return "", reqErr(i, b.param(i, fmt.Sprintf("%s[%d]", field, j)), ErrUnsupportedContent,
					"gpt-oss reads text only: an image part needs RequestOptions.ImagePlaceholder")
			}
			sb.WriteString(b.opts.ImagePlaceholder)
		default:
			return "", reqErr(i, b.param(i, fmt.Sprintf("%s[%d].type", field, j)), ErrUnsupportedContent,
				"content part type %q is not supported here", p.Type)
		}
	}
	return sb.String(), nil
}
