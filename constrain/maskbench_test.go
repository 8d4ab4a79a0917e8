package constrain

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/testsupport/maskbench"
	"github.com/go-harmony/harmony/internal/testsupport/sample"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/go-harmony/harmony/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadBench reads every n-th entry of MaskBench, which is outside this
// repository: the tests that read it skip when it is missing.
func loadBench(t *testing.T, every int) []maskbench.Entry {
	t.Helper()
	out, err := maskbench.Load(maskbench.Path(1), every)
	if errors.Is(err, os.ErrNotExist) {
		t.Skipf("MaskBench not found (%v): skipping", err)
	}
	require.NoError(t, err)
	return out
}

// TestMaskbenchDifferential feeds MaskBench instances, compact and
// indented, to the matchers of the schemas that compile, and compares the
// verdict with the validator package's: an instance the validator rejects
// must never be accepted (no invalidation, ever); one it accepts must be
// accepted, but for the documented narrowings (formats the validator does
// not assert under draft 2020-12, integers written with a fraction, duplicate
// keys, leap seconds...), which are logged and bounded. It reads all 11,305
// schemas, and every 40th of them also checks each token's mask bit against
// Accept (FillMask at every token, the costliest check: on every 4th schema
// it would take most of a minute); under -short and under the race detector
// it reads every 200th schema and checks the mask on every 4th of those.
func TestMaskbenchDifferential(t *testing.T) {
	every, maskEvery := 1, 40
	if sample.Sampled() {
		every, maskEvery = 200, 4
	}
	entries := loadBench(t, every)
	enc := testenc.Encoding(t)
	v := jsonschema.New(nil)
	var compiled, refused, instances, narrowed int
	for si, e := range entries {
		g, err := CompileJSONSchema(enc, e.Schema, nil)
		if err != nil {
			var se *SchemaError
			assert.ErrorAs(t, err, &se, "%s: compile error of type %T", e.Name, err)
			refused++
			continue
		}
		format := harmony.ResponseFormat{Name: "f", Schema: e.Schema}
		if err := v.ValidateResponse(format, "null"); err != nil && errors.Is(err, harmony.ErrInvalidSchema) {
			continue // the validator cannot use the schema
		}
		compiled++
		m := g.NewMatcher()
		mask := make([]uint64, g.MaskWords())
		for ti, tc := range e.Tests {
			var compact, indented bytes.Buffer
			require.NoError(t, json.Compact(&compact, tc.Data), "%s: bad instance", e.Name)
			require.NoError(t, json.Indent(&indented, tc.Data, "", "  "), "%s: bad instance", e.Name)
			for _, text := range []string{compact.String(), indented.String()} {
				instances++
				oracle := v.ValidateResponse(format, text)
				var ve *jsonschema.ValidationError
				if oracle != nil && !errors.As(oracle, &ve) {
					continue // too deep or too costly for the validator
				}
				m.Reset()
				ok := true
				for _, tok := range enc.EncodeOrdinary(text) {
					if si%maskEvery == 0 {
						m.FillMask(mask)
						if bit := mask[tok/64]&(1<<(tok%64)) != 0; bit != m.IsAllowed(tok) { // compared in Go first: the loop is hot
							require.Fail(t, "the mask bit disagrees with Accept", "%s test %d: mask bit %v", e.Name, ti, bit)
						}
					}
					if m.Accept(tok) != nil {
						ok = false
						break
					}
				}
				ok = ok && m.CanEnd()
				if ok {
					assert.NoError(t, oracle, "INVALIDATION %s test %d: accepted %.200q; validator refuses", e.Name, ti, text)
				} else if oracle == nil {
					narrowed++
					t.Logf("narrowed %s test %d: refused %.200q", e.Name, ti, text)
				}
			}
		}
	}
	t.Logf("%d schemas: %d compiled and checked, %d refused; %d instances, %d valid ones refused", len(entries), compiled, refused, instances, narrowed)
	assert.LessOrEqual(t, narrowed*100, instances, "%d of %d valid instances refused: above 1%%", narrowed, instances)
}

// TestMaskbenchCompiles compiles every MaskBench schema with the default
// Budget: as many compile as before there was one (9,074; the others use
// features not done here, pass an automaton's own bound, or have no valid
// instance), and the costliest of them needs at most 60% of either limit,
// so that the limits leave room.
func TestMaskbenchCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles all 11,305 schemas")
	}
	entries := loadBench(t, 1)
	enc := testenc.Encoding(t)
	compiled, maxStates, maxBytes := 0, 0, 0
	var costliest [2]string
	for _, e := range entries {
		b := &Budget{}
		if _, err := CompileJSONSchema(enc, e.Schema, &Options{Budget: b}); err != nil {
			continue
		}
		compiled++
		s, by := b.Spent()
		if s > maxStates {
			maxStates, costliest[0] = s, e.Name
		}
		if by > maxBytes {
			maxBytes, costliest[1] = by, e.Name
		}
	}
	t.Logf("%d of %d schemas compile; the costliest spend %d states (%s) and %d bytes (%s)", compiled, len(entries), maxStates, costliest[0], maxBytes, costliest[1])
	if len(entries) == 11305 {
		assert.GreaterOrEqual(t, compiled, 9074, "schemas compile, fewer than the 9,074 that compiled before the budget")
	}
	assert.LessOrEqual(t, maxStates*10, DefaultMaxStates*6, "a schema spends %d states: more than 60%% of the default budget", maxStates)
	assert.LessOrEqual(t, maxBytes*10, DefaultMaxBytes*6, "a schema spends %d bytes: more than 60%% of the default budget", maxBytes)
}
