package schemanorm

// This file holds the rules of JSON Pointers (RFC 6901), for every package
// of the module that reads schemas: the renderer, constrain, jsonschema and
// the normalizer.

import (
	"errors"
	"net/url"
	"strconv"
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
)

// Pointer is a JSON Pointer (RFC 6901) in its canonical string form: "" names
// the whole document, and every other pointer is a sequence of "/" and a
// reference token, in which "~" is written "~0" and "/" is written "~1"
// ("/$defs/a~1b/0").
type Pointer string

// Errors of ParseFragment and Pointer.Tokens.
var (
	// ErrNotFragment means that a reference is not a JSON Pointer fragment:
	// it does not start with "#", or what follows is neither empty nor
	// starts with "/" (an anchor such as "#name").
	ErrNotFragment = errors.New("not a JSON pointer fragment")
	// ErrBadEscape means that a fragment holds a percent escape that is not
	// two hexadecimal digits, or a reference token a "~" that is not
	// followed by "0" or "1".
	ErrBadEscape = errors.New("invalid escape in JSON pointer")
)

// EscapeToken returns tok as a reference token of a pointer: "~" becomes
// "~0" and "/" becomes "~1".
func EscapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// UnescapeToken returns the text of the reference token tok: "~1" becomes
// "/", then "~0" becomes "~" (RFC 6901, section 4: "~01" is "~1", not "/").
// It reports false when a "~" is not followed by "0" or "1".
func UnescapeToken(tok string) (string, bool) {
	i := strings.IndexByte(tok, '~')
	if i < 0 {
		return tok, true
	}
	var b strings.Builder
	b.Grow(len(tok))
	for ; i >= 0; i = strings.IndexByte(tok, '~') {
		if i+1 >= len(tok) || (tok[i+1] != '0' && tok[i+1] != '1') {
			return "", false
		}
		b.WriteString(tok[:i])
		if tok[i+1] == '0' {
			b.WriteByte('~')
		} else {
			b.WriteByte('/')
		}
		tok = tok[i+2:]
	}
	b.WriteString(tok)
	return b.String(), true
}

// Append returns p followed by the reference tokens toks, escaped.
func (p Pointer) Append(toks ...string) Pointer {
	for _, t := range toks {
		p += "/" + Pointer(EscapeToken(t))
	}
	return p
}

// AppendIndex returns p followed by the array index i.
func (p Pointer) AppendIndex(i int) Pointer {
	return p + "/" + Pointer(strconv.Itoa(i))
}

// Tokens returns the reference tokens of p, unescaped. It fails with
// ErrBadEscape for a bad "~" escape, and with ErrNotFragment when p is
// neither empty nor starts with "/".
func (p Pointer) Tokens() ([]string, error) {
	if p == "" {
		return nil, nil
	}
	if p[0] != '/' {
		return nil, ErrNotFragment
	}
	toks := strings.Split(string(p[1:]), "/")
	for i, t := range toks {
		u, ok := UnescapeToken(t)
		if !ok {
			return nil, ErrBadEscape
		}
		toks[i] = u
	}
	return toks, nil
}

// ParseFragment returns the pointer of the URI fragment of a local
// reference ("#/$defs/a%20b" is "/$defs/a b", "#" is ""), in canonical form.
// The fragment is percent-decoded first, then split into reference tokens,
// and each token is unescaped (RFC 6901, section 6): "#/%7E1" names the
// member "/", and "#/a%2Fb" the member "b" of the member "a". It fails with
// ErrNotFragment or ErrBadEscape.
func ParseFragment(ref string) (Pointer, error) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return "", ErrNotFragment
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return "", ErrBadEscape
	}
	toks, err := Pointer(frag).Tokens()
	if err != nil {
		return "", err
	}
	return Pointer("").Append(toks...), nil
}

// LocalPointer is ParseFragment for callers that keep pointers as strings:
// it returns the canonical pointer of a local reference, or false when ref
// is not a JSON Pointer fragment.
func LocalPointer(ref string) (string, bool) {
	p, err := ParseFragment(ref)
	return string(p), err == nil
}

// Fragment returns p as a URI fragment: "#", then each reference token
// escaped (as it is in p) and percent-encoded as a URL path segment is
// ("/$defs/a b" is "#/$defs/a%20b"). ParseFragment reads it back.
func (p Pointer) Fragment() string {
	if p == "" {
		return "#"
	}
	toks := strings.Split(string(p[1:]), "/")
	for i, t := range toks {
		toks[i] = url.PathEscape(t)
	}
	return "#/" + strings.Join(toks, "/")
}

