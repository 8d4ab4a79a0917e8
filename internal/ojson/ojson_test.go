package ojson

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// numberTests pins how serde_json 1.0.140 (preserve_order, no
// float_roundtrip) stores and prints number literals. Every expectation
// was checked against that library.
var numberTests = []struct {
	in   string
	kind NumberKind
	out  string // compact output; "" with kind NotNumber means an error
}{
	{"0", Uint, "0"},
	{"-0", Float, "-0.0"},
	{"-0.0", Float, "-0.0"},
	{"0.0", Float, "0.0"},
	{"1", Uint, "1"},
	{"-1", Int, "-1"},
	{"1.0", Float, "1.0"},
	{"0.1", Float, "0.1"},
	{"1e-5", Float, "0.00001"},
	{"1e-6", Float, "1e-6"},
	{"0.0001234", Float, "0.0001234"},
	{"0.00001234", Float, "0.00001234"},
	{"0.000001234", Float, "1.234e-6"},
	{"123456.789", Float, "123456.789"},
	{"1E2", Float, "100.0"},
	{"1e+2", Float, "100.0"},
	{"1e15", Float, "1000000000000000.0"},
	{"1234567890123456e0", Float, "1234567890123456.0"},
	{"1e16", Float, "1e16"},
	{"12345678901234567e0", Float, "1.2345678901234568e16"},
	{"1.5e16", Float, "1.5e16"},
	{"1e17", Float, "1e17"},
	{"1e21", Float, "1e21"},
	{"1.5e-7", Float, "1.5e-7"},
	{"5e-324", Float, "5e-324"},
	{"4.9e-324", Float, "5e-324"},
	{"2.5e-324", Float, "5e-324"},
	{"2.4e-324", Float, "0.0"},
	{"1e-400", Float, "0.0"},
	{"-1e-400", Float, "-0.0"},
	{"0e99999999999", Float, "0.0"},
	{"1e-99999999999", Float, "0.0"},
	{"2.2250738585072014e-308", Float, "2.2250738585072014e-308"},
	{"1.7976931348623157e308", Float, "1.7976931348623157e308"},
	{"1e308", Float, "1e308"},
	{"3.141592653589793", Float, "3.141592653589793"},
	{"0.30000000000000004", Float, "0.30000000000000004"},
	{"20", Uint, "20"},
	{"-1.5", Float, "-1.5"},
	{"9007199254740993", Uint, "9007199254740993"},
	{"18446744073709551615", Uint, "18446744073709551615"},
	{"18446744073709551616", Float, "1.8446744073709552e19"},
	{"18446744073709551616.5", Float, "1.8446744073709552e19"},
	{"123456789012345678901234567890", Float, "1.2345678901234568e29"},
	{"-9223372036854775807", Int, "-9223372036854775807"},
	{"-9223372036854775808", Int, "-9223372036854775808"},
	{"-9223372036854775809", Float, "-9.223372036854776e18"},
	{"-18446744073709551615", Float, "-1.8446744073709552e19"},
	// Not correctly rounded, exactly like serde_json without
	// float_roundtrip (strconv.ParseFloat gives ...535e-72 and so on).
	{"7.119506504320535e-72", Float, "7.119506504320536e-72"},
	{"5.72296038855686e+237", Float, "5.7229603885568604e237"},
	{"-79109322906291800648911", Float, "-7.910932290629181e22"},
	{"1.1784932747163668e-245", Float, "1.178493274716367e-245"},
	// Out of range: serde_json errors where a correct parser would not.
	{"1e400", NotNumber, ""},
	{"1e99999999999", NotNumber, ""},
	{"1.7976931348623158e308", NotNumber, ""},
	{"0.1e310", NotNumber, ""},
	{"1000e306", NotNumber, ""},
	// Malformed.
	{"01", NotNumber, ""},
	{"-01", NotNumber, ""},
	{"00", NotNumber, ""},
	{"1.", NotNumber, ""},
	{"1.e5", NotNumber, ""},
	{".5", NotNumber, ""},
	{"+1", NotNumber, ""},
	{"-", NotNumber, ""},
	{"-a", NotNumber, ""},
	{"1e", NotNumber, ""},
	{"1e+", NotNumber, ""},
	{"1e-x", NotNumber, ""},
	{"1x", NotNumber, ""},
	{"0x10", NotNumber, ""},
	{"Infinity", NotNumber, ""},
	{"NaN", NotNumber, ""},
}

