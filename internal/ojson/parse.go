package ojson

// The parser is a plain recursive-descent parser over a string copy of the
// input: one allocation up front lets every string without escapes be a
// zero-copy substring, and recursion is safe because nesting is bounded by
// MaxDepth before each descent. Elements and members of open containers
// collect on two parser-wide stacks and are copied out once, at their exact
// size, when the container closes. Object keys are found by linear scan while
// an object is small and through a map once it grows, so hostile inputs with
// many keys stay linear.

import (
	"errors"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/jsonscan"
)

// DefaultMaxDepth is the deepest nesting of arrays and objects that Parse
// accepts. It equals serde_json's default recursion limit, which rejects the
// 128th nested container.
const DefaultMaxDepth = 127

// indexThreshold is the member count above which an object gets a key index.
const indexThreshold = 16

// Errors reported inside a *SyntaxError; test with errors.Is.
var (
	// ErrTooDeep means arrays and objects nest deeper than the limit.
	ErrTooDeep = errors.New("nesting too deep")
	// ErrNumberOutOfRange means a number literal is too large for a float64,
	// which serde_json rejects instead of producing infinity.
	ErrNumberOutOfRange = errors.New("number out of range")
)

var (
	errEOF           = errors.New("unexpected end of input")
	errTrailing      = errors.New("trailing characters after value")
	errExpectValue   = errors.New("expected a value")
	errLiteral       = errors.New("invalid literal")
	errNumber        = errors.New("invalid number")
	errEscape        = errors.New("invalid escape sequence")
	errControl       = errors.New("control character in string")
	errUTF8          = errors.New("invalid UTF-8 in string")
	errSurrogate     = errors.New("unpaired surrogate in \\u escape")
	errKey           = errors.New("expected a string key")
	errColon         = errors.New("expected ':' after object key")
	errArrayDelim    = errors.New("expected ',' or ']' in array")
	errObjectDelim   = errors.New("expected ',' or '}' in object")
	errTrailingComma = errors.New("trailing comma")
)

// SyntaxError reports why and where Parse rejected its input.
type SyntaxError struct {
	Offset int   // byte offset in the input at which the problem was found
	Err    error // the cause; ErrTooDeep and ErrNumberOutOfRange are exported
}

