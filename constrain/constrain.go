package constrain

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/go-harmony/harmony"
)

// DefaultMaxWhitespace is the longest run of whitespace allowed between
// tokens of the JSON text when Options.MaxWhitespace is 0.
const DefaultMaxWhitespace = 64

// Options configures CompileJSONSchema. The zero value gives the defaults;
// a nil *Options means the zero value.
type Options struct {
	// MaxWhitespace bounds each run of JSON whitespace (space, tab, line
	// feed, carriage return) between the tokens of the text: 0 means
	// DefaultMaxWhitespace. Unbounded whitespace lets a model loop on
	// newlines forever; the bound keeps every mask exact for the language
	// it defines.
	MaxWhitespace int
	// Compact allows no whitespace at all outside strings.
	Compact bool
	// IgnoreFormats treats the formats this package does not enforce
	// (email, uri, hostname, ...) as annotations instead of refusing the
	// schema. The formats it enforces stay enforced.
	IgnoreFormats bool
	// Budget bounds the work of compiling, and is charged with it; nil
	// gives each compilation a Budget of its own with the default limits.
	// Share one among the schemas of a request to bound the request.
	Budget *Budget
}

// Grammar is a compiled JSON Schema: immutable once built and safe for
// concurrent use by any number of Matchers and goroutines.
type Grammar struct {
	root  *node
	voc   *vocab
	maxWS uint16
	stats GrammarStats

	mu    sync.Mutex
	inner map[innerKey][]uint64 // masks of tokens that stay inside a string
}

// GrammarStats describes the size of a Grammar.
type GrammarStats struct {
	Nodes     int // subschema nodes
	Objects   int // object specs
	Arrays    int // array specs
	DFAStates int // states of all string, number and key automata
	Bytes     int // estimated memory held, the string mask cache excluded
}

// maxInnerMasks bounds the string mask cache of a Grammar: 25 KB each.
const maxInnerMasks = 256

// innerKey is what a string mask in Grammar.inner depends on: the string's
// automaton and state, the escape in progress (esc, and acc its value so
// far), whether the string is a key, and room, the code points a counted
// length still allows, capped at one more than any token writes (-1 when
// not counted), so that masks are shared between counts that allow the
// same tokens.
type innerKey struct {
	d    *dfa
	st   int32
	acc  uint32
	room int32
	esc  uint8
	key  bool
}

// CompileJSONSchema compiles schema (a JSON Schema document, draft 4 to
// 2020-12 as its "$schema" says, 2020-12 by default) into a Grammar over
// enc's vocabulary. A schema using a feature that cannot be enforced exactly
// is refused with a *SchemaError wrapping ErrUnsupported; see the package
// documentation for what is covered. A schema that would cost more to
// compile than opts.Budget allows is refused with a *SchemaError wrapping
// ErrTooComplex, as soon as the budget is spent. It is
// CompileJSONSchemaContext with context.Background().
func CompileJSONSchema(enc *harmony.Encoding, schema []byte, opts *Options) (*Grammar, error) {
	return CompileJSONSchemaContext(context.Background(), enc, schema, opts)
}

// CompileJSONSchemaContext is CompileJSONSchema, stopping when ctx is done:
// it then returns an error wrapping ctx.Err() (not a *SchemaError).
// Compiling looks at ctx before it starts and then every hundred
// microseconds or so of work (decoding the schema's text, some 50 ms at
// most within the default budget, is not interrupted).
func CompileJSONSchemaContext(ctx context.Context, enc *harmony.Encoding, schema []byte, opts *Options) (*Grammar, error) {
	if opts == nil {
		opts = &Options{}
	}
	voc, err := vocabFor(enc)
	if err != nil {
		return nil, err
	}
	b := opts.Budget
	if b == nil {
		b = &Budget{}
	}
	c := newCompiler(ctx, opts, b)
	g, err := c.compile(voc, schema)
	if c.m.err != nil {
		return nil, c.m.err // the budget ran out or ctx is done, whatever the callers made of it
	}
	return g, err
}

