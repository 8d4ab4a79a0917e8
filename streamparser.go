package harmony

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/o200k"
	"github.com/go-harmony/harmony/internal/toolname"
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
// The buffer (an arena shared by all messages of the stream, in blocks; see
// reserve) is append-only: bytes once written are never changed, and Reset
// starts a new arena instead of reusing the old one. So the delta, the current content and every
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
	enc       *Encoding
	whole     []uint64      // enc.wholeUTF8()
	mayHold   []uint64      // enc.holdRanks(), in recovery
	mode      ParseMode     // ParseOptions.Mode
	tools     toolname.Rule // ParseOptions.Functions and Namespaces, for recovery
	keepForms bool          // ParseOptions.KeepHeaders
	formBuf   []byte        // keepForm's buffer for the canonical header text
	keepToks  bool
	initial   Role
	prefill   *header // ParseOptions.Prefill's header, or nil

	state    StreamState
	nextRole Role // role of the next header, when the caller told it
	header   []Token
	hdrBuf   []byte // scratch for decoding the header
	cur      header
	arena    []byte // content of every message so far, append-only
	msgStart int    // where the current message's content starts in arena
	pending  []byte // bytes of an incomplete UTF-8 sequence
	// The last delta is arena[deltaStart:deltaEnd] (none if they are
	// equal): kept as offsets, so that setting it per token writes no
	// pointer. Every path that may move the arena to a new block (reserve)
	// sets the delta afterwards.
	deltaStart, deltaEnd int

	events     []Event // what the last Process or ProcessEOS did
	lazyDelta  bool    // and then a delta, the last one (see emitDelta)
	noEvents   bool    // ParseCompletion: nobody reads the events
	needsStart bool    // the first message's start is still to be reported
	dropped    int     // what recovery dropped
	pendingTo  string  // the recipient of the header being read, from a "to=" word before its <|channel|>
	held       int     // recovery: the bytes at the end of the content not yet in a delta (see holdStart)

	messages []Message
	tokens   []Token
	index    int
	errState StreamState // state when the last token arrived, for errors
}

// NewStreamParser returns a parser for a completion. With role set (usually
// [RoleAssistant]), the first token is expected right after the rendered
// "<|start|>{role}"; with role "", at a <|start|>; with opts.Prefill set,
// inside the content of that message. A nil opts means strict.
func (e *Encoding) NewStreamParser(role Role, opts *ParseOptions) (*StreamParser, error) {
	return e.newParser(role, opts, true)
}

func (e *Encoding) newParser(role Role, opts *ParseOptions, keepTokens bool) (*StreamParser, error) {
	if role != "" && !role.Valid() {
		return nil, fmt.Errorf("harmony: %w %q", ErrUnknownRole, role)
	}
	p := &StreamParser{enc: e, whole: e.wholeUTF8(), initial: role, keepToks: keepTokens, header: make([]Token, 0, 32)}
	if opts != nil {
		if opts.Mode > ParseRecover {
			return nil, fmt.Errorf("harmony: unknown parse mode %d", opts.Mode)
		}
		p.mode, p.keepForms = opts.Mode, opts.KeepHeaders
		if p.mode == ParseRecover {
			p.mayHold = e.holdRanks()
		}
		p.tools = toolname.NewRule(toolname.Recover, opts.Functions, opts.Namespaces)
		if opts.Prefill != nil {
			h, err := prefillHeader(opts.Prefill, role, p.keepForms)
			if err != nil {
				return nil, err
			}
			p.prefill = &h
		}
	}
	p.Reset()
	return p, nil
}

