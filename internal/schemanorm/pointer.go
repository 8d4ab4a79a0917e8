package schemanorm

// This file holds the rules of JSON Pointers (RFC 6901).

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
)

// escape escapes one reference token of a JSON pointer (RFC 6901).
func escape(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// unescape undoes escape.
func unescape(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
}

// arrayIndex parses a JSON pointer array index: "0" or digits without a
// leading zero.
func arrayIndex(tok string, n int) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i >= n {
		return 0, false
	}
	return i, true
}

// Resolve returns the value at the JSON pointer ptr (RFC 6901, without the
// leading "#") in v.
func Resolve(v *ojson.Value, ptr string) (*ojson.Value, bool) {
	if ptr == "" {
		return v, true
	}
	if ptr[0] != '/' {
		return nil, false
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = unescape(tok)
		switch v.Kind() {
		case ojson.Object:
			c, ok := v.Get(tok)
			if !ok {
				return nil, false
			}
			v = c
		case ojson.Array:
			i, ok := arrayIndex(tok, v.Len())
			if !ok {
				return nil, false
			}
			v = v.Index(i)
		default:
			return nil, false
		}
	}
	return v, true
}

// LocalPointer returns the JSON pointer of a local reference, canonically
// escaped ("#/a/b" → "/a/b", "#/%24defs/X" → "/$defs/X", "#" → ""), or false
// when ref is not a JSON pointer fragment.
func LocalPointer(ref string) (string, bool) {
	if !strings.HasPrefix(ref, "#") {
		return "", false
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return "", false
	}
	if frag == "" {
		return "", true
	}
	if frag[0] != '/' {
		return "", false
	}
	toks := strings.Split(frag[1:], "/")
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(escape(unescape(t)))
	}
	return b.String(), true
}
