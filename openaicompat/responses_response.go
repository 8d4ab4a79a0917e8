package openaicompat

import (
	"errors"
	"strings"

	"github.com/go-harmony/harmony"
)

// ResponseFromTokens builds a Responses API response from the sampled
// tokens (without the prompt's "<|start|>assistant"), parsed as the
// [ResponsesStreamConverter] parses them: one output item per message, in
// order — a "reasoning" item with a reasoning_text part for each analysis
// message, a "message" item with an output_text part for each final answer
// or preamble, a "function_call" item for each message to a recipient. When
// s.Truncated, the last item and the response are "incomplete". Its usage
// counts the tokens given and s.PromptTokens. A nil opts means the
// defaults. Errors are [*OutputError]s (with Strict).
func ResponseFromTokens(enc *harmony.Encoding, tokens []harmony.Token, s Sampling, opts *ResponseOptions) (*Response, error) {
	return fromTokens(enc, newRespAcc(opts, false), tokens, s)
}

// ResponsesStreamConverter turns sampled tokens, one at a time, into the
// events of a streamed response: "response.created" and
// "response.in_progress" first; for each output item
// "response.output_item.added", then for reasoning and messages
// "response.content_part.added", the text's ".delta" events, its ".done",
// "response.content_part.done", and for function calls
// "response.function_call_arguments.delta" events and ".done"; then
// "response.output_item.done"; and at the end "response.completed" (or
// "response.incomplete"). Items, deltas and done events agree with
// [ResponseFromTokens] for the same tokens.
//
// Call [ResponsesStreamConverter.Process] for each token, then
// [ResponsesStreamConverter.Finish] once. The returned events are the
// caller's. After an error every call returns it again. A
// ResponsesStreamConverter is not safe for concurrent use.
type ResponsesStreamConverter struct {
	c *converter[ResponseEvent, *Response, *respAcc]
}

// NewResponsesStreamConverter returns a converter for one response. A nil
// opts means the defaults.
func NewResponsesStreamConverter(enc *harmony.Encoding, opts *ResponseOptions) (*ResponsesStreamConverter, error) {
	c, err := newConverter(enc, newRespAcc(opts, true))
	if err != nil {
		return nil, err
	}
	return &ResponsesStreamConverter{c: c}, nil
}

// Process consumes one sampled token and returns the events it completes,
// often none. Malformed output is an [*OutputError] (when strict); events
// returned with an error are still valid.
func (c *ResponsesStreamConverter) Process(t harmony.Token) ([]ResponseEvent, error) {
	return c.c.process(t)
}

// Finish ends the stream and returns its last events, ending with
// "response.completed" or, when s.Truncated, "response.incomplete".
func (c *ResponsesStreamConverter) Finish(s Sampling) ([]ResponseEvent, error) {
	return c.c.finish(s)
}

// Fail ends the stream on err — an error of Process or Finish, or the
// server's own, such as a sampler's failure — instead of Finish, and
// returns its last events: an "error" event with the code, message and
// param of [HTTPError](err), then "response.failed" with the output
// so far (an item cut off "incomplete"), status "failed" and an error
// whose code is err's, or "server_error". Their sequence numbers follow
// those of the events returned before. After Fail, Process and Finish
// return an error and Fail returns nil; Fail after a successful Finish
// returns nil too.
func (c *ResponsesStreamConverter) Fail(err error) []ResponseEvent {
	if !c.c.stop() {
		return nil
	}
	c.c.a.streamFail(err)
	return c.c.a.take()
}

// Messages returns the messages of the output so far, as harmony parsed
// them (recovered ones included, and those recovery dropped). The
// slice is the converter's own until the next call of Process or Finish.
func (c *ResponsesStreamConverter) Messages() []harmony.Message { return c.c.d.p.Messages() }

// Dropped returns how many things recovery has dropped or demoted
// so far, for a server's warnings: the tokens, header words and recipients
// harmony's recovery dropped, the messages from other roles, and the
// messages to recipients that are no declared tool (made reasoning). It is
// zero for well-formed output.
func (c *ResponsesStreamConverter) Dropped() int { return c.c.d.dropped() }

