package openaicompat

import (
	"errors"
	"fmt"

	"github.com/go-harmony/harmony"
)

// This file renders a request's conversation into a prompt that fits the
// model's context window: harmony's budgeted renderer does the fitting, and
// this file chooses the budget (the window, the room for the completion)
// and the policy (truncate or fail), and says no in OpenAI's words.

// The values of truncation, the Responses request parameter, and of
// RequestOptions.Truncation.
const (
	// TruncationAuto fits a prompt too long for the context window: old
	// tool output and images are elided, then old turns dropped, as
	// harmony's Encoding.AppendConversationWithinBudget does.
	TruncationAuto = "auto"
	// TruncationDisabled fails a prompt too long for the context window
	// with a 400 context_length_exceeded: the Responses API's default.
	TruncationDisabled = "disabled"
)

// DefaultCompletionReserve is the number of tokens kept free for the
// completion when neither the request (max_tokens, max_completion_tokens,
// max_output_tokens) nor RequestOptions.CompletionReserve says.
const DefaultCompletionReserve = 4096

// RenderPrompt renders conv, the request's conversation (as
// [ChatCompletionRequest.Conversation] built it with the same opts), for
// completion by the assistant, within opts.ContextWindow (0: no limit)
// less the room kept for the completion: the request's max tokens, else
// opts.CompletionReserve, else [DefaultCompletionReserve]. Chat Completions
// has no truncation parameter: opts.Truncation decides, and by default a
// prompt that does not fit is an error, as OpenAI's API answers, never
// silently cut. That error is a [*RequestError] wrapping
// [ErrContextLengthExceeded] (param "messages", code
// "context_length_exceeded", HTTP 400 through [HTTPError]) and the
// *harmony.BudgetError with the counts. A failure to render is harmony's
// error (a 500: Conversation refuses whatever a client can send that
// harmony cannot render). The conversation is rendered with harmony's
// default options, or with harmony.ReasoningKeepAll when
// opts.KeepReasoning is set. With opts.Prefill, the prompt ends in that
// message's header instead of "<|start|>assistant" (the budget counts it).
func (r *ChatCompletionRequest) RenderPrompt(enc *harmony.Encoding, conv harmony.Conversation, opts *RequestOptions) ([]harmony.Token, error) {
	return renderPrompt(enc, conv, opts, "messages", r.MaxOutputTokens(), "")
}

// RenderPrompt renders conv, the request's conversation (as
// [ResponsesRequest.Conversation] built it with the same opts), as
// [ChatCompletionRequest.RenderPrompt] does, with the room for the
// completion max_output_tokens when set. The request's truncation, when
// set, decides what a prompt too long for the window does ("auto" fits it,
// "disabled" fails); else opts.Truncation, by default "disabled" as in the
// API. The error's param is "input".
func (r *ResponsesRequest) RenderPrompt(enc *harmony.Encoding, conv harmony.Conversation, opts *RequestOptions) ([]harmony.Token, error) {
	maxOut := 0
	if r.MaxOutputTokens != nil {
		maxOut = *r.MaxOutputTokens
	}
	return renderPrompt(enc, conv, opts, "input", maxOut, r.Truncation)
}

// renderPrompt is both RenderPrompt methods: list names the request's
// messages in errors, maxOut is its max tokens (0: not set) and truncation
// its truncation parameter ("": not set).
func renderPrompt(enc *harmony.Encoding, conv harmony.Conversation, opts *RequestOptions, list string, maxOut int, truncation string) ([]harmony.Token, error) {
	var o RequestOptions
	if opts != nil {
		o = *opts
	}
	var ropts *harmony.RenderOptions
	if o.KeepReasoning {
		ropts = &harmony.RenderOptions{Reasoning: harmony.ReasoningKeepAll}
	}
	if o.ContextWindow <= 0 {
		return o.render(enc, conv, ropts)
	}
	if truncation == "" {
		truncation = o.Truncation
	}
	b := harmony.Budget{MaxTokens: o.ContextWindow, Reserve: maxOut, ImagePlaceholder: o.ImagePlaceholder}
	if b.Reserve <= 0 {
		b.Reserve = o.CompletionReserve
		if b.Reserve <= 0 {
			b.Reserve = DefaultCompletionReserve
		}
	}
	var be *harmony.BudgetError
	switch truncation {
	case TruncationAuto:
		return o.renderWithinBudget(enc, conv, b, ropts, list)
	case TruncationDisabled, "":
		prompt, err := o.render(enc, conv, ropts)
		if err != nil {
			return nil, err
		}
		if len(prompt) > o.ContextWindow-b.Reserve {
			be = &harmony.BudgetError{Tokens: len(prompt), MaxTokens: b.MaxTokens, Reserve: b.Reserve, Err: harmony.ErrContextTooLong}
			return nil, contextLengthExceeded(list, be, "")
		}
		return prompt, nil
	}
	return nil, fmt.Errorf("openaicompat: RequestOptions.Truncation %q is not %q or %q", truncation, TruncationAuto, TruncationDisabled)
}

