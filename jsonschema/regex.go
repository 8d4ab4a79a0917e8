package jsonschema

// This file bounds the regular expressions of a schema before the compiler
// compiles them: a pattern of a dozen bytes such as "[\pL\pN]{1000}"
// compiles to a thousand instructions, which take about a millisecond to
// compile and tens of kilobytes to hold, so that a 45 KB schema of such
// patterns would take a second and hundreds of megabytes.

import (
	"fmt"
	"regexp/syntax"

	"github.com/go-harmony/harmony/internal/schemanorm"
)

// maxRegexpInsts bounds the instructions the distinct regular expressions
// of a schema compile to: about 75 ms of compiling and 30 MB of programs at
// most. The most any real schema of JSONSchemaBench needs is 5,540.
const maxRegexpInsts = 100_000

// regexpInsts estimates the instructions the program of a regular
// expression takes, from its syntax tree: repetitions multiply.
func regexpInsts(re *syntax.Regexp) int64 {
	var n int64
	for _, sub := range re.Sub {
		n = satAdd(n, regexpInsts(sub))
	}
	switch re.Op {
	case syntax.OpLiteral:
		return int64(len(re.Rune)) + 1
	case syntax.OpRepeat:
		times := int64(re.Max)
		if times < 0 {
			times = int64(re.Min) + 1
		}
		return satAdd(satMul(n, max(times, 1)), times)
	}
	return n + 1
}

func satAdd(a, b int64) int64 { return min(a+b, 1<<40) }

func satMul(a, b int64) int64 {
	if a > 0 && b > (1<<40)/a {
		return 1 << 40
	}
	return a * b
}

// checkRegexps refuses a decoded schema whose patterns would compile to more
// than maxRegexpInsts instructions, naming the pattern that passes the
// bound. Patterns that do not parse are left to the compiler to report.
func checkRegexps(v any) *compiledSchema {
	seen := map[string]bool{}
	var total int64
	var refusal *compiledSchema
	add := func(ptr func() string, expr string) bool {
		if seen[expr] {
			return true
		}
		seen[expr] = true
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			return true
		}
		if total = satAdd(total, regexpInsts(re)); total > maxRegexpInsts {
			refusal = tooComplexCompile(ptr(), fmt.Sprintf("its regular expressions would compile to more than %d instructions", maxRegexpInsts))
			return false
		}
		return true
	}
	schemanorm.WalkDecoded(v, func(ptr schemanorm.Pointer, v any) bool {
		m, ok := v.(map[string]any)
		if !ok {
			return true
		}
		if p, ok := m["pattern"].(string); ok && !add(func() string { return string(ptr.Append("pattern")) }, p) {
			return false
		}
		if pp, ok := m["patternProperties"].(map[string]any); ok {
			for _, k := range sortedKeys(pp) {
				if !add(func() string { return string(ptr.Append("patternProperties", k)) }, k) {
					return false
				}
			}
		}
		return true
	})
	return refusal
}
