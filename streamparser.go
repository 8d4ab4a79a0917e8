package harmony

import (
	"fmt"
	"unicode/utf8"
	"unsafe"

	"github.com/go-harmony/harmony/internal/o200k"
	"github.com/go-harmony/harmony/internal/utf8x"
)

// This file holds the one state machine behind both ParseCompletion and
// StreamParser. Content is decoded incrementally: each token's bytes join a
// small pending buffer, the valid UTF-8 prefix moves to the content, and at
// most one invalid sequence per token becomes U+FFFD — the reference's exact
// behaviour, which fixes what each delta is. Work per token is proportional to
// the token, never to the message: the reference re-encodes the content after
// every token; here the content is a growing byte buffer.
//
// The buffer (an arena shared by all messages of the stream) is append-only:
// bytes once written are never changed, and Reset starts a new arena instead
// of reusing the old one. So the delta, the current content and every
// message's text are strings that alias the arena, made with unsafe.String —
// no copy and no allocation per token. ParseCompletion sizes the arena once
// from the tokens' lengths.

// StreamParser parses a completion one token at a time. After each call to
// [StreamParser.Process] its accessors report the message being read. It is
// not safe for concurrent use. The zero value is not usable: create one with
// [Encoding.NewStreamParser].
//
// Call order: Process for each sampled token, then ProcessEOS once when the
// stream ends. After an error the parser's state is that of the reference
// after the same error; call [StreamParser.Reset] to start over.
type StreamParser struct {
	enc      *Encoding
	whole    []uint64 // enc.wholeUTF8()
	lenient  bool
	keepToks bool
	initial  Role

	state    StreamState
	nextRole Role // role of the next header, when the caller told it
	header   []Token
	hdrBuf   []byte // scratch for decoding the header
	cur      header
	arena    []byte  // content of every message so far, append-only
	msgStart int     // where the current message's content starts in arena
	pending  []byte  // bytes of an incomplete UTF-8 sequence
	stuck    []Token // tokens after an unknown id, which the reference never decodes
	delta    string
	hasDelta bool

	messages []Message
	tokens   []Token
	index    int
	errState StreamState // state when the last token arrived, for errors
}

// NewStreamParser returns a parser for a completion. With role set (usually
// [RoleAssistant]), the first token is expected right after the rendered
// "<|start|>{role}"; with role "", at a <|start|>. A nil opts means strict.
func (e *Encoding) NewStreamParser(role Role, opts *ParseOptions) (*StreamParser, error) {
	return e.newParser(role, opts, true)
}

func (e *Encoding) newParser(role Role, opts *ParseOptions, keepTokens bool) (*StreamParser, error) {
	if role != "" && !role.Valid() {
		return nil, fmt.Errorf("harmony: %w %q", ErrUnknownRole, role)
	}
	p := &StreamParser{enc: e, whole: e.wholeUTF8(), initial: role, keepToks: keepTokens, header: make([]Token, 0, 32)}
	if opts != nil {
		p.lenient = opts.Lenient
	}
	p.Reset()
	return p, nil
}

// Reset returns the parser to its initial state (the same role and options),
// keeping its buffers for reuse. Messages returned before stay valid.
func (p *StreamParser) Reset() {
	p.state = StateExpectStart
	p.nextRole = p.initial
	if p.initial != "" {
		p.state = StateHeader
	}
	p.header = p.header[:0]
	p.cur = header{}
	p.arena, p.msgStart = nil, 0
	p.pending = p.pending[:0]
	p.stuck = p.stuck[:0]
	p.delta, p.hasDelta = "", false
	p.messages = nil
	p.tokens = p.tokens[:0]
	p.index = 0
}

// Process consumes one token. It returns a [*ParseError] if the token cannot
// continue the stream.
func (p *StreamParser) Process(t Token) error {
	if p.keepToks {
		p.tokens = append(p.tokens, t)
	}
	i := p.index
	p.index++
	if err := p.step(t, false); err != nil {
		return &ParseError{Index: i, Token: t, State: p.errState, Err: err}
	}
	return nil
}

