package harmony

import "fmt"

// ParseMode says what a parser does with malformed output. The modes form a
// ladder: each reads well-formed output exactly as the one before it does,
// and accepts more.
type ParseMode uint8

const (
	// ParseStrict, the zero value, is the reference's default: malformed
	// output is a [*ParseError].
	ParseStrict ParseMode = iota

	// ParseLenient is the reference's non-strict mode: a stop token in a
	// header (a message cut short before <|message|>) ends that message
	// instead of becoming part of its header. When the parser was told the
	// role of the first message, that header is kept as a message whose
	// content is whatever followed the header fields; a later message cut
	// short is dropped, exactly as the reference drops it. An unknown token
	// id in content becomes U+FFFD and the rest of the message is kept.
	ParseLenient

	// ParseRecover recovers malformed model output: the mode a server
	// should use. It parses well-formed output exactly as ParseStrict does
	// and never fails; where output is malformed it applies these rules,
	// each in one place:
	//
	//   - A <|start|> inside a header or content, or a <|channel|> inside
	//     content or between messages, starts a new message (after
	//     <|channel|>, an assistant message): the model forgot an <|end|>
	//     or a <|start|>assistant.
	//   - Text between messages starts an assistant message too; if no
	//     <|message|> follows before a stop token or the end, it was text
	//     outside any valid header (below).
	//   - In a header, "to=X" is the recipient, and the first one wins; a
	//     bare word before the channel is the recipient if it is a valid
	//     one; a word after the channel that is not "to=…" is the content
	//     type, as is the word after <|constrain|>.
	//   - A "to=" followed by a function of Functions whose name holds
	//     spaces ("to=functions.Web Search") names it whole: declared names
	//     are matched before the header is split at white space.
	//   - A word that cannot be a header field (CheckHeaderField: white
	//     space, "<|", a leading "to=") is no tool's name and no content
	//     type: it is dropped (the renderer would refuse the field).
	//   - A recipient is valid only if it is functions.NAME, browser.TOOL,
	//     python, a namespace of Namespaces (alone or with .TOOL), a
	//     function of Functions named without "functions." (read as
	//     functions.NAME), or, for a tool's message, assistant; any other
	//     is dropped, and a message whose only "to=" named something other
	//     than the assistant, the user or all becomes analysis.
	//   - A channel other than analysis, commentary and final makes the
	//     message analysis; of several channels in one header, analysis
	//     wins, else the last (the model began the header again).
	//   - A header cut short (by a stop token, the end of the output or a
	//     <|start|>) or left without <|message|> gives only its fields: its
	//     words (the role, <|channel|> and the channel word, "to=" words,
	//     <|constrain|> and its type word, a bare json after them) are
	//     dropped, never text, and the text around them is kept. That text
	//     is final content when the header names the final channel exactly,
	//     with no text before it and no "to="; otherwise it is analysis,
	//     never a tool call. A channel word run into text
	//     ("commentary?commentary?We need") ends after the channel names.
	//   - A "to=X" word that ends the content right before an interrupting
	//     <|channel|> is the recipient of the message that <|channel|>
	//     begins, if X is a valid recipient: the word and the white space
	//     before it leave the interrupted message (counted as dropped);
	//     otherwise the word stays text. The word is one word (or "to="
	//     and a declared name with spaces), at the start of the content
	//     or after white space, at most 256 bytes. So that it is never in
	//     a delta, a StreamParser holds back a word that may be one ("t",
	//     "to", "to=…", or "to=" and the start of a declared name with
	//     spaces) and the white space that ends the content (up to 32
	//     bytes) until the next token shows what follows: any token but
	//     that <|channel|> makes it text again, in that token's delta,
	//     before the message ends.
	//   - An assistant message "to=assistant" that is not final (a tool's
	//     reply the model wrote itself and ends with <|call|>) is analysis:
	//     neither an answer nor a call.
	//   - Special tokens inside content, other than those above and the
	//     stop tokens, are dropped; an unknown token id becomes U+FFFD and
	//     the rest of the message is kept; invalid UTF-8 in a header is
	//     repaired as in content.
	//
	// Everything dropped is counted in [StreamParser.Dropped].
	ParseRecover
)

var parseModeNames = [...]string{ParseStrict: "strict", ParseLenient: "lenient", ParseRecover: "recover"}

// String returns the mode's name: "strict", "lenient" or "recover".
func (m ParseMode) String() string {
	if int(m) < len(parseModeNames) {
		return parseModeNames[m]
	}
	return fmt.Sprintf("ParseMode(%d)", m)
}

