package openaicompat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-harmony/harmony/internal/schemanorm"
	js "github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/stretchr/testify/require"
)

// This file loads OpenAI's own schemas, testdata/openapi/openapi-subset.json
// (components of OpenAI's published OpenAPI 3.1 spec, kept verbatim), for
// the tests of spec_test.go. OpenAPI 3.1 schemas are JSON Schema 2020-12 but
// for a few leftovers, which openAPI converts; the document is then compiled
// whole, so that "$ref": "#/components/schemas/X" resolves in it as a JSON
// pointer. A failure is reported as the JSON path of the value, the schema
// keyword that failed and its place in the spec, with the branches of an
// anyOf that are about another kind of value left out.

const specFile = "testdata/openapi/openapi-subset.json"

// Component names of the spec.
const (
	specChat     = "CreateChatCompletionResponse"
	specChunk    = "CreateChatCompletionStreamResponse"
	specResponse = "Response"
	specError    = "ErrorResponse"
)

// spec holds the compiled components the tests validate against.
type spec struct {
	schemas map[string]*js.Schema // by component name
	events  map[string]string     // Responses event type → component name
	enums   map[string]bool       // every string of an enum or const
}

var loadSpec = sync.OnceValues(func() (*spec, error) {
	data, err := os.ReadFile(specFile)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	comps := doc.Components.Schemas
	sp := &spec{schemas: map[string]*js.Schema{}, events: map[string]string{}, enums: map[string]bool{}}
	collectEnums(comps, sp.enums)
	names := []string{specChat, specChunk, specResponse, specError}
	// The members of ResponseStreamEvent, by the one value of their "type".
	stream, _ := comps["ResponseStreamEvent"].(map[string]any)
	members, _ := stream["anyOf"].([]any)
	for _, m := range members {
		name := strings.TrimPrefix(m.(map[string]any)["$ref"].(string), "#/components/schemas/")
		props, _ := comps[name].(map[string]any)["properties"].(map[string]any)
		typ, _ := props["type"].(map[string]any)
		enum, _ := typ["enum"].([]any)
		if len(enum) != 1 {
			return nil, fmt.Errorf("%s: no single event type", name)
		}
		sp.events[enum[0].(string)] = name
		names = append(names, name)
	}
	converted := make(map[string]any, len(comps))
	for name, s := range comps {
		converted[name] = openAPI{comps}.schema(name, s)
	}
	whole, err := json.Marshal(map[string]any{"components": map[string]any{"schemas": converted}})
	if err != nil {
		return nil, err
	}
	const url = "file:///openapi.json"
	c := js.NewCompiler()
	c.Draft = js.Draft2020
	if err := c.AddResource(url, bytes.NewReader(whole)); err != nil {
		return nil, err
	}
	for _, name := range names {
		if sp.schemas[name], err = c.Compile(url + "#/components/schemas/" + name); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return sp, nil
})

// collectEnums adds the strings of every enum and const under v to set.
func collectEnums(v any, set map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch list, _ := e.([]any); {
			case k == "enum":
				for _, x := range list {
					if s, ok := x.(string); ok {
						set[s] = true
					}
				}
			case k == "const":
				if s, ok := e.(string); ok {
					set[s] = true
				}
			default:
				collectEnums(e, set)
			}
		}
	case []any:
		for _, e := range v {
			collectEnums(e, set)
		}
	}
}

// Where a schema holds schemas, by the shape of the value: one schema, a
// list of them, a map of them. Everything else in a schema is data (enum,
// required, default...) and is kept as it is.
var (
	subschema     = map[string]bool{"items": true, "additionalProperties": true, "not": true, "contains": true, "propertyNames": true, "if": true, "then": true, "else": true, "unevaluatedItems": true, "unevaluatedProperties": true}
	subschemaList = map[string]bool{"allOf": true, "anyOf": true, "oneOf": true, "prefixItems": true}
	subschemaMap  = map[string]bool{"properties": true, "patternProperties": true, "$defs": true, "dependentSchemas": true}
)

