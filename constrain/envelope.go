package constrain

// The harmony envelope: the token-level grammar of a whole assistant
// completion around the JSON a Grammar constrains. Its headers are forced
// token by token in one canonical tokenization, so they are a small trie of
// token sequences (one per kind of message the request allows, one per
// callable function), walked with a set of "kinds still wanted" that the
// analysis budget can shrink. Message bodies are either free text (every
// ordinary token) or a Matcher of a Grammar, closed by its stop token once
// the Matcher can end.

import (
	"cmp"
	"errors"
	"fmt"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/toolname"
)

// ErrInvalidEnvelope: EnvelopeOptions that name no function the model could
// call, or a function twice, or a name that cannot be written in a header.
var ErrInvalidEnvelope = errors.New("invalid envelope")

// ToolChoice says whether an Envelope lets the completion end in a function
// call, as a request's tool_choice does.
type ToolChoice int

const (
	// ToolChoiceAuto: a function call or a final answer (the zero value).
	// Without tools it is ToolChoiceNone.
	ToolChoiceAuto ToolChoice = iota
	// ToolChoiceNone: no call and no commentary preamble; a final answer.
	ToolChoiceNone
	// ToolChoiceRequired: the completion ends in a call; no final answer.
	ToolChoiceRequired
)

// EnvelopeTool is a function the model may call: Name as in
// "functions.NAME", and the Grammar of its arguments; a nil Params allows
// any JSON value (a function without parameters).
type EnvelopeTool struct {
	Name   string
	Params *Grammar
}

// EnvelopeOptions says what an assistant completion may contain. The zero
// value allows analysis and a free-text final answer.
type EnvelopeOptions struct {
	// Tools are the declared functions.
	Tools []EnvelopeTool
	// ToolChoice is auto, none or required.
	ToolChoice ToolChoice
	// Function, when not empty, is the only function that may be called,
	// and a call is required (a named tool_choice); it must be among Tools,
	// and ToolChoice must not be ToolChoiceNone.
	Function string
	// Response is the Grammar of the final answer; nil allows free text.
	Response *Grammar
	// MaxAnalysisTokens bounds the tokens of all analysis messages of the
	// completion together, counting each message's content and its <|end|>
	// (not its header): past it, the message in progress must end and no
	// analysis may begin. 0 means no bound. Preambles are not counted.
	MaxAnalysisTokens int
}

// Message kinds of the header trie, as bits.
const (
	kAnalysis uint8 = 1 << iota
	kPreamble
	kFinal
	kCall
)

// hnode is a node of the header trie: the token that leads to it from its
// parent, the kinds of header below it, and for a complete header (after
// <|message|>) its kind and, for a call, the tool's index.
type hnode struct {
	tok   harmony.Token
	kids  []int32
	kinds uint8
	leaf  uint8 // 0 inside a header
	tool  int32
}

type envPhase uint8

const (
	pHeader envPhase = iota // in the header trie at node
	pNext                   // forced "<|start|>assistant" after an <|end|>, at pos
	pText                   // free text of kind, closed by its stop token
	pJSON                   // a Matcher's value, closed by stop once it can end
	pDone                   // after <|call|> or <|return|>
)

// Envelope follows an assistant completion, sampled right after the
// prompt's "<|start|>assistant", and gives the tokens that may come next:
// headers forced in their canonical tokenization, free text where the
// message is text, a Grammar's tokens where it is JSON, and the stop tokens
// where they may come. It is not safe for concurrent use: build one per
// sequence, or Reset it. The package documentation gives the grammar of the
// completions it accepts.
type Envelope struct {
	voc    *vocab
	nodes  []hnode
	next   []harmony.Token // <|start|>assistant, between messages
	tools  []*Grammar      // by tool index; any JSON value for nil Params
	resp   *Grammar
	maxAna int
	cache  map[*Grammar]*Matcher

	phase envPhase
	node  int32
	pos   int
	kind  uint8
	json  *Matcher
	stop  harmony.Token
	used  int // analysis tokens so far
	n     int // tokens accepted
}