// UnmarshalText reads a mode's name as String writes it, so that a
// ParseMode can be read from a command-line flag or a JSON string.
func (m *ParseMode) UnmarshalText(text []byte) error {
	for i, name := range parseModeNames {
		if string(text) == name {
			*m = ParseMode(i)
			return nil
		}
	}
	return fmt.Errorf("harmony: parse mode %q is not strict, lenient or recover", text)
}

// ParseOptions control parsing. The zero value (and a nil *ParseOptions) is the
// reference's default: strict.
type ParseOptions struct {
	// Mode says what to do with malformed output; the zero value is
	// ParseStrict.
	Mode ParseMode

	// Functions are the names of the functions the prompt declared,
	// without "functions." (names that are not valid function names are
	// ignored, but for valid words with single spaces between, "Web
	// Search", which recovery matches whole), and Namespaces the other
	// tool namespaces it declared:
	// "browser" (whose tools are called "browser.TOOL"), "python" (called
	// "python"), or another namespace NS (called "NS" or "NS.TOOL").
	// ParseRecover reads a recipient that is one of Functions without its
	// namespace ("to=get_weather", as models sometimes write) as
	// functions.NAME, and accepts the recipients of Namespaces besides
	// functions.NAME, browser.TOOL and python, which it accepts whether
	// declared or not. openaicompat.ResponseOptions has the same two
	// fields.
	Functions  []string
	Namespaces []string

	// KeepHeaders records in each parsed message's Header the header as
	// the model wrote it, where that differs from the reference's form (the
	// recipient after the channel, as gpt-oss writes its calls) or where
	// the renderer needs it to write the fields (the reference's reading of
	// "<|channel|>final <|constrain|>json" has the recipient
	// "<|constrain|>json"), so that rendering the messages again gives back
	// the sampled tokens, and never fails. Off by default: the messages
	// are the reference's.
	KeepHeaders bool

	// Prefill, when set, is the message whose header the prompt already
	// holds, as [Encoding.RenderConversationWithPrefill] renders it
	// ("…<|start|>assistant<|channel|>final<|message|>"): the completion
	// starts inside that message's content, in every mode. Servers
	// prefill the final channel to force an answer (reasoning off) or the
	// analysis channel; the bare text the model then writes belongs to
	// that message, where it would otherwise be text outside any header.
	// Its header fields (role, name, recipient, channel, content type,
	// and Header as the renderer writes it) are the first message's; its
	// Content must be empty, and the role the parser is given must be its
	// Role. A StreamParser reports the message's start and header with
	// the first token (or at ProcessEOS, when there is none). nil: the
	// completion starts in a header.
	Prefill *Message
}

// StreamState is the state of the parser's state machine.
type StreamState int

// The states of the parser: waiting for <|start|>, reading a header until
// <|message|>, reading content until a stop token.
const (
	StateExpectStart StreamState = iota
	StateHeader
	StateContent
)

// String returns the state's name as the reference spells it, e.g. "ExpectStart".
func (s StreamState) String() string {
	switch s {
	case StateExpectStart:
		return "ExpectStart"
	case StateHeader:
		return "Header"
	case StateContent:
		return "Content"
	}
	return fmt.Sprintf("StreamState(%d)", int(s))
}

// ParseCompletion parses the tokens a model sampled into messages. With role
// set (usually [RoleAssistant]), the tokens start right after the rendered
// "<|start|>{role}", in the first message's header; with role "", they start
// at a <|start|>; with opts.Prefill set, inside the content of that message.
// A message ends at any stop token or at the end of the tokens.
// A nil opts means strict parsing. Errors are [*ParseError]s.
func (e *Encoding) ParseCompletion(tokens []Token, role Role, opts *ParseOptions) ([]Message, error) {
	p, err := e.newParser(role, opts, false)
	if err != nil {
		return nil, err
	}
	// Room for every message's content, most often in one allocation:
	// tokens average under four bytes (a block more is made, as a stream
	// makes it, if they need more).
	p.arena = make([]byte, 0, 4*len(tokens)+maxTokenBytes)
	p.noEvents = true
	slow := 0 // tokens before it go through Process
	for i := 0; i < len(tokens); i++ {
		if p.state == StateContent && i >= slow {
			n, ok := p.contentRun(tokens[i:])
			if !ok {
				slow = i + n
			} else if i += n; i == len(tokens) {
				break
			}
		}
		if err := p.Process(tokens[i]); err != nil {
			return nil, err
		}
	}
	if err := p.ProcessEOS(); err != nil {
		return nil, err
	}
	return p.messages, nil
}