// ProcessEOS ends the stream: a message in progress is completed. The end of
// the stream inside a header is an error.
func (p *StreamParser) ProcessEOS() error {
	if err := p.step(0, true); err != nil {
		return &ParseError{Index: p.index, EOS: true, State: p.errState, Err: err}
	}
	return nil
}

func (p *StreamParser) step(t Token, eos bool) error {
	p.errState = p.state
	switch p.state {
	case StateExpectStart:
		if eos {
			return nil
		}
		if t != TokenStart {
			return fmt.Errorf("%w: want <|start|>", ErrUnexpectedToken)
		}
		p.state = StateHeader
		p.header = p.header[:0]
	case StateHeader:
		switch {
		case eos:
			return fmt.Errorf("%w: inside a message header", ErrUnexpectedEOS)
		case t == TokenMessage:
			// As in the reference, a header that fails to parse leaves the
			// parser waiting for the next <|start|>.
			role := p.nextRole
			p.state = StateExpectStart
			text, err := p.headerText()
			if err != nil {
				return err
			}
			h, rest, hasRest, err := parseHeader(text, role, true)
			if err != nil {
				return err
			}
			if hasRest {
				return fmt.Errorf("%w: unexpected %q in the header", ErrInvalidHeader, rest)
			}
			p.nextRole = ""
			p.cur = h
			p.msgStart = len(p.arena)
			p.state = StateContent
		case p.lenient && IsStopToken(t):
			if p.nextRole != "" && len(p.header) > 0 {
				text, err := p.headerText()
				if err != nil {
					return err
				}
				h, rest, _, err := parseHeader(text, p.nextRole, false)
				if err != nil {
					return err
				}
				p.messages = append(p.messages, h.message(rest))
			}
			p.state = StateExpectStart
			p.nextRole = ""
		default:
			p.header = append(p.header, t)
		}
	case StateContent:
		if eos || IsStopToken(t) {
			p.finishMessage()
			return nil
		}
		p.decodeContent(t)
	}
	return nil
}

// headerText decodes the header tokens, which must be known ids forming valid
// UTF-8.
func (p *StreamParser) headerText() (string, error) {
	b := p.hdrBuf[:0]
	for _, t := range p.header {
		var ok bool
		if b, ok = p.enc.appendTokenBytes(b, t); !ok {
			return "", fmt.Errorf("%w %d in the header", ErrUnknownToken, t)
		}
	}
	p.hdrBuf = b
	if !utf8.Valid(b) {
		valid, _ := utf8x.Check(b)
		return "", fmt.Errorf("%w in the header at byte %d", ErrInvalidUTF8, valid)
	}
	return string(b), nil
}

// decodeContent adds one content token, exactly as the reference does: after
// an unknown id nothing more is decoded until the message ends; otherwise the
// valid prefix of the pending bytes becomes content and the delta, and one
// invalid sequence, if the pending bytes start with one, becomes U+FFFD.
func (p *StreamParser) decodeContent(t Token) {
	p.delta, p.hasDelta = "", false
	if len(p.stuck) > 0 {
		p.stuck = append(p.stuck, t)
		return
	}
	b, ok := p.enc.tokenBytes(t)
	if !ok {
		p.stuck = append(p.stuck, t)
		return
	}
	start := len(p.arena)
	if len(p.pending) == 0 && (isWholeUTF8(p.whole, t) || IsSpecial(t)) {
		// The common case: a token that is whole characters.
		p.arena = append(p.arena, b...)
	} else {
		p.pending = append(p.pending, b...)
		valid, errLen := utf8x.Check(p.pending)
		p.arena = append(p.arena, p.pending[:valid]...)
		consumed := valid
		if valid < len(p.pending) && errLen > 0 {
			p.arena = append(p.arena, utf8x.Replacement...)
			consumed += errLen
		}
		p.pending = append(p.pending[:0], p.pending[consumed:]...)
	}
	if len(p.arena) > start {
		p.delta, p.hasDelta = bytesString(p.arena[start:]), true
	}
}

