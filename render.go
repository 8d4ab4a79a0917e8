package harmony

import "fmt"

// RenderOptions control how a conversation is rendered. The zero value (and a
// nil *RenderOptions) is the reference's default.
type RenderOptions struct {
	// Reasoning says which of the assistant's analysis messages the model
	// sees again: the reference's rule (the zero value, its
	// auto_drop_analysis), the guides' rule, or all of them
	// ([ReasoningKeepAll], the reference's auto_drop_analysis=false). See
	// [ReasoningPolicy].
	Reasoning ReasoningPolicy

	// NormalizeSchemas rewrites every tool's parameters with [NormalizeSchema]
	// before they are rendered as TypeScript, so that the schemas real clients
	// send ($ref/$defs, anyOf with null, const, allOf) read well to the model.
	// Off by default: it changes the rendered tokens, so prompts no longer
	// match the reference implementation's.
	NormalizeSchemas bool
}

// ReasoningPolicy is a rule for the analysis messages of a conversation's
// history: which of the assistant's earlier chains of thought are rendered.
type ReasoningPolicy int

const (
	// ReasoningReference is the reference's auto_drop_analysis: when the
	// last assistant message is on the final channel, the analysis
	// messages before the conversation's first final message (of any role)
	// are dropped; otherwise none. In a multi-turn history it keeps the
	// reasoning of every answered turn after the first.
	ReasoningReference ReasoningPolicy = iota
	// ReasoningGuide is the rule of the harmony guide and the raw
	// chain-of-thought guide: the assistant's analysis messages before its
	// last final message are dropped (once a turn ends in a final answer,
	// its chain of thought is not shown again), and those after it are
	// kept (the turn still in its tool calls needs its reasoning back).
	ReasoningGuide
	// ReasoningKeepAll renders every analysis message.
	ReasoningKeepAll
)

// String returns the policy's name: "reference", "guide" or "keep".
func (p ReasoningPolicy) String() string {
	switch p {
	case ReasoningReference:
		return "reference"
	case ReasoningGuide:
		return "guide"
	case ReasoningKeepAll:
		return "keep"
	}
	return fmt.Sprintf("ReasoningPolicy(%d)", int(p))
}

// UnmarshalText reads a policy's name as String writes it, so that a
// ReasoningPolicy can be read from a command-line flag or a JSON string.
func (p *ReasoningPolicy) UnmarshalText(text []byte) error {
	for _, q := range []ReasoningPolicy{ReasoningReference, ReasoningGuide, ReasoningKeepAll} {
		if string(text) == q.String() {
			*p = q
			return nil
		}
	}
	return fmt.Errorf("harmony: reasoning policy %q is not reference, guide or keep", text)
}

// Apply returns msgs without the analysis messages the policy drops, as
// the renderer drops them, for a caller that builds a history to render
// with any options (openaicompat applies ReasoningGuide this way). It
// returns msgs itself when nothing is dropped, else a new slice.
func (p ReasoningPolicy) Apply(msgs []Message) []Message {
	opts := RenderOptions{Reasoning: p}
	before, assistantOnly := opts.dropBefore(msgs)
	var out []Message
	for i := range msgs {
		drop := dropsAnalysis(&msgs[i], i, before, assistantOnly)
		switch {
		case drop && out == nil:
			out = append(make([]Message, 0, len(msgs)-1), msgs[:i]...)
		case !drop && out != nil:
			out = append(out, msgs[i])
		}
	}
	if out == nil {
		return msgs
	}
	return out
}

// dropBefore returns the index before which analysis messages are dropped
// under opts (-1: none), and whether only the assistant's count.
func (opts *RenderOptions) dropBefore(msgs []Message) (int, bool) {
	policy := ReasoningReference
	if opts != nil {
		policy = opts.Reasoning
	}
	switch policy {
	case ReasoningReference:
		// As the reference applies it: only when the last assistant
		// message is final, and only analysis messages that come before
		// the first message (of any role) on the final channel.
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == RoleAssistant {
				if msgs[i].Channel != ChannelFinal {
					return -1, false
				}
				break
			}
		}
		for i := range msgs {
			if msgs[i].Channel == ChannelFinal {
				return i, false
			}
		}
	case ReasoningGuide:
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == RoleAssistant && msgs[i].Channel == ChannelFinal {
				return i, true
			}
		}
	}
	return -1, false
}

// dropsAnalysis reports whether m, the message at index i, is dropped under
// dropBefore's result (before, assistantOnly).
func dropsAnalysis(m *Message, i, before int, assistantOnly bool) bool {
	return i < before && m.Channel == ChannelAnalysis && (!assistantOnly || m.Role == RoleAssistant)
}

