package openaicompat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/toolname"
)

// This file holds what the Chat Completions and Responses converters share:
// the options, and a builder that collects instructions and messages,
// pairs tool calls with their results, and applies the chain-of-thought
// rules before it assembles the conversation.

// RequestOptions control how a request becomes a conversation. The zero value
// (and a nil *RequestOptions) gives the harmony defaults: the ChatGPT identity,
// knowledge cutoff 2024-06, no current date, medium reasoning, no built-in
// tools, images refused, earlier reasoning dropped as the harmony guide says.
type RequestOptions struct {
	// ModelIdentity replaces the system message's identity line. The harmony
	// guide advises against it: put a persona in the instructions instead.
	ModelIdentity string
	// KnowledgeCutoff is the "Knowledge cutoff:" line; "" means "2024-06".
	KnowledgeCutoff string
	// ConversationStartDate is the "Current date:" line, such as
	// "2025-06-28"; "" leaves the line out. Servers usually pass today's date.
	ConversationStartDate string
	// ReasoningEffort is used when the request sets none; "" means medium.
	// The API spellings ("low", …) are accepted as well as harmony's.
	ReasoningEffort harmony.ReasoningEffort
	// BrowserTool and PythonTool declare the built-in tools in the system
	// message. Running them is the server's business.
	BrowserTool bool
	PythonTool  bool
	// ImagePlaceholder, when set, is the text that stands for each image part
	// (gpt-oss reads text only). When empty, an image is an error wrapping
	// [ErrUnsupportedRequestContent].
	ImagePlaceholder string
	// KeepReasoning keeps every reasoning message of the history. By default
	// (false), reasoning that comes before the last final answer is dropped,
	// as the raw chain-of-thought guide says; reasoning after it (the
	// assistant's current turn of tool calls) is kept. With KeepReasoning,
	// render with harmony.RenderOptions{Reasoning: harmony.ReasoningKeepAll}
	// too.
	KeepReasoning bool
	// Sealer opens the encrypted reasoning of Responses reasoning items
	// (encrypted_content) that the server's ResponseOptions.Sealer sealed,
	// for the same item id and Owner; nil refuses such items, and a
	// request that asks for "reasoning.encrypted_content" in its include.
	Sealer *ReasoningSealer
	// ReferenceHeaders renders the assistant's function calls of the
	// history in the reference renderer's header form ("assistant
	// to=functions.f<|channel|>commentary <|constrain|>json") instead of the
	// form gpt-oss samples them in ("assistant<|channel|>commentary
	// to=functions.f <|constrain|>json", as the harmony guide's
	// function-calling example shows), which is the default so that the
	// model reads its own calls as it wrote them and the prompt extends the
	// previous one token for token.
	ReferenceHeaders bool
	// ContextWindow is the model's context window in tokens (131,072 for
	// gpt-oss), which holds the prompt and the completion; 0 means no
	// limit. The requests' RenderPrompt methods keep their prompts within
	// it, leaving room for the completion: the request's max tokens, else
	// CompletionReserve.
	ContextWindow int
	// CompletionReserve is the room kept for the completion when the
	// request sets no max tokens; 0 means [DefaultCompletionReserve].
	CompletionReserve int
	// Truncation is what RenderPrompt does with a prompt too long for
	// ContextWindow when the request does not say (Chat Completions has no
	// such parameter; a Responses request may set truncation):
	// [TruncationDisabled] (or "", the default) fails with a 400
	// context_length_exceeded, as OpenAI's APIs do, and [TruncationAuto]
	// elides old tool output and images and drops old turns to fit.
	Truncation string
	// Items resolves the Responses API's item references
	// ({"type":"item_reference","id":…}, or an item with only an id),
	// which clients send for the output items of earlier responses when
	// store is true, the API's default, asking for Owner's items only.
	// nil refuses them with an error that says to send the items
	// themselves (store:false).
	Items ItemStore
	// Responses gives the conversation of an earlier response of Owner
	// for a Responses request's previous_response_id; nil refuses such a
	// request with [ErrUnsupportedParameter] (send the whole conversation
	// instead).
	Responses ResponseStore
	// Owner is the tenant the request is made for, such as the account
	// its API key belongs to: Items and Responses are asked for its ids
	// only, and sealed reasoning opens only if it was sealed for Owner
	// (ResponseOptions.Owner). "" is one tenant like any other: a server
	// without authentication leaves it empty, and every caller shares
	// it.
	Owner string
	// Prefill, when set, is an assistant message whose header
	// RenderPrompt writes at the end of the prompt, after the
	// conversation, as harmony's Encoding.RenderConversationWithPrefill
	// does ("<|start|>assistant<|channel|>final<|message|>" for a Prefill
	// on the final channel: an answer without reasoning), so that the
	// completion is that message's content. Its Content must be empty.
	// Give the same message to the response's converter as
	// ResponseOptions.Prefill.
	Prefill *harmony.Message
}

