package schemanorm

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/ojson"
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
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("Normalize(%s)\n got %s\nwant %s", tc.in, got, tc.want)
			}
			if again, err := Normalize(got); err != nil || string(again) != string(got) {
				t.Errorf("not a fixed point: %s (%v)", again, err)
			}
		})
	}
}

func TestNormalizeErrors(t *testing.T) {
	_, err := Normalize([]byte(`{"a":`))
	var se *ojson.SyntaxError
	if !errors.As(err, &se) {
		t.Errorf("syntax error: %v", err)
	}

	var b strings.Builder
	b.WriteString(`{"$defs":{`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, `"D%d":{"properties":{"a":{"$ref":"#/$defs/D%d"},"b":{"$ref":"#/$defs/D%d"}}},`, i, i+1, i+1)
	}
	b.WriteString(`"D30":{"description":"leaf"}},"$ref":"#/$defs/D0"}`)
	if _, err := Normalize([]byte(b.String())); !errors.Is(err, ErrTooLarge) {
		t.Errorf("2^30 copies: %v", err)
	}

	// 126 levels deep as written; the reference's target adds three more.
	deep := `{"$defs":{"A":{"items":{"items":{"items":{}}}}},"not":` + strings.Repeat(`{"not":`, 124) + `{"$ref":"#/$defs/A"}` + strings.Repeat(`}`, 125)
	if _, err := ojson.Parse([]byte(deep)); err != nil {
		t.Fatal(err)
	}
	if _, err := Normalize([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("too deep: %v", err)
	}
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
		if got, ok := LocalPointer(ref); !ok || got != want {
			t.Errorf("LocalPointer(%q) = %q, %v; want %q", ref, got, ok, want)
		}
	}
	for _, ref := range []string{"", "a.json", "a.json#/x", "#anchor", "#/%zz"} {
		if got, ok := LocalPointer(ref); ok {
			t.Errorf("LocalPointer(%q) = %q, true", ref, got)
		}
	}
}

func TestWalkAndResolve(t *testing.T) {
	doc, err := ojson.Parse([]byte(`{"properties":{"a/b":{"items":[{"type":"string"},true]},"c":{"default":{"type":"x"}}},"not":{"anyOf":[{}]},"enum":[{"a":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	Walk(doc, func(ptr string, _ *ojson.Value) { got = append(got, ptr) })
	want := []string{"", "/properties/a~1b", "/properties/a~1b/items/0", "/properties/c", "/not", "/not/anyOf/0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Walk visited %q, want %q", got, want)
	}
	for ptr, want := range map[string]string{
		"":                         doc.String(),
		"/properties/a~1b/items/1": "true",
		"/properties/c/default":    `{"type":"x"}`,
		"/enum/0/a":                "1",
	} {
		v, ok := Resolve(doc, ptr)
		if !ok || v.String() != want {
			t.Errorf("Resolve(%q) = %v, %v; want %s", ptr, v, ok, want)
		}
	}
	for _, ptr := range []string{"/nope", "/enum/1", "/enum/01", "/enum/-1", "x", "/properties/a/b"} {
		if _, ok := Resolve(doc, ptr); ok {
			t.Errorf("Resolve(%q) succeeded", ptr)
		}
	}
}
