package harmony

// This file is the fast path of Conversation.UnmarshalJSON: one pass over the
// document that both checks its syntax and splits it into the wire form of
// its messages, where encoding/json scans a long conversation three times
// (json.Unmarshal's check, the Decoder's and the copy of every content into
// its RawMessage). It takes only the common form, and gives up (ok false) on
// anything else, letting encoding/json decide, and word the error:
//
//   - the keys are written exactly as the wire struct's tags (no escapes, no
//     other case) and none appears twice in an object;
//   - the role is a string, the other header fields strings or null;
//   - the values of content and the reasoning fields are any JSON value,
//     which is checked and kept raw (a view of the document: what is kept
//     from it is decoded into new strings);
//   - no value nests deeper than fastMaxDepth.
//
// What it accepts it decodes to the same []messageJSON as decodeStrict, so the
// rest of UnmarshalJSON, errors included, is the same on both paths.

// fastMaxDepth bounds the nesting of raw values the fast path checks;
// encoding/json allows deeper documents, which it leaves to that.
const fastMaxDepth = 256

// decodeWireFast decodes data, with no white space around it, to the wire
// form of its messages and the path prefix of their errors ("$" for a bare
// array, "$.messages" for the object).
func decodeWireFast(data []byte) (wire []messageJSON, prefix string, ok bool) {
	s := wireScanner{b: data}
	if len(data) > 0 && data[0] == '[' {
		if wire, ok = s.messages(); !ok || s.i != len(data) {
			return nil, "", false
		}
		return wire, "$", true
	}
	if !s.byte('{') {
		return nil, "", false
	}
	s.space()
	if key, ok := s.key(); !ok || key != "messages" {
		return nil, "", false
	}
	s.space()
	if !s.byte(':') {
		return nil, "", false
	}
	s.space()
	if wire, ok = s.messages(); !ok {
		return nil, "", false
	}
	s.space()
	if !s.byte('}') || s.i != len(data) {
		return nil, "", false
	}
	return wire, "$.messages", true
}

// wireScanner reads a JSON document from b[i:].
type wireScanner struct {
	b []byte
	i int
}

// space skips JSON white space.
func (s *wireScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// byte consumes c, if it is next.
func (s *wireScanner) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// messages reads a JSON array of messages, at s.i.
func (s *wireScanner) messages() ([]messageJSON, bool) {
	if !s.byte('[') {
		return nil, false
	}
	var wire []messageJSON
	s.space()
	if s.byte(']') {
		return wire, true
	}
	for {
		wire = append(wire, messageJSON{})
		if !s.message(&wire[len(wire)-1]) {
			return nil, false
		}
		s.space()
		if s.byte(']') {
			return wire, true
		}
		if !s.byte(',') {
			return nil, false
		}
		s.space()
	}
}

// message reads a message object into m.
func (s *wireScanner) message(m *messageJSON) bool {
	if !s.byte('{') {
		return false
	}
	s.space()
	if s.byte('}') {
		return false // no role: encoding/json's path words the error
	}
	var seen uint16
	for {
		key, ok := s.key()
		if !ok {
			return false
		}
		s.space()
		if !s.byte(':') {
			return false
		}
		s.space()
		var bit uint16
		switch key {
		case "role":
			bit = 1 << 0
			lit, ok := s.str()
			if !ok {
				return false
			}
			if m.Role, ok = fastString(lit); !ok {
				return false
			}
		case "name":
			bit, ok = 1<<1, s.optString(&m.Name)
		case "recipient":
			bit, ok = 1<<2, s.optString(&m.Recipient)
		case "channel":
			bit, ok = 1<<3, s.optString(&m.Channel)
		case "content_type":
			bit, ok = 1<<4, s.optString(&m.ContentType)
		case "header":
			bit, ok = 1<<5, s.optString(&m.Header)
		case "content":
			bit = 1 << 6
			m.Content, ok = s.raw()
		case "thinking":
			bit = 1 << 7
			m.Thinking, ok = s.raw()
		case "reasoning_content":
			bit = 1 << 8
			m.ReasoningContent, ok = s.raw()
		case "reasoning":
			bit = 1 << 9
			m.Reasoning, ok = s.raw()
		default:
			return false
		}
		if !ok || seen&bit != 0 {
			return false
		}
		seen |= bit
		s.space()
		if s.byte('}') {
			return true
		}
		if !s.byte(',') {
			return false
		}
		s.space()
	}
}

// key reads an object key without escapes, at s.i, and returns its text
// (a view of the document).
func (s *wireScanner) key() (string, bool) {
	lit, ok := s.str()
	if !ok || len(lit) < 2 {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	for _, c := range body {
		if c == '\\' {
			return "", false
		}
	}
	return bytesString(body), true
}

// optString reads a string or null into *p, as encoding/json decodes a
// *string field.
func (s *wireScanner) optString(p **string) bool {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		*p = nil
		return s.literal("null")
	}
	lit, ok := s.str()
	if !ok {
		return false
	}
	v, ok := fastString(lit)
	if !ok {
		return false
	}
	*p = &v
	return true
}

// fastString decodes a string literal that the scanner has checked: as
// jsonString does, but giving up where that would need encoding/json.
func fastString(lit []byte) (string, bool) {
	s, err := jsonString(lit)
	return s, err == nil
}

// str reads a string literal at s.i and returns it, quotes included. It
// accepts what encoding/json's scanner accepts: no control characters, and
// escapes of one of "\/bfnrt or u and four hex digits; the bytes need not be
// UTF-8.
func (s *wireScanner) str() ([]byte, bool) {
	start := s.i
	if !s.byte('"') {
		return nil, false
	}
	b := s.b
	i := s.i
	for {
		// Skip the plain bytes, eight at a time while there are eight.
		for i+8 <= len(b) && !hasSpecial(le64(b[i:])) {
			i += 8
		}
		for i < len(b) && strPlain[b[i]] {
			i++
		}
		if i >= len(b) {
			return nil, false
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return b[start:s.i], true
		case c == '\\':
			if i+1 >= len(b) {
				return nil, false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return nil, false
				}
				for _, h := range b[i+2 : i+6] {
					if !isHex(h) {
						return nil, false
					}
				}
				i += 6
			default:
				return nil, false
			}
		default:
			return nil, false // a control character
		}
	}
}