// ResponseStore gives the items of stored responses, for the Responses
// API's previous_response_id. The stored responses belong to owners
// (tenants, [RequestOptions].Owner): a response stored for one owner is
// never another's.
type ResponseStore interface {
	// ResponseItems returns the items of the conversation that the
	// response with the given id, stored for owner, ended: the items
	// before its request's input (from its own previous response), its
	// input, and its output; and whether owner has such a response. The
	// id of another owner's response is unknown to owner, exactly as an
	// id never stored: ResponseItems returns false, and the request's
	// error is the same. The caller does not change the slice.
	ResponseItems(owner, id string) ([]Item, bool)
}

// ItemStore gives the output items of earlier responses by id, for the
// Responses API's item references. A server that keeps them stores each
// response's output items, for the owner of its request
// ([RequestOptions].Owner), when the request's store is not false.
//
// A store should keep an item as its MarshalJSON writes it, the fields of
// its type: an item decoded from a request also holds whatever other
// fields the client put in it, of any size.
type ItemStore interface {
	// Item returns the item with the given id stored for owner, and
	// whether owner has one. Another owner's item is unknown to owner,
	// exactly as an id never stored.
	Item(owner, id string) (Item, bool)
}

// builder collects a conversation from a request's messages or items.
type builder struct {
	opts         RequestOptions
	list         string // "messages" or "input": the name of the list in params
	instructions []string
	msgs         []harmony.Message
	calls        map[string]*toolCall
	pending      []*toolCall // calls made since the last user message, in order
	ncalls       int         // calls made so far: the next call's seq
	resultSeq    map[int]int // index in msgs of each tool result: its call's seq
	prev         int         // items from a previous response, before the request's own
}

type toolCall struct {
	id, name   string // as the API names them
	recipient  string // the harmony recipient, e.g. "functions.get_weather"
	channel    string
	index      int // message or item that made the call
	answeredBy int // message or item that answered it, or -1
	seq        int // the call's place among all the calls
}

func newBuilder(opts *RequestOptions, list string) *builder {
	b := &builder{list: list, calls: map[string]*toolCall{}}
	if opts != nil {
		b.opts = *opts
	}
	return b
}

func (b *builder) param(i int, field string) string {
	if i < b.prev {
		return "previous_response_id"
	}
	i -= b.prev
	if field == "" {
		return fmt.Sprintf("%s[%d]", b.list, i)
	}
	return fmt.Sprintf("%s[%d].%s", b.list, i, field)
}

// instruct adds the text of a system or developer message (or of the
// Responses "instructions") to the developer message's instructions.
func (b *builder) instruct(text string) {
	if text != "" {
		b.instructions = append(b.instructions, text)
	}
}

// user adds a user message; every tool call made before it must have been
// answered.
func (b *builder) user(i int, name, text string) error {
	if err := b.requireResults(i, b.param(i, ""), "before this user message"); err != nil {
		return err
	}
	b.msgs = append(b.msgs, harmony.NewTextMessage(harmony.RoleUser, text).WithName(name))
	return nil
}

// reasoning adds the assistant's chain of thought, on the analysis channel.
func (b *builder) reasoning(name, text string) {
	b.msgs = append(b.msgs, harmony.NewTextMessage(harmony.RoleAssistant, text).
		WithName(name).WithChannel(harmony.ChannelAnalysis))
}

// say adds assistant text: a final answer, or a commentary preamble when
// tool calls follow in the same turn.
func (b *builder) say(name, text string, preamble bool) {
	ch := harmony.ChannelFinal
	if preamble {
		ch = harmony.ChannelCommentary
	}
	b.msgs = append(b.msgs, harmony.NewTextMessage(harmony.RoleAssistant, text).WithName(name).WithChannel(ch))
}

