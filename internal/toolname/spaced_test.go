package toolname

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSpaced pins which declared names hold spaces a reader matches whole.
func TestSpaced(t *testing.T) {
	for s, want := range map[string]bool{
		"Web Search": true, "a b c": true, "get_weather": false, "a  b": false,
		" a": false, "a ": false, "a\tb": false, "a <|x|>": false, "": false,
	} {
		assert.Equal(t, want, Spaced(s), "Spaced(%q)", s)
	}
}

// TestDeclared checks that a declared name with spaces is found at the
// start of a header, whole, with or without its namespace, and only where
// its last word ends.
func TestDeclared(t *testing.T) {
	r := NewRule(Recover, []string{"Web Search", "Web Search Pro", "get_weather"}, nil)
	for s, want := range map[string]int{
		"functions.Web Search <|constrain|>json": len("functions.Web Search"),
		"functions.Web Search<|channel|>":        len("functions.Web Search"),
		"functions.Web Search":                   len("functions.Web Search"),
		"Web Search Pro json":                    len("Web Search Pro"),
		"functions.Web Searches":                 0,
		"functions.get_weather json":             0, // no space: split as any other
		"functions.Web":                          0,
	} {
		assert.Equal(t, want, r.Declared(s), "Declared(%q)", s)
	}
}

// TestResolveSpaced checks that a declared name with spaces is a function
// under both policies, and an undeclared one is none.
func TestResolveSpaced(t *testing.T) {
	fn := Recipient{Function, "functions.Web Search", "Web Search"}
	rec := NewRule(Recover, []string{"Web Search"}, nil)
	call := NewRule(Call, []string{"Web Search"}, nil)
	assert.Equal(t, fn, rec.Resolve("functions.Web Search", false))
	assert.Equal(t, fn, rec.Resolve("Web Search", false)) // (a)
	assert.Equal(t, fn, call.Resolve("functions.Web Search", false))
	assert.Equal(t, Recipient{}, call.Resolve("Web Search", false))
	open := NewRule(Call, nil, nil)
	assert.Equal(t, Recipient{}, open.Resolve("functions.Web Search", false))
	none := NewRule(Recover, nil, nil)
	assert.Equal(t, Recipient{}, none.Resolve("functions.Web Search", false))
}