// Reset returns the parser to its initial state (the same role and options),
// keeping its buffers for reuse. Messages returned before stay valid.
func (p *StreamParser) Reset() {
	p.state = StateExpectStart
	p.nextRole = p.initial
	p.needsStart = false
	if p.initial != "" {
		p.state = StateHeader
		p.needsStart = true
	}
	p.header = p.header[:0]
	p.cur = header{}
	if p.prefill != nil {
		p.state, p.nextRole, p.cur = StateContent, "", *p.prefill
	}
	p.arena, p.msgStart = nil, 0
	p.pending = p.pending[:0]
	p.deltaStart, p.deltaEnd = 0, 0
	p.clearEvents()
	p.dropped = 0
	p.pendingTo = ""
	p.held = 0
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
	p.clearEvents()
	if p.state == StateContent && len(p.pending) == 0 && !p.needsStart && isWholeUTF8(p.whole, t) {
		// The common case, most tokens of a completion: content that is
		// whole characters, taken as decodeContent would take it.
		if cap(p.arena)-len(p.arena) < maxTokenBytes {
			p.reserve(p.enc.encoder.TokenLen(uint32(t)))
		}
		// The room is there: a[:len] is p.arena's array, and setting
		// only the length writes no pointer (no write barrier).
		start := len(p.arena)
		a, _ := p.enc.encoder.AppendTokenBytes(p.arena, uint32(t))
		p.arena = p.arena[:len(a)]
		p.deltaStart, p.deltaEnd = start, len(a)
		if p.mode == ParseRecover && (p.held != 0 || isWholeUTF8(p.mayHold, t)) {
			p.holdBack(start)
		}
		p.lazyDelta = !p.noEvents && p.deltaEnd > p.deltaStart
		return nil
	}
	if err := p.step(t, false); err != nil {
		return &ParseError{Index: i, Token: t, State: p.errState, Err: err}
	}
	return nil
}

// ProcessEOS ends the stream: a message in progress is completed. The end of
// the stream inside a header is an error.
func (p *StreamParser) ProcessEOS() error {
	p.clearEvents()
	if err := p.step(0, true); err != nil {
		return &ParseError{Index: p.index, EOS: true, State: p.errState, Err: err}
	}
	return nil
}

func (p *StreamParser) step(t Token, eos bool) error {
	p.errState = p.state
	if p.needsStart && (!eos || p.state == StateContent) {
		p.needsStart = false
		p.emit(Event{Kind: EventMessageStart})
		if p.state == StateContent {
			p.emitHeader() // the prefilled header
		}
	}
	switch p.state {
	case StateExpectStart:
		switch {
		case eos:
			return nil
		case t == TokenStart:
			p.beginHeader("")
		case p.mode != ParseRecover:
			return fmt.Errorf("%w: want <|start|>", ErrUnexpectedToken)
		case isStopToken(t):
			p.dropped++ // a stray stop token between messages
		default:
			// Text or a <|channel|> between messages: a message the model
			// began without <|start|>assistant.
			p.beginHeader(RoleAssistant)
			p.header = append(p.header, t)
		}
	case StateHeader:
		switch {
		case p.mode == ParseRecover && (eos || isStopToken(t)):
			p.endHeaderless()
		case p.mode == ParseRecover && t == TokenStart:
			p.endHeaderless()
			p.beginHeader("")
		case eos:
			return fmt.Errorf("%w: inside a message header", ErrUnexpectedEOS)
		case t == TokenMessage && p.mode == ParseRecover:
			text := p.headerTextLossy()
			h, dropped := p.recoverHeader(text, p.nextRole)
			p.dropped += dropped
			if p.pendingTo != "" {
				if h.recipient == "" {
					h.recipient = p.pendingTo
				}
				dropped = -1 // not a header the model wrote whole: no form to keep
			}
			if p.keepForms && dropped == 0 {
				p.formBuf = h.keepForm(text, p.nextRole, p.formBuf)
			}
			p.startContent(h)
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
			if p.keepForms {
				p.formBuf = h.keepForm(text, role, p.formBuf)
			}
			p.startContent(h)
		case p.mode == ParseLenient && isStopToken(t):
			if p.nextRole != "" && len(p.header) > 0 {
				text, err := p.headerText()
				if err != nil {
					return err
				}
				h, rest, _, err := parseHeader(text, p.nextRole, false)
				if err != nil {
					return err
				}
				if p.keepForms {
					p.formBuf = h.appendCanonical(p.formBuf[:0])
					h.keepCanonical(p.formBuf) // fields such as a channel "to=x"
				}
				p.wholeMessage(h, rest)
			}
			p.state = StateExpectStart
			p.nextRole = ""
		default:
			p.header = append(p.header, t)
		}
	case StateContent:
		switch {
		case eos || isStopToken(t):
			p.finishMessage()
		case p.mode == ParseRecover && t == TokenStart:
			p.finishMessage() // the model forgot the <|end|>
			p.beginHeader("")
		case p.mode == ParseRecover && t == TokenChannel:
			to := p.trailingRecipient()
			if to != "" {
				// The word and the white space before it, held back
				// from the deltas, leave the message.
				p.arena = p.arena[:len(p.arena)-p.held]
				p.held = 0
				p.dropped++
			}
			p.finishMessage() // the model forgot <|end|><|start|>assistant
			p.beginHeader(RoleAssistant)
			p.pendingTo = to
			p.header = append(p.header, t)
		case p.mode == ParseRecover && isSpecial(t):
			p.dropped++ // <|message|>, <|constrain|> or a reserved token in content
			p.deltaStart, p.deltaEnd = 0, 0
			if p.held > 0 {
				// No <|channel|> right after: the held text is text.
				p.deltaStart, p.deltaEnd = len(p.arena)-p.held, len(p.arena)
				p.held = 0
				p.emitDelta()
			}
		default:
			return p.decodeContent(t)
		}
	}
	return nil
}

