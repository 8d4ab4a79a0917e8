package harmony

// This file fits a conversation into a context window. The rules are fixed
// and few (elide old tool output and images, then drop old turns whole, then
// fail), but the cost matters: a long agent conversation can be many times
// the window, and it is sent again in full on every request. So the fitter
// never encodes what it is going to drop. It renders the messages that are
// always kept first (system, developer, the last user turn), then the older
// turns newest first, each counted at its smallest (its tool output elided),
// and stops at the first turn that no longer fits: the turns before it are
// never encoded, and the cost is bounded by the window, not the history. A
// tool output whose length in bytes proves that the marker is shorter is not
// encoded either, unless every turn fits and the exact savings are needed to
// elide only as much as necessary. Each message is rendered once (an elided
// one twice: its marker form as well), into a scratch buffer with the spans
// recorded, and the kept spans are copied into place in order at the end;
// rendering goes through the same appendMessage as every other renderer, so
// the output is token for token what RenderConversationForCompletion makes of
// the kept messages. Last, a server is sent the same conversation again with
// each new turn, so the tokens of long message texts are kept in a bounded
// cache on the Encoding: the texts of the turns kept last time are copied,
// not encoded again.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrContextTooLong: a conversation does not fit its [Budget] even after
// everything that may be elided or dropped is.
var ErrContextTooLong = errors.New("context too long")

// The marker texts that replace elided content.
const (
	// ElidedToolOutput replaces the whole content of an elided tool
	// message (a tool's result); its header (the tool's name, recipient
	// and channel) stays.
	ElidedToolOutput = "[tool output elided]"
	// ElidedImage replaces each [Budget.ImagePlaceholder] in the text of
	// an elided message.
	ElidedImage = "[image elided]"
)

// elidedToolContent is the content of an elided tool message, shared by
// the fitter's renders, which only read it.
var elidedToolContent = []Content{TextContent{Text: ElidedToolOutput}}

// Budget is a limit on the length of a prompt rendered for completion, for
// [Encoding.AppendConversationWithinBudget]. The zero value is no limit.
type Budget struct {
	// MaxTokens is the model's context window, which holds the prompt and
	// the completion together (131,072 for gpt-oss); 0 or less means no
	// limit.
	MaxTokens int
	// Reserve is the number of tokens kept free for the completion: the
	// prompt gets at most MaxTokens-Reserve tokens. Less than 0 counts as 0.
	Reserve int
	// ImagePlaceholder is the text that stands for an image in the
	// conversation, as openaicompat's RequestOptions.ImagePlaceholder puts
	// it; when set, old images are elided along with old tool output (each
	// occurrence becomes [ElidedImage]). Empty means images are not
	// recognised.
	ImagePlaceholder string
}

// limit returns the number of tokens the prompt may have.
func (b *Budget) limit() int { return b.MaxTokens - max(b.Reserve, 0) }

// Elide returns m as the budget elides it: a tool message with its content
// replaced by [ElidedToolOutput], any other message with each
// ImagePlaceholder in its text parts replaced by [ElidedImage]. m is not
// changed. Elide does not decide whether m is elided:
// [Encoding.AppendConversationWithinBudget] elides only old messages, and
// only when that makes them shorter.
func (b *Budget) Elide(m Message) Message {
	if m.Role == RoleTool {
		m.Content = []Content{TextContent{Text: ElidedToolOutput}}
		return m
	}
	if b.ImagePlaceholder == "" {
		return m
	}
	cs := make([]Content, len(m.Content))
	for i, c := range m.Content {
		cs[i] = c
		if t, ok := asText(c); ok && strings.Contains(t, b.ImagePlaceholder) {
			cs[i] = TextContent{Text: strings.ReplaceAll(t, b.ImagePlaceholder, ElidedImage)}
		}
	}
	m.Content = cs
	return m
}

