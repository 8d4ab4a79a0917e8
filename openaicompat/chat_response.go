package openaicompat

import (
	"strings"

	"github.com/go-harmony/harmony"
)

// ChatCompletionFromTokens builds the response to a chat completion from
// the sampled tokens (without the prompt's "<|start|>assistant"), parsed as
// the [ChatStreamConverter] parses them: reasoning from the analysis
// channel, content from the final answer and commentary preambles, a tool
// call for each message to a recipient, the finish reason, and the usage
// (the tokens given, and s.PromptTokens). The parse differs from
// harmony.Encoding.ParseCompletion only where the package doc's "Malformed
// output" says: recovery (unless Strict), a header cut off by the token
// limit, no tokens at all. A nil opts means the defaults. Errors are
// [*OutputError]s (with Strict: malformed tokens, a message from a role
// other than the assistant, or to a recipient that is no declared tool).
func ChatCompletionFromTokens(enc *harmony.Encoding, tokens []harmony.Token, s Sampling, opts *ResponseOptions) (*ChatCompletionResponse, error) {
	return fromTokens(enc, newChatAcc(opts, false), tokens, s)
}

// ChatStreamConverter turns sampled tokens, one at a time, into the chunks of
// a streamed chat completion: first a chunk with the role, then reasoning and
// content deltas as they come, for each tool call a chunk with its index, id,
// type, name and empty arguments followed by chunks with pieces of the
// arguments, and at the end a chunk with the finish reason (and, with
// ResponseOptions.StreamUsage, one with the usage). The deltas concatenate to
// the message of [ChatCompletionFromTokens] for the same tokens.
//
// Call [ChatStreamConverter.Process] for each token, then
// [ChatStreamConverter.Finish] once. The returned chunks are the caller's.
// After an error every call returns it again. A ChatStreamConverter is not
// safe for concurrent use.
type ChatStreamConverter struct {
	c *converter[ChatCompletionChunk, *ChatCompletionResponse, *chatAcc]
}

// NewChatStreamConverter returns a converter for one completion. A nil opts
// means the defaults.
func NewChatStreamConverter(enc *harmony.Encoding, opts *ResponseOptions) (*ChatStreamConverter, error) {
	c, err := newConverter(enc, newChatAcc(opts, true))
	if err != nil {
		return nil, err
	}
	return &ChatStreamConverter{c: c}, nil
}

// Process consumes one sampled token and returns the chunks it completes,
// often none. Malformed output is an [*OutputError] (when strict); chunks
// returned with an error are still valid.
func (c *ChatStreamConverter) Process(t harmony.Token) ([]ChatCompletionChunk, error) {
	return c.c.process(t)
}

// Finish ends the stream and returns its last chunks: the rest of the last
// message, the chunk with the finish reason, and the usage chunk if asked for.
func (c *ChatStreamConverter) Finish(s Sampling) ([]ChatCompletionChunk, error) {
	return c.c.finish(s)
}

// Messages returns the messages of the output so far, as harmony parsed
// them (recovered ones included, and those recovery dropped). The
// slice is the converter's own until the next call of Process or Finish.
func (c *ChatStreamConverter) Messages() []harmony.Message { return c.c.d.p.Messages() }

// Dropped returns how many things recovery has dropped or demoted
// so far, for a server's warnings: the tokens, header words and recipients
// harmony's recovery dropped, the messages from other roles, and the
// messages to recipients that are no declared tool (made reasoning). It is
// zero for well-formed output.
func (c *ChatStreamConverter) Dropped() int { return c.c.d.dropped() }

// ReasoningTokens returns the number of tokens processed so far that belong
// to analysis messages, as the usage counts them: each from the end of the
// message before it (its header included) to its <|end|>. After the last
// Process call it is the count for the whole output.
func (c *ChatStreamConverter) ReasoningTokens() int { return c.c.d.reasoningTokens() }

// chatAcc builds a chat message from the decoder's events and, when
// streaming, the chunks that say the same.
type chatAcc struct {
	accBase[ChatCompletionChunk]
	content   strings.Builder
	reasoning strings.Builder
	calls     []ToolCall
	args      strings.Builder // the arguments of the last call, written to it by flushArgs
	cur       kind
	first     bool // no delta of the current message yet
}

func newChatAcc(opts *ResponseOptions, stream bool) *chatAcc {
	a := &chatAcc{}
	a.init(opts, "chatcmpl-", stream)
	return a
}

