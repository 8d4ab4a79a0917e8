package openaicompat

import "github.com/go-harmony/harmony"

// This file holds the one skeleton behind both APIs' output conversions:
// New…Response, …FromTokens and the stream converters. The decoder (see
// output.go) turns tokens into events; an accumulator, one per API, turns
// the events into that API's response and, when streaming, into the chunks
// or events (its outputs) that say the same as they happen. The converter
// drives the two; each API's file only says what its wire looks like.

// accumulator is one API's side of an output conversion: it receives the
// decoder's events (sink), adds the outputs that open and close a stream,
// and builds the whole response. Out is a streamed output
// (ChatCompletionChunk, ResponseEvent), Resp the whole response.
type accumulator[Out, Resp any] interface {
	sink
	// base returns the options, ids and pending outputs.
	base() *accBase[Out]
	// streamStart adds the outputs that open a stream, before any token.
	streamStart()
	// streamEnd adds the outputs that close a stream after the decoder
	// finished without error.
	streamEnd(t tally)
	// response returns the whole response.
	response(t tally) Resp
}

// accBase is what both accumulators hold: their options, the response's id
// and creation time, the ids handed out, and the outputs not yet taken.
type accBase[Out any] struct {
	opts    ResponseOptions
	id      string
	created int64
	ids     idSet
	stream  bool  // build the outputs of a stream, not only the response
	out     []Out // outputs not yet returned to the caller
}

// init sets the options (nil means the defaults) and the response's id: the
// options' ID, or idPrefix and a new id.
func (b *accBase[Out]) init(opts *ResponseOptions, idPrefix string, stream bool) {
	b.ids, b.stream = idSet{}, stream
	if opts != nil {
		b.opts = *opts
	}
	b.id = b.opts.ID
	if b.id == "" {
		b.id = idPrefix + b.opts.newID()
	}
	b.created = b.opts.created()
}

func (b *accBase[Out]) base() *accBase[Out] { return b }

// take returns the pending outputs, which become the caller's.
func (b *accBase[Out]) take() []Out {
	out := b.out
	b.out = nil
	return out
}

// fromTokens converts sampled tokens all at once (…FromTokens), as a
// stream converter would, without the stream's outputs.
func fromTokens[Out, Resp any, A accumulator[Out, Resp]](enc *harmony.Encoding, a A, tokens []harmony.Token, s Sampling) (Resp, error) {
	var zero Resp
	c, err := newConverter(enc, a)
	if err != nil {
		return zero, err
	}
	for _, t := range tokens {
		if err := c.d.process(t, a); err != nil {
			return zero, err
		}
	}
	t, err := c.end(s)
	if err != nil {
		return zero, err
	}
	return a.response(t), nil
}

// converter is the core of a conversion from tokens: the decoder, the
// accumulator it reports to, and the state of the stream. The exported
// stream converters wrap one.
type converter[Out, Resp any, A accumulator[Out, Resp]] struct {
	d       *decoder
	a       A
	started bool // the stream's opening outputs were added
	ended   bool // Finish succeeded, or the stream was failed
}

func newConverter[Out, Resp any, A accumulator[Out, Resp]](enc *harmony.Encoding, a A) (*converter[Out, Resp, A], error) {
	d, err := newDecoder(enc, &a.base().opts)
	if err != nil {
		return nil, err
	}
	return &converter[Out, Resp, A]{d: d, a: a}, nil
}

// begin adds the stream's opening outputs, once.
func (c *converter[Out, Resp, A]) begin() {
	if !c.started {
		c.started = true
		c.a.streamStart()
	}
}

// end finishes the decoding and returns the usage.
func (c *converter[Out, Resp, A]) end(s Sampling) (tally, error) {
	if err := c.d.finish(c.a, s.Truncated); err != nil {
		return tally{}, err
	}
	return c.d.tally(s), nil
}

// process is the stream converters' Process.
func (c *converter[Out, Resp, A]) process(t harmony.Token) ([]Out, error) {
	c.begin()
	err := c.d.process(t, c.a)
	return c.a.base().take(), err
}

// finish is the stream converters' Finish.
func (c *converter[Out, Resp, A]) finish(s Sampling) ([]Out, error) {
	c.begin()
	t, err := c.end(s)
	if err != nil {
		return c.a.base().take(), err
	}
	c.a.streamEnd(t)
	c.ended = true
	return c.a.base().take(), nil
}

// stop ends the stream early, after the opening outputs (a stream failed
// by the server): Process and Finish then return an error wrapping
// ErrStreamFinished. It reports whether the stream was still going, that
// is, not already ended by Finish or stop.
func (c *converter[Out, Resp, A]) stop() bool {
	if c.ended {
		return false
	}
	c.ended = true
	c.begin()
	c.d.done = true
	return true
}
