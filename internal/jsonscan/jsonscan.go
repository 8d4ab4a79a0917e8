// Package jsonscan finds where the parts of a JSON text end: white space,
// string literals, numbers, the literals true, false and null, and whole
// values. It is the one scanner of the module's hand-written JSON readers:
// the fast path of harmony's Conversation.UnmarshalJSON, the request cost
// walk of openaicompat and the parser of internal/ojson.
//
// Each function takes the text and the index i of the part to scan, and
// returns the index just past it and whether it is well formed; when it is
// not, the index returned is that of the byte where the scan stopped (the
// first one that cannot continue the part, or len(b) when the text ends
// first), which a parser can report as the offset of its error. Nothing
// allocates, and the text may be a string or a []byte.
//
// What is well formed is what encoding/json accepts (json.Valid): no
// control characters (bytes below 0x20) in strings, escapes of one of
// "\/bfnrt or of u and four hex digits, the number grammar of RFC 8259,
// and the bytes of a string need not be UTF-8, nor its \u escapes pair
// their surrogates. A reader that is stricter adds its checks on top:
// internal/ojson, which refuses invalid UTF-8 and unpaired surrogates as
// serde_json does, skips the ASCII bytes of a string that stand for
// themselves with [PlainASCII], decodes each rune above 0x7f where that
// stops with utf8.DecodeRuneInString, and decodes the escapes itself.
package jsonscan

import "math/bits"

// Text is the type of a JSON text: a string, or a []byte.
type Text interface{ string | []byte }

// Space returns the index of the first byte at or after i that is not
// JSON white space (space, tab, line feed, carriage return), or len(b).
func Space[T Text](b T, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// PlainASCII returns the index of the first byte at or after i that is
// not ASCII or does not stand for itself in a JSON string — a quote, a
// backslash or a control character — or len(b). It looks at eight bytes at
// a time while there are eight. It is the scan of a reader that checks
// UTF-8 (see the package doc); [String] makes the same scan but for the
// bytes above 0x7f, which it lets through.
func PlainASCII[T Text](b T, i int) int {
	const highs = 0x8080808080808080
	for ; i+8 <= len(b); i += 8 {
		x := le64(b[i:])
		if m := special(x) | x&highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(b) && plain[b[i]] && b[i] < 0x80 {
		i++
	}
	return i
}

// plain marks the bytes that stand for themselves in a JSON string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// le64 returns the eight bytes at the start of b, little-endian.
func le64[T Text](b T) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// special returns a word whose lowest set bit is the high bit of the
// first of the eight bytes of x (in little-endian order) that is a quote,
// a backslash or a control character (below 0x20), or 0 when none is. The
// bits above it may be set wrongly; the lowest is exact.
func special(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	// The classic tests: (v - ones) &^ v has the high bit of a zero byte of
	// v set, and (x - n*ones) &^ x that of a byte of x below n (n <= 0x80);
	// a byte's borrow changes only the bytes above it.
	return ((q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x) & highs
}

// String returns the end of the string literal whose opening quote is at
// b[i] (the index past its closing quote), and whether it has escapes.
// When it is not one, ok is false and end is the index of the byte that
// does not belong: a control character, the backslash of an escape that
// is not one, or len(b) when the text ends first.
func String[T Text](b T, i int) (end int, escaped, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return i, false, false
	}
	i++
	for {
		// The bytes that stand for themselves, eight at a time while
		// there are eight. (Written out: a function is too large for the
		// compiler to inline, and a call for each run costs the callers
		// with short strings.)
		for i+8 <= len(b) {
			if m := special(le64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i >= len(b) {
			return i, escaped, false
		}
		switch b[i] {
		case '"':
			return i + 1, escaped, true
		case '\\':
			if i+1 >= len(b) {
				return i, escaped, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) || !isHex(b[i+2]) || !isHex(b[i+3]) || !isHex(b[i+4]) || !isHex(b[i+5]) {
					return i, escaped, false
				}
				i += 6
			default:
				return i, escaped, false
			}
			escaped = true
		default:
			return i, escaped, false // a control character
		}
	}
}

// isHex reports whether c is a hex digit.
func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isDigit reports whether c is a decimal digit.
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Number returns the end of the number at b[i], the longest prefix of
// b[i:] of the form -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. What
// follows it is the caller's to check: a delimiter, where JSON wants one
// ("01" is the number 0 followed by 1). When b[i:] does not start with a
// number, ok is false and end is the index of the byte that does not fit
// ("-x", "1.x", "1ex"), or len(b) when the text ends first ("-", "1.",
// "1e").
func Number[T Text](b T, i int) (end int, ok bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return i, false
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i++
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return i, false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	return i, true
}

// Literal returns the end of the literal true, false or null at b[i], the
// one its first byte begins. When there is none, ok is false and end is the
// index of the first byte that differs from it (i when b[i] begins none),
// or len(b) when the text ends first.
func Literal[T Text](b T, i int) (end int, ok bool) {
	if i >= len(b) {
		return i, false
	}
	var word string
	switch b[i] {
	case 't':
		word = "true"
	case 'f':
		word = "false"
	case 'n':
		word = "null"
	default:
		return i, false
	}
	for j := 1; j < len(word); j++ {
		if i+j >= len(b) || b[i+j] != word[j] {
			return i + j, false
		}
	}
	return i + len(word), true
}

// Skip returns the end of the JSON value that starts at b[i] (no white
// space before it), and depth, the deepest nesting of arrays and objects in
// it: 0 for a string, a number or a literal, 1 for an array or an object
// of them. A value that nests more than maxDepth deep is refused, at the
// bracket that opens one too many. When b[i:] does not start with a value,
// ok is false and end is the index of the byte where the scan stopped.
func Skip[T Text](b T, i, maxDepth int) (end, depth int, ok bool) {
	if i >= len(b) {
		return i, 0, false
	}
	switch c := b[i]; {
	case c == '"':
		end, _, ok = String(b, i)
		return end, 0, ok
	case c == '{':
		return container(b, i, maxDepth, '}')
	case c == '[':
		return container(b, i, maxDepth, ']')
	case c == '-' || isDigit(c):
		end, ok = Number(b, i)
		return end, 0, ok
	}
	end, ok = Literal(b, i)
	return end, 0, ok
}

// container is Skip for the object or array whose opening bracket is at
// b[i], and whose closing one is closing.
func container[T Text](b T, i, maxDepth int, closing byte) (end, depth int, ok bool) {
	if maxDepth <= 0 {
		return i, 0, false
	}
	i = Space(b, i+1)
	if i < len(b) && b[i] == closing {
		return i + 1, 1, true
	}
	for {
		if closing == '}' {
			if i, _, ok = String(b, i); !ok {
				return i, 0, false
			}
			i = Space(b, i)
			if i >= len(b) || b[i] != ':' {
				return i, 0, false
			}
			i = Space(b, i+1)
		}
		var d int
		if i, d, ok = Skip(b, i, maxDepth-1); !ok {
			return i, 0, false
		}
		depth = max(depth, d)
		i = Space(b, i)
		if i >= len(b) {
			return i, 0, false
		}
		switch b[i] {
		case closing:
			return i + 1, depth + 1, true
		case ',':
			i = Space(b, i+1)
		default:
			return i, 0, false
		}
	}
}
