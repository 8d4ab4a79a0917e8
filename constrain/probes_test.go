package constrain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/require"
)

// The probes are the schemas an attacker sent to measure what compiling
// costs (see BenchmarkCompileProbes): each is as cheap to send as it is
// costly to compile without a budget.

// anyOfPatterns is an anyOf of n string branches, each with a pattern of its
// own: {"anyOf":[{"type":"string","pattern":"^p0[a-z]*$"},...]}.
func anyOfPatterns(n int) string {
	return `{"anyOf":[` + commaList(n, func(i int) string { return fmt.Sprintf(`{"type":"string","pattern":"^p%d[a-z]*$"}`, i) }) + `]}`
}

// requiredNames is an object with n required properties that only
// additionalProperties describes.
func requiredNames(n int) string {
	return `{"type":"object","required":[` + commaList(n, func(i int) string { return fmt.Sprintf(`"p%d"`, i) }) + `]}`
}

// enumStrings is an enum of n distinct strings.
func enumStrings(n int) string {
	return `{"enum":[` + commaList(n, func(i int) string { return fmt.Sprintf(`"value %d"`, i) }) + `]}`
}

// wideObject is an object of n properties, every one required, of
// alternating types.
func wideObject(n int) string {
	props := commaList(n, func(i int) string {
		t := [...]string{"string", "integer", "boolean"}[i%3]
		return fmt.Sprintf(`"property_%d":{"type":%q}`, i, t)
	})
	required := commaList(n, func(i int) string { return fmt.Sprintf(`"property_%d"`, i) })
	return `{"type":"object","properties":{` + props + `},"required":[` + required + `],"additionalProperties":false}`
}

// commaList joins item(0) to item(n-1) with commas.
func commaList(n int, item func(i int) string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item(i))
	}
	return b.String()
}

var probes = []struct {
	name     string
	schema   func() string
	compiles bool // else refused, ErrTooComplex
}{
	{"anyOf-5000-patterns", func() string { return anyOfPatterns(5000) }, false},
	{"anyOf-200000-patterns", func() string { return anyOfPatterns(200000) }, false},
	{"required-50000", func() string { return requiredNames(50000) }, true},
	{"enum-100000", func() string { return enumStrings(100000) }, false},
	{"object-4000", func() string { return wideObject(4000) }, true},
	{"object-16000", func() string { return wideObject(16000) }, true},
	{"ref-chain-20000", func() string { return refChain(20000) }, false},
	{"nested-items-5000", func() string { return nestedItems(5000) }, false},
	{"oneOf-consts-3000", func() string { return oneOfConsts(3000) }, false},
	{"anyOf-lengths-2000", func() string { return anyOfLengths(2000) }, false},
	{"allOf-patterns-26", func() string { return allOfPatterns(26) }, false},
}

// checkProbe fails tb when the probe's outcome is not the table's: it
// compiles, or it is refused with ErrTooComplex.
func checkProbe(tb testing.TB, name string, compiles bool, err error) {
	tb.Helper()
	if compiles {
		require.NoError(tb, err, "%s: want it to compile", name)
	} else {
		require.ErrorIs(tb, err, ErrTooComplex, name)
	}
}

// TestProbesOutcome compiles every probe of the benchmark once and checks
// its outcome, so that the benchmark measures what its table says.
func TestProbesOutcome(t *testing.T) {
	for _, p := range probes {
		_, err := CompileJSONSchema(testenc.Encoding(t), []byte(p.schema()), nil)
		checkProbe(t, p.name, p.compiles, err)
	}
}

// BenchmarkCompileProbes compiles each probe with the default Budget:
// ns/op and B/op are what one such request costs a server, states/op and
// charged-B/op what the budget counted. Most are refused as the budget runs
// out; the wide objects compile.
//
//	go test -run '^$' -bench CompileProbes -benchtime 5x ./constrain
func BenchmarkCompileProbes(b *testing.B) {
	enc := testenc.Encoding(b)
	compile(b, `{}`, nil) // the vocabulary's tables, built once per Encoding
	for _, p := range probes {
		schema := []byte(p.schema())
		b.Run(p.name, func(b *testing.B) {
			b.SetBytes(int64(len(schema)))
			b.ReportAllocs()
			var states, charged int
			for b.Loop() {
				budget := &Budget{}
				_, err := CompileJSONSchema(enc, schema, &Options{Budget: budget})
				checkProbe(b, p.name, p.compiles, err)
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
	return `{"oneOf":[` + commaList(n, func(i int) string { return fmt.Sprintf(`{"const":"c%d"}`, i) }) + `]}`
}

// anyOfLengths is an anyOf of n string branches, each with a pattern and a
// length bound of its own.
func anyOfLengths(n int) string {
	return `{"anyOf":[` + commaList(n, func(i int) string { return fmt.Sprintf(`{"type":"string","pattern":"^a","maxLength":%d}`, i+1) }) + `]}`
}

// allOfPatterns is an allOf of n patterns, each asking for a letter
// somewhere: their product remembers which letters were seen.
func allOfPatterns(n int) string {
	return `{"type":"string","allOf":[` + commaList(n, func(i int) string { return fmt.Sprintf(`{"pattern":"%c.*%c"}`, 'a'+i%26, 'A'+i%26) }) + `]}`
}