// hasImage reports whether a text part of m holds the placeholder.
func (b *Budget) hasImage(m *Message) bool {
	if b.ImagePlaceholder == "" {
		return false
	}
	for _, c := range m.Content {
		if t, ok := asText(c); ok && strings.Contains(t, b.ImagePlaceholder) {
			return true
		}
	}
	return false
}

// BudgetReport says what [Encoding.AppendConversationWithinBudget] did to fit
// a conversation.
type BudgetReport struct {
	// Tokens is the number of tokens appended: the prompt's length.
	Tokens int
	// FullTokens is the length of the prompt with nothing elided or dropped
	// (after the reasoning policy), when it was counted: always, unless
	// turns were dropped, for the turns before the first kept one are never
	// encoded; it is 0 then.
	FullTokens int
	// Kept lists the indices in the conversation of the messages rendered,
	// in order: all but those the reasoning policy drops and those of the
	// dropped turns.
	Kept []int
	// Elided lists the indices of the messages rendered elided, as
	// [Budget.Elide] makes them; each is in Kept.
	Elided []int
	// DroppedTurns is the number of turns dropped whole, and
	// DroppedMessages the number of messages they held (not counting
	// analysis the reasoning policy drops anyway, nor the system and
	// developer messages among them, which are kept).
	DroppedTurns    int
	DroppedMessages int
}

// Conversation returns the conversation that was rendered: the messages of c
// that r keeps, the elided ones as b.Elide makes them. It renders to the same
// tokens with RenderConversationForCompletion and
// RenderOptions{Reasoning: ReasoningKeepAll} (the policy has been applied)
// and the same NormalizeSchemas.
func (r *BudgetReport) Conversation(c Conversation, b *Budget) Conversation {
	out := make([]Message, 0, len(r.Kept))
	elided := r.Elided
	for _, i := range r.Kept {
		m := c.Messages[i]
		if len(elided) > 0 && elided[0] == i {
			m = b.Elide(m)
			elided = elided[1:]
		}
		out = append(out, m)
	}
	return Conversation{Messages: out}
}

// BudgetError reports a conversation that does not fit its budget: what must
// be kept (the system and developer messages, the last user turn and the
// start of the completion) is longer than the budget allows.
type BudgetError struct {
	Tokens    int   // the fewest tokens the prompt can be cut to
	MaxTokens int   // the budget's context window
	Reserve   int   // the tokens reserved for the completion
	Err       error // ErrContextTooLong
}

// Error describes the problem, starting with "harmony: ".
func (e *BudgetError) Error() string {
	return fmt.Sprintf("harmony: %v: the prompt needs at least %d tokens, and a context window of %d tokens leaves %d after the %d reserved for the completion",
		e.Err, e.Tokens, e.MaxTokens, max(e.MaxTokens-e.Reserve, 0), e.Reserve)
}

// Unwrap returns ErrContextTooLong.
func (e *BudgetError) Unwrap() error { return e.Err }

// RenderConversationWithinBudget is [Encoding.AppendConversationWithinBudget]
// with a new slice.
func (e *Encoding) RenderConversationWithinBudget(c Conversation, next Role, b Budget, opts *RenderOptions) ([]Token, BudgetReport, error) {
	return e.AppendConversationWithinBudget(nil, c, next, b, opts)
}

