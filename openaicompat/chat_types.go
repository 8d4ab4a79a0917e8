package openaicompat

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/go-harmony/harmony/internal/jsonw"
)

// ChatCompletionRequest is the body of POST /v1/chat/completions. Fields this
// package does not read (temperature, stop, …) are carried for the server's
// sampler. [DecodeRequest] refuses a parameter OpenAI's API does not have
// (Reasoning, OpenRouter's, is the one addition), and a value of one this
// package cannot honour; unknown roles and content part types are errors,
// never skipped.
type ChatCompletionRequest struct {
	Model    string        `json:"model"`
	Messages []ChatMessage `json:"messages"`

	Tools             []ChatTool  `json:"tools,omitempty"`
	ToolChoice        *ToolChoice `json:"tool_choice,omitempty"`
	ParallelToolCalls *bool       `json:"parallel_tool_calls,omitempty"`

	// ReasoningEffort is "low", "medium" or "high" ("minimal" is read as
	// "low"). Reasoning.Effort, OpenRouter's spelling, is read too; the two
	// must agree when both are set.
	ReasoningEffort string           `json:"reasoning_effort,omitempty"`
	Reasoning       *ReasoningConfig `json:"reasoning,omitempty"`

	ResponseFormat *ResponseFormat `json:"response_format,omitempty"`

	Stream        bool           `json:"stream,omitempty"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`

	MaxTokens           *int `json:"max_tokens,omitempty"`
	MaxCompletionTokens *int `json:"max_completion_tokens,omitempty"`

	// Sampling parameters, passed through for the server.
	Temperature      *float64          `json:"temperature,omitempty"`
	TopP             *float64          `json:"top_p,omitempty"`
	FrequencyPenalty *float64          `json:"frequency_penalty,omitempty"`
	PresencePenalty  *float64          `json:"presence_penalty,omitempty"`
	Seed             *int64            `json:"seed,omitempty"`
	Stop             StringList        `json:"stop,omitempty"`
	N                *int              `json:"n,omitempty"`
	User             string            `json:"user,omitempty"`
	Metadata         map[string]string `json:"metadata,omitempty"`
}

// MaxOutputTokens returns the request's limit on sampled tokens:
// max_completion_tokens, else max_tokens, else 0 (no limit).
func (r *ChatCompletionRequest) MaxOutputTokens() int {
	switch {
	case r.MaxCompletionTokens != nil:
		return *r.MaxCompletionTokens
	case r.MaxTokens != nil:
		return *r.MaxTokens
	}
	return 0
}

// ResponseOptions returns the [ResponseOptions] the request asks for: its
// model, reasoning.exclude, stream_options.include_usage, the functions
// it lets the model call (Functions, by its tools and tool_choice), and its
// json_schema response_format (ResponseFormat). The caller adds ids, the
// time, the built-in tools it enabled (Namespaces), Strict, the Prefill it
// rendered and the rest.
func (r *ChatCompletionRequest) ResponseOptions() ResponseOptions {
	o := ResponseOptions{Model: r.Model, Functions: declaredFunctions(r.toolDefs(), r.ToolChoice)}
	if r.Reasoning != nil {
		o.ExcludeReasoning = r.Reasoning.Exclude
	}
	if r.StreamOptions != nil {
		o.StreamUsage = r.StreamOptions.IncludeUsage
	}
	o.ResponseFormat = schemaFormat(r.formats())
	return o
}

// ReasoningConfig is OpenRouter's reasoning parameter: the effort, and
// whether the response leaves the reasoning out.
type ReasoningConfig struct {
	Effort  string `json:"effort,omitempty"`
	Exclude bool   `json:"exclude,omitempty"`
}

// StreamOptions are the options of a streamed response.
type StreamOptions struct {
	// IncludeUsage asks for a last chunk with the usage and no choices.
	IncludeUsage bool `json:"include_usage,omitempty"`
}

// StringList is a list of strings that may be written as a single string,
// as "stop" may.
type StringList []string