// Error returns a message of the form "ojson: <cause> at offset <n>".
func (e *SyntaxError) Error() string {
	return "ojson: " + e.Err.Error() + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns the cause, for errors.Is.
func (e *SyntaxError) Unwrap() error { return e.Err }

// ParseOptions configures parsing. The zero value gives the defaults.
type ParseOptions struct {
	// MaxDepth is the deepest nesting of arrays and objects accepted (a
	// scalar or an empty array at top level has depth 0 or 1 respectively).
	// Zero or a negative value means DefaultMaxDepth.
	MaxDepth int
	// KeepNumberText keeps the literal of each number, for
	// [Value.NumberText]: a float64 does not hold every literal exactly.
	KeepNumberText bool
}

// Parse parses exactly one JSON document, optionally surrounded by JSON
// whitespace, using the default options. See [ParseOptions.Parse].
func Parse(data []byte) (*Value, error) {
	return ParseOptions{}.Parse(data)
}

// Parse parses exactly one JSON document, optionally surrounded by JSON
// whitespace. It never panics; on failure it returns a *SyntaxError. The
// returned Value does not alias data.
func (o ParseOptions) Parse(data []byte) (*Value, error) {
	p := parserPool.Get().(*parser)
	defer p.release()
	p.s, p.i, p.depth, p.maxDepth, p.keepNumbers = string(data), 0, 0, o.MaxDepth, o.KeepNumberText
	if p.maxDepth <= 0 {
		p.maxDepth = DefaultMaxDepth
	}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i < len(p.s) {
		return nil, p.fail(p.i, errTrailing)
	}
	return &v, nil
}

// parserPool keeps parsers, and so their stacks, warm between calls.
var parserPool = sync.Pool{New: func() any { return new(parser) }}

// release drops every reference into the last document and returns p to
// the pool. Stacks that grew very large are not kept.
func (p *parser) release() {
	p.s = ""
	// Closed containers clear their part of the stacks; after an error the
	// open ones are still there.
	clear(p.vals)
	clear(p.mems)
	p.vals, p.mems = p.vals[:0], p.mems[:0]
	if cap(p.vals) > 1024 || cap(p.mems) > 1024 || cap(p.scratch) > 1<<16 {
		return
	}
	parserPool.Put(p)
}

type parser struct {
	s        string
	i        int
	depth    int
	maxDepth int
	// keepNumbers is ParseOptions.KeepNumberText.
	keepNumbers bool
	scratch     []byte   // reused buffer for strings with escapes
	vals        []Value  // elements of the open arrays, innermost last
	mems        []member // members of the open objects, innermost last
}

func (p *parser) fail(off int, err error) error {
	return &SyntaxError{Offset: off, Err: err}
}

// skipSpace skips JSON white space.
func (p *parser) skipSpace() { p.i = jsonscan.Space(p.s, p.i) }

// value parses the value that starts at the next non-space byte. Values are
// returned, not written through pointers, so that they stay off the heap
// until their container copies them out.
func (p *parser) value() (Value, error) {
	p.skipSpace()
	if p.i >= len(p.s) {
		return Value{}, p.fail(p.i, errEOF)
	}
	switch c := p.s[p.i]; c {
	case 'n':
		return Value{}, p.literal()
	case 't':
		return Value{kind: Bool, bits: 1}, p.literal()
	case 'f':
		return Value{kind: Bool}, p.literal()
	case '"':
		p.i++
		s, err := p.str()
		return Value{kind: String, str: s}, err
	case '[':
		return p.array()
	case '{':
		return p.object()
	default:
		if c == '-' || isDigit(c) {
			if !p.keepNumbers {
				return p.number()
			}
			start := p.i
			v, err := p.number()
			v.str = p.s[start:p.i]
			return v, err
		}
		return Value{}, p.fail(p.i, errExpectValue)
	}
}

// literal parses the literal (true, false or null) its first byte, at p.i,
// begins.
func (p *parser) literal() error {
	end, ok := jsonscan.Literal(p.s, p.i)
	switch {
	case ok:
		p.i = end
		return nil
	case end >= len(p.s):
		return p.fail(end, errEOF)
	}
	return p.fail(end, errLiteral)
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > p.maxDepth {
		return p.fail(p.i, ErrTooDeep)
	}
	p.i++ // the opening bracket
	return nil
}

func (p *parser) array() (Value, error) {
	v := Value{kind: Array}
	if err := p.enter(); err != nil {
		return v, err
	}
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		p.depth--
		return v, nil
	}
	base := len(p.vals)
	for {
		e, err := p.value()
		if err != nil {
			return v, err
		}
		p.vals = append(p.vals, e)
		p.skipSpace()
		if p.i >= len(p.s) {
			return v, p.fail(p.i, errEOF)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == ']' {
				return v, p.fail(p.i, errTrailingComma)
			}
		case ']':
			p.i++
			p.depth--
			v.elems = append([]Value(nil), p.vals[base:]...)
			clear(p.vals[base:])
			p.vals = p.vals[:base]
			return v, nil
		default:
			return v, p.fail(p.i, errArrayDelim)
		}
	}
}

func (p *parser) object() (Value, error) {
	v := Value{kind: Object}
	if err := p.enter(); err != nil {
		return v, err
	}
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		p.depth--
		return v, nil
	}
	base := len(p.mems)
	var index map[string]int // built once the object outgrows linear search
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return v, p.fail(p.i, errEOF)
		}
		if p.s[p.i] != '"' {
			return v, p.fail(p.i, errKey)
		}
		p.i++
		key, err := p.str()
		if err != nil {
			return v, err
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return v, p.fail(p.i, errEOF)
		}
		if p.s[p.i] != ':' {
			return v, p.fail(p.i, errColon)
		}
		p.i++
		val, err := p.value()
		if err != nil {
			return v, err
		}

		// A repeated key keeps its first position and takes the new value
		// (IndexMap::insert semantics).
		mems := p.mems[base:]
		if at := findMember(mems, index, key); at >= 0 {
			mems[at].value = val
		} else {
			p.mems = append(p.mems, member{key: key, value: val})
			if index != nil {
				index[key] = len(mems)
			} else if len(mems)+1 > indexThreshold {
				mems = p.mems[base:]
				index = make(map[string]int, 2*len(mems))
				for j := range mems {
					index[mems[j].key] = j
				}
			}
		}

		p.skipSpace()
		if p.i >= len(p.s) {
			return v, p.fail(p.i, errEOF)
		}
		switch p.s[p.i] {
		case ',':
			p.i++
			p.skipSpace()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				return v, p.fail(p.i, errTrailingComma)
			}
		case '}':
			p.i++
			p.depth--
			v.mems = append([]member(nil), p.mems[base:]...)
			v.index = index
			clear(p.mems[base:])
			p.mems = p.mems[:base]
			return v, nil
		default:
			return v, p.fail(p.i, errObjectDelim)
		}
	}
}