// render renders conv for the assistant's completion: after
// "<|start|>assistant", or inside the message o.Prefill opens.
func (o *RequestOptions) render(enc *harmony.Encoding, conv harmony.Conversation, ropts *harmony.RenderOptions) ([]harmony.Token, error) {
	if o.Prefill != nil {
		return enc.RenderConversationWithPrefill(conv, *o.Prefill, ropts)
	}
	return enc.RenderConversationForCompletion(conv, harmony.RoleAssistant, ropts)
}

// renderWithinBudget is render within budget b, old turns dropped as
// needed. harmony's budgeted renderer ends its prompt as
// RenderConversationForCompletion does, with "<|start|>assistant"; with a
// Prefill, that end becomes the prefilled header, as
// RenderConversationWithPrefill ends the same messages (both render the
// messages, then their end), and the budget keeps room for the
// difference.
func (o *RequestOptions) renderWithinBudget(enc *harmony.Encoding, conv harmony.Conversation, b harmony.Budget, ropts *harmony.RenderOptions, list string) ([]harmony.Token, error) {
	var end, prefilled []harmony.Token
	if o.Prefill != nil {
		var err error
		if end, err = enc.RenderConversationForCompletion(harmony.Conversation{}, harmony.RoleAssistant, nil); err != nil {
			return nil, err
		}
		if prefilled, err = enc.RenderConversationWithPrefill(harmony.Conversation{}, *o.Prefill, nil); err != nil {
			return nil, err
		}
		b.Reserve += len(prefilled) - len(end)
	}
	prompt, _, err := enc.RenderConversationWithinBudget(conv, harmony.RoleAssistant, b, ropts)
	var be *harmony.BudgetError
	if errors.As(err, &be) {
		extra := len(prefilled) - len(end)
		be.Tokens += extra // the prefilled header is the prompt's
		be.Reserve -= extra
		return nil, contextLengthExceeded(list, be, "even with its older turns dropped")
	}
	if err != nil || o.Prefill == nil {
		return prompt, err
	}
	return append(prompt[:len(prompt)-len(end)], prefilled...), nil
}

// contextLengthExceeded is the error for a prompt that does not fit, in the
// words of OpenAI's: the window, and the tokens asked for in the prompt
// (at least, how is how they were counted) and in the completion.
func contextLengthExceeded(list string, be *harmony.BudgetError, how string) *RequestError {
	prompt := fmt.Sprintf("%d in the %s", be.Tokens, list)
	if how != "" {
		prompt = fmt.Sprintf("at least %d in the %s %s", be.Tokens, list, how)
	}
	msg := fmt.Sprintf("this model's maximum context length is %d tokens, but %d were requested (%s, %d for the completion): shorten the %s or the completion's max tokens",
		be.MaxTokens, be.Tokens+be.Reserve, prompt, be.Reserve, list)
	return &RequestError{MessageIndex: -1, Param: list, Code: codes[ErrContextLengthExceeded], Err: &contextError{msg: msg, budget: be}}
}

// contextError is the Err of a RequestError for a prompt too long: it says
// so as OpenAI does, and wraps both ErrContextLengthExceeded and the
// *harmony.BudgetError with the counts.
type contextError struct {
	msg    string
	budget *harmony.BudgetError
}

// Error returns OpenAI's message after the sentinel's.
func (e *contextError) Error() string { return ErrContextLengthExceeded.Error() + ": " + e.msg }

// Unwrap returns the sentinel and the budget's error with the counts.
func (e *contextError) Unwrap() []error { return []error{ErrContextLengthExceeded, e.budget} }