// openAPI converts the component schemas of an OpenAPI 3.x document to
// JSON Schema 2020-12, OpenAPI 3.1's dialect:
//
//   - "nullable": true (OpenAPI 3.0, still on a few schemas) becomes
//     {"anyOf": [the schema, {"type": "null"}]}, which also lets null past an
//     "enum" or a "$ref", as nullable does;
//   - a "oneOf" with a "discriminator" picks its branch by the value of the
//     discriminator's property, as OpenAPI says it does, instead of trying
//     every branch: the value must be an object whose property holds one of
//     the branches' values (read off each branch's enum or const), and then
//     it must match the branch (or, if several share the value, exactly one
//     of the branches) with that value. This is also what makes a failure
//     name one schema, and validation fast: OutputItem has 28 branches. A
//     discriminator with a "mapping", or whose branches' values cannot all
//     be read, or on an anyOf, is dropped, leaving the oneOf or anyOf;
//   - "$recursiveRef": "#" (draft 2019-09, on a component that has
//     "$recursiveAnchor") becomes a "$ref" to the component itself, since
//     "#" would be the whole document;
//   - OpenAPI's own annotations are dropped: "example", "xml",
//     "externalDocs", and the "x-…" extensions;
//   - "$ref": "#/components/schemas/X" is kept, to resolve in the document.
//
// Formats ("uri", "unixtime") are annotations in 2020-12: the validator
// asserts none unless told to, and is not.
type openAPI struct {
	comps map[string]any // the document's component schemas, as read
}

// schema converts the schema s of component name.
func (c openAPI) schema(name string, s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s // a boolean schema
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case strings.HasPrefix(k, "x-"), k == "discriminator", k == "example", k == "xml", k == "externalDocs",
			k == "nullable", k == "$recursiveAnchor":
		case k == "$recursiveRef" && v == "#":
			out["$ref"] = "#/components/schemas/" + name
		case subschema[k]:
			out[k] = c.schema(name, v)
		case subschemaList[k]:
			list, _ := v.([]any)
			conv := make([]any, len(list))
			for i, e := range list {
				conv[i] = c.schema(name, e)
			}
			out[k] = conv
		case subschemaMap[k]:
			props, _ := v.(map[string]any)
			conv := make(map[string]any, len(props))
			for p, e := range props {
				conv[p] = c.schema(name, e)
			}
			out[k] = conv
		default:
			out[k] = v
		}
	}
	if d, ok := m["discriminator"].(map[string]any); ok && out["oneOf"] != nil && d["mapping"] == nil {
		prop, _ := d["propertyName"].(string)
		if pick := c.discriminated(prop, m["oneOf"].([]any), out["oneOf"].([]any)); pick != nil {
			all, _ := out["allOf"].([]any)
			delete(out, "oneOf")
			out["allOf"] = append(pick, all...)
		}
	}
	if m["nullable"] == true {
		return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
	}
	return out
}

// discriminated returns the schemas, for an allOf, that pick one of
// branches (converted from the OpenAPI schemas of raw) by the value of
// prop; nil when a branch's values cannot be read.
func (c openAPI) discriminated(prop string, raw, branches []any) []any {
	var values []any
	byValue := map[any][]any{}
	for i, b := range raw {
		vs := c.values(prop, b)
		if len(vs) == 0 {
			return nil
		}
		for _, v := range vs {
			if byValue[v] == nil {
				values = append(values, v)
			}
			byValue[v] = append(byValue[v], branches[i])
		}
	}
	req := []any{prop}
	pick := []any{map[string]any{"type": "object", "required": req,
		"properties": map[string]any{prop: map[string]any{"enum": values}}}}
	for _, v := range values {
		var then any = map[string]any{"oneOf": byValue[v]}
		if len(byValue[v]) == 1 {
			then = byValue[v][0]
		}
		pick = append(pick, map[string]any{"if": map[string]any{"required": req,
			"properties": map[string]any{prop: map[string]any{"const": v}}}, "then": then})
	}
	return pick
}