// MessageOptions control how a single message is rendered by
// [Encoding.RenderMessage]. The zero value is the reference's default.
type MessageOptions struct {
	// ConversationHasFunctionTools adds, to a system message's channels line,
	// the note that calls to function tools go to the commentary channel. The
	// conversation renderers set it themselves when a developer message
	// declares function tools.
	ConversationHasFunctionTools bool

	// NormalizeSchemas is as in [RenderOptions].
	NormalizeSchemas bool
}

// RenderMessage renders one message. A nil opts means the defaults.
func (e *Encoding) RenderMessage(m Message, opts *MessageOptions) ([]Token, error) {
	return e.AppendMessage(nil, m, opts)
}

// AppendMessage appends the tokens of one message to dst. On error it returns
// dst unchanged and a [*RenderError].
func (e *Encoding) AppendMessage(dst []Token, m Message, opts *MessageOptions) ([]Token, error) {
	var o MessageOptions
	if opts != nil {
		o = *opts
	}
	out, err := e.appendMessage(dst, &m, renderFlags{functionTools: o.ConversationHasFunctionTools, normalize: o.NormalizeSchemas})
	if err != nil {
		return dst, &RenderError{Err: err}
	}
	return out, nil
}

// RenderConversation renders the messages of c. A nil opts means the defaults.
func (e *Encoding) RenderConversation(c Conversation, opts *RenderOptions) ([]Token, error) {
	return e.AppendConversation(nil, c, opts)
}

// AppendConversation appends the tokens of c's messages to dst. On error it
// returns dst unchanged and a [*RenderError] naming the message.
func (e *Encoding) AppendConversation(dst []Token, c Conversation, opts *RenderOptions) ([]Token, error) {
	out, err := e.appendConversation(dst, c.Messages, opts)
	if err != nil {
		return dst, err
	}
	return out, nil
}

// RenderConversationForCompletion renders c for inference: the messages, then
// "<|start|>" and the role of the turn the model is to write (usually
// [RoleAssistant]).
func (e *Encoding) RenderConversationForCompletion(c Conversation, next Role, opts *RenderOptions) ([]Token, error) {
	return e.AppendConversationForCompletion(nil, c, next, opts)
}

// AppendConversationForCompletion appends the tokens of
// [Encoding.RenderConversationForCompletion] to dst.
func (e *Encoding) AppendConversationForCompletion(dst []Token, c Conversation, next Role, opts *RenderOptions) ([]Token, error) {
	if !next.Valid() {
		return dst, &RenderError{MessageIndex: len(c.Messages), Err: fmt.Errorf("%w %q for the next turn", ErrUnknownRole, next)}
	}
	out, err := e.appendConversation(dst, c.Messages, opts)
	if err != nil {
		return dst, err
	}
	out = append(out, TokenStart)
	return e.appendOrdinary(out, string(next)), nil
}

// RenderConversationForTraining renders c as a training example: as
// [Encoding.RenderConversation], except that when the last message is an
// assistant message on the final channel, its closing token becomes
// <|return|>, the token the model samples to end its turn. It is the
// reference's render_conversation_for_training; for a training example with a
// loss mask, and the reasoning a trained turn needs, see
// [Encoding.RenderTrainingExample].
func (e *Encoding) RenderConversationForTraining(c Conversation, opts *RenderOptions) ([]Token, error) {
	return e.AppendConversationForTraining(nil, c, opts)
}

// AppendConversationForTraining appends the tokens of
// [Encoding.RenderConversationForTraining] to dst.
func (e *Encoding) AppendConversationForTraining(dst []Token, c Conversation, opts *RenderOptions) ([]Token, error) {
	out, err := e.appendConversation(dst, c.Messages, opts)
	if err != nil {
		return dst, err
	}
	if n := len(c.Messages); n > 0 && len(out) > len(dst) {
		if last := c.Messages[n-1]; last.Role == RoleAssistant && last.Channel == ChannelFinal {
			out[len(out)-1] = TokenReturn
		}
	}
	return out, nil
}

func (e *Encoding) appendConversation(dst []Token, msgs []Message, opts *RenderOptions) ([]Token, error) {
	flags := renderFlags{normalize: opts != nil && opts.NormalizeSchemas, functionTools: anyDeclaresFunctionTools(msgs, nil)}
	before, assistantOnly := opts.dropBefore(msgs)
	n0 := len(dst)
	for i := range msgs {
		if dropsAnalysis(&msgs[i], i, before, assistantOnly) {
			continue
		}
		var err error
		dst, err = e.appendMessage(dst, &msgs[i], flags)
		if err != nil {
			return dst[:n0], &RenderError{MessageIndex: i, Err: err}
		}
	}
	return dst, nil
}

// anyDeclaresFunctionTools reports whether a message of msgs (of those kept
// reports, when kept is non-nil) declares function tools: the system
// message then notes where their calls go (renderFlags.functionTools).
func anyDeclaresFunctionTools(msgs []Message, kept func(i int) bool) bool {
	for i := range msgs {
		if (kept == nil || kept(i)) && declaresFunctionTools(msgs[i].Content) {
			return true
		}
	}
	return false
}