// emit records an event of the current call.
func (p *StreamParser) emit(ev Event) {
	if !p.noEvents {
		p.flushDelta()
		p.events = append(p.events, ev)
	}
}

// emitDelta records a delta event of the current call, of the last delta. A
// call's only event is most often one delta: it is then kept as just a flag
// and made an Event when Events asks or another event follows
// (flushDelta), which saves writing a whole Event per content token.
func (p *StreamParser) emitDelta() {
	switch {
	case p.noEvents:
	case len(p.events) == 0 && !p.lazyDelta:
		p.lazyDelta = true
	default:
		p.emit(Event{Kind: EventDelta, Text: p.lastDelta()})
	}
}

// flushDelta turns a delta kept by emitDelta into an Event.
func (p *StreamParser) flushDelta() {
	if p.lazyDelta {
		p.lazyDelta = false
		p.events = append(p.events, Event{Kind: EventDelta, Text: p.lastDelta()})
	}
}

// clearEvents forgets the events of the last call.
func (p *StreamParser) clearEvents() {
	p.events = p.events[:0]
	p.lazyDelta = false
}

// beginHeader starts reading a header. role is the message's role when it is
// known before the header (a recovered message), or "".
func (p *StreamParser) beginHeader(role Role) {
	p.state = StateHeader
	p.nextRole = role
	p.pendingTo = ""
	p.header = p.header[:0]
	p.emit(Event{Kind: EventMessageStart})
}

// startContent makes h the header of the message being read.
func (p *StreamParser) startContent(h header) {
	p.nextRole = ""
	p.cur = h
	p.msgStart = len(p.arena)
	p.held = 0
	p.state = StateContent
	p.emitHeader()
}

// emitHeader records the header event of the message being read.
func (p *StreamParser) emitHeader() {
	h := &p.cur
	p.emit(Event{Kind: EventHeader, Role: h.role, Name: h.name, Channel: h.channel, Recipient: h.recipient, ContentType: h.contentType})
}

// wholeMessage adds a message of header h and text that was not streamed (a
// header cut short), reporting its header, its text and its end at once.
func (p *StreamParser) wholeMessage(h header, text string) {
	p.startContent(h)
	p.reserve(len(text))
	start := len(p.arena)
	p.arena = append(p.arena, text...)
	if len(p.arena) > start {
		p.deltaStart, p.deltaEnd = start, len(p.arena)
		p.emit(Event{Kind: EventDelta, Text: p.lastDelta()})
	}
	p.finishMessage()
}

