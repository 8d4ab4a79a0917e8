package constrain

// UTF-8 range splitting: a range of code points as the sequences of byte
// ranges that encode it, what the NFA's classes are built from and what an
// escape in progress is checked with.

import (
	"unicode"
	"unicode/utf8"
)

// byteRange is the bytes lo to hi, both included.
type byteRange struct{ lo, hi byte }

// utf8Seqs calls emit with sequences of byte ranges whose concatenations
// are exactly the UTF-8 encodings of the runes in [lo, hi], surrogates
// excluded (the algorithm of Russ Cox's and Rust's utf8-ranges). The range
// is split until each piece has one encoding length and its encodings are
// exactly the byte strings with each byte in the range of its position, the
// sequence emit gets. emit may not keep the slice.
func utf8Seqs(lo, hi rune, emit func([]byteRange)) {
	if hi > unicode.MaxRune {
		hi = unicode.MaxRune
	}
	if lo < 0 {
		lo = 0
	}
	type rr struct{ lo, hi rune }
	stack := []rr{{lo, hi}}
	var buf [4]byteRange
outer:
	for len(stack) > 0 {
		r := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if r.lo > r.hi {
			continue
		}
		// Surrogates.
		if r.lo < 0xE000 && r.hi > 0xD7FF {
			if r.lo < 0xD800 {
				stack = append(stack, rr{0xE000, r.hi}, rr{r.lo, 0xD7FF})
			} else {
				stack = append(stack, rr{0xE000, r.hi})
			}
			continue
		}
		// Split at encoding length boundaries.
		for _, max := range []rune{0x7F, 0x7FF, 0xFFFF} {
			if r.lo <= max && max < r.hi {
				stack = append(stack, rr{max + 1, r.hi}, rr{r.lo, max})
				continue outer
			}
		}
		if r.hi <= 0x7F {
			emit([]byteRange{{byte(r.lo), byte(r.hi)}})
			continue
		}
		for i := 1; i < 4; i++ {
			m := rune(1)<<(6*i) - 1
			if r.lo&^m != r.hi&^m {
				if r.lo&m != 0 {
					stack = append(stack, rr{(r.lo | m) + 1, r.hi}, rr{r.lo, r.lo | m})
					continue outer
				}
				if r.hi&m != m {
					stack = append(stack, rr{r.hi &^ m, r.hi}, rr{r.lo, (r.hi &^ m) - 1})
					continue outer
				}
			}
		}
		var a, b [4]byte
		na := utf8.EncodeRune(a[:], r.lo)
		utf8.EncodeRune(b[:], r.hi)
		for i := 0; i < na; i++ {
			buf[i] = byteRange{a[i], b[i]}
		}
		emit(buf[:na])
	}
}