// ReasoningTokens returns the number of tokens processed so far that belong
// to analysis messages, as the usage counts them: each from the end of the
// message before it (its header included) to its <|end|>. After the last
// Process call it is the count for the whole output.
func (c *ResponsesStreamConverter) ReasoningTokens() int { return c.c.d.reasoningTokens() }

// respAcc builds output items from the decoder's events and, when
// streaming, the events that say the same.
type respAcc struct {
	accBase[ResponseEvent]
	items []Item
	cur   kind
	skip  bool // the current message is reasoning left out
	open  bool // the current item has not ended
	buf   strings.Builder
	seq   int
	echo  Response // the request's parameters, for every Response
}

func newRespAcc(opts *ResponseOptions, stream bool) *respAcc {
	a := &respAcc{}
	a.init(opts, "resp_", stream)
	e := &a.opts.Echo
	a.echo = Response{ParallelToolCalls: !e.NoParallelToolCalls, Temperature: 1, TopP: 1,
		ToolChoice: ResponsesToolChoice{Mode: "auto"}, Tools: e.Tools, Metadata: e.Metadata}
	if e.Instructions != "" {
		a.echo.Instructions = &e.Instructions
	}
	if e.Temperature != nil {
		a.echo.Temperature = *e.Temperature
	}
	if e.TopP != nil {
		a.echo.TopP = *e.TopP
	}
	if e.ToolChoice != nil {
		a.echo.ToolChoice = *e.ToolChoice
	}
	if a.echo.Tools == nil {
		a.echo.Tools = []ResponsesTool{}
	}
	if a.echo.Metadata == nil {
		a.echo.Metadata = map[string]string{}
	}
	return a
}

// streamStart sends "response.created" and "response.in_progress".
func (a *respAcc) streamStart() {
	for _, typ := range []string{"response.created", "response.in_progress"} {
		r := a.envelope()
		r.Status = "in_progress"
		a.emit(ResponseEvent{Type: typ, Response: r})
	}
}

// streamEnd sends "response.completed", or "response.incomplete" when
// sampling hit the token limit.
func (a *respAcc) streamEnd(t tally) {
	typ := "response.completed"
	if t.Truncated {
		typ = "response.incomplete"
	}
	a.emit(ResponseEvent{Type: typ, Response: a.response(t)})
}

// streamFail sends the "error" event for err and "response.failed" with
// the output so far, an item cut off "incomplete".
func (a *respAcc) streamFail(err error) {
	obj := errorBody(err).Error
	a.emit(ResponseEvent{Type: "error", Error: &obj})
	r := a.envelope()
	r.Status = "failed"
	r.Error = &ResponseError{Code: "server_error", Message: obj.Message}
	if re := (*RequestError)(nil); errors.As(err, &re) {
		r.Error.Code = "invalid_prompt"
	}
	r.Output = append(r.Output, a.items...)
	if a.open {
		text := a.buf.String()
		it := a.snapshot(text, "incomplete", true)
		a.seal(it, text)
		r.Output[len(r.Output)-1] = *it
	}
	a.emit(ResponseEvent{Type: "response.failed", Response: r})
}

func (a *respAcc) emit(e ResponseEvent) {
	e.SequenceNumber = a.seq
	a.seq++
	a.out = append(a.out, e)
}

// partType is the type of the one content part of a reasoning or message
// item.
func partType(k kind) string {
	if k == kindReasoning {
		return "reasoning_text"
	}
	return "output_text"
}

// snapshot returns the current item with its text as given, sharing nothing
// with the item being built.
func (a *respAcc) snapshot(text, status string, withPart bool) *Item {
	it := a.items[len(a.items)-1]
	switch a.cur {
	case kindToolCall:
		it.Arguments = text
	default:
		parts := []ItemPart{}
		if withPart {
			parts = []ItemPart{{Type: partType(a.cur), Text: text}}
		}
		it.Content = &ItemContent{Parts: parts}
	}
	if it.Type != "reasoning" {
		it.Status = status
	}
	return &it
}

