package schemanorm

// This file decodes schemas for the packages that work on decoded values
// (constrain, jsonschema), and says when a tool takes no parameters.

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
)

// ErrTrailingData is returned by Decode for a schema followed by more than
// JSON whitespace.
var ErrTrailingData = errors.New("data after the schema")

// Decode decodes the one JSON value of b as encoding/json does into an any,
// numbers as json.Number so that none loses precision. Anything but JSON
// whitespace after the value fails with ErrTrailingData.
func Decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if strings.TrimLeft(string(b[dec.InputOffset():]), " \t\r\n") != "" {
		return nil, ErrTrailingData
	}
	return v, nil
}

// Decoded returns the value Decode returns for the text of v, which must
// have been parsed with ojson.ParseOptions.KeepNumberText: what ojson
// accepts, encoding/json decodes alike (valid UTF-8, no unpaired surrogate,
// the last of duplicate keys winning), so the document needs no second
// parse.
func Decoded(v *ojson.Value) any {
	switch v.Kind() {
	case ojson.Null:
		return nil
	case ojson.Bool:
		b, _ := v.AsBool()
		return b
	case ojson.Number:
		if t, ok := v.NumberText(); ok {
			return json.Number(t)
		}
		return json.Number(ojson.AppendCompact(nil, v))
	case ojson.String:
		s, _ := v.AsString()
		return s
	case ojson.Array:
		a := make([]any, v.Len())
		for i := range a {
			a[i] = Decoded(v.Index(i))
		}
		return a
	}
	m := make(map[string]any, v.Len())
	for i := 0; i < v.Len(); i++ {
		k, c := v.Member(i)
		m[k] = Decoded(c)
	}
	return m
}

// NoParameters reports whether a tool's parameters say it takes none:
// nothing, or JSON null, surrounded by white space or not.
func NoParameters(p json.RawMessage) bool {
	p = bytes.TrimSpace(p)
	return len(p) == 0 || string(p) == "null"
}
