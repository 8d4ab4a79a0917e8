package constrain

import (
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stringThread is a thread inside a JSON string whose content d
// constrains, at the top level of the value.
func stringThread(d *dfa) thread {
	return thread{
		top:  frame{kind: fStr, d: d, n: &node{str: d, strMax: -1}},
		rest: &link{f: frame{kind: fRoot, phase: 1}},
	}
}

// closesString reports whether the string content text (JSON-escaped as
// written) followed by the closing quote takes th out of its string.
func closesString(th thread, text string) bool {
	st := &stepper{}
	cur := []thread{th}
	for _, b := range []byte(text + `"`) {
		var next []thread
		for _, t := range cur {
			next = st.step(t, b, next)
		}
		if len(next) == 0 {
			return false
		}
		cur = next
	}
	for _, t := range cur {
		if t.top.kind == fRoot {
			return true
		}
	}
	return false
}

// escapeOf writes r as JSON's \u escape: one for the Basic Multilingual
// Plane, a surrogate pair above it.
func escapeOf(r rune) string {
	if r < 0x10000 {
		return fmt.Sprintf(`\u%04x`, r)
	}
	r -= 0x10000
	return fmt.Sprintf(`\u%04x\u%04x`, 0xD800+r>>10, 0xDC00+r&0x3FF)
}

// TestEscapeBytes pins what feedRune feeds a string automaton for a \u
// escape: the UTF-8 encoding of the code point, for every scalar value of
// the Basic Multilingual Plane and for surrogate pairs across the planes
// above it. Each value is checked against the automaton of exactly its own
// UTF-8 text, so that any other bytes are refused.
func TestEscapeBytes(t *testing.T) {
	var runes []rune
	for r := rune(0); r < 0x10000; r++ {
		if r < 0xD800 || r > 0xDFFF {
			runes = append(runes, r)
		}
	}
	step := rune(0x3FF)
	if testing.Short() {
		runes = []rune{0, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF}
		step = 0x3FFF
	}
	for r := rune(0x10000); r < utf8.MaxRune; r += step {
		runes = append(runes, r, r+1)
	}
	runes = append(runes, utf8.MaxRune)
	for _, r := range runes {
		d, err := literalsDFA(nil, []string{string(r)})
		require.NoError(t, err)
		if !closesString(stringThread(d), escapeOf(r)) {
			require.Failf(t, "escape misread", "the escape %s is not read as U+%04X", escapeOf(r), r)
		}
	}
}

// TestEscapeLoneSurrogate pins that a lone surrogate escape never reaches
// the string automaton: utf8.EncodeRune, which feedRune writes a code point
// with, would make it U+FFFD, so a string that allows U+FFFD (or any text)
// must still refuse it.
func TestEscapeLoneSurrogate(t *testing.T) {
	fffd, err := literalsDFA(nil, []string{"\uFFFD"})
	require.NoError(t, err)
	for _, d := range []*dfa{fffd, universalDFA} {
		for _, text := range []string{`\ud800`, `\udbff`, `\udc00`, `\udfff`, `\ud800\u0041`, `\ud800x`, `\udc00\ud800`} {
			assert.False(t, closesString(stringThread(d), text), "%s", text)
		}
	}
	assert.True(t, closesString(stringThread(fffd), `\ufffd`))
	assert.True(t, closesString(stringThread(universalDFA), `\ud83d\ude00`))
}
