package harmony

// This file reads and writes messages and conversations in the reference's
// JSON form (the Python library's), so that a conversation saved there loads
// here and back. Decoding runs once over the whole document into a wire
// struct (a fast scanner for the common form, encoding/json otherwise) and
// decodes message text through internal/ojson's fast path; errors are
// *JSONError values carrying the JSON path.
//
// Nothing is dropped silently. A field that neither the reference's JSON nor
// the reasoning fields below can hold is an error: encoding/json reports it
// without a path, so a second, slower walk over the document (only on that
// error) finds the field's path. The reasoning fields that datasets and
// OpenAI-compatible servers put on assistant messages become analysis
// messages of their own.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony/internal/jsonw"
	"github.com/go-harmony/harmony/internal/ojson"
)

// UnmarshalJSON accepts the reference's conversation object and, for
// convenience, a bare JSON array of messages. Errors are [*JSONError]s.
//
// A field the reference's JSON does not have, in the conversation object or
// in a message, is an error wrapping [ErrUnknownField] whose path names it
// ("$.messages[3].tool_calls"). The exceptions are "thinking",
// "reasoning_content" and "reasoning", the fields in which datasets and
// OpenAI-compatible servers keep an assistant message's chain of thought:
// such a field, when it is a non-empty string, becomes an analysis message
// placed just before its message, with the same author (role and name), the
// channel "analysis", no recipient and no content type; the message itself is
// decoded as usual and keeps its channel. Several of these fields on one
// message must hold the same text ([ErrConflictingField] otherwise). A null
// or empty field adds nothing, on any message. A non-empty one is an error on
// a message that is not the assistant's ([ErrMisplacedContent]), and on an
// assistant message without a channel ([ErrMissingField] at its channel): an
// answer written after reasoning belongs on a channel, and which one is not
// guessed.
//
// The messages are decoded in one pass into their wire form, not through
// Message.UnmarshalJSON: each nested Unmarshal would validate its bytes
// again, and a long conversation is mostly message text. That pass is
// decodeWireFast's for the common form (json_fast.go), and encoding/json's
// for anything else.
func (c *Conversation) UnmarshalJSON(data []byte) error {
	data = trimJSONSpace(data)
	wire, prefix, ok := decodeWireFast(data)
	switch {
	case ok:
	case len(data) > 0 && data[0] == '[':
		prefix = "$"
		if err := decodeStrict(data, &wire); err != nil {
			return strictError(data, err)
		}
	default:
		var raw struct {
			Messages *[]messageJSON `json:"messages"`
		}
		if err := decodeStrict(data, &raw); err != nil {
			return strictError(data, err)
		}
		if raw.Messages == nil {
			return &JSONError{Path: "$.messages", Err: ErrMissingField}
		}
		wire = *raw.Messages
		prefix = "$.messages"
	}
	n := len(wire)
	for i := range wire {
		if wire[i].hasReasoning() {
			n++
		}
	}
	msgs := make([]Message, 0, n)
	for i := range wire {
		path := prefix + "[" + strconv.Itoa(i) + "]"
		var m Message
		if err := wire[i].message(&m, path); err != nil {
			return err
		}
		reasoning, _, err := wire[i].reasoning(path)
		if err != nil {
			return err
		}
		if reasoning != "" {
			msgs = append(msgs, Message{Author: m.Author, Content: []Content{TextContent{Text: reasoning}}, Channel: ChannelAnalysis})
		}
		msgs = append(msgs, m)
	}
	c.Messages = msgs
	return nil
}

// decodeStrict decodes the JSON value data, which holds nothing else, into v
// with encoding/json, refusing fields that v does not have. Invalid JSON gets
// json.Unmarshal's error, as before.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil && dec.InputOffset() == int64(len(bytes.TrimRightFunc(data, isJSONSpace))) {
		return nil
	}
	if !json.Valid(data) {
		var v json.RawMessage
		return json.Unmarshal(data, &v)
	}
	return err
}

func isJSONSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// strictError turns an error of decodeStrict on a conversation into a
// *JSONError: an unknown field's path is found by walking data, which only
// this error path does.
func strictError(data []byte, err error) *JSONError {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	if errors.As(err, &se) || errors.As(err, &te) {
		return decodeError("$", err)
	}
	if path, ok := unknownConversationField(data); ok {
		return &JSONError{Path: path, Err: ErrUnknownField}
	}
	return jsonError("$", err)
}

