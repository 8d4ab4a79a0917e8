package jsonschema

import (
	"errors"
	"fmt"
	"strings"
)

// ErrSchemaViolation is wrapped by every [*ValidationError]: a tool call's
// arguments or a final answer do not match their schema (or are not JSON).
var ErrSchemaViolation = errors.New("value does not match its schema")

// ErrSchemaTooComplex is wrapped by the Err of the [*harmony.SchemaError]
// returned for a schema whose validation could cost more than the
// [Validator]'s budget (see the package documentation): its Pointer names
// the subschema where the budget ran out.
var ErrSchemaTooComplex = errors.New("schema too complex to validate")

// Violation is one way in which a value fails its schema.
type Violation struct {
	// InstanceLocation is the JSON pointer of the failing value inside the
	// validated document ("" for the document itself).
	InstanceLocation string
	// KeywordLocation is the JSON pointer, inside the schema, of the keyword
	// that failed, along the path validation took (so it may go through
	// "$ref"); "" when the value is not JSON at all.
	KeywordLocation string
	// Message describes the failure, such as "missing properties: 'city'".
	Message string
}

// String formats the violation as "LOCATION: MESSAGE", the location being
// "(root)" for the whole document.
func (v Violation) String() string {
	loc := v.InstanceLocation
	if loc == "" {
		loc = "(root)"
	}
	return loc + ": " + v.Message
}

// ValidationError reports a tool call's arguments or a final answer that do
// not match their schema. errors.Is(err, [ErrSchemaViolation]) reports true
// for it.
type ValidationError struct {
	// Subject says what was validated: "arguments of tool NAME" or
	// "response for format NAME".
	Subject string
	// Violations lists every failing check, sorted by instance location
	// (array indexes by value), then keyword location. A value that is not
	// JSON has exactly one violation, with empty locations and a message
	// starting "invalid JSON: ".
	Violations []Violation
}

// Error lists the violations on one line, starting with "harmony: ".
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString("harmony: ")
	b.WriteString(e.Subject)
	switch len(e.Violations) {
	case 0:
		b.WriteString(": schema violation")
	case 1:
		b.WriteString(": 1 schema violation: ")
	default:
		fmt.Fprintf(&b, ": %d schema violations: ", len(e.Violations))
	}
	for i, v := range e.Violations {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Unwrap returns [ErrSchemaViolation].
func (e *ValidationError) Unwrap() error { return ErrSchemaViolation }
