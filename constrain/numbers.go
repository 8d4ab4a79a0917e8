package constrain

// This file writes the regular languages of JSON numbers as regular
// expressions: the number grammar of RFC 8259, integers, and decimal ranges
// (minimum, maximum and their exclusive forms) as digit-by-digit
// comparisons. The expressions are ASCII and anchored; they compile with
// anchoredDFA.

import (
	"fmt"
	"math/big"
	"strings"
)

// The numbers written are those the project's JSON parser (internal/ojson,
// serde_json's algorithm) reads as finite: it refuses a number that
// overflows a float64, and some just below (1.7976931348623158e308), so
// numbers stay below 10^308 in magnitude. Without an exponent, that is at
// most 308 integer digits; with a negative one, too; with a positive
// exponent E, an integer part of m digits, m at most 20, and E at most
// 308-m (a zero integer part, E at most 308), leading zeros allowed.
var (
	reNumber  = `-?(?:` + strings.Join(numberAlts(), "|") + `)`
	reInteger = `-?(?:0|[1-9][0-9]{0,307})`
)

// numberAlts returns the alternatives of reNumber, as the comment above
// reasons: a number without a positive exponent (the integer part is what
// bounds it), zero with one, and for each length m of a nonzero integer
// part the exponents that keep it below 10^308.
func numberAlts() []string {
	alts := []string{
		`(?:0|[1-9][0-9]{0,307})(?:\.[0-9]+)?(?:[eE]-[0-9]+)?`,
		`0(?:\.[0-9]+)?[eE]\+?0*` + intLE("308"),
	}
	for m := 1; m <= 20; m++ {
		alts = append(alts, fmt.Sprintf(`[1-9][0-9]{%d}(?:\.[0-9]+)?[eE]\+?0*`, m-1)+intLE(fmt.Sprint(308-m)))
	}
	return alts
}

// numberDFA and intDFA are the automata of every number and every integer,
// built once.
var numberDFA, intDFA = mustDFA(reNumber), mustDFA(reInteger)

// mustDFA compiles one of the package's own regexps once, without a
// budget; failing is a bug in the regexp, hence the panic.
func mustDFA(re string) *dfa {
	d, err := anchoredDFA(nil, re)
	if err != nil {
		panic(err)
	}
	return d
}

// numberByte reports whether b may be part of a number's text. A number
// ends at the first byte that cannot be, so a byte that can and that the
// number's automaton refuses kills the thread instead of ending the number.
func numberByte(b byte) bool {
	return b >= '0' && b <= '9' || b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E'
}

// decimal splits a non-negative rational with a finite decimal expansion
// into its integer digits (no leading zeros, "0" for zero) and fraction
// digits (no trailing zeros); ok is false when the expansion is infinite.
func decimal(r *big.Rat) (intPart, frac string, ok bool) {
	if r.Sign() < 0 {
		r = new(big.Rat).Neg(r)
	}
	num := new(big.Int).Set(r.Num())
	den := r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	intPart = q.String()
	var fb strings.Builder
	ten := big.NewInt(10)
	for i := 0; m.Sign() != 0; i++ {
		if i > 400 {
			return "", "", false
		}
		m.Mul(m, ten)
		d, mm := new(big.Int).QuoRem(m, den, new(big.Int))
		fb.WriteString(d.String())
		m = mm
	}
	return intPart, fb.String(), true
}