func TestNumbers(t *testing.T) {
	for _, tc := range numberTests {
		v, err := Parse([]byte(tc.in))
		if tc.kind == NotNumber {
			assert.Error(t, err, "Parse(%q) = %s", tc.in, v)
			continue
		}
		if !assert.NoError(t, err, "Parse(%q)", tc.in) {
			continue
		}
		assert.Equal(t, Number, v.Kind(), "Parse(%q): kind", tc.in)
		assert.Equal(t, tc.kind, v.NumberKind(), "Parse(%q): number kind", tc.in)
		assert.Equal(t, tc.out, string(AppendCompact(nil, v)), "Parse(%q) prints", tc.in)
	}
}

func TestNumberRangeError(t *testing.T) {
	_, err := Parse([]byte(`[1, 1e400]`))
	require.ErrorIs(t, err, ErrNumberOutOfRange)
	var se *SyntaxError
	require.ErrorAs(t, err, &se)
	require.Equal(t, 4, se.Offset, "*SyntaxError's offset")
}

func TestNumberAccessors(t *testing.T) {
	v, _ := Parse([]byte(`[7, -7, 7.5, "7"]`))
	u, ok := v.Index(0).Uint64()
	assert.True(t, ok, "Uint64 reported not ok")
	assert.Equal(t, uint64(7), u, "Uint64")
	_, ok = v.Index(0).Int64()
	assert.False(t, ok, "Int64 on a Uint reported ok")
	i, ok := v.Index(1).Int64()
	assert.True(t, ok, "Int64 reported not ok")
	assert.Equal(t, int64(-7), i, "Int64")
	f, ok := v.Index(2).Float64()
	assert.True(t, ok, "Float64 reported not ok")
	assert.Equal(t, 7.5, f, "Float64")
	_, ok = v.Index(0).Float64()
	assert.False(t, ok, "Float64 on a Uint reported ok")
	assert.Equal(t, NotNumber, v.Index(3).NumberKind(), "NumberKind of a string")
}

func TestAppendString(t *testing.T) {
	tests := []struct{ in, out string }{
		{"", `""`},
		{"plain", `"plain"`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
		{"a/b", `"a/b"`},
		{"\n\r\t\b\f", `"\n\r\t\b\f"`},
		{"\x00\x01\x0b\x0e\x1a\x1f", `"\u0000\u0001\u000b\u000e\u001a\u001f"`},
		{"\x7f", "\"\x7f\""},
		{"<a href='x'>&amp;</a>", `"<a href='x'>&amp;</a>"`},
		{"line\u2028sep\u2029", "\"line\u2028sep\u2029\""},
		{"héllo 世界 😀", `"héllo 世界 😀"`},
		{"end\\", `"end\\"`},
		{"\"", `"\""`},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.out, string(AppendString(nil, tc.in)), "AppendString(%q)", tc.in)
	}
	assert.Equal(t, `x="y"`, string(AppendString([]byte("x="), "y")), "AppendString does not append")
}