// finishMessage completes the message being read, as the reference does at a
// stop token or the end of the stream: undecodable tokens become one U+FFFD,
// then the pending bytes, repaired.
func (p *StreamParser) finishMessage() {
	if len(p.stuck) > 0 {
		p.arena = append(p.arena, utf8x.Replacement...)
	}
	p.arena = utf8x.AppendLossy(p.arena, p.pending)
	p.messages = append(p.messages, p.cur.message(bytesString(p.arena[p.msgStart:])))
	p.state = StateExpectStart
	p.cur = header{}
	p.msgStart = len(p.arena)
	p.pending = p.pending[:0]
	p.stuck = p.stuck[:0]
	p.delta, p.hasDelta = "", false
}

// bytesString returns b as a string without copying. Only for bytes of the
// append-only content buffer, which are never written again.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// State returns the state of the parser's state machine.
func (p *StreamParser) State() StreamState { return p.state }

// CurrentRole returns the role of the message being read: known once its
// header is complete, or from the start when the parser was told the role. It
// is "" otherwise.
func (p *StreamParser) CurrentRole() Role {
	if p.state == StateContent {
		return p.cur.role
	}
	return p.nextRole
}

// CurrentName returns the author name of the message being read (a tool's
// name), or "".
func (p *StreamParser) CurrentName() string {
	if p.state == StateContent {
		return p.cur.name
	}
	return ""
}

// CurrentChannel returns the channel of the message being read once its
// header is complete, or "".
func (p *StreamParser) CurrentChannel() string {
	if p.state == StateContent {
		return p.cur.channel
	}
	return ""
}

// CurrentRecipient returns the recipient of the message being read once its
// header is complete, or "".
func (p *StreamParser) CurrentRecipient() string {
	if p.state == StateContent {
		return p.cur.recipient
	}
	return ""
}

// CurrentContentType returns the content type of the message being read once
// its header is complete, or "".
func (p *StreamParser) CurrentContentType() string {
	if p.state == StateContent {
		return p.cur.contentType
	}
	return ""
}

// CurrentContent returns the content of the message being read so far (without
// a UTF-8 sequence still incomplete), or "" outside of content.
func (p *StreamParser) CurrentContent() string {
	if p.state == StateContent {
		return bytesString(p.arena[p.msgStart:])
	}
	return ""
}

// LastContentDelta returns the text the last token added to the content, and
// false when it added none: outside of content, or when the token's bytes
// only began a UTF-8 character.
func (p *StreamParser) LastContentDelta() (string, bool) { return p.delta, p.hasDelta }

// Messages returns the messages completed so far. The messages stay valid
// after Reset; the slice itself is the parser's until the next call to
// Process, ProcessEOS or Reset.
func (p *StreamParser) Messages() []Message { return p.messages }

// Tokens returns every token passed to Process since the parser was created or
// reset. The slice is the parser's own: it is valid until the next call to
// Process or Reset.
func (p *StreamParser) Tokens() []Token { return p.tokens }

// wholeUTF8Ranks marks the ranks whose bytes are valid UTF-8 by themselves,
// so that the parsers can move them into content without checking them again.
func wholeUTF8Ranks(eng *o200k.Engine) []uint64 {
	bits := make([]uint64, (eng.NumRanks()+63)/64)
	for id := range eng.NumRanks() {
		if utf8.Valid(eng.TokenBytes(uint32(id))) {
			bits[id/64] |= 1 << (id % 64)
		}
	}
	return bits
}

// wholeUTF8 returns the bitset of ranks whose bytes are complete UTF-8.
func (e *Encoding) wholeUTF8() []uint64 {
	e.wholeOnce.Do(func() { e.whole = wholeUTF8Ranks(e.encoder) })
	return e.whole
}

// isWholeUTF8 reports whether t is a rank whose bytes are complete UTF-8, in
// whole (from wholeUTF8).
func isWholeUTF8(whole []uint64, t Token) bool {
	i := int(t) / 64
	return i < len(whole) && whole[i]&(1<<(t%64)) != 0
}