// newCompiler returns a compiler for one schema with opts, charging b and
// stopping when ctx is done.
func newCompiler(ctx context.Context, opts *Options, b *Budget) *compiler {
	return &compiler{opts: *opts, m: newMeter(ctx, b), byPtr: map[string]*node{}, inter: map[[2]*node]*node{}, lengths: map[[2]int]*dfa{}, numbers: map[string]*dfa{}}
}

// compile compiles schema over voc: decodes it, reads its draft from
// $schema, compiles the root, runs the emptiness analysis and sets the
// whitespace bound. The caller looks at c.m for the budget's error: some
// callers of a charge let its error go (disjoint answers "may overlap",
// newNode carries on), and the meter's sticky error is what says the
// budget ran out.
func (c *compiler) compile(voc *vocab, schema []byte) (*Grammar, error) {
	if err := c.m.check(); err != nil {
		return nil, err
	}
	if err := c.m.charge(len(schema)/decodeBytesPerState, decodeBytesPerByte*len(schema)); err != nil {
		return nil, err
	}
	v, err := decodeSchema(schema)
	if err != nil {
		return nil, &SchemaError{Err: fmt.Errorf("%w: %v", ErrInvalidSchema, err)}
	}
	c.root = v
	if m, ok := v.(map[string]any); ok {
		if s, ok := m["$schema"].(string); ok {
			c.draft4 = strings.Contains(s, "draft-04")
			c.draftOld = c.draft4 || strings.Contains(s, "draft-06") || strings.Contains(s, "draft-07") || strings.Contains(s, "draft-03")
		}
	}
	root, err := c.schema("", v)
	if err != nil {
		return nil, err
	}
	if err := c.analyze(); err != nil {
		return nil, err
	}
	root = root.deref()
	if !root.nonempty {
		return nil, &SchemaError{Err: ErrEmpty}
	}
	g := &Grammar{root: root, voc: voc, inner: map[innerKey][]uint64{}}
	switch opts := c.opts; {
	case opts.Compact:
		g.maxWS = 0
	case opts.MaxWhitespace > 0:
		g.maxWS = uint16(min(opts.MaxWhitespace, 1<<15))
	default:
		g.maxWS = DefaultMaxWhitespace
	}
	g.stats = c.stats()
	return g, nil
}

// stats measures what c built, for Grammar.Stats: an automaton shared by
// several nodes is counted once, and the bytes are estimates (per node,
// spec, name and table entry) rather than measurements.
func (c *compiler) stats() GrammarStats {
	s := GrammarStats{Nodes: len(c.nodes), Objects: len(c.objs), Arrays: len(c.arrs)}
	seen := map[*dfa]bool{}
	addDFA := func(d *dfa) {
		if d != nil && !seen[d] {
			seen[d] = true
			s.DFAStates += d.states()
			s.Bytes += d.bytes()
		}
	}
	for _, n := range c.nodes {
		s.Bytes += 120 + 8*(len(n.objs)+len(n.arrs))
		addDFA(n.str)
		addDFA(n.num)
	}
	for _, o := range c.objs {
		s.Bytes += 150 + 24*len(o.names) + 8*len(o.props)
		for _, nm := range o.names {
			s.Bytes += len(nm)
		}
		if o.keys != nil {
			s.Bytes += o.keys.bytes()
			s.DFAStates += o.keys.d.states()
		}
	}
	for _, a := range c.arrs {
		s.Bytes += 64 + 8*len(a.prefix)
	}
	return s
}

// Stats returns the size of g.
func (g *Grammar) Stats() GrammarStats { return g.stats }

// MaskWords is the length of a mask: one bit per token id of the
// vocabulary, 64 to a word.
func (g *Grammar) MaskWords() int { return (g.voc.size + 63) / 64 }

// NewMatcher returns a Matcher at the start of a value.
func (g *Grammar) NewMatcher() *Matcher {
	m := &Matcher{g: g}
	m.st.maxWS = g.maxWS
	m.Reset()
	return m
}

// Matcher follows one sequence of tokens through a Grammar. It is not safe
// for concurrent use; use one per sequence and Reset it to reuse it.
type Matcher struct {
	g       *Grammar
	threads []thread
	n       int // tokens accepted
	st      stepper
	wk      walker
	tmp     []thread     // the threads advance returns, swapped with threads by Accept
	inner   []innerState // walkInner's stack
	tmpA    []thread     // replay's two buffers
	tmpB    []thread
}