// unknownConversationField returns the path of the first field, in document
// order, that the conversation object or one of its messages does not have.
func unknownConversationField(data []byte) (path string, ok bool) {
	messages := func(data []byte, prefix string) {
		eachElement(data, func(i int, v json.RawMessage) bool {
			path, ok = unknownMessageField(v, prefix+"["+strconv.Itoa(i)+"]")
			return ok
		})
	}
	if len(data) > 0 && data[0] == '[' {
		messages(data, "$")
		return path, ok
	}
	eachField(data, func(key string, v json.RawMessage) bool {
		if !strings.EqualFold(key, "messages") {
			path, ok = "$."+key, true
			return true
		}
		messages(v, "$.messages")
		return ok
	})
	return path, ok
}

// messageFields are the fields of messageJSON. encoding/json matches them
// case-insensitively, and so does unknownMessageField.
var messageFields = [...]string{"role", "name", "recipient", "content", "channel", "content_type", "thinking", "reasoning_content", "reasoning"}

// unknownMessageField returns the path of the first field of the message
// data, in document order, that messageJSON does not have.
func unknownMessageField(data []byte, prefix string) (path string, ok bool) {
	eachField(data, func(key string, _ json.RawMessage) bool {
		for _, f := range messageFields {
			if strings.EqualFold(key, f) {
				return false
			}
		}
		path, ok = prefix+"."+key, true
		return true
	})
	return path, ok
}

// eachField calls fn with each field of the JSON object data, in order, until
// fn returns true. It does nothing for anything but an object.
func eachField(data []byte, fn func(key string, v json.RawMessage) bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return
	}
	for dec.More() {
		t, err := dec.Token()
		key, isKey := t.(string)
		var v json.RawMessage
		if err != nil || !isKey || dec.Decode(&v) != nil || fn(key, v) {
			return
		}
	}
}

// eachElement calls fn with each element of the JSON array data, in order,
// until fn returns true. It does nothing for anything but an array.
func eachElement(data []byte, fn func(i int, v json.RawMessage) bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return
	}
	for i := 0; dec.More(); i++ {
		var v json.RawMessage
		if dec.Decode(&v) != nil || fn(i, v) {
			return
		}
	}
}

// jsonError returns err as a *JSONError at path. An error that is one
// already (from a nested UnmarshalJSON) keeps its own path below path.
func jsonError(path string, err error) *JSONError {
	var je *JSONError
	if errors.As(err, &je) {
		return &JSONError{Path: path + strings.TrimPrefix(je.Path, "$"), Err: je.Err}
	}
	return &JSONError{Path: path, Err: err}
}

// decodeError wraps an error of encoding/json at path, pointing into the
// document where encoding/json says which field it was.
func decodeError(path string, err error) *JSONError {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return jsonError(path+"."+te.Field, err)
	}
	return jsonError(path, err)
}

// messageJSON is the reference's wire form of a message: the author's fields
// flattened, then recipient, content, channel and content type. The role is
// a plain string here and checked in message, where the path is known.
type messageJSON struct {
	Role        string          `json:"role"`
	Name        *string         `json:"name,omitempty"`
	Recipient   *string         `json:"recipient,omitempty"`
	Content     json.RawMessage `json:"content"`
	Channel     *string         `json:"channel,omitempty"`
	ContentType *string         `json:"content_type,omitempty"`
	Header      *string         `json:"header,omitempty"` // not the reference's

	// The reasoning fields of datasets and OpenAI-compatible servers, kept
	// raw so that a value of the wrong type is reported with its path.
	Thinking         json.RawMessage `json:"thinking,omitempty"`
	ReasoningContent json.RawMessage `json:"reasoning_content,omitempty"`
	Reasoning        json.RawMessage `json:"reasoning,omitempty"`
}

// hasReasoning reports whether a reasoning field may add a message.
func (raw *messageJSON) hasReasoning() bool {
	return raw.Thinking != nil || raw.ReasoningContent != nil || raw.Reasoning != nil
}

