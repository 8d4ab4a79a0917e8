package constrain

import (
	"encoding/json"
	"fmt"
	"math/bits"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/jsonschema"
	"github.com/stretchr/testify/require"
)

// FuzzSchemaSoundness generates a schema from the features the compiler
// covers, compiles it (a refusal is fine), and walks its matcher with
// tokens the fuzzer picks among those allowed: one-byte tokens (any byte,
// invalid UTF-8 included), bytes that close JSON, or any token of the mask.
// A walk checks that the mask, IsAllowed and Accept agree; whenever the
// matcher can end, the text so far must be valid UTF-8, valid JSON and
// valid against the schema for the jsonschema package's validator. The
// bytes past the fuzzer's input come from a generator seeded by it, so
// that a short input still walks far. It finds the bug f55a4eb fixed (a
// union of string branches lost the UTF-8 check of a length bound) when
// that fix is undone, and found numbers the project's parser refuses.
//
//	go test -run '^$' -fuzz '^FuzzSchemaSoundness$' -fuzztime 40000x ./constrain
func FuzzSchemaSoundness(f *testing.F) {
	for _, seed := range [][]byte{
		{},
		{9, 3, 1, 5, 0, 2, 7, 3, 0x88, 0, 0x88, 0, 0x88, 0, 0x88, 0, 0x88, 0, 34},
		{9, 3, 2, 4, 4, 1, 1, 0, 1, 0, 0, 2, 1, 99, 1, 0, 98, 1, 0, 34},
		[]byte("\x06\x03\x02\x01\x00\x05\x02\x01\x00\x07\x01\x02abc{\"a\":1}"),
		[]byte("\x0b\x01\x07\x02\x00\x03\x04\x05\x06\x00\x00[1,2]"),
		[]byte("\x0c\x02\x05\x01\x00\x04\x02\x00\x02\x01\x03\x00\x01\x00\xc3\xa9\"}"),
		[]byte("\x0d\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"),
	} {
		f.Add(seed)
	}
	env := newSoundness(f)
	f.Fuzz(func(t *testing.T, data []byte) { env.check(t, data) })
}

// soundness holds what FuzzSchemaSoundness needs across inputs.
type soundness struct {
	enc    *harmony.Encoding
	v      *jsonschema.Validator
	byByte [256]harmony.Token // the one-byte token of each byte
}

func newSoundness(t testing.TB) *soundness {
	enc := testenc.Encoding(t)
	return &soundness{enc: enc, v: jsonschema.New(nil), byByte: oneByteTokens(t, enc)}
}

// check generates a schema from data and walks its matcher.
func (s *soundness) check(t testing.TB, data []byte) {
	enc, v := s.enc, s.v
	in := newFuzzBytes(data)
	schema, err := json.Marshal(genSchema(in, 0))
	require.NoError(t, err)
	budget := &Budget{MaxStates: 1 << 16, MaxBytes: 8 << 20} // a fast refusal beats a slow compile
	g, err := CompileJSONSchema(enc, schema, &Options{Budget: budget, MaxWhitespace: 2})
	if err != nil {
		var se *SchemaError
		require.ErrorAs(t, err, &se, "%s: %T", schema, err)
		return
	}
	format := harmony.ResponseFormat{Name: "f", Schema: schema}
	m := g.NewMatcher()
	mask := make([]uint64, g.MaskWords())
	var text []byte
	bit := func(tok harmony.Token) bool { return mask[tok/64]&(1<<(tok%64)) != 0 }
	for step := 0; step < 40; step++ {
		if m.CanEnd() {
			checkValid(t, v, format, schema, text)
		}
		var tok harmony.Token
		ok := false
		switch mode := in.next(); {
		case mode < 128: // the first allowed one-byte token from a byte: any byte, invalid UTF-8 included
			b := in.next()
			for i := range 256 {
				if tok = s.byByte[b+byte(i)]; m.IsAllowed(tok) {
					ok = true
					break
				}
			}
		case mode < 192: // a byte that ends or continues JSON
			for _, b := range []byte(`"}]0,:1tfn-.e[{a `) {
				if tok = s.byByte[b]; m.IsAllowed(tok) {
					ok = true
					break
				}
			}
		}
		if !ok {
			// The mask: a few tokens checked against IsAllowed, and the
			// k-th allowed token picked.
			m.FillMask(mask)
			for _, tok := range []harmony.Token{s.byByte[in.next()], harmony.Token(in.next16()) % harmony.Token(enc.VocabSize())} {
				require.Equal(t, m.IsAllowed(tok), bit(tok), "%s after %q: token %d: mask and IsAllowed disagree", schema, text, tok)
			}
			if tok, ok = kthToken(mask, int(in.next16())); !ok {
				require.True(t, m.CanEnd(), "%s after %q: an empty mask where the value cannot end", schema, text)
				return
			}
			require.True(t, m.IsAllowed(tok), "%s after %q: token %d in the mask, not allowed", schema, text, tok)
		}
		require.NoError(t, m.Accept(tok), "%s after %q: token %d allowed, refused", schema, text, tok)
		text, _ = enc.AppendBytes(text, []harmony.Token{tok})
	}
	if m.CanEnd() {
		checkValid(t, v, format, schema, text)
	}
}

