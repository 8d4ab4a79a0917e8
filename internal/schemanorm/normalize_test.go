package schemanorm

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// normalizeTests cover the package's own decisions; the root package's
// schema_test.go has the full table of rules and client schemas.
var normalizeTests = []struct{ name, in, want string }{
	{"untouched", `{"type":"object","properties":{"a":{"type":"string"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`},
	{"recursive", `{"$defs":{"Node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"anyOf":[{"$ref":"#/$defs/Node"},{"type":"null"}]}}}},"type":"object","properties":{"head":{"$ref":"#/$defs/Node"},"x":{"const":1.50}}}`,
		`{"$defs":{"Node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/Node","nullable":true}}}},"type":"object","properties":{"head":{"$ref":"#/$defs/Node"},"x":{"enum":[1.5]}}}`},
	{"allOf", `{"type":"object","allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":["number","null"]}},"required":["b","a"]}]}`,
		`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number","nullable":true}},"required":["a","b"]}`},
	{"refs along rewritten paths", `{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]},"b":{"$ref":"#/properties/a"},"c":{"$ref":"#/properties/a/anyOf/0"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","nullable":true},"b":{"type":"string","nullable":true},"c":{"type":"string"}}}`},
	{"root recursion", `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`, `{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`},
	{"dangling ref freezes its path", `{"type":"object","properties":{"a":{"$ref":"#/$defs/X"}},"allOf":[{"properties":{"b":{}}}]}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/X"}},"allOf":[{"properties":{"b":{}}}]}`},
	{"nested definitions of a kept definition", `{"$defs":{"A":{"$defs":{"B":{"type":"string"},"C":{"type":"null"}},"properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/A/$defs/B"}}}},"$ref":"#/$defs/A"}`,
		`{"$defs":{"A":{"properties":{"a":{"$ref":"#/$defs/A"},"b":{"type":"string"}}}},"$ref":"#/$defs/A"}`},
	{"tuple items", `{"items":[{"const":1},{"anyOf":[{"type":"string"},{"type":"null"}]}],"additionalItems":{"type":["integer","null"]}}`,
		`{"items":[{"enum":[1]},{"type":"string","nullable":true}],"additionalItems":{"type":"integer","nullable":true}}`},
	{"dependencies", `{"dependencies":{"a":["b"],"c":{"properties":{"d":{"const":true}}}}}`, `{"dependencies":{"a":["b"],"c":{"properties":{"d":{"enum":[true]}}}}}`},
	{"non-object root", `[1, 2.50]`, `[1,2.5]`},
}

func TestNormalize(t *testing.T) {
	for _, tc := range normalizeTests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Normalize([]byte(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(got), "Normalize(%s)", tc.in)
			again, err := Normalize(got)
			if assert.NoError(t, err, "not a fixed point") {
				assert.Equal(t, string(got), string(again), "not a fixed point")
			}
		})
	}
}

func TestNormalizeErrors(t *testing.T) {
	_, err := Normalize([]byte(`{"a":`))
	var se *ojson.SyntaxError
	assert.ErrorAs(t, err, &se, "syntax error")

	var b strings.Builder
	b.WriteString(`{"$defs":{`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, `"D%d":{"properties":{"a":{"$ref":"#/$defs/D%d"},"b":{"$ref":"#/$defs/D%d"}}},`, i, i+1, i+1)
	}
	b.WriteString(`"D30":{"description":"leaf"}},"$ref":"#/$defs/D0"}`)
	_, err = Normalize([]byte(b.String()))
	assert.ErrorIs(t, err, ErrTooLarge, "2^30 copies")

	// 126 levels deep as written; the reference's target adds three more.
	deep := `{"$defs":{"A":{"items":{"items":{"items":{}}}}},"not":` + strings.Repeat(`{"not":`, 124) + `{"$ref":"#/$defs/A"}` + strings.Repeat(`}`, 125)
	_, err = ojson.Parse([]byte(deep))
	require.NoError(t, err)
	_, err = Normalize([]byte(deep))
	assert.ErrorIs(t, err, ErrTooDeep, "too deep")
}

func TestLocalPointer(t *testing.T) {
	for ref, want := range map[string]string{
		"#":               "",
		"#/":              "/",
		"#/$defs/A":       "/$defs/A",
		"#/%24defs/a%20b": "/$defs/a b",
		"#/a~1b/c~0d":     "/a~1b/c~0d",
		"#/a%2Fb":         "/a/b", // RFC 6901, section 6: decoded first
	} {
		got, ok := LocalPointer(ref)
		assert.True(t, ok, "LocalPointer(%q) reported not ok", ref)
		assert.Equal(t, want, got, "LocalPointer(%q)", ref)
	}
	for _, ref := range []string{"", "a.json", "a.json#/x", "#anchor", "#/%zz"} {
		got, ok := LocalPointer(ref)
		assert.False(t, ok, "LocalPointer(%q) = %q, true", ref, got)
	}
}

func TestWalkAndResolve(t *testing.T) {
	doc, err := ojson.Parse([]byte(`{"properties":{"a/b":{"items":[{"type":"string"},true]},"c":{"default":{"type":"x"}}},"not":{"anyOf":[{}]},"enum":[{"a":1}]}`))
	require.NoError(t, err)
	var got []string
	Walk(doc, func(ptr string, _ *ojson.Value) { got = append(got, ptr) })
	want := []string{"", "/properties/a~1b", "/properties/a~1b/items/0", "/properties/c", "/not", "/not/anyOf/0"}
	assert.Equal(t, want, got, "Walk visited")
	for ptr, want := range map[string]string{
		"":                         doc.String(),
		"/properties/a~1b/items/1": "true",
		"/properties/c/default":    `{"type":"x"}`,
		"/enum/0/a":                "1",
	} {
		v, ok := Resolve(doc, ptr)
		if assert.True(t, ok, "Resolve(%q) reported not ok", ptr) {
			assert.Equal(t, want, v.String(), "Resolve(%q)", ptr)
		}
	}
	for _, ptr := range []string{"/nope", "/enum/1", "/enum/01", "/enum/-1", "x", "/properties/a/b"} {
		_, ok := Resolve(doc, ptr)
		assert.False(t, ok, "Resolve(%q) succeeded", ptr)
	}
}