// strPlain marks the bytes that stand for themselves in a JSON string.
var strPlain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// le64 returns the eight bytes at the start of b, little-endian.
func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// hasSpecial reports whether one of the eight bytes of x may be a quote, a
// backslash or a control character (below 0x20): it never misses one, and
// the caller looks at the bytes one by one when it says so.
func hasSpecial(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	// The classic tests: (v - ones) &^ v has the high bit of a zero byte of
	// v set, and (x - n*ones) &^ x that of a byte of x below n (n <= 0x80).
	t := (q-ones)&^q | (bs-ones)&^bs | (x-ones*0x20)&^x
	return t&highs != 0
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// literal consumes the literal word (true, false or null).
func (s *wireScanner) literal(word string) bool {
	if len(s.b)-s.i >= len(word) && string(s.b[s.i:s.i+len(word)]) == word {
		s.i += len(word)
		return true
	}
	return false
}

// raw checks the JSON value at s.i and returns its bytes.
func (s *wireScanner) raw() (json []byte, ok bool) {
	start := s.i
	if !s.value(0) {
		return nil, false
	}
	return s.b[start:s.i], true
}

// value checks the JSON value at s.i, nested depth deep, and skips it.
func (s *wireScanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, ok := s.str()
		return ok
	case c == '{':
		if depth >= fastMaxDepth {
			return false
		}
		s.i++
		s.space()
		if s.byte('}') {
			return true
		}
		for {
			if _, ok := s.str(); !ok {
				return false
			}
			s.space()
			if !s.byte(':') {
				return false
			}
			s.space()
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.byte('}') {
				return true
			}
			if !s.byte(',') {
				return false
			}
			s.space()
		}
	case c == '[':
		if depth >= fastMaxDepth {
			return false
		}
		s.i++
		s.space()
		if s.byte(']') {
			return true
		}
		for {
			if !s.value(depth + 1) {
				return false
			}
			s.space()
			if s.byte(']') {
				return true
			}
			if !s.byte(',') {
				return false
			}
			s.space()
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	}
	return false
}

// number skips a number, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
// What follows it is left to the caller, which wants a delimiter.
func (s *wireScanner) number() bool {
	b := s.b
	i := s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || !isDigit(b[i]) {
			return false
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
			return false
		}
		for i < len(b) && isDigit(b[i]) {
			i++
		}
	}
	s.i = i
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