// call adds a tool call made by the assistant in message or item i.
func (b *builder) call(i int, param, author, id, name, args string) error {
	if id == "" {
		return reqErr(i, param+"."+b.idField(), ErrInvalidToolCall, "a tool call needs an id")
	}
	if !toolname.ValidDotted(name, 64) {
		return reqErr(i, param+"."+b.nameField(), ErrInvalidToolCall,
			"invalid function name %q: it must match ^[a-zA-Z0-9_-]{1,64}$, or be such names joined by dots for a built-in tool", clip(name))
	}
	if c, ok := b.calls[id]; ok {
		return reqErr(i, param+"."+b.idField(), ErrDuplicateToolCallID,
			"%q is already the id of the call to %s in %s", clip(id), clip(c.name), b.param(c.index, ""))
	}
	recipient, channel, ctype := b.route(name)
	m := harmony.NewTextMessage(harmony.RoleAssistant, args).
		WithName(author).WithRecipient(recipient).WithChannel(channel).WithContentType(ctype)
	if !b.opts.ReferenceHeaders && author == "" && ctype != "" {
		// The header as gpt-oss writes its calls (the harmony guide's
		// function-calling example), not the reference renderer's
		// "assistant to=functions.f<|channel|>commentary <|constrain|>json":
		// the model reads its own call as it sampled it, and a server's
		// prefix cache of the previous turn still matches.
		f := msghdr.Fields{Author: string(harmony.RoleAssistant), Recipient: recipient, Channel: channel, ContentType: ctype}
		m.Header = f.Text(msghdr.GptOss)
	}
	c := &toolCall{id: id, name: name, recipient: recipient, channel: channel, index: i, answeredBy: -1, seq: b.ncalls}
	b.ncalls++
	b.calls[id] = c
	b.pending = append(b.pending, c)
	b.msgs = append(b.msgs, m)
	return nil
}

func (b *builder) idField() string {
	if b.list == "input" {
		return "call_id"
	}
	return "id"
}

func (b *builder) nameField() string {
	if b.list == "input" {
		return "name"
	}
	return "function.name"
}

// result adds the result of the call with the given id, given in message or
// item i. name, when set, must be the called function's name.
func (b *builder) result(i int, idParam, id, nameParam, name, text string) error {
	if id == "" {
		return reqErr(i, idParam, ErrInvalidRequest, "a tool result needs the id of the call it answers")
	}
	c, ok := b.calls[id]
	if !ok {
		return reqErr(i, idParam, ErrUnknownToolCallID, "no earlier tool call has the id %q", clip(id))
	}
	if c.answeredBy >= 0 {
		return reqErr(i, idParam, ErrToolCallAlreadyAnswered,
			"the call %q (%s, %s) was already answered by %s", clip(id), clip(c.name), b.param(c.index, ""), b.param(c.answeredBy, ""))
	}
	if name != "" && name != c.name {
		return reqErr(i, nameParam, ErrInvalidName,
			"%q is not the name of the function called by %q (%q)", clip(name), clip(id), clip(c.name))
	}
	c.answeredBy = i
	if b.resultSeq == nil {
		b.resultSeq = map[int]int{}
	}
	b.resultSeq[len(b.msgs)] = c.seq
	b.msgs = append(b.msgs, harmony.NewToolMessage(c.recipient, text).
		WithRecipient(string(harmony.RoleAssistant)).WithChannel(c.channel))
	return nil
}

// orderResults sorts each run of consecutive tool results in msgs into the
// order of their calls, whatever order the client sent them in: the prompt
// names a result by its function only, so the model pairs parallel calls to
// one function with their results by position, while the chat protocol
// pairs them by id and lets the results come in any order.
func (b *builder) orderResults() {
	for i := 0; i < len(b.msgs); i++ {
		if _, ok := b.resultSeq[i]; !ok {
			continue
		}
		j := i + 1
		for ; j < len(b.msgs); j++ {
			if _, ok := b.resultSeq[j]; !ok {
				break
			}
		}
		if j-i > 1 {
			run := make([]int, j-i) // indices into msgs, sorted by their calls' seq
			for k := range run {
				run[k] = i + k
			}
			slices.SortStableFunc(run, func(x, y int) int { return b.resultSeq[x] - b.resultSeq[y] })
			sorted := make([]harmony.Message, len(run))
			for k, at := range run {
				sorted[k] = b.msgs[at]
			}
			copy(b.msgs[i:j], sorted)
		}
		i = j
	}
}

