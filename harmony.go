// Package harmony renders conversations into the token ids that OpenAI's
// gpt-oss models were trained on, and parses the tokens those models sample
// back into messages, all at once or one token at a time. It reproduces the
// reference implementation, openai/harmony v0.0.8, token for token.
//
// A message is written as
//
//	<|start|>{header}<|message|>{content}<|end|>
//
// where the header is the author (the role, or for a tool message the tool's
// name), an optional " to={recipient}", an optional "<|channel|>{channel}" and
// an optional " {content type}". An assistant message with a recipient (a tool
// call) ends in <|call|> instead of <|end|>. Roles are, in order of authority,
// system, developer, user, assistant and tool; the assistant writes to the
// channels analysis (chain of thought, never shown to end users), commentary
// (tool calls and preambles) and final (the answer).
//
// # Rendering
//
// An [Encoding], loaded once with [LoadEncoding], renders a [Message] or a
// [Conversation]: [Encoding.RenderConversationForCompletion] for inference
// (it appends "<|start|>{role}" for the turn to be sampled),
// [Encoding.RenderConversationForTraining] for datasets (a final answer ends in
// <|return|>), [Encoding.RenderConversation] and [Encoding.RenderMessage]. Each
// has an Append form that appends to a caller's slice. By default, analysis
// messages that precede the first final message are dropped when the
// conversation's last assistant message is a final answer;
// [RenderOptions].KeepAnalysis turns that off. System and developer messages
// carry structured [SystemContent] and [DeveloperContent], whose tools are
// described to the model as TypeScript generated from their JSON Schemas.
//
// Text from users, tools and the model is always encoded as ordinary text: a
// message that contains the characters "<|start|>" gets the ordinary tokens of
// those characters, never the special token. Only the renderer's own structure
// emits special tokens, including the one case the format defines: a content
// type that starts with "<|constrain|>".
//
// # Parsing and streaming
//
// [Encoding.ParseCompletion] turns the tokens of a completion into messages.
// A [StreamParser] does the same one token at a time and reports, after each
// token, the current role, channel, recipient, content type, the content so far
// and the last content delta; a UTF-8 character split across tokens is held back
// until it is complete. Both run the same state machine (expect start, header,
// content), so they cannot disagree. Parsing is strict by default;
// [ParseOptions].Lenient recovers a header cut short by a stop token as a
// message, as the reference's non-strict mode does.
//
// Errors are typed ([*ParseError], [*RenderError], [*DecodeError],
// [*EncodeError]), wrap sentinel errors usable with errors.Is, carry the token or
// message index where one applies, and their messages start with "harmony: ".
// No input, however malformed, makes this package panic.
//
// # Concurrency
//
// An [Encoding] is immutable and safe for concurrent use by any number of
// goroutines. A [StreamParser] is not; use one per stream (and Reset it to
// reuse it).
//
// # Compatibility
//
// Messages and conversations marshal to and from the reference's JSON, so a
// conversation saved by the Python library loads here and back. Rendering and
// parsing match the reference exactly, quirks included. The differences are in
// API shape only; README.md lists them.
package harmony

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/jsonw"
)

// Role is the role of a message's author.
type Role string