// checkValid fails t unless text, which the matcher can end, is valid UTF-8,
// JSON, and valid against schema; unless the validator cannot use the
// schema (or the value is too costly for it).
func checkValid(t testing.TB, v *jsonschema.Validator, format harmony.ResponseFormat, schema, text []byte) {
	t.Helper()
	require.True(t, utf8.Valid(text), "%s: accepted %q, not UTF-8", schema, text)
	require.True(t, json.Valid(text), "%s: accepted %q, not JSON", schema, text)
	err := v.ValidateResponse(format, strings.TrimSpace(string(text)))
	var ve *jsonschema.ValidationError
	require.NotErrorAs(t, err, &ve, "%s: accepted %q, which the validator refuses", schema, text)
}

// kthToken returns the k-th token of mask (k modulo their number); false
// for an empty mask.
func kthToken(mask []uint64, k int) (harmony.Token, bool) {
	n := 0
	for _, w := range mask {
		n += bits.OnesCount64(w)
	}
	if n == 0 {
		return 0, false
	}
	k %= n
	for i, w := range mask {
		for ; w != 0; w &= w - 1 {
			if k == 0 {
				return harmony.Token(i*64 + bits.TrailingZeros64(w)), true
			}
			k--
		}
	}
	return 0, false
}

// fuzzBytes hands out the fuzzer's bytes, then a pseudo-random stream
// seeded by them, so that a short input still walks far.
type fuzzBytes struct {
	b     []byte
	state uint64
}

func newFuzzBytes(b []byte) *fuzzBytes {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h = (h ^ uint64(c)) * 1099511628211
	}
	return &fuzzBytes{b: b, state: h | 1}
}