// requireResults checks that every call made since the last user message has
// a result.
func (b *builder) requireResults(i int, param, where string) error {
	var missing []string
	for _, c := range b.pending {
		if c.answeredBy < 0 {
			missing = append(missing, fmt.Sprintf("%q (%s, %s)", clip(c.id), clip(c.name), b.param(c.index, "")))
		}
	}
	b.pending = b.pending[:0]
	if len(missing) > 0 {
		return reqErr(i, param, ErrMissingToolResult, "no result for %s %s", strings.Join(missing, ", "), where)
	}
	return nil
}

// route returns the harmony recipient, channel and content type of a call to
// the function the API names name. Plain names are functions
// ("functions.NAME", commentary, JSON); a name with a dot is taken as a full
// recipient ("functions.x" included), so that a call this package reported
// for a recipient outside "functions" comes back unchanged; the built-in
// tools, when declared, are called on the analysis channel.
func (b *builder) route(name string) (recipient, channel, contentType string) {
	const json = msghdr.JSONContentType
	switch {
	case b.opts.PythonTool && name == "python", b.opts.BrowserTool && strings.HasPrefix(name, "browser."):
		return name, harmony.ChannelAnalysis, ""
	case strings.Contains(name, "."):
		return name, harmony.ChannelCommentary, json
	}
	return toolname.FunctionRecipient(name), harmony.ChannelCommentary, json
}

// settings is what a request says besides its messages: the reasoning
// effort, the function tools to declare and the response formats.
type settings struct {
	effort  harmony.ReasoningEffort
	tools   []harmony.ToolDescription
	formats []harmony.ResponseFormat
}

// build is the loop of both Conversation methods: it adds the n messages or
// items of the request with add, checks that every tool call has its result
// at the end, and assembles the conversation.
func (b *builder) build(s settings, n int, add func(i int) error) (harmony.Conversation, error) {
	for i := range n {
		if err := add(i); err != nil {
			return harmony.Conversation{}, b.inRequest(err)
		}
	}
	if err := b.requireResults(n, b.list, "at the end of the "+b.list); err != nil {
		return harmony.Conversation{}, b.inRequest(err)
	}
	return b.conversation(s), nil
}

// inRequest makes a RequestError's index one into the request's own list,
// as param already names it: items from a previous response come before
// it (and are at -1).
func (b *builder) inRequest(err error) error {
	if re, ok := err.(*RequestError); ok && re.MessageIndex >= 0 {
		re.MessageIndex = max(re.MessageIndex-b.prev, -1)
	}
	return err
}

// conversation assembles the system message, the developer message and the
// messages, applying the chain-of-thought rules.
func (b *builder) conversation(s settings) harmony.Conversation {
	effort := s.effort
	sys := harmony.NewSystemContent()
	if b.opts.ModelIdentity != "" {
		sys = sys.WithModelIdentity(b.opts.ModelIdentity)
	}
	if b.opts.KnowledgeCutoff != "" {
		sys = sys.WithKnowledgeCutoff(b.opts.KnowledgeCutoff)
	}
	sys = sys.WithConversationStartDate(b.opts.ConversationStartDate)
	if effort == "" {
		effort = b.opts.ReasoningEffort
		if e, ok := parseEffort(string(effort)); ok {
			effort = e // "low" as well as harmony's "Low"
		}
	}
	if effort != "" {
		sys = sys.WithReasoningEffort(effort)
	}
	if b.opts.BrowserTool {
		sys = sys.WithTools(harmony.BrowserNamespace())
	}
	if b.opts.PythonTool {
		sys = sys.WithTools(harmony.PythonNamespace())
	}
	msgs := make([]harmony.Message, 0, len(b.msgs)+2)
	msgs = append(msgs, harmony.NewSystemMessage(sys))

	dev := harmony.NewDeveloperContent().WithInstructions(strings.Join(b.instructions, "\n\n"))
	if len(s.tools) > 0 {
		dev = dev.WithFunctionTools(s.tools...)
	}
	for _, f := range s.formats {
		dev = dev.WithResponseFormat(f)
	}
	if dev.Instructions != "" || len(dev.Tools) > 0 || len(dev.ResponseFormats) > 0 {
		msgs = append(msgs, harmony.NewDeveloperMessage(dev))
	}
	b.orderResults()
	rest := b.msgs
	if !b.opts.KeepReasoning {
		// The guides' rule, as harmony applies it: once the model has
		// answered, its earlier chain of thought is dropped, while the
		// reasoning of a turn still in its tool calls is kept.
		// Conversations from this package are pruned already, so every
		// harmony.RenderOptions.Reasoning renders them the same.
		rest = harmony.ReasoningGuide.Apply(rest)
	}
	return harmony.NewConversation(append(msgs, rest...)...)
}

