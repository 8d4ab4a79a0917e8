package toolname

import (
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
