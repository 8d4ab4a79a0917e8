package constrain

import (
	"strings"
	"sync"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feed runs text through a fresh matcher of g token by token, checking
// that each token's mask bit agrees with Accept. It returns the index of the
// first refused token (-1 if none) and whether the end is accepted.
func feed(t testing.TB, g *Grammar, text string, checkMask bool) (int, bool) {
	t.Helper()
	enc := testenc.Encoding(t)
	toks := enc.EncodeOrdinary(text)
	m := g.NewMatcher()
	mask := make([]uint64, g.MaskWords())
	for i, tok := range toks {
		allowed := m.IsAllowed(tok)
		if checkMask {
			m.FillMask(mask)
			inMask := mask[tok/64]&(1<<(tok%64)) != 0
			if inMask != allowed { // the token's text is written only then
				require.Fail(t, "the mask and IsAllowed disagree", "%q: token %d (%q): mask says %v, Accept says %v", text, i, tokText(enc, uint32(tok)), inMask, allowed)
			}
		}
		if err := m.Accept(tok); err != nil {
			require.False(t, allowed, "IsAllowed and Accept disagree")
			require.ErrorIs(t, err, ErrTokenNotAllowed)
			return i, false
		}
	}
	return -1, m.CanEnd()
}

func tokText(enc *harmony.Encoding, tok uint32) string {
	b, _ := enc.AppendBytes(nil, []harmony.Token{harmony.Token(tok)})
	return string(b)
}

func compile(t testing.TB, schema string, opts *Options) *Grammar {
	t.Helper()
	g, err := CompileJSONSchema(testenc.Encoding(t), []byte(schema), opts)
	require.NoError(t, err, "compile %s", schema)
	return g
}

func TestAcceptReject(t *testing.T) {
	tests := []struct {
		schema string
		good   []string
		bad    []string
	}{
		{`{}`, []string{`1`, `{"a":[1,2,{"b":null}]}`, `"x\u00e9\ud83d\ude00"`, ` true `, `-0.5e+10`},
			[]string{`{`, `[1,]`, `01`, `"\ud800"`, `tru`, `{"a" 1}`, `"a` + "\x01" + `"`}},
		{`{"type":"integer","minimum":3,"maximum":120}`, []string{`3`, `99`, `120`, `100`},
			[]string{`2`, `121`, `1000`, `-5`, `3.5`, `"3"`}},
		{`{"type":"number","exclusiveMinimum":0,"maximum":1.5}`, []string{`0.1`, `1.5`, `1`, `1.49`},
			[]string{`0`, `-0.0`, `1.51`, `2`}},
		{`{"type":"string","enum":["red","green","é"]}`, []string{`"red"`, `"gr\u0065en"`, `"\u00e9"`, `"é"`},
			[]string{`"re"`, `"blue"`, `"redd"`}},
		{`{"type":"string","pattern":"^[a-z]+[0-9]$"}`, []string{`"abc1"`}, []string{`"1"`, `"abc"`, `"ABC1"`}},
		{`{"type":"string","pattern":"[0-9]"}`, []string{`"ab1cd"`, `"9"`}, []string{`"abc"`}},
		{`{"type":"string","minLength":2,"maxLength":3}`, []string{`"ab"`, `"abc"`, `"é😀"`}, []string{`"a"`, `"abcd"`}},
		{`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string"}},"required":["a"],"additionalProperties":false}`,
			[]string{`{"a":1}`, `{"b":"x","a":2}`, `{ "a" : 1 , "b" : "" }`}, []string{`{}`, `{"b":"x"}`, `{"a":1,"c":2}`, `{"a":1,"a":2}`, `{"a":"1"}`}},
		{`{"type":"object","additionalProperties":{"type":"boolean"}}`, []string{`{"x":true,"y":false}`, `{}`}, []string{`{"x":1}`}},
		{`{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}`, []string{`["a",1]`, `["a"]`, `[]`}, []string{`["a",1,2]`, `[1]`}},
		{`{"type":"array","items":{"type":"integer"},"minItems":2,"maxItems":3}`, []string{`[1,2]`, `[1,2,3]`}, []string{`[1]`, `[1,2,3,4]`}},
		{`{"anyOf":[{"type":"object","properties":{"k":{"const":"a"},"x":{"type":"integer"}},"required":["k","x"]},{"type":"object","properties":{"k":{"const":"b"},"y":{"type":"string"}},"required":["k","y"]}]}`,
			[]string{`{"k":"a","x":1}`, `{"x":1,"k":"a"}`, `{"k":"b","y":"s"}`}, []string{`{"k":"a","y":"s"}`, `{"k":"c"}`}},
		{`{"$defs":{"t":{"type":"object","properties":{"c":{"type":"array","items":{"$ref":"#/$defs/t"}}},"additionalProperties":false}},"$ref":"#/$defs/t"}`,
			[]string{`{"c":[{"c":[]},{}]}`, `{}`}, []string{`{"c":[{"d":1}]}`}},
		{`{"type":"string","format":"date"}`, []string{`"2024-02-29"`, `"2023-12-31"`}, []string{`"2023-02-29"`, `"2023-13-01"`}},
		{`{"type":"string","format":"date-time"}`, []string{`"2024-02-29T12:00:00Z"`, `"2024-02-29T12:00:00.5+01:00"`}, []string{`"2024-02-29 12:00:00Z"`}},
		{`{"type":["string","null"],"maxLength":2}`, []string{`null`, `"ab"`}, []string{`"abc"`, `1`}},
		{`{"const":{"a":[1,"x"]}}`, []string{`{"a":[1,"x"]}`, `{"a":[1.0,"x"]}`}, []string{`{"a":[1]}`, `{"a":[1,"x"],"b":1}`}},
		{`{"type":"integer","multipleOf":3}`, []string{`9`, `-12`, `0`}, []string{`10`}},
	}
	for _, tc := range tests {
		g := compile(t, tc.schema, nil)
		for _, s := range tc.good {
			at, end := feed(t, g, s, true)
			assert.True(t, at < 0 && end, "%s: %q refused at token %d (end %v)", tc.schema, s, at, end)
		}
		for _, s := range tc.bad {
			at, end := feed(t, g, s, true)
			assert.False(t, at < 0 && end, "%s: %q accepted", tc.schema, s)
		}
	}
}

func TestRefused(t *testing.T) {
	for _, s := range []string{
		`{"not":{"type":"string"}}`,
		`{"type":"string","format":"email"}`,
		`{"oneOf":[{"type":"string"},{"type":"string","maxLength":3}]}`,
		`{"$ref":"other.json#/a"}`,
		`{"type":"array","uniqueItems":true}`,
		`{"type":"string","pattern":"\\bword\\b"}`,
	} {
		_, err := CompileJSONSchema(testenc.Encoding(t), []byte(s), nil)
		var se *SchemaError
		assert.ErrorAs(t, err, &se, s)
	}
}

func TestWhitespace(t *testing.T) {
	schema := `{"type":"object","properties":{"a":{"type":"array"}}}`
	compact := compile(t, schema, &Options{Compact: true})
	two := compile(t, schema, &Options{MaxWhitespace: 2})
	for _, tc := range []struct {
		g    *Grammar
		text string
		ok   bool
	}{
		{compact, `{"a":[1,2]}`, true},
		{compact, `{"a": [1,2]}`, false},
		{compact, `{"a":[1,2]} `, false},
		{two, `{ "a" :  [ 1 ,2 ] }  `, true},
		{two, `{"a":   [1]}`, false},
		{two, "{\"a\":\n\t[1]}", true},
	} {
		at, end := feed(t, tc.g, tc.text, true)
		assert.Equal(t, tc.ok, at < 0 && end, "%q accepted", tc.text)
	}
}

// TestEscapes checks that string constraints apply to decoded text,
// whichever way each character is written.
func TestEscapes(t *testing.T) {
	g := compile(t, `{"type":"object","properties":{"k":{"enum":["a\"b","é","😀","\n"]}},"additionalProperties":false}`, nil)
	for _, s := range []string{`{"k":"a\"b"}`, `{"k":"a\u0022b"}`, `{"\u006b":"\u00E9"}`, `{"k":"\ud83d\ude00"}`, `{"k":"\n"}`, `{"k":"\u000a"}`} {
		at, end := feed(t, g, s, true)
		assert.True(t, at < 0 && end, "%q refused at %d", s, at)
	}
	for _, s := range []string{`{"k":"a\"c"}`, `{"k":"\ud83d"}`, `{"k":"\ude00"}`, `{"k":"\u00e8"}`, `{"j":"\n"}`} {
		at, end := feed(t, g, s, true)
		assert.False(t, at < 0 && end, "%q accepted", s)
	}
}

// TestSpecialTokensNeverAllowed checks the mask of a fresh matcher.
func TestSpecialTokensNeverAllowed(t *testing.T) {
	g := compile(t, `{}`, nil)
	mask := make([]uint64, g.MaskWords())
	g.NewMatcher().FillMask(mask)
	for tok := harmony.FirstSpecialToken; tok <= harmony.LastSpecialToken; tok++ {
		require.Zero(t, mask[tok/64]&(1<<(tok%64)), "special token %d allowed", tok)
	}
	require.ErrorIs(t, g.NewMatcher().Accept(harmony.TokenCall), ErrTokenNotAllowed, "Accept(<|call|>)")
}

func TestRefCycles(t *testing.T) {
	for _, s := range []string{`{"$ref":"#"}`, `{"$ref":""}`, `{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`} {
		_, err := CompileJSONSchema(testenc.Encoding(t), []byte(s), nil)
		assert.ErrorIs(t, err, ErrInvalidSchema, s)
	}
}

// TestConcurrentMatchers shares one Grammar between goroutines (run with
// -race).
func TestConcurrentMatchers(t *testing.T) {
	g := compile(t, `{"type":"object","properties":{"s":{"type":"string","pattern":"x"},"n":{"type":"integer"}}}`, nil)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at, end := feed(t, g, `{"s":"abxcd","n":12}`, true)
			assert.True(t, at < 0 && end, "refused at %d", at)
		}()
	}
	wg.Wait()
}