// NewEnvelope returns an Envelope at the start of a completion. Every
// Grammar in opts must have been compiled for enc. It fails with an error
// wrapping ErrInvalidEnvelope when a function name is not
// ^[a-zA-Z0-9_.-]{1,64}$, is repeated, or Function names none of Tools;
// and with ErrEmpty when no completion is possible (a call required
// without tools).
func NewEnvelope(enc *harmony.Encoding, opts *EnvelopeOptions) (*Envelope, error) {
	if opts == nil {
		opts = &EnvelopeOptions{}
	}
	voc, err := vocabFor(enc)
	if err != nil {
		return nil, err
	}
	e := &Envelope{voc: voc, resp: opts.Response, maxAna: max(opts.MaxAnalysisTokens, 0), cache: map[*Grammar]*Matcher{}}
	if e.resp != nil && e.resp.voc != voc {
		return nil, fmt.Errorf("constrain: envelope: %w: the response Grammar was compiled for another encoding", ErrInvalidEnvelope)
	}
	seen := map[string]bool{}
	for _, t := range opts.Tools {
		if !toolname.ValidLoose(t.Name, 64) {
			return nil, fmt.Errorf("constrain: envelope: %w: function name %q is not ^[a-zA-Z0-9_.-]{1,64}$", ErrInvalidEnvelope, t.Name)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("constrain: envelope: %w: a second function named %q", ErrInvalidEnvelope, t.Name)
		}
		seen[t.Name] = true
		if t.Params != nil && t.Params.voc != voc {
			return nil, fmt.Errorf("constrain: envelope: %w: the Grammar of %q was compiled for another encoding", ErrInvalidEnvelope, t.Name)
		}
	}
	choice := opts.ToolChoice
	if opts.Function != "" {
		if choice == ToolChoiceNone {
			return nil, fmt.Errorf("constrain: envelope: %w: function %q named with tool choice none", ErrInvalidEnvelope, opts.Function)
		}
		if !seen[opts.Function] {
			return nil, fmt.Errorf("constrain: envelope: %w: function %q is not among the tools", ErrInvalidEnvelope, opts.Function)
		}
		choice = ToolChoiceRequired
	}
	if choice == ToolChoiceAuto && len(opts.Tools) == 0 {
		choice = ToolChoiceNone
	}
	if choice == ToolChoiceRequired && len(opts.Tools) == 0 {
		return nil, fmt.Errorf("constrain: envelope: %w: a call is required and there are no tools", ErrEmpty)
	}

	// The header trie: the headers after the prompt's "<|start|>assistant",
	// and "<|start|>assistant" between messages, written as gpt-oss writes
	// them (the recipient after the channel) and tokenized as harmony
	// renders a written header.
	e.nodes = []hnode{{}}
	var herr error // Encode's, which these texts cannot cause
	tokens := func(f msghdr.Fields) []harmony.Token {
		toks, err := headerTokens(enc, &f)
		herr = cmp.Or(herr, err)
		return toks
	}
	header := func(kind uint8, tool int32, f msghdr.Fields) {
		at := int32(0)
		e.nodes[0].kinds |= kind
		for _, tok := range append(tokens(f), harmony.TokenMessage) {
			at = e.child(at, tok)
			e.nodes[at].kinds |= kind
		}
		e.nodes[at].leaf, e.nodes[at].tool = kind, tool
	}
	header(kAnalysis, -1, msghdr.Fields{Channel: harmony.ChannelAnalysis})
	if choice != ToolChoiceNone {
		header(kPreamble, -1, msghdr.Fields{Channel: harmony.ChannelCommentary})
		for i, t := range opts.Tools {
			if opts.Function != "" && t.Name != opts.Function {
				continue
			}
			header(kCall, int32(i), msghdr.Fields{Channel: harmony.ChannelCommentary, Recipient: toolname.FunctionRecipient(t.Name), ContentType: msghdr.JSONContentType})
		}
	}
	if choice != ToolChoiceRequired {
		header(kFinal, -1, msghdr.Fields{Channel: harmony.ChannelFinal})
	}
	e.next = append([]harmony.Token{harmony.TokenStart}, tokens(msghdr.Fields{Author: string(harmony.RoleAssistant)})...)
	if herr != nil {
		return nil, fmt.Errorf("constrain: envelope: %w", herr)
	}

	var anyJSON *Grammar
	for _, t := range opts.Tools {
		g := t.Params
		if g == nil {
			if anyJSON == nil {
				if anyJSON, err = CompileJSONSchema(enc, []byte("{}"), nil); err != nil {
					return nil, err
				}
			}
			g = anyJSON
		}
		e.tools = append(e.tools, g)
	}
	return e, nil
}

// headerTokens returns the tokens of the header f (without its
// <|start|> and <|message|>) written in gpt-oss's order, tokenized as
// harmony renders a header as written (harmony.Message.Header): each
// marker its special token, each run of text between markers encoded
// whole with EncodeOrdinary. Encode with the two markers allowed is that.
func headerTokens(enc *harmony.Encoding, f *msghdr.Fields) ([]harmony.Token, error) {
	return enc.Encode(f.Text(msghdr.GptOss), msghdr.ChannelMarker, msghdr.ConstrainMarker)
}

// child returns the child of node at reached by tok, adding it if needed.
func (e *Envelope) child(at int32, tok harmony.Token) int32 {
	for _, k := range e.nodes[at].kids {
		if e.nodes[k].tok == tok {
			return k
		}
	}
	e.nodes = append(e.nodes, hnode{tok: tok, tool: -1})
	k := int32(len(e.nodes) - 1)
	e.nodes[at].kids = append(e.nodes[at].kids, k)
	return k
}

// Reset returns e to the start of a completion.
func (e *Envelope) Reset() {
	e.phase, e.node, e.pos, e.kind, e.json, e.used, e.n = pHeader, 0, 0, 0, nil, 0, 0
}

// MaskWords is the length of a mask: one bit per token id of the
// vocabulary, special tokens included, 64 to a word.
func (e *Envelope) MaskWords() int { return e.voc.words() }