func TestRoundTrip(t *testing.T) {
	tests := []struct{ in, out string }{
		{`null`, `null`},
		{` true `, `true`},
		{"\t\r\nfalse\n", `false`},
		{`"x"`, `"x"`},
		{`[]`, `[]`},
		{`{}`, `{}`},
		{`[ ]`, `[]`},
		{`{ }`, `{}`},
		{`[1, 2.0, -3, "4", null, true, false, [], {}]`, `[1,2.0,-3,"4",null,true,false,[],{}]`},
		{`{"z": 1, "a": {"y": [1, {"b": null}]}, "m": "s"}`, `{"z":1,"a":{"y":[1,{"b":null}]},"m":"s"}`},
		{`"\u00e9\u4e16\ud83d\ude00"`, `"é世😀"`},
		{`"\/\b\f\n\r\t\"\\"`, `"/\b\f\n\r\t\"\\"`},
		{`"\u0000\u001F\u007f"`, "\"\\u0000\\u001f\x7f\""},
		{`"\uD834\uDD1E"`, `"𝄞"`},
		{`"<>&\u2028"`, "\"<>&\u2028\""},
		{`{"":""}`, `{"":""}`},
		{`{"a\nb":1}`, `{"a\nb":1}`},
		{`[1e2,0.5E-1,-0]`, `[100.0,0.05,-0.0]`},
	}
	for _, tc := range tests {
		v, err := Parse([]byte(tc.in))
		if !assert.NoError(t, err, "Parse(%q)", tc.in) {
			continue
		}
		assert.Equal(t, tc.out, v.String(), "Parse(%q) prints", tc.in)
	}
}

func TestDuplicateKeys(t *testing.T) {
	tests := []struct{ in, out string }{
		{`{"b":1,"a":2,"b":3}`, `{"b":3,"a":2}`},
		{`{"a":1,"a":2,"a":3}`, `{"a":3}`},
		{`{"a":[1,2],"b":0,"a":{"x":1}}`, `{"a":{"x":1},"b":0}`},
		{`{"a":1,"\u0061":2}`, `{"a":2}`},
	}
	for _, tc := range tests {
		v, err := Parse([]byte(tc.in))
		require.NoError(t, err, "Parse(%q)", tc.in)
		assert.Equal(t, tc.out, v.String(), "Parse(%q) prints", tc.in)
	}

	// Above indexThreshold members the key index takes over; same rules.
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 40; i++ {
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i) + ",")
	}
	b.WriteString(`"k0":"last","k25":"z2"}`)
	v, err := Parse([]byte(b.String()))
	require.NoError(t, err)
	require.Equal(t, 40, v.Len())
	k, m := v.Member(0)
	assert.Equal(t, "k0", k, "member 0's key")
	assert.Equal(t, `"last"`, m.String(), "member 0")
	k, m = v.Member(25)
	assert.Equal(t, "k25", k, "member 25's key")
	assert.Equal(t, `"z2"`, m.String(), "member 25")
	m, ok := v.Get("k25")
	assert.True(t, ok, `Get("k25") reported not ok`)
	assert.Equal(t, `"z2"`, m.String(), `Get("k25")`)
	_, ok = v.Get("nope")
	assert.False(t, ok, `Get("nope") reported ok`)
}