// TestUnionKeepsUTF8AndLength: a union of string branches, one with a
// length bound, must keep both the bound and UTF-8 validity. The length
// counter counts lead bytes and accepts any bytes alone; product's
// shortcut for the universal automaton once returned it uncrossed, so
// that five continuation bytes passed as a string of no characters.
func TestUnionKeepsUTF8AndLength(t *testing.T) {
	enc := testenc.Encoding(t)
	for _, tc := range []struct {
		schema string
		good   []string // instances it takes
	}{
		{`{"anyOf":[{"type":"string","maxLength":3},{"const":"x"}]}`, []string{`"x"`, `"abc"`}},
		{`{"anyOf":[{"type":"string","maxLength":3},{"enum":["x","y"]}]}`, []string{`"x"`, `"abc"`}},
		{`{"anyOf":[{"type":"string","maxLength":3},{"type":"string","maxLength":5}]}`, []string{`"x"`, `"abc"`}},
		{`{"type":"string","maxLength":3,"pattern":"^a"}`, []string{`"abc"`, `"a"`}},
		{`{"type":"string","minLength":1,"format":"date"}`, []string{`"2024-01-31"`}},
	} {
		schema := tc.schema
		g := compile(t, schema, nil)
		for _, bad := range []string{"\"\x88\x88\x88\x88\x88\"", "\"\xff\"", "\"a\xc3\"", "\"aaaaaaa\""} {
			m := g.NewMatcher()
			err := m.AcceptBytes([]byte(bad))
			assert.False(t, err == nil && m.CanEnd(), "%s: AcceptBytes(%q) accepted and can end", schema, bad)
			// Token by token, through the mask.
			m.Reset()
			mask := make([]uint64, g.MaskWords())
			ended := true
			for _, tok := range byteTokens(t, enc, bad) {
				m.FillMask(mask)
				if mask[tok/64]&(1<<(tok%64)) == 0 {
					ended = false
					break
				}
				require.NoError(t, m.Accept(tok), "%s: Accept(%d) of a masked token", schema, tok)
			}
			assert.False(t, ended && m.CanEnd(), "%s: the mask let %q through to the end", schema, bad)
		}
		for _, good := range tc.good {
			m := g.NewMatcher()
			if assert.NoError(t, m.AcceptBytes([]byte(good)), "%s: %s refused", schema, good) {
				assert.True(t, m.CanEnd(), "%s: %s refused: cannot end", schema, good)
			}
		}
	}
}