// AppendConversationWithinBudget appends c rendered for completion, as
// [Encoding.AppendConversationForCompletion] renders it, in at most
// b.MaxTokens-b.Reserve tokens (the "<|start|>{next}" that opens the
// completion included), and reports what it did. The reasoning policy of
// opts is applied first, to the whole conversation; then, only as far as
// needed to fit, in this order:
//
//  1. Old tool output and images are elided, oldest first: the content of
//     each tool message becomes [ElidedToolOutput], and each
//     b.ImagePlaceholder in a message's text becomes [ElidedImage]. Old
//     means before the last user message; a message is elided only when
//     that makes it shorter.
//  2. Old turns are dropped whole, oldest first. A turn is a user message
//     and the messages after it up to the next user message (the messages
//     before the first user message are a turn too). System and developer
//     messages are never dropped, wherever they are, nor is the last turn;
//     a tool call is never kept without its result or the result without
//     its call, as long as each call is answered before the next user
//     message, as the chat protocol requires. Every old message of the
//     turns kept is then elided as in step 1.
//  3. Otherwise it fails with a [*BudgetError] wrapping [ErrContextTooLong].
//
// What was kept renders, with [Encoding.RenderConversationForCompletion] and
// [ReasoningKeepAll] (the policy was applied already), to the same tokens:
// see [BudgetReport.Conversation]. A b.MaxTokens of 0 or less renders all of
// c. Messages of dropped turns are checked as the
// renderer checks them, but not encoded. The tokens of long texts are
// cached on e (see [Encoding]), as a conversation comes back whole with
// each new turn. On error it returns dst unchanged, the zero report and a
// [*RenderError] or a [*BudgetError].
func (e *Encoding) AppendConversationWithinBudget(dst []Token, c Conversation, next Role, b Budget, opts *RenderOptions) ([]Token, BudgetReport, error) {
	if b.MaxTokens <= 0 {
		out, err := e.AppendConversationForCompletion(dst, c, next, opts)
		if err != nil {
			return dst, BudgetReport{}, err
		}
		r := BudgetReport{Tokens: len(out) - len(dst), FullTokens: len(out) - len(dst)}
		before, assistantOnly := opts.dropBefore(c.Messages)
		for i := range c.Messages {
			if !dropsAnalysis(&c.Messages[i], i, before, assistantOnly) {
				r.Kept = append(r.Kept, i)
			}
		}
		return out, r, nil
	}
	if !next.Valid() {
		return dst, BudgetReport{}, &RenderError{MessageIndex: len(c.Messages), Err: fmt.Errorf("%w %q for the next turn", ErrUnknownRole, next)}
	}
	f := fitter{e: e, msgs: c.Messages, b: &b, limit: b.limit()}
	if err := f.fit(next, opts); err != nil {
		return dst, BudgetReport{}, err
	}
	return f.assemble(dst)
}

// maxTokenBytes is the length in bytes of the longest o200k rank (128
// spaces): a text of n bytes is at least n/maxTokenBytes tokens, rounded up.
const maxTokenBytes = 128

// The classes of messages in a fit.
const (
	classSkip  = iota // dropped by the reasoning policy
	classFixed        // system or developer: always kept
	classTail         // the last user turn: always kept
	classOld          // in an older turn: may be elided or dropped
)

// fitMsg is the fitter's state for one message: its class, and where its
// tokens are in the scratch buffer, as it is (orig) and elided (alt); an
// end of -1 means not rendered.
type fitMsg struct {
	class          int8
	candidate      bool // old, and would be shorter elided
	elide          bool
	origLo, origHi int
	altLo, altHi   int
}

func (m *fitMsg) origLen() int { return m.origHi - m.origLo }
func (m *fitMsg) altLen() int  { return m.altHi - m.altLo }

// minLen is the message's length when everything that may be is elided.
func (m *fitMsg) minLen() int {
	if m.candidate {
		return m.altLen()
	}
	return m.origLen()
}

// fitter fits one conversation into a budget.
type fitter struct {
	e      *Encoding
	msgs   []Message
	b      *Budget
	limit  int
	flags  renderFlags
	st     []fitMsg
	buf    []Token // scratch: every span rendered
	groups [][2]int
	// firstKept is the index in groups of the oldest turn kept.
	firstKept          int
	suffixLo, suffixHi int
	markerLen          int // tokens of ElidedToolOutput
	fullTokens         int
}

