package constrain

import (
	"encoding/json"
	"testing"

	"github.com/go-harmony/harmony/internal/schemanorm"
	"github.com/go-harmony/harmony/internal/testsupport/pointers"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPointerTable compiles, for each reference of the table of
// internal/testsupport/pointers, a schema whose root refers to one of its
// definitions, each {"const": its name}: the grammar accepts the name of the
// definition the table says, as schemanorm resolves it, and a reference that
// names none is an invalid schema.
func TestPointerTable(t *testing.T) {
	tab := pointers.Load(t)
	enc := testenc.Encoding(t)
	for _, r := range tab.Refs {
		schema := tab.Schema(t, r.Ref)

		// schemanorm's reading of the same reference.
		var resolved any
		if p, err := schemanorm.ParseFragment(r.Ref); err == nil {
			root, err := schemanorm.Decode(schema)
			require.NoError(t, err)
			resolved, _ = schemanorm.ResolveDecoded(root, p)
		}

		g, err := CompileJSONSchema(enc, schema, nil)
		if r.Names == nil {
			assert.ErrorIs(t, err, ErrInvalidSchema, r.Ref)
			assert.Nil(t, resolved, r.Ref)
			continue
		}
		require.NoError(t, err, r.Ref)
		assert.Equal(t, map[string]any{"const": *r.Names}, resolved, r.Ref)
		for _, name := range tab.Defs {
			text, err := json.Marshal(name)
			require.NoError(t, err)
			m := g.NewMatcher()
			accepts := m.AcceptBytes(text) == nil && m.CanEnd()
			assert.Equal(t, name == *r.Names, accepts, "%s: %s", r.Ref, text)
		}
	}
}

// TestDecodeSchemaTrailingData: data after the schema makes it invalid, even
// a closing bracket, which json.Decoder.More lets through.
func TestDecodeSchemaTrailingData(t *testing.T) {
	enc := testenc.Encoding(t)
	for _, s := range []string{`{} {}`, `{}]`, `{"type":"string"}}`, `true false`} {
		_, err := CompileJSONSchema(enc, []byte(s), nil)
		assert.ErrorIs(t, err, ErrInvalidSchema, s)
		assert.ErrorContains(t, err, "data after the schema", s)
	}
	_, err := CompileJSONSchema(enc, []byte(" {}\n\t "), nil)
	assert.NoError(t, err)
}
