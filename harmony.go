// Package harmony renders conversations into the token ids that OpenAI's
// gpt-oss models were trained on, and parses the tokens those models sample
// back into messages, all at once or one token at a time. It reproduces the
// reference implementation, openai/harmony v0.0.8, token for token.
//
// A message is written as
//
//	<|start|>{header}<|message|>{content}<|end|>
//
// where the header is the author (the role, or for a tool message the tool's
// name), an optional " to={recipient}", an optional "<|channel|>{channel}" and
// an optional " {content type}". An assistant message with a recipient (a tool
// call) ends in <|call|> instead of <|end|>. Roles are, in order of authority,
// system, developer, user, assistant and tool; the assistant writes to the
// channels analysis (chain of thought, never shown to end users), commentary
// (tool calls and preambles) and final (the answer).
//
// # Rendering
//
// An [Encoding], loaded once with [LoadEncoding], renders a [Message] or a
// [Conversation]: [Encoding.RenderConversationForCompletion] for inference
// (it appends "<|start|>{role}" for the turn to be sampled),
// [Encoding.RenderConversationForTraining] for datasets (a final answer ends in
// <|return|>), [Encoding.RenderConversation] and [Encoding.RenderMessage]. Each
// has an Append form that appends to a caller's slice. By default, analysis
// messages that precede the first final message are dropped when the
// conversation's last assistant message is a final answer, as the reference
// does; [RenderOptions].Reasoning chooses the guides' rule instead (the
// analysis of every answered turn is dropped, that of a turn still in its
// tool calls kept, see [ReasoningGuide]) or keeps all. System and developer messages
// carry structured [SystemContent] and [DeveloperContent], whose tools are
// described to the model as TypeScript generated from their JSON Schemas.
//
// [Encoding.RenderConversationWithinBudget] renders for completion within a
// [Budget]: a context window less the tokens reserved for the completion. It
// cuts only as far as needed, in a fixed order: old tool output becomes
// [ElidedToolOutput] (and old images [ElidedImage], given their placeholder
// text), oldest first; then old turns are dropped whole, oldest first, so
// that a tool call never loses its result; the system and developer
// messages and the last user turn always stay. When even they do not fit,
// it fails with a [*BudgetError] wrapping [ErrContextTooLong]. Its
// [BudgetReport] says what was kept and elided, which renders to the same
// tokens. Turns it drops are never encoded, so its cost follows the window,
// not the length of the history.
//
// [Encoding.RenderTrainingExample] renders a supervised training example with
// a loss mask: the tokens the model samples in the last assistant turn (or in
// every turn) are learned, the prompt's are not; the trained turn keeps its
// reasoning and earlier answered turns lose theirs, as the guides say.
//
// Text from users, tools and the model is always encoded as ordinary text: a
// message that contains the characters "<|start|>" gets the ordinary tokens of
// those characters, never the special token. Only the renderer's own structure
// emits special tokens, including the one case the format defines: a content
// type that starts with "<|constrain|>".
//
// # Parsing and streaming
//
// [Encoding.ParseCompletion] turns the tokens of a completion into messages.
// A [StreamParser] does the same one token at a time and reports, after each
// token, the current role, channel, recipient, content type, the content so far
// and the last content delta; a UTF-8 character split across tokens is held back
// until it is complete. Both run the same state machine (expect start, header,
// content), so they cannot disagree. After each token,
// [StreamParser.Events] says what it did — a message started, its header
// completed, its content grew, it ended — so that a server is driven by
// events, the shape of x/net/html's tokenizer.
//
// Parsing is strict by default, as the reference's is. [ParseOptions].Mode
// climbs a ladder: [ParseLenient] recovers a header cut short by a stop
// token as a message, as the reference's non-strict mode does;
// [ParseRecover] is for servers: it never fails, and reads the malformed
// output real gpt-oss models write by rules listed on it, choosing
// reasoning over final content wherever it must guess, so that chain of
// thought never becomes the answer.
//
// Errors are typed ([*ParseError], [*RenderError], [*DecodeError],
// [*EncodeError], [*JSONError], [*SchemaError]), wrap sentinel errors usable
// with errors.Is, carry the token or message index or the JSON path where one
// applies, and their messages start with "harmony: ". No input, however
// malformed, makes this package panic.
//
// # Concurrency
//
// An [Encoding] is immutable and safe for concurrent use by any number of
// goroutines; its caches are bounded by the memory they hold. A [StreamParser] is not; use one per stream (and Reset it to
// reuse it).
//
// # Compatibility
//
// Messages and conversations marshal to and from the reference's JSON, so a
// conversation saved by the Python library loads here and back. A field that
// JSON does not have is an error here (the reference ignores it), except the
// reasoning fields of datasets ("thinking", "reasoning_content",
// "reasoning"), which become analysis messages (see
// [Conversation.UnmarshalJSON]). Rendering and
// parsing match the reference exactly, quirks included, with two deliberate
// exceptions where the reference goes silently wrong: a name, recipient,
// channel or content type that would read as header structure is a render
// error (the reference renders it, forging a header), and an unknown token id
// in content is a parse error (the reference drops the rest of the message).
// The other differences are in API shape only; README.md lists them.
//
// # Related packages
//
// Validating tool arguments and answers against their JSON Schemas lives in
// package harmony/jsonschema, so that a program that only renders and parses
// links no validator; package harmony/openaicompat serves the OpenAI Chat
// Completions and Responses APIs on top of this one.
package harmony