// endHeaderless ends a header that recovery cannot complete: a stop token,
// the end of the output or a <|start|> arrived before its <|message|>. Its
// text, if any, is a message of the channel headerless says.
func (p *StreamParser) endHeaderless() {
	role := p.nextRole
	if role == "" {
		role = RoleAssistant
	}
	text, channel, dropped := p.headerless(p.headerTextLossy(), role)
	p.dropped += dropped
	if p.pendingTo != "" {
		channel = ChannelAnalysis // addressed to a tool: never content, never a call
	}
	if text != "" {
		p.wholeMessage(header{role: role, channel: channel}, text)
	} else if len(p.header) > 0 && dropped == 0 {
		p.dropped++
	}
	p.state = StateExpectStart
	p.nextRole = ""
	p.header = p.header[:0]
}

// trailingRecipient returns the recipient named by a "to=X" word that ends
// the content read so far, when X is a valid recipient: the model wrote the
// header of its next message recipient first and forgot the <|end|><|start|>
// before it, so a <|channel|> that interrupts the content here belongs to a
// message to X. The word is the one holdStart holds back, so that the
// caller can take it and the white space before it out of the content; a
// UTF-8 sequence still incomplete after it is text after the word.
func (p *StreamParser) trailingRecipient() string {
	if p.held == 0 || len(p.pending) > 0 {
		return ""
	}
	w := strings.TrimLeft(bytesString(p.arena[len(p.arena)-p.held:]), " \t\n\f\r")
	if r, ok := strings.CutPrefix(w, msghdr.RecipientPrefix); ok {
		if rec := p.recipient(RoleAssistant, r); rec.Valid() { // the next message's, an assistant's
			return strings.Clone(rec.Full) // its bytes leave the arena
		}
	}
	return ""
}

// Bounds of what recovery holds back from the deltas (see holdStart): a
// longer word is no recipient, and white space before the word beyond
// maxHeldSpace bytes is handed out.
const (
	maxHeldWord  = 256
	maxHeldSpace = 32
)

// holdStart returns where the text that recovery holds back from the
// deltas starts in content s, of which s[:lo] is already handed out (in
// deltas): a word at the end of s that may be a "to=X" word before an
// interrupting <|channel|> — "t", "to", or "to=" and what follows it,
// without white space and at most maxHeldWord bytes, after white space or
// at the start of the content — with the white space before it (at most
// maxHeldSpace bytes), or the white space that ends s, which such a word
// may follow. With spaced set (the rule declares a function whose name
// holds white space), "to=" followed by text with white space is such a
// word too while spaced says that text may be a declared name, written
// whole or not yet. It returns len(s) when nothing is held. Work is
// bounded by the bounds, and by len(s)-lo. A word that continues text
// handed out is no such word, and the result is never before lo.
func holdStart(s string, lo int, spaced func(string) bool) int {
	end := len(s)
	w := end // the start of the word that ends s
	for w > lo && !isASCIISpace(s[w-1]) {
		if w--; end-w > maxHeldWord {
			w = -1
			break
		}
	}
	if w >= 0 && w < end {
		word := s[w:]
		if w > 0 && !isASCIISpace(s[w-1]) || // it continues a word handed out
			!mayBeRecipientWord(word) {
			w = -1
		}
	}
	if spaced != nil {
		// The first "to=" word, at a word start, whose text after "to="
		// holds white space and may be a declared name.
		for i := max(lo, end-maxHeldWord); i < end; i++ {
			j := strings.Index(s[i:end], msghdr.RecipientPrefix)
			if j < 0 || i+j >= w && w >= 0 {
				break
			}
			i += j
			r := s[i+len(msghdr.RecipientPrefix):]
			if (i == 0 || isASCIISpace(s[i-1])) && strings.ContainsAny(r, " \t\n\f\r") && spaced(r) {
				w = i
				break
			}
		}
	}
	if w < 0 {
		return end
	}
	i := w
	for i > lo && w-i < maxHeldSpace && isASCIISpace(s[i-1]) {
		i--
	}
	return i
}

