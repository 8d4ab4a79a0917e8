package jsonschema

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/stretchr/testify/require"
)

// BenchmarkHostile times one call on each hostile schema of the issue,
// without a cache: the compilation, the bounds and the refusal.
func BenchmarkHostile(b *testing.B) {
	for _, tc := range hostileSchemas() {
		b.Run(tc.name, func(b *testing.B) {
			v := New(&Options{CacheBytes: -1})
			tool := harmony.NewToolDescription("f", "", json.RawMessage(tc.schema))
			b.SetBytes(int64(len(tc.schema)))
			b.ReportAllocs()
			for b.Loop() {
				require.ErrorIs(b, v.ValidateToolArguments(tool, `{}`), ErrSchemaTooComplex)
			}
		})
	}
}

// BenchmarkCompileDefinitions compiles n definitions, each referenced
// once: the time per definition stays flat as n grows.
func BenchmarkCompileDefinitions(b *testing.B) {
	for _, n := range []int{500, 1000, 2000, 4000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			raw := []byte(defsTree(n))
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				require.NoError(b, compileUncached(raw, DefaultMaxEvaluations).err)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/def")
		})
	}
}

// BenchmarkOrderTool compiles the 21 KB order schema, and validates
// arguments against it once compiled.
func BenchmarkOrderTool(b *testing.B) {
	raw := orderTool(0)
	tool := harmony.NewToolDescription("place_order", "", json.RawMessage(raw))
	b.Run("compile", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		b.ReportAllocs()
		for b.Loop() {
			require.NoError(b, compileUncached([]byte(raw), DefaultMaxEvaluations).err)
		}
	})
	b.Run("validate", func(b *testing.B) {
		v := New(nil)
		b.ReportAllocs()
		for b.Loop() {
			require.NoError(b, v.ValidateToolArguments(tool, orderArguments))
		}
	})
}

// BenchmarkGrowthWithDepth validates the deepest value the recursive tree
// schema accepts: the cost the budget allows at every location.
func BenchmarkGrowthWithDepth(b *testing.B) {
	v := New(nil)
	tool := harmony.NewToolDescription("tree", "", json.RawMessage(recursiveTree))
	value := nestedKids(22)
	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, v.ValidateToolArguments(tool, value))
	}
}

// BenchmarkScopeLimit validates the deepest value the recursive union of
// 60 kinds accepts, within the scope bound.
func BenchmarkScopeLimit(b *testing.B) {
	v := New(nil)
	tool := harmony.NewToolDescription("tree", "", json.RawMessage(unionTree(60)))
	value := nestedUnion(40)
	b.ReportAllocs()
	for b.Loop() {
		require.NoError(b, v.ValidateToolArguments(tool, value))
	}
}
