package schemanorm

import (
	"net/url"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/pointers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPathSafe checks pathSafe against url.PathEscape, byte by byte.
func TestPathSafe(t *testing.T) {
	for c := 0; c < 256; c++ {
		s := string([]byte{byte(c)})
		assert.Equal(t, url.PathEscape(s) == s, pathSafe(byte(c)), "%q", s)
	}
}

func TestCanonicalFragment(t *testing.T) {
	for ref, want := range map[string]string{
		"#":              "#",
		"#/":             "#/",
		"#/$defs/a":      "#/$defs/a",
		"#/%7E1":         "#/~1",
		"#/%7e1":         "#/~1",
		"#/~%31":         "#/~1",
		"#/%7E0":         "#/~0",
		"#/~01":          "#/~01",
		"#/a%2Fb":        "#/a/b",
		"#/%24defs/a~1b": "#/$defs/a~1b",
		"#/c%25d":        "#/c%25d",
		"#/é":            "#/%C3%A9",
		"#/%c3%a9":       "#/%C3%A9",
		"#/a b":          "#/a%20b",
		"#/a%20b":        "#/a%20b",
		"#/%41":          "#/A",
		"#/a(b)":         "#/a%28b%29",
		"#/a\\b":         "#/a%5Cb",
		"#/a\tb":         "#/a%09b",
		"#/a#b":          "#/a%23b",
		"#/%FF":          "#/%FF",
		"#/allOf/01":     "#/allOf/01",
		"#%2Fa":          "#/a",
	} {
		got, err := CanonicalFragment(ref)
		require.NoError(t, err, ref)
		assert.Equal(t, want, got, ref)
		assert.Equal(t, got == ref, isCanonicalFragment(ref), ref)
		assert.True(t, isCanonicalFragment(got), ref)
	}
	for ref, want := range map[string]error{
		"":         ErrNotFragment,
		"a.json#":  ErrNotFragment,
		"#anchor":  ErrNotFragment,
		"#/x~2":    ErrBadEscape,
		"#/%7E2":   ErrBadEscape,
		"#/~":      ErrBadEscape,
		"#/%zz":    ErrBadEscape,
		"#/a%":     ErrBadEscape,
		"#/a%2":    ErrBadEscape,
		"#/a~1~%2": ErrBadEscape,
	} {
		_, err := CanonicalFragment(ref)
		assert.ErrorIs(t, err, want, ref)
	}
}

// TestCanonicalFragmentNoAlloc: a canonical reference costs no allocation.
func TestCanonicalFragmentNoAlloc(t *testing.T) {
	for _, ref := range []string{"#", "#/$defs/Address", "#/properties/a%20b/items/0", "#/$defs/a~1b~0c%25%C3%A9"} {
		var got string
		allocs := testing.AllocsPerRun(100, func() { got, _ = CanonicalFragment(ref) })
		assert.Zero(t, allocs, ref)
		assert.Equal(t, ref, got)
	}
}

// libraryTokens reads a fragment as jsonschema/v5 reads a location it does
// not know as a subschema ((*resource).resolveFragment): split at "/", then
// "~1" and "~0" replaced in each token, then the token percent-decoded.
func libraryTokens(frag string) ([]string, bool) {
	rest, ok := strings.CutPrefix(frag, "#/")
	if !ok {
		return nil, frag == "#"
	}
	toks := strings.Split(rest, "/")
	for i, tok := range toks {
		tok = strings.ReplaceAll(tok, "~1", "/")
		tok = strings.ReplaceAll(tok, "~0", "~")
		u, err := url.PathUnescape(tok)
		if err != nil {
			return nil, false
		}
		toks[i] = u
	}
	return toks, true
}

// checkCanonical checks what CanonicalFragment makes of ref: the same
// pointer as ref, canonical, read alike by ParseFragment and by the
// library's order of steps, and passed through net/url unchanged.
func checkCanonical(t *testing.T, ref string) {
	p, perr := ParseFragment(ref)
	c, err := CanonicalFragment(ref)
	if perr != nil {
		require.ErrorIs(t, err, perr, "%q", ref)
		return
	}
	require.NoError(t, err, "%q", ref)
	assert.Equal(t, c == ref, isCanonicalFragment(ref), "%q", ref)
	assert.True(t, isCanonicalFragment(c), "%q: %q", ref, c)
	assert.Equal(t, p.Fragment(), c, "%q", ref)
	back, err := ParseFragment(c)
	require.NoError(t, err, "%q: %q", ref, c)
	assert.Equal(t, p, back, "%q: %q", ref, c)

	want, err := p.Tokens()
	require.NoError(t, err)
	lib, ok := libraryTokens(c)
	require.True(t, ok, "%q: %q", ref, c)
	assert.Equal(t, want, lib, "%q: %q", ref, c)

	u, err := url.Parse(c)
	require.NoError(t, err, "%q: %q", ref, c)
	assert.Equal(t, c, "#"+u.EscapedFragment(), "%q", ref)
}

// TestCanonicalPointerTable checks every reference of the shared table.
func TestCanonicalPointerTable(t *testing.T) {
	for _, r := range pointers.Load(t).Refs {
		checkCanonical(t, r.Ref)
	}
}

func FuzzCanonicalFragment(f *testing.F) {
	for _, r := range []string{"#", "#/", "#/%7E1", "#/~%31", "#/a%2Fb", "#/é", "#/a b", "#/%c3%a9", "#/a(b)", "#/x~2", "#/%zz", "#/%41~0%25"} {
		f.Add(r)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		checkCanonical(t, ref)
	})
}
