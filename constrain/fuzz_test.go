package constrain

import (
	"encoding/json"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/require"
)

// FuzzAnyJSON checks, for the schema {} (every JSON value), that the
// matcher accepts exactly what encoding/json calls valid JSON, modulo the
// whitespace bound and lone surrogates (which it refuses), and that byte by
// byte equals all at once.
func FuzzAnyJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e-3,"x\u00e9"]}`, `[]`, `"\ud83d\ude00"`, `-0`, `{"a":{"b":null}}`, `01`, `[1,]`, `"\x"`} {
		f.Add(s)
	}
	g := compile(f, `{}`, nil)
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 {
			return
		}
		m := g.NewMatcher()
		whole := m.AcceptBytes([]byte(s)) == nil && m.CanEnd()
		m.Reset()
		bytewise := true
		for i := 0; i < len(s) && bytewise; i++ {
			bytewise = m.AcceptBytes([]byte{s[i]}) == nil
		}
		bytewise = bytewise && m.CanEnd()
		require.Equal(t, whole, bytewise, "%q: accepted whole, byte by byte", s)
		if whole {
			require.True(t, json.Valid([]byte(s)), "%q accepted but not JSON", s)
		}
	})
}

// FuzzCompile checks that no schema makes the compiler or a matcher panic,
// and that what a matcher accepts is JSON.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"integer","minimum":-3,"exclusiveMaximum":1e2}},"required":["a","b"]}`,
		`{"anyOf":[{"$ref":"#"},{"type":"array","items":{"$ref":"#/anyOf/0"}}]}`,
		`{"type":"string","pattern":"^(a|b{2,3})*$","maxLength":5}`,
		`{"enum":[1,"a",null,{"x":[true]}]}`, `{"minItems":-1}`, `{"maxLength":1e400}`, `{"$ref":"#/x/~2"}`,
		`{"allOf":[{"type":"object","additionalProperties":false},{"required":["x"]}]}`, `{"oneOf":[{"type":"string"},{"type":"null"}]}`, `{"$ref":"#"}`, `{"$ref":"\"/"}`,
	} {
		f.Add(s, `{"a":1}`)
	}
	enc := testenc.Encoding(f)
	f.Fuzz(func(t *testing.T, schema, text string) {
		if len(schema) > 400 || len(text) > 100 {
			return
		}
		g, err := CompileJSONSchema(enc, []byte(schema), nil)
		if err != nil {
			return
		}
		m := g.NewMatcher()
		if m.AcceptBytes([]byte(text)) == nil && m.CanEnd() {
			require.True(t, json.Valid([]byte(text)), "%s: %q accepted but not JSON", schema, text)
		}
	})
}