// The roles of the format, in order of authority.
const (
	RoleSystem    Role = "system"
	RoleDeveloper Role = "developer"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ParseRole returns the Role named s, or an error wrapping [ErrUnknownRole].
func ParseRole(s string) (Role, error) {
	if r := Role(s); r.Valid() {
		return r, nil
	}
	return "", fmt.Errorf("harmony: %w %q", ErrUnknownRole, s)
}

// Valid reports whether r is one of the five roles of the format.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleDeveloper, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Channel names the assistant writes to.
const (
	ChannelAnalysis   = "analysis"
	ChannelCommentary = "commentary"
	ChannelFinal      = "final"
)

// Author is who wrote a message: a role and, optionally, a name. A tool
// message's author must have a name: it is the tool's name (for example
// "functions.get_weather") and is all its header shows.
type Author struct {
	Role Role   `json:"role"`
	Name string `json:"name,omitempty"`
}

// Content is one part of a message's content: [TextContent], [SystemContent]
// or [DeveloperContent] (or a pointer to one of them).
type Content interface {
	contentType() string
}

// TextContent is plain text.
type TextContent struct {
	Text string `json:"text"`
}

// ReasoningEffort is how hard the model is asked to think; the empty value
// leaves the line out of the system message.
type ReasoningEffort string

// The reasoning efforts, spelled as in the reference's JSON.
const (
	ReasoningLow    ReasoningEffort = "Low"
	ReasoningMedium ReasoningEffort = "Medium"
	ReasoningHigh   ReasoningEffort = "High"
)

// ChannelConfig lists the channels the model may write to. With no channels,
// the system message has no channels line.
type ChannelConfig struct {
	ValidChannels   []string `json:"valid_channels"`
	ChannelRequired bool     `json:"channel_required"`
}

// RequireChannels returns a ChannelConfig that requires one of channels on
// every message.
func RequireChannels(channels ...string) *ChannelConfig {
	return &ChannelConfig{ValidChannels: append([]string(nil), channels...), ChannelRequired: true}
}

// ToolDescription describes one tool. Parameters is its JSON Schema, kept as
// raw JSON so that the order of its keys, which the rendered TypeScript
// follows, survives; nil (or JSON null) means the tool takes no parameters.
type ToolDescription struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// NewToolDescription returns a ToolDescription; parameters may be nil.
func NewToolDescription(name, description string, parameters json.RawMessage) ToolDescription {
	return ToolDescription{Name: name, Description: description, Parameters: parameters}
}

// ToolNamespaceConfig is a namespace of tools, such as "functions", "browser"
// or "python". With tools, its description is rendered as // comments above a
// TypeScript namespace; without, as plain lines.
type ToolNamespaceConfig struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Tools       []ToolDescription `json:"tools"`
}

// SystemContent is the content of a system message. Its zero value renders
// nothing; [NewSystemContent] gives the reference's defaults. Tools are keyed by
// namespace name and rendered in sorted key order.
type SystemContent struct {
	ModelIdentity         string                         `json:"model_identity,omitempty"`
	ReasoningEffort       ReasoningEffort                `json:"reasoning_effort,omitempty"`
	Tools                 map[string]ToolNamespaceConfig `json:"tools,omitempty"`
	ConversationStartDate string                         `json:"conversation_start_date,omitempty"`
	KnowledgeCutoff       string                         `json:"knowledge_cutoff,omitempty"`
	ChannelConfig         *ChannelConfig                 `json:"channel_config,omitempty"`
}

// DefaultModelIdentity is the model identity of [NewSystemContent].
const DefaultModelIdentity = "You are ChatGPT, a large language model trained by OpenAI."

// NewSystemContent returns the reference's default system content: the
// ChatGPT identity, medium reasoning, knowledge cutoff 2024-06, and the
// channels analysis, commentary and final required.
func NewSystemContent() SystemContent {
	return SystemContent{
		ModelIdentity:   DefaultModelIdentity,
		ReasoningEffort: ReasoningMedium,
		KnowledgeCutoff: "2024-06",
		ChannelConfig:   RequireChannels(ChannelAnalysis, ChannelCommentary, ChannelFinal),
	}
}

// WithModelIdentity returns a copy of s with the model identity set.
func (s SystemContent) WithModelIdentity(identity string) SystemContent {
	s.ModelIdentity = identity
	return s
}

// WithReasoningEffort returns a copy of s with the reasoning effort set.
func (s SystemContent) WithReasoningEffort(effort ReasoningEffort) SystemContent {
	s.ReasoningEffort = effort
	return s
}

// WithConversationStartDate returns a copy of s with the conversation start
// date set (an ISO date such as "2025-06-28").
func (s SystemContent) WithConversationStartDate(date string) SystemContent {
	s.ConversationStartDate = date
	return s
}

