package ojson

// Numbers follow serde_json 1.0.140 without its "float_roundtrip" feature,
// because that is what the reference links. Such a parser does not round
// decimal literals correctly: it keeps at most 19-20 significant digits in a
// uint64 (later digits are dropped, not rounded), converts that integer to a
// float64 and applies the decimal exponent with a single multiplication or
// division by an exactly rounded power of ten (repeatedly dividing by 1e308
// for tiny exponents). The result can differ from strconv.ParseFloat in the
// last bit, and a literal such as 1.7976931348623158e308, which rounds to
// the largest float64, overflows to an error instead. Reproducing those steps
// exactly is what makes printed defaults match.
//
// Printing mirrors the ryu crate's format64: shortest round-trip digits (the
// same digits strconv produces with precision -1) laid out as "1.0",
// "12.34", "0.001234" or "1.234e30" depending on the decimal point position.

import (
	"math"
	"strconv"

	"github.com/go-harmony/harmony/internal/jsonscan"
)

// number parses the number literal at p.i. Its syntax is checked first,
// with [jsonscan.Number]; the steps that compute its value then only read
// the digits and the signs where that has found them.
func (p *parser) number() (Value, error) {
	s := p.s
	start := p.i
	if end, ok := jsonscan.Number(s, start); !ok {
		if end >= len(s) {
			return Value{}, p.fail(end, errEOF)
		}
		return Value{}, p.fail(end, errNumber)
	}
	neg := false
	if s[p.i] == '-' {
		neg = true
		p.i++
	}
	var sig uint64
	switch c := s[p.i]; {
	case c == '0':
		p.i++
		if p.i < len(s) && isDigit(s[p.i]) {
			// "01": serde_json refuses a digit after a leading zero
			// where JSON sees the number 0, then a stray digit.
			return Value{}, p.fail(p.i, errNumber)
		}
	default:
		sig = uint64(c - '0')
		p.i++
		for p.i < len(s) && isDigit(s[p.i]) {
			d := uint64(s[p.i] - '0')
			if overflowsU64(sig, d) {
				return p.longInteger(start, neg, sig)
			}
			sig = sig*10 + d
			p.i++
		}
	}

	if p.i < len(s) {
		switch s[p.i] {
		case '.':
			return p.fraction(start, neg, sig, 0)
		case 'e', 'E':
			return p.exponent(start, neg, sig, 0)
		}
	}
	switch {
	case !neg:
		return Value{kind: Number, nkind: Uint, bits: sig}, nil
	case sig != 0 && sig <= 1<<63:
		return Value{kind: Number, nkind: Int, bits: uint64(-int64(sig))}, nil
	default:
		// "-0" and negative literals below MinInt64 become floats.
		return floatValue(-float64(sig)), nil
	}
}

// overflowsU64 reports whether sig*10+d exceeds math.MaxUint64.
func overflowsU64(sig, d uint64) bool {
	const lim = math.MaxUint64 / 10
	return sig >= lim && (sig > lim || d > math.MaxUint64%10)
}

// longInteger handles an integer part too long for uint64: the remaining
// digits only raise the decimal exponent.
func (p *parser) longInteger(start int, neg bool, sig uint64) (Value, error) {
	exp := 0
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
		exp++
	}
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case '.':
			return p.fraction(start, neg, sig, exp)
		case 'e', 'E':
			return p.exponent(start, neg, sig, exp)
		}
	}
	return p.fromParts(start, neg, sig, exp)
}

// fraction parses the digits after '.', which is at p.i.
func (p *parser) fraction(start int, neg bool, sig uint64, exp int) (Value, error) {
	p.i++
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		d := uint64(p.s[p.i] - '0')
		if overflowsU64(sig, d) {
			// Digits past uint64 precision are ignored.
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				p.i++
			}
			break
		}
		sig = sig*10 + d
		exp--
		p.i++
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		return p.exponent(start, neg, sig, exp)
	}
	return p.fromParts(start, neg, sig, exp)
}

// exponent parses an exponent whose 'e' or 'E' is at p.i; exp is the decimal
// exponent accumulated so far.
func (p *parser) exponent(start int, neg bool, sig uint64, exp int) (Value, error) {
	p.i++
	positive := true
	if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
		positive = p.s[p.i] == '+'
		p.i++
	}
	e := 0
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		d := int(p.s[p.i] - '0')
		p.i++
		if e >= math.MaxInt32/10 && (e > math.MaxInt32/10 || d > math.MaxInt32%10) {
			// An exponent beyond int32: infinity is an error, zero is fine.
			if sig != 0 && positive {
				return Value{}, p.fail(start, ErrNumberOutOfRange)
			}
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				p.i++
			}
			f := 0.0
			if neg {
				f = math.Copysign(0, -1)
			}
			return floatValue(f), nil
		}
		e = e*10 + d
	}
	// serde_json adds the exponents as saturating int32 values.
	total := int64(exp)
	if positive {
		total += int64(e)
	} else {
		total -= int64(e)
	}
	total = min(max(total, math.MinInt32), math.MaxInt32)
	return p.fromParts(start, neg, sig, int(total))
}

// fromParts returns sig × 10^exp computed like serde_json; exp is within
// the int32 range.
func (p *parser) fromParts(start int, neg bool, sig uint64, exp int) (Value, error) {
	f := float64(sig)
	for {
		a := exp
		if a < 0 {
			a = -a
		}
		if a < len(pow10) {
			if exp >= 0 {
				f *= pow10[a]
				if math.IsInf(f, 0) {
					return Value{}, p.fail(start, ErrNumberOutOfRange)
				}
			} else {
				f /= pow10[a]
			}
			break
		}
		if f == 0 {
			break
		}
		if exp >= 0 {
			return Value{}, p.fail(start, ErrNumberOutOfRange)
		}
		f /= 1e308
		exp += 308
	}
	if neg {
		f = -f
	}
	return floatValue(f), nil
}

