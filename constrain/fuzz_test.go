package constrain

import (
	"encoding/json"
	"testing"
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
		if whole != bytewise {
			t.Fatalf("%q: whole %v, byte by byte %v", s, whole, bytewise)
		}
		if whole && !json.Valid([]byte(s)) {
			t.Fatalf("%q accepted but not JSON", s)
		}
	})
}
