package jsonschema

// This file estimates the memory a compiled schema holds, for the cache's
// accounting. The estimate sums, over the *Schema values of the compiled
// graph, the struct itself and what its fields hold: the location string,
// the decoded values of enum and const, the names of properties and
// required members, the maps and slices of subschemas, the big.Rat bounds
// and the compiled regular expressions (sized from their RE2 programs,
// which is where a short pattern such as "\pL{1000}" holds megabytes). The
// constants are the sizes Go 1.26 on 64-bit platforms allocates, rounded
// up; TestCacheHeapWithinBudget checks the estimate against the heap.

import (
	"encoding/json"
	"math/big"
	"regexp"
	"regexp/syntax"
	"unsafe"

	js "github.com/santhosh-tekuri/jsonschema/v5"
)

const (
	// schemaStructSize is the allocation of one js.Schema (848 bytes,
	// allocated in the 896-byte size class).
	schemaStructSize = 896
	// ratSize is one *big.Rat with its two big.Int words slices.
	ratSize = 160
	// regexpBaseSize is a regexp.Regexp without its program.
	regexpBaseSize = 512
	// instSize is one RE2 instruction: in the program, in its one-pass
	// form and in the one-pass transition tables (measured up to 260
	// bytes for one-pass programs, 115 for the others).
	instSize = 280
)

// estimateSize returns the memory the compiled schemas of nodes hold.
func estimateSize(nodes []gnode) int64 {
	var n int64
	seen := map[*regexp.Regexp]bool{}
	for i := range nodes {
		n += schemaSize(nodes[i].s, seen)
	}
	return n
}

// shareRegexps makes the subschemas of nodes share one compiled regular
// expression per pattern: generated schemas repeat the same "pattern" (a
// UUID, a date) on many properties, and each compiled copy holds kilobytes.
func shareRegexps(nodes []gnode) {
	byExpr := map[string]*regexp.Regexp{}
	share := func(re *regexp.Regexp) *regexp.Regexp {
		if old, ok := byExpr[re.String()]; ok {
			return old
		}
		byExpr[re.String()] = re
		return re
	}
	for i := range nodes {
		s := nodes[i].s
		if s.Pattern != nil {
			s.Pattern = share(s.Pattern)
		}
		if len(s.PatternProperties) > 0 {
			pp := make(map[*regexp.Regexp]*js.Schema, len(s.PatternProperties))
			for re, c := range s.PatternProperties {
				pp[share(re)] = c
			}
			s.PatternProperties = pp
		}
	}
}

// schemaSize estimates the memory one compiled schema holds beyond the
// subschemas it points to and the regular expressions in seen, which it
// adds its own to.
func schemaSize(s *js.Schema, seen map[*regexp.Regexp]bool) int64 {
	regexpOnce := func(re *regexp.Regexp) int64 {
		if seen[re] {
			return 0
		}
		seen[re] = true
		return regexpSize(re)
	}
	n := int64(schemaStructSize) + stringSize(s.Location) + stringSize(s.Format) + stringSize(s.DynamicAnchor)
	n += stringsSize(s.Types) + stringsSize(s.Required)
	if s.Enum != nil {
		// The values, and the error message listing them.
		n += 2 * valueSize(s.Enum)
	}
	if s.Constant != nil {
		n += valueSize(s.Constant)
	}
	n += pointersSize(len(s.AllOf)) + pointersSize(len(s.AnyOf)) + pointersSize(len(s.OneOf)) + pointersSize(len(s.PrefixItems))
	if items, ok := s.Items.([]*js.Schema); ok {
		n += pointersSize(len(items)) + 16
	}
	if s.Properties != nil {
		n += mapSize(len(s.Properties), 24)
		for k := range s.Properties {
			n += stringSize(k)
		}
	}
	if s.PatternProperties != nil {
		n += mapSize(len(s.PatternProperties), 16)
		for re := range s.PatternProperties {
			n += regexpOnce(re)
		}
	}
	if s.Pattern != nil {
		n += regexpOnce(s.Pattern)
	}
	if s.Dependencies != nil {
		n += mapSize(len(s.Dependencies), 32)
		for k, v := range s.Dependencies {
			n += stringSize(k) + 32
			if names, ok := v.([]string); ok {
				n += stringsSize(names)
			}
		}
	}
	if s.DependentRequired != nil {
		n += mapSize(len(s.DependentRequired), 40)
		for k, v := range s.DependentRequired {
			n += stringSize(k) + stringsSize(v)
		}
	}
	if s.DependentSchemas != nil {
		n += mapSize(len(s.DependentSchemas), 24)
		for k := range s.DependentSchemas {
			n += stringSize(k)
		}
	}
	for _, r := range []*big.Rat{s.Minimum, s.ExclusiveMinimum, s.Maximum, s.ExclusiveMaximum, s.MultipleOf} {
		if r != nil {
			n += ratSize + int64(len(r.Num().Bits())+len(r.Denom().Bits()))*8
		}
	}
	return n
}

// mapSize estimates a Go map of n entries whose slots (key and value) take
// slot bytes: its header, and groups of eight slots and eight control bytes
// filled to seven eighths at most.
func mapSize(n int, slot int64) int64 {
	slots := max(8, (int64(n)*8/7+7)&^7)
	return 64 + roundUp(slots*(slot+1))
}

func stringSize(s string) int64 {
	if s == "" {
		return 0
	}
	return roundUp(int64(len(s)))
}

func stringsSize(ss []string) int64 {
	if ss == nil {
		return 0
	}
	n := roundUp(int64(len(ss)) * int64(unsafe.Sizeof("")))
	for _, s := range ss {
		n += stringSize(s)
	}
	return n
}

func pointersSize(n int) int64 {
	if n == 0 {
		return 0
	}
	return roundUp(int64(n) * 8)
}

// roundUp rounds an allocation up to a multiple of 16 bytes, and adds 16
// for the size-class slack of small objects.
func roundUp(n int64) int64 { return (n+15)&^15 + 16 }

// valueSize estimates the memory of a value decoded by encoding/json with
// UseNumber: interfaces of 16 bytes, strings and json.Number with their
// bytes, slices and maps of interfaces.
func valueSize(v any) int64 {
	switch t := v.(type) {
	case string:
		return 16 + stringSize(t)
	case json.Number:
		return 16 + 16 + stringSize(string(t))
	case []any:
		n := int64(16 + 24 + 16*len(t))
		for _, e := range t {
			n += valueSize(e)
		}
		return n
	case map[string]any:
		n := 16 + mapSize(len(t), 32)
		for k, e := range t {
			n += stringSize(k) + valueSize(e)
		}
		return n
	}
	return 16
}

// regexpSize estimates a compiled regular expression from its RE2
// program.
func regexpSize(re *regexp.Regexp) int64 {
	expr := re.String()
	n := int64(regexpBaseSize) + 2*stringSize(expr)
	p, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return n
	}
	prog, err := syntax.Compile(p.Simplify())
	if err != nil {
		return n
	}
	seen := map[*rune]bool{} // repeated classes share their ranges
	for _, in := range prog.Inst {
		n += instSize
		if len(in.Rune) > 0 && !seen[&in.Rune[0]] {
			seen[&in.Rune[0]] = true
			n += 3 * 4 * int64(len(in.Rune))
		}
	}
	return n
}
