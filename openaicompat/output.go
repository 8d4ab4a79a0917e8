package openaicompat

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/toolname"
	"github.com/go-harmony/harmony/jsonschema"
)

// This file holds what the two APIs share on the way out: the options, the
// classification of the model's messages into reasoning, text and tool
// calls, and the decoder behind both stream converters and the *FromTokens
// functions (driven by the converter of converter.go). The decoder runs a
// harmony.StreamParser and turns its events into three of its own (a
// message starts, its text grows, it ends) so that each API only has to say
// what an event looks like on its wire. Both the streamed and the
// whole-response paths classify messages with the same function, which is
// what keeps them equal; the parser holds every rule of recovery, the
// classifier every rule of what a message is to the APIs.

// ResponseOptions control how model output becomes a response. The zero value
// (and a nil *ResponseOptions) is what a server needs: random ids, the
// current time, the reasoning included, malformed output recovered, and
// OpenAI's defaults for the request parameters a Responses object repeats.
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
	// ReasoningField is the field of a chat message or delta that carries
	// the reasoning: "reasoning" (the zero value; OpenRouter's name, which
	// the OpenAI SDKs and the Vercel AI SDK read), "reasoning_content"
	// (vLLM's and DeepSeek's, which LangChain reads), or both.
	ReasoningField ReasoningField
	// StreamUsage adds, after a stream's last chunk, a chunk with the usage
	// and no choices (stream_options.include_usage).
	StreamUsage bool
	// Strict ends the conversion with an [*OutputError] at the first
	// malformed token, as harmony's strict parser does, instead of
	// recovering. Without it (the default, what a server needs) the tokens
	// are parsed in harmony's recovery mode (harmony.ParseRecover),
	// messages from roles other than the assistant are dropped, and a
	// message to a recipient that is no (declared) tool is reasoning; see
	// the package doc's "Malformed output".
	Strict bool
	// Functions are the names of the functions the request declared,
	// without "functions.", and Namespaces the other tool namespaces the
	// system or developer message declared: "browser" (whose calls are
	// "browser.search", "browser.open", …), "python" (called "python"), or
	// another namespace NS, called "NS" or "NS.TOOL" (a whole "NS.TOOL"
	// declares that tool alone). When Functions or Namespaces is non-nil,
	// a message to functions.NAME is a tool call only if NAME is among
	// Functions, and a message to another tool only if its namespace is
	// among Namespaces; any other message to a recipient is an error
	// (Strict) or reasoning (the default). nil for both accepts a call to
	// any valid tool name. Recovery also reads a recipient written as a
	// function of Functions without "functions." as that function, and
	// accepts the recipients of Namespaces (harmony.ParseOptions has the
	// same two fields). A function's name may hold single spaces ("Web
	// Search", as some APIs allow, though a request's tools may not): a
	// message to "functions.Web Search" is then a call to it. A request's ResponseOptions method fills
	// Functions; the server adds the namespaces it enabled.
	Functions  []string
	Namespaces []string
	// SealReasoning gives each Responses reasoning item an
	// encrypted_content sealed with Sealer (the request's include has
	// "reasoning.encrypted_content"; its ResponseOptions method sets it),
	// bound to the item's id and to Owner. Without a Sealer it does
	// nothing; RequestOptions.Sealer nil refuses such a request.
	SealReasoning bool
	Sealer        *ReasoningSealer
	// Owner is the tenant the response is for, the request's
	// RequestOptions.Owner: sealed reasoning opens only in its requests.
	Owner string
	// ExpectStart says the tokens start at a <|start|> token, not (as usual)
	// right after the rendered "<|start|>assistant" of the prompt. Only for
	// the stream converters and the *FromTokens functions.
	ExpectStart bool
	// Prefill is the assistant message whose header the prompt already
	// holds (RequestOptions.Prefill, which RenderPrompt rendered): the
	// tokens start inside its content (harmony.ParseOptions.Prefill), so
	// that the bare text of a completion prefilled on the final channel is
	// the answer, and on the analysis channel reasoning; without it, bare
	// text is reasoning. Set it to the RequestOptions.Prefill the prompt
	// was rendered with. It must be an assistant message, without
	// ExpectStart.
	Prefill *harmony.Message
	// ResponseFormat is the json_schema format the request asked for
	// (response_format, text.format; the requests' ResponseOptions
	// methods set it). Recovery makes a completion that is bare text, with
	// no header at all, reasoning; when that text is JSON valid for
	// ResponseFormat's schema (checked by package jsonschema), it is the
	// answer instead. Not with Prefill, which says where the text belongs,
	// nor with Strict.
	ResponseFormat *harmony.ResponseFormat
	// Echo holds the request parameters a Responses object repeats; its
	// zero value gives OpenAI's defaults. ResponsesRequest.ResponseOptions
	// fills it. Chat completions repeat none.
	Echo ResponseEcho
}