// UnmarshalJSON reads a string or a list of strings.
func (l *StringList) UnmarshalJSON(data []byte) error {
	if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '"' {
		var s string
		if err := unquote(d, &s); err != nil {
			return err
		}
		*l = StringList{s}
		return nil
	}
	var list []string
	if n := countElements(data); n > 0 {
		list = make([]string, 0, n) // DecodeRequest's bound counts on it
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	*l = list
	return nil
}

// ChatMessage is one message of a request's "messages", and the assistant
// message of a response. Role is "system", "developer", "user", "assistant"
// or "tool".
type ChatMessage struct {
	Role string `json:"role"`
	// Content is a string or a list of parts; nil is JSON null (an assistant
	// message that only calls tools).
	Content *Content `json:"content"`
	// Name tells participants of the same role apart; it must match
	// ^[a-zA-Z0-9_-]+$. On a tool message it is the name of the function
	// that produced the result.
	Name string `json:"name,omitempty"`
	// Reasoning is the assistant's raw chain of thought (the analysis
	// channel), as OpenRouter names it; ReasoningContent is the alias some
	// servers use. A request may set either (or both, equal).
	Reasoning        string `json:"reasoning,omitempty"`
	ReasoningContent string `json:"reasoning_content,omitempty"`
	// Refusal is an assistant's refusal text.
	Refusal   string     `json:"refusal,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is, on a tool message, the id of the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// MarshalJSON writes the fields that are set, in the order of the struct,
// and two the API requires even when empty: "content" (null when nil) and,
// on an assistant message, "refusal" (null when "").
func (m ChatMessage) MarshalJSON() ([]byte, error) {
	var w objWriter
	w.str("role", m.Role)
	switch {
	case m.Content == nil:
		w.raw("content", "null")
	case m.Content.Parts == nil:
		w.str("content", m.Content.Text)
	default:
		w.field("content", m.Content.Parts)
	}
	for _, f := range []struct{ k, v string }{{"name", m.Name}, {"reasoning", m.Reasoning},
		{"reasoning_content", m.ReasoningContent}, {"refusal", m.Refusal}} {
		switch {
		case f.v != "":
			w.str(f.k, f.v)
		case f.k == "refusal" && m.Role == "assistant":
			w.raw(f.k, "null")
		}
	}
	if len(m.ToolCalls) > 0 {
		w.key("tool_calls")
		for i, tc := range m.ToolCalls {
			if i == 0 {
				w.b = append(w.b, '[')
			} else {
				w.b = append(w.b, ',')
			}
			call := objWriter{b: w.b}
			call.str("id", tc.ID)
			call.str("type", tc.Type)
			call.key("function")
			fn := objWriter{b: call.b}
			fn.str("name", tc.Function.Name)
			fn.str("arguments", tc.Function.Arguments)
			call.b = fn.end()
			w.b = call.end()
		}
		w.b = append(w.b, ']')
	}
	if m.ToolCallID != "" {
		w.str("tool_call_id", m.ToolCallID)
	}
	return w.bytes()
}

// Content is a message's content as the wire writes it: a string, or a list
// of typed parts.
type Content struct {
	Text  string        // the string form, when Parts is nil
	Parts []ContentPart // the list form; non-nil means a list, even empty
}

// TextContent returns content written as the string s.
func TextContent(s string) *Content { return &Content{Text: s} }

// MarshalJSON writes a string, or the list of parts when Parts is non-nil.
func (c Content) MarshalJSON() ([]byte, error) { return marshalStringOrList(c.Text, c.Parts) }

// UnmarshalJSON reads a string or a list of parts.
func (c *Content) UnmarshalJSON(data []byte) error {
	return unmarshalStringOrList(data, &c.Text, &c.Parts, "content must be a string or a list of parts")
}

// marshalStringOrList writes the wire's "a string, or a list" values: the
// list when it is non-nil, else the string.
func marshalStringOrList[T any](text string, list []T) ([]byte, error) {
	if list != nil {
		return marshalJSON(list)
	}
	return marshalJSON(text)
}

// unmarshalStringOrList reads a string into *text, or a list into *list
// (non-nil, even when empty), clearing the other; msg is the error for
// anything else.
func unmarshalStringOrList[T any](data []byte, text *string, list *[]T, msg string) error {
	*text, *list = "", nil
	if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '"' {
		return unquote(d, text)
	}
	var l []T
	if n := countElements(data); n > 0 {
		l = make([]T, 0, n) // DecodeRequest's bound counts on it
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return errors.New(msg)
	}
	if l == nil {
		l = []T{}
	}
	*list = l
	return nil
}

// marshalJSON is json.Marshal without HTML escaping (see jsonw.Marshal).
func marshalJSON(v any) ([]byte, error) { return jsonw.Marshal(v) }

// ContentPart is one typed part of a message's content: "text" (Text),
// "refusal" (Refusal) or "image_url" (ImageURL). Other types ("input_audio",
// "file", …) are read so that they can be refused by name.
type ContentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	Refusal  string    `json:"refusal,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL is the image of an "image_url" part.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// ToolCall is a call the assistant made.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"` // "function"
	Function FunctionCall `json:"function"`
}

// FunctionCall is the function and arguments of a [ToolCall]. Arguments is
// the JSON text the model wrote, kept byte for byte.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ChatTool is one entry of a request's "tools".
type ChatTool struct {
	Type     string              `json:"type"` // "function"
	Function *FunctionDefinition `json:"function,omitempty"`
}

// FunctionDefinition describes a function the model may call. Parameters is
// its JSON Schema, kept as raw JSON so that its key order survives into the
// rendered TypeScript; absent or null means no parameters. Strict is for the
// server's sampler; it is not rendered.
type FunctionDefinition struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// ToolChoice is a request's "tool_choice": Mode "auto", "none" or
// "required", or a named function (Mode "function", Function set).
type ToolChoice struct {
	Mode     string
	Function string
}

// MarshalJSON writes the mode as a string, or {"type":"function",
// "function":{"name":…}}.
func (t ToolChoice) MarshalJSON() ([]byte, error) {
	if t.Mode != "function" {
		return marshalJSON(t.Mode)
	}
	var v struct {
		Type     string `json:"type"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	v.Type = "function"
	v.Function.Name = t.Function
	return marshalJSON(v)
}

// UnmarshalJSON reads a mode string, Chat Completions' {"type":"function",
// "function":{"name":…}}, or the Responses API's {"type":"function",
// "name":…}.
func (t *ToolChoice) UnmarshalJSON(data []byte) error {
	if d := bytes.TrimSpace(data); len(d) > 0 && d[0] == '"' {
		*t = ToolChoice{}
		return unquote(d, &t.Mode)
	}
	var v struct {
		Type     string `json:"type"`
		Name     string `json:"name"`
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*t = ToolChoice{Mode: v.Type, Function: v.Name}
	if v.Function != nil {
		t.Function = v.Function.Name
	}
	return nil
}

// ResponseFormat is a request's "response_format": Type "text",
// "json_object" or "json_schema" (with JSONSchema).
type ResponseFormat struct {
	Type       string      `json:"type"`
	JSONSchema *JSONSchema `json:"json_schema,omitempty"`
}

// JSONSchema is a named JSON Schema for structured output. Schema keeps its
// key order. Strict is for the server's sampler; it is not rendered.
type JSONSchema struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// FinishReason is why a choice ended: "stop", "tool_calls" or "length". The
// empty value is written as JSON null (a chunk before the last).
type FinishReason string

// The finish reasons.
const (
	FinishStop      FinishReason = "stop"
	FinishToolCalls FinishReason = "tool_calls"
	FinishLength    FinishReason = "length"
)

// MarshalJSON writes the reason, or null when it is empty.
func (f FinishReason) MarshalJSON() ([]byte, error) {
	if f == "" {
		return []byte("null"), nil
	}
	return marshalJSON(string(f))
}

// ChatCompletionResponse is the body of a non-streamed chat completion.
type ChatCompletionResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"` // "chat.completion"
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []ChatChoice `json:"choices"`
	Usage   *ChatUsage   `json:"usage,omitempty"`
}

// ChatChoice is one choice of a [ChatCompletionResponse]. Logprobs, the
// choice's log probabilities as raw JSON, is always written: this package
// computes none and leaves it nil, which is JSON null.
type ChatChoice struct {
	Index        int             `json:"index"`
	Message      ChatMessage     `json:"message"`
	Logprobs     json.RawMessage `json:"logprobs"`
	FinishReason FinishReason    `json:"finish_reason"`
}

// ChatUsage is the token usage of a chat completion.
type ChatUsage struct {
	PromptTokens            int                      `json:"prompt_tokens"`
	CompletionTokens        int                      `json:"completion_tokens"`
	TotalTokens             int                      `json:"total_tokens"`
	PromptTokensDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionTokensDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
}

// PromptTokensDetails breaks the prompt tokens down.
type PromptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

// CompletionTokensDetails breaks the completion tokens down.
type CompletionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// ChatCompletionChunk is one server-sent event of a streamed chat completion.
type ChatCompletionChunk struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"` // "chat.completion.chunk"
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []ChunkChoice `json:"choices"`
	// Usage is set on the last chunk (whose Choices is empty) when the request
	// asked for it with stream_options.include_usage.
	Usage *ChatUsage `json:"usage,omitempty"`
}

