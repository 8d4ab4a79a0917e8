package openaicompat

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-harmony/harmony"
)

// This file holds what the two APIs share on the way out: the options, the
// classification of the model's messages into reasoning, text and tool
// calls, and the decoder behind both stream converters and the *FromTokens
// functions (driven by the converter of converter.go). The decoder wraps a
// harmony.StreamParser and turns its per-token accessors into three events
// (a message starts, its text grows, it ends) so that each API only has to
// say what an event looks like on its wire. Both the streamed and the
// whole-response paths classify messages with the same function, which is
// what keeps them equal.

// ResponseOptions control how model output becomes a response. The zero value
// (and a nil *ResponseOptions) gives random ids, the current time, the
// reasoning included and strict parsing.
type ResponseOptions struct {
	// ID is the response's id; "" means a new one ("chatcmpl-…" or
	// "resp_…").
	ID string
	// Model is the model name reported in the response.
	Model string
	// Created is the response's creation time in Unix seconds; 0 means now.
	Created int64
	// IDGenerator returns a new unique suffix for each id the response needs,
	// in order: the response's id (when ID is empty), then for each output
	// item its id (Responses API) and each tool call's "call_" id. nil means
	// random suffixes. Tests pass a counter for deterministic output.
	IDGenerator func() string
	// ExcludeReasoning leaves the reasoning out of the response (OpenRouter's
	// reasoning.exclude): no reasoning field, deltas or items.
	ExcludeReasoning bool
	// ReasoningContent writes Chat Completions reasoning under
	// "reasoning_content" (the name some servers use) instead of "reasoning".
	ReasoningContent bool
	// StreamUsage adds, after a stream's last chunk, a chunk with the usage
	// and no choices (stream_options.include_usage).
	StreamUsage bool
	// Lenient recovers malformed model output instead of failing: harmony's
	// lenient parsing, then tokens that still do not form a message become
	// text, and messages from roles other than the assistant become text
	// too. Strict (the default) ends the conversion with an [*OutputError].
	Lenient bool
	// ExpectStart says the tokens start at a <|start|> token, not (as usual)
	// right after the rendered "<|start|>assistant" of the prompt. Only for
	// the stream converters and the *FromTokens functions.
	ExpectStart bool
}

// Sampling is what the caller knows about a completion besides its tokens.
type Sampling struct {
	// Truncated says sampling stopped at the token limit rather than at a
	// stop token: the finish reason is "length" and the Responses status
	// "incomplete". A header cut off by the limit is then dropped rather
	// than being an error.
	Truncated bool
	// Token counts for the usage. ReasoningTokens is the part of
	// CompletionTokens spent on reasoning; 0 leaves the detail out.
	PromptTokens, CompletionTokens, ReasoningTokens int
	// CountReasoning replaces ReasoningTokens with the count of the
	// converter, which knows which tokens were reasoning: the tokens of the
	// analysis messages, each from the end of the message before it (its
	// header included) to its <|end|>, an unfinished one included. Only
	// for the stream converters' Finish and the *FromTokens functions;
	// NewChatCompletionResponse and NewResponse, given messages, have no
	// tokens to count.
	CountReasoning bool
}

// withReasoning returns s with the decoder's reasoning tokens when s asks
// for them.
func (s Sampling) withReasoning(d *decoder) Sampling {
	if s.CountReasoning {
		s.ReasoningTokens = d.reasoningTokens()
	}
	return s
}

func (o *ResponseOptions) newID() string {
	if o.IDGenerator != nil {
		return o.IDGenerator()
	}
	return strings.ToLower(rand.Text())
}

func (o *ResponseOptions) created() int64 {
	if o.Created != 0 {
		return o.Created
	}
	return time.Now().Unix()
}

var errFinished = fmt.Errorf("openaicompat: %w", ErrStreamFinished)

// idSet hands out ids that are unique within one response even when the
// generator repeats itself.
type idSet map[string]bool

func (s idSet) unique(id string) string {
	base := id
	for n := 2; s[id]; n++ {
		id = base + "_" + strconv.Itoa(n)
	}
	s[id] = true
	return id
}