// WithKnowledgeCutoff returns a copy of s with the knowledge cutoff set.
func (s SystemContent) WithKnowledgeCutoff(cutoff string) SystemContent {
	s.KnowledgeCutoff = cutoff
	return s
}

// WithChannelConfig returns a copy of s with the channel configuration set.
func (s SystemContent) WithChannelConfig(c *ChannelConfig) SystemContent {
	s.ChannelConfig = c
	return s
}

// WithTools returns a copy of s with the namespace added (or replaced) under
// its name. The Tools map is copied, never modified in place.
func (s SystemContent) WithTools(ns ToolNamespaceConfig) SystemContent {
	s.Tools = withNamespace(s.Tools, ns)
	return s
}

// WithBrowserTool returns a copy of s with the built-in browser namespace.
func (s SystemContent) WithBrowserTool() SystemContent { return s.WithTools(BrowserNamespace()) }

// WithPythonTool returns a copy of s with the built-in python namespace.
func (s SystemContent) WithPythonTool() SystemContent { return s.WithTools(PythonNamespace()) }

// DeveloperContent is the content of a developer message: instructions,
// tools and response formats. Its zero value renders nothing.
type DeveloperContent struct {
	Instructions string                         `json:"instructions,omitempty"`
	Tools        map[string]ToolNamespaceConfig `json:"tools,omitempty"`
	// ResponseFormats are rendered last, under "# Response Formats", as the
	// harmony guide describes for structured output. The reference (v0.0.8)
	// has no such field; a developer message without response formats renders
	// exactly as it does there.
	ResponseFormats []ResponseFormat `json:"response_formats,omitempty"`
}

// ResponseFormat is a named JSON Schema the final answer should follow
// (structured output). Schema keeps its key order; it is rendered as compact
// JSON in that order.
type ResponseFormat struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
}

// NewDeveloperContent returns an empty DeveloperContent.
func NewDeveloperContent() DeveloperContent { return DeveloperContent{} }

// WithInstructions returns a copy of d with the instructions set.
func (d DeveloperContent) WithInstructions(instructions string) DeveloperContent {
	d.Instructions = instructions
	return d
}

// WithTools returns a copy of d with the namespace added (or replaced) under
// its name. The Tools map is copied, never modified in place.
func (d DeveloperContent) WithTools(ns ToolNamespaceConfig) DeveloperContent {
	d.Tools = withNamespace(d.Tools, ns)
	return d
}

// WithResponseFormat returns a copy of d with f appended to a copy of its
// response formats.
func (d DeveloperContent) WithResponseFormat(f ResponseFormat) DeveloperContent {
	d.ResponseFormats = append(append(make([]ResponseFormat, 0, len(d.ResponseFormats)+1), d.ResponseFormats...), f)
	return d
}

// WithFunctionTools returns a copy of d with the tools as the "functions"
// namespace, the one the model calls with recipient "functions.NAME".
func (d DeveloperContent) WithFunctionTools(tools ...ToolDescription) DeveloperContent {
	return d.WithTools(ToolNamespaceConfig{Name: "functions", Tools: append([]ToolDescription(nil), tools...)})
}