// findMember returns the position of key in mems, using index when it is
// not nil, or -1.
func findMember(mems []member, index map[string]int, key string) int {
	if index != nil {
		if i, ok := index[key]; ok {
			return i
		}
		return -1
	}
	for i := range mems {
		if mems[i].key == key {
			return i
		}
	}
	return -1
}

// str parses the rest of a string whose opening quote has been consumed.
func (p *parser) str() (string, error) {
	s := p.s
	start := p.i
	i, err := p.run(start)
	switch {
	case err != nil:
		return "", err
	case i >= len(s):
		return "", p.fail(len(s), errEOF)
	case s[i] == '"':
		p.i = i + 1
		return s[start:i], nil
	case s[i] == '\\':
		return p.escapedStr(start, i)
	}
	return "", p.fail(i, errControl)
}

// run returns the end of the run of bytes at i that stand for themselves
// in a string, which serde_json wants UTF-8: an invalid sequence is an
// error at its first byte. ASCII is skipped with [jsonscan.PlainASCII], the
// other runes decoded.
func (p *parser) run(i int) (int, error) {
	s := p.s
	for {
		i = jsonscan.PlainASCII(s, i)
		if i >= len(s) || s[i] < utf8.RuneSelf {
			return i, nil
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return 0, p.fail(i, errUTF8)
		}
		i += size
	}
}

// escapedStr continues str from the first backslash at i, decoding into the
// scratch buffer.
func (p *parser) escapedStr(start, i int) (string, error) {
	s := p.s
	buf := append(p.scratch[:0], s[start:i]...)
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			p.i = i + 1
			p.scratch = buf
			return string(buf), nil
		case c == '\\':
			if i+1 >= len(s) {
				return "", p.fail(len(s), errEOF)
			}
			e := s[i+1]
			i += 2
			if c, ok := unescape(e); ok {
				buf = append(buf, c)
				break
			}
			switch e {
			case 'u':
				r, next, err := p.unicodeEscape(i)
				if err != nil {
					return "", err
				}
				buf = utf8.AppendRune(buf, r)
				i = next
			default:
				return "", p.fail(i-1, errEscape)
			}
		case c < 0x20:
			return "", p.fail(i, errControl)
		default:
			j, err := p.run(i)
			if err != nil {
				return "", err
			}
			buf = append(buf, s[i:j]...)
			i = j
		}
	}
	return "", p.fail(len(s), errEOF)
}

// unicodeEscape decodes the hex digits of a \u escape starting at i (just
// after the 'u'), combining a surrogate pair when one follows. Like
// serde_json parsing into a string, any unpaired surrogate is an error.
func (p *parser) unicodeEscape(i int) (rune, int, error) {
	hi, ok := p.hex4(i)
	if !ok {
		return 0, 0, p.fail(i, errEscape)
	}
	i += 4
	switch {
	case hi >= 0xDC00 && hi <= 0xDFFF:
		return 0, 0, p.fail(i, errSurrogate)
	case hi < 0xD800 || hi > 0xDBFF:
		return rune(hi), i, nil
	}
	if i+1 >= len(p.s) || p.s[i] != '\\' || p.s[i+1] != 'u' {
		return 0, 0, p.fail(i, errSurrogate)
	}
	lo, ok := p.hex4(i + 2)
	if !ok {
		return 0, 0, p.fail(i+2, errEscape)
	}
	if lo < 0xDC00 || lo > 0xDFFF {
		return 0, 0, p.fail(i+6, errSurrogate)
	}
	return 0x10000 + (rune(hi)-0xD800)<<10 + (rune(lo) - 0xDC00), i + 6, nil
}

func (p *parser) hex4(i int) (uint16, bool) {
	if i > len(p.s) {
		return 0, false
	}
	return hex4(p.s[i:])
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