// reasoning returns the text of the message's reasoning fields at path and
// the name of the first field that holds it: "" when they are absent, null or
// empty, and an error where the rules of Conversation.UnmarshalJSON refuse
// them.
func (raw *messageJSON) reasoning(path string) (text, field string, err error) {
	if !raw.hasReasoning() {
		return "", "", nil
	}
	for _, f := range [...]struct {
		name string
		v    json.RawMessage
	}{{"thinking", raw.Thinking}, {"reasoning_content", raw.ReasoningContent}, {"reasoning", raw.Reasoning}} {
		v := bytes.TrimSpace(f.v)
		if len(v) == 0 || bytes.Equal(v, []byte("null")) {
			continue
		}
		at := path + "." + f.name
		if v[0] != '"' {
			return "", "", &JSONError{Path: at, Err: fmt.Errorf("%w: reasoning must be a string", ErrUnsupportedContent)}
		}
		s, err := jsonString(v)
		if err != nil {
			return "", "", jsonError(at, err)
		}
		switch {
		case s == "":
		case Role(raw.Role) != RoleAssistant:
			return "", "", &JSONError{Path: at, Err: fmt.Errorf("%w: reasoning on a %s message", ErrMisplacedContent, raw.Role)}
		case text == "":
			text, field = s, f.name
		case s != text:
			return "", "", &JSONError{Path: at, Err: fmt.Errorf("%w: differs from %s", ErrConflictingField, field)}
		}
	}
	if text != "" && deref(raw.Channel) == "" {
		return "", "", &JSONError{Path: path + ".channel", Err: fmt.Errorf("%w: an assistant message with reasoning needs a channel", ErrMissingField)}
	}
	return text, field, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// message converts the wire form at path into m.
func (raw *messageJSON) message(m *Message, path string) error {
	role := Role(raw.Role)
	if !role.Valid() {
		return &JSONError{Path: path + ".role", Err: fmt.Errorf("%w %q", ErrUnknownRole, raw.Role)}
	}
	content, err := unmarshalContent(raw.Content, path+".content")
	if err != nil {
		return err
	}
	*m = Message{
		Author:      Author{Role: role, Name: deref(raw.Name)},
		Recipient:   deref(raw.Recipient),
		Content:     content,
		Channel:     deref(raw.Channel),
		ContentType: deref(raw.ContentType),
		Header:      deref(raw.Header),
	}
	return nil
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
	if len(m.Content) == 1 {
		if t, ok := asText(m.Content[0]); ok {
			dst = jsonw.AppendString(dst, t)
			return m.appendJSONTail(dst), nil
		}
	}
	dst = append(dst, '[')
	for i, c := range m.Content {
		if i > 0 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = appendContentJSON(dst, c); err != nil {
			return nil, err
		}
	}
	dst = append(dst, ']')
	return m.appendJSONTail(dst), nil
}

// appendJSONTail appends the fields after the content and the closing brace.
func (m *Message) appendJSONTail(dst []byte) []byte {
	if m.Channel != "" {
		dst = append(dst, `,"channel":`...)
		dst = jsonw.AppendString(dst, m.Channel)
	}
	if m.ContentType != "" {
		dst = append(dst, `,"content_type":`...)
		dst = jsonw.AppendString(dst, m.ContentType)
	}
	if m.Header != "" {
		dst = append(dst, `,"header":`...)
		dst = jsonw.AppendString(dst, m.Header)
	}
	return append(dst, '}')
}

// appendContentJSON appends one content part, tagged with its type.
func appendContentJSON(dst []byte, c Content) ([]byte, error) {
	var p []byte
	var err error
	switch v := contentValue(c).(type) {
	case TextContent:
		dst = append(dst, `{"type":"text","text":`...)
		dst = jsonw.AppendString(dst, v.Text)
		return append(dst, '}'), nil
	case SystemContent:
		p, err = jsonw.Marshal(struct {
			Type string `json:"type"`
			SystemContent
		}{"system_content", v})
	case DeveloperContent:
		p, err = jsonw.Marshal(struct {
			Type string `json:"type"`
			DeveloperContent
		}{"developer_content", v})
	default:
		return nil, fmt.Errorf("harmony: %w: %T", ErrUnsupportedContent, c)
	}
	if err != nil {
		return nil, err
	}
	return append(dst, p...), nil
}

// UnmarshalJSON reads a message in the reference's JSON form. Content may be a
// string or a list of parts tagged "text", "system_content" or
// "developer_content"; null fields are treated as unset. Errors are
// [*JSONError]s. A field the reference's JSON does not have is an error
// wrapping [ErrUnknownField]. A non-empty reasoning field ("thinking",
// "reasoning_content" or "reasoning") is an error wrapping
// [ErrUnsupportedContent]: it becomes a message of its own, which only
// [Conversation.UnmarshalJSON] can return.
func (m *Message) UnmarshalJSON(data []byte) error {
	data = trimJSONSpace(data)
	var raw messageJSON
	if err := decodeStrict(data, &raw); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		if !errors.As(err, &se) && !errors.As(err, &te) {
			if path, ok := unknownMessageField(data, "$"); ok {
				return &JSONError{Path: path, Err: ErrUnknownField}
			}
		}
		return decodeError("$", err)
	}
	if err := raw.message(m, "$"); err != nil {
		return err
	}
	text, field, err := raw.reasoning("$")
	if err == nil && text != "" {
		err = &JSONError{Path: "$." + field, Err: fmt.Errorf("%w: reasoning becomes a message of its own; decode the message in a Conversation", ErrUnsupportedContent)}
	}
	if err != nil {
		*m = Message{}
		return err
	}
	return nil
}

