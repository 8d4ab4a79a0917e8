// Package schemats renders a JSON Schema (the "parameters" of a function
// tool) as the TypeScript-like type that harmony prompts show the model.
//
// The output must equal the reference implementation's byte for byte, so the
// renderer follows the reference's rules rather than JSON Schema semantics,
// including its quirks:
//
//   - A schema with a "oneOf" array renders as one "\n<indent> | <variant>"
//     line per variant, whatever else the schema says.
//   - Object properties are written at the object's own indentation; nested
//     types are indented four more spaces, oneOf variants three more.
//   - Comments are copied raw: descriptions, titles, string examples and
//     string defaults are never escaped, while a non-string default is
//     printed as compact JSON. A string default is quoted unless the schema
//     has a non-empty "enum", in which case it is bare (or, for a top-level
//     oneOf variant, printed as a JSON string).
//   - Only these keys are looked at, each only when it has the
//     expected JSON type: "type" as a string or an array of strings, "enum",
//     "items", "properties", "required", "nullable" (a JSON boolean),
//     "description", "title", "examples", "default" and "oneOf".
//
// Rendering needs no recursion limit of its own: it follows the nesting of a
// parsed [ojson.Value], which the parser already bounds.
package schemats

import (
	"bytes"

	"github.com/go-harmony/harmony/internal/ojson"
)

// TypeScript parses schema as JSON and renders it as the reference renders a
// tool's parameters. The only error is a JSON syntax error from
// [ojson.Parse]; every valid document renders (unknown shapes become "any").
func TypeScript(schema []byte) (string, error) {
	v, err := ojson.Parse(schema)
	if err != nil {
		return "", err
	}
	return string(AppendTypeScript(nil, v)), nil
}

// AppendTypeScript appends the rendering of an already parsed schema to dst
// and returns the extended buffer. A nil schema renders as "any".
func AppendTypeScript(dst []byte, schema *ojson.Value) []byte {
	r := renderer{buf: dst}
	r.schema(schema, 0)
	return r.buf
}

type renderer struct {
	buf []byte
}

// Indentation steps of the reference: object members' nested types get four
// spaces, oneOf variants three.
const (
	memberStep  = 4
	variantStep = 3
)

var null = []byte("null")

func (r *renderer) str(s string) { r.buf = append(r.buf, s...) }

func (r *renderer) indent(n int) {
	for ; n > 0; n-- {
		r.buf = append(r.buf, ' ')
	}
}

// comment writes "<indent>// <text>\n".
func (r *renderer) comment(indent int, text string) {
	r.indent(indent)
	r.str("// ")
	r.str(text)
	r.buf = append(r.buf, '\n')
}

// typed renders s at indent and appends " | null" when s is nullable and the
// rendered type does not already mention null anywhere.
func (r *renderer) typed(s *ojson.Value, indent int) {
	start := len(r.buf)
	r.schema(s, indent)
	if nullable(s) && !bytes.Contains(r.buf[start:], null) {
		r.str(" | null")
	}
}

// schema appends the type for s.
func (r *renderer) schema(s *ojson.Value, indent int) {
	if oneOf, ok := s.Get("oneOf"); ok && oneOf.Kind() == ojson.Array {
		r.oneOf(oneOf, indent)
		return
	}
	if t, ok := s.Get("type"); ok && t.Kind() == ojson.Array {
		n := 0
		for i := 0; i < t.Len(); i++ {
			name, ok := t.Index(i).AsString()
			if !ok {
				continue
			}
			if n > 0 {
				r.str(" | ")
			}
			if name == "integer" {
				name = "number"
			}
			r.str(name)
			n++
		}
		if n > 0 {
			return
		}
	}
	t, _ := s.Get("type")
	name, ok := t.AsString()
	if !ok {
		// The reference has one more branch here for an array "oneOf", but
		// that case returned above; anything else is "any".
		r.str("any")
		return
	}
	switch name {
	case "object":
		r.object(s, indent)
	case "string":
		r.stringType(s)
	case "number", "integer":
		r.str("number")
	case "boolean":
		r.str("boolean")
	case "array":
		if items, ok := s.Get("items"); ok {
			r.schema(items, indent)
			r.str("[]")
		} else {
			r.str("Array<any>")
		}
	default:
		r.str("any")
	}
}

