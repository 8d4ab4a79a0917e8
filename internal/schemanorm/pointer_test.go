package schemanorm

import (
	"encoding/json"
	"testing"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/testsupport/pointers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPointerTable checks the table of internal/testsupport/pointers against
// ParseFragment with Resolve and ResolveDecoded, and against what Normalize
// inlines.
func TestPointerTable(t *testing.T) {
	tab := pointers.Load(t)
	for _, r := range tab.Refs {
		schema := tab.Schema(t, r.Ref)
		doc, err := ojson.Parse(schema)
		require.NoError(t, err)
		dec, err := Decode(schema)
		require.NoError(t, err)

		var got *string
		if p, err := ParseFragment(r.Ref); err == nil {
			v, ok := Resolve(doc, string(p))
			d, okDec := ResolveDecoded(dec, p)
			assert.Equal(t, ok, okDec, r.Ref)
			if ok {
				s, _ := v.Get("const")
				name, _ := s.AsString()
				got = &name
				assert.Equal(t, map[string]any{"const": name}, d, r.Ref)
			}
		}
		assert.Equal(t, r.Names, got, r.Ref)

		out, err := Normalize(schema)
		require.NoError(t, err, r.Ref)
		var norm map[string]any
		require.NoError(t, json.Unmarshal(out, &norm), r.Ref)
		if r.Names != nil {
			assert.Equal(t, []any{*r.Names}, norm["enum"], "%s: %s", r.Ref, out)
			assert.NotContains(t, norm, "$ref", r.Ref)
		} else {
			assert.Equal(t, r.Ref, norm["$ref"], "%s: %s", r.Ref, out)
		}
	}
}

func TestTokenEscapes(t *testing.T) {
	for text, tok := range map[string]string{
		"":       "",
		"a":      "a",
		"a/b":    "a~1b",
		"m~n":    "m~0n",
		"~1":     "~01",
		"/~":     "~1~0",
		"~~//":   "~0~0~1~1",
		"é%20":   "é%20",
		"$defs":  "$defs",
		"x~0/y~": "x~00~1y~0",
	} {
		assert.Equal(t, tok, EscapeToken(text), text)
		u, ok := UnescapeToken(tok)
		assert.True(t, ok, tok)
		assert.Equal(t, text, u, tok)
	}
	for _, bad := range []string{"~", "a~", "~2", "a~2b", "~~0", "~/"} {
		_, ok := UnescapeToken(bad)
		assert.False(t, ok, bad)
	}
}

func TestParseFragment(t *testing.T) {
	for ref, want := range map[string]Pointer{
		"#":              "",
		"#/":             "/",
		"#/%7E1":         "/~1", // decoded first: the token "~1", the member "/"
		"#/%7E01":        "/~01",
		"#/a%2Fb":        "/a/b",
		"#/c%25d":        "/c%d",
		"#/%C3%A9":       "/é",
		"#/a%20b/0":      "/a b/0",
		"#/%24defs/a~1b": "/$defs/a~1b",
	} {
		p, err := ParseFragment(ref)
		require.NoError(t, err, ref)
		assert.Equal(t, want, p, ref)
		back, err := ParseFragment(p.Fragment())
		require.NoError(t, err, ref)
		assert.Equal(t, p, back, "%s: %s", ref, p.Fragment())
	}
	for ref, want := range map[string]error{
		"":        ErrNotFragment,
		"/a":      ErrNotFragment,
		"a.json#": ErrNotFragment,
		"#anchor": ErrNotFragment,
		"#/a~2":   ErrBadEscape,
		"#/%7E2":  ErrBadEscape,
		"#/a~":    ErrBadEscape,
		"#/%zz":   ErrBadEscape,
		"#/a%":    ErrBadEscape,
		"#/a%2":   ErrBadEscape,
	} {
		_, err := ParseFragment(ref)
		assert.ErrorIs(t, err, want, ref)
	}
	assert.Equal(t, "#", Pointer("").Fragment())
	assert.Equal(t, "#/$defs/a~1b/a%20b/0", Pointer("/$defs/a~1b/a b/0").Fragment())
	assert.Equal(t, Pointer("/$defs/a~1b/m~0n/3"), Pointer("").Append("$defs", "a/b", "m~n").AppendIndex(3))
}

func TestArrayIndex(t *testing.T) {
	for tok, want := range map[string]int{"0": 0, "1": 1, "9": 9} {
		i, ok := ArrayIndex(tok, 10)
		assert.True(t, ok, tok)
		assert.Equal(t, want, i, tok)
	}
	for _, tok := range []string{"", "01", "+1", "-1", "10", "1e0", " 1", "-"} {
		_, ok := ArrayIndex(tok, 10)
		assert.False(t, ok, tok)
	}
}

// TestWalkDecoded checks that the walk of a decoded document visits the
// positions Walk visits on its parse, keys sorted, with the same pointers,
// and that it stops when told to.
func TestWalkDecoded(t *testing.T) {
	src := []byte(`{"properties":{"b":{"items":[{"type":"string"},true]},"a/b":{"default":{"type":"x"}}},"not":{"anyOf":[{}]},"enum":[{"a":1}],"allOf":5}`)
	doc, err := ojson.Parse(src)
	require.NoError(t, err)
	dec, err := Decode(src)
	require.NoError(t, err)
	var objects []string
	Walk(doc, func(ptr string, _ *ojson.Value) { objects = append(objects, ptr) })
	assert.Equal(t, []string{"", "/properties/b", "/properties/b/items/0", "/properties/a~1b", "/not", "/not/anyOf/0"}, objects)

	var all []Pointer
	assert.True(t, WalkDecoded(dec, func(p Pointer, _ any) bool { all = append(all, p); return true }))
	assert.Equal(t, []Pointer{"", "/allOf", "/not", "/not/anyOf/0", "/properties/a~1b", "/properties/b", "/properties/b/items/0", "/properties/b/items/1"}, all)

	n := 0
	assert.False(t, WalkDecoded(dec, func(Pointer, any) bool { n++; return n < 3 }))
	assert.Equal(t, 3, n)
}

func TestDecode(t *testing.T) {
	v, err := Decode([]byte(" {\"a\":[1.50,1e400,18446744073709551617]} \r\n\t"))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": []any{json.Number("1.50"), json.Number("1e400"), json.Number("18446744073709551617")}}, v)
	for _, s := range []string{`{} {}`, `{}]`, `{}}`, `1 2`, `{} x`, "{}\v"} {
		_, err := Decode([]byte(s))
		assert.ErrorIs(t, err, ErrTrailingData, s)
	}
	for _, s := range []string{``, `{`, `{"a":}`} {
		_, err := Decode([]byte(s))
		assert.Error(t, err, s)
		assert.NotErrorIs(t, err, ErrTrailingData, s)
	}
}

// TestDecoded checks that converting an ojson parse kept with its number
// literals gives what Decode gives.
func TestDecoded(t *testing.T) {
	for _, s := range []string{
		`{"a":[1.50,-0,0.1e1,1E2,18446744073709551617,0.30000000000000000001],"b":{"c":null,"d":true,"e":"\u00e9\ud83d\ude00"},"a":{"dup":1}}`,
		`true`, `"x"`, `[]`, `{}`, `-12`,
	} {
		doc, err := ojson.ParseOptions{KeepNumberText: true}.Parse([]byte(s))
		require.NoError(t, err, s)
		want, err := Decode([]byte(s))
		require.NoError(t, err, s)
		assert.Equal(t, want, Decoded(doc), s)
	}
}

func TestNoParameters(t *testing.T) {
	for _, p := range []string{"", "  ", "null", " null\n"} {
		assert.True(t, NoParameters(json.RawMessage(p)), p)
	}
	for _, p := range []string{"{}", `{"type":"object"}`, "nul", "[]"} {
		assert.False(t, NoParameters(json.RawMessage(p)), p)
	}
}
