package toolname

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestDeclaredPrefix pins what a reader keeps together before a header's
// end: the start of a declared name with spaces, with or without its
// namespace, or all of it, and nothing else.
func TestDeclaredPrefix(t *testing.T) {
	r := NewRule(Recover, []string{"Web Search", "get_weather"}, nil)
	assert.True(t, r.HasSpaced())
	for s, want := range map[string]bool{
		"": true, "functions.": true, "functions.Web ": true, "functions.Web Search": true,
		"Web": true, "Web Se": true, "Web Search": true,
		"functions.Web Search ": false, "Web Search x": false, "functions.get_weather": false, "Web  ": false,
	} {
		assert.Equal(t, want, r.DeclaredPrefix(s), "DeclaredPrefix(%q)", s)
	}
	none := NewRule(Recover, []string{"get_weather"}, nil)
	assert.False(t, none.HasSpaced())
	assert.False(t, none.DeclaredPrefix(""), "nothing declared with spaces")
}