// fit decides what is kept and elided, rendering what it needs to.
func (f *fitter) fit(next Role, opts *RenderOptions) error {
	msgs := f.msgs
	f.flags = renderFlags{normalize: opts != nil && opts.NormalizeSchemas, history: true, functionTools: anyDeclaresFunctionTools(msgs, nil)}
	// Classify: the reasoning policy first, then the last user message.
	before, assistantOnly := opts.dropBefore(msgs)
	f.st = make([]fitMsg, len(msgs))
	lastUser := -1
	for i := range msgs {
		s := &f.st[i]
		s.origHi, s.altHi = -1, -1
		switch m := &msgs[i]; {
		case dropsAnalysis(m, i, before, assistantOnly):
			s.class = classSkip
		case m.Role == RoleSystem || m.Role == RoleDeveloper:
			s.class = classFixed
		default:
			s.class = classOld
			if m.Role == RoleUser {
				lastUser = i
			}
		}
	}
	// The turns before the last one, oldest first.
	start := -1
	for i := range max(lastUser, 0) {
		if f.st[i].class != classOld {
			continue
		}
		if start < 0 || msgs[i].Role == RoleUser {
			if start >= 0 {
				f.groups = append(f.groups, [2]int{start, i})
			}
			start = i
		}
	}
	if start >= 0 {
		f.groups = append(f.groups, [2]int{start, lastUser})
	}
	// The scratch buffer holds at most a little over the limit (the turn
	// that does not fit, the elided forms), and no more than the text
	// (no token is shorter than a byte) and the headers.
	size := 0
	for i := range msgs {
		size += 32
		for _, c := range msgs[i].Content {
			t, _ := asText(c)
			size += len(t)
		}
	}
	if l := max(f.limit, 0); l < size {
		size = l + l/8
	}
	f.buf = make([]Token, 0, size+4096)
	// What is always kept is rendered; the rest is checked as the renderer
	// would, in order, so that the first error is the one it would report.
	kept := 0
	for i := range msgs {
		s := &f.st[i]
		if s.class == classOld && i >= lastUser {
			s.class = classTail
		}
		switch s.class {
		case classFixed, classTail:
			if err := f.render(i, &msgs[i], false); err != nil {
				return err
			}
			kept += s.origLen()
		case classOld:
			if err := f.check(&msgs[i]); err != nil {
				return &RenderError{MessageIndex: i, Err: err}
			}
		}
	}
	f.suffixLo = len(f.buf)
	f.buf = f.e.appendOrdinary(append(f.buf, TokenStart), string(next))
	f.suffixHi = len(f.buf)
	kept += f.suffixHi - f.suffixLo
	if kept > f.limit {
		return &BudgetError{Tokens: kept, MaxTokens: f.b.MaxTokens, Reserve: max(f.b.Reserve, 0), Err: ErrContextTooLong}
	}
	f.markerLen = len(f.e.appendOrdinary(f.buf[len(f.buf):], ElidedToolOutput))

	// The older turns, newest first, each at its smallest, until one does
	// not fit: it and the turns before it are dropped.
	f.firstKept = 0
	for g := len(f.groups) - 1; g >= 0; g-- {
		size := 0
		for i := f.groups[g][0]; i < f.groups[g][1]; i++ {
			if f.st[i].class != classOld {
				continue
			}
			if err := f.measure(i); err != nil {
				return err
			}
			size += f.st[i].minLen()
		}
		if kept+size > f.limit {
			f.firstKept = g + 1
			for i := range f.st {
				f.st[i].elide = f.st[i].candidate
			}
			return nil
		}
		kept += size
	}
	// Every turn fits at its smallest: elide, oldest first, only as much as
	// needed, which takes the exact length of each message.
	total := f.suffixHi - f.suffixLo
	for i := range msgs {
		s := &f.st[i]
		if s.class == classSkip {
			continue
		}
		if s.origHi < 0 {
			if err := f.render(i, &msgs[i], false); err != nil {
				return err
			}
		}
		total += s.origLen()
	}
	f.fullTokens = total
	for i := range msgs {
		if total <= f.limit {
			break
		}
		if s := &f.st[i]; s.candidate {
			s.elide = true
			total -= s.origLen() - s.altLen()
		}
	}
	return nil
}

