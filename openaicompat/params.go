package openaicompat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// This file knows every top-level parameter of the two request bodies, as
// OpenAI's published request schemas (CreateChatCompletionRequest and
// CreateResponse, with what they take from their base schemas) list them,
// and what this package does with each: DecodeRequest refuses a parameter
// it does not know, as OpenAI does, and a value it cannot honour.

// paramUse is what this package does with a request parameter.
type paramUse int

const (
	// paramUsed: a field of the request struct, read by this package or
	// carried for the server (temperature, seed, …).
	paramUsed paramUse = iota + 1
	// paramIgnored: accepted and dropped, because ignoring it changes
	// nothing in what a client gets back (store on Chat Completions,
	// service_tier, prompt_cache_key, safety_identifier, …).
	paramIgnored
	// paramRefused: accepted only with values this package can honour
	// (n is 1, logprobs false, audio null, …); others are refused with
	// ErrUnsupportedParameter.
	paramRefused
)

// param says what this package does with one request parameter. For a
// refused parameter that is not a field of the request struct, refuse
// returns why its value cannot be honoured, or "" when it can; a refused
// field of the struct is checked by the request's Validate instead.
type param struct {
	use    paramUse
	refuse func(v json.RawMessage) string
}

var (
	used    = param{use: paramUsed}
	ignored = param{use: paramIgnored}
	// refusedByValidate is a field of the struct whose values Validate
	// refuses (n).
	refusedByValidate = param{use: paramRefused}
)

func refused(refuse func(json.RawMessage) string) param {
	return param{use: paramRefused, refuse: refuse}
}

// chatParams are the parameters of POST /v1/chat/completions. Every one of
// CreateChatCompletionRequest is here; "reasoning" (OpenRouter's) is the
// only one that is not in OpenAI's schema.
var chatParams = map[string]param{
	"model":                 used,
	"messages":              used,
	"tools":                 used,
	"tool_choice":           used,
	"parallel_tool_calls":   used,
	"reasoning_effort":      used,
	"reasoning":             used, // OpenRouter's spelling; not OpenAI's
	"response_format":       used,
	"stream":                used,
	"stream_options":        used,
	"max_tokens":            used,
	"max_completion_tokens": used,
	"temperature":           used,
	"top_p":                 used,
	"frequency_penalty":     used,
	"presence_penalty":      used,
	"seed":                  used,
	"stop":                  used,
	"user":                  used,
	"metadata":              used,

	// Storage for OpenAI's distillation and evals, routing, caching and
	// abuse tracking: none changes the completion.
	"store":                  ignored,
	"service_tier":           ignored,
	"prompt_cache_key":       ignored,
	"prompt_cache_retention": ignored,
	"prompt_cache_options":   ignored,
	"safety_identifier":      ignored,
	// Predicted output only makes a response faster.
	"prediction": ignored,
	// A hint on the answer's length, which gpt-oss has no control for.
	"verbosity": ignored,

	"n":                  refusedByValidate,
	"logprobs":           refused(refuseTrue("this server computes no log probabilities")),
	"top_logprobs":       refused(refusePositive("this server computes no log probabilities")),
	"logit_bias":         refused(refuseNonEmpty("this server's sampler takes no logit bias")),
	"modalities":         refused(refuseModalities),
	"audio":              refused(refuseSet("gpt-oss writes text only")),
	"functions":          refused(refuseNonEmpty("the deprecated functions are not supported: declare them in tools")),
	"function_call":      refused(refuseSet("the deprecated function_call is not supported: use tool_choice")),
	"web_search_options": refused(refuseSet("this server has no web search")),
	"moderation":         refused(refuseSet("this server runs no moderation")),
}

// responsesParams are the parameters of POST /v1/responses: every one of
// CreateResponse, and no other.
var responsesParams = map[string]param{
	"model":                used,
	"input":                used,
	"instructions":         used,
	"tools":                used,
	"tool_choice":          used,
	"parallel_tool_calls":  used,
	"reasoning":            used,
	"text":                 used,
	"stream":               used,
	"max_output_tokens":    used,
	"include":              used,
	"truncation":           used,
	"previous_response_id": used,
	"temperature":          used,
	"top_p":                used,
	"store":                used,
	"user":                 used,
	"metadata":             used,

	"service_tier":           ignored,
	"prompt_cache_key":       ignored,
	"prompt_cache_retention": ignored,
	"prompt_cache_options":   ignored,
	"safety_identifier":      ignored,
	// Its one option, include_obfuscation, pads events with a field that
	// clients ignore.
	"stream_options": ignored,
	// It bounds calls to built-in tools, which run on the server's side;
	// a server that runs them enforces it.
	"max_tool_calls": ignored,

	"background":         refused(refuseTrue("this server answers in the foreground only")),
	"conversation":       refused(refuseSet("this server keeps no conversations: send the conversation as input, or use previous_response_id")),
	"prompt":             refused(refuseSet("this server has no stored prompts: send the instructions and input")),
	"context_management": refused(refuseNonEmpty("this server does no compaction: use truncation")),
	"top_logprobs":       refused(refusePositive("this server computes no log probabilities")),
	"moderation":         refused(refuseSet("this server runs no moderation")),
}

