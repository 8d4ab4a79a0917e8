package constrain

import (
	"fmt"
	"strings"
	"testing"
)

// The probes are the schemas an attacker sent to measure what compiling
// costs (see BenchmarkCompileProbes): each is as cheap to send as it is
// costly to compile without a budget.

// anyOfPatterns is an anyOf of n string branches, each with a pattern of its
// own: {"anyOf":[{"type":"string","pattern":"^p0[a-z]*$"},...]}.
func anyOfPatterns(n int) string {
	var b strings.Builder
	b.WriteString(`{"anyOf":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"string","pattern":"^p%d[a-z]*$"}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// requiredNames is an object with n required properties that only
// additionalProperties describes.
func requiredNames(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","required":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"p%d"`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// enumStrings is an enum of n distinct strings.
func enumStrings(n int) string {
	var b strings.Builder
	b.WriteString(`{"enum":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"value %d"`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// wideObject is an object of n properties, every one required, of
// alternating types.
func wideObject(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		t := [...]string{"string", "integer", "boolean"}[i%3]
		fmt.Fprintf(&b, `"property_%d":{"type":%q}`, i, t)
	}
	b.WriteString(`},"required":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"property_%d"`, i)
	}
	b.WriteString(`],"additionalProperties":false}`)
	return b.String()
}

var probes = []struct {
	name   string
	schema func() string
}{
	{"anyOf-5000-patterns", func() string { return anyOfPatterns(5000) }},
	{"anyOf-200000-patterns", func() string { return anyOfPatterns(200000) }},
	{"required-50000", func() string { return requiredNames(50000) }},
	{"enum-100000", func() string { return enumStrings(100000) }},
	{"object-4000", func() string { return wideObject(4000) }},
	{"object-16000", func() string { return wideObject(16000) }},
	{"ref-chain-20000", func() string { return refChain(20000) }},
	{"nested-items-5000", func() string { return nestedItems(5000) }},
	{"oneOf-consts-3000", func() string { return oneOfConsts(3000) }},
	{"anyOf-lengths-2000", func() string { return anyOfLengths(2000) }},
	{"allOf-patterns-26", func() string { return allOfPatterns(26) }},
}

// BenchmarkCompileProbes compiles each probe with the default Budget:
// ns/op and B/op are what one such request costs a server, states/op and
// charged-B/op what the budget counted. Most are refused as the budget runs
// out; the wide objects compile.
//
//	go test -run '^$' -bench CompileProbes -benchtime 5x ./constrain
func BenchmarkCompileProbes(b *testing.B) {
	enc := testEncoding(b)
	compile(b, `{}`, nil) // the vocabulary's tables, built once per Encoding
	for _, p := range probes {
		schema := []byte(p.schema())
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(schema)))
			b.ReportAllocs()
			var states, charged int
			for b.Loop() {
				budget := &Budget{}
				CompileJSONSchema(enc, schema, &Options{Budget: budget})
				states, charged = budget.Spent()
			}
			b.ReportMetric(float64(states), "states/op")
			b.ReportMetric(float64(charged), "charged-B/op")
		})
	}
}

// refChain is a chain of n definitions, each an array of at least one
// value of the next: which of them has a valid value is known from the end
// of the chain back.
func refChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"$ref":"#/$defs/d0","$defs":{`)
	for i := range n {
		fmt.Fprintf(&b, `"d%d":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/d%d"}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"d%d":{"type":"null"}}}`, n)
	return b.String()
}

// nestedItems is an array of arrays n deep.
func nestedItems(n int) string {
	return strings.Repeat(`{"items":`, n) + `{}` + strings.Repeat(`}`, n)
}

// oneOfConsts is a oneOf of n distinct strings, which are told apart pair
// by pair.
func oneOfConsts(n int) string {
	var b strings.Builder
	b.WriteString(`{"oneOf":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"const":"c%d"}`, i)
	}
	b.WriteString(`]}`)
	return b.String()
}

// anyOfLengths is an anyOf of n string branches, each with a pattern and a
// length bound of its own.
func anyOfLengths(n int) string {
	var b strings.Builder
	b.WriteString(`{"anyOf":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"string","pattern":"^a","maxLength":%d}`, i+1)
	}
	b.WriteString(`]}`)
	return b.String()
}

// allOfPatterns is an allOf of n patterns, each asking for a letter
// somewhere: their product remembers which letters were seen.
func allOfPatterns(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"string","allOf":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"pattern":"%c.*%c"}`, 'a'+i%26, 'A'+i%26)
	}
	b.WriteString(`]}`)
	return b.String()
}
