package constrain

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// spentRefusal compiles schema with budget b and checks that it is refused
// by the budget: a *SchemaError wrapping ErrTooComplex at a pointer with
// prefix want, spent just past one of the limits (refused as it ran out,
// not after the work).
func spentRefusal(t *testing.T, name, schema string, b *Budget, want string) *SchemaError {
	return spentRefusalText(t, name, schema, b, want, false)
}

// spentRefusalText is spentRefusal; with text, the schema's text alone
// passes the budget, refused before it is decoded whatever its size.
func spentRefusalText(t *testing.T, name, schema string, b *Budget, want string, text bool) *SchemaError {
	t.Helper()
	_, err := CompileJSONSchema(testenc.Encoding(t), []byte(schema), &Options{Budget: b})
	var se *SchemaError
	require.ErrorAs(t, err, &se, "%s: want a *SchemaError wrapping ErrTooComplex", name)
	require.ErrorIs(t, err, ErrTooComplex, "%s: want a *SchemaError wrapping ErrTooComplex", name)
	assert.True(t, strings.HasPrefix(se.Pointer, want), "%s: refused at %q, want a pointer starting %q", name, se.Pointer, want)
	states, bytes := b.Spent()
	maxS, maxB := cmpOr(b.MaxStates, DefaultMaxStates), cmpOr(b.MaxBytes, DefaultMaxBytes)
	assert.True(t, states > maxS || bytes > maxB, "%s: refused with %d states and %d bytes spent, within the budget", name, states, bytes)
	if text {
		// Refused for its text alone: at the root, with nothing charged
		// but the text (b is fresh).
		assert.Equal(t, "", se.Pointer, "%s: want refused at the root", name)
		assert.Equal(t, len(schema)/decodeBytesPerState, states, "%s: want the text's states spent", name)
	} else {
		// One charge passes the limit: a subset, a table, a schema's text.
		assert.False(t, states > maxS+maxS/4 || bytes > maxB+maxB/2, "%s: %d states and %d bytes spent for a budget of %d and %d: refused late", name, states, bytes, maxS, maxB)
	}
	return se
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// TestBudgetRefusesProbes: each probe that costs more than the default
// budget is refused by it, early (at a branch well before its last) and
// naming where it ran out; the others compile within it.
func TestBudgetRefusesProbes(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		want         string // pointer prefix of the refusal; "" with compiles
		before       int    // the branch where it ran out is below this
		compiles     bool
		text         bool // refused for its text alone
	}{
		{name: "anyOf-5000-patterns", schema: anyOfPatterns(5000), want: "/anyOf/", before: 2500},
		{name: "anyOf-200000-patterns", schema: anyOfPatterns(200000), want: "", text: true},
		{name: "enum-100000", schema: enumStrings(100000), want: "/enum"},
		{name: "oneOf-consts-3000", schema: oneOfConsts(3000), want: "/oneOf/", before: 1500},
		{name: "anyOf-lengths-2000", schema: anyOfLengths(2000), want: "/anyOf/", before: 1000},
		{name: "required-50000", schema: requiredNames(50000), compiles: true},
		{name: "object-16000", schema: wideObject(16000), compiles: true},
	} {
		b := &Budget{}
		if tc.compiles {
			_, err := CompileJSONSchema(testenc.Encoding(t), []byte(tc.schema), &Options{Budget: b})
			assert.NoError(t, err, tc.name)
			continue
		}
		se := spentRefusalText(t, tc.name, tc.schema, b, tc.want, tc.text)
		if tc.before > 0 {
			rest := strings.TrimPrefix(se.Pointer, tc.want)
			i, err := strconv.Atoi(strings.SplitN(rest, "/", 2)[0])
			if assert.NoError(t, err, "%s: refused at %q", tc.name, se.Pointer) {
				assert.Less(t, i, tc.before, "%s: refused at %q, not before the branch", tc.name, se.Pointer)
			}
		}
	}
}

// TestBudgetDepth: subschemas nested past maxDepth are refused where they
// pass it, however the nesting is written.
func TestBudgetDepth(t *testing.T) {
	for name, tc := range map[string]struct{ schema, want string }{
		"items": {nestedItems(maxDepth + 10), strings.Repeat("/items", maxDepth)},
		"$ref":  {refChain(maxDepth), "/$defs/d255/items"},
	} {
		_, err := CompileJSONSchema(testenc.Encoding(t), []byte(tc.schema), nil)
		var se *SchemaError
		if assert.ErrorAs(t, err, &se, name) && assert.ErrorIs(t, err, ErrTooComplex, name) {
			assert.Equal(t, tc.want, se.Pointer, name)
		}
	}
	_, err := CompileJSONSchema(testenc.Encoding(t), []byte(nestedItems(maxDepth-1)), nil)
	assert.NoError(t, err, "items %d deep", maxDepth-1)
}

