package harmony

import "github.com/go-harmony/harmony/internal/jsonscan"

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

// wireScanner reads a JSON document from b[i:], with package jsonscan.
type wireScanner struct {
	b []byte
	i int
}

// space skips JSON white space.
func (s *wireScanner) space() { s.i = jsonscan.Space(s.b, s.i) }

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
			lit, _, ok := s.str()
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
	lit, escaped, ok := s.str()
	if !ok || escaped {
		return "", false
	}
	return bytesString(lit[1 : len(lit)-1]), true
}

// optString reads a string or null into *p, as encoding/json decodes a
// *string field.
func (s *wireScanner) optString(p **string) bool {
	if s.i < len(s.b) && s.b[s.i] == 'n' {
		*p = nil
		end, ok := jsonscan.Literal(s.b, s.i)
		s.i = end
		return ok
	}
	lit, _, ok := s.str()
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

// str reads a string literal at s.i and returns it, quotes included, and
// whether it has escapes. It accepts what encoding/json's scanner accepts
// (see package jsonscan).
func (s *wireScanner) str() (lit []byte, escaped, ok bool) {
	end, escaped, ok := jsonscan.String(s.b, s.i)
	if !ok {
		return nil, false, false
	}
	lit, s.i = s.b[s.i:end], end
	return lit, escaped, true
}

// raw checks the JSON value at s.i, nested no deeper than fastMaxDepth,
// and returns its bytes.
func (s *wireScanner) raw() (json []byte, ok bool) {
	end, _, ok := jsonscan.Skip(s.b, s.i, fastMaxDepth)
	if !ok {
		return nil, false
	}
	json, s.i = s.b[s.i:end], end
	return json, true
}
