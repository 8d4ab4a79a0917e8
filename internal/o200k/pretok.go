package o200k

// The pre-tokenizer splits text into the pieces that the o200k pattern
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}
//	| ?[^\s\p{L}\p{N}]+[\r\n/]*
//	|\s*[\r\n]+
//	|\s+(?!\S)
//	|\s+
//
// matches, one after another, as the reference's backtracking regex engine
// (fancy-regex, leftmost-first alternation, greedy quantifiers) finds them.
// It is written by hand, in the manner of text/template/parse's lexer: the
// pieceEnd function looks at the class of the character at the current
// position and tries, in the pattern's order, only the alternatives that can
// start with it; each alternative is a small function built from peek
// (class and size of the character at a position) and the run helpers
// (acceptRun: skip characters of a class). Every character has a flags
// byte in which each of the pattern's classes is one bit (see
// internal/table), looked up in a 128-entry table for ASCII and a two-stage
// table (Unicode 16.0.0, the reference's version) otherwise, so a class test
// is one AND. Backtracking never needs a stack: for each alternative the
// first solution the regex engine would reach can be computed directly from
// where runs of a class end, as the comments on each function show. Every
// character starts some alternative, so the pieces tile the text, and no
// character is scanned more than a few times, so splitting is linear.

import (
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/o200k/internal/table"
)

// Local names for the class flags.
const (
	fUpper   = table.FUpper   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	fLower   = table.FLower   // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
	fPre     = table.FPre     // [^\r\n\p{L}\p{N}]
	fPunct   = table.FPunct   // [^\s\p{L}\p{N}]
	fNum     = table.FNum     // \p{N}
	fSpace   = table.FSpace   // \s
	fNewline = table.FNewline // [\r\n]
)

// asciiFlags holds the class flags of the ASCII characters.
var asciiFlags = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		switch {
		case c == '\r' || c == '\n':
			t[c] = table.FlagsNewline
		case c == ' ' || c >= '\t' && c <= '\f':
			t[c] = table.FlagsSpace
		case c >= '0' && c <= '9':
			t[c] = table.FlagsNum
		case c >= 'A' && c <= 'Z':
			t[c] = table.FlagsUpper
		case c >= 'a' && c <= 'z':
			t[c] = table.FlagsLower
		default:
			t[c] = table.FlagsOther
		}
	}
	return t
}()

// runeFlags returns the class flags of a non-ASCII rune.
func (e *Engine) runeFlags(r rune) uint8 {
	return e.stage2[int(e.stage1[uint32(r)>>table.BlockShift])<<table.BlockShift|int(r&(1<<table.BlockShift-1))]
}

// peek returns the class flags and the size in bytes of the character at s[i],
// or 0, 0 at the end of s (see decode for invalid UTF-8). The loops that
// read every character of a run (upperLower, acceptRun) ask class2 and
// peekSlow themselves, so that ASCII and two-byte characters cost no call.
func (e *Engine) peek(s string, i int) (uint8, int) {
	if c, n := e.class2(s, i); n >= 0 {
		return c, n
	}
	return e.peekSlow(s, i)
}

// class2 returns the class flags and the size of the character at s[i] if
// it is ASCII or a valid character of two bytes; 0, 0 at the end of s; and
// 0, -1 otherwise, for peekSlow.
func (e *Engine) class2(s string, i int) (uint8, int) {
	if i >= len(s) {
		return 0, 0
	}
	if c := s[i]; c < utf8.RuneSelf {
		return asciiFlags[c], 1
	} else if c-0xC2 < 0xE0-0xC2 && i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
		return e.flags2[uint(c&0x1F)<<6|uint(s[i+1]&0x3F)], 2
	}
	return 0, -1
}

// peekSlow is peek for a character of three or four bytes, or a byte that
// is not valid UTF-8.
func (e *Engine) peekSlow(s string, i int) (uint8, int) {
	r, n := decode(s, i)
	return e.runeFlags(r), n
}

// flags2Table returns the class flags of the characters of two bytes,
// U+0080 to U+07FF (Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic ...),
// indexed by their code point, for class2.
func (e *Engine) flags2Table() *[0x800]uint8 {
	var t [0x800]uint8
	for r := rune(0x80); r < 0x800; r++ {
		t[r] = e.runeFlags(r)
	}
	return &t
}

