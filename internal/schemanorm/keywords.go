package schemanorm

// This file says which keywords hold subschemas, and walks them: the one
// table and the one walker of the module, for a document parsed by ojson
// (document order) or decoded by Decode (keys sorted).

import (
	"maps"
	"slices"

	"github.com/go-harmony/harmony/internal/ojson"
)

// Position is how a keyword's value holds subschemas.
type Position uint8

// The positions of a keyword's value.
const (
	InValue  Position = iota // no subschema: the value is opaque
	InSchema                 // one schema
	InList                   // an array of schemas, or one schema
	InMap                    // an object whose member values are schemas
)

// keywordPos lists the keywords whose values hold subschemas, across drafts
// 4 to 2020-12, as jsonschema/v5's (*Draft).listSubschemas reads them.
var keywordPos = map[string]Position{
	"properties":            InMap,
	"patternProperties":     InMap,
	"$defs":                 InMap,
	"definitions":           InMap,
	"dependentSchemas":      InMap,
	"dependencies":          InMap, // values that are not objects stay opaque
	"additionalProperties":  InSchema,
	"additionalItems":       InSchema,
	"unevaluatedItems":      InSchema,
	"unevaluatedProperties": InSchema,
	"contains":              InSchema,
	"propertyNames":         InSchema,
	"not":                   InSchema,
	"if":                    InSchema,
	"then":                  InSchema,
	"else":                  InSchema,
	"contentSchema":         InSchema,
	"items":                 InList,
	"prefixItems":           InList,
	"allOf":                 InList,
	"anyOf":                 InList,
	"oneOf":                 InList,
}

// KeywordPosition returns how the value of the keyword kw holds subschemas;
// InValue for every keyword not listed above.
func KeywordPosition(kw string) Position { return keywordPos[kw] }

// Walk calls fn for every schema object of the document v (v itself first,
// then its subschemas in document order) with the JSON pointer (RFC 6901) of
// its position. Only keyword positions that hold subschemas are entered, so
// an object inside "default", "enum" or "examples" is never reported.
func Walk(v *ojson.Value, fn func(pointer string, schema *ojson.Value)) {
	walk(ojsonTree{}, v, "", func(ptr Pointer, v *ojson.Value) bool {
		if v.Kind() == ojson.Object {
			fn(string(ptr), v)
		}
		return true
	})
}

// WalkDecoded calls fn for every value in a schema position of the document
// v decoded by Decode (v itself first, then the values under keywords that
// hold subschemas, objects' keys in sorted order) with its JSON pointer:
// objects, booleans and whatever else a schema position holds. fn returns
// false to stop the walk; WalkDecoded reports whether it ran to the end.
func WalkDecoded(v any, fn func(ptr Pointer, v any) bool) bool {
	return walk(decodedTree{}, v, "", fn)
}

// tree reads one form of a document for walk.
type tree[V any] interface {
	// members calls fn for each member of v in the order of the walk and
	// reports whether it ran to the end; it reports ok false when v is not
	// an object.
	members(v V, fn func(key string, c V) bool) (completed, ok bool)
	// elems is members for the elements of an array.
	elems(v V, fn func(c V) bool) (completed, ok bool)
}

// walk calls fn for v, at ptr, and then for every value in a schema
// position below it, and reports whether fn let it run to the end.
func walk[V any, T tree[V]](t T, v V, ptr Pointer, fn func(Pointer, V) bool) bool {
	if !fn(ptr, v) {
		return false
	}
	completed, _ := t.members(v, func(k string, c V) bool {
		p := ptr.Append(k)
		switch keywordPos[k] {
		case InSchema:
			return walk(t, c, p, fn)
		case InList:
			i := 0
			completed, ok := t.elems(c, func(e V) bool {
				i++
				return walk(t, e, p.AppendIndex(i-1), fn)
			})
			if !ok {
				return walk(t, c, p, fn)
			}
			return completed
		case InMap:
			completed, _ := t.members(c, func(name string, e V) bool {
				return walk(t, e, p.Append(name), fn)
			})
			return completed
		}
		return true
	})
	return completed
}

// ojsonTree reads a document parsed by ojson, in document order.
type ojsonTree struct{}

func (ojsonTree) members(v *ojson.Value, fn func(string, *ojson.Value) bool) (completed, ok bool) {
	if v.Kind() != ojson.Object {
		return true, false
	}
	for i := 0; i < v.Len(); i++ {
		if !fn(v.Member(i)) {
			return false, true
		}
	}
	return true, true
}

func (ojsonTree) elems(v *ojson.Value, fn func(*ojson.Value) bool) (completed, ok bool) {
	if v.Kind() != ojson.Array {
		return true, false
	}
	for i := 0; i < v.Len(); i++ {
		if !fn(v.Index(i)) {
			return false, true
		}
	}
	return true, true
}

// decodedTree reads a document decoded by Decode, objects' keys sorted.
type decodedTree struct{}

func (decodedTree) members(v any, fn func(string, any) bool) (completed, ok bool) {
	m, isMap := v.(map[string]any)
	if !isMap {
		return true, false
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !fn(k, m[k]) {
			return false, true
		}
	}
	return true, true
}

func (decodedTree) elems(v any, fn func(any) bool) (completed, ok bool) {
	a, isArr := v.([]any)
	if !isArr {
		return true, false
	}
	for _, e := range a {
		if !fn(e) {
			return false, true
		}
	}
	return true, true
}
