package jsonschema

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/testsupport/maskbench"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maskbenchEvery is the part of MaskBench the tests check when they run in
// part, under -short and under the race detector: every 32nd schema.
const maskbenchEvery = 32

// maskbenchFile holds MaskBench as the tests read it, once per run: its
// gzip alone takes seconds to read under the race detector.
var maskbenchFile struct {
	sync.Once
	entries []maskbench.Entry
	err     error
}

// loadMaskbench returns JSONSchemaBench's 11,305 real schemas, outside this
// repository (the tests that read it skip when it is missing): all of them,
// or every maskbenchEvery-th under -short and under the race detector.
func loadMaskbench(t testing.TB) []maskbench.Entry {
	maskbenchFile.Do(func() {
		every := 1
		if testing.Short() || sample.Race {
			every = maskbenchEvery
		}
		maskbenchFile.entries, maskbenchFile.err = maskbench.Load(maskbench.Path(1), every)
	})
	if errors.Is(maskbenchFile.err, os.ErrNotExist) {
		t.Skip(maskbenchFile.err)
	}
	require.NoError(t, maskbenchFile.err)
	return maskbenchFile.entries
}

// exponentialInMaskbench are the real schemas the budget refuses: each
// validates some value nested 6 to 14 levels deep with more than 10,000
// evaluations at one location, through mutually recursive definitions
// under an anyOf or oneOf (BaseNode.next, for one, is an anyOf of six kinds
// of node that all have a "next": 6^d evaluations at depth d).
var exponentialInMaskbench = []string{
	"Github_easy---o37786", "Github_easy---o37787", "Github_easy---o37788", "Github_hard---o13029",
	"Github_hard---o67291", "Github_hard---o82273", "Github_hard---o90895", "Github_medium---o58661",
	"Github_ultra---o48404", "Handwritten---notnames10", "Handwritten---notnames9",
	"JsonSchemaStore---hayson-json-schema", "JsonSchemaStore---yippee-ki-json_config_schema",
}

// TestMaskbench compiles real schemas and validates their test values:
// only the known exponential schemas are refused as too complex, and every
// call stays within the bounds on its work.
func TestMaskbench(t *testing.T) {
	entries := loadMaskbench(t)
	v := New(&Options{CacheBytes: 256 << 20})
	var refused []string
	limited, shallow := 0, 0
	for _, e := range entries {
		tool := harmony.NewToolDescription("f", "", e.Schema)
		c := v.compile(e.Schema)
		if c.analyzed > 0 {
			checkCompileWork(t, c, e.Schema, v.budget, true, e.Name)
		}
		if errors.Is(c.err, ErrSchemaTooComplex) {
			refused = append(refused, e.Name)
			continue
		}
		if c.err != nil {
			continue
		}
		if c.maxDepth >= 0 {
			// Past the budget only deeper than minNesting; past the scope
			// (deep recursion) 11 levels deep at the shallowest.
			limited++
			if c.maxDepth < 32 {
				shallow++
			}
			if strings.Contains(c.depthWhy, "evaluations at one location") {
				assert.GreaterOrEqual(t, c.maxDepth, minNesting-1, e.Name)
			} else {
				assert.GreaterOrEqual(t, c.maxDepth, 11, e.Name)
			}
		}
		for _, tc := range e.Tests {
			evals, err := validateCounted(t, v, tool, string(tc.Data))
			var ve *ValidationError
			if err == nil || errors.As(err, &ve) {
				checkEvaluations(t, v, evals, string(tc.Data), e.Name)
			} else {
				assert.ErrorIs(t, err, ErrSchemaTooComplex, e.Name)
				// Only values deeper than the limit are refused.
				val, perr := decodeInstance(string(tc.Data))
				require.NoError(t, perr)
				assert.Greater(t, nesting(val, c.maxDepth), c.maxDepth, e.Name)
			}
		}
	}
	for _, name := range refused {
		assert.Contains(t, exponentialInMaskbench, name, "refused as too complex")
	}
	t.Logf("%d schemas: %d refused as too complex, %d accepted with a depth limit (%d of them below 32 levels)", len(entries), len(refused), limited, shallow)
}

// TestMaskbenchSplit compiles the real schemas that can be split both ways:
// same errors, same violations.
func TestMaskbenchSplit(t *testing.T) {
	entries := loadMaskbench(t)
	n := 0
	for _, e := range entries {
		v, err := decodeSchema(e.Schema)
		if err != nil {
			continue
		}
		plan, ok := planSplit(v)
		if !ok {
			continue
		}
		if _, _, total := compileSteps(plan.docs, true); total > maxSubschemas {
			continue
		}
		doc, err := ojson.Parse(e.Schema)
		require.NoError(t, err)
		n++
		whole := compileWhole(e.Schema, doc, DefaultMaxEvaluations)
		split := compileSplit(e.Schema, doc, plan, DefaultMaxEvaluations)
		var values []string
		for _, tc := range e.Tests {
			values = append(values, string(tc.Data))
		}
		t.Run(e.Name, func(t *testing.T) { assertSameOutcome(t, whole, split, values...) })
	}
	t.Logf("%d schemas compiled both ways", n)
	assert.Positive(t, n)
}