// decode decodes the non-ASCII character at s[i]. A byte that does not start
// a valid encoding decodes as U+FFFD of size 1, as utf8.DecodeRuneInString
// has it: the pre-tokenizer then splits invalid text as if each such byte
// were U+FFFD, which is what AppendEncode encodes, without a replaced copy.
// The checks cost little: valid text takes the first branch of each.
func decode(s string, i int) (rune, int) {
	switch b := s[i]; {
	case b < 0xC2:
	case b < 0xE0:
		if i+1 < len(s) && s[i+1]&0xC0 == 0x80 {
			return rune(b&0x1F)<<6 | rune(s[i+1]&0x3F), 2
		}
	case b < 0xF0:
		if i+2 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
			r := rune(b&0x0F)<<12 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			if r >= 0x800 && (r < 0xD800 || r > 0xDFFF) {
				return r, 3
			}
		}
	case b < 0xF5:
		if i+3 < len(s) && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 && s[i+3]&0xC0 == 0x80 {
			r := rune(b&0x07)<<18 | rune(s[i+1]&0x3F)<<12 | rune(s[i+2]&0x3F)<<6 | rune(s[i+3]&0x3F)
			if r >= 0x10000 && r <= utf8.MaxRune {
				return r, 4
			}
		}
	}
	return utf8.RuneError, 1
}

// acceptRun returns the end of the run of characters with one of the flags
// in mask that starts at s[i].
func (e *Engine) acceptRun(s string, i int, mask uint8) int {
	for {
		c, n := e.class2(s, i)
		if n < 0 {
			c, n = e.peekSlow(s, i)
		}
		if c&mask == 0 { // also at the end of s, where c is 0
			return i
		}
		i += n
	}
}

// pieceEnd returns the end of the piece that starts at s[i] (i < len(s)).
func (e *Engine) pieceEnd(s string, i int) int {
	if end := e.asciiWord(s, i); end >= 0 {
		return end
	}
	c, n := e.peek(s, i)
	// Alternatives 1 and 2 start with an optional [^\r\n\p{L}\p{N}] and
	// then need a letter or mark.
	if c&(fUpper|fLower|fPre) != 0 {
		if end := e.word(s, i, c, n); end >= 0 {
			return end
		}
	}
	// Alternative 3: \p{N}{1,3}.
	if c&fNum != 0 {
		i += n
		for k := 0; k < 2; k++ {
			c, n := e.peek(s, i)
			if c&fNum == 0 {
				break
			}
			i += n
		}
		return i
	}
	// Alternative 4: ` ?[^\s\p{L}\p{N}]+[\r\n/]*`. The optional space is
	// tried first; without it the match would have to start with the space,
	// which is \s, so there is nothing to backtrack to.
	if s[i] == ' ' {
		c, n = e.peek(s, i+1)
		if c&fPunct != 0 {
			return e.punct(s, i+1+n)
		}
	} else if c&fPunct != 0 {
		return e.punct(s, i+n)
	}
	// Every other character is \s.
	return e.space(s, i)
}

// asciiWord is pieceEnd for the commonest pieces, words of ASCII letters,
// in one pass: an ASCII letter, or an ASCII [^\r\n\p{L}\p{N}] (a space, a
// tab, punctuation) and then an ASCII letter, where the run of ASCII
// letters that follows ends at an ASCII character or the end of s. It
// returns -1 for any other piece, which the general path takes. The run
// is [A-Z]*[a-z]* (it stops at an upper-case letter after a lower-case
// one), and then:
//
//   - With a lower-case letter, alternative 1 matches at once, with the
//     optional character taken (the regex tries that first): [A-Z]* takes
//     the upper-case letters and [a-z]+ the lower-case ones, and the next
//     character, not a lower-case letter, ends it; in ASCII no letter is
//     of both classes.
//   - Without one, alternative 1 cannot match, with the optional character
//     or without it (which starts at a character that is no letter), and
//     alternative 2 takes the optional character and the letters.
//
// Both then take a contraction if one follows, as word does.
func (e *Engine) asciiWord(s string, i int) int {
	j := i
	if c := s[i]; c >= utf8.RuneSelf {
		return -1
	} else if f := asciiFlags[c]; f&(fUpper|fLower) == 0 {
		if f&fPre == 0 {
			return -1
		}
		j++ // the optional character
	}
	k := j
	for k < len(s) && s[k]-'A' < 26 {
		k++
	}
	for k < len(s) && s[k]-'a' < 26 {
		k++
	}
	if k == j || k < len(s) && s[k] >= utf8.RuneSelf {
		return -1 // no letter, or a character that may be one follows
	}
	return e.contraction(s, k)
}

// punct finishes alternative 4 after its first [^\s\p{L}\p{N}] character,
// which ends at s[i]: the rest of the run, then [\r\n/]*. Neither quantifier
// has anything after it that could fail, so greedy is final.
func (e *Engine) punct(s string, i int) int {
	i = e.acceptRun(s, i, fPunct)
	for i < len(s) && (s[i] == '\r' || s[i] == '\n' || s[i] == '/') {
		i++
	}
	return i
}