// Sampling is what the caller knows about a completion that a converter
// cannot see in its tokens. The converters count the completion's tokens
// and its reasoning tokens themselves.
type Sampling struct {
	// Truncated says sampling stopped at the token limit rather than at a
	// stop token: the finish reason is "length" and the Responses status
	// "incomplete". A header cut off by the limit is then dropped rather
	// than being an error (with Strict; recovery makes its text
	// reasoning).
	Truncated bool
	// PromptTokens is the length of the rendered prompt, and CachedTokens
	// the part of it the server took from its prefix cache (0 leaves the
	// detail at 0).
	PromptTokens, CachedTokens int
}

// ReasoningField names the Chat Completions field of the reasoning.
type ReasoningField string

// The reasoning fields.
const (
	ReasoningFieldReasoning        ReasoningField = "reasoning"
	ReasoningFieldReasoningContent ReasoningField = "reasoning_content"
	ReasoningFieldBoth             ReasoningField = "both"
)

// UnmarshalText reads a reasoning field's name ("" is "reasoning"), so that
// a ReasoningField can be a command-line flag or a JSON string.
func (f *ReasoningField) UnmarshalText(text []byte) error {
	switch r := ReasoningField(text); r {
	case "", ReasoningFieldReasoning, ReasoningFieldReasoningContent, ReasoningFieldBoth:
		*f = r
		return nil
	}
	return fmt.Errorf("openaicompat: reasoning field %q is not reasoning, reasoning_content or both", text)
}

// set writes text to the fields f names.
func (f ReasoningField) set(reasoning, reasoningContent *string, text string) {
	switch f {
	case ReasoningFieldReasoningContent:
		*reasoningContent = text
	case ReasoningFieldBoth:
		*reasoning, *reasoningContent = text, text
	default:
		*reasoning = text
	}
}

// tally is a response's usage: what the caller said, and what the
// converter counted. Without counted (a response built from messages, not
// tokens) the response has no usage.
type tally struct {
	Sampling
	counted               bool
	completion, reasoning int
}

// tally counts the tokens the decoder has seen: every token processed, and
// those of analysis messages, each from the end of the message before it
// (its header included) to its <|end|>, an unfinished one included.
func (d *decoder) tally(s Sampling) tally {
	return tally{Sampling: s, counted: true, completion: d.ntok, reasoning: d.reasoningTokens()}
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
	kindToolCall              // a message to a declared tool
	kindDropped               // not the assistant's: recovery drops it, counted
)

// classifier says what each message is, by the options' mode and declared
// tools. It is the one place of the output rules; see the package doc's
// "Malformed output".
type classifier struct {
	recover bool
	tools   toolname.Rule           // ResponseOptions.Functions and Namespaces, under toolname.Call
	format  *harmony.ResponseFormat // ResponseOptions.ResponseFormat, when bare text may answer
	dropped int                     // messages dropped or demoted to reasoning
}