// streamStart sends the role.
func (a *chatAcc) streamStart() { a.chunk(ChatDelta{Role: "assistant"}, "") }

// streamEnd sends the finish reason and, if asked for, the usage.
func (a *chatAcc) streamEnd(t tally) {
	a.chunk(ChatDelta{}, a.finishReason(t.Sampling))
	if a.opts.StreamUsage {
		a.out = append(a.out, ChatCompletionChunk{ID: a.id, Object: "chat.completion.chunk",
			Created: a.created, Model: a.opts.Model, Choices: []ChunkChoice{}, Usage: a.usage(t)})
	}
}

func (a *chatAcc) start(k kind, name string) {
	a.cur, a.first = k, true
	if k != kindToolCall {
		return
	}
	id := a.ids.unique("call_" + a.opts.newID())
	a.args.Reset()
	a.calls = append(a.calls, ToolCall{ID: id, Type: "function", Function: FunctionCall{Name: name}})
	if a.stream {
		a.chunk(ChatDelta{ToolCalls: []ToolCallDelta{{Index: len(a.calls) - 1, ID: id, Type: "function",
			Function: FunctionCallDelta{Name: name}}}}, "")
	}
}

func (a *chatAcc) delta(text string) {
	first := a.first
	a.first = false
	switch a.cur {
	case kindToolCall:
		i := len(a.calls) - 1
		a.args.WriteString(text)
		if a.stream {
			a.chunk(ChatDelta{ToolCalls: []ToolCallDelta{{Index: i, Function: FunctionCallDelta{Arguments: text}}}}, "")
		}
	case kindReasoning:
		if a.opts.ExcludeReasoning {
			return
		}
		if first && a.reasoning.Len() > 0 {
			text = "\n\n" + text
		}
		a.reasoning.WriteString(text)
		if a.stream {
			var d ChatDelta
			a.opts.ReasoningField.set(&d.Reasoning, &d.ReasoningContent, text)
			a.chunk(d, "")
		}
	default:
		if first && a.content.Len() > 0 {
			text = "\n\n" + text
		}
		a.content.WriteString(text)
		if a.stream {
			a.chunk(ChatDelta{Content: text}, "")
		}
	}
}

func (a *chatAcc) end(bool) { a.flushArgs() }

// flushArgs writes the arguments built so far to the last call, when the
// current message is a call: the builder keeps the arguments linear in
// their length, however many deltas they come in.
func (a *chatAcc) flushArgs() {
	if a.cur == kindToolCall && len(a.calls) > 0 {
		a.calls[len(a.calls)-1].Function.Arguments = a.args.String()
	}
}

func (a *chatAcc) chunk(d ChatDelta, f FinishReason) {
	a.out = append(a.out, ChatCompletionChunk{ID: a.id, Object: "chat.completion.chunk", Created: a.created,
		Model: a.opts.Model, Choices: []ChunkChoice{{Delta: d, FinishReason: f}}})
}

func (a *chatAcc) finishReason(s Sampling) FinishReason {
	switch {
	case s.Truncated:
		return FinishLength
	case len(a.calls) > 0:
		return FinishToolCalls
	}
	return FinishStop
}

// usage returns the usage, or nil for a response built from messages.
func (a *chatAcc) usage(t tally) *ChatUsage {
	if !t.counted {
		return nil
	}
	return &ChatUsage{PromptTokens: t.PromptTokens, CompletionTokens: t.completion,
		TotalTokens:             t.PromptTokens + t.completion,
		PromptTokensDetails:     &PromptTokensDetails{CachedTokens: t.CachedTokens},
		CompletionTokensDetails: &CompletionTokensDetails{ReasoningTokens: t.reasoning}}
}

func (a *chatAcc) message() ChatMessage {
	a.flushArgs()
	m := ChatMessage{Role: "assistant", ToolCalls: a.calls}
	if a.content.Len() > 0 || len(a.calls) == 0 {
		m.Content = TextContent(a.content.String())
	}
	a.opts.ReasoningField.set(&m.Reasoning, &m.ReasoningContent, a.reasoning.String())
	return m
}

func (a *chatAcc) response(t tally) *ChatCompletionResponse {
	return &ChatCompletionResponse{
		ID:      a.id,
		Object:  "chat.completion",
		Created: a.created,
		Model:   a.opts.Model,
		Choices: []ChatChoice{{Message: a.message(), FinishReason: a.finishReason(t.Sampling)}},
		Usage:   a.usage(t),
	}
}
