package constrain

// NFA construction: a regular expression, as regexp/syntax parses it, made
// into a Thompson NFA over bytes, and the entry points that take a pattern
// to a trimmed DFA (searchDFA for a schema's pattern, anchoredDFA for the
// package's own regexps).

import (
	"fmt"
	"regexp/syntax"
	"unicode"
)

const (
	nByte  = iota // one byte in [lo, hi] to out
	nSplit        // epsilon to out and out1
	nEps          // epsilon to out
	nBegin        // epsilon to out, only at the start of the text
	nEnd          // epsilon to out, only at the end of the text
	nMatch        // the accepting state
)

// nstate is one NFA state, op saying how it moves (an nByte state with lo >
// hi moves on no byte). A state is named by its index in nfa.st.
type nstate struct {
	op        uint8
	lo, hi    byte
	out, out1 int32
}

// nfa is an NFA under construction. Its first error (a bound or the budget
// passed) sticks in err: add then returns the placeholder 0, so that compile
// checks err once at each operator instead of after every state.
type nfa struct {
	st  []nstate
	err error
	m   *meter
}

// add appends s and returns its index, charging a state and its 12 bytes;
// past maxNFAStates or the budget it sets n.err and returns 0.
func (n *nfa) add(s nstate) int32 {
	if len(n.st) >= maxNFAStates {
		n.err = fmt.Errorf("%w: regular expression needs more than %d NFA states", ErrTooComplex, maxNFAStates)
		return 0
	}
	if err := n.m.charge(1, 12); err != nil {
		n.err = err
		return 0
	}
	n.st = append(n.st, s)
	return int32(len(n.st) - 1)
}

// runeRange adds states matching one rune in [lo, hi] (surrogates excluded)
// and going on to next; it returns the entry state, or -1 for an empty range.
func (n *nfa) runeRange(lo, hi rune, next int32) int32 {
	entry := int32(-1)
	utf8Seqs(lo, hi, func(seq []byteRange) {
		e := next
		for i := len(seq) - 1; i >= 0; i-- {
			e = n.add(nstate{op: nByte, lo: seq[i].lo, hi: seq[i].hi, out: e})
		}
		if entry < 0 {
			entry = e
		} else {
			entry = n.add(nstate{op: nSplit, out: entry, out1: e})
		}
	})
	return entry
}

// class adds states for a set of rune ranges (pairs lo, hi), one branch
// per byte-sequence shape, going on to next; it returns the entry state, or
// -1 when the set holds no code point.
func (n *nfa) class(ranges []rune, next int32) int32 {
	entry := int32(-1)
	for i := 0; i+1 < len(ranges); i += 2 {
		e := n.runeRange(ranges[i], ranges[i+1], next)
		if e < 0 {
			continue
		}
		if entry < 0 {
			entry = e
		} else {
			entry = n.add(nstate{op: nSplit, out: entry, out1: e})
		}
	}
	return entry
}

// anyRune is the class of every code point, as class's pairs (utf8Seqs
// leaves the surrogates out).
var anyRune = []rune{0, unicode.MaxRune}

// never returns a state with no way out (an empty class).
func (n *nfa) never() int32 { return n.add(nstate{op: nByte, lo: 1, hi: 0}) }