// CanEnd reports whether the completion is complete: its last message has
// been closed by <|call|> or <|return|>. Nothing may follow.
func (e *Envelope) CanEnd() bool { return e.phase == pDone }

// Accepted reports how many tokens e has accepted since it was made or
// Reset.
func (e *Envelope) Accepted() int { return e.n }

// wanted is the set of header kinds that may still begin.
func (e *Envelope) wanted() uint8 {
	if e.maxAna > 0 && e.used >= e.maxAna {
		return ^kAnalysis
	}
	return ^uint8(0)
}

// textRoom reports whether an ordinary token may come in the free text of
// the current message.
func (e *Envelope) textRoom() bool {
	return e.kind != kAnalysis || e.maxAna == 0 || e.used+2 <= e.maxAna
}

// ordinary reports whether tok is an ordinary token of the vocabulary (not
// special, and not an id without bytes): what free text is made of.
func (e *Envelope) ordinary(tok harmony.Token) bool {
	return int(tok) < len(e.voc.toks) && e.voc.toks[tok] != nil
}

// FillMask sets in mask the bit of every token that may come next, special
// tokens included, and clears the others; mask must have MaskWords words.
// After CanEnd, no bit is set.
func (e *Envelope) FillMask(mask []uint64) {
	set := func(t harmony.Token) { mask[t>>6] |= 1 << (t & 63) }
	switch e.phase {
	case pHeader:
		clear(mask)
		w := e.wanted()
		for _, k := range e.nodes[e.node].kids {
			if e.nodes[k].kinds&w != 0 {
				set(e.nodes[k].tok)
			}
		}
	case pNext:
		clear(mask)
		set(e.next[e.pos])
	case pText:
		if e.textRoom() {
			copy(mask, e.voc.ordinaryMask())
		} else {
			clear(mask)
		}
		set(e.stop)
	case pJSON:
		e.json.FillMask(mask)
		if e.json.CanEnd() {
			set(e.stop)
		}
	default:
		clear(mask)
	}
}

// IsAllowed reports whether tok may come next.
func (e *Envelope) IsAllowed(tok harmony.Token) bool {
	switch e.phase {
	case pHeader:
		return e.headerChild(tok) >= 0
	case pNext:
		return tok == e.next[e.pos]
	case pText:
		return tok == e.stop || e.ordinary(tok) && e.textRoom()
	case pJSON:
		if tok == e.stop {
			return e.json.CanEnd()
		}
		return e.json.IsAllowed(tok)
	}
	return false
}

// headerChild returns the child of the current header node reached by tok,
// or -1.
func (e *Envelope) headerChild(tok harmony.Token) int32 {
	w := e.wanted()
	for _, k := range e.nodes[e.node].kids {
		if e.nodes[k].tok == tok && e.nodes[k].kinds&w != 0 {
			return k
		}
	}
	return -1
}

// Accept advances e past tok. A token that may not come next is a
// *TokenError wrapping ErrTokenNotAllowed, and e is left unchanged.
func (e *Envelope) Accept(tok harmony.Token) error {
	refuse := &TokenError{Index: e.n, Token: uint32(tok), Err: ErrTokenNotAllowed}
	switch e.phase {
	case pHeader:
		k := e.headerChild(tok)
		if k < 0 {
			return refuse
		}
		e.node = k
		if nd := &e.nodes[k]; nd.leaf != 0 {
			e.begin(nd.leaf, nd.tool)
		}
	case pNext:
		if tok != e.next[e.pos] {
			return refuse
		}
		if e.pos++; e.pos == len(e.next) {
			e.phase, e.node = pHeader, 0
		}
	case pText:
		switch {
		case tok == e.stop:
			if e.kind == kAnalysis {
				e.used++
			}
			e.end()
		case e.ordinary(tok) && e.textRoom():
			if e.kind == kAnalysis {
				e.used++
			}
		default:
			return refuse
		}
	case pJSON:
		if tok == e.stop {
			if !e.json.CanEnd() {
				return refuse
			}
			e.end()
		} else if e.json.Accept(tok) != nil {
			return refuse
		}
	default:
		return refuse
	}
	e.n++
	return nil
}

// begin starts the body of a message of kind, after its <|message|>.
func (e *Envelope) begin(kind uint8, tool int32) {
	e.kind = kind
	var g *Grammar
	switch kind {
	case kAnalysis, kPreamble:
		e.phase, e.stop = pText, harmony.TokenEnd
		return
	case kFinal:
		e.stop = harmony.TokenReturn
		if g = e.resp; g == nil {
			e.phase = pText
			return
		}
	case kCall:
		e.stop, g = harmony.TokenCall, e.tools[tool]
	}
	m := e.cache[g]
	if m == nil {
		m = g.NewMatcher()
		e.cache[g] = m
	} else {
		m.Reset()
	}
	e.phase, e.json = pJSON, m
}

// end closes the current message with its stop token.
func (e *Envelope) end() {
	if e.stop == harmony.TokenEnd {
		e.phase, e.pos = pNext, 0
	} else {
		e.phase = pDone
	}
	e.json = nil
}
