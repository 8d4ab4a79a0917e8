package schemanorm

// This file says which keywords hold subschemas, and walks them.

import (
	"strconv"

	"github.com/go-harmony/harmony/internal/ojson"
)

// position is how a keyword's value is read.
type position uint8

const (
	posValue  position = iota // anything: kept raw
	posSchema                 // one schema
	posList                   // an array of schemas, or one schema
	posMap                    // an object of schemas
)

// keywordPos lists the keywords whose values hold subschemas, across drafts
// 4 to 2020-12. Every other keyword's value is opaque.
var keywordPos = map[string]position{
	"properties":            posMap,
	"patternProperties":     posMap,
	"$defs":                 posMap,
	"definitions":           posMap,
	"dependentSchemas":      posMap,
	"dependencies":          posMap, // values that are not objects stay raw
	"additionalProperties":  posSchema,
	"additionalItems":       posSchema,
	"unevaluatedItems":      posSchema,
	"unevaluatedProperties": posSchema,
	"contains":              posSchema,
	"propertyNames":         posSchema,
	"not":                   posSchema,
	"if":                    posSchema,
	"then":                  posSchema,
	"else":                  posSchema,
	"contentSchema":         posSchema,
	"items":                 posList,
	"prefixItems":           posList,
	"allOf":                 posList,
	"anyOf":                 posList,
	"oneOf":                 posList,
}

// Walk calls fn for every schema object of the document v (v itself first,
// then its subschemas in document order) with the JSON pointer (RFC 6901) of
// its position. Only keyword positions that hold subschemas are entered, so
// an object inside "default", "enum" or "examples" is never reported.
func Walk(v *ojson.Value, fn func(pointer string, schema *ojson.Value)) {
	walkSchema(v, "", fn)
}

func walkSchema(v *ojson.Value, ptr string, fn func(string, *ojson.Value)) {
	if v.Kind() != ojson.Object {
		return
	}
	fn(ptr, v)
	for i := 0; i < v.Len(); i++ {
		k, c := v.Member(i)
		p := ptr + "/" + escape(k)
		switch keywordPos[k] {
		case posSchema:
			walkSchema(c, p, fn)
		case posList:
			if c.Kind() == ojson.Array {
				for j := 0; j < c.Len(); j++ {
					walkSchema(c.Index(j), p+"/"+strconv.Itoa(j), fn)
				}
			} else {
				walkSchema(c, p, fn)
			}
		case posMap:
			if c.Kind() == ojson.Object {
				for j := 0; j < c.Len(); j++ {
					name, s := c.Member(j)
					walkSchema(s, p+"/"+escape(name), fn)
				}
			}
		}
	}
}