// parseEffort reads a reasoning effort as the APIs spell it.
func parseEffort(s string) (harmony.ReasoningEffort, bool) {
	switch strings.ToLower(s) {
	case "low", "minimal":
		return harmony.EffortLow, true
	case "medium":
		return harmony.EffortMedium, true
	case "high":
		return harmony.EffortHigh, true
	}
	return "", false
}

// effort reads the effort of a request, which may give it in two places.
func effort(a, aParam, b, bParam string) (harmony.ReasoningEffort, error) {
	var out harmony.ReasoningEffort
	for _, f := range []struct{ v, param string }{{a, aParam}, {b, bParam}} {
		if f.v == "" {
			continue
		}
		e, ok := parseEffort(f.v)
		if !ok {
			return "", reqErr(-1, f.param, ErrInvalidRequest, "reasoning effort %q is not low, medium or high", clip(f.v))
		}
		if out != "" && e != out {
			return "", reqErr(-1, f.param, ErrInvalidRequest, "%s %q disagrees with %s %q", bParam, clip(b), aParam, clip(a))
		}
		out = e
	}
	return out, nil
}

// checkLimit refuses a token limit below 1.
func checkLimit(param string, limit *int) error {
	if limit != nil && *limit < 1 {
		return reqErr(-1, param, ErrInvalidRequest, "%s is %d: it must be at least 1", param, *limit)
	}
	return nil
}

// toolDef is one entry of a request's "tools", as both APIs have it: its
// type and, for a function tool, the function (nil when the entry has
// none), whose fields are at the JSON path fnParam ("tools[0].function."
// in Chat Completions, "tools[0]." in the Responses API).
type toolDef struct {
	typ     string
	fn      *FunctionDefinition
	fnParam string
}

