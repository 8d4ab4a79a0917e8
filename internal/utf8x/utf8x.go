// Package utf8x validates and repairs UTF-8 the way Rust's standard library
// (and Python's "replace" error handler) does, which differs from Go's
// unicode/utf8: an invalid sequence is replaced by one U+FFFD per "maximal
// subpart" (Unicode §3.9, U+FFFD substitution), so "\xF0\x9F\x98" followed by
// "A" is one replacement character, where ranging over a Go string gives three.
// harmony's parsers report content exactly as the reference does, so they need
// those boundaries.
package utf8x

import "unicode/utf8"

// Replacement is the text substituted for an invalid sequence.
const Replacement = "\uFFFD"

// Check returns the length of the longest valid UTF-8 prefix of b and, when b is
// not valid in full, how many bytes the invalid sequence that follows spans
// (errLen > 0), or errLen == 0 when b merely ends inside a sequence that more
// bytes could complete. For valid b it returns len(b), 0.
func Check(b []byte) (validUpTo, errLen int) {
	i := 0
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		n := seqLen(b[i:])
		if n <= 0 {
			return i, -n
		}
		i += n
	}
	return len(b), 0
}

// seqLen returns the length of the valid multi-byte sequence at the start of b,
// or minus the length of its invalid maximal subpart, or 0 when b ends before
// the sequence is complete and nothing seen so far is wrong.
func seqLen(b []byte) int {
	c := b[0]
	var need int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		need = 2
	case c == 0xE0:
		need, lo = 3, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 3
	case c == 0xED:
		need, hi = 3, 0x9F
	case c == 0xF0:
		need, lo = 4, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 4
	case c == 0xF4:
		need, hi = 4, 0x8F
	default:
		return -1
	}
	for k := 1; k < need; k++ {
		if k >= len(b) {
			return 0
		}
		x := b[k]
		if k == 1 {
			if x < lo || x > hi {
				return -1
			}
		} else if x < 0x80 || x > 0xBF {
			return -k
		}
	}
	return need
}

// AppendLossy appends b to dst with each invalid sequence, and an incomplete
// sequence at the end, replaced by U+FFFD, as Rust's String::from_utf8_lossy
// does.
func AppendLossy(dst []byte, b []byte) []byte {
	for len(b) > 0 {
		valid, errLen := Check(b)
		dst = append(dst, b[:valid]...)
		b = b[valid:]
		if len(b) == 0 {
			break
		}
		dst = append(dst, Replacement...)
		if errLen == 0 {
			break
		}
		b = b[errLen:]
	}
	return dst
}

// Clip returns s when it has at most max bytes, else its longest prefix of
// at most max bytes that does not cut a UTF-8 sequence in two, followed by
// "…": the form in which an error quotes a string its caller supplied,
// which may be of any length.
func Clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for i := 1; i < utf8.UTFMax && n > 0 && !utf8.RuneStart(s[n]); i++ {
		n--
	}
	if !utf8.RuneStart(s[n]) {
		n = max // not UTF-8: cut where it is
	}
	return s[:n] + "…"
}