// holdBack updates what recovery holds back after the content grew by the
// bytes from arena offset start, and makes the last delta what is no
// longer held: the text of the held word, once the token shows it is no
// "to=X" word, with what followed it. The content's text is unchanged.
func (p *StreamParser) holdBack(start int) {
	if a := p.arena; start < len(a) && start > p.msgStart && !p.tools.HasSpaced() &&
		(p.held == 0 || isASCIISpace(a[start-1])) {
		// Most tokens, without a loop over what came before: nothing is
		// held but white space (without declared names with spaces,
		// held text that ends in white space is only white space).
		lo := start - p.held
		if last := a[len(a)-1]; isASCIISpace(last) {
			// Hold the white space that ends the content: a "to=" word
			// may follow it.
			i := len(a)
			for i > lo && len(a)-i < maxHeldSpace && isASCIISpace(a[i-1]) {
				i--
			}
			p.held = len(a) - i
			p.deltaStart, p.deltaEnd = lo, i
			if i <= lo {
				p.deltaStart, p.deltaEnd = 0, 0
			}
			return
		} else if !heldWordAt(a, start) {
			// The token ends in a word that is no "t", "to" or
			// "to=…" beginning in it: hand out all. (heldWordAt looks
			// at the token's bytes only; after most ranks the bitset
			// of mayHoldRanks kept Process from calling here at all.)
			p.held = 0
			p.deltaStart, p.deltaEnd = lo, len(a)
			return
		}
	}
	lo := start - p.held
	var spaced func(string) bool
	if p.tools.HasSpaced() {
		spaced = p.tools.DeclaredPrefix
	}
	h := p.msgStart + holdStart(bytesString(p.arena[p.msgStart:]), lo-p.msgStart, spaced)
	p.held = len(p.arena) - h
	p.deltaStart, p.deltaEnd = lo, h
	if h <= lo {
		p.deltaStart, p.deltaEnd = 0, 0
	}
}

// heldWordAt reports whether the word that ends a, beginning in a[start:]
// after white space, may be a "to=X" word: "t", "to" or "to=…". A word
// that continues a word of the bytes before start is none.
func heldWordAt(a []byte, start int) bool {
	i := len(a)
	for i > start && !isASCIISpace(a[i-1]) {
		i--
	}
	if i == start && !isASCIISpace(a[start-1]) {
		return false
	}
	return mayBeRecipientWord(bytesString(a[i:]))
}

// mayBeRecipientWord reports whether word w, without white space, may be a
// "to=X" word or its beginning: "t", "to" or "to=…". The one statement of
// the word rule of holdStart, heldWordAt and mayHoldRanks.
func mayBeRecipientWord(w string) bool {
	return w != "" && (strings.HasPrefix(w, msghdr.RecipientPrefix) || strings.HasPrefix(msghdr.RecipientPrefix, w))
}

