package harmony

// This file reads and writes messages and conversations in the reference's
// JSON form (the Python library's), so that a conversation saved there loads
// here and back. Decoding runs encoding/json once over the whole document
// into a wire struct and decodes message text through internal/ojson's fast
// path; errors are *JSONError values carrying the JSON path.

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
// The messages are decoded in one pass of encoding/json into their wire form,
// not through Message.UnmarshalJSON: each nested Unmarshal would validate its
// bytes again, and a long conversation is mostly message text.
func (c *Conversation) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	var wire []messageJSON
	prefix := "$"
	if len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &wire); err != nil {
			return decodeError("$", err)
		}
	} else {
		var raw struct {
			Messages *[]messageJSON `json:"messages"`
		}
		if err := json.Unmarshal(data, &raw); err != nil {
			return decodeError("$", err)
		}
		if raw.Messages == nil {
			return &JSONError{Path: "$.messages", Err: ErrMissingField}
		}
		wire = *raw.Messages
		prefix = "$.messages"
	}
	msgs := make([]Message, len(wire))
	for i := range wire {
		if err := wire[i].message(&msgs[i], prefix+"["+strconv.Itoa(i)+"]"); err != nil {
			return err
		}
	}
	c.Messages = msgs
	return nil
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
// [*JSONError]s.
func (m *Message) UnmarshalJSON(data []byte) error {
	var raw messageJSON
	if err := json.Unmarshal(data, &raw); err != nil {
		return decodeError("$", err)
	}
	return raw.message(m, "$")
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
	data = bytes.TrimSpace(data)
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
		*r = ReasoningLow
	case "Medium", "medium":
		*r = ReasoningMedium
	case "High", "high":
		*r = ReasoningHigh
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