// values returns the values a branch allows for prop: its enum or const,
// through "$ref" and "allOf".
func (c openAPI) values(prop string, s any) []any {
	m, _ := s.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		return c.values(prop, c.comps[strings.TrimPrefix(ref, "#/components/schemas/")])
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if p, ok := props[prop].(map[string]any); ok {
			if enum, ok := p["enum"].([]any); ok {
				return enum
			}
			if v, ok := p["const"]; ok {
				return []any{v}
			}
		}
	}
	all, _ := m["allOf"].([]any)
	for _, a := range all {
		if vs := c.values(prop, a); len(vs) > 0 {
			return vs
		}
	}
	return nil
}

// validate checks the JSON document data against the named component, or
// with component "", as a Responses stream event against the member of
// ResponseStreamEvent for its type. The error lists every failure: where
// in the document (a JSON path), the schema keyword that failed, and where
// that keyword is in the spec.
func (sp *spec) validate(component string, data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err
	}
	if component == "" {
		obj, _ := v.(map[string]any)
		typ, _ := obj["type"].(string)
		if component = sp.events[typ]; component == "" {
			return fmt.Errorf("event type %q is not in ResponseStreamEvent", typ)
		}
	}
	sch := sp.schemas[component]
	if sch == nil {
		return fmt.Errorf("no schema %s", component)
	}
	err := sch.Validate(v)
	var ve *js.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	return fmt.Errorf("not a valid %s:\n  %s", component, strings.Join(specFailures(ve, nil), "\n  "))
}

// specFailures appends the failures under ve, one line each. Of the
// branches of an anyOf or oneOf, only those of the value's own kind are
// shown when there are any: a branch that fails on the value's type, or on
// the "type" member that tells the kinds of item apart, is another kind.
func specFailures(ve *js.ValidationError, out []string) []string {
	if len(ve.Causes) == 0 {
		return append(out, fmt.Sprintf("%s: %s: %s (at %s)", jsonPath(ve.InstanceLocation),
			keyword(ve), ve.Message, schemaPointer(ve)))
	}
	causes := ve.Causes
	if kw := keyword(ve); kw == "anyOf" || kw == "oneOf" {
		var same []*js.ValidationError
		for _, c := range causes {
			if !otherKind(c, ve.InstanceLocation) {
				same = append(same, c)
			}
		}
		if len(same) > 0 {
			causes = same
		}
	}
	for _, c := range causes {
		out = specFailures(c, out)
	}
	return out
}

// otherKind says whether a branch failed on what kind of value is at loc:
// its type, or the enum of its "type" member.
func otherKind(ve *js.ValidationError, loc string) bool {
	if len(ve.Causes) == 0 {
		kw := keyword(ve)
		return (kw == "type" && ve.InstanceLocation == loc) ||
			((kw == "enum" || kw == "const") && ve.InstanceLocation == loc+"/type")
	}
	for _, c := range ve.Causes {
		if otherKind(c, loc) {
			return true
		}
	}
	return false
}

// schemaPointer returns where ve's keyword is in the spec document.
func schemaPointer(ve *js.ValidationError) string {
	_, ptr, _ := strings.Cut(ve.AbsoluteKeywordLocation, "#")
	return "#" + ptr
}

// keyword returns the schema keyword that failed.
func keyword(ve *js.ValidationError) string {
	p := schemaPointer(ve)
	return p[strings.LastIndexByte(p, '/')+1:]
}

// jsonPath writes a JSON pointer as a path: /choices/0/logprobs is
// $.choices[0].logprobs.
func jsonPath(ptr string) string {
	var b strings.Builder
	b.WriteString("$")
	if ptr == "" {
		return b.String()
	}
	segs, err := schemanorm.Pointer(ptr).Tokens()
	if err != nil {
		return ptr // not a pointer: shown as it is
	}
	for _, seg := range segs {
		if _, err := strconv.Atoi(seg); err == nil {
			fmt.Fprintf(&b, "[%s]", seg)
		} else {
			b.WriteString("." + seg)
		}
	}
	return b.String()
}

// mustSpec returns the compiled spec, or fails t with the load's error.
func mustSpec(t testing.TB) *spec {
	t.Helper()
	sp, err := loadSpec()
	require.NoError(t, err, specFile)
	return sp
}
