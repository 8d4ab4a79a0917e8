package constrain

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error this package returns wraps one of them,
// but for the context's error from CompileJSONSchemaContext.
var (
	// ErrUnsupported: a schema keyword or value this package cannot enforce
	// exactly. The schema is refused rather than loosened.
	ErrUnsupported = errors.New("unsupported schema feature")
	// ErrInvalidSchema: the schema is not valid JSON or not a JSON Schema.
	ErrInvalidSchema = errors.New("invalid schema")
	// ErrTooComplex: an automaton the schema needs passes the size bounds,
	// its subschemas nest too deep, or compiling it passes its Budget.
	ErrTooComplex = errors.New("schema too complex")
	// ErrEmpty: the schema has no valid instance at all.
	ErrEmpty = errors.New("schema has no valid instance")
	// ErrTokenNotAllowed: Accept was given a token the mask does not allow.
	ErrTokenNotAllowed = errors.New("token not allowed")
)

// SchemaError reports a schema that cannot be compiled: Pointer is the JSON
// pointer (RFC 6901) of the offending subschema or keyword, "" for the root.
type SchemaError struct {
	Pointer string
	Err     error // wraps ErrUnsupported, ErrInvalidSchema, ErrTooComplex or ErrEmpty
}

// Error describes the problem, starting with "constrain: ".
func (e *SchemaError) Error() string {
	return fmt.Sprintf("constrain: schema at %q: %v", e.Pointer, e.Err)
}

// Unwrap returns the underlying error.
func (e *SchemaError) Unwrap() error { return e.Err }

// TokenError reports a token Accept refused; the matcher is unchanged.
type TokenError struct {
	Index int    // how many tokens the matcher had accepted before
	Token uint32 // the refused token id
	Err   error  // ErrTokenNotAllowed
}

// Error describes the problem, starting with "constrain: ".
func (e *TokenError) Error() string {
	return fmt.Sprintf("constrain: token %d at index %d: %v", e.Token, e.Index, e.Err)
}

// Unwrap returns ErrTokenNotAllowed.
func (e *TokenError) Unwrap() error { return e.Err }

// unsupported builds the error for a feature that cannot be enforced exactly.
func unsupported(ptr, format string, args ...any) error {
	return &SchemaError{Pointer: ptr, Err: fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)}
}

// invalid builds the error for a schema at ptr that is not a valid JSON
// Schema: a *SchemaError wrapping ErrInvalidSchema.
func invalid(ptr, format string, args ...any) error {
	return &SchemaError{Pointer: ptr, Err: fmt.Errorf("%w: "+format, append([]any{ErrInvalidSchema}, args...)...)}
}

// tooComplex builds the error for a subschema at ptr past one of the
// size bounds: a *SchemaError wrapping ErrTooComplex.
func tooComplex(ptr, format string, args ...any) error {
	return &SchemaError{Pointer: ptr, Err: fmt.Errorf("%w: "+format, append([]any{ErrTooComplex}, args...)...)}
}