// functionTools validates the tools and tool_choice, and returns the tools
// to declare in the prompt.
func functionTools(defs []toolDef, choice *ToolChoice) ([]harmony.ToolDescription, error) {
	seen := map[string]bool{}
	out := make([]harmony.ToolDescription, 0, len(defs))
	for i, t := range defs {
		p := fmt.Sprintf("tools[%d].", i)
		if t.typ != "function" {
			return nil, reqErr(-1, p+"type", ErrInvalidTool, "tool type %q is not supported (only \"function\")", clip(t.typ))
		}
		if t.fn == nil {
			return nil, reqErr(-1, p+"function", ErrInvalidTool, "a function tool needs a function")
		}
		d, err := functionTool(t.fnParam, t.fn, seen)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	declare, err := toolChoice(choice, "tool_choice", seen)
	if err != nil || !declare {
		return nil, err
	}
	return out, nil
}

// declaredFunctions returns the names of the functions the model may call
// after a request with these tools and tool_choice, for
// ResponseOptions.Functions: none for "none", the one named by a named choice,
// else every function tool. It is never nil: a request declares its tools,
// even when it has none.
func declaredFunctions(defs []toolDef, choice *ToolChoice) []string {
	names := []string{}
	switch {
	case choice != nil && choice.Mode == "none":
	case choice != nil && choice.Mode == "function":
		names = append(names, choice.Function)
	default:
		for _, t := range defs {
			if t.typ == "function" && t.fn != nil {
				names = append(names, t.fn.Name)
			}
		}
	}
	return names
}

// functionTool validates one function tool definition, whose fields are at
// the JSON path prefix param.
func functionTool(param string, f *FunctionDefinition, seen map[string]bool) (harmony.ToolDescription, error) {
	name := f.Name
	if !toolname.Valid(name, 64) {
		return harmony.ToolDescription{}, reqErr(-1, param+"name", ErrInvalidTool,
			"function name %q does not match ^[a-zA-Z0-9_-]{1,64}$", clip(name))
	}
	if seen[name] {
		return harmony.ToolDescription{}, reqErr(-1, param+"name", ErrInvalidTool, "a second function named %q", name)
	}
	seen[name] = true
	p := bytes.TrimSpace(f.Parameters)
	if len(p) == 0 || bytes.Equal(p, []byte("null")) {
		p = nil
	} else if p[0] != '{' {
		return harmony.ToolDescription{}, reqErr(-1, param+"parameters", ErrInvalidTool,
			"the parameters of %q must be a JSON Schema object", name)
	} else if err := renderable(p); err != nil {
		return harmony.ToolDescription{}, reqErr(-1, param+"parameters", ErrInvalidTool,
			"the parameters of %q cannot be rendered: %v", name, err)
	}
	return harmony.NewToolDescription(name, f.Description, json.RawMessage(p)), nil
}

// toolChoice validates tool_choice against the tools and reports whether the
// tools are declared in the prompt: "none" leaves them out, so that the model
// is not told about functions it may not call.
func toolChoice(tc *ToolChoice, param string, seen map[string]bool) (declare bool, err error) {
	if tc == nil {
		return true, nil
	}
	switch tc.Mode {
	case "", "auto", "required":
		return true, nil
	case "none":
		return false, nil
	case "function":
		if !seen[tc.Function] {
			return false, reqErr(-1, param, ErrInvalidRequest, "tool_choice names %q, which is not among the tools", clip(tc.Function))
		}
		return true, nil
	}
	return false, reqErr(-1, param, ErrInvalidRequest, "tool_choice %q is not auto, none, required or a function", clip(tc.Mode))
}

// outputFormat reads a response format of type typ, at the JSON path param
// and called what in errors. "text" and "json_object" change nothing in the
// prompt, as with OpenAI's own models (which require the messages to ask
// for JSON): enforcing json_object is the sampler's business. "json_schema"
// is schema, at the JSON path schemaParam; nil is an error.
func outputFormat(param, what, typ string, schema *JSONSchema, schemaParam string) ([]harmony.ResponseFormat, error) {
	switch typ {
	case "text", "json_object":
		return nil, nil
	case "json_schema":
		if schema == nil {
			return nil, reqErr(-1, schemaParam, ErrInvalidRequest, "a json_schema response format needs json_schema")
		}
		if schema.Name == "" {
			return nil, reqErr(-1, schemaParam+".name", ErrInvalidRequest, "a json_schema response format needs a name")
		}
		s := bytes.TrimSpace(schema.Schema)
		if len(s) == 0 || s[0] != '{' {
			return nil, reqErr(-1, schemaParam+".schema", ErrInvalidRequest, "a json_schema response format needs a JSON Schema object")
		}
		if err := renderable(s); err != nil {
			return nil, reqErr(-1, schemaParam+".schema", ErrInvalidRequest, "the schema cannot be rendered: %v", err)
		}
		return []harmony.ResponseFormat{{Name: schema.Name, Description: schema.Description, Schema: json.RawMessage(s)}}, nil
	}
	return nil, reqErr(-1, param+".type", ErrInvalidRequest, "%s %q is not text, json_object or json_schema", what, clip(typ))
}

// schemaFormat returns the one format outputFormat read, or nil for none
// or an error: the format a response's bare text may answer in.
func schemaFormat(formats []harmony.ResponseFormat, err error) *harmony.ResponseFormat {
	if err != nil || len(formats) != 1 {
		return nil
	}
	return &formats[0]
}

// flatten concatenates the text of the content parts of message or item i,
// at its field field, with no separator. read returns a part's type and,
// when the part is text, its text and true. A part of type imageType is
// RequestOptions.ImagePlaceholder, or an error when that is empty; any
// other part is an error, unsupported its message (a format for the type).
func flatten[P any](b *builder, i int, field string, parts []P, read func(*P) (typ, text string, ok bool), imageType, unsupported string) (string, error) {
	var sb strings.Builder
	for j := range parts {
		typ, text, ok := read(&parts[j])
		switch {
		case ok:
			sb.WriteString(text)
		case typ == imageType:
			if b.opts.ImagePlaceholder == "" {
				return "", reqErr(i, b.param(i, fmt.Sprintf("%s[%d]", field, j)), ErrUnsupportedRequestContent,
					"gpt-oss reads text only: an image part needs RequestOptions.ImagePlaceholder")
			}
			sb.WriteString(b.opts.ImagePlaceholder)
		default:
			return "", reqErr(i, b.param(i, fmt.Sprintf("%s[%d].type", field, j)), ErrUnsupportedRequestContent, unsupported, clip(typ))
		}
	}
	return sb.String(), nil
}

// renderable checks a schema as harmony's renderer reads it (the JSON
// parser behind its TypeScript and its # Response Formats section), so that
// a request whose schema the prompt cannot carry (invalid UTF-8 in a key,
// nesting past 127 levels, a number out of range) is the client's error
// here and never a failure to render later.
func renderable(schema []byte) error {
	_, err := ojson.Parse(schema)
	return err
}
