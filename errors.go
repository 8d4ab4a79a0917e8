package harmony

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors. Every error this package returns is typed or wraps one of
// these, so callers can test for them with errors.Is.
var (
	// ErrUnknownEncoding: LoadEncoding was given a name it does not know.
	ErrUnknownEncoding = errors.New("unknown encoding")
	// ErrUnknownRole: a role name that is not one of the five roles.
	ErrUnknownRole = errors.New("unknown role")
	// ErrUnknownReasoningEffort: a reasoning effort other than low, medium or high.
	ErrUnknownReasoningEffort = errors.New("unknown reasoning effort")
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
	// ErrMissingField: JSON that lacks a field the format requires.
	ErrMissingField = errors.New("missing field")
	// ErrUnknownField: JSON with a field the format does not have.
	ErrUnknownField = errors.New("unknown field")
	// ErrConflictingField: JSON with two fields that say different things.
	ErrConflictingField = errors.New("conflicting field")
	// ErrInvalidSchema: a tool's parameters or a response format's schema are not
	// valid JSON (when rendering), or not a valid JSON Schema (package
	// harmony/jsonschema).
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
	Index int   // index of the offending token
	Token Token // the offending token
	Err   error // ErrUnknownToken
}

// Error describes the problem, starting with "harmony: ".
func (e *DecodeError) Error() string {
	return fmt.Sprintf("harmony: decode: %v %d at index %d", e.Err, e.Token, e.Index)
}

// Unwrap returns the sentinel error.
func (e *DecodeError) Unwrap() error { return e.Err }

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

// ParseError reports tokens that do not form harmony messages.
type ParseError struct {
	Index int         // index of the offending token; the number of tokens for the end of the stream
	Token Token       // the offending token (0 at the end of the stream)
	EOS   bool        // the error is at the end of the stream
	State StreamState // the parser's state when the token arrived
	Err   error       // wraps ErrUnexpectedToken, ErrUnexpectedEOS, ErrInvalidHeader, ErrUnknownRole, ErrUnknownToken or ErrInvalidUTF8
}

// Error describes the problem, starting with "harmony: ".
func (e *ParseError) Error() string {
	if e.EOS {
		return fmt.Sprintf("harmony: parse: at end of stream (index %d, state %s): %v", e.Index, e.State, e.Err)
	}
	return fmt.Sprintf("harmony: parse: token %d at index %d (state %s): %v", e.Token, e.Index, e.State, e.Err)
}

// Unwrap returns the underlying error.
func (e *ParseError) Unwrap() error { return e.Err }

// JSONError reports JSON that does not decode as a conversation, a message
// or one of their fields.
type JSONError struct {
	// Path is the JSON path of the offending value, such as
	// "$.messages[2].content[0].text"; "$" is the whole document. It names
	// the innermost value the decoder can point at: encoding/json's own
	// syntax errors point at "$" (their message gives the byte offset).
	Path string
	// Err is what is wrong: it wraps ErrUnknownRole, ErrUnknownReasoningEffort,
	// ErrUnsupportedContent, ErrMisplacedContent, ErrMissingField,
	// ErrUnknownField or ErrConflictingField, or is encoding/json's error.
	Err error
}

// Error describes the problem, starting with "harmony: ".
func (e *JSONError) Error() string {
	return "harmony: JSON " + e.Path + ": " + e.Err.Error()
}

// Unwrap returns the underlying error.
func (e *JSONError) Unwrap() error { return e.Err }

// SchemaError reports a JSON Schema that cannot be used: a tool's parameters
// or a response format's schema that is not JSON, or (from package
// harmony/jsonschema) not a valid JSON Schema, too costly to validate, or
// referring to a document other than itself. errors.Is(err,
// [ErrInvalidSchema]) reports true for it.
type SchemaError struct {
	// Tool names the schema's owner: "namespace.tool" (just the tool's name
	// when no namespace is known) or "response format NAME"; empty for
	// [NormalizeSchema].
	Tool string
	// Pointer is the JSON pointer (RFC 6901) of the offending value inside
	// the schema, such as "/properties/a/type"; "" is the whole schema.
	Pointer string
	// Err describes the problem.
	Err error
}

// Error describes the problem, starting with "harmony: ".
func (e *SchemaError) Error() string {
	var b strings.Builder
	b.WriteString("harmony: ")
	if e.Tool != "" {
		b.WriteString("schema of ")
		b.WriteString(e.Tool)
	} else {
		b.WriteString("schema")
	}
	b.WriteString(" is invalid")
	if e.Pointer != "" {
		b.WriteString(" at ")
		b.WriteString(e.Pointer)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the description of the problem.
func (e *SchemaError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalidSchema], which every SchemaError
// stands for.
func (e *SchemaError) Is(target error) bool { return target == ErrInvalidSchema }