// oneOf renders a schema-level oneOf: every variant on its own line with
// trailing comments for its description and default.
func (r *renderer) oneOf(variants *ojson.Value, indent int) {
	for i := 0; i < variants.Len(); i++ {
		v := variants.Index(i)
		r.buf = append(r.buf, '\n')
		r.indent(indent)
		r.str(" | ")
		r.typed(v, indent+variantStep)

		desc, hasDesc := stringMember(v, "description")
		def, hasDef := v.Get("default")
		if !hasDesc && !hasDef {
			continue
		}
		r.str(" // ")
		if hasDesc {
			r.str(desc)
			if hasDef {
				r.buf = append(r.buf, ' ')
			}
		}
		if hasDef {
			r.str("default: ")
			// Here an enum's string default goes through the JSON printer.
			if s, ok := def.AsString(); ok && !isEnum(v) {
				r.quoted(s)
			} else {
				r.buf = ojson.AppendCompact(r.buf, def)
			}
		}
	}
}

func (r *renderer) stringType(s *ojson.Value) {
	n := 0
	if enum, ok := s.Get("enum"); ok && enum.Kind() == ojson.Array {
		for i := 0; i < enum.Len(); i++ {
			lit, ok := enum.Index(i).AsString()
			if !ok {
				continue
			}
			if n > 0 {
				r.str(" | ")
			}
			r.quoted(lit)
			n++
		}
	}
	if n == 0 {
		r.str("string")
	}
}

// quoted writes s between double quotes without escaping anything, as the
// reference does.
func (r *renderer) quoted(s string) {
	r.buf = append(r.buf, '"')
	r.str(s)
	r.buf = append(r.buf, '"')
}

// defaultValue writes a property's default as the reference does outside a
// top-level oneOf: a string quoted, or bare for enums; anything else as
// compact JSON.
func (r *renderer) defaultValue(owner, def *ojson.Value) {
	if s, ok := def.AsString(); ok {
		if isEnum(owner) {
			r.str(s)
		} else {
			r.quoted(s)
		}
		return
	}
	r.buf = ojson.AppendCompact(r.buf, def)
}

func (r *renderer) object(s *ojson.Value, indent int) {
	if desc, ok := stringMember(s, "description"); ok {
		r.comment(indent, desc)
	}
	r.str("{\n")
	props, ok := s.Get("properties")
	if ok && props.Kind() == ojson.Object {
		req := newRequiredSet(s)
		for i := 0; i < props.Len(); i++ {
			key, val := props.Member(i)
			r.property(key, val, req.has(key), indent)
		}
	}
	r.indent(indent)
	r.buf = append(r.buf, '}')
}

func (r *renderer) property(key string, val *ojson.Value, required bool, indent int) {
	if title, ok := stringMember(val, "title"); ok {
		r.comment(indent, title)
		r.indent(indent)
		r.str("//\n")
	}
	// The presence of "oneOf", whatever its type, moves the description
	// and default comments; only an array oneOf changes the layout.
	oneOf, hasOneOf := val.Get("oneOf")
	if !hasOneOf {
		if desc, ok := stringMember(val, "description"); ok {
			r.comment(indent, desc)
		}
	}
	if ex, ok := val.Get("examples"); ok && ex.Kind() == ojson.Array && ex.Len() > 0 {
		r.comment(indent, "Examples:")
		for i := 0; i < ex.Len(); i++ {
			if s, ok := ex.Index(i).AsString(); ok {
				r.indent(indent)
				r.str("// - ")
				r.quoted(s)
				r.buf = append(r.buf, '\n')
			}
		}
	}
	if hasOneOf && oneOf.Kind() == ojson.Array {
		r.oneOfProperty(key, val, oneOf, required, indent)
		return
	}

	r.indent(indent)
	r.str(key)
	if !required {
		r.buf = append(r.buf, '?')
	}
	r.str(": ")
	r.typed(val, indent+memberStep)
	r.buf = append(r.buf, ',')
	if !hasOneOf {
		if def, ok := val.Get("default"); ok {
			r.str(" // default: ")
			r.defaultValue(val, def)
		}
	}
	r.buf = append(r.buf, '\n')
}