func (f *fuzzBytes) next() byte {
	if len(f.b) == 0 {
		f.state ^= f.state << 13
		f.state ^= f.state >> 7
		f.state ^= f.state << 17
		return byte(f.state >> 32)
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzBytes) next16() uint16 { return uint16(f.next())<<8 | uint16(f.next()) }

// pick returns one of choices.
func pick[T any](f *fuzzBytes, choices ...T) T { return choices[int(f.next())%len(choices)] }

var (
	fuzzStrings  = []string{"", "a", "b", "ab", "é", "\u2028", "😀", "a\"b", "\\", "x\x00y", "2024-02-29", "aaaa"}
	fuzzPatterns = []string{"^a", "b$", "^[a-c]*$", "é", "^.{0,3}$", "[0-9]+", "^(ab|c)*$", "^$", "a.*b", "^[^a]", "\\d{2}", "^\\p{L}+$"}
	fuzzFormats  = []string{"date", "time", "date-time", "uuid", "ipv4", "unknown-format"}
	fuzzNumbers  = []any{json.Number("0"), json.Number("-1"), json.Number("2"), json.Number("1.5"), json.Number("-0.25"), json.Number("10"), json.Number("100"), json.Number("3")}
	fuzzNames    = []string{"a", "b", "c", "é", "a b", "", "x\"y"}
)

// genSchema generates a schema from in, depth levels down from the root.
func genSchema(in *fuzzBytes, depth int) any {
	kind := in.next()
	if depth >= 3 {
		kind %= 8 // leaves only
	}
	kind %= 18
	switch kind % 18 {
	case 16, 17: // a union of strings, one of them with a length
		return map[string]any{pick(in, "anyOf", "oneOf"): []any{
			map[string]any{"type": "string", pick(in, "maxLength", "minLength"): int(in.next() % 4)},
			genSchema(in, depth+1)}}
	case 0:
		return pick[any](in, true, false, map[string]any{})
	case 1:
		return map[string]any{"type": pick(in, "null", "boolean", "integer", "number", "string")}
	case 2:
		return map[string]any{"type": []any{pick[any](in, "null", "string"), pick[any](in, "integer", "boolean", "array")}}
	case 3, 9:
		s := map[string]any{"type": "string"}
		for range in.next() % 4 {
			switch in.next() % 5 {
			case 0:
				s["minLength"] = int(in.next() % 4)
			case 1:
				s["maxLength"] = int(in.next() % 5)
			case 2:
				s["pattern"] = pick(in, fuzzPatterns...)
			case 3:
				s["format"] = pick(in, fuzzFormats...)
			case 4:
				s["enum"] = []any{pick(in, fuzzStrings...), pick(in, fuzzStrings...)}
			}
		}
		return s
	case 4:
		s := map[string]any{"type": pick(in, "integer", "number")}
		for range in.next() % 4 {
			kw := pick(in, "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
			n := pick(in, fuzzNumbers...)
			if kw == "multipleOf" {
				n = json.Number(fmt.Sprint(1 + in.next()%5))
			}
			s[kw] = n
		}
		return s
	case 5:
		return map[string]any{"const": genValue(in, 0)}
	case 6:
		return map[string]any{"enum": []any{genValue(in, 0), genValue(in, 0), pick(in, fuzzNumbers...)}}
	case 7:
		return map[string]any{"type": "string", "maxLength": int(in.next() % 4), "pattern": pick(in, fuzzPatterns...)}
	case 8, 14:
		s := map[string]any{"type": "object"}
		props := map[string]any{}
		var req []any
		for range in.next() % 4 {
			name := pick(in, fuzzNames...)
			props[name] = genSchema(in, depth+1)
			if in.next()%2 == 0 {
				req = append(req, name)
			}
		}
		s["properties"] = props
		if req != nil {
			s["required"] = req
		}
		switch in.next() % 4 {
		case 0:
			s["additionalProperties"] = false
		case 1:
			s["additionalProperties"] = genSchema(in, depth+1)
		}
		if in.next()%4 == 0 {
			s["maxProperties"] = int(in.next() % 3)
		}
		if in.next()%4 == 0 {
			s["minProperties"] = int(in.next() % 2)
		}
		return s
	case 10:
		s := map[string]any{"type": "array", "items": genSchema(in, depth+1)}
		if in.next()%2 == 0 {
			s["prefixItems"] = []any{genSchema(in, depth+1)}
		}
		if k := in.next() % 3; k > 0 {
			s["minItems"] = int(k - 1)
		}
		if k := in.next() % 4; k > 0 {
			s["maxItems"] = int(k)
		}
		return s
	case 11, 12, 13:
		kw := [...]string{"anyOf", "oneOf", "allOf"}[kind-11]
		var subs []any
		for range 2 + in.next()%2 {
			subs = append(subs, genSchema(in, depth+1))
		}
		return map[string]any{kw: subs}
	case 15:
		// A definition, referred to from the root and maybe from itself.
		def := genSchema(in, depth+1)
		if m, ok := def.(map[string]any); ok && in.next()%2 == 0 {
			m["type"] = []any{"array", "null"}
			m["items"] = map[string]any{"$ref": "#/$defs/d"}
			m["maxItems"] = 2
		}
		return map[string]any{"$defs": map[string]any{"d": def}, "$ref": "#/$defs/d"}
	}
	return true
}

// genValue generates a JSON value for const and enum.
func genValue(in *fuzzBytes, depth int) any {
	switch k := in.next() % 7; {
	case k == 0:
		return nil
	case k == 1:
		return in.next()%2 == 0
	case k == 2:
		return pick(in, fuzzNumbers...)
	case k == 3 || depth >= 2:
		return pick(in, fuzzStrings...)
	case k == 4:
		return []any{genValue(in, depth+1), genValue(in, depth+1)}
	default:
		return map[string]any{pick(in, fuzzNames...): genValue(in, depth+1)}
	}
}
