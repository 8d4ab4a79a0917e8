package jsonschema

import (
	"testing"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemanorm"
	"github.com/go-harmony/harmony/internal/testsupport/pointers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPointerTable reads each reference of the table of
// internal/testsupport/pointers with this package's helpers:
// resolvesLocally (which names a dangling reference in errors) and
// isSchemaAt (which decides whether a schema may be split) agree with the
// table on whether, and where, it resolves.
func TestPointerTable(t *testing.T) {
	tab := pointers.Load(t)
	for _, r := range tab.Refs {
		raw := tab.Schema(t, r.Ref)
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