// space handles alternatives 5 to 7 at s[i], a \s character.
//
//   - `\s*[\r\n]+`: \s* first takes the whole run of \s, then gives it back
//     one character at a time until [\r\n]+ can match, which is at the last
//     \r or \n of the run; [\r\n]+ takes that one character (the next one is
//     not \r or \n, or it would be the last). No \r or \n: no match.
//   - `\s+(?!\S)`: the whole run if it reaches the end of the text, else the
//     run without its last character (then followed by \s), if that leaves
//     one.
//   - `\s+`: the whole run (a single \s before \S).
func (e *Engine) space(s string, i int) int {
	start, last, nl := i, i, -1
	for i < len(s) {
		var c uint8
		n := 1
		if b := s[i]; b < utf8.RuneSelf {
			c = asciiFlags[b]
		} else {
			c, n = e.peek(s, i)
		}
		if c&fSpace == 0 {
			break
		}
		if c&fNewline != 0 {
			nl = i + 1
		}
		last = i
		i += n
	}
	switch {
	case nl >= 0:
		return nl
	case i == len(s) || last == start:
		return i
	default:
		return last
	}
}

// word handles alternatives 1 and 2 at s[i], whose flags c and size n the
// caller has looked up. It returns -1 if neither matches.
//
// Both start with [^\r\n\p{L}\p{N}]?, greedy: with that character taken if
// c has fPre, else (or if the rest fails) without it. Marks are both
// [^\r\n\p{L}\p{N}] and letters of the classes that follow, so both ways
// can be live.
func (e *Engine) word(s string, i int, c uint8, n int) int {
	if c&fPre != 0 {
		if end := e.upperLower(s, i+n); end >= 0 {
			return e.contraction(s, end)
		}
	}
	if c&(fUpper|fLower) != 0 {
		if end := e.upperLower(s, i); end >= 0 {
			return e.contraction(s, end)
		}
	}
	if c&fPre != 0 {
		if end := e.upperThenLower(s, i+n); end >= 0 {
			return e.contraction(s, end)
		}
	}
	if c&fUpper != 0 {
		return e.contraction(s, e.upperThenLower(s, i))
	}
	return -1
}

// upperLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// at s[i], the core of alternative 1, and returns its end or -1.
//
// The star takes the whole run of upper-class characters, ending at k. If
// s[k] is lower-class, the plus starts there and takes its whole run.
// Otherwise the star gives back one character at a time; the plus can
// start at the last character of the run that is also lower-class (Lm, Lo,
// M), and then stops right after it, since everything after it in the run is
// upper-only and s[k] is not lower-class either. No such character: no
// match.
func (e *Engine) upperLower(s string, i int) int {
	lastBoth := -1
	for i < len(s) {
		c, n := e.class2(s, i)
		if n < 0 {
			c, n = e.peekSlow(s, i)
		}
		if c&fUpper == 0 {
			if c&fLower != 0 {
				return e.acceptRun(s, i+n, fLower)
			}
			break
		}
		i += n
		if c&fLower != 0 {
			lastBoth = i
		}
	}
	return lastBoth
}

// upperThenLower matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// at s[i], the core of alternative 2, and returns its end or -1. Greedy with
// nothing that can fail after it (the contraction is optional).
func (e *Engine) upperThenLower(s string, i int) int {
	k := e.acceptRun(s, i, fUpper)
	if k == i {
		return -1
	}
	return e.acceptRun(s, k, fLower)
}

// contraction extends a match of alternative 1 or 2 that ends at s[i] by
// (?i:'s|'t|'re|'ve|'m|'ll|'d) if one follows. With Unicode case folding, as
// the reference's regex crate does it, s also matches U+017F LATIN SMALL
// LETTER LONG S; no other letter of the group has a non-ASCII fold. If i < 0
// it returns i.
func (e *Engine) contraction(s string, i int) int {
	if i < 0 || i+1 >= len(s) || s[i] != '\'' {
		return i
	}
	switch s[i+1] | 0x20 {
	case 's', 't', 'm', 'd':
		return i + 2
	case 'r', 'v':
		if i+2 < len(s) && s[i+2]|0x20 == 'e' {
			return i + 3
		}
	case 'l':
		if i+2 < len(s) && s[i+2]|0x20 == 'l' {
			return i + 3
		}
	case 0xc5 | 0x20: // U+017F is C5 BF
		if s[i+1] == 0xc5 && i+2 < len(s) && s[i+2] == 0xbf {
			return i + 3
		}
	}
	return i
}