// kind is what a message of the model's output is to the APIs.
type kind int

const (
	kindText      kind = iota // final answer or preamble: Chat content, a Responses message
	kindReasoning             // the analysis channel
	kindToolCall              // a message with a recipient
)

// classify says what a message with the given header is. A message to a
// recipient is a call; "functions.NAME" calls NAME, any other recipient (a
// built-in tool, another namespace) is reported whole as the name. A
// message from a role other than the assistant is an error, or text when
// lenient.
func classify(role harmony.Role, name, channel, recipient string, lenient bool) (kind, string, error) {
	if role != harmony.RoleAssistant {
		if lenient {
			return kindText, "", nil
		}
		who := string(role)
		if name != "" {
			who += " " + strconv.Quote(name)
		}
		return 0, "", fmt.Errorf("%w: a %s message", ErrUnexpectedMessage, who)
	}
	if recipient != "" && recipient != "all" {
		if fn, ok := strings.CutPrefix(recipient, "functions."); ok && fn != "" && !strings.Contains(fn, ".") {
			return kindToolCall, fn, nil
		}
		return kindToolCall, recipient, nil
	}
	if channel == harmony.ChannelAnalysis {
		return kindReasoning, "", nil
	}
	return kindText, "", nil
}

// sink receives the decoder's events. start and end bracket each message,
// whose text is what the deltas between them add up to (end carries no text
// of its own); delta is never called with "".
type sink interface {
	start(k kind, name string)
	delta(text string)
	end(cut bool) // cut: the message was ended by the end of a truncated stream
}

// replay sends the events of complete messages, as the decoder would have.
// With cut, the last message is reported as cut off by the token limit.
func replay(msgs []harmony.Message, lenient, cut bool, s sink) error {
	for i := range msgs {
		if err := emitWhole(s, &msgs[i], lenient, cut && i == len(msgs)-1); err != nil {
			return &OutputError{MessageIndex: i, Err: err}
		}
	}
	return nil
}

// emitWhole sends the events of one complete message.
func emitWhole(s sink, m *harmony.Message, lenient, cut bool) error {
	k, name, err := classify(m.Role, m.Name, m.Channel, m.Recipient, lenient)
	if err != nil {
		return err
	}
	s.start(k, name)
	text := m.Text()
	if text != "" {
		s.delta(text)
	}
	s.end(cut)
	return nil
}

// decoder turns tokens into events. It is the machine behind the stream
// converters; see the file comment.
type decoder struct {
	enc     *harmony.Encoding
	lenient bool
	p       *harmony.StreamParser
	seen    int  // messages of p already handled
	open    bool // a message's content is being streamed
	sent    int  // bytes of the open message's text sent as deltas
	hdr     []harmony.Token
	msgs    []harmony.Message // the output so far, recovered text included
	junk    []byte            // recovered text of the open junk message
	junkOut int               // bytes of junk sent
	inJunk  bool
	err     error
	done    bool

	span      int // tokens since the last message ended
	reasoning int // tokens of the analysis messages that ended
	counted   int // messages of msgs counted
}

func newDecoder(enc *harmony.Encoding, o *ResponseOptions) (*decoder, error) {
	if enc == nil {
		return nil, fmt.Errorf("openaicompat: nil *harmony.Encoding")
	}
	d := &decoder{enc: enc, lenient: o.Lenient}
	role := harmony.RoleAssistant
	if o.ExpectStart {
		role = ""
	}
	var err error
	d.p, err = enc.NewStreamParser(role, &harmony.ParseOptions{Lenient: o.Lenient})
	return d, err
}

func (d *decoder) fail(err error) error {
	if d.err == nil {
		d.err = &OutputError{MessageIndex: len(d.msgs), Err: err}
	}
	return d.err
}

// process consumes one token.
func (d *decoder) process(t harmony.Token, s sink) error {
	if d.err == nil && !d.done {
		d.span++
	}
	err := d.step(t, s)
	d.count()
	return err
}

