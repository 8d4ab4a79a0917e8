package openaicompat

import "encoding/json"

// ResponsesRequest is the body of POST /v1/responses. As with
// [ChatCompletionRequest], fields this package does not read are carried
// for the server, [DecodeRequest] refuses a parameter OpenAI's API does
// not have and a value this package cannot honour, and unknown item and
// part types are errors.
type ResponsesRequest struct {
	Model string `json:"model"`
	// Input is a string (one user message) or a list of items.
	Input        ResponsesInput `json:"input"`
	Instructions string         `json:"instructions,omitempty"`

	Tools             []ResponsesTool      `json:"tools,omitempty"`
	ToolChoice        *ResponsesToolChoice `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool                `json:"parallel_tool_calls,omitempty"`

	Reasoning *ResponsesReasoning `json:"reasoning,omitempty"`
	Text      *ResponsesText      `json:"text,omitempty"`

	Stream          bool `json:"stream,omitempty"`
	MaxOutputTokens *int `json:"max_output_tokens,omitempty"`
	// Include asks for more in the output; "reasoning.encrypted_content"
	// seals each reasoning item's text into its encrypted_content (see
	// [ReasoningSealer]), which needs RequestOptions.Sealer.
	Include []string `json:"include,omitempty"`

	// Truncation is what to do with a conversation longer than the
	// server's context window (RequestOptions.ContextWindow): "auto"
	// elides old tool output and drops old turns to fit, "disabled" (the
	// API's default) fails with a 400 context_length_exceeded. Empty
	// means RequestOptions.Truncation; any other value is an error.
	Truncation string `json:"truncation,omitempty"`

	// PreviousResponseID continues the conversation of a stored response
	// (RequestOptions.Responses); without a store it is refused with
	// [ErrUnsupportedParameter].
	PreviousResponseID string `json:"previous_response_id,omitempty"`

	// Passed through for the server.
	Temperature *float64          `json:"temperature,omitempty"`
	TopP        *float64          `json:"top_p,omitempty"`
	Store       *bool             `json:"store,omitempty"`
	User        string            `json:"user,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

// ResponseOptions returns the [ResponseOptions] the request asks for: its
// model, the functions it lets the model call (Functions, by its tools and
// tool_choice), its json_schema text.format (ResponseFormat), and the
// parameters the response repeats (Echo: its instructions, tools,
// tool_choice, temperature, top_p, parallel_tool_calls and metadata,
// sharing the request's slices and map). The caller adds ids, the time,
// the built-in tools it enabled (Namespaces), Strict, the Prefill it
// rendered and the rest.
func (r *ResponsesRequest) ResponseOptions() ResponseOptions {
	return ResponseOptions{Model: r.Model, Functions: declaredFunctions(r.toolDefs()), SealReasoning: r.sealsReasoning(), ResponseFormat: schemaFormat(r.formats()), Echo: ResponseEcho{
		Instructions:        r.Instructions,
		Tools:               r.Tools,
		ToolChoice:          r.ToolChoice,
		Temperature:         r.Temperature,
		TopP:                r.TopP,
		NoParallelToolCalls: r.ParallelToolCalls != nil && !*r.ParallelToolCalls,
		Metadata:            r.Metadata,
	}}
}

// ResponsesInput is a request's input: a string, or a list of items.
type ResponsesInput struct {
	Text  string // the string form, when Items is nil
	Items []Item // the list form; non-nil means a list, even empty
}

// MarshalJSON writes a string, or the list when Items is non-nil.
func (in ResponsesInput) MarshalJSON() ([]byte, error) { return marshalStringOrList(in.Text, in.Items) }

// UnmarshalJSON reads a string or a list of items.
func (in *ResponsesInput) UnmarshalJSON(data []byte) error {
	return unmarshalStringOrList(data, &in.Text, &in.Items, "input must be a string or a list of items")
}

// ResponsesTool is one entry of a request's "tools": only Type "function"
// is supported. Parameters keeps its key order; Strict is for the sampler.
type ResponsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// MarshalJSON writes a function tool as a response repeats it: "name",
// "parameters" and "strict" always (null when absent), "description" when
// set. Other types are written field by field, the empty ones left out.
func (t ResponsesTool) MarshalJSON() ([]byte, error) {
	if t.Type != "function" {
		type plain ResponsesTool
		return marshalJSON(plain(t))
	}
	var w objWriter
	w.str("type", t.Type)
	w.str("name", t.Name)
	if t.Description != "" {
		w.str("description", t.Description)
	}
	if len(t.Parameters) > 0 {
		w.field("parameters", t.Parameters)
	} else {
		w.raw("parameters", "null")
	}
	switch {
	case t.Strict == nil:
		w.raw("strict", "null")
	case *t.Strict:
		w.raw("strict", "true")
	default:
		w.raw("strict", "false")
	}
	return w.bytes()
}

// ResponsesToolChoice is a Responses request's "tool_choice": Mode "auto",
// "none" or "required", or a named function (Mode "function", Name set).
type ResponsesToolChoice struct {
	Mode string
	Name string
}

// MarshalJSON writes the mode as a string, or {"type":"function","name":…}.
func (t ResponsesToolChoice) MarshalJSON() ([]byte, error) {
	if t.Mode != "function" {
		return marshalJSON(t.Mode)
	}
	return marshalJSON(struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}{"function", t.Name})
}

