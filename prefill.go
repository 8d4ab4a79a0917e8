package harmony

// This file holds the prefill: a prompt that ends inside a message, after
// its header, so that the completion is that message's content. The
// renderer writes the prefilled header as it writes any message's (it
// renders the message and leaves out its closing token), and the parser
// starts in the content of a message with that header: the two read the
// header from the same fields, checked by the same rule.

import "fmt"

// RenderConversationWithPrefill renders c for a completion that continues
// the message prefill: the messages, then prefill's header as
// [Encoding.RenderMessage] writes it, "<|start|>", the header and
// "<|message|>" (such as "<|start|>assistant<|channel|>final<|message|>"),
// where [Encoding.RenderConversationForCompletion] stops after
// "<|start|>{role}". Parse the completion with [ParseOptions].Prefill set to
// the same message. prefill's Content must be empty: it is a header.
func (e *Encoding) RenderConversationWithPrefill(c Conversation, prefill Message, opts *RenderOptions) ([]Token, error) {
	return e.AppendConversationWithPrefill(nil, c, prefill, opts)
}

// AppendConversationWithPrefill appends the tokens of
// [Encoding.RenderConversationWithPrefill] to dst. On error it returns dst
// unchanged and a [*RenderError] (whose MessageIndex is len(c.Messages) for
// the prefill).
func (e *Encoding) AppendConversationWithPrefill(dst []Token, c Conversation, prefill Message, opts *RenderOptions) ([]Token, error) {
	if err := checkPrefill(&prefill); err != nil {
		return dst, &RenderError{MessageIndex: len(c.Messages), Err: err}
	}
	out, err := e.appendConversation(dst, c.Messages, opts)
	if err != nil {
		return dst, err
	}
	n := len(out)
	out, err = e.appendMessage(out, &prefill, renderFlags{})
	if err != nil {
		return dst, &RenderError{MessageIndex: len(c.Messages), Err: err}
	}
	if len(out) == n {
		return dst, &RenderError{MessageIndex: len(c.Messages), Err: fmt.Errorf("%w: the prefill rendered no tokens", ErrInvalidHeader)}
	}
	return out[:len(out)-1], nil // the message without its closing token
}

// checkPrefill refuses a prefill with content: it is a header, and the
// completion is its content.
func checkPrefill(m *Message) error {
	if len(m.Content) > 0 {
		return fmt.Errorf("%w: a prefill is a header: its content must be empty", ErrUnsupportedContent)
	}
	return nil
}

// prefillHeader returns the header of ParseOptions.Prefill m for a parser
// told role: m's fields, and with keep (KeepHeaders) its written form where
// the renderer writes it and it differs from the reference's form, as
// KeepHeaders records a form.
// It refuses what the renderer refuses, and a role that is not m's.
func prefillHeader(m *Message, role Role, keep bool) (header, error) {
	err := checkPrefill(m)
	if err == nil {
		err = checkHeader(m)
	}
	if err == nil && role != m.Role {
		err = fmt.Errorf("%w: the prefill is a %q message, the completion's role is %q", ErrInvalidHeader, m.Role, role)
	}
	if err != nil {
		return header{}, fmt.Errorf("harmony: prefill: %w", err)
	}
	h := messageHeader(m)
	if form, ok := writtenForm(m); ok && keep {
		h.keepForm(form, "", nil)
	}
	return h, nil
}
