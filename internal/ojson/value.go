// Package ojson parses and prints JSON the way the reference implementation's
// JSON library (serde_json built with its "preserve_order" feature) does, so
// that anything derived from a parsed document renders byte for byte like the
// reference.
//
// Three behaviours differ from encoding/json and are the reason this package
// exists:
//
//   - Object members keep document order. A repeated key keeps the position
//     of its first occurrence and takes the value of its last one.
//   - Numbers are stored the way serde_json stores them: an integer literal
//     becomes an unsigned or a signed 64-bit integer when it fits, every other
//     literal becomes a float64 computed with serde_json's (not correctly
//     rounded) decimal-to-binary conversion. "-0" is the float -0.0.
//   - Output ([AppendCompact]) escapes strings like serde_json (only '"', '\\'
//     and control characters; never '<', '>', '&' or U+2028) and prints
//     floats in the layout of the ryu crate ("1.0", "1e21", "1.5e-7").
//
// Parsing is strict RFC 8259: no comments, no trailing commas, no leading
// zeros, no invalid UTF-8, no unpaired surrogate escapes, and nesting limited
// to [DefaultMaxDepth] levels like serde_json's recursion limit. Values are
// immutable once parsed and safe for concurrent reads.
package ojson

import "math"

// Kind is the JSON type of a [Value].
type Kind uint8

// The kinds of JSON value. The zero Kind is Null, so the zero Value is a JSON
// null.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "bool", "number", "string", "array", "object"}

// String returns the lower-case name of the kind ("null", "object", ...).
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// NumberKind tells how a Number value is stored.
type NumberKind uint8

// The storage classes of a number, mirroring serde_json's PosInt, NegInt and
// Float. NotNumber is reported for values that are not numbers.
const (
	NotNumber NumberKind = iota
	Uint                 // a non-negative integer literal that fits in uint64
	Int                  // a negative integer literal that fits in int64
	Float                // everything else, as float64
)

// Value is one parsed JSON value. The zero Value is null. No method changes a
// Value except UnmarshalJSON, which replaces it, so a parsed tree can be
// shared between goroutines; pointers returned by its accessors stay valid
// as long as the tree is reachable.
type Value struct {
	kind  Kind
	nkind NumberKind
	bits  uint64 // bool (0/1), uint64, int64 or float64 bits
	str   string // a String's text, or a Number's literal (KeepNumberText)
	elems []Value
	mems  []member
	index map[string]int // key -> position in mems, only for large objects
}

// member is one key/value pair of an object.
type member struct {
	key   string
	value Value
}

// Kind reports the JSON type of v. A nil *Value reports Null.
func (v *Value) Kind() Kind {
	if v == nil {
		return Null
	}
	return v.kind
}

// Get returns the member of object v named key. It reports false when v is
// not an object or has no such member, like serde_json's Value::get.
func (v *Value) Get(key string) (*Value, bool) {
	if v == nil || v.kind != Object {
		return nil, false
	}
	if i := findMember(v.mems, v.index, key); i >= 0 {
		return &v.mems[i].value, true
	}
	return nil, false
}

// AsString returns the text of a String value; it reports false for every
// other kind (no conversion is attempted), like serde_json's as_str.
func (v *Value) AsString() (string, bool) {
	if v == nil || v.kind != String {
		return "", false
	}
	return v.str, true
}

// AsBool returns the value of a Bool; it reports false for every other kind,
// like serde_json's as_bool.
func (v *Value) AsBool() (bool, bool) {
	if v == nil || v.kind != Bool {
		return false, false
	}
	return v.bits != 0, true
}

// NumberText returns the literal of a Number parsed with
// [ParseOptions.KeepNumberText]. It reports false otherwise.
func (v *Value) NumberText() (string, bool) {
	if v == nil || v.kind != Number || v.str == "" {
		return "", false
	}
	return v.str, true
}

// NumberKind reports how a Number is stored, or NotNumber.
func (v *Value) NumberKind() NumberKind {
	if v == nil || v.kind != Number {
		return NotNumber
	}
	return v.nkind
}

// Uint64 returns a number stored as Uint. It reports false otherwise, even
// for a Float or Int that has an integral value.
func (v *Value) Uint64() (uint64, bool) {
	if v.NumberKind() != Uint {
		return 0, false
	}
	return v.bits, true
}

// Int64 returns a number stored as Int (always negative). It reports false
// otherwise.
func (v *Value) Int64() (int64, bool) {
	if v.NumberKind() != Int {
		return 0, false
	}
	return int64(v.bits), true
}

// Float64 returns a number stored as Float. It reports false otherwise.
func (v *Value) Float64() (float64, bool) {
	if v.NumberKind() != Float {
		return 0, false
	}
	return math.Float64frombits(v.bits), true
}

// Len returns the number of elements of an Array or members of an Object,
// and 0 for every other kind.
func (v *Value) Len() int {
	switch v.Kind() {
	case Array:
		return len(v.elems)
	case Object:
		return len(v.mems)
	}
	return 0
}

// Index returns element i of an Array. It panics if v is not an array or i
// is out of range, like indexing a slice.
func (v *Value) Index(i int) *Value {
	if v.Kind() != Array {
		panic("ojson: Index on " + v.Kind().String())
	}
	return &v.elems[i]
}

// Member returns member i of an Object in document order. It panics if v is
// not an object or i is out of range.
func (v *Value) Member(i int) (key string, val *Value) {
	if v.Kind() != Object {
		panic("ojson: Member on " + v.Kind().String())
	}
	m := &v.mems[i]
	return m.key, &m.value
}

// String returns the compact serialization of v, as [AppendCompact] writes
// it.
func (v *Value) String() string {
	return string(AppendCompact(nil, v))
}

// MarshalJSON returns the compact serialization of v. It has a value
// receiver so that Value fields marshal too. Note that encoding/json may
// still HTML-escape the result unless told otherwise.
func (v Value) MarshalJSON() ([]byte, error) {
	return AppendCompact(nil, &v), nil
}

// UnmarshalJSON replaces v with the value parsed from data using the default
// options.
func (v *Value) UnmarshalJSON(data []byte) error {
	nv, err := Parse(data)
	if err != nil {
		return err
	}
	*v = *nv
	return nil
}