// byteTokens spells text with the vocabulary's one-byte tokens, which can
// write any byte, valid UTF-8 or not (EncodeOrdinary would write U+FFFD
// for an invalid byte).
func byteTokens(t *testing.T, enc *harmony.Encoding, text string) []harmony.Token {
	t.Helper()
	byByte := oneByteTokens(t, enc)
	var out []harmony.Token
	for i := 0; i < len(text); i++ {
		out = append(out, byByte[text[i]])
	}
	return out
}

// oneByteTokens returns a token of each byte, one whose text is that byte
// alone.
func oneByteTokens(t testing.TB, enc *harmony.Encoding) [256]harmony.Token {
	t.Helper()
	var byByte [256]harmony.Token
	found := 0
	for r := harmony.Token(0); r < 2000 && found < 256; r++ {
		if b, err := enc.AppendBytes(nil, []harmony.Token{r}); err == nil && len(b) == 1 && byByte[b[0]] == 0 {
			byByte[b[0]] = r
			found++
		}
	}
	require.Equal(t, 256, found, "one-byte tokens")
	return byByte
}

// TestCompileDeterministic: the outcome of a compile does not depend on map
// order. B refers to A and A to B through an anyOf: compiled from A first,
// B is complete when the anyOf meets it; from B first, the anyOf meets B
// still being compiled, a recursive reference it cannot intersect. The
// properties are compiled in name order, so "a" (A) comes first.
func TestCompileDeterministic(t *testing.T) {
	const schema = `{"$defs":{
		"A":{"type":"object","properties":{"x":{"anyOf":[{"$ref":"#/$defs/B"},{"type":"null"}]}}},
		"B":{"type":"object","properties":{"y":{"$ref":"#/$defs/A"}}}},
	 "type":"object","properties":{"a":{"$ref":"#/$defs/A"},"b":{"$ref":"#/$defs/B"}}}`
	for i := range 20 {
		_, err := CompileJSONSchema(testenc.Encoding(t), []byte(schema), nil)
		require.NoError(t, err, "compile %d", i)
	}
}