// CanonicalFragment returns the canonical form of the local reference ref:
// the fragment Fragment writes for the pointer ParseFragment reads in ref
// ("#/$defs/%7E1" is "#/$defs/~1", "#/$defs/a%2Fb" is "#/$defs/a/b",
// "#/$defs/é" is "#/$defs/%C3%A9"). When ref is canonical already it is
// returned as it is, without allocating. It fails as ParseFragment does.
//
// A canonical fragment is "#", or "#" followed, for each reference token,
// by "/" and the token with "~" written "~0" and "/" written "~1", then
// every byte other than an ASCII letter or digit or one of "-._~$&+=:@"
// written "%" and two upper-case hexadecimal digits. In it, "%" only starts
// a percent escape, no percent escape stands for "~" or "/", and every "~"
// starts "~0" or "~1". That makes it read the same however a reader orders
// the steps of RFC 6901, section 6: percent-decoding first, then splitting
// and unescaping "~0" and "~1" (this file, constrain), or splitting, then
// unescaping "~1" and "~0" in each token, then percent-decoding it
// (jsonschema/v5, for a location it does not know as a subschema). And
// net/url, which parses a reference before jsonschema/v5 reads it, passes
// it on as it is: it holds no byte that net/url does not keep in a fragment
// as written (controls, space, non-ASCII, `"#<>\^{|}` and the backquote;
// when a fragment holds one, net/url writes the whole fragment anew from
// its percent-decoded text) and no percent escape it refuses.
// Beyond what the readings need, "!'()*,;?[]" are percent-encoded too, and
// the hexadecimal digits are upper-case: that is url.PathEscape's form, in
// which jsonschema/v5 writes the locations of the subschemas it knows, and
// a reference it finds among them is not read again.
func CanonicalFragment(ref string) (string, error) {
	if isCanonicalFragment(ref) {
		return ref, nil
	}
	p, err := ParseFragment(ref)
	if err != nil {
		return "", err
	}
	return p.Fragment(), nil
}

// isCanonicalFragment reports whether ref is the canonical fragment of a
// pointer (see CanonicalFragment).
func isCanonicalFragment(ref string) bool {
	if ref == "#" {
		return true
	}
	if !strings.HasPrefix(ref, "#/") {
		return false
	}
	for i := 2; i < len(ref); i++ {
		switch c := ref[i]; {
		case c == '/':
		case c == '~':
			if i+1 == len(ref) || (ref[i+1] != '0' && ref[i+1] != '1') {
				return false
			}
			i++
		case c == '%':
			if i+2 >= len(ref) {
				return false
			}
			hi, lo := strings.IndexByte(upperHex, ref[i+1]), strings.IndexByte(upperHex, ref[i+2])
			if hi < 0 || lo < 0 {
				return false
			}
			if b := byte(hi<<4 | lo); b == '/' || pathSafe(b) {
				return false // "/" is written "~1", a safe byte as itself
			}
			i += 2
		case !pathSafe(c):
			return false
		}
	}
	return true
}

const upperHex = "0123456789ABCDEF"

// pathSafe reports whether url.PathEscape leaves the byte c as it is: an
// ASCII letter or digit, or one of "-._~$&+=:@".
func pathSafe(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		strings.IndexByte("-._~$&+=:@", c) >= 0
}

// ArrayIndex returns the array index that the reference token tok names in
// an array of n elements: "0", or digits without a leading zero, below n.
func ArrayIndex(tok string, n int) (int, bool) {
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
	toks, err := Pointer(ptr).Tokens()
	if err != nil {
		return nil, false
	}
	for _, tok := range toks {
		switch v.Kind() {
		case ojson.Object:
			c, ok := v.Get(tok)
			if !ok {
				return nil, false
			}
			v = c
		case ojson.Array:
			i, ok := ArrayIndex(tok, v.Len())
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

// ResolveDecoded is Resolve for a document decoded by Decode.
func ResolveDecoded(v any, ptr Pointer) (any, bool) {
	toks, err := ptr.Tokens()
	if err != nil {
		return nil, false
	}
	for _, tok := range toks {
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[tok]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			i, ok := ArrayIndex(tok, len(x))
			if !ok {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
