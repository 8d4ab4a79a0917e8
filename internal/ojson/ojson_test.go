package ojson

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
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
			if err == nil {
				t.Errorf("Parse(%q) = %s, want error", tc.in, v)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if v.Kind() != Number || v.NumberKind() != tc.kind {
			t.Errorf("Parse(%q): kind %v/%v, want number/%v", tc.in, v.Kind(), v.NumberKind(), tc.kind)
		}
		if got := string(AppendCompact(nil, v)); got != tc.out {
			t.Errorf("Parse(%q) prints %q, want %q", tc.in, got, tc.out)
		}
	}
}

func TestNumberRangeError(t *testing.T) {
	_, err := Parse([]byte(`[1, 1e400]`))
	if !errors.Is(err, ErrNumberOutOfRange) {
		t.Fatalf("got %v, want ErrNumberOutOfRange", err)
	}
	var se *SyntaxError
	if !errors.As(err, &se) || se.Offset != 4 {
		t.Fatalf("got %#v, want *SyntaxError at offset 4", err)
	}
}

func TestNumberAccessors(t *testing.T) {
	v, _ := Parse([]byte(`[7, -7, 7.5, "7"]`))
	if u, ok := v.Index(0).Uint64(); !ok || u != 7 {
		t.Errorf("Uint64 = %v, %v", u, ok)
	}
	if _, ok := v.Index(0).Int64(); ok {
		t.Error("Int64 on a Uint reported ok")
	}
	if i, ok := v.Index(1).Int64(); !ok || i != -7 {
		t.Errorf("Int64 = %v, %v", i, ok)
	}
	if f, ok := v.Index(2).Float64(); !ok || f != 7.5 {
		t.Errorf("Float64 = %v, %v", f, ok)
	}
	if _, ok := v.Index(0).Float64(); ok {
		t.Error("Float64 on a Uint reported ok")
	}
	if k := v.Index(3).NumberKind(); k != NotNumber {
		t.Errorf("NumberKind of a string = %v", k)
	}
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
		if got := string(AppendString(nil, tc.in)); got != tc.out {
			t.Errorf("AppendString(%q) = %s, want %s", tc.in, got, tc.out)
		}
	}
	if got := string(AppendString([]byte("x="), "y")); got != `x="y"` {
		t.Errorf("AppendString does not append: %s", got)
	}
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
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if got := v.String(); got != tc.out {
			t.Errorf("Parse(%q) prints %s, want %s", tc.in, got, tc.out)
		}
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
		if err != nil {
			t.Fatalf("Parse(%q): %v", tc.in, err)
		}
		if got := v.String(); got != tc.out {
			t.Errorf("Parse(%q) prints %s, want %s", tc.in, got, tc.out)
		}
	}

	// Above indexThreshold members the key index takes over; same rules.
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 40; i++ {
		b.WriteString(`"k` + strconv.Itoa(i) + `":` + strconv.Itoa(i) + ",")
	}
	b.WriteString(`"k0":"last","k25":"z2"}`)
	v, err := Parse([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if v.Len() != 40 {
		t.Fatalf("Len = %d, want 40", v.Len())
	}
	if k, m := v.Member(0); k != "k0" || m.String() != `"last"` {
		t.Errorf("member 0 = %s: %s", k, m)
	}
	if k, m := v.Member(25); k != "k25" || m.String() != `"z2"` {
		t.Errorf("member 25 = %s: %s", k, m)
	}
	if m, ok := v.Get("k25"); !ok || m.String() != `"z2"` {
		t.Errorf(`Get("k25") = %v, %v`, m, ok)
	}
	if _, ok := v.Get("nope"); ok {
		t.Error(`Get("nope") reported ok`)
	}
}

func TestAccessors(t *testing.T) {
	v, err := Parse([]byte(`{"s":"str","b":true,"f":false,"n":null,"a":[1,"x"],"o":{"k":"v"}}`))
	if err != nil {
		t.Fatal(err)
	}
	get := func(k string) *Value {
		t.Helper()
		m, ok := v.Get(k)
		if !ok {
			t.Fatalf("Get(%q) missing", k)
		}
		return m
	}
	if s, ok := get("s").AsString(); !ok || s != "str" {
		t.Errorf("AsString = %q, %v", s, ok)
	}
	if _, ok := get("b").AsString(); ok {
		t.Error("AsString on a bool reported ok")
	}
	if b, ok := get("b").AsBool(); !ok || !b {
		t.Errorf("AsBool = %v, %v", b, ok)
	}
	if b, ok := get("f").AsBool(); !ok || b {
		t.Errorf("AsBool = %v, %v", b, ok)
	}
	if _, ok := get("s").AsBool(); ok {
		t.Error("AsBool on a string reported ok")
	}
	if get("n").Kind() != Null || get("a").Kind() != Array || get("o").Kind() != Object {
		t.Error("wrong kinds")
	}
	if _, ok := get("a").Get("k"); ok {
		t.Error("Get on an array reported ok")
	}
	if _, ok := get("s").Get("k"); ok {
		t.Error("Get on a string reported ok")
	}
	var nilv *Value
	if _, ok := nilv.Get("k"); ok || nilv.Kind() != Null || nilv.Len() != 0 {
		t.Error("nil *Value misbehaves")
	}
	a := get("a")
	if a.Len() != 2 || a.Index(1).String() != `"x"` {
		t.Errorf("array access: len %d", a.Len())
	}
	if get("s").Len() != 0 {
		t.Error("Len of a string is not 0")
	}
	if k, m := get("o").Member(0); k != "k" || m.String() != `"v"` {
		t.Errorf("Member(0) = %s, %s", k, m)
	}
	if Object.String() != "object" || Kind(99).String() != "invalid" {
		t.Error("Kind.String")
	}
	var zero Value
	if zero.Kind() != Null || zero.String() != "null" {
		t.Error("zero Value is not null")
	}
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
		if err == nil {
			t.Errorf("Parse(%q) = %s, want error", tc.in, v)
			continue
		}
		if !strings.HasPrefix(err.Error(), "ojson: ") {
			t.Errorf("Parse(%q) error %q lacks the ojson: prefix", tc.in, err)
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error %T is not *SyntaxError", tc.in, err)
		} else if se.Offset != tc.offset {
			t.Errorf("Parse(%q) error at offset %d, want %d (%v)", tc.in, se.Offset, tc.offset, err)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	nest := func(open, close string, n int) []byte {
		return []byte(strings.Repeat(open, n) + "1" + strings.Repeat(close, n))
	}
	for _, shape := range []struct{ open, close string }{{"[", "]"}, {`{"a":`, "}"}} {
		if _, err := Parse(nest(shape.open, shape.close, DefaultMaxDepth)); err != nil {
			t.Errorf("depth %d %s: %v", DefaultMaxDepth, shape.open, err)
		}
		_, err := Parse(nest(shape.open, shape.close, DefaultMaxDepth+1))
		if !errors.Is(err, ErrTooDeep) {
			t.Errorf("depth %d %s: got %v, want ErrTooDeep", DefaultMaxDepth+1, shape.open, err)
		}
	}
	// Sibling containers do not add up.
	wide := []byte("[" + strings.Repeat(string(nest("[", "]", 100))+",", 50) + "1]")
	if _, err := Parse(wide); err != nil {
		t.Errorf("wide document: %v", err)
	}
	// Hostile depth fails fast, without exhausting the stack.
	if _, err := Parse([]byte(strings.Repeat("[", 1_000_000))); !errors.Is(err, ErrTooDeep) {
		t.Errorf("1M brackets: got %v", err)
	}
	opts := ParseOptions{MaxDepth: 3}
	if _, err := opts.Parse([]byte(`[[[1]]]`)); err != nil {
		t.Errorf("MaxDepth 3, depth 3: %v", err)
	}
	if _, err := opts.Parse([]byte(`[[[[1]]]]`)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("MaxDepth 3, depth 4: got %v", err)
	}
	deep := ParseOptions{MaxDepth: 100_000}
	if _, err := deep.Parse(nest("[", "]", 100_000)); err != nil {
		t.Errorf("MaxDepth 100000: %v", err)
	}
}

func TestJSONInterfaces(t *testing.T) {
	var s struct {
		P *Value `json:"p"`
		Q Value  `json:"q"`
	}
	if err := json.Unmarshal([]byte(`{"p":{"b":1,"a":[1.0,1e21]},"q":"x"}`), &s); err != nil {
		t.Fatal(err)
	}
	if got := s.P.String(); got != `{"b":1,"a":[1.0,1e21]}` {
		t.Errorf("unmarshalled %s", got)
	}
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(out); got != `{"p":{"b":1,"a":[1.0,1e21]},"q":"x"}` {
		t.Errorf("marshalled %s", got)
	}
	if err := json.Unmarshal([]byte(`{"p":"\ud800"}`), &s); err == nil {
		t.Error("lone surrogate accepted through UnmarshalJSON")
	}
}

func TestParseDoesNotAlias(t *testing.T) {
	data := []byte(`{"key":"value"}`)
	v, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	copy(data, `{"XXX":"XXXXX"}`)
	if got := v.String(); got != `{"key":"value"}` {
		t.Errorf("value changed with its input: %s", got)
	}
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
			if !strings.HasPrefix(err.Error(), "ojson: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("accepted %q, which encoding/json rejects", data)
		}
		out := AppendCompact(nil, v)
		if !json.Valid(out) {
			t.Fatalf("printed invalid JSON %q", out)
		}
		v2, err := Parse(out)
		if err != nil {
			// Printed floats may be re-read differently by this (not
			// correctly rounding) parser, but never out of range.
			t.Fatalf("cannot re-parse %q: %v", out, err)
		}
		if out2 := AppendCompact(nil, v2); !hasFloat(v) && string(out2) != string(out) {
			t.Fatalf("not stable: %q then %q", out, out2)
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