// render renders message i, as it is or elided, into the scratch buffer and
// records where.
func (f *fitter) render(i int, m *Message, elided bool) error {
	lo := len(f.buf)
	var err error
	if elided {
		em := *m
		if m.Role == RoleTool {
			em.Content = elidedToolContent // read only
		} else {
			em = f.b.Elide(em)
		}
		f.buf, err = f.e.appendMessage(f.buf, &em, f.flags)
	} else {
		f.buf, err = f.e.appendMessage(f.buf, m, f.flags)
	}
	if err != nil {
		return &RenderError{MessageIndex: i, Err: err}
	}
	s := &f.st[i]
	if elided {
		s.altLo, s.altHi = lo, len(f.buf)
	} else {
		s.origLo, s.origHi = lo, len(f.buf)
	}
	return nil
}

// measure renders old message i, elided if it may be, and as it is unless
// its text's length in bytes proves it longer than its elided form.
func (f *fitter) measure(i int) error {
	m, s := &f.msgs[i], &f.st[i]
	if m.Role != RoleTool && !f.b.hasImage(m) {
		return f.render(i, m, false)
	}
	if err := f.render(i, m, true); err != nil {
		return err
	}
	if m.Role == RoleTool {
		n := 0
		for _, c := range m.Content {
			t, _ := asText(c)
			n += len(t)
		}
		if (n+maxTokenBytes-1)/maxTokenBytes > f.markerLen {
			s.candidate = true // counted once it is needed
			return nil
		}
	}
	if err := f.render(i, m, false); err != nil {
		return err
	}
	s.candidate = s.altLen() < s.origLen()
	return nil
}

// check returns the error appendMessage would return for m, an old message
// (neither system nor developer), without encoding it.
func (f *fitter) check(m *Message) error {
	if err := checkHeader(m); err != nil {
		return err
	}
	for _, c := range m.Content {
		if _, ok := asText(c); !ok {
			// Any other content in such a message is an error, found
			// before any text is built.
			if _, err := f.e.appendContent(nil, m.Role, c, f.flags); err != nil {
				return err
			}
		}
	}
	return nil
}

// assemble appends the kept spans to dst in order, and the report.
func (f *fitter) assemble(dst []Token) ([]Token, BudgetReport, error) {
	var r BudgetReport
	oldest := len(f.msgs) // the first message of the oldest turn kept
	if f.firstKept < len(f.groups) {
		oldest = f.groups[f.firstKept][0]
	}
	n := f.suffixHi - f.suffixLo
	for i := range f.st {
		s := &f.st[i]
		switch {
		case s.class == classSkip:
		case s.class == classOld && i < oldest:
			r.DroppedMessages++
		case s.elide:
			n += s.altLen()
			r.Elided = append(r.Elided, i)
		default:
			n += s.origLen()
		}
	}
	r.Kept = make([]int, 0, len(f.st))
	out := slices.Grow(dst, n)
	for i := range f.st {
		s := &f.st[i]
		switch {
		case s.class == classSkip, s.class == classOld && i < oldest:
			continue
		case s.elide:
			out = append(out, f.buf[s.altLo:s.altHi]...)
		default:
			out = append(out, f.buf[s.origLo:s.origHi]...)
		}
		r.Kept = append(r.Kept, i)
	}
	out = append(out, f.buf[f.suffixLo:f.suffixHi]...)
	r.Tokens = len(out) - len(dst)
	r.FullTokens = f.fullTokens
	r.DroppedTurns = f.firstKept
	return out, r, nil
}

// appendHistoryText appends the tokens of a message's text, from the
// encoding's history cache when the text was rendered before: a server is
// sent the whole conversation again with each new turn, and the texts of
// the turns it kept last time are the ones it keeps now. The key is a copy,
// so that the cache never holds a larger string text is a part of.
func (e *Encoding) appendHistoryText(dst []Token, text string) []Token {
	if toks, ok := e.history.Get(text); ok {
		return append(dst, toks...)
	}
	n := len(dst)
	dst = e.appendOrdinary(dst, text)
	toks := append([]Token(nil), dst[n:]...)
	e.history.Put(strings.Clone(text), toks, int64(4*cap(toks)))
	return dst
}