// newClassifier returns the classifier of o: its mode, its declared tools
// under toolname.Call, and the format bare text may answer in.
func newClassifier(o *ResponseOptions) classifier {
	c := classifier{recover: !o.Strict, tools: toolname.NewRule(toolname.Call, o.Functions, o.Namespaces)}
	if c.recover && o.Prefill == nil {
		c.format = o.ResponseFormat
	}
	return c
}

// formatValidator validates bare answers against the requests' formats:
// one validator, whose cache of compiled schemas serves every conversion.
var formatValidator = sync.OnceValue(func() *jsonschema.Validator { return jsonschema.New(nil) })

// bareAnswer says whether text, the whole text of a completion that is
// bare text without any header (which recovery made reasoning), is the
// answer: JSON valid for the response format the request asked for.
func (c *classifier) bareAnswer(text string) bool {
	return c.format != nil && formatValidator().ValidateResponse(*c.format, text) == nil
}

// classify says what a message with the given header is, and for a call
// the name it reports: NAME for "functions.NAME", the whole recipient for a
// built-in tool (toolname.Call decides which recipients are tools; "all"
// is no recipient). A message to a recipient that is no declared tool is an
// error when strict and reasoning when recovering, as is a message from a
// role other than the assistant (which recovery drops).
func (c *classifier) classify(role harmony.Role, name, channel, recipient string) (kind, string, error) {
	if role != harmony.RoleAssistant {
		if c.recover {
			c.dropped++
			return kindDropped, "", nil
		}
		who := string(role)
		if name != "" {
			who += " " + strconv.Quote(name)
		}
		return 0, "", fmt.Errorf("%w: a %s message", ErrUnexpectedMessage, who)
	}
	if recipient != "" {
		r := c.tools.Resolve(recipient, false)
		switch {
		case r.Valid():
			return kindToolCall, r.Name, nil
		case r.Kind == toolname.Address:
			// A message to all: as if it had no recipient.
		case !c.recover:
			return 0, "", fmt.Errorf("%w: a message to %q, which is not a declared tool", ErrUnexpectedMessage, recipient)
		default:
			c.dropped++
			return kindReasoning, "", nil
		}
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

// decoder turns tokens into the sink's events: it runs a
// harmony.StreamParser (in recovery mode unless Strict) and translates the
// parser's events, classifying each message when its header completes.
type decoder struct {
	p    *harmony.StreamParser
	c    classifier
	ntok int  // tokens processed
	open bool // the sink has a message open
	// bare: the tokens so far are text, then at most one stop token
	// (stopped), so that the first message is text without any header.
	bare, stopped bool
	answer        int // the parser's message that bareAnswer made the answer, or -1
	err           error
	done          bool

	span      int // tokens since the last message ended
	reasoning int // tokens of the analysis messages that ended
	counted   int // messages of the parser counted
}

func newDecoder(enc *harmony.Encoding, o *ResponseOptions) (*decoder, error) {
	if enc == nil {
		return nil, fmt.Errorf("openaicompat: nil *harmony.Encoding")
	}
	d := &decoder{c: newClassifier(o), bare: true, answer: -1}
	role := harmony.RoleAssistant
	if o.ExpectStart {
		role = "" // with a Prefill, harmony's error: the prefill has a role
	}
	po := &harmony.ParseOptions{Prefill: o.Prefill}
	if !o.Strict {
		// The parser's recovery takes the same declarations, but for
		// "functions", which names no namespace of Namespaces (to
		// ParseRecover it would make a bare "to=functions" a recipient).
		po.Mode, po.Functions = harmony.ParseRecover, o.Functions
		for _, n := range o.Namespaces {
			if n != "functions" {
				po.Namespaces = append(po.Namespaces, n)
			}
		}
	}
	var err error
	d.p, err = enc.NewStreamParser(role, po)
	return d, err
}

// dropped returns what recovery dropped or demoted so far: the parser's
// count, and the messages the classifier dropped or made reasoning.
func (d *decoder) dropped() int { return d.p.Dropped() + d.c.dropped }

func (d *decoder) fail(err error) error {
	if d.err == nil {
		d.err = &OutputError{MessageIndex: len(d.p.Messages()), Err: err}
	}
	return d.err
}

// process consumes one token.
func (d *decoder) process(t harmony.Token, s sink) error {
	if d.err != nil {
		return d.err
	}
	if d.done {
		return errFinished
	}
	d.ntok++
	d.span++
	if d.bare {
		// Text, then at most one stop token: a completion without
		// markup, which bareAnswer may read as the answer.
		d.bare = !d.stopped && (t < harmony.FirstSpecialToken || isStop(t))
		d.stopped = isStop(t)
	}
	if err := d.p.Process(t); err != nil {
		return d.fail(err)
	}
	err := d.events(s, false)
	d.count()
	return err
}

// events sends the sink what the parser's last call did.
func (d *decoder) events(s sink, cut bool) error {
	evs := d.p.Events()
	for i, ev := range evs {
		switch ev.Kind {
		case harmony.EventHeader:
			k, name, err := d.c.classify(ev.Role, ev.Name, ev.Channel, ev.Recipient)
			if err != nil {
				return d.fail(err)
			}
			if k == kindReasoning && d.bare && d.c.format != nil {
				if m, ok := d.whole(evs[i+1:]); ok && d.c.bareAnswer(d.p.Messages()[m].Text()) {
					k, d.answer = kindText, m
				}
			}
			if k != kindDropped {
				d.open = true
				s.start(k, name)
			}
		case harmony.EventDelta:
			if d.open && ev.Text != "" {
				s.delta(ev.Text)
			}
		case harmony.EventMessageEnd:
			if d.open {
				s.end(cut)
			}
			d.open = false
		}
	}
	return nil
}

// whole returns the index of the message whose header came before evs,
// when evs end it too: a message recovery read whole, at its end (text
// outside any header).
func (d *decoder) whole(evs []harmony.Event) (int, bool) {
	for _, ev := range evs {
		switch ev.Kind {
		case harmony.EventMessageEnd:
			return ev.Message, true
		case harmony.EventDelta:
		default:
			return 0, false
		}
	}
	return 0, false
}

// isStop reports whether t is a token that ends a message.
func isStop(t harmony.Token) bool {
	return t == harmony.TokenEnd || t == harmony.TokenReturn || t == harmony.TokenCall
}

// count adds the tokens since the last message ended to the reasoning
// tokens when the messages that ended since are analysis messages: a
// message's tokens are counted from the end of the one before it (its
// header included) to its own end.
func (d *decoder) count() {
	msgs := d.p.Messages()
	if len(msgs) == d.counted {
		return
	}
	for i, m := range msgs[d.counted:] {
		if m.Channel == harmony.ChannelAnalysis && d.counted+i != d.answer {
			d.reasoning += d.span
			break
		}
	}
	d.span, d.counted = 0, len(msgs)
}

// reasoningTokens returns the number of tokens so far of analysis messages,
// the one being read included.
func (d *decoder) reasoningTokens() int {
	n := d.reasoning
	if len(d.p.Messages()) == d.counted && d.p.State() == harmony.StateContent && d.p.CurrentChannel() == harmony.ChannelAnalysis {
		n += d.span
	}
	return n
}

// finish ends the stream.
func (d *decoder) finish(s sink, truncated bool) error {
	if d.err != nil {
		return d.err
	}
	if d.done {
		return errFinished
	}
	d.done = true
	if d.p.State() == harmony.StateHeader && !d.c.recover {
		switch {
		case d.ntok == 0 && d.p.CurrentRole() != "":
			// Nothing was sampled after the prompt's "<|start|>assistant":
			// an empty output, not a malformed one.
			return nil
		case truncated:
			// A header cut off by the token limit is no message.
			return nil
		}
	}
	if err := d.p.ProcessEOS(); err != nil {
		return d.fail(err)
	}
	err := d.events(s, truncated)
	d.count()
	return err
}
