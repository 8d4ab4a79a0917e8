package main

import (
	"errors"
	"flag"
	"strconv"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/jsonw"
)

// streamError is the "error" of a stream line: the index of the token
// rejected and the message.
type streamError struct {
	Index   int    `json:"index"`
	Message string `json:"message"`
}

// setupStream registers the flags of stream and returns its action: each
// line's token ids fed to one stream parser, reset for every line.
func setupStream(fs *flag.FlagSet) func(*cli) error {
	flags := parseFlags(fs)
	return func(c *cli) error {
		role, opts, err := flags()
		if err != nil {
			return err
		}
		p, err := c.enc.NewStreamParser(role, opts)
		if err != nil {
			return err
		}
		return c.eachTokenLine(role, opts, func(n int, toks []harmony.Token) (any, error) {
			return &streamLine{c: c, p: p, role: role, n: n, toks: toks}, nil
		})
	}
}

// streamLine is the output of stream for one line of tokens, which it
// computes as it is written (see [streamLine.write]).
type streamLine struct {
	c    *cli
	p    *harmony.StreamParser
	role harmony.Role // the parser's first role
	n    int          // the input line's number
	toks []harmony.Token
}

// write feeds the tokens to the parser and writes
//
//	{"steps":[STEP,...],"messages":[...]}
//
// (with "error":{"index":k,"message":"line N: ..."} when token k of line N is
// rejected), each step as soon as its token is processed: the output of a
// line of a million tokens, some twenty times the size of its input, is never
// held in memory.
// The bytes are those encoding/json writes, without HTML escaping, for
//
//	struct {
//		Steps    []struct {
//			Token       *harmony.Token `json:"token,omitempty"`
//			EOS         bool           `json:"eos,omitempty"`
//			Role        *string        `json:"role"`
//			Channel     *string        `json:"channel"`
//			Recipient   *string        `json:"recipient"`
//			ContentType *string        `json:"content_type"`
//			Delta       *string        `json:"delta"`
//		} `json:"steps"`
//		Messages []harmony.Message `json:"messages"`
//		Error    *streamError      `json:"error,omitempty"`
//	}
//
// with nil for an unknown or empty field and for no delta (TestStreamBytes
// holds them to it).
func (s *streamLine) write(lw *lineWriter) error {
	p := s.p
	p.Reset()
	var serr *streamError
	var h stepHeader
	fail := func(index int, err error) {
		var pe *harmony.ParseError
		if errors.As(err, &pe) {
			index = pe.Index
		}
		serr = &streamError{Index: index, Message: lineError(s.n, withRoleHint(err, s.role))}
		s.c.failed = true
	}
	b := append(lw.w.AvailableBuffer(), `{"steps":[`...)
	for i, t := range s.toks {
		if err := p.Process(t); err != nil {
			fail(i, err)
			break
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"token":`...)
		b = strconv.AppendUint(b, uint64(t), 10)
		b = h.appendState(b, p)
		if cap(b)-len(b) < 1024 { // the buffer is (nearly) full
			if err := lw.writeBuffer(b); err != nil {
				return err
			}
			b = lw.w.AvailableBuffer()
		}
	}
	if serr == nil {
		if err := p.ProcessEOS(); err != nil {
			fail(len(s.toks), err)
		} else {
			if len(s.toks) > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"eos":true`...)
			b = h.appendState(b, p)
		}
	}
	b = append(b, `],"messages":`...)
	b, err := appendMessages(b, p.Messages())
	if err != nil {
		return err
	}
	if serr != nil {
		e, err := lw.marshal(serr)
		if err != nil {
			return err
		}
		b = append(b, `,"error":`...)
		b = append(b, e...)
	}
	b = append(b, "}\n"...)
	return lw.writeBuffer(b)
}

// stepHeader caches the JSON of the header fields of a step (role, channel,
// recipient and content type), which stay the same for every token of a
// message's content.
type stepHeader struct {
	role, channel, recipient, contentType string
	json                                  []byte // nil until the first step
}

// appendState appends the parser's state, the fields of a step after its
// first and the closing brace, to b.
func (h *stepHeader) appendState(b []byte, p *harmony.StreamParser) []byte {
	role, channel, recipient, contentType := string(p.CurrentRole()), p.CurrentChannel(), p.CurrentRecipient(), p.CurrentContentType()
	if h.json == nil || role != h.role || channel != h.channel || recipient != h.recipient || contentType != h.contentType {
		h.role, h.channel, h.recipient, h.contentType = role, channel, recipient, contentType
		j := appendOptional(append(h.json[:0], `,"role":`...), role)
		j = appendOptional(append(j, `,"channel":`...), channel)
		j = appendOptional(append(j, `,"recipient":`...), recipient)
		h.json = appendOptional(append(j, `,"content_type":`...), contentType)
	}
	b = append(b, h.json...)
	b = append(b, `,"delta":`...)
	if d, ok := p.LastContentDelta(); ok {
		b = jsonw.AppendString(b, d)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// appendOptional appends s as a JSON string, or null when it is empty.
func appendOptional(b []byte, s string) []byte {
	if s == "" {
		return append(b, "null"...)
	}
	return jsonw.AppendString(b, s)
}