func floatValue(f float64) Value {
	return Value{kind: Number, nkind: Float, bits: math.Float64bits(f)}
}

// pow10 holds the correctly rounded float64 values of 10^0 through 10^308.
var pow10 = [309]float64{
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
	1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23,
	1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
	1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38, 1e39,
	1e40, 1e41, 1e42, 1e43, 1e44, 1e45, 1e46, 1e47,
	1e48, 1e49, 1e50, 1e51, 1e52, 1e53, 1e54, 1e55,
	1e56, 1e57, 1e58, 1e59, 1e60, 1e61, 1e62, 1e63,
	1e64, 1e65, 1e66, 1e67, 1e68, 1e69, 1e70, 1e71,
	1e72, 1e73, 1e74, 1e75, 1e76, 1e77, 1e78, 1e79,
	1e80, 1e81, 1e82, 1e83, 1e84, 1e85, 1e86, 1e87,
	1e88, 1e89, 1e90, 1e91, 1e92, 1e93, 1e94, 1e95,
	1e96, 1e97, 1e98, 1e99, 1e100, 1e101, 1e102, 1e103,
	1e104, 1e105, 1e106, 1e107, 1e108, 1e109, 1e110, 1e111,
	1e112, 1e113, 1e114, 1e115, 1e116, 1e117, 1e118, 1e119,
	1e120, 1e121, 1e122, 1e123, 1e124, 1e125, 1e126, 1e127,
	1e128, 1e129, 1e130, 1e131, 1e132, 1e133, 1e134, 1e135,
	1e136, 1e137, 1e138, 1e139, 1e140, 1e141, 1e142, 1e143,
	1e144, 1e145, 1e146, 1e147, 1e148, 1e149, 1e150, 1e151,
	1e152, 1e153, 1e154, 1e155, 1e156, 1e157, 1e158, 1e159,
	1e160, 1e161, 1e162, 1e163, 1e164, 1e165, 1e166, 1e167,
	1e168, 1e169, 1e170, 1e171, 1e172, 1e173, 1e174, 1e175,
	1e176, 1e177, 1e178, 1e179, 1e180, 1e181, 1e182, 1e183,
	1e184, 1e185, 1e186, 1e187, 1e188, 1e189, 1e190, 1e191,
	1e192, 1e193, 1e194, 1e195, 1e196, 1e197, 1e198, 1e199,
	1e200, 1e201, 1e202, 1e203, 1e204, 1e205, 1e206, 1e207,
	1e208, 1e209, 1e210, 1e211, 1e212, 1e213, 1e214, 1e215,
	1e216, 1e217, 1e218, 1e219, 1e220, 1e221, 1e222, 1e223,
	1e224, 1e225, 1e226, 1e227, 1e228, 1e229, 1e230, 1e231,
	1e232, 1e233, 1e234, 1e235, 1e236, 1e237, 1e238, 1e239,
	1e240, 1e241, 1e242, 1e243, 1e244, 1e245, 1e246, 1e247,
	1e248, 1e249, 1e250, 1e251, 1e252, 1e253, 1e254, 1e255,
	1e256, 1e257, 1e258, 1e259, 1e260, 1e261, 1e262, 1e263,
	1e264, 1e265, 1e266, 1e267, 1e268, 1e269, 1e270, 1e271,
	1e272, 1e273, 1e274, 1e275, 1e276, 1e277, 1e278, 1e279,
	1e280, 1e281, 1e282, 1e283, 1e284, 1e285, 1e286, 1e287,
	1e288, 1e289, 1e290, 1e291, 1e292, 1e293, 1e294, 1e295,
	1e296, 1e297, 1e298, 1e299, 1e300, 1e301, 1e302, 1e303,
	1e304, 1e305, 1e306, 1e307, 1e308,
}

// appendFloat appends f as ryu's format64 prints it. f must be finite.
func appendFloat(dst []byte, f float64) []byte {
	if math.Signbit(f) {
		dst = append(dst, '-')
		f = -f
	}
	if f == 0 {
		return append(dst, "0.0"...)
	}
	// Shortest digits in scientific form: d[.ddd]e±XX.
	var tmp [32]byte
	sci := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	var digits [17]byte
	n := 0
	i := 0
	for ; sci[i] != 'e'; i++ {
		if sci[i] != '.' {
			digits[n] = sci[i]
			n++
		}
	}
	e := 0
	expNeg := sci[i+1] == '-'
	for _, c := range sci[i+2:] {
		e = e*10 + int(c-'0')
	}
	if expNeg {
		e = -e
	}
	d := digits[:n]
	kk := e + 1 // value = 0.d1d2...dn × 10^kk
	switch {
	case kk-n >= 0 && kk <= 16:
		// Integral: digits, zero padding, ".0".
		dst = append(dst, d...)
		for j := n; j < kk; j++ {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	case 0 < kk && kk <= 16:
		dst = append(dst, d[:kk]...)
		dst = append(dst, '.')
		return append(dst, d[kk:]...)
	case -5 < kk && kk <= 0:
		dst = append(dst, '0', '.')
		for j := kk; j < 0; j++ {
			dst = append(dst, '0')
		}
		return append(dst, d...)
	default:
		dst = append(dst, d[0])
		if n > 1 {
			dst = append(dst, '.')
			dst = append(dst, d[1:]...)
		}
		dst = append(dst, 'e')
		return strconv.AppendInt(dst, int64(kk-1), 10)
	}
}