// seal gives a reasoning item with the text its sealed form, when the
// options ask for it.
func (a *respAcc) seal(it *Item, text string) {
	if a.cur == kindReasoning && a.opts.SealReasoning && a.opts.Sealer != nil {
		it.EncryptedContent = a.opts.Sealer.Seal(a.opts.Owner, it.ID, text)
	}
}

func (a *respAcc) start(k kind, name string) {
	a.cur, a.skip = k, k == kindReasoning && a.opts.ExcludeReasoning
	if a.skip {
		return
	}
	a.buf.Reset()
	var it Item
	switch k {
	case kindReasoning:
		it = Item{Type: "reasoning", ID: a.ids.unique("rs_" + a.opts.newID())}
	case kindToolCall:
		it = Item{Type: "function_call", ID: a.ids.unique("fc_" + a.opts.newID())}
		it.CallID = a.ids.unique("call_" + a.opts.newID())
		it.Name = name
	default:
		it = Item{Type: "message", ID: a.ids.unique("msg_" + a.opts.newID()), Role: "assistant"}
	}
	a.items = append(a.items, it)
	a.open = true
	if !a.stream {
		return
	}
	idx := len(a.items) - 1
	a.emit(ResponseEvent{Type: "response.output_item.added", OutputIndex: idx, Item: a.snapshot("", "in_progress", false)})
	if k != kindToolCall {
		a.emit(ResponseEvent{Type: "response.content_part.added", ItemID: it.ID, OutputIndex: idx,
			Part: &ItemPart{Type: partType(k)}})
	}
}

func (a *respAcc) delta(text string) {
	if a.skip {
		return
	}
	a.buf.WriteString(text)
	if !a.stream {
		return
	}
	idx := len(a.items) - 1
	typ := "response.output_text.delta"
	switch a.cur {
	case kindToolCall:
		typ = "response.function_call_arguments.delta"
	case kindReasoning:
		typ = "response.reasoning_text.delta"
	}
	a.emit(ResponseEvent{Type: typ, ItemID: a.items[idx].ID, OutputIndex: idx, Delta: text})
}

func (a *respAcc) end(cut bool) {
	if a.skip {
		return
	}
	a.open = false
	status := "completed"
	if cut {
		status = "incomplete"
	}
	idx := len(a.items) - 1
	id := a.items[idx].ID
	text := a.buf.String()
	a.items[idx] = *a.snapshot(text, status, true)
	a.seal(&a.items[idx], text) // once: later snapshots copy it
	if !a.stream {
		return
	}
	switch a.cur {
	case kindToolCall:
		a.emit(ResponseEvent{Type: "response.function_call_arguments.done", ItemID: id, OutputIndex: idx,
			Name: a.items[idx].Name, Arguments: text})
	default:
		typ := "response.output_text.done"
		if a.cur == kindReasoning {
			typ = "response.reasoning_text.done"
		}
		a.emit(ResponseEvent{Type: typ, ItemID: id, OutputIndex: idx, Text: text})
		a.emit(ResponseEvent{Type: "response.content_part.done", ItemID: id, OutputIndex: idx,
			Part: &ItemPart{Type: partType(a.cur), Text: text}})
	}
	a.emit(ResponseEvent{Type: "response.output_item.done", OutputIndex: idx, Item: a.snapshot(text, status, true)})
}

// envelope returns the response object without output or usage.
func (a *respAcc) envelope() *Response {
	r := a.echo
	r.ID, r.Object, r.CreatedAt, r.Model, r.Output = a.id, "response", a.created, a.opts.Model, []Item{}
	return &r
}

func (a *respAcc) response(t tally) *Response {
	r := a.envelope()
	r.Status = "completed"
	if t.Truncated {
		r.Status = "incomplete"
		r.IncompleteDetails = &IncompleteDetails{Reason: "max_output_tokens"}
	}
	r.Output = append(r.Output, a.items...)
	if t.counted {
		r.Usage = &ResponsesUsage{InputTokens: t.PromptTokens, OutputTokens: t.completion,
			TotalTokens:         t.PromptTokens + t.completion,
			InputTokensDetails:  InputTokensDetails{CachedTokens: t.CachedTokens},
			OutputTokensDetails: OutputTokensDetails{ReasoningTokens: t.reasoning}}
	}
	return r
}