// isNull reports whether v is JSON null: every parameter's default.
func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// refuseSet refuses any value but null.
func refuseSet(why string) func(json.RawMessage) string {
	return func(v json.RawMessage) string {
		if isNull(v) {
			return ""
		}
		return why
	}
}

// refuseTrue refuses true.
func refuseTrue(why string) func(json.RawMessage) string {
	return func(v json.RawMessage) string {
		if bytes.Equal(bytes.TrimSpace(v), []byte("true")) {
			return why
		}
		return ""
	}
}

// refusePositive refuses a number above 0.
func refusePositive(why string) func(json.RawMessage) string {
	return func(v json.RawMessage) string {
		if f, err := strconv.ParseFloat(string(bytes.TrimSpace(v)), 64); err == nil && f > 0 {
			return why
		}
		return ""
	}
}

// refuseNonEmpty refuses a list or an object with anything in it.
func refuseNonEmpty(why string) func(json.RawMessage) string {
	return func(v json.RawMessage) string {
		if isNull(v) || isEmpty(v) {
			return ""
		}
		return why
	}
}

// isEmpty reports whether v is [] or {}, read without decoding it.
func isEmpty(v json.RawMessage) bool {
	w := costWalk{data: v}
	var end byte
	switch w.peek() {
	case '[':
		end = ']'
	case '{':
		end = '}'
	default:
		return false
	}
	w.i++
	return w.peek() == end
}

// refuseModalities refuses any output modality but text. The list is read
// without decoding it: its strings are compared where they are.
func refuseModalities(v json.RawMessage) string {
	const notList = "modalities must be a list of modalities"
	if isNull(v) {
		return ""
	}
	w := costWalk{data: v}
	if w.peek() != '[' {
		return notList
	}
	w.i++
	if w.peek() == ']' {
		return ""
	}
	bad, found := "", false
	for {
		var m []byte
		switch w.peek() {
		case '"':
			s, plain, err := w.str()
			if err != nil {
				return notList
			}
			if m = s; !plain {
				m = w.unescape(s)
			}
		case 'n':
			if _, err := w.scalar(); err != nil {
				return notList
			}
			m = nil // null reads as ""
		default:
			return notList
		}
		if string(m) != "text" && !found {
			bad, found = string(m), true
		}
		if w.peek() != ',' {
			break
		}
		w.i++
	}
	if found {
		return fmt.Sprintf("modality %q: gpt-oss writes text only", clip(bad))
	}
	return ""
}

// paramError returns the error of the request's member name with the
// value v: the parameter params does not have (code "unknown_parameter",
// in the words of the API: chat says whether it is Chat Completions), or
// a value it refuses; nil for neither.
func paramError(params map[string]param, chat bool, name, v []byte) error {
	p, ok := params[string(name)]
	if !ok {
		return unknownParameter(string(name), chat)
	}
	if p.refuse != nil {
		if why := p.refuse(v); why != "" {
			return reqErr(-1, string(name), ErrUnsupportedParameter, "%s", why)
		}
	}
	return nil
}

// unknownParameter is the error for a parameter the API does not have, in
// OpenAI's words for each API. Param names it in both (OpenAI's Chat
// Completions leaves it null).
func unknownParameter(name string, chat bool) *RequestError {
	name = clip(name)
	msg := fmt.Sprintf("Unknown parameter: '%s'.", name)
	if chat {
		msg = "Unrecognized request argument supplied: " + name
	}
	return &RequestError{MessageIndex: -1, Param: name, Code: codes[ErrUnknownParameter],
		Err: &apiError{sentinel: ErrUnknownParameter, msg: msg}}
}

// apiError is the Err of a RequestError whose message on the wire is
// OpenAI's own, msg, word for word; it wraps sentinel.
type apiError struct {
	sentinel error
	msg      string
}

// Error returns OpenAI's message.
func (e *apiError) Error() string { return e.msg }

// Unwrap returns the sentinel.
func (e *apiError) Unwrap() error { return e.sentinel }
