package constrain

// The compile budget. Compiling a schema builds automata whose size the
// schema's text does not bound: a pattern's subset construction, the
// products of allOf and anyOf, the tries of enums and property names. Each
// automaton has its own bound (maxDFAStates), but a schema may ask for
// thousands of them, so the whole compilation is metered too: every state
// of every automaton built, intermediate ones included, and the bytes of
// the tables and structures made for them are charged to a Budget as they
// grow (a table before it is allocated), and compiling stops as soon as
// either limit is passed. Work that builds no state is charged as states in
// proportion to its time: decoding the text, compiling a subschema, parsing
// a pattern, the NFA states a closure visits, the product states a search
// visits, a pair of oneOf branches told apart. The charges follow the time
// and memory compiling takes, so that the limits bound both;
// BenchmarkCompileProbes measures them on the schemas that cost the most
// per byte sent.

import (
	"context"
	"fmt"
)

// Default limits of a Budget. A state is charged for some 200 to 500 ns of
// work, a byte allocated as one to two (what the allocator and the garbage
// collector add), so that at either limit compiling has taken at most about
// 100 ms of CPU and 64 MiB. The costliest MaskBench schemas need about half
// of them: 134,888 states (Github_medium---o19005, one URI pattern) and
// 19.5 MB (Kubernetes---kb_1161_Normalized, 938 KB of text).
const (
	DefaultMaxStates = 1 << 18
	DefaultMaxBytes  = 32 << 20
)

// What work that builds no automaton state is charged, in states (each
// the time of some hundreds of nanoseconds) and bytes: decoding a schema's
// text (encoding/json takes some 15 ns and allocates some 8 bytes a byte),
// compiling a subschema (some 2.5 µs besides what it builds), parsing a
// pattern, and the NFA states a closure of the subset construction visits.
const (
	decodeBytesPerState = 16
	decodeBytesPerByte  = 10
	subschemaStates     = 6
	patternBytesPerByte = 64
	visitsPerState      = 8
)

// A Budget bounds the work of compiling schemas: the states of every
// automaton built (NFA, subset construction, products, tries; those thrown
// away included), with the work that builds none counted as states in
// proportion to its time (decoding the schema's text, compiling a
// subschema, telling two oneOf branches apart...), and the bytes allocated
// for tables and nodes, summed over every schema compiled with it. Past
// either limit, compiling stops at once, before the work that would pass
// it, with a *SchemaError wrapping ErrTooComplex whose Pointer names the
// subschema being compiled (or its keyword: enum, const, pattern, a
// branch of anyOf or oneOf).
//
// One Budget shared by the schemas of one request (the tools and the
// response format of an Envelope, as openaicompat does) bounds the request
// as a whole. The zero value has the default limits. A Budget is not safe
// for concurrent use; a Grammar does not refer to the Budget it was
// compiled with.
type Budget struct {
	MaxStates int // automaton states; 0 means DefaultMaxStates
	MaxBytes  int // bytes; 0 means DefaultMaxBytes

	states, bytes int
}

// Spent reports the automaton states and bytes charged to b so far.
func (b *Budget) Spent() (states, bytes int) { return b.states, b.bytes }

// meter charges a compilation's work to its Budget and looks at its
// context now and then. Its first error sticks: once the budget is spent
// or the context done, every later charge fails, so that no caller can
// swallow it. A nil *meter charges nothing (the automata built once for
// the package).
type meter struct {
	ctx       context.Context
	b         *Budget
	maxStates int
	maxBytes  int
	at        string // the JSON pointer of the subschema being compiled
	poll      int    // work since ctx was last looked at
	err       error  // the budget's *SchemaError, or the context's error wrapped
}

// pollEvery is how much work (states, and bytes / 64) passes between two
// looks at the context: some 100 µs.
const pollEvery = 1 << 12

// newMeter returns the meter of one compilation under ctx, charging b with
// b's limits (the defaults for zero ones). b is charged in place, so one
// Budget shared by several compilations sums them.
func newMeter(ctx context.Context, b *Budget) *meter {
	m := &meter{ctx: ctx, b: b, maxStates: b.MaxStates, maxBytes: b.MaxBytes}
	if m.maxStates <= 0 {
		m.maxStates = DefaultMaxStates
	}
	if m.maxBytes <= 0 {
		m.maxBytes = DefaultMaxBytes
	}
	return m
}

// charge adds work to the budget, before it is done where it can be
// (a table is charged before it is allocated).
func (m *meter) charge(states, bytes int) error {
	if m == nil {
		return nil
	}
	if m.err != nil {
		return m.err
	}
	m.b.states += states
	m.b.bytes += bytes
	if m.b.states > m.maxStates || m.b.bytes > m.maxBytes {
		m.err = &SchemaError{Pointer: m.at, Err: fmt.Errorf("%w: the compile budget (%d automaton states, %d bytes) is spent", ErrTooComplex, m.maxStates, m.maxBytes)}
		return m.err
	}
	if m.poll += states + bytes>>6; m.poll >= pollEvery {
		m.poll = 0
		return m.check()
	}
	return nil
}

// check looks at the context, making its error the meter's sticky error
// when it is done.
func (m *meter) check() error {
	if m == nil {
		return nil
	}
	if m.err == nil {
		if err := m.ctx.Err(); err != nil {
			m.err = fmt.Errorf("constrain: compiling a schema: %w", err)
		}
	}
	return m.err
}

// atOrRoot is the pointer being compiled ("" without a meter), which the
// nodes and specs made record to name themselves in later errors.
func (m *meter) atOrRoot() string {
	if m == nil {
		return ""
	}
	return m.at
}