// TestNumbersInRange: numbers are written below 10^308 in magnitude, which
// the project's parser (serde_json's algorithm) reads as finite floats;
// it refuses 1e309, 1.7976931348623158e308 and 123386e1565, which
// FuzzSchemaSoundness found {} accepting. Every number accepted here the
// validator accepts too.
func TestNumbersInRange(t *testing.T) {
	v := jsonschema.New(nil)
	big := "1" + strings.Repeat("0", 307) // 10^307, 308 digits
	for _, schema := range []string{`{}`, `{"type":"number"}`, `{"type":"number","minimum":-1e30}`, `{"type":"number","exclusiveMinimum":0}`} {
		g := compile(t, schema, nil)
		format := harmony.ResponseFormat{Name: "f", Schema: []byte(schema)}
		goods := []string{"0.5", big, big + ".5"}
		if !strings.Contains(schema, "imum") { // bounded numbers are written without exponent
			goods = append(goods, "9.99e307", "1e-400", "1e+0307", "12e306", "0.5e308", "12345678901234567890e288")
		}
		for _, good := range goods {
			_, ok := feed(t, g, good, false)
			assert.True(t, ok, "%s: %.40s refused", schema, good)
			assert.NoError(t, v.ValidateResponse(format, good), "%s: the validator refuses %.40s", schema, good)
		}
		for _, bad := range []string{"1e309", "-1e309", "1e308", "1.7976931348623158e308", "123386e1565", big + "0", "1e2147483648", "12e307"} {
			_, ok := feed(t, g, bad, false)
			assert.False(t, ok, "%s: %.40s accepted", schema, bad)
		}
	}
	integer := compile(t, `{"type":"integer"}`, nil)
	_, ok := feed(t, integer, big, false)
	assert.True(t, ok, "integer: 10^307 refused")
	_, ok = feed(t, integer, big+"0", false)
	assert.False(t, ok, "integer: 10^308 accepted")
	for _, schema := range []string{`{"enum":[1e400]}`, `{"const":-1e308}`} {
		_, err := CompileJSONSchema(testenc.Encoding(t), []byte(schema), nil)
		assert.ErrorIs(t, err, ErrEmpty, "%s: no number in range", schema)
	}
}
