package jsonschema

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemanorm"
	js "github.com/santhosh-tekuri/jsonschema/v5"
)

// decodeInstance parses text as the reference parser would (strict JSON,
// valid UTF-8, bounded nesting) and decodes it for the validator, numbers
// as json.Number so that none loses precision. The parse is the only one:
// schemanorm.Decoded turns it into what encoding/json would have decoded.
func decodeInstance(text string) (any, error) {
	doc, err := ojson.ParseOptions{KeepNumberText: true}.Parse([]byte(text))
	if err != nil {
		var se *ojson.SyntaxError
		errors.As(err, &se)
		return nil, invalidJSONError(se)
	}
	return schemanorm.Decoded(doc), nil
}

func invalidJSON(subject string, err error) *ValidationError {
	return &ValidationError{Subject: subject, Violations: []Violation{{Message: err.Error()}}}
}

// validate checks text against the compiled schema.
func (c *compiledSchema) validate(owner, subject, text string) (err error) {
	v, err := decodeInstance(text)
	if err != nil {
		return invalidJSON(subject, err)
	}
	if c.maxDepth >= 0 && nesting(v, c.maxDepth) > c.maxDepth {
		return &harmony.SchemaError{Tool: owner, Pointer: c.depthAt, Err: fmt.Errorf("%w: %s; this one is nested deeper", ErrSchemaTooComplex, c.depthWhy)}
	}
	defer func() {
		if r := recover(); r != nil {
			err = &harmony.SchemaError{Tool: owner, Err: fmt.Errorf("validation failed: %v", r)}
		}
	}()
	err = c.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *js.ValidationError
	if errors.As(err, &ve) {
		out := &ValidationError{Subject: subject}
		var leaves func(*js.ValidationError)
		leaves = func(e *js.ValidationError) {
			if len(e.Causes) == 0 {
				out.Violations = append(out.Violations, Violation{
					InstanceLocation: unescapeLocation(e.InstanceLocation),
					KeywordLocation:  unescapeLocation(e.KeywordLocation),
					Message:          sortNames(e.Message),
				})
			}
			for _, cause := range e.Causes {
				leaves(cause)
			}
		}
		leaves(ve)
		// The validator walks properties in map order: sort.
		sort.SliceStable(out.Violations, func(i, j int) bool {
			a, b := out.Violations[i], out.Violations[j]
			if c := comparePointers(a.InstanceLocation, b.InstanceLocation); c != 0 {
				return c < 0
			}
			if c := comparePointers(a.KeywordLocation, b.KeywordLocation); c != 0 {
				return c < 0
			}
			return a.Message < b.Message
		})
		return out
	}
	var loop js.InfiniteLoopError
	if errors.As(err, &loop) {
		return &harmony.SchemaError{Tool: owner, Pointer: loopPointer(loop, c.docs), Err: errLoop}
	}
	return &harmony.SchemaError{Tool: owner, Err: errors.New(cleanMessage(err))}
}

// nesting returns how deeply v nests (0 for a scalar or an empty container),
// or limit+1 once it is known to nest deeper than limit.
func nesting(v any, limit int) int {
	if limit < 0 {
		return 0
	}
	deepest := 0
	switch t := v.(type) {
	case map[string]any:
		for _, c := range t {
			deepest = max(deepest, 1+nesting(c, limit-1))
			if deepest > limit {
				return deepest
			}
		}
	case []any:
		for _, c := range t {
			deepest = max(deepest, 1+nesting(c, limit-1))
			if deepest > limit {
				return deepest
			}
		}
	}
	return deepest
}

// sortNames sorts the names of an "additionalProperties 'b', 'a' not
// allowed" message, which the validator lists in map order, so that the
// message is the same from one call to the next. Other messages are
// returned as they are.
func sortNames(msg string) string {
	list, okPrefix := strings.CutPrefix(msg, "additionalProperties ")
	list, okSuffix := strings.CutSuffix(list, " not allowed")
	if !okPrefix || !okSuffix || !strings.Contains(list, ", ") {
		return msg
	}
	// Names are quoted in single quotes, with backslash escapes.
	var names []string
	for i := 0; i < len(list); {
		if list[i] != '\'' {
			return msg
		}
		j := i + 1
		for j < len(list) && list[j] != '\'' {
			if list[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(list) {
			return msg
		}
		names = append(names, list[i:j+1])
		i = j + 1
		if i < len(list) {
			if !strings.HasPrefix(list[i:], ", ") {
				return msg
			}
			i += 2
		}
	}
	sort.Strings(names)
	return "additionalProperties " + strings.Join(names, ", ") + " not allowed"
}

// comparePointers orders JSON pointers token by token, array indexes (tokens
// of digits) by value, so that "/a" < "/a/2" < "/a/10" < "/b".
func comparePointers(a, b string) int {
	ta, tb := strings.Split(a, "/"), strings.Split(b, "/")
	for i := 0; i < len(ta) && i < len(tb); i++ {
		x, y := ta[i], tb[i]
		if x == y {
			continue
		}
		if isDigits(x) && isDigits(y) && len(x) != len(y) {
			return len(x) - len(y)
		}
		return strings.Compare(x, y)
	}
	return len(ta) - len(tb)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
