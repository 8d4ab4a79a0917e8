package harmony

import (
	"fmt"
	"sort"
	"strings"
)

// RenderOptions control how a conversation is rendered. The zero value (and a
// nil *RenderOptions) is the reference's default.
type RenderOptions struct {
	// KeepAnalysis keeps every analysis message. By default (false), when the
	// last assistant message of the conversation is on the final channel, the
	// analysis messages before the conversation's first final message are
	// dropped, as the reference's auto_drop_analysis does: the model does not
	// see its own earlier chain of thought once it has answered.
	KeepAnalysis bool

	// NormalizeSchemas rewrites every tool's parameters with [NormalizeSchema]
	// before they are rendered as TypeScript, so that the schemas real clients
	// send ($ref/$defs, anyOf with null, const, allOf) read well to the model.
	// Off by default: it changes the rendered tokens, so prompts no longer
	// match the reference implementation's.
	NormalizeSchemas bool
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

// RenderError reports a message that cannot be rendered.
type RenderError struct {
	MessageIndex int   // index of the message in the conversation (0 for a single message)
	Err          error // wraps ErrMissingToolName, ErrMisplacedContent, ErrUnsupportedContent, ErrInvalidSchema, ErrUnknownRole
}

// Error describes the problem, starting with "harmony: ".
func (e *RenderError) Error() string {
	return fmt.Sprintf("harmony: render message %d: %v", e.MessageIndex, e.Err)
}

// Unwrap returns the underlying error.
func (e *RenderError) Unwrap() error { return e.Err }

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
// <|return|>, the token the model samples to end its turn.
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
	keep := opts != nil && opts.KeepAnalysis
	flags := renderFlags{normalize: opts != nil && opts.NormalizeSchemas}
	for i := range msgs {
		if declaresFunctionTools(msgs[i].Content) {
			flags.functionTools = true
			break
		}
	}
	// The drop rule, as the reference applies it: only when the last
	// assistant message is final, and only analysis messages that come before
	// the first message (of any role) on the final channel.
	firstFinal := -1
	if !keep {
		lastAssistantFinal := false
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == RoleAssistant {
				lastAssistantFinal = msgs[i].Channel == ChannelFinal
				break
			}
		}
		if lastAssistantFinal {
			for i := range msgs {
				if msgs[i].Channel == ChannelFinal {
					firstFinal = i
					break
				}
			}
		}
	}
	n0 := len(dst)
	for i := range msgs {
		if i < firstFinal && msgs[i].Channel == ChannelAnalysis {
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

func declaresFunctionTools(cs []Content) bool {
	for _, c := range cs {
		var tools map[string]ToolNamespaceConfig
		switch d := c.(type) {
		case DeveloperContent:
			tools = d.Tools
		case *DeveloperContent:
			if d != nil {
				tools = d.Tools
			}
		}
		if ns, ok := tools["functions"]; ok && len(ns.Tools) > 0 {
			return true
		}
	}
	return false
}

// appendMessage renders m. Each piece of header text is encoded on its own, as
// the reference does: token boundaries never cross from the role into the
// recipient or the channel.
// renderFlags are the settings that reach every message of a conversation.
type renderFlags struct {
	functionTools bool // a developer message declares function tools
	normalize     bool // RenderOptions.NormalizeSchemas
}

func (e *Encoding) appendMessage(dst []Token, m *Message, flags renderFlags) ([]Token, error) {
	n0 := len(dst)
	dst = append(dst, TokenStart)
	if m.Role == RoleTool {
		if m.Name == "" {
			return dst[:n0], ErrMissingToolName
		}
		dst = e.appendOrdinary(dst, m.Name)
	} else {
		if !m.Role.Valid() {
			return dst[:n0], fmt.Errorf("%w %q", ErrUnknownRole, m.Role)
		}
		dst = e.appendOrdinary(dst, string(m.Role))
		if m.Name != "" {
			dst = e.appendOrdinary(dst, ":"+m.Name)
		}
	}
	if m.Recipient != "" && m.Recipient != "all" {
		dst = e.appendOrdinary(dst, " to="+m.Recipient)
	}
	if m.Channel != "" {
		dst = append(dst, TokenChannel)
		dst = e.appendOrdinary(dst, m.Channel)
	}
	if ct := m.ContentType; ct != "" {
		if rest, ok := strings.CutPrefix(ct, markerConstrain); ok {
			dst = e.appendOrdinary(dst, " ")
			dst = append(dst, TokenConstrain)
			dst = e.appendOrdinary(dst, rest)
		} else {
			dst = e.appendOrdinary(dst, " "+ct)
		}
	}
	dst = append(dst, TokenMessage)
	for _, c := range m.Content {
		var err error
		if dst, err = e.appendContent(dst, m.Role, c, flags); err != nil {
			return dst[:n0], err
		}
	}
	if m.Role == RoleAssistant && m.Recipient != "" {
		dst = append(dst, TokenCall)
	} else {
		dst = append(dst, TokenEnd)
	}
	return dst, nil
}

func (e *Encoding) appendContent(dst []Token, role Role, c Content, flags renderFlags) ([]Token, error) {
	switch v := c.(type) {
	case TextContent:
		return e.appendOrdinary(dst, v.Text), nil
	case *TextContent:
		if v != nil {
			return e.appendContent(dst, role, *v, flags)
		}
	case SystemContent:
		if role != RoleSystem {
			return dst, fmt.Errorf("%w: system content in a %s message", ErrMisplacedContent, role)
		}
		if flags.normalize {
			var err error
			if v.Tools, err = normalizeTools(v.Tools); err != nil {
				return dst, err
			}
		}
		text, err := systemText(&v, flags.functionTools)
		if err != nil {
			return dst, err
		}
		return e.appendCachedText(dst, text), nil
	case *SystemContent:
		if v != nil {
			return e.appendContent(dst, role, *v, flags)
		}
	case DeveloperContent:
		if role != RoleDeveloper {
			return dst, fmt.Errorf("%w: developer content in a %s message", ErrMisplacedContent, role)
		}
		if flags.normalize {
			var err error
			if v.Tools, err = normalizeTools(v.Tools); err != nil {
				return dst, err
			}
		}
		text, err := developerText(&v)
		if err != nil {
			return dst, err
		}
		return e.appendCachedText(dst, text), nil
	case *DeveloperContent:
		if v != nil {
			return e.appendContent(dst, role, *v, flags)
		}
	}
	return dst, fmt.Errorf("%w: %T", ErrUnsupportedContent, c)
}

// systemText is the text of a system message: sections joined by a blank
// line — identity and dates, reasoning effort, tools, channels.
func systemText(s *SystemContent, functionTools bool) (string, error) {
	var b strings.Builder
	sep := func() {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
	}
	top := false
	line := func(prefix, v string) {
		if v == "" {
			return
		}
		if top {
			b.WriteByte('\n')
		}
		top = true
		b.WriteString(prefix)
		b.WriteString(v)
	}
	line("", s.ModelIdentity)
	line("Knowledge cutoff: ", s.KnowledgeCutoff)
	line("Current date: ", s.ConversationStartDate)
	if s.ReasoningEffort != "" {
		var effort string
		switch s.ReasoningEffort {
		case ReasoningLow:
			effort = "low"
		case ReasoningMedium:
			effort = "medium"
		case ReasoningHigh:
			effort = "high"
		default:
			return "", fmt.Errorf("%w: reasoning effort %q", ErrUnsupportedContent, s.ReasoningEffort)
		}
		sep()
		b.WriteString("Reasoning: ")
		b.WriteString(effort)
	}
	if len(s.Tools) > 0 {
		sep()
		if err := writeToolsSection(&b, s.Tools); err != nil {
			return "", err
		}
	}
	if cc := s.ChannelConfig; cc != nil && len(cc.ValidChannels) > 0 {
		sep()
		b.WriteString("# Valid channels: ")
		b.WriteString(strings.Join(cc.ValidChannels, ", "))
		b.WriteByte('.')
		if cc.ChannelRequired {
			b.WriteString(" Channel must be included for every message.")
		}
		if functionTools {
			b.WriteString("\nCalls to these tools must go to the commentary channel: 'functions'.")
		}
	}
	return b.String(), nil
}

// developerText is the text of a developer message: "# Instructions" and the
// instructions, then the tools.
func developerText(d *DeveloperContent) (string, error) {
	var b strings.Builder
	if d.Instructions != "" {
		b.WriteString("# Instructions\n\n")
		b.WriteString(d.Instructions)
	}
	if len(d.Tools) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if err := writeToolsSection(&b, d.Tools); err != nil {
			return "", err
		}
	}
	if len(d.ResponseFormats) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		if err := writeResponseFormats(&b, d.ResponseFormats); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

func sortedKeys(m map[string]ToolNamespaceConfig) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
