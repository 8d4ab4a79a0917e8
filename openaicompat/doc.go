// Package openaicompat maps the OpenAI Chat Completions and Responses APIs
// onto the harmony format of gpt-oss, both ways: a request becomes a
// [harmony.Conversation] to render for completion, and the tokens the model
// samples become a response, whole or as a stream of chunks or events. It
// has its own small wire structs, with the JSON names of the wire, and no
// dependency on any OpenAI client.
//
// # Requests
//
// [ChatCompletionRequest.Conversation] and [ResponsesRequest.Conversation]
// build, in order:
//
//   - A system message: harmony's defaults ([harmony.NewSystemContent]) with
//     the date, knowledge cutoff and built-in tools of [RequestOptions], and
//     the reasoning effort of the request (reasoning_effort or
//     reasoning.effort: low, medium, high; "minimal" is low), else of the
//     options.
//   - A developer message, when there is anything to put in it: the text of
//     every system and developer message (and the Responses "instructions",
//     first), joined with blank lines in order, as its instructions; the
//     function tools, parameters kept as raw JSON so that their key order
//     survives; a json_schema response format as a response format.
//     tool_choice "none" leaves the tools out; "required" and a named
//     function are validated but left to the sampler to enforce, as are
//     json_object and strict schemas.
//   - User messages, with their name ("user:NAME" in the header).
//   - For an assistant message: its reasoning (Chat "reasoning" or
//     "reasoning_content"; a Responses reasoning item) as an analysis
//     message; its content (and refusal) as a final message, or as a
//     commentary preamble when tool calls follow in the same turn; each tool
//     call as a commentary message to "functions.NAME" with content type
//     "<|constrain|>json" and the arguments, verbatim, as content — parallel
//     calls one message each, in order. A call whose name has a dot is sent
//     to that recipient as is; with the built-in tools declared, "python"
//     and "browser.*" calls go to the analysis channel.
//   - For a tool result: a message from the called tool ("functions.NAME")
//     to the assistant on the call's channel, its content unchanged — a
//     failed call is answered with its error text like any other. Results
//     stay in the order they were given.
//
// Content given as a list of parts is flattened to text: text and refusal
// parts concatenated as they are; image parts become
// RequestOptions.ImagePlaceholder, or are refused when it is empty; other
// parts (audio, files) are refused.
//
// The chain of thought follows the raw chain-of-thought guide: reasoning
// before the last final answer is dropped, and reasoning after it — the
// turn in progress, whose last step was a tool call — is kept.
// RequestOptions.KeepReasoning keeps it all. The harmony renderer's own
// default drops less in multi-turn histories (see [RequestOptions]), so the
// conversation comes pruned; render it with either setting.
//
// # Protocol rules
//
// A request that breaks the chat message protocol is refused with a
// [*RequestError] naming the message (or item) and parameter, wrapping a
// sentinel: a tool result must name the id of an earlier call
// ([ErrUnknownToolCallID]); ids are unique ([ErrDuplicateToolCallID]); a
// call has one result ([ErrToolCallAlreadyAnswered]); every call made
// before a user message, or before the end of the conversation, has its
// result ([ErrMissingToolResult], listing the ids); names match
// ^[a-zA-Z0-9_-]+$, and a tool message's name is its function's
// ([ErrInvalidName]). Nothing in the input is dropped silently: an unknown
// role ([ErrUnknownMessageRole]) or item type ([ErrUnknownItemType]), a
// field on a role that has no such field ([ErrInvalidRequest]), an unknown
// part type, a name on a system or developer message (which become
// instructions), an encrypted reasoning item
// ([ErrUnsupportedRequestContent]) — all are errors. Nor is a parameter
// dropped unseen: [DecodeRequest] refuses a top-level parameter that
// OpenAI's request schema does not have, as OpenAI does
// ([ErrUnknownParameter], code "unknown_parameter", param its name), and
// a value this package cannot honour, such as logprobs true
// ([ErrUnsupportedParameter]); it ignores only the parameters whose
// absence changes nothing for the client, such as service_tier (its
// documentation lists them). Inside messages, tools and items, unknown
// fields are ignored: clients send response objects back as input. Before
// the messages, Validate checks the other parameters: n must be 1
// ([ErrUnsupportedParameter]), max_tokens, max_completion_tokens and
// max_output_tokens at least 1, and stream_options needs stream
// ([ErrInvalidRequest]). [HTTPError] gives the HTTP status and wire form
// of any error.
//
// # Context window
//
// [ChatCompletionRequest.RenderPrompt] and [ResponsesRequest.RenderPrompt]
// render a request's conversation within RequestOptions.ContextWindow (0,
// the default, is no limit), keeping room for the completion: the request's
// max_tokens, max_completion_tokens or max_output_tokens, else
// RequestOptions.CompletionReserve, else [DefaultCompletionReserve]. A
// prompt too long is refused with a 400 in OpenAI's words (a
// [*RequestError] wrapping [ErrContextLengthExceeded], code
// "context_length_exceeded", param "messages" or "input"), unless truncation
// is "auto": then harmony's Encoding.RenderConversationWithinBudget elides
// old tool output (and old images, by RequestOptions.ImagePlaceholder), then
// drops old turns whole, and refuses only when the system and developer
// messages and the last user turn alone do not fit. A Responses request
// chooses with its truncation ("disabled", the API's default, or "auto");
// Chat Completions has no such parameter, and RequestOptions.Truncation
// chooses for it (and for Responses requests that do not say): by default
// "disabled", as OpenAI's API answers, so that nothing is cut without the
// server asking.
//
// # Responses
//
// The model's messages are sorted by their header: a message to a tool is a
// tool call (recipient "functions.NAME" is the function NAME; a built-in
// tool, such as "python", is reported whole as the name), where
// ResponseOptions.Functions and Namespaces, when set, say which tools there
// are; an analysis message is reasoning; any other assistant message —
// final, a commentary preamble, no channel — is text. A message from
// another role, or to a recipient that is no tool, is an [*OutputError]
// wrapping [ErrUnexpectedMessage] under ResponseOptions.Strict; recovery (the
// default) drops the first and makes the second reasoning (see "Malformed output").
//
// Chat Completions ([ChatCompletionFromTokens], [ChatStreamConverter]): "content" is the text messages joined with a blank
// line ("\n\n"), null when there is none and there are tool calls;
// "reasoning" (or "reasoning_content", or both: ResponseOptions.ReasoningField)
// is the analysis messages joined the same way, left out with
// ResponseOptions.ExcludeReasoning; "tool_calls" has
// an id "call_…" per call, the function's name and the message's content as
// arguments; "finish_reason" is "length" when the caller says sampling hit
// the token limit, else "tool_calls" when there are calls, else "stop". A
// stream sends the role first, the reasoning and content deltas as they
// come (the blank line joining two messages rides on the first delta of the
// second), per tool call a delta with its index, id, type, name and empty
// arguments and then argument deltas, and a last chunk with the finish
// reason. The deltas concatenate exactly to the whole response.
//
// Responses ([ResponseFromTokens], [ResponsesStreamConverter]): one output item per message — "reasoning"
// with a "reasoning_text" part, "message" with an "output_text" part,
// "function_call" with a call_id — and the stream's events carry
// sequence_number, item_id, output_index and content_index as the API
// does. The response object repeats the request's parameters
// (ResponseOptions.Echo, which [ResponsesRequest.ResponseOptions] fills;
// OpenAI's defaults when it is zero). A stream that cannot finish ends with
// [ResponsesStreamConverter.Fail]: an "error" event and
// "response.failed", numbered after the events before them.
//
// Every body, chunk and event has the fields OpenAI's published OpenAPI
// schemas require, those without a value as null (a chat choice's
// "logprobs", an assistant's "refusal", a response's "error") or empty
// (an output_text part's "annotations" and "logprobs"); the tests validate
// all of them, fuzzed streams included, against those schemas
// (testdata/openapi).
//
// Usage: every response body and every stream's end carries it. The
// converters count the completion's tokens (every token given to them) and
// its reasoning tokens (the tokens of the analysis messages, headers
// included) themselves; [Sampling] carries only what they cannot know, the
// prompt's tokens and the cached part of them. The stream converters'
// ReasoningTokens says how many reasoning tokens there are so far.
//
// # Malformed output
//
// By default, the setting a server needs, the converters recover malformed
// output and never fail. The tokens are parsed in harmony's recovery mode
// (harmony.ParseRecover, whose rules are listed there), and then:
//
//   - a message from another role (a tool's reply or a user turn the model
//     wrote itself) is dropped;
//   - a message to a recipient is a tool call only for functions.NAME or a
//     built-in tool, declared in ResponseOptions.Functions and Namespaces
//     when they are set; any other is reasoning;
//   - everything else on the analysis channel is reasoning, and the rest is
//     text;
//   - but a completion that is only text, without any header or special
//     token before its stop token (which recovery makes analysis), is the
//     answer when the request asked for a json_schema format
//     (ResponseOptions.ResponseFormat) and the text is JSON valid for its
//     schema, as package jsonschema checks it.
//
// With ResponseOptions.Prefill, the completion starts inside the message
// the prompt prefilled (RequestOptions.Prefill): bare text after a final
// header is the answer, after an analysis header reasoning.
//
// So Chat content and Responses output_text hold only the text of
// assistant messages on the final or commentary channel (prefilled or
// not), or a bare answer valid for the requested schema: never text from
// an analysis message, a header's words (to=…, channel names,
// <|constrain|> and its type), or other text outside any valid header,
// which recovery makes analysis, but for the text after a header that
// names the final channel exactly and lacks only its <|message|> (a fuzzer
// checks this over arbitrary token streams). An assistant message to
// itself ("to=assistant", a tool's reply it made up and ends with
// <|call|>) is reasoning: neither an answer nor a call. Where a rule must
// choose, it
// chooses reasoning, or dropping, over content; what was dropped or
// demoted is counted by the stream converters' Dropped method.
//
// With ResponseOptions.Strict, tokens that do not form harmony messages end
// a conversion with an [*OutputError] wrapping the *harmony.ParseError
// (harmony's strict parser reads a stop token inside a header as part of
// it, so such output fails at the header's end or at the end of the
// stream), as does a message from a role other than the assistant, or one
// to a recipient that is no declared tool.
//
// In both modes no tokens at all make an empty response, and in strict mode
// a header cut off by the token limit (Sampling.Truncated) is dropped;
// recovery keeps its text, if any, as reasoning (as the answer after a
// final channel, as harmony.ParseRecover says). No input makes this package
// panic.
//
// # Reasoning across calls
//
// A tool loop must give the model back its own chain of thought (the raw
// chain-of-thought guide). Chat clients send it in "reasoning" or
// "reasoning_content". Responses clients send reasoning items back in one
// of three forms, all accepted:
//
//   - the item itself, with its reasoning_text content;
//   - with store:false and include:["reasoning.encrypted_content"] (the
//     stateless form): the item's encrypted_content, which this package
//     seals with the server's key ([ReasoningSealer], AES-GCM, keys
//     rotated by listing the new one first) in ResponseOptions.Sealer and
//     opens with RequestOptions.Sealer. The seal is bound to the item's id
//     and to the tenant (ResponseOptions.Owner, RequestOptions.Owner): a
//     changed or foreign one, or one sent back under another item's id
//     (of this response or another) or by another tenant, is a 400
//     ([ErrSealedReasoning]) naming the item;
//   - with store (the API's default): an item_reference, resolved through
//     RequestOptions.Items, an [ItemStore] the server keeps; without one it
//     is a 400 ([ErrItemReference]) that says to send store:false.
//
// A request can also continue a stored response with
// previous_response_id, through RequestOptions.Responses, a
// [ResponseStore].
//
// # Stores and tenants
//
// The server keeps the stores, and keeps them per tenant:
// RequestOptions.Owner names the tenant a request is made for (the
// account of its API key, say), and [ItemStore] and [ResponseStore] are
// asked for that owner's ids only. Another tenant's response or item id
// is exactly as unknown as an id never stored — the same 400, and no
// error quotes anything stored for another tenant — so that holding an id
// gives no way into another tenant's conversation. The empty owner is one
// tenant like any other: a server without authentication leaves Owner
// empty, and all its callers share one store.
//
// A store should keep each item as [Item.MarshalJSON] writes it, the
// fields of the item's type: an item decoded from a request also holds
// every other field its client sent, of any size (the "arguments" of a
// message, the "annotations" of an input_text part), which a store's bound
// counted in the items' JSON would not see.
//
// # Errors on the wire
//
// [HTTPError] gives the status and body for any error: client errors
// (a [*RequestError], a body [DecodeRequest] cannot read) are 400
// invalid_request_error with param and code (413 for a body over the
// limit, 408 for one not received in time), everything else 500. A body
// that would take more than 16 times its size in memory decoded is one
// of them ([ErrRequestTooComplex]): DecodeRequest bounds what any body
// costs by its length. Whatever
// a client can send that harmony cannot render is refused by Conversation.
// An error quotes a client's ids, names and types clipped to 64 bytes
// (and "…"), so that its size does not depend on the request's.
//
// # Streaming over HTTP
//
// [SSEWriter] writes a stream as server-sent events, framed as each API
// frames them and flushed one call at a time: the chunks, then "data:
// [DONE]", for Chat Completions; "event: TYPE" and the event, for
// Responses. A stream that has begun cannot change its status, so one that
// cannot finish ends with the error in the form each API gives it
// mid-stream: a "data: {"error": {...}}" event with HTTPError's body (Chat
// Completions), the "error" and "response.failed" events of
// [ResponsesStreamConverter.Fail] (Responses). SSEWriter.WriteTimeout is a
// deadline per write: a client that stops reading is dropped, while a long
// stream is never cut, as http.Server.WriteTimeout, counted from the
// request's start, would cut it.
//
// # Concurrency
//
// Requests, options and responses are plain values. A stream converter is
// for one stream and one goroutine; the x/net/html tokenizer's model: call
// Process for each token, then Finish, and read what each call returns. An
// [SSEWriter] is for one response and one goroutine.
package openaicompat
