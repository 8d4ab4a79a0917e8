// Package jsonw writes JSON by hand, byte for byte as encoding/json writes it
// with HTML escaping off, for the output paths that carry megabytes of text
// (parsed messages, stream steps) where encoding/json's reflection and its
// re-compaction of Marshaler output dominate.
package jsonw

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// AppendString appends s as a JSON string, byte for byte as encoding/json
// writes it without HTML escaping: '"', '\\' and control characters escaped
// (\b, \f, \n, \r and \t by name), each invalid UTF-8 byte written as \ufffd,
// U+2028 and U+2029 escaped, everything else literal.
func AppendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if literalByte[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// literalByte holds true for the ASCII characters a JSON string holds as they
// are: all but control characters, '"' and '\\'.
var literalByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// Marshal is json.Marshal without HTML escaping, for MarshalJSON methods:
// text such as "<|start|>" stays readable when the caller's encoder does not
// escape either (json.Marshal still escapes the whole result as usual).
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