// headerTextLossy decodes the header tokens for recovery: unknown ids are
// skipped and invalid UTF-8 is repaired.
func (p *StreamParser) headerTextLossy() string {
	b := p.hdrBuf[:0]
	for _, t := range p.header {
		var ok bool
		if b, ok = p.enc.appendTokenBytes(b, t); !ok {
			p.dropped++
		}
	}
	p.hdrBuf = b
	if utf8.Valid(b) {
		return string(b)
	}
	return string(utf8x.AppendLossy(nil, b))
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

// decodeContent adds one content token, as the reference does: the valid
// prefix of the pending bytes becomes content and the delta, and one invalid
// sequence, if the pending bytes start with one, becomes U+FFFD. An unknown
// id is an error in strict mode; otherwise it becomes U+FFFD (after the
// pending bytes, repaired) and decoding goes on.
func (p *StreamParser) decodeContent(t Token) error {
	p.deltaStart, p.deltaEnd = 0, 0
	b, ok := p.enc.tokenBytes(t)
	if !ok {
		if p.mode == ParseStrict {
			return fmt.Errorf("%w %d in content", ErrUnknownToken, t)
		}
		p.reserve(3*len(p.pending) + len(utf8x.Replacement))
		start := len(p.arena)
		p.arena = utf8x.AppendLossy(p.arena, p.pending)
		p.arena = append(p.arena, utf8x.Replacement...)
		p.pending = p.pending[:0]
		p.deltaStart, p.deltaEnd = start, len(p.arena)
		if p.mode == ParseRecover {
			p.holdBack(start)
		}
		if p.deltaEnd > p.deltaStart {
			p.emit(Event{Kind: EventDelta, Text: p.lastDelta()})
		}
		return nil
	}
	p.reserve(len(b) + 3*len(p.pending) + len(utf8x.Replacement))
	start := len(p.arena)
	if len(p.pending) == 0 && isSpecial(t) {
		// A special token that lenient mode keeps as text: whole
		// characters. (Process takes the ranks that are.)
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
		p.deltaStart, p.deltaEnd = start, len(p.arena)
		if p.mode == ParseRecover {
			p.holdBack(start)
		}
		if p.deltaEnd > p.deltaStart {
			p.emitDelta()
		}
	}
	return nil
}

// contentRun adds the leading ordinary tokens of toks (ranks, up to the
// first special token or unknown id, or until the arena's block is nearly
// full) to the content at once, and returns how many it took (ok), or how
// many must go one by one (!ok): for ParseCompletion, in StateContent,
// where nobody reads the events or the deltas. If their bytes, after any
// pending ones, are valid UTF-8 and end on a character boundary, decoding
// them one by one (see decodeContent) would only have moved each character
// into the content as it completed, so the content is their concatenation.
// Otherwise nothing is kept (the bytes written past the arena's end were
// never handed out) and the caller takes those n tokens through Process.
// The last delta is left as Process would leave it.
func (p *StreamParser) contentRun(toks []Token) (n int, ok bool) {
	eng, arena := p.enc.encoder, p.arena
	start := len(arena)
	arena = append(arena, p.pending...)
	arena, n = eng.AppendTokensBytes(arena, tokenIDs(toks))
	if n == 0 {
		return 0, true
	}
	if !p.runValid(arena[start:], toks[:n]) {
		return n, false
	}
	last := len(arena) - eng.TokenLen(uint32(toks[n-1]))
	for last > start && !utf8.RuneStart(arena[last]) {
		last-- // the last token's delta starts with the character it completes
	}
	p.arena = arena
	p.pending = p.pending[:0]
	p.deltaStart, p.deltaEnd = last, len(arena)
	if p.mode == ParseRecover {
		// As token by token: the bounds of holdStart make the held text
		// the same (the last delta, nobody reads).
		p.holdBack(start)
	}
	p.index += n
	p.errState = StateContent
	return n, true
}

// tokenIDs views tokens as the engine's ids.
func tokenIDs(toks []Token) []uint32 {
	return unsafe.Slice((*uint32)(unsafe.SliceData(toks)), len(toks))
}

// runValid reports whether run, the pending bytes and then the bytes of
// toks (ranks), is valid UTF-8. Tokens of whole characters are valid and
// start and end on character boundaries, so it is iff each stretch of
// other tokens (with the pending bytes before the first) is: only those
// are checked, and only when there are any.
func (p *StreamParser) runValid(run []byte, toks []Token) bool {
	seg := -1 // where the stretch being passed over starts
	if len(p.pending) > 0 {
		seg = 0
	} else if allWholeUTF8(p.whole, toks) {
		return true
	}
	pos := len(p.pending)
	for _, t := range toks {
		if !isWholeUTF8(p.whole, t) {
			if seg < 0 {
				seg = pos
			}
		} else if seg >= 0 {
			if !utf8.Valid(run[seg:pos]) {
				return false
			}
			seg = -1
		}
		pos += p.enc.encoder.TokenLen(uint32(t))
	}
	return seg < 0 || utf8.Valid(run[seg:])
}

// allWholeUTF8 reports whether every token of toks is a rank whose bytes
// are complete UTF-8, in whole (from wholeUTF8).
func allWholeUTF8(whole []uint64, toks []Token) bool {
	for _, t := range toks {
		if !isWholeUTF8(whole, t) {
			return false
		}
	}
	return true
}

// finishMessage completes the message being read, as the reference does at a
// stop token or the end of the stream: the pending bytes, repaired, end its
// content.
func (p *StreamParser) finishMessage() {
	p.reserve(3 * len(p.pending))
	start := len(p.arena) - p.held // text held back is text after all
	p.held = 0
	p.arena = utf8x.AppendLossy(p.arena, p.pending)
	if len(p.arena) > start {
		p.emit(Event{Kind: EventDelta, Text: bytesString(p.arena[start:])})
	}
	p.messages = append(p.messages, p.cur.message(bytesString(p.arena[p.msgStart:])))
	p.emit(Event{Kind: EventMessageEnd, Message: len(p.messages) - 1})
	p.state = StateExpectStart
	p.cur = header{}
	p.msgStart = len(p.arena)
	p.pending = p.pending[:0]
	p.deltaStart, p.deltaEnd = 0, 0
}

// arenaBlock is the least size of a new arena block.
const arenaBlock = 64 << 10

// reserve makes room for n more bytes in the arena without moving any byte
// already handed out: when the block is full, the current message's content
// so far is copied to a new block (at least twice its size), and the earlier
// messages keep theirs in the old one. Growing by append instead would copy
// every earlier message again at each growth.
func (p *StreamParser) reserve(n int) {
	if cap(p.arena)-len(p.arena) >= n {
		return
	}
	cur := p.arena[p.msgStart:]
	a := make([]byte, len(cur), max(arenaBlock, 2*len(cur)+n))
	copy(a, cur)
	p.arena, p.msgStart = a, 0
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
// a UTF-8 sequence still incomplete, nor what recovery holds back: see
// [ParseRecover]), or "" outside of content: what the deltas gave.
func (p *StreamParser) CurrentContent() string {
	if p.state == StateContent {
		return bytesString(p.arena[p.msgStart : len(p.arena)-p.held])
	}
	return ""
}

// LastContentDelta returns the text the last token added to the content, and
// false when it added none: outside of content, when the token's bytes
// only began a UTF-8 character, or when recovery holds them back (see
// [ParseRecover]; the delta of a later token then carries them).
func (p *StreamParser) LastContentDelta() (string, bool) {
	return p.lastDelta(), p.deltaEnd > p.deltaStart
}

// lastDelta returns the text of the last delta, or "".
func (p *StreamParser) lastDelta() string {
	return bytesString(p.arena[p.deltaStart:p.deltaEnd])
}

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

// mayHoldRanks returns the bitset of the ranks after which recovery may
// hold text back from the deltas (see holdStart): their bytes end in white
// space, hold an '=' (a "to=" word, or a declared name's, may begin in
// them) or end in the word "t" or "to". After any other rank, when nothing
// was held, nothing is: the check the stream parser makes per token is
// one bit.
func mayHoldRanks(eng *o200k.Engine) []uint64 {
	bits := make([]uint64, (eng.NumRanks()+63)/64)
	for id := range eng.NumRanks() {
		b := eng.TokenBytes(uint32(id))
		if len(b) == 0 {
			continue
		}
		w := b[bytes.LastIndexAny(b, " \t\n\f\r")+1:]
		if isASCIISpace(b[len(b)-1]) || bytes.IndexByte(b, '=') >= 0 || mayBeRecipientWord(bytesString(w)) {
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

// holdRanks returns the bitset of mayHoldRanks, built on first use.
func (e *Encoding) holdRanks() []uint64 {
	e.holdOnce.Do(func() { e.mayHold = mayHoldRanks(e.encoder) })
	return e.mayHold
}

// isWholeUTF8 reports whether t is a rank whose bytes are complete UTF-8, in
// whole (from wholeUTF8).
func isWholeUTF8(whole []uint64, t Token) bool {
	i := int(t) / 64
	return i < len(whole) && whole[i]&(1<<(t%64)) != 0
}
