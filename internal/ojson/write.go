package ojson

import (
	"math"
	"strconv"
)

// AppendCompact appends the compact serialization of v to dst and returns
// the extended buffer. The output is byte for byte what serde_json's
// to_string (and Display) produce for the same value: no whitespace, members
// in stored order, strings escaped as by [AppendString], integers in
// decimal and floats in ryu's layout ("1.0", "0.001", "1e-7", "1e21"). A nil
// v is written as null.
func AppendCompact(dst []byte, v *Value) []byte {
	if v == nil {
		return append(dst, "null"...)
	}
	switch v.kind {
	case Bool:
		if v.bits != 0 {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case Number:
		switch v.nkind {
		case Uint:
			return strconv.AppendUint(dst, v.bits, 10)
		case Int:
			return strconv.AppendInt(dst, int64(v.bits), 10)
		default:
			f := math.Float64frombits(v.bits)
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return append(dst, "null"...) // unreachable from Parse
			}
			return appendFloat(dst, f)
		}
	case String:
		return AppendString(dst, v.str)
	case Array:
		dst = append(dst, '[')
		for i := range v.elems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendCompact(dst, &v.elems[i])
		}
		return append(dst, ']')
	case Object:
		dst = append(dst, '{')
		for i := range v.mems {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = AppendString(dst, v.mems[i].key)
			dst = append(dst, ':')
			dst = AppendCompact(dst, &v.mems[i].value)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// shortEscape maps the bytes that serde_json escapes with a two-character
// sequence to the letter after the backslash.
var shortEscape = [256]byte{
	'"':  '"',
	'\\': '\\',
	'\b': 'b',
	'\f': 'f',
	'\n': 'n',
	'\r': 'r',
	'\t': 't',
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a quoted JSON string, escaped exactly like
// serde_json: '"' and '\\' with a backslash, \b \f \n \r \t by name, other
// bytes below 0x20 as \u00xx with lower-case hex, and everything else
// (DEL, '<', '>', '&', U+2028, any non-ASCII) unchanged. Bytes of s are
// copied as they are, so invalid UTF-8 in s stays invalid.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[run:i]...)
		if e := shortEscape[c]; e != 0 {
			dst = append(dst, '\\', e)
		} else {
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
		run = i + 1
	}
	dst = append(dst, s[run:]...)
	return append(dst, '"')
}