func TestAccessors(t *testing.T) {
	v, err := Parse([]byte(`{"s":"str","b":true,"f":false,"n":null,"a":[1,"x"],"o":{"k":"v"}}`))
	require.NoError(t, err)
	get := func(k string) *Value {
		t.Helper()
		m, ok := v.Get(k)
		require.True(t, ok, "Get(%q) missing", k)
		return m
	}
	s, ok := get("s").AsString()
	assert.True(t, ok, "AsString reported not ok")
	assert.Equal(t, "str", s, "AsString")
	_, ok = get("b").AsString()
	assert.False(t, ok, "AsString on a bool reported ok")
	b, ok := get("b").AsBool()
	assert.True(t, ok, "AsBool reported not ok")
	assert.True(t, b, "AsBool of true")
	b, ok = get("f").AsBool()
	assert.True(t, ok, "AsBool reported not ok")
	assert.False(t, b, "AsBool of false")
	_, ok = get("s").AsBool()
	assert.False(t, ok, "AsBool on a string reported ok")
	assert.Equal(t, Null, get("n").Kind(), "kind of null")
	assert.Equal(t, Array, get("a").Kind(), "kind of an array")
	assert.Equal(t, Object, get("o").Kind(), "kind of an object")
	_, ok = get("a").Get("k")
	assert.False(t, ok, "Get on an array reported ok")
	_, ok = get("s").Get("k")
	assert.False(t, ok, "Get on a string reported ok")
	var nilv *Value
	_, ok = nilv.Get("k")
	assert.False(t, ok, "Get on a nil *Value reported ok")
	assert.Equal(t, Null, nilv.Kind(), "Kind of a nil *Value")
	assert.Zero(t, nilv.Len(), "Len of a nil *Value")
	a := get("a")
	require.Equal(t, 2, a.Len(), "array length")
	assert.Equal(t, `"x"`, a.Index(1).String(), "array element 1")
	assert.Zero(t, get("s").Len(), "Len of a string")
	k, m := get("o").Member(0)
	assert.Equal(t, "k", k, "Member(0)'s key")
	assert.Equal(t, `"v"`, m.String(), "Member(0)")
	assert.Equal(t, "object", Object.String())
	assert.Equal(t, "invalid", Kind(99).String())
	var zero Value
	assert.Equal(t, Null, zero.Kind(), "zero Value's kind")
	assert.Equal(t, "null", zero.String(), "zero Value")
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
	}{
		{``, 0},
		{`   `, 3},
		{`nul`, 3},
		{`nulx`, 3},
		{`True`, 0},
		{`[1,2`, 4},
		{`[1,2,`, 5},
		{`[1,2,]`, 5},
		{`[1 2]`, 3},
		{`{"a":1,}`, 7},
		{`{"a" 1}`, 5},
		{`{"a":}`, 5},
		{`{a:1}`, 1},
		{`{1:1}`, 1},
		{`{"a":1`, 6},
		{`{"a":1 "b":2}`, 7},
		{`"abc`, 4},
		{`"abc\`, 5},
		{`[] []`, 3},
		{`1 2`, 2},
		{`{} x`, 3},
		{`"\x"`, 2},
		{`"\U0041"`, 2},
		{`"\u00g1"`, 3},
		{`"\u12"`, 3},
		{`"\ud800"`, 7},
		{`"\udc00"`, 7},
		{`"\udfff\ud800"`, 7},
		{`"\ud800x"`, 7},
		{`"\ud800\n"`, 7},
		{`"\ud800\u0041"`, 13},
		{`"\ud800\ud800"`, 13},
		{"\"a\x00b\"", 2},
		{"\"a\nb\"", 2},
		{"\"\x1f\"", 1},
		{"\"\xff\"", 1},
		{"\"\xc3\"", 1},
		{"\"\xed\xa0\x80\"", 1},
		{"\"\xc0\xaf\"", 1},
		{"\"ok\\n\xff\"", 5},
		{"\xef\xbb\xbf{}", 0},
		{"[1,\v2]", 3},
		{`/* c */ 1`, 0},
		{`'a'`, 0},
	}
	for _, tc := range tests {
		v, err := Parse([]byte(tc.in))
		if !assert.Error(t, err, "Parse(%q) = %s", tc.in, v) {
			continue
		}
		assert.True(t, strings.HasPrefix(err.Error(), "ojson: "), "Parse(%q) error %q lacks the ojson: prefix", tc.in, err)
		var se *SyntaxError
		if assert.ErrorAs(t, err, &se, "Parse(%q)", tc.in) {
			assert.Equal(t, tc.offset, se.Offset, "Parse(%q) error's offset (%v)", tc.in, err)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	nest := func(open, close string, n int) []byte {
		return []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
	}
	for _, shape := range []struct{ open, close string }{{"[", "]"}, {`{"a":`, "}"}} {
		_, err := Parse(nest(shape.open, shape.close, DefaultMaxDepth))
		assert.NoError(t, err, "depth %d %s", DefaultMaxDepth, shape.open)
		_, err = Parse(nest(shape.open, shape.close, DefaultMaxDepth+1))
		assert.ErrorIs(t, err, ErrTooDeep, "depth %d %s", DefaultMaxDepth+1, shape.open)
	}
	// Sibling containers do not add up.
	wide := []byte("[" + strings.Repeat(string(nest("[", "]", 100))+",", 50) + "1]")
	_, err := Parse(wide)
	assert.NoError(t, err, "wide document")
	// Hostile depth fails fast, without exhausting the stack.
	_, err = Parse([]byte(strings.Repeat("[", 1_000_000)))
	assert.ErrorIs(t, err, ErrTooDeep, "1M brackets")
	opts := ParseOptions{MaxDepth: 3}
	_, err = opts.Parse([]byte(`[[[1]]]`))
	assert.NoError(t, err, "MaxDepth 3, depth 3")
	_, err = opts.Parse([]byte(`[[[[1]]]]`))
	assert.ErrorIs(t, err, ErrTooDeep, "MaxDepth 3, depth 4")
	deep := ParseOptions{MaxDepth: 100_000}
	_, err = deep.Parse(nest("[", "]", 100_000))
	assert.NoError(t, err, "MaxDepth 100000")
}

func TestJSONInterfaces(t *testing.T) {
	var s struct {
		P *Value `json:"p"`
		Q Value  `json:"q"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"p":{"b":1,"a":[1.0,1e21]},"q":"x"}`), &s))
	assert.Equal(t, `{"b":1,"a":[1.0,1e21]}`, s.P.String(), "unmarshalled")
	out, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Equal(t, `{"p":{"b":1,"a":[1.0,1e21]},"q":"x"}`, string(out), "marshalled")
	assert.Error(t, json.Unmarshal([]byte(`{"p":"\ud800"}`), &s), "lone surrogate accepted through UnmarshalJSON")
}

func TestParseDoesNotAlias(t *testing.T) {
	data := []byte(`{"key":"value"}`)
	v, err := Parse(data)
	require.NoError(t, err)
	copy(data, `{"XXX":"XXXXX"}`)
	assert.Equal(t, `{"key":"value"}`, v.String(), "value changed with its input")
}

func hasFloat(v *Value) bool {
	switch v.Kind() {
	case Number:
		return v.NumberKind() == Float
	case Array, Object:
		for i := 0; i < v.Len(); i++ {
			var e *Value
			if v.Kind() == Array {
				e = v.Index(i)
			} else {
				_, e = v.Member(i)
			}
			if hasFloat(e) {
				return true
			}
		}
	}
	return false
}

func FuzzParse(f *testing.F) {
	for _, tc := range numberTests {
		f.Add([]byte(tc.in))
	}
	for _, s := range []string{`{"b":1,"a":2,"b":3}`, `"\ud83d\ude00\n"`, `[{"a":[]}]`, `"\ud800"`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Parse(data)
		if err != nil {
			require.True(t, strings.HasPrefix(err.Error(), "ojson: "), "error without prefix: %v", err)
			return
		}
		require.True(t, json.Valid(data), "accepted %q, which encoding/json rejects", data)
		out := AppendCompact(nil, v)
		require.True(t, json.Valid(out), "printed invalid JSON %q", out)
		v2, err := Parse(out)
		// Printed floats may be re-read differently by this (not
		// correctly rounding) parser, but never out of range.
		require.NoError(t, err, "cannot re-parse %q", out)
		if out2 := AppendCompact(nil, v2); !hasFloat(v) {
			require.Equal(t, string(out), string(out2), "not stable")
		}
	})
}

func BenchmarkParse(b *testing.B) {
	data := []byte(`{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"format":{"type":"string","enum":["celsius","fahrenheit"],"default":"celsius"},"days":{"type":"integer","minimum":1,"maximum":16.5}},"required":["location"]}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAppendCompact(b *testing.B) {
	v, err := Parse([]byte(`{"s":"a \"quoted\"\nline","n":[1,-2,3.25,1e21,0.001],"o":{"t":true,"f":null}}`))
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendCompact(buf[:0], v)
	}
}
