package ojson

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestKeepNumberText: with KeepNumberText a number keeps its literal, which
// changes nothing else about it; without, it has none.
func TestKeepNumberText(t *testing.T) {
	src := []byte(`[1.50, -0, 1E2, 18446744073709551617, 0.30000000000000000001, 7, "7"]`)
	kept, err := ParseOptions{KeepNumberText: true}.Parse(src)
	require.NoError(t, err)
	plain, err := Parse(src)
	require.NoError(t, err)
	assert.Equal(t, plain.String(), kept.String())
	for i, want := range []string{"1.50", "-0", "1E2", "18446744073709551617", "0.30000000000000000001", "7"} {
		got, ok := kept.Index(i).NumberText()
		assert.True(t, ok, want)
		assert.Equal(t, want, got)
		_, ok = plain.Index(i).NumberText()
		assert.False(t, ok, want)
	}
	_, ok := kept.Index(6).NumberText()
	assert.False(t, ok, "a string")
	s, ok := kept.Index(6).AsString()
	assert.True(t, ok)
	assert.Equal(t, "7", s)
}
