package ojson

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// UnquoteStd decodes a JSON string literal, quotes included, as encoding/json
// decodes it into a Go string: an escaped surrogate that is not half of a
// pair becomes U+FFFD, where Parse, like serde_json, refuses it. It is the
// fast path for message text that encoding/json has already validated: ok is
// false for anything it does not handle (invalid UTF-8, a malformed escape, a
// control character), and the caller then decodes with encoding/json itself.
func UnquoteStd(lit []byte) (s string, ok bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' || !utf8.Valid(lit) {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 {
		return string(body), true
	}
	buf := make([]byte, 0, len(body))
	for {
		buf = append(buf, body[:i]...)
		body = body[i:]
		if len(body) < 2 {
			return "", false
		}
		if c, simple := unescape(body[1]); simple {
			buf, body = append(buf, c), body[2:]
		} else if body[1] == 'u' {
			r16, ok := hex4(body[2:])
			if !ok {
				return "", false
			}
			r := rune(r16)
			body = body[6:]
			if utf16.IsSurrogate(r) {
				var r2 uint16
				ok := false
				if len(body) >= 6 && body[0] == '\\' && body[1] == 'u' {
					r2, ok = hex4(body[2:])
				}
				if dec := utf16.DecodeRune(r, rune(r2)); ok && dec != utf8.RuneError {
					r, body = dec, body[6:]
				} else {
					r = utf8.RuneError
				}
			}
			buf = utf8.AppendRune(buf, r)
		} else {
			return "", false
		}
		if i = bytes.IndexByte(body, '\\'); i < 0 {
			buf = append(buf, body...)
			// buf is this string's alone: no copy of a text that may be
			// megabytes, as strings.Builder does.
			return unsafe.String(unsafe.SliceData(buf), len(buf)), true
		}
	}
}

// unescape returns the byte a one-character escape "\c" stands for.
func unescape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// hex4 decodes the four hex digits at the start of b.
func hex4[T string | []byte](b T) (uint16, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var n uint16
	for i := range 4 {
		c := b[i]
		var d byte
		switch {
		case '0' <= c && c <= '9':
			d = c - '0'
		case 'a' <= c && c <= 'f':
			d = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, false
		}
		n = n<<4 | uint16(d)
	}
	return n, true
}