// oneOfProperty renders a property whose schema has a oneOf array: comments
// above the name, the name alone on its line, one line per variant and a
// closing "," line. The property's description is written above unless the
// first variant carries the same text; a variant's description is written
// after it unless it repeats the property's.
func (r *renderer) oneOfProperty(key string, val, variants *ojson.Value, required bool, indent int) {
	propDesc, hasPropDesc := stringMember(val, "description")
	descAbove := false
	if hasPropDesc {
		firstDesc, ok := "", false
		if variants.Len() > 0 {
			firstDesc, ok = stringMember(variants.Index(0), "description")
		}
		if !ok || firstDesc != propDesc {
			r.comment(indent, propDesc)
			descAbove = true
		}
	}
	if def, ok := val.Get("default"); ok {
		r.indent(indent)
		r.str("// default: ")
		r.defaultValue(val, def)
		r.buf = append(r.buf, '\n')
	}
	r.indent(indent)
	r.str(key)
	if !required {
		r.buf = append(r.buf, '?')
	}
	r.str(":\n")

	for i := 0; i < variants.Len(); i++ {
		v := variants.Index(i)
		r.indent(indent)
		r.str(" | ")
		r.typed(v, indent+variantStep)

		desc, hasDesc := stringMember(v, "description")
		if (i == 0 && descAbove) || (hasPropDesc && desc == propDesc) {
			hasDesc = false
		}
		def, hasDef := v.Get("default")
		if hasDesc || hasDef {
			r.str(" // ")
			if hasDesc {
				r.str(desc)
				if hasDef {
					r.buf = append(r.buf, ' ')
				}
			}
			if hasDef {
				r.str("default: ")
				r.defaultValue(v, def)
			}
		}
		r.buf = append(r.buf, '\n')
	}
	r.indent(indent)
	r.str(",\n")
}

// stringMember returns s[key] when s is an object and that member is a
// string.
func stringMember(s *ojson.Value, key string) (string, bool) {
	v, ok := s.Get(key)
	if !ok {
		return "", false
	}
	return v.AsString()
}

// isEnum reports whether s has a non-empty "enum" array (of any members).
func isEnum(s *ojson.Value) bool {
	e, ok := s.Get("enum")
	return ok && e.Kind() == ojson.Array && e.Len() > 0
}

// nullable reports whether s has "nullable": true (a JSON boolean).
func nullable(s *ojson.Value) bool {
	n, ok := s.Get("nullable")
	if !ok {
		return false
	}
	b, _ := n.AsBool()
	return b
}

// requiredSet answers whether a property name is listed among the string
// members of a schema's "required" array. Small lists are scanned; large ones
// get a map so hostile schemas stay linear.
type requiredSet struct {
	list *ojson.Value
	m    map[string]struct{}
}

const requiredMapThreshold = 16

func newRequiredSet(s *ojson.Value) requiredSet {
	req, ok := s.Get("required")
	if !ok || req.Kind() != ojson.Array {
		return requiredSet{}
	}
	rs := requiredSet{list: req}
	if req.Len() > requiredMapThreshold {
		rs.m = make(map[string]struct{}, req.Len())
		for i := 0; i < req.Len(); i++ {
			if name, ok := req.Index(i).AsString(); ok {
				rs.m[name] = struct{}{}
			}
		}
	}
	return rs
}

func (rs requiredSet) has(name string) bool {
	if rs.m != nil {
		_, ok := rs.m[name]
		return ok
	}
	if rs.list == nil {
		return false
	}
	for i := 0; i < rs.list.Len(); i++ {
		if s, ok := rs.list.Index(i).AsString(); ok && s == name {
			return true
		}
	}
	return false
}
