package jsonschema

// This file gives the compiler the root "$defs" and "definitions" of a draft
// 2020-12 schema as documents of their own.
//
// Why: for draft 2020-12, jsonschema/v5 looks for "$dynamicAnchor"s each
// time it compiles a subschema by scanning every subschema of the document
// that holds it ((*Compiler).compileDynamicAnchors calls
// (*resource).listResources), so compiling a document of n subschemas costs
// n² steps: 10,000 definitions, each referenced once, take seconds. The scan
// only ever looks inside one document, so compiling each definition as a
// document of its own costs the sum of the squares of the documents' sizes
// instead: definitions, however many, add linearly.
//
// The split is only made when it cannot change what the schema means or how
// its errors read: the root is a draft 2020-12 schema, no subschema has an
// "$id", an anchor, a dynamic or recursive reference or a "$schema" of its
// own, and every "$ref" is a JSON pointer that resolves, inside the
// document, to a subschema the compiler knows as one. References are then
// rewritten to name the document that now holds their target, and the
// locations the compiler reports are mapped back to pointers into the
// original schema (see docMap).

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony/internal/schemanorm"
)

// isSchema reports whether a decoded value can be a schema.
func isSchema(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

// isSchemaAt reports whether the canonical JSON pointer ptr names a schema
// position of the decoded document v (one schemanorm.WalkDecoded visits
// with a schema there).
func isSchemaAt(v any, ptr string) bool {
	toks, err := schemanorm.Pointer(ptr).Tokens()
	if err != nil {
		return false
	}
	if len(toks) == 0 {
		return isSchema(v)
	}
	for i := 0; i < len(toks); i++ {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		c, ok := m[toks[i]]
		if !ok {
			return false
		}
		switch schemanorm.KeywordPosition(toks[i]) {
		case schemanorm.InSchema:
		case schemanorm.InList:
			if arr, isArr := c.([]any); isArr {
				if i++; i == len(toks) {
					return false
				}
				n, ok := schemanorm.ArrayIndex(toks[i], len(arr))
				if !ok {
					return false
				}
				c = arr[n]
			}
		case schemanorm.InMap:
			mm, isMap := c.(map[string]any)
			if !isMap {
				return false
			}
			if i++; i == len(toks) {
				return false
			}
			if c, ok = mm[toks[i]]; !ok {
				return false
			}
		default:
			return false
		}
		if !isSchema(c) {
			return false
		}
		v = c
	}
	return true
}

// splitDoc is one document given to the compiler.
type splitDoc struct {
	url    string // the URL it is added under
	prefix string // the pointer of its root inside the original schema
	value  any    // its decoded form (references rewritten)
}

// isDraft2020 reports whether a "$schema" names draft 2020-12, as
// jsonschema/v5's findDraft reads it.
func isDraft2020(schema string) bool {
	u := draftURL(schema)
	return u == "https://json-schema.org/draft/2020-12/schema" || u == "https://json-schema.org/schema"
}

// draftURL returns a "$schema" in the form jsonschema/v5's findDraft
// compares with the URLs of the drafts: "https" for "http", without an
// empty fragment ("#" or "#/").
func draftURL(schema string) string {
	if rest, ok := strings.CutPrefix(schema, "http://"); ok {
		schema = "https://" + rest
	}
	if i := strings.IndexByte(schema, '#'); i >= 0 && (schema[i:] == "#" || schema[i:] == "#/") {
		schema = schema[:i]
	}
	return schema
}

// splitPlan is a split of a decoded schema into documents, not yet made.
type splitPlan struct {
	root   map[string]any
	docs   []splitDoc     // the root first, then one per definition
	defURL map[string]int // "/$defs/NAME" → index in docs
	refs   []splitRef
}

type splitRef struct {
	holder map[string]any // the schema object holding the "$ref"
	target string         // canonical JSON pointer
}

// planSplit plans the split of the decoded schema root into the root
// without its "$defs" and "definitions", then one document per definition,
// in sorted order. It reports false when the split does not apply (see the
// top of this file). It changes nothing.
func planSplit(root any) (*splitPlan, bool) {
	m, ok := root.(map[string]any)
	if !ok {
		return nil, false
	}
	if s, has := m["$schema"]; has {
		if str, ok := s.(string); !ok || !isDraft2020(str) {
			return nil, false
		}
	}
	docs := []splitDoc{{url: inMemorySchemaID, prefix: "", value: m}}
	defURL := map[string]int{} // "/$defs/NAME" → index in docs
	for _, kw := range []string{"$defs", "definitions"} {
		d, has := m[kw]
		if !has {
			continue
		}
		defs, ok := d.(map[string]any)
		if !ok {
			return nil, false
		}
		names := slices.Sorted(maps.Keys(defs))
		for _, name := range names {
			prefix := string(schemanorm.Pointer("").Append(kw, name))
			defURL[prefix] = len(docs)
			docs = append(docs, splitDoc{url: "harmony:///def/" + strconv.Itoa(len(docs)) + ".json", prefix: prefix, value: defs[name]})
		}
	}
	if len(docs) == 1 {
		return nil, false
	}

	// Check every subschema, and gather the references.
	var refs []splitRef
	ok = schemanorm.WalkDecoded(m, func(at schemanorm.Pointer, v any) bool {
		isRoot := at == ""
		s, isObj := v.(map[string]any)
		if !isObj {
			return true
		}
		for _, kw := range []string{"$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$dynamicRef", "$recursiveRef"} {
			if _, has := s[kw]; has {
				return false
			}
		}
		if _, has := s["$schema"]; has && !isRoot {
			return false
		}
		if r, has := s["$ref"]; has {
			str, isStr := r.(string)
			if !isStr {
				return false
			}
			target, isPtr := schemanorm.LocalPointer(str)
			canonical := "#"
			if target != "" {
				canonical = fragment(target)
			}
			if !isPtr || str != canonical {
				// Only canonical references are rewritten, so that the
				// rewritten ones are as valid URI references as the
				// originals.
				return false
			}
			refs = append(refs, splitRef{s, target})
		}
		return true
	})
	if !ok {
		return nil, false
	}
	for _, r := range refs {
		if !isSchemaAt(m, r.target) {
			return nil, false
		}
	}

	return &splitPlan{root: m, docs: docs, defURL: defURL, refs: refs}, true
}

// apply makes the split, changing the decoded schema, and returns the
// documents: references are rewritten to name the document that holds their
// target, the definitions are detached from the root, and every definition
// gets the root's "$schema", so that the compiler reads each document as
// the root's draft with the root's vocabularies.
func (p *splitPlan) apply() []splitDoc {
	for _, r := range p.refs {
		doc, rest := p.docs[0], r.target
		if i, ok := p.defURL[definitionPrefix(r.target)]; ok {
			doc, rest = p.docs[i], r.target[len(p.docs[i].prefix):]
		}
		r.holder["$ref"] = doc.url + fragment(rest)
	}
	delete(p.root, "$defs")
	delete(p.root, "definitions")
	if s, has := p.root["$schema"]; has {
		for _, d := range p.docs[1:] {
			if obj, ok := d.value.(map[string]any); ok {
				obj["$schema"] = s
			}
		}
	}
	return p.docs
}

// definitionPrefix returns the "/$defs/NAME" or "/definitions/NAME" that ptr
// starts with, or "".
func definitionPrefix(ptr string) string {
	for _, kw := range []string{"/$defs/", "/definitions/"} {
		if rest, ok := strings.CutPrefix(ptr, kw); ok {
			name, _, _ := strings.Cut(rest, "/")
			return kw + name
		}
	}
	return ""
}

// fragment turns a canonical JSON pointer into a URL fragment escaped as
// jsonschema/v5 escapes the locations of subschemas, so that the compiler
// finds the subschema it already knows: "" for the root, else "#/a%20b/0".
func fragment(ptr string) string {
	if ptr == "" {
		return ""
	}
	return schemanorm.Pointer(ptr).Fragment()
}

// docMap maps the locations jsonschema/v5 reports ("URL#/frag") back to JSON
// pointers into the schema the caller gave.
type docMap struct {
	prefixes map[string]string // URL → pointer of that document's root; nil when nothing was split
}

// pointer returns the JSON pointer of a location, or of the part of it after
// the document's URL when the URL is unknown.
func (m docMap) pointer(loc string) string {
	u, frag, _ := strings.Cut(loc, "#")
	return m.prefixes[u] + unescapeLocation(frag)
}

func (m docMap) size() int64 {
	var n int64
	for u, p := range m.prefixes {
		n += int64(len(u)+len(p)) + 64
	}
	return n
}