// UnmarshalJSON reads a mode string or {"type":"function","name":…}.
func (t *ResponsesToolChoice) UnmarshalJSON(data []byte) error {
	var tc ToolChoice
	if err := tc.UnmarshalJSON(data); err != nil {
		return err
	}
	*t = ResponsesToolChoice{Mode: tc.Mode, Name: tc.Function}
	return nil
}

// ResponsesReasoning is a Responses request's "reasoning". Summary is
// accepted and ignored: gpt-oss writes no summaries.
type ResponsesReasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

// ResponsesText is a Responses request's "text" parameter.
type ResponsesText struct {
	Format *TextFormat `json:"format,omitempty"`
}

// TextFormat is the output format: Type "text", "json_object" or
// "json_schema" (with Name, Schema and an optional Description).
type TextFormat struct {
	Type        string          `json:"type"`
	Name        string          `json:"name,omitempty"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// Item is an input or output item of the Responses API. The same type reads
// a request's input and writes a response's output, so that a client can
// send the output of one response back as input. Types:
//
//   - "message": Role and Content (a string, or parts of type
//     "input_text", "output_text", "refusal", "input_image").
//   - "reasoning": Content (parts of type "reasoning_text") and Summary
//     (parts of type "summary_text").
//   - "function_call": CallID, Name and Arguments (JSON text).
//   - "function_call_output": CallID and Output.
type Item struct {
	Type             string       `json:"type,omitempty"`
	ID               string       `json:"id,omitempty"`
	Status           string       `json:"status,omitempty"`
	Role             string       `json:"role,omitempty"`
	Content          *ItemContent `json:"content,omitempty"`
	Summary          []ItemPart   `json:"summary,omitempty"`
	EncryptedContent string       `json:"encrypted_content,omitempty"`
	CallID           string       `json:"call_id,omitempty"`
	Name             string       `json:"name,omitempty"`
	Arguments        string       `json:"arguments,omitempty"`
	Output           *ItemContent `json:"output,omitempty"`
}

// MarshalJSON writes the fields of the item's type in the order OpenAI
// writes them, the required ones even when empty (a reasoning item's
// "summary": [], a function call's "arguments": ""), and no others: an
// item decoded from a request keeps the fields of other types a client
// sent, which are left out. An item without a type is a message when it
// has a role, else an item reference, as a request reads them; an item
// of a type this package does not know is written with every field set.
func (it Item) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("type", it.Type)
	if it.ID != "" {
		w.str("id", it.ID)
	}
	typ := it.Type
	if typ == "" && it.Role != "" {
		typ = "message"
	}
	switch typ {
	case "", "item_reference":
	case "message":
		if it.Status != "" {
			w.str("status", it.Status)
		}
		w.str("role", it.Role)
		if it.Content != nil {
			w.field("content", it.Content)
		} else {
			w.raw("content", "[]")
		}
	case "reasoning":
		if it.Summary != nil {
			w.field("summary", it.Summary)
		} else {
			w.raw("summary", "[]")
		}
		if it.Content != nil {
			w.field("content", it.Content)
		}
		if it.EncryptedContent != "" {
			w.str("encrypted_content", it.EncryptedContent)
		}
		if it.Status != "" {
			w.str("status", it.Status)
		}
	case "function_call":
		w.str("call_id", it.CallID)
		w.str("name", it.Name)
		w.str("arguments", it.Arguments)
		if it.Status != "" {
			w.str("status", it.Status)
		}
	case "function_call_output":
		w.str("call_id", it.CallID)
		if it.Output != nil {
			w.field("output", it.Output)
		} else {
			w.str("output", "")
		}
		if it.Status != "" {
			w.str("status", it.Status)
		}
	default:
		type plain Item
		p := plain(it)
		p.Type, p.ID = "", ""
		w.merge(p)
	}
	return w.bytes()
}

// ItemContent is the content of a message or reasoning item, or the output
// of a function call: a string, or a list of parts.
type ItemContent struct {
	Text  string     // the string form, when Parts is nil
	Parts []ItemPart // the list form; non-nil means a list, even empty
}

// MarshalJSON writes a string, or the list of parts when Parts is non-nil.
func (c ItemContent) MarshalJSON() ([]byte, error) { return marshalStringOrList(c.Text, c.Parts) }

// UnmarshalJSON reads a string or a list of parts.
func (c *ItemContent) UnmarshalJSON(data []byte) error {
	return unmarshalStringOrList(data, &c.Text, &c.Parts, "content must be a string or a list of parts")
}

// ItemPart is one typed part of an item's content: "input_text",
// "output_text", "reasoning_text", "summary_text" (Text), "refusal"
// (Refusal), "input_image" (ImageURL or FileID, Detail), "input_file"
// (FileID). Annotations and Logprobs belong to output_text parts; this
// package writes neither, and a server that has them sets them as raw JSON.
type ItemPart struct {
	Type        string            `json:"type"`
	Text        string            `json:"text,omitempty"`
	Refusal     string            `json:"refusal,omitempty"`
	ImageURL    string            `json:"image_url,omitempty"`
	FileID      string            `json:"file_id,omitempty"`
	Detail      string            `json:"detail,omitempty"`
	Annotations []json.RawMessage `json:"annotations,omitempty"`
	Logprobs    []json.RawMessage `json:"logprobs,omitempty"`
}

// MarshalJSON writes the fields of the part's type and no others; a text
// part's "text" is written even when empty, and an output_text part's
// "annotations" and "logprobs" as [] when it has none. A part of a type
// this package does not know is written with every field set.
func (p ItemPart) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("type", p.Type)
	switch p.Type {
	case "input_text", "output_text", "reasoning_text", "summary_text", "text":
		w.str("text", p.Text)
		if p.Type == "output_text" {
			w.list("annotations", p.Annotations)
			w.list("logprobs", p.Logprobs)
		}
	case "refusal":
		w.str("refusal", p.Refusal)
	case "input_image":
		for _, f := range []struct{ k, v string }{{"image_url", p.ImageURL}, {"file_id", p.FileID}, {"detail", p.Detail}} {
			if f.v != "" {
				w.str(f.k, f.v)
			}
		}
	default:
		for _, f := range []struct{ k, v string }{{"text", p.Text}, {"refusal", p.Refusal},
			{"image_url", p.ImageURL}, {"file_id", p.FileID}, {"detail", p.Detail}} {
			if f.v != "" {
				w.str(f.k, f.v)
			}
		}
		if p.Annotations != nil {
			w.field("annotations", p.Annotations)
		}
		if p.Logprobs != nil {
			w.field("logprobs", p.Logprobs)
		}
	}
	return w.bytes()
}

// Response is the Responses API's response object. Besides its own fields
// it repeats the request's parameters (Instructions to Metadata, from
// [ResponseOptions].Echo), as the API does; the fields OpenAI requires are
// always written, null when nil (Error, IncompleteDetails, Instructions).
// The Responses of one conversion share the Echo's Tools and Metadata and
// one Instructions string: treat them as read-only.
type Response struct {
	ID                string              `json:"id"`
	Object            string              `json:"object"` // "response"
	CreatedAt         int64               `json:"created_at"`
	Status            string              `json:"status"` // "in_progress", "completed", "incomplete" or "failed"
	Error             *ResponseError      `json:"error"`  // when "failed"
	IncompleteDetails *IncompleteDetails  `json:"incomplete_details"`
	Instructions      *string             `json:"instructions"`
	Model             string              `json:"model"`
	Output            []Item              `json:"output"`
	ParallelToolCalls bool                `json:"parallel_tool_calls"`
	Temperature       float64             `json:"temperature"`
	ToolChoice        ResponsesToolChoice `json:"tool_choice"`
	Tools             []ResponsesTool     `json:"tools"`
	TopP              float64             `json:"top_p"`
	Usage             *ResponsesUsage     `json:"usage,omitempty"`
	Metadata          map[string]string   `json:"metadata"`
}

// ResponseEcho holds the request parameters that a [Response] repeats. Each
// field is what the request set; the zero value of each is OpenAI's
// default, and the response reports that default: instructions null, tools
// [], tool_choice "auto", temperature 1, top_p 1, parallel_tool_calls true,
// metadata {}. A server whose sampler has other defaults sets its own.
type ResponseEcho struct {
	// Instructions is the request's instructions; "" is written as null.
	Instructions string
	// Tools are the request's tools, written as they were given; nil is [].
	Tools []ResponsesTool
	// ToolChoice is the request's tool_choice; nil is "auto".
	ToolChoice *ResponsesToolChoice
	// Temperature and TopP are the request's sampling parameters; nil is 1.
	Temperature, TopP *float64
	// NoParallelToolCalls says the request set parallel_tool_calls to
	// false (the default is true).
	NoParallelToolCalls bool
	// Metadata is the request's metadata; nil is {}.
	Metadata map[string]string
}

// ResponseError says why a response failed: Code is one of the codes
// OpenAI's schema allows, "server_error" for anything but a [*RequestError]
// ("invalid_prompt"); the "error" event before the failed response has the
// error's own code. Message describes the error.
type ResponseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// IncompleteDetails says why a response is incomplete: "max_output_tokens".
type IncompleteDetails struct {
	Reason string `json:"reason"`
}

// ResponsesUsage is the token usage of a response. Both breakdowns are
// always written, as the API requires, zero when unknown.
type ResponsesUsage struct {
	InputTokens         int                 `json:"input_tokens"`
	InputTokensDetails  InputTokensDetails  `json:"input_tokens_details"`
	OutputTokens        int                 `json:"output_tokens"`
	OutputTokensDetails OutputTokensDetails `json:"output_tokens_details"`
	TotalTokens         int                 `json:"total_tokens"`
}

// InputTokensDetails breaks the input tokens down: those read from a
// prompt cache (Sampling.CachedTokens), and those written to it (0: this
// package does not know them).
type InputTokensDetails struct {
	CachedTokens     int `json:"cached_tokens"`
	CacheWriteTokens int `json:"cache_write_tokens"`
}

// OutputTokensDetails breaks the output tokens down.
type OutputTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// ResponseEvent is one server-sent event of a streamed response. Which
// fields it has depends on its Type:
//
//   - "response.created", "response.in_progress", "response.completed",
//     "response.incomplete", "response.failed": Response.
//   - "response.output_item.added", "response.output_item.done":
//     OutputIndex, Item.
//   - "response.content_part.added", "response.content_part.done": ItemID,
//     OutputIndex, ContentIndex, Part.
//   - "response.reasoning_text.delta", "response.output_text.delta": ItemID,
//     OutputIndex, ContentIndex, Delta; output_text also Logprobs ([] when
//     nil).
//   - "response.reasoning_text.done", "response.output_text.done": ItemID,
//     OutputIndex, ContentIndex, Text; output_text also Logprobs.
//   - "response.function_call_arguments.delta": ItemID, OutputIndex, Delta.
//   - "response.function_call_arguments.done": ItemID, OutputIndex, Name,
//     Arguments.
//   - "error": Error, whose code, message and param are written at the top
//     level of the event, as the API does.
//
// Every event has a SequenceNumber, counting from 0.
type ResponseEvent struct {
	Type           string
	SequenceNumber int
	Response       *Response
	OutputIndex    int
	ContentIndex   int
	ItemID         string
	Item           *Item
	Part           *ItemPart
	Delta          string
	Text           string
	Name           string
	Arguments      string
	// Logprobs are the log probabilities of an output_text delta or done
	// event as raw JSON; this package computes none.
	Logprobs []json.RawMessage
	Error    *ErrorObject
}

// MarshalJSON writes the fields of the event's type (see [ResponseEvent]).
func (e ResponseEvent) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("type", e.Type)
	if e.Type == "error" {
		var obj ErrorObject
		if e.Error != nil {
			obj = *e.Error
		}
		w.strOrNull("code", obj.Code)
		w.str("message", obj.Message)
		w.strOrNull("param", obj.Param)
		w.int("sequence_number", e.SequenceNumber)
		return w.bytes()
	}
	w.int("sequence_number", e.SequenceNumber)
	switch e.Type {
	case "response.created", "response.in_progress", "response.completed", "response.incomplete", "response.failed":
		w.field("response", e.Response)
	case "response.output_item.added", "response.output_item.done":
		w.int("output_index", e.OutputIndex)
		w.field("item", e.Item)
	case "response.function_call_arguments.delta":
		w.str("item_id", e.ItemID)
		w.int("output_index", e.OutputIndex)
		w.str("delta", e.Delta)
	case "response.function_call_arguments.done":
		w.str("item_id", e.ItemID)
		w.int("output_index", e.OutputIndex)
		w.str("name", e.Name)
		w.str("arguments", e.Arguments)
	default:
		w.str("item_id", e.ItemID)
		w.int("output_index", e.OutputIndex)
		w.int("content_index", e.ContentIndex)
		switch e.Type {
		case "response.content_part.added", "response.content_part.done":
			w.field("part", e.Part)
		case "response.reasoning_text.delta", "response.output_text.delta":
			w.str("delta", e.Delta)
		default:
			w.str("text", e.Text)
		}
		if e.Type == "response.output_text.delta" || e.Type == "response.output_text.done" {
			w.list("logprobs", e.Logprobs)
		}
	}
	return w.bytes()
}