// compile adds states for re going on to next and returns the entry state.
// The NFA is built back to front: each operator is compiled knowing the
// state its match goes on to, so no dangling exit has to be patched but a
// loop's, whose split state is made before its body and filled in after.
// A literal or class becomes the byte sequences of its UTF-8 encodings, so
// the automaton reads bytes and accepts only valid UTF-8. OpRepeat is
// unrolled, its optional copies nested (x{1,3} is x(x(x)?)?); parseRegexp
// simplifies, which already expands repetitions, so that case serves a tree
// that was not simplified, within the bound of 1000.
func (n *nfa) compile(re *syntax.Regexp, next int32) int32 {
	if n.err != nil {
		return 0
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return n.never()
	case syntax.OpEmptyMatch:
		return next
	case syntax.OpLiteral:
		e := next
		for i := len(re.Rune) - 1; i >= 0; i-- {
			r := re.Rune[i]
			ranges := []rune{r, r}
			if re.Flags&syntax.FoldCase != 0 {
				for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
					ranges = append(ranges, f, f)
				}
			}
			e = n.class(ranges, e)
			if e < 0 {
				return n.never()
			}
		}
		return e
	case syntax.OpCharClass:
		e := n.class(re.Rune, next)
		if e < 0 {
			return n.never()
		}
		return e
	case syntax.OpAnyCharNotNL:
		return n.class([]rune{0, '\n' - 1, '\n' + 1, unicode.MaxRune}, next)
	case syntax.OpAnyChar:
		return n.class(anyRune, next)
	case syntax.OpBeginText:
		return n.add(nstate{op: nBegin, out: next})
	case syntax.OpEndText:
		return n.add(nstate{op: nEnd, out: next})
	case syntax.OpCapture:
		return n.compile(re.Sub[0], next)
	case syntax.OpConcat:
		e := next
		for i := len(re.Sub) - 1; i >= 0; i-- {
			e = n.compile(re.Sub[i], e)
		}
		return e
	case syntax.OpAlternate:
		e := n.compile(re.Sub[0], next)
		for _, sub := range re.Sub[1:] {
			e = n.add(nstate{op: nSplit, out: e, out1: n.compile(sub, next)})
		}
		return e
	case syntax.OpStar:
		loop := n.add(nstate{op: nSplit})
		body := n.compile(re.Sub[0], loop)
		if n.err == nil {
			n.st[loop].out, n.st[loop].out1 = body, next
		}
		return loop
	case syntax.OpPlus:
		loop := n.add(nstate{op: nSplit})
		body := n.compile(re.Sub[0], loop)
		if n.err == nil {
			n.st[loop].out, n.st[loop].out1 = body, next
		}
		return body
	case syntax.OpQuest:
		return n.add(nstate{op: nSplit, out: n.compile(re.Sub[0], next), out1: next})
	case syntax.OpRepeat:
		if re.Max > 1000 || re.Min > 1000 {
			n.err = fmt.Errorf("%w: repetition count above 1000", ErrTooComplex)
			return 0
		}
		e := next
		if re.Max < 0 {
			e = n.compile(&syntax.Regexp{Op: syntax.OpStar, Sub: re.Sub, Flags: re.Flags}, next)
		} else {
			for i := re.Min; i < re.Max; i++ {
				e = n.add(nstate{op: nSplit, out: n.compile(re.Sub[0], e), out1: next})
			}
		}
		for i := 0; i < re.Min; i++ {
			e = n.compile(re.Sub[0], e)
		}
		return e
	}
	// OpBeginLine, OpEndLine (multi-line mode), OpWordBoundary,
	// OpNoWordBoundary: not done.
	n.err = fmt.Errorf("%w: regular expression operator %v", ErrUnsupported, re.Op)
	return 0
}

// parseRegexp parses an ECMA-262 pattern as Go's regexp package reads it
// (RE2 syntax, Perl flags), which is what the validator does, and
// simplifies it (counted repetitions expanded, nested quantifiers folded).
func parseRegexp(pattern string) (*syntax.Regexp, error) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return re.Simplify(), nil
}

// searchDFA compiles a schema's pattern with JSON Schema's semantics: the
// string matches when it contains a match (unanchored), over valid UTF-8. A
// pattern that does not parse is ErrInvalidSchema.
func searchDFA(m *meter, pattern string) (*dfa, error) {
	if err := chargePattern(m, pattern); err != nil {
		return nil, err
	}
	re, err := parseRegexp(pattern)
	if err != nil {
		return nil, fmt.Errorf("%w: pattern %q: %v", ErrInvalidSchema, pattern, err)
	}
	return regexpDFA(m, re, true)
}

// anchoredDFA compiles a pattern that must match the whole string: the
// package's own regexps (formats, number ranges and spellings), which are
// known to parse.
func anchoredDFA(m *meter, pattern string) (*dfa, error) {
	if err := chargePattern(m, pattern); err != nil {
		return nil, err
	}
	re, err := parseRegexp(`^(?:` + pattern + `)$`)
	if err != nil {
		return nil, err
	}
	return regexpDFA(m, re, false)
}

// chargePattern charges parsing pattern and the fixed costs of a subset
// construction (its maps and buffers).
func chargePattern(m *meter, pattern string) error {
	return m.charge(1+len(pattern)/16, 2048+patternBytesPerByte*len(pattern))
}

// regexpDFA builds the trimmed DFA of re; unanchored adds the implicit .*
// on both sides of a search, as loops of any code point before re's entry
// and after its match, so that determinizing gives one automaton that finds
// a match at any position rather than a search per start.
func regexpDFA(m *meter, re *syntax.Regexp, unanchored bool) (*dfa, error) {
	n := &nfa{m: m}
	match := n.add(nstate{op: nMatch})
	end := match
	if unanchored {
		end = n.add(nstate{op: nSplit, out1: match})
		n.st[end].out = n.class(anyRune, end)
	}
	entry := n.compile(re, end)
	if unanchored {
		loop := n.add(nstate{op: nSplit, out1: entry})
		n.st[loop].out = n.class(anyRune, loop)
		entry = loop
	}
	if n.err != nil {
		return nil, n.err
	}
	return n.determinize(entry)
}