// declaresFunctionTools reports whether cs holds developer content with
// tools in the "functions" namespace.
func declaresFunctionTools(cs []Content) bool {
	for _, c := range cs {
		if d, ok := contentValue(c).(DeveloperContent); ok {
			if ns, ok := d.Tools["functions"]; ok && len(ns.Tools) > 0 {
				return true
			}
		}
	}
	return false
}

// renderFlags are the settings that reach every message of a conversation.
type renderFlags struct {
	functionTools bool // a developer message declares function tools
	normalize     bool // RenderOptions.NormalizeSchemas
	history       bool // cache the tokens of long texts (budget.go)
}

// appendMessage renders m: its header (header.go: m.Header as written when
// writtenForm allows it, else the reference's form, whose fields checkHeader
// checks), its content, and the token that closes it (closingToken).
func (e *Encoding) appendMessage(dst []Token, m *Message, flags renderFlags) ([]Token, error) {
	form, written := writtenForm(m)
	if !written {
		if err := checkHeader(m); err != nil {
			return dst, err
		}
	}
	n0 := len(dst)
	dst = append(dst, TokenStart)
	if written {
		dst = e.appendForm(dst, form)
	} else {
		dst = e.appendReferenceHeader(dst, m)
	}
	dst = append(dst, TokenMessage)
	for _, c := range m.Content {
		var err error
		if dst, err = e.appendContent(dst, m.Role, c, flags); err != nil {
			return dst[:n0], err
		}
	}
	return append(dst, closingToken(m, form, written)), nil
}

// closingToken returns the token that closes m, rendered from its written
// form when written: <|call|> for the assistant's message to a recipient
// (but one its written form does not address, writtenAddressed), else
// <|end|>.
func closingToken(m *Message, form string, written bool) Token {
	if m.Role == RoleAssistant && m.Recipient != "" && (!written || writtenAddressed(form, m.Recipient)) {
		return TokenCall
	}
	return TokenEnd
}

func (e *Encoding) appendContent(dst []Token, role Role, c Content, flags renderFlags) ([]Token, error) {
	switch v := contentValue(c).(type) {
	case TextContent:
		if flags.history && len(v.Text) >= minCachedText {
			return e.appendHistoryText(dst, v.Text), nil
		}
		return e.appendOrdinary(dst, v.Text), nil
	case SystemContent:
		if role != RoleSystem {
			return dst, fmt.Errorf("%w: system content in a %s message", ErrMisplacedContent, role)
		}
		if flags.normalize {
			var err error
			if v.Tools, err = e.normalizeTools(v.Tools); err != nil {
				return dst, err
			}
		}
		buf := e.textBuf()
		text, err := e.systemText((*buf)[:0], &v, flags.functionTools)
		if err == nil {
			dst = e.appendCachedText(dst, text)
		}
		e.putTextBuf(buf, text)
		return dst, err
	case DeveloperContent:
		if role != RoleDeveloper {
			return dst, fmt.Errorf("%w: developer content in a %s message", ErrMisplacedContent, role)
		}
		if flags.normalize {
			var err error
			if v.Tools, err = e.normalizeTools(v.Tools); err != nil {
				return dst, err
			}
		}
		buf := e.textBuf()
		text, err := e.developerText((*buf)[:0], &v)
		if err == nil {
			dst = e.appendCachedText(dst, text)
		}
		e.putTextBuf(buf, text)
		return dst, err
	}
	return dst, fmt.Errorf("%w: %T", ErrUnsupportedContent, c)
}

// appendCachedText appends the tokens of a system or developer text, from the
// encoding's cache when the same text was rendered before. text is only read.
func (e *Encoding) appendCachedText(dst []Token, text []byte) []Token {
	if len(text) < minCachedText {
		return e.appendOrdinary(dst, bytesString(text))
	}
	if toks, ok := e.texts.GetBytes(text); ok {
		return append(dst, toks...)
	}
	n := len(dst)
	dst = e.appendOrdinary(dst, bytesString(text))
	toks := append([]Token(nil), dst[n:]...)
	e.texts.Put(string(text), toks, int64(4*cap(toks)))
	return dst
}

// maxPooledText is the largest text buffer kept for reuse.
const maxPooledText = 1 << 20

// textBuf returns a buffer for building a system or developer text.
func (e *Encoding) textBuf() *[]byte {
	if b, ok := e.textBufs.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 4096)
	return &b
}

// putTextBuf returns buf, which now holds text, for reuse.
func (e *Encoding) putTextBuf(buf *[]byte, text []byte) {
	if cap(text) <= maxPooledText {
		*buf = text[:0]
		e.textBufs.Put(buf)
	}
}
