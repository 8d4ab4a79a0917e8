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

// FunctionsPrefix starts the recipient of a call to a declared function:
// a call to NAME is addressed "functions.NAME".
const FunctionsPrefix = "functions."

// FunctionRecipient returns the recipient of a call to the declared function name.
func FunctionRecipient(name string) string { return FunctionsPrefix + name }

// nameByte reports whether c may be in a tool name.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-'
}

// Valid reports whether s is a tool name: one or more of a-z, A-Z, 0-9, _
// and -, and at most max bytes when max > 0.
func Valid(s string, max int) bool {
	if s == "" || (max > 0 && len(s) > max) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			return false
		}
	}
	return true
}

// ValidLoose reports whether s is 1 to max bytes (any length when max <=
// 0) of the bytes of names and dots, in any order: what can follow
// FunctionsPrefix in a header and be read back as the same name. It is
// looser than ValidDotted (".x" and "a..b" pass); constrain's envelope
// declares functions by it.
func ValidLoose(s string, max int) bool {
	if s == "" || (max > 0 && len(s) > max) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) && s[i] != '.' {
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