// ChunkChoice is the one choice of a [ChatCompletionChunk]. (It has no
// "logprobs": the API does not require it on chunks, and this package
// computes none.)
type ChunkChoice struct {
	Index        int          `json:"index"`
	Delta        ChatDelta    `json:"delta"`
	FinishReason FinishReason `json:"finish_reason"`
}

// ChatDelta is what a chunk adds to the message. Concatenating the deltas
// of a stream gives the message of the non-streamed response.
type ChatDelta struct {
	Role             string          `json:"role,omitempty"`
	Content          string          `json:"content,omitempty"`
	Reasoning        string          `json:"reasoning,omitempty"`
	ReasoningContent string          `json:"reasoning_content,omitempty"`
	ToolCalls        []ToolCallDelta `json:"tool_calls,omitempty"`
}

// ToolCallDelta is a piece of a tool call. The first delta of a call has its
// Index, ID, Type and Function.Name, with empty arguments; the following ones
// only the Index and a piece of Function.Arguments.
type ToolCallDelta struct {
	Index    int               `json:"index"`
	ID       string            `json:"id,omitempty"`
	Type     string            `json:"type,omitempty"`
	Function FunctionCallDelta `json:"function"`
}

// FunctionCallDelta is a piece of a function call; Arguments is always
// written, even empty.
type FunctionCallDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}
