package openaicompat

import (
	"fmt"
	"slices"
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
	set, err := r.settings()
	if err != nil {
		return harmony.Conversation{}, err
	}
	b := newBuilder(opts, "input")
	if r.sealsReasoning() && b.opts.Sealer == nil {
		return harmony.Conversation{}, reqErr(-1, "include", ErrUnsupportedParameter,
			"this server cannot seal reasoning: leave %q out of include", includeEncrypted)
	}
	b.instruct(r.Instructions)
	items := r.Input.Items
	if items == nil {
		if r.Input.Text == "" {
			return harmony.Conversation{}, reqErr(-1, "input", ErrInvalidRequest, "input is required")
		}
		items = []Item{{Type: "message", Role: "user", Content: &ItemContent{Text: r.Input.Text}}}
	}
	if len(items) == 0 {
		return harmony.Conversation{}, reqErr(-1, "input", ErrInvalidRequest, "at least one input item is required")
	}
	if items, err = b.previous(r.PreviousResponseID, items); err != nil {
		return harmony.Conversation{}, err
	}
	if items, err = b.resolve(items); err != nil {
		return harmony.Conversation{}, b.inRequest(err)
	}
	preamble := preambles(items)
	return b.build(set, len(items), func(i int) error { return b.item(i, &items[i], preamble[i]) })
}

// previous returns the items of the stored response id names, then items:
// the conversation a request with previous_response_id continues. The
// builder's params then name the stored items "previous_response_id".
func (b *builder) previous(id string, items []Item) ([]Item, error) {
	if id == "" {
		return items, nil
	}
	if b.opts.Responses == nil {
		return nil, reqErr(-1, "previous_response_id", ErrUnsupportedParameter,
			"this server does not store responses: send the whole conversation as input")
	}
	stored, ok := b.opts.Responses.ResponseItems(b.opts.Owner, id)
	if !ok {
		return nil, reqErr(-1, "previous_response_id", ErrInvalidRequest, "no stored response has the id %q", clip(id))
	}
	b.prev = len(stored)
	return append(stored[:len(stored):len(stored)], items...), nil
}

// toolDefs returns the request's tools and tool_choice in the form both
// APIs share.
func (r *ResponsesRequest) toolDefs() ([]toolDef, *ToolChoice) {
	defs := make([]toolDef, len(r.Tools))
	for i, t := range r.Tools {
		fn := &FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: t.Parameters}
		defs[i] = toolDef{typ: t.Type, fn: fn, fnParam: fmt.Sprintf("tools[%d].", i)}
	}
	var choice *ToolChoice
	if r.ToolChoice != nil {
		choice = &ToolChoice{Mode: r.ToolChoice.Mode, Function: r.ToolChoice.Name}
	}
	return defs, choice
}

// settings validates the request and reads what it says besides its input.
func (r *ResponsesRequest) settings() (settings, error) {
	var s settings
	if err := r.Validate(); err != nil {
		return s, err
	}
	var err error
	if r.Reasoning != nil {
		if s.effort, err = effort(r.Reasoning.Effort, "reasoning.effort", "", ""); err != nil {
			return s, err
		}
	}
	defs, choice := r.toolDefs()
	if s.tools, err = functionTools(defs, choice); err != nil {
		return s, err
	}
	if s.formats, err = r.formats(); err != nil {
		return s, err
	}
	return s, nil
}

// formats reads the request's text.format (see outputFormat).
func (r *ResponsesRequest) formats() ([]harmony.ResponseFormat, error) {
	if r.Text == nil || r.Text.Format == nil {
		return nil, nil
	}
	f := r.Text.Format
	return outputFormat("text.format", "text format", f.Type, &JSONSchema{Name: f.Name, Description: f.Description, Schema: f.Schema}, "text.format")
}

// Validate checks the request's parameters that are not part of the
// conversation: max_output_tokens must be at least 1 and truncation "auto"
// or "disabled" when set ([ErrInvalidRequest]). Errors are
// [*RequestError]s. [ResponsesRequest.Conversation] calls it.
// (previous_response_id needs RequestOptions.Responses; Conversation
// refuses it without.)
func (r *ResponsesRequest) Validate() error {
	if t := r.Truncation; t != "" && t != TruncationAuto && t != TruncationDisabled {
		return reqErr(-1, "truncation", ErrInvalidRequest, "truncation %q is not %q or %q", clip(t), TruncationAuto, TruncationDisabled)
	}
	return checkLimit("max_output_tokens", r.MaxOutputTokens)
}

// includeEncrypted is the include value that asks for sealed reasoning.
const includeEncrypted = "reasoning.encrypted_content"

// sealsReasoning reports whether the request asks for its reasoning items
// to carry sealed reasoning.
func (r *ResponsesRequest) sealsReasoning() bool { return slices.Contains(r.Include, includeEncrypted) }

// isReference reports whether an input item is an item reference: of type
// "item_reference", or with an id and neither type nor role.
func isReference(it *Item) bool {
	return it.Type == "item_reference" || it.Type == "" && it.Role == "" && it.ID != ""
}

// resolve returns the items with every item reference replaced by the
// stored item it names; items itself is not changed.
func (b *builder) resolve(items []Item) ([]Item, error) {
	var out []Item
	for i := range items {
		if !isReference(&items[i]) {
			continue
		}
		if out == nil {
			out = slices.Clone(items)
		}
		id := items[i].ID
		if b.opts.Items == nil {
			return nil, reqErr(i, b.param(i, ""), ErrItemReference,
				"this server does not store responses, so it cannot resolve %q: send the items themselves, with store:false (and include:[%q] to keep the reasoning)", clip(id), includeEncrypted)
		}
		if id == "" {
			return nil, reqErr(i, b.param(i, "id"), ErrItemReference, "an item reference needs an id")
		}
		it, ok := b.opts.Items.Item(b.opts.Owner, id)
		if !ok || isReference(&it) {
			return nil, reqErr(i, b.param(i, "id"), ErrItemReference, "no stored item has the id %q", clip(id))
		}
		out[i] = it
	}
	if out == nil {
		return items, nil
	}
	return out, nil
}

// preambles reports, for each item, whether it is an assistant message that
// function calls follow within the same turn.
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
			// Sealed reasoning is the model's own; it wins over any text
			// the client sends beside it.
			if b.opts.Sealer == nil {
				return reqErr(i, b.param(i, "encrypted_content"), ErrUnsupportedRequestContent,
					"this server holds no key for encrypted reasoning: send the reasoning_text content")
			}
			text, err := b.opts.Sealer.Open(b.opts.Owner, it.ID, it.EncryptedContent)
			if err != nil {
				return reqErr(i, b.param(i, "encrypted_content"), ErrSealedReasoning,
					"reasoning item %q: %s", clip(it.ID), strings.TrimPrefix(err.Error(), ErrSealedReasoning.Error()+": "))
			}
			if text != "" {
				b.reasoning("", text)
			}
			return nil
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
	return reqErr(i, b.param(i, "type"), ErrUnknownItemType, "input item type %q is not supported", clip(it.Type))
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
	return reqErr(i, b.param(i, "role"), ErrUnknownMessageRole, "%q is not system, developer, user or assistant", clip(it.Role))
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
	read := func(p *ItemPart) (typ, text string, ok bool) {
		if p.Type == "refusal" {
			return p.Type, p.Refusal, true
		}
		return p.Type, p.Text, slices.Contains(textTypes, p.Type)
	}
	return flatten(b, i, field, c.Parts, read, "input_image", "content part type %q is not supported here")
}
