package harmony

// This file rewrites client-generated JSON Schemas into the shapes the tool
// renderer shows the model well (the rules live in internal/schemanorm).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemanorm"
)

// NormalizeSchema rewrites a client-generated JSON Schema into the shapes the
// tool renderer shows the model well, keeping the order of keys and printing
// every value it leaves alone exactly as the renderer would:
//
//   - local references ("#/$defs/X", "#/definitions/X", any JSON pointer
//     into the document) are replaced by their targets, the keys next to a
//     "$ref" winning over the target's; a reference to a schema that is
//     part of a reference cycle is left as it is, so recursive models stay
//     finite; when some reference cannot be resolved locally (another
//     document, an anchor, a missing target), no reference is inlined;
//   - "$defs" and "definitions" entries that no remaining reference points
//     into are removed;
//   - "anyOf" becomes "oneOf";
//   - {"type": "null"} members of a oneOf are removed and the schema gets
//     "nullable": true; a single remaining member replaces the oneOf, the
//     schema's own keys (description, default, ...) winning;
//   - "type": ["X", "null"] becomes "type": "X", "nullable": true;
//   - "const": v becomes "enum": [v];
//   - "allOf" is merged into its schema when it has one member or only
//     object members: properties concatenated in order, required lists
//     united, and for other keys the first holder wins, the schema holding
//     the allOf counting first.
//
// The rules apply to every subschema (properties, items, oneOf members,
// definitions that stay, ...), never inside "default", "enum" or "examples".
// The result is a fixed point: normalizing it again changes nothing. It is
// meant for display and is not always equivalent to the input (anyOf is not
// oneOf), so validate against the original schema. NormalizeSchema does not
// check that the schema is valid (package harmony/jsonschema does); it fails
// only, with a [*SchemaError], on input that is not JSON or whose inlined
// form would be too large or too deeply nested to render. Empty input is
// returned as it is. NormalizeSchema caches nothing; rendering with
// [RenderOptions].NormalizeSchemas keeps results in the [Encoding]'s bounded
// cache.
func NormalizeSchema(schema json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(schema)) == 0 {
		return schema, nil
	}
	out, err := normalize(schema)
	if err != nil {
		return nil, &SchemaError{Err: err}
	}
	return append(json.RawMessage(nil), out...), nil
}

// namespaceName is the namespace's name, or its key when it has none.
func namespaceName(key string, ns ToolNamespaceConfig) string {
	if ns.Name != "" {
		return ns.Name
	}
	return key
}

// normalizeTools returns a copy of tools in which the parameters of every
// tool are normalized by NormalizeSchema; tools without parameters are left
// as they are and tools is not modified. The error is the *SchemaError of
// the first tool, in rendering order, whose parameters cannot be
// normalized. It is meant to be called by the renderer before the
// TypeScript is generated, when rendering asks for normalized schemas.
func (e *Encoding) normalizeTools(tools map[string]ToolNamespaceConfig) (map[string]ToolNamespaceConfig, error) {
	if tools == nil {
		return nil, nil
	}
	out := make(map[string]ToolNamespaceConfig, len(tools))
	for _, key := range sortedKeys(nil, tools) {
		ns := tools[key]
		if ns.Tools != nil {
			ts := make([]ToolDescription, len(ns.Tools))
			for i, t := range ns.Tools {
				if !schemanorm.NoParameters(t.Parameters) {
					p, err := e.normalizeCached(t.Parameters)
					if err != nil {
						return nil, &SchemaError{Tool: namespaceName(key, ns) + "." + t.Name, Err: err}
					}
					t.Parameters = append(json.RawMessage(nil), p...)
				}
				ts[i] = t
			}
			ns.Tools = ts
		}
		out[key] = ns
	}
	return out, nil
}

// normalizeCached is normalize with its results in the encoding's cache.
// The returned bytes are shared: do not modify them.
func (e *Encoding) normalizeCached(schema []byte) ([]byte, error) {
	if r, ok := e.normalized.GetBytes(schema); ok {
		return r.out, r.err
	}
	out, err := normalize(schema)
	e.normalized.Put(string(schema), normalized{out, err}, int64(cap(out)))
	return out, err
}

// normalize is schemanorm.Normalize with its JSON errors reworded.
func normalize(schema []byte) ([]byte, error) {
	out, err := schemanorm.Normalize(schema)
	if err != nil {
		var se *ojson.SyntaxError
		if errors.As(err, &se) {
			if se == nil {
				return nil, errors.New("invalid JSON")
			}
			return nil, fmt.Errorf("invalid JSON: %v at offset %d", se.Err, se.Offset)
		}
	}
	return out, err
}

type normalized struct {
	out []byte
	err error
}