// TestBudgetNamesSubschema: a small budget runs out in the subschema that
// needs it, and the same Budget refuses the next schema at once.
func TestBudgetNamesSubschema(t *testing.T) {
	const schema = `{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"string","pattern":"^[a-z]{1,40}@[a-z]{1,40}\\.(com|org|net)$"}}}`
	free := &Budget{}
	_, err := CompileJSONSchema(testenc.Encoding(t), []byte(schema), &Options{Budget: free})
	require.NoError(t, err)
	states, bytes := free.Spent()
	require.NotZero(t, states, "states spent")
	require.NotZero(t, bytes, "bytes spent")
	b := &Budget{MaxStates: states / 2}
	spentRefusal(t, "half the states", schema, b, "/properties/b/pattern")
	s0, b0 := b.Spent()
	spentRefusal(t, "spent budget", `{}`, b, "")
	s1, b1 := b.Spent()
	assert.False(t, s1 > s0+s0/8 || b1 > b0+b0/8, "a spent budget went on: %d, %d states; %d, %d bytes", s0, s1, b0, b1)
	spentRefusal(t, "half the bytes", schema, &Budget{MaxBytes: bytes / 2}, "/properties/b")
}

// TestBudgetShared: one Budget charged by several compilations is the sum
// of what each costs alone.
func TestBudgetShared(t *testing.T) {
	schema := []byte(wideObject(50))
	alone := &Budget{}
	_, err := CompileJSONSchema(testenc.Encoding(t), schema, &Options{Budget: alone})
	require.NoError(t, err)
	s1, b1 := alone.Spent()
	shared := &Budget{MaxStates: 5*s1 + s1/2}
	n := 0
	for ; n < 10; n++ {
		if _, err := CompileJSONSchema(testenc.Encoding(t), schema, &Options{Budget: shared}); err != nil {
			require.ErrorIs(t, err, ErrTooComplex)
			break
		}
		s, b := shared.Spent()
		require.Equal(t, (n+1)*s1, s, "after %d: states spent", n+1)
		require.Equal(t, (n+1)*b1, b, "after %d: bytes spent", n+1)
	}
	assert.Equal(t, 5, n, "compilations within a budget of five and a half")
}

// countdown is a context whose Err is Canceled from its n-th call on: it
// tells how often compiling looks at its context, without a clock.
type countdown struct {
	context.Context
	n     int64
	calls atomic.Int64
}

func (c *countdown) Err() error {
	if c.calls.Add(1) >= c.n {
		return context.Canceled
	}
	return nil
}

// TestCompileContext: compiling stops when its context is done, before it
// starts and in its long loops, with the context's error (not a
// *SchemaError).
func TestCompileContext(t *testing.T) {
	enc := testenc.Encoding(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := CompileJSONSchemaContext(ctx, enc, []byte(`{}`), nil)
	var se *SchemaError
	assert.ErrorIs(t, err, context.Canceled, "canceled before")
	assert.NotErrorAs(t, err, &se, "canceled before")
	// anyOfPatterns builds hundreds of thousands of states: the context is
	// looked at many times, and the compilation stops at the tenth.
	big := &Budget{MaxStates: 1 << 30, MaxBytes: 1 << 40}
	cd := &countdown{Context: context.Background(), n: 10}
	_, err = CompileJSONSchemaContext(cd, enc, []byte(anyOfPatterns(2000)), &Options{Budget: big})
	assert.ErrorIs(t, err, context.Canceled, "canceled during")
	assert.NotErrorAs(t, err, &se, "canceled during")
	assert.Equal(t, int64(10), cd.calls.Load(), "Err calls (it stops at the first Canceled)")
	states, _ := big.Spent()
	free := &Budget{MaxStates: 1 << 30, MaxBytes: 1 << 40}
	_, err = CompileJSONSchemaContext(context.Background(), enc, []byte(anyOfPatterns(2000)), &Options{Budget: free})
	require.NoError(t, err)
	all, _ := free.Spent()
	assert.Less(t, states, all/2, "stopped after %d states of %d", states, all)
}

// TestWideObjectLinear: compiling an object of 4n properties costs at most
// about four times what n cost, in states and bytes charged and in bytes
// allocated (the seenSet copies once made it n^2).
func TestWideObjectLinear(t *testing.T) {
	enc := testenc.Encoding(t)
	compile(t, `{}`, nil)
	cost := func(n int) (states, charged int, alloc uint64) {
		schema := []byte(wideObject(n))
		b := &Budget{}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		_, err := CompileJSONSchema(enc, schema, &Options{Budget: b})
		require.NoError(t, err)
		runtime.ReadMemStats(&ms)
		states, charged = b.Spent()
		return states, charged, ms.TotalAlloc - before
	}
	s1, c1, a1 := cost(4000)
	s4, c4, a4 := cost(16000)
	for _, r := range []struct {
		what   string
		n, n4  float64
		within float64
	}{
		{"states", float64(s1), float64(s4), 5},
		{"bytes charged", float64(c1), float64(c4), 5},
		{"bytes allocated", float64(a1), float64(a4), 5},
	} {
		t.Logf("%s: %.0f for 4,000 properties, %.0f for 16,000 (x%.2f)", r.what, r.n, r.n4, r.n4/r.n)
		assert.LessOrEqual(t, r.n4, r.within*r.n, "%s: x%.2f from 4,000 to 16,000 properties", r.what, r.n4/r.n)
	}
}