// intGE is the regexp of the non-negative integers (no sign, no leading
// zeros) that are >= n, n given as its digits.
func intGE(n string) string {
	k := len(n)
	alts := []string{fmt.Sprintf(`[1-9][0-9]{%d,}`, k)} // more digits
	alts = append(alts, n)
	for i := 0; i < k; i++ {
		d := n[i]
		if d == '9' {
			continue
		}
		alts = append(alts, n[:i]+fmt.Sprintf(`[%c-9][0-9]{%d}`, d+1, k-i-1))
	}
	if n == "0" {
		alts = append(alts, "0")
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

// intLE is the regexp of the non-negative integers that are <= n.
func intLE(n string) string {
	k := len(n)
	alts := []string{"0", n}
	if k >= 2 {
		alts = append(alts, fmt.Sprintf(`[1-9][0-9]{0,%d}`, k-2))
	}
	for i := 0; i < k; i++ {
		d := n[i]
		lo := byte('0')
		if i == 0 {
			lo = '1'
		}
		if d <= lo {
			continue
		}
		alts = append(alts, n[:i]+fmt.Sprintf(`[%c-%c][0-9]{%d}`, lo, d-1, k-i-1))
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

// fracGE is the regexp of fraction digit strings f (possibly empty) with
// 0.f >= 0.b, b without trailing zeros.
func fracGE(b string) string {
	if b == "" {
		return `[0-9]*`
	}
	alts := []string{b + `[0-9]*`}
	for i := 0; i < len(b); i++ {
		if b[i] == '9' {
			continue
		}
		alts = append(alts, b[:i]+fmt.Sprintf(`[%c-9][0-9]*`, b[i]+1))
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

// fracLE is the regexp of fraction digit strings f with 0.f <= 0.b.
func fracLE(b string) string {
	alts := []string{`0*`}
	for i := 0; i < len(b); i++ {
		alts = append(alts, b[:i+1]+`0*`)
		if b[i] > '0' {
			alts = append(alts, b[:i]+fmt.Sprintf(`[0-%c][0-9]*`, b[i]-1))
		}
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

// absGE is the regexp of non-negative decimals ip(.fp)? whose value is >=
// the value of (i, f); absLE of those <=. integer restricts to integers.
func absGE(i, f string, integer bool) string {
	if integer {
		if f != "" {
			i = addOne(i)
		}
		return intGE(i)
	}
	alts := []string{intGE(addOne(i)) + `(?:\.[0-9]+)?`}
	if f == "" {
		alts = append(alts, i+`(?:\.[0-9]+)?`)
	} else {
		alts = append(alts, i+`\.`+fracGE(f))
	}
	return `(?:` + strings.Join(alts, "|") + `)`
}

// absLE is the regexp of the non-negative decimals whose value is <= the
// value of (i, f), absGE's mirror; integer restricts to integers.
func absLE(i, f string, integer bool) string {
	if integer {
		return intLE(i)
	}
	var alts []string
	if i != "0" {
		alts = append(alts, intLE(subOne(i))+`(?:\.[0-9]+)?`)
	}
	alts = append(alts, i+`(?:\.`+fracLE(f)+`)?`)
	return `(?:` + strings.Join(alts, "|") + `)`
}

// addOne returns the digits of n+1, n given as its digits (a bound may have
// hundreds, hence big.Int).
func addOne(n string) string {
	v, _ := new(big.Int).SetString(n, 10)
	return v.Add(v, big.NewInt(1)).String()
}

// subOne returns the digits of n-1, n given as its digits and above 0.
func subOne(n string) string {
	v, _ := new(big.Int).SetString(n, 10)
	return v.Sub(v, big.NewInt(1)).String()
}

// boundRegexp is the anchored regexp of the numbers x with x >= r
// (lower) or x <= r; equalRegexp of those with x == r. They are written
// without an exponent, except when r is zero: the sign alone decides then,
// so exponents are kept. integer restricts to integers (which never have a
// fraction or an exponent).
func boundRegexp(r *big.Rat, lower, integer bool) (string, error) {
	i, f, ok := decimal(r)
	if !ok {
		return "", fmt.Errorf("bound %s has no finite decimal expansion", r.RatString())
	}
	frac, exp := `(?:\.[0-9]+)?`, ""
	if integer {
		frac = ""
	} else if r.Sign() == 0 {
		exp = `(?:[eE][+-]?[0-9]+)?`
	}
	allNeg := `-(?:0|[1-9][0-9]*)` + frac + exp
	allPos := `(?:0|[1-9][0-9]*)` + frac + exp
	zero := `0` + exp
	if !integer {
		zero = `0(?:\.0+)?` + exp
	}
	switch {
	case r.Sign() == 0 && lower:
		return allPos + `|-` + zero, nil
	case r.Sign() == 0:
		return allNeg + `|` + zero, nil
	case lower && r.Sign() > 0:
		return absGE(i, f, integer), nil
	case lower: // r < 0: all non-negatives, and negatives with |x| <= |r|
		return allPos + `|-` + absLE(i, f, integer), nil
	case r.Sign() > 0: // x <= r
		return allNeg + `|` + absLE(i, f, integer), nil
	default: // x <= r < 0: negatives with |x| >= |r|
		return `-` + absGE(i, f, integer), nil
	}
}

// equalRegexp is the anchored regexp of the spellings of exactly r: without
// exponent and with any trailing zeros in the fraction, or for zero, every
// spelling of zero, exponents included; integer restricts to integers, of
// which there is none when r has a fraction (a class of no character).
func equalRegexp(r *big.Rat, integer bool) string {
	i, f, _ := decimal(r)
	if r.Sign() == 0 {
		if integer {
			return `-?0`
		}
		return `-?0(?:\.0+)?(?:[eE][+-]?[0-9]+)?`
	}
	sign := ""
	if r.Sign() < 0 {
		sign = "-"
	}
	switch {
	case integer && f != "":
		return `[^\x00-\x{10FFFF}]` // no integer equals a fraction
	case integer:
		return sign + i
	case f == "":
		return sign + i + `(?:\.0+)?`
	}
	return sign + i + `\.` + f + `0*`
}