// Reset returns m to the start of a value.
func (m *Matcher) Reset() {
	m.threads = append(m.threads[:0], thread{top: frame{kind: fRoot, n: m.g.root}})
	m.n = 0
}

// CanEnd reports whether the tokens accepted so far are a complete valid
// instance (whitespace may still follow).
func (m *Matcher) CanEnd() bool {
	for _, th := range m.threads {
		if canEnd(th) {
			return true
		}
	}
	return false
}

// IsAllowed reports whether tok may come next.
func (m *Matcher) IsAllowed(tok harmony.Token) bool {
	_, ok := m.advance(tok)
	return ok
}

// Accept advances m past tok. A token the mask does not allow (special
// tokens never are) is a *TokenError wrapping ErrTokenNotAllowed, and m is
// left unchanged.
func (m *Matcher) Accept(tok harmony.Token) error {
	next, ok := m.advance(tok)
	if !ok {
		return &TokenError{Index: m.n, Token: uint32(tok), Err: ErrTokenNotAllowed}
	}
	m.threads, m.tmp = next, m.threads[:0]
	m.n++
	return nil
}

// AcceptBytes advances m past raw text, as if a token of those bytes had
// come; it is how a caller forces text. It fails as Accept does.
func (m *Matcher) AcceptBytes(b []byte) error {
	next, ok := m.advanceBytes(b)
	if !ok {
		return &TokenError{Index: m.n, Token: ^uint32(0), Err: ErrTokenNotAllowed}
	}
	m.threads, m.tmp = next, m.threads[:0]
	return nil
}

// advance returns the threads m would have after tok, or false when tok is
// special, unknown or refused, leaving m as it is: IsAllowed looks, Accept
// keeps the result.
func (m *Matcher) advance(tok harmony.Token) ([]thread, bool) {
	if int(tok) >= len(m.g.voc.toks) || m.g.voc.toks[tok] == nil {
		return nil, false
	}
	return m.advanceBytes(m.g.voc.toks[tok])
}

// advanceBytes is advance for raw bytes: every thread stepped a byte at a
// time, with stack links from the heap (they outlive the call) and the
// threads deduplicated after each byte, so that readings that have become
// the same do not multiply. The result is in m.tmp.
func (m *Matcher) advanceBytes(b []byte) ([]thread, bool) {
	m.st.arena = nil // links made here outlive the call
	cur := append([]thread(nil), m.threads...)
	var next []thread
	for _, c := range b {
		next = next[:0]
		for _, th := range cur {
			next = m.st.step(th, c, next)
		}
		if len(next) == 0 {
			return nil, false
		}
		cur, next = dedupThreads(next), cur
	}
	return append(m.tmp[:0], cur...), true
}

// maxThreads bounds the readings a Matcher follows at once (anyOf branches
// open side by side, nested). Past it the last ones are dropped, which can
// only refuse more; no MaskBench instance comes near it.
const maxThreads = 1024

// dedupThreads removes from ts, in place, the threads equal to one before
// them, and keeps at most maxThreads. It compares every pair, which is
// cheap for the few threads anyOf leaves open.
func dedupThreads(ts []thread) []thread {
	if len(ts) < 2 {
		return ts
	}
	out := ts[:1]
	for _, t := range ts[1:] {
		dup := false
		for _, u := range out {
			if t.equal(u) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, t)
		}
	}
	if len(out) > maxThreads {
		out = out[:maxThreads]
	}
	return out
}

// FillMask sets in mask the bit of every token that may come next and
// clears the others; mask must have Grammar.MaskWords words. Special tokens
// are never set: a caller ending the value (with <|call|>, say) consults
// CanEnd.
func (m *Matcher) FillMask(mask []uint64) {
	clear(mask)
	for _, th := range m.threads {
		m.fillThread(th, mask)
	}
}

// Threads reports how many readings of the text m follows (1 unless anyOf
// branches are still open).
func (m *Matcher) Threads() int { return len(m.threads) }
