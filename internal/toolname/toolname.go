// Package toolname holds the one rule for the names of tools and for the
// recipients of messages, shared by the parser's recovery mode and the
// OpenAI layer: a name as OpenAI's APIs allow function names,
// ^[a-zA-Z0-9_-]+$, and a dotted name of such parts, as harmony's built-in
// tools and namespaces are called ("browser.search"); and [Rule], which of
// a message's recipients are tools (functions.NAME, python, browser.TOOL,
// a declared namespace's tools), which address the user, and how a
// function written without its namespace is read, under a [Policy] for
// each of the two readers.
package toolname

// Valid reports whether s is a tool name: one or more of a-z, A-Z, 0-9, _
// and -, and at most max bytes when max > 0.
func Valid(s string, max int) bool {
	if s == "" || (max > 0 && len(s) > max) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ValidDotted reports whether s is one or more valid names (of at most max
// bytes each, when max > 0) joined by dots.
func ValidDotted(s string, max int) bool {
	for {
		i := 0
		for i < len(s) && s[i] != '.' {
			i++
		}
		if !Valid(s[:i], max) {
			return false
		}
		if i == len(s) {
			return true
		}
		s = s[i+1:]
	}
}