// count adds the tokens since the last message ended to the reasoning
// tokens when the messages that ended since are analysis messages: a
// message's tokens are counted from the end of the one before it (its
// header included) to its own end.
func (d *decoder) count() {
	if len(d.msgs) == d.counted {
		return
	}
	for _, m := range d.msgs[d.counted:] {
		if m.Channel == harmony.ChannelAnalysis {
			d.reasoning += d.span
			break
		}
	}
	d.span, d.counted = 0, len(d.msgs)
}

// reasoningTokens returns the number of tokens so far of analysis messages,
// the one being read included.
func (d *decoder) reasoningTokens() int {
	n := d.reasoning
	if len(d.msgs) == d.counted && d.p.State() == harmony.StateContent && d.p.CurrentChannel() == harmony.ChannelAnalysis {
		n += d.span
	}
	return n
}

// step is process without the counting.
func (d *decoder) step(t harmony.Token, s sink) error {
	if d.err != nil {
		return d.err
	}
	if d.done {
		return errFinished
	}
	state := d.p.State()
	if d.lenient && state == harmony.StateExpectStart && t != harmony.TokenStart {
		// Between messages: a stray stop token ends recovered text, anything
		// else is text the model wrote outside of a message.
		if harmony.IsStopToken(t) {
			d.endJunk(s)
		} else {
			d.addJunk(s, t)
		}
		return nil
	}
	switch state {
	case harmony.StateExpectStart:
		// The token belongs to the message it starts, not to the recovered
		// text it ends.
		d.span--
		d.endJunk(s)
		d.count()
		d.span++
		d.hdr = d.hdr[:0]
	case harmony.StateHeader:
		d.hdr = append(d.hdr, t)
	}
	before := len(d.p.Messages())
	if err := d.p.Process(t); err != nil {
		if !d.lenient {
			return d.fail(err)
		}
		// A header harmony cannot read even leniently (it fails at its
		// <|message|>): the header is dropped, and the content that
		// follows, up to the next <|start|>, is recovered as text.
		if err := d.restart(); err != nil {
			return d.fail(err)
		}
		return nil
	}
	if d.lenient && state == harmony.StateHeader && harmony.IsStopToken(t) &&
		d.p.State() == harmony.StateExpectStart && len(d.p.Messages()) == before {
		// Lenient harmony parsing keeps a header cut short by a stop token
		// only for the first message, whose role it was told; do the same
		// for the others.
		return d.recoverHeader(s)
	}
	return d.sync(s, false)
}

// recoverHeader turns the header in d.hdr, cut short by the stop token that
// ends it, into a message as lenient harmony parsing does for a first
// message: the role is its first word, and what follows the header fields
// is the content. A header that does not start with a role is recovered as
// text.
func (d *decoder) recoverHeader(s sink) error {
	toks := d.hdr[:len(d.hdr)-1]
	for k := 1; k <= len(toks) && k <= 8; k++ {
		b, err := d.enc.DecodeBytes(toks[:k])
		if err != nil {
			break
		}
		role := harmony.Role(b)
		if !role.Valid() {
			continue
		}
		p, err := d.enc.NewStreamParser(role, &harmony.ParseOptions{Lenient: true})
		if err != nil {
			break
		}
		ok := true
		for _, t := range d.hdr[k:] {
			if p.Process(t) != nil {
				ok = false
				break
			}
		}
		if !ok {
			break
		}
		for _, m := range p.Messages() {
			if err := emitWhole(s, &m, d.lenient, false); err != nil {
				return d.fail(err)
			}
			d.msgs = append(d.msgs, m)
		}
		return nil
	}
	d.addJunk(s, d.hdr...)
	d.endJunk(s)
	return nil
}

// finish ends the stream.
func (d *decoder) finish(s sink, truncated bool) error {
	defer d.count()
	if d.err != nil {
		return d.err
	}
	if d.done {
		return errFinished
	}
	d.endJunk(s)
	if d.p.State() == harmony.StateHeader {
		switch {
		case len(d.hdr) == 0 && d.p.CurrentRole() != "":
			// Nothing was sampled after the prompt's "<|start|>assistant":
			// an empty output, not a malformed one.
			d.done = true
			return nil
		case truncated:
			// A header cut off by the token limit is no message.
			d.done = true
			return nil
		case d.lenient:
			// A header cut off by the end of the stream is recovered as
			// one cut off by a stop token.
			if err := d.step(harmony.TokenEnd, s); err != nil {
				return err
			}
		}
	}
	d.done = true
	if err := d.p.ProcessEOS(); err != nil {
		return d.fail(err)
	}
	return d.sync(s, truncated)
}

