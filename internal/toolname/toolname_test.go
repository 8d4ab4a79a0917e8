package toolname

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValid(t *testing.T) {
	for _, c := range []struct {
		s      string
		max    int
		valid  bool
		dotted bool
	}{
		{"get_weather", 0, true, true},
		{"a-B_9", 0, true, true},
		{"", 0, false, false},
		{"get weather", 0, false, false},
		{"get<|channel|>final", 0, false, false},
		{"to=functions.x", 0, false, false},
		{"browser.search", 0, false, true},
		{"ns.a.b", 0, false, true},
		{"ns.", 0, false, false},
		{".x", 0, false, false},
		{"a..b", 0, false, false},
		{"héllo", 0, false, false},
		{"abcd", 3, false, false},
		{"abc.abc", 3, false, true},
		{"abc", 3, true, true},
	} {
		assert.Equal(t, c.valid, Valid(c.s, c.max), "Valid(%q, %d)", c.s, c.max)
		assert.Equal(t, c.dotted, ValidDotted(c.s, c.max), "ValidDotted(%q, %d)", c.s, c.max)
	}
}

func TestValidLoose(t *testing.T) {
	for s, want := range map[string]bool{
		"get_weather": true, "a.b": true, ".x": true, "a..b": true, "x.": true,
		"": false, "a b": false, "héllo": false, "to=x": false,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false,
	} {
		assert.Equal(t, want, ValidLoose(s, 64), "%q", s)
	}
	assert.True(t, ValidLoose(strings.Repeat("a", 65), 0), "no limit")
}

func TestFunctionRecipient(t *testing.T) {
	assert.Equal(t, "functions.get_weather", FunctionRecipient("get_weather"))
	rule := NewRule(Call, []string{"get_weather"}, nil)
	r := rule.Resolve(FunctionRecipient("get_weather"), false)
	assert.Equal(t, Recipient{Kind: Function, Full: "functions.get_weather", Name: "get_weather"}, r)
}