func withNamespace(m map[string]ToolNamespaceConfig, ns ToolNamespaceConfig) map[string]ToolNamespaceConfig {
	out := make(map[string]ToolNamespaceConfig, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[ns.Name] = ns
	return out
}

func (TextContent) contentType() string      { return "text" }
func (SystemContent) contentType() string    { return "system_content" }
func (DeveloperContent) contentType() string { return "developer_content" }

// Message is one message of a conversation. The empty string in Recipient,
// Channel and ContentType means "not set"; a Recipient of "all" is not
// rendered either.
type Message struct {
	Author
	Recipient   string
	Content     []Content
	Channel     string
	ContentType string
}

// NewTextMessage returns a message from role with text as its content.
func NewTextMessage(role Role, text string) Message {
	return Message{Author: Author{Role: role}, Content: []Content{TextContent{Text: text}}}
}

// NewToolMessage returns a tool's reply: a message authored by the tool name
// (for example "functions.get_weather") with text as its content. Set its
// recipient and channel with [Message.WithRecipient] and [Message.WithChannel].
func NewToolMessage(name, text string) Message {
	return Message{Author: Author{Role: RoleTool, Name: name}, Content: []Content{TextContent{Text: text}}}
}

// NewSystemMessage returns a system message with the given content.
func NewSystemMessage(c SystemContent) Message {
	return Message{Author: Author{Role: RoleSystem}, Content: []Content{c}}
}

// NewDeveloperMessage returns a developer message with the given content.
func NewDeveloperMessage(c DeveloperContent) Message {
	return Message{Author: Author{Role: RoleDeveloper}, Content: []Content{c}}
}

// WithName returns a copy of m with the author's name set.
func (m Message) WithName(name string) Message { m.Name = name; return m }

// WithChannel returns a copy of m with the channel set.
func (m Message) WithChannel(channel string) Message { m.Channel = channel; return m }

// WithRecipient returns a copy of m with the recipient set.
func (m Message) WithRecipient(recipient string) Message { m.Recipient = recipient; return m }

// WithContentType returns a copy of m with the content type set, such as
// "<|constrain|>json" (whose marker is rendered as the special token).
func (m Message) WithContentType(contentType string) Message { m.ContentType = contentType; return m }

// WithContent returns a copy of m with c appended to a copy of its content.
func (m Message) WithContent(c ...Content) Message {
	m.Content = append(append(make([]Content, 0, len(m.Content)+len(c)), m.Content...), c...)
	return m
}

// Text returns the concatenation of m's text parts.
func (m Message) Text() string {
	if len(m.Content) == 1 {
		if t, ok := asText(m.Content[0]); ok {
			return t
		}
	}
	var b []byte
	for _, c := range m.Content {
		if t, ok := asText(c); ok {
			b = append(b, t...)
		}
	}
	return string(b)
}

func asText(c Content) (string, bool) {
	switch t := c.(type) {
	case TextContent:
		return t.Text, true
	case *TextContent:
		if t != nil {
			return t.Text, true
		}
	}
	return "", false
}

// Conversation is a list of messages.
type Conversation struct {
	Messages []Message `json:"messages"`
}

// NewConversation returns a conversation of the given messages.
func NewConversation(messages ...Message) Conversation {
	return Conversation{Messages: messages}
}

// UnmarshalJSON accepts the reference's conversation object and, for
// convenience, a bare JSON array of messages.
//
// The messages are decoded in one pass of encoding/json into their wire form,
// not through Message.UnmarshalJSON: each nested Unmarshal would validate its
// bytes again, and a long conversation is mostly message text.
func (c *Conversation) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	var wire []messageJSON
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &wire); err != nil {
			return wrapJSON("conversation", err)
		}
	} else {
		var raw struct {
			Messages *[]messageJSON `json:"messages"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return wrapJSON("conversation", err)
		}
		if raw.Messages == nil {
			return errors.New("harmony: conversation: missing \"messages\"")
		}
		wire = *raw.Messages
	}
	msgs := make([]Message, len(wire))
	for i := range wire {
		if err := wire[i].message(&msgs[i]); err != nil {
			return fmt.Errorf("%w (message %d)", err, i)
		}
	}
	c.Messages = msgs
	return nil
}

// wrapJSON gives a JSON error from the json package the package prefix; errors
// that come from this package's own UnmarshalJSON methods have it already.
func wrapJSON(what string, err error) error {
	if strings.HasPrefix(err.Error(), "harmony: ") {
		return err
	}
	return fmt.Errorf("harmony: %s: %w", what, err)
}

// messageJSON is the reference's wire form of a message: the author's fields
// flattened, then recipient, content, channel and content type.
type messageJSON struct {
	Role        Role            `json:"role"`
	Name        *string         `json:"name,omitempty"`
	Recipient   *string         `json:"recipient,omitempty"`
	Content     json.RawMessage `json:"content"`
	Channel     *string         `json:"channel,omitempty"`
	ContentType *string         `json:"content_type,omitempty"`
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// MarshalJSON writes m in the reference's JSON form: content that is a single
// text part is written as a string, anything else as a list of typed parts;
// unset fields are left out.
func (m Message) MarshalJSON() ([]byte, error) {
	return m.AppendJSON(nil)
}

// AppendJSON appends the JSON of m, as MarshalJSON writes it, to dst, without
// HTML escaping and without going through encoding/json for the text: the
// fast path for writing many parsed messages. Strings are escaped exactly as
// encoding/json escapes them.
func (m Message) AppendJSON(dst []byte) ([]byte, error) {
	dst = append(dst, `{"role":`...)
	dst = jsonw.AppendString(dst, string(m.Role))
	if m.Name != "" {
		dst = append(dst, `,"name":`...)
		dst = jsonw.AppendString(dst, m.Name)
	}
	if m.Recipient != "" {
		dst = append(dst, `,"recipient":`...)
		dst = jsonw.AppendString(dst, m.Recipient)
	}
	dst = append(dst, `,"content":`...)
	if t, ok := singleText(m.Content); ok {
		dst = jsonw.AppendString(dst, t)
	} else {
		dst = append(dst, '[')
		for i, c := range m.Content {
			if i > 0 {
				dst = append(dst, ',')
			}
			if t, ok := asText(c); ok {
				dst = append(dst, `{"type":"text","text":`...)
				dst = jsonw.AppendString(dst, t)
				dst = append(dst, '}')
				continue
			}
			p, err := marshalContent(c)
			if err != nil {
				return nil, err
			}
			dst = append(dst, p...)
		}
		dst = append(dst, ']')
	}
	if m.Channel != "" {
		dst = append(dst, `,"channel":`...)
		dst = jsonw.AppendString(dst, m.Channel)
	}
	if m.ContentType != "" {
		dst = append(dst, `,"content_type":`...)
		dst = jsonw.AppendString(dst, m.ContentType)
	}
	return append(dst, '}'), nil
}

func singleText(cs []Content) (string, bool) {
	if len(cs) != 1 {
		return "", false
	}
	return asText(cs[0])
}

func marshalContent(c Content) ([]byte, error) {
	switch v := c.(type) {
	case TextContent:
		return jsonw.Marshal(struct {
			Type string `json:"type"`
			TextContent
		}{"text", v})
	case SystemContent:
		return jsonw.Marshal(struct {
			Type string `json:"type"`
			SystemContent
		}{"system_content", v})
	case DeveloperContent:
		return jsonw.Marshal(struct {
			Type string `json:"type"`
			DeveloperContent
		}{"developer_content", v})
	case *TextContent:
		if v != nil {
			return marshalContent(*v)
		}
	case *SystemContent:
		if v != nil {
			return marshalContent(*v)
		}
	case *DeveloperContent:
		if v != nil {
			return marshalContent(*v)
		}
	}
	return nil, fmt.Errorf("harmony: %w: %T", ErrUnsupportedContent, c)
}

// UnmarshalJSON reads a message in the reference's JSON form. Content may be a
// string or a list of parts tagged "text", "system_content" or
// "developer_content"; null fields are treated as unset.
func (m *Message) UnmarshalJSON(data []byte) error {
	var raw messageJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return wrapJSON("message", err)
	}
	return raw.message(m)
}

// message converts the wire form into m.
func (raw *messageJSON) message(m *Message) error {
	if !raw.Role.Valid() {
		return fmt.Errorf("harmony: message: %w %q", ErrUnknownRole, raw.Role)
	}
	content, err := unmarshalContent(raw.Content)
	if err != nil {
		return err
	}
	*m = Message{
		Author:      Author{Role: raw.Role, Name: deref(raw.Name)},
		Recipient:   deref(raw.Recipient),
		Content:     content,
		Channel:     deref(raw.Channel),
		ContentType: deref(raw.ContentType),
	}
	return nil
}

// jsonString decodes a JSON string literal that encoding/json has already
// validated, as encoding/json would (a lone surrogate escape becomes U+FFFD).
// Message text is most of a conversation's bytes, so this avoids a second
// validating pass; anything unusual (invalid UTF-8 in the literal) goes
// through encoding/json itself.
func jsonString(lit []byte) (string, error) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' || !utf8.Valid(lit) {
		return jsonStringSlow(lit)
	}
	body := lit[1 : len(lit)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		return string(body), nil
	}
	buf := make([]byte, 0, len(body))
	for {
		buf = append(buf, body[:i]...)
		body = body[i:]
		if len(body) < 2 {
			return jsonStringSlow(lit)
		}
		switch c := body[1]; c {
		case '"', '\\', '/':
			buf = append(buf, c)
			body = body[2:]
		case 'b':
			buf, body = append(buf, '\b'), body[2:]
		case 'f':
			buf, body = append(buf, '\f'), body[2:]
		case 'n':
			buf, body = append(buf, '\n'), body[2:]
		case 'r':
			buf, body = append(buf, '\r'), body[2:]
		case 't':
			buf, body = append(buf, '\t'), body[2:]
		case 'u':
			r, ok := hex4(body[2:])
			if !ok {
				return jsonStringSlow(lit)
			}
			body = body[6:]
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if len(body) >= 6 && body[0] == '\\' && body[1] == 'u' {
					r2, ok = hex4(body[2:])
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r, body = dec, body[6:]
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return jsonStringSlow(lit)
		}
		if i = bytes.IndexByte(body, '\\'); i < 0 {
			return string(append(buf, body...)), nil
		}
	}
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func jsonStringSlow(lit []byte) (string, error) {
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}

func unmarshalContent(data json.RawMessage) ([]Content, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return nil, errors.New("harmony: message: missing \"content\"")
	}
	if data[0] == '"' {
		s, err := jsonString(data)
		if err != nil {
			return nil, fmt.Errorf("harmony: message content: %w", err)
		}
		return []Content{TextContent{Text: s}}, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(data, &parts); err != nil {
		return nil, fmt.Errorf("harmony: message content must be a string or a list of parts: %w", err)
	}
	out := make([]Content, 0, len(parts))
	for i, p := range parts {
		var tag struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(p, &tag); err != nil {
			return nil, fmt.Errorf("harmony: content part %d: %w", i, err)
		}
		switch tag.Type {
		case "text":
			var t struct {
				Text *string `json:"text"`
			}
			if err := json.Unmarshal(p, &t); err != nil {
				return nil, fmt.Errorf("harmony: content part %d: %w", i, err)
			}
			if t.Text == nil {
				return nil, fmt.Errorf("harmony: content part %d: text part without \"text\"", i)
			}
			out = append(out, TextContent{Text: *t.Text})
		case "system_content":
			var s SystemContent
			if err := json.Unmarshal(p, &s); err != nil {
				return nil, fmt.Errorf("harmony: content part %d: %w", i, err)
			}
			out = append(out, s)
		case "developer_content":
			var d DeveloperContent
			if err := json.Unmarshal(p, &d); err != nil {
				return nil, fmt.Errorf("harmony: content part %d: %w", i, err)
			}
			out = append(out, d)
		default:
			return nil, fmt.Errorf("harmony: content part %d: %w %q", i, ErrUnsupportedContent, tag.Type)
		}
	}
	return out, nil
}

// UnmarshalJSON reads a reasoning effort ("Low", "Medium" or "High"; the
// lower-case spellings are accepted too).
func (r *ReasoningEffort) UnmarshalJSON(data []byte) error {
	var s *string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("harmony: reasoning effort: %w", err)
	}
	if s == nil {
		*r = ""
		return nil
	}
	switch *s {
	case "Low", "low":
		*r = ReasoningLow
	case "Medium", "medium":
		*r = ReasoningMedium
	case "High", "high":
		*r = ReasoningHigh
	default:
		return fmt.Errorf("harmony: unknown reasoning effort %q", *s)
	}
	return nil
}

// UnmarshalJSON reads a role, rejecting names that are not roles.
func (r *Role) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("harmony: role: %w", err)
	}
	role, err := ParseRole(s)
	if err != nil {
		return err
	}
	*r = role
	return nil
}

// Sentinel errors. Every error this package returns is typed or wraps one of
// these, so callers can test for them with errors.Is.
var (
	// ErrUnknownEncoding: LoadEncoding was given a name it does not know.
	ErrUnknownEncoding = errors.New("unknown encoding")
	// ErrUnknownRole: a role name that is not one of the five roles.
	ErrUnknownRole = errors.New("unknown role")
	// ErrUnknownToken: a token id above LastSpecialToken.
	ErrUnknownToken = errors.New("unknown token id")
	// ErrUnknownSpecial: a name passed as a special token that is none.
	ErrUnknownSpecial = errors.New("unknown special token")
	// ErrDisallowedSpecial: text holds a special token's text that Encode was not allowed to encode.
	ErrDisallowedSpecial = errors.New("text contains a disallowed special token")
	// ErrInvalidUTF8: bytes that had to be valid UTF-8 are not.
	ErrInvalidUTF8 = errors.New("invalid UTF-8")
	// ErrUnexpectedToken: a token the parser cannot accept in its state.
	ErrUnexpectedToken = errors.New("unexpected token")
	// ErrUnexpectedEOS: the stream ended inside a message header.
	ErrUnexpectedEOS = errors.New("unexpected end of stream")
	// ErrInvalidHeader: a message header that cannot be read.
	ErrInvalidHeader = errors.New("invalid message header")
	// ErrMissingToolName: a tool message whose author has no name.
	ErrMissingToolName = errors.New("tool message without a name")
	// ErrMisplacedContent: system content outside a system message, or developer content outside a developer message.
	ErrMisplacedContent = errors.New("content not allowed for the message's role")
	// ErrUnsupportedContent: a content part or value the format has no rendering for.
	ErrUnsupportedContent = errors.New("unsupported content")
	// ErrInvalidSchema: a tool's parameters or a response format's schema are not
	// valid JSON (when rendering) or not a valid JSON Schema (ValidateSchemas).
	ErrInvalidSchema = errors.New("invalid tool parameter schema")
)

// EncodeError reports text that cannot be encoded as asked.
type EncodeError struct {
	Offset  int    // byte offset of the special token's text in the input, or -1
	Special string // the special token's text
	Err     error  // ErrDisallowedSpecial or ErrUnknownSpecial
}

// Error describes the problem, starting with "harmony: ".
func (e *EncodeError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("harmony: encode: %v %q", e.Err, e.Special)
	}
	return fmt.Sprintf("harmony: encode: %v %q at byte %d", e.Err, e.Special, e.Offset)
}

// Unwrap returns the sentinel error.
func (e *EncodeError) Unwrap() error { return e.Err }

// DecodeError reports tokens that cannot be decoded.
type DecodeError struct {
	Index  int   // index of the offending token, or -1
	Token  Token // the offending token, when Index >= 0
	Offset int   // byte offset of invalid UTF-8, when Index < 0
	Err    error // ErrUnknownToken or ErrInvalidUTF8
}

// Error describes the problem, starting with "harmony: ".
func (e *DecodeError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("harmony: decode: %v at byte %d", e.Err, e.Offset)
	}
	return fmt.Sprintf("harmony: decode: %v %d at index %d", e.Err, e.Token, e.Index)
}

// Unwrap returns the sentinel error.
func (e *DecodeError) Unwrap() error { return e.Err }