// jsonString decodes a JSON string literal that encoding/json has already
// validated, as encoding/json would (a lone surrogate escape becomes U+FFFD):
// through ojson's fast path, and encoding/json itself for anything unusual.
func jsonString(lit []byte) (string, error) {
	if s, ok := ojson.UnquoteStd(lit); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(lit, &s)
	return s, err
}

// unmarshalContent decodes a message's content at path.
func unmarshalContent(data json.RawMessage, path string) ([]Content, error) {
	data = trimJSONSpace(data)
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return nil, &JSONError{Path: path, Err: ErrMissingField}
	}
	if data[0] == '"' {
		s, err := jsonString(data)
		if err != nil {
			return nil, jsonError(path, err)
		}
		return []Content{TextContent{Text: s}}, nil
	}
	var parts []json.RawMessage
	if err := json.Unmarshal(data, &parts); err != nil {
		return nil, jsonError(path, fmt.Errorf("a string or a list of parts: %w", err))
	}
	out := make([]Content, 0, len(parts))
	for i, p := range parts {
		at := path + "[" + strconv.Itoa(i) + "]"
		var tag struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(p, &tag); err != nil {
			return nil, decodeError(at, err)
		}
		switch tag.Type {
		case "text":
			var t struct {
				Text *string `json:"text"`
			}
			if err := json.Unmarshal(p, &t); err != nil {
				return nil, decodeError(at, err)
			}
			if t.Text == nil {
				return nil, &JSONError{Path: at + ".text", Err: ErrMissingField}
			}
			out = append(out, TextContent{Text: *t.Text})
		case "system_content":
			var s SystemContent
			if err := json.Unmarshal(p, &s); err != nil {
				return nil, decodeError(at, err)
			}
			out = append(out, s)
		case "developer_content":
			var d DeveloperContent
			if err := json.Unmarshal(p, &d); err != nil {
				return nil, decodeError(at, err)
			}
			out = append(out, d)
		default:
			return nil, &JSONError{Path: at + ".type", Err: fmt.Errorf("%w %q", ErrUnsupportedContent, tag.Type)}
		}
	}
	return out, nil
}

// UnmarshalJSON reads a reasoning effort ("Low", "Medium" or "High"; the
// lower-case spellings are accepted too). Errors are [*JSONError]s.
func (r *ReasoningEffort) UnmarshalJSON(data []byte) error {
	var s *string
	if err := json.Unmarshal(data, &s); err != nil {
		return jsonError("$", err)
	}
	if s == nil {
		*r = ""
		return nil
	}
	switch *s {
	case "Low", "low":
		*r = EffortLow
	case "Medium", "medium":
		*r = EffortMedium
	case "High", "high":
		*r = EffortHigh
	default:
		return &JSONError{Path: "$", Err: fmt.Errorf("%w %q", ErrUnknownReasoningEffort, *s)}
	}
	return nil
}

// UnmarshalJSON reads a role, rejecting names that are not roles. Errors are
// [*JSONError]s.
func (r *Role) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return jsonError("$", err)
	}
	if !Role(s).Valid() {
		return &JSONError{Path: "$", Err: fmt.Errorf("%w %q", ErrUnknownRole, s)}
	}
	*r = Role(s)
	return nil
}

// trimJSONSpace returns data without the JSON white space (space, tab, line
// feed, carriage return) around it; other space, such as a vertical tab, is
// left for the decoder to refuse.
func trimJSONSpace(data []byte) []byte {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	for len(data) > 0 && isSpace(data[0]) {
		data = data[1:]
	}
	for len(data) > 0 && isSpace(data[len(data)-1]) {
		data = data[:len(data)-1]
	}
	return data
}
