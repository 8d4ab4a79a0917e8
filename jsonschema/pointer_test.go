package jsonschema

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemanorm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPointerTable reads each reference of
// internal/schemanorm/testdata/pointers.json with this package's helpers:
// resolvesLocally (which names a dangling reference in errors) and
// isSchemaAt (which decides whether a schema may be split) agree with the
// table on whether, and where, it resolves.
func TestPointerTable(t *testing.T) {
	b, err := os.ReadFile("../internal/schemanorm/testdata/pointers.json")
	require.NoError(t, err)
	var table struct {
		Defs []string `json:"defs"`
		Refs []struct {
			Ref   string  `json:"ref"`
			Names *string `json:"names"`
		} `json:"refs"`
	}
	require.NoError(t, json.Unmarshal(b, &table))
	defs := map[string]any{}
	for _, name := range table.Defs {
		defs[name] = map[string]any{"const": name}
	}
	for _, r := range table.Refs {
		raw, err := json.Marshal(map[string]any{"$defs": defs, "$ref": r.Ref})
		require.NoError(t, err)
		doc, err := ojson.ParseOptions{KeepNumberText: true}.Parse(raw)
		require.NoError(t, err)
		v := schemanorm.Decoded(doc)

		assert.Equal(t, r.Names != nil, resolvesLocally(doc, r.Ref), r.Ref)
		ptr, ok := schemanorm.LocalPointer(r.Ref)
		if r.Names == nil {
			assert.False(t, ok && isSchemaAt(v, ptr), r.Ref)
			continue
		}
		require.True(t, ok, r.Ref)
		assert.True(t, isSchemaAt(v, ptr), r.Ref)
		assert.Equal(t, string(schemanorm.Pointer("").Append("$defs", *r.Names)), ptr, r.Ref)
	}
}