// restart replaces a parser that failed with one waiting for a <|start|>.
func (d *decoder) restart() error {
	p, err := d.enc.NewStreamParser("", &harmony.ParseOptions{Lenient: d.lenient})
	if err != nil {
		return err
	}
	d.p, d.seen, d.open, d.sent = p, 0, false, 0
	return nil
}

// sync reports what the last token did to the parser.
func (d *decoder) sync(s sink, cut bool) error {
	msgs := d.p.Messages()
	for ; d.seen < len(msgs); d.seen++ {
		m := msgs[d.seen]
		text := m.Text()
		if d.open {
			if len(text) > d.sent {
				// Bytes the parser adds when the message ends: a UTF-8
				// sequence left incomplete, repaired.
				s.delta(text[d.sent:])
			}
			d.open = false
		} else {
			// A header cut short by a stop token, which lenient harmony
			// parsing turns into a message without streaming it.
			k, name, err := classify(m.Role, m.Name, m.Channel, m.Recipient, d.lenient)
			if err != nil {
				return d.fail(err)
			}
			s.start(k, name)
			if text != "" {
				s.delta(text)
			}
		}
		s.end(cut)
		d.msgs = append(d.msgs, m)
	}
	if d.p.State() != harmony.StateContent {
		return nil
	}
	if !d.open {
		k, name, err := classify(d.p.CurrentRole(), d.p.CurrentName(), d.p.CurrentChannel(), d.p.CurrentRecipient(), d.lenient)
		if err != nil {
			return d.fail(err)
		}
		d.open, d.sent = true, 0
		s.start(k, name)
		return nil
	}
	if delta, ok := d.p.LastContentDelta(); ok && delta != "" {
		d.sent += len(delta)
		s.delta(delta)
	}
	return nil
}

// addJunk adds the text of tokens that form no message to the recovered
// text, starting a text message for it if needed. Special tokens have no
// text here; unknown ids become U+FFFD. Deltas hold whole characters only.
func (d *decoder) addJunk(s sink, toks ...harmony.Token) {
	for i, t := range toks {
		if harmony.IsSpecial(t) {
			continue
		}
		if !d.inJunk {
			d.inJunk, d.junk, d.junkOut = true, d.junk[:0], 0
			s.start(kindText, "")
		}
		n := len(d.junk)
		var err error
		if d.junk, err = d.enc.AppendBytes(d.junk, toks[i:i+1]); err != nil {
			d.junk = append(d.junk[:n], string(utf8.RuneError)...)
		}
	}
	if !d.inJunk {
		return
	}
	if cut := d.junkOut + completePrefix(d.junk[d.junkOut:]); cut > d.junkOut {
		s.delta(lossy(d.junk[d.junkOut:cut]))
		d.junkOut = cut
	}
}

// endJunk closes the recovered text message, if one is open.
func (d *decoder) endJunk(s sink) {
	if !d.inJunk {
		return
	}
	d.inJunk = false
	if rest := d.junk[d.junkOut:]; len(rest) > 0 {
		s.delta(lossy(rest))
	}
	s.end(false)
	d.msgs = append(d.msgs, harmony.NewTextMessage(harmony.RoleAssistant, lossy(d.junk)))
}

// completePrefix returns the length of b without a UTF-8 sequence at its end
// that more bytes could complete: the prefix whose text no later byte
// changes.
func completePrefix(b []byte) int {
	n := 0
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		if r == utf8.RuneError && size == 1 && !utf8.FullRune(b[n:]) {
			return n
		}
		n += size
	}
	return n
}

// lossy returns b as text, each byte that is not part of a valid UTF-8
// sequence replaced by U+FFFD; lossy(a)+lossy(b) == lossy(a+b) whenever a is
// a completePrefix.
func lossy(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	return sb.String()
}
