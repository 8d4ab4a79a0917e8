package harmony

// This file holds the structured contents of system and developer messages:
// the settings, the tools (described to the model in tools_ts.go) and the
// built-in tool namespaces with the reference's exact texts.

import (
	"encoding/json"
)

// ReasoningEffort is how hard the model is asked to think; the empty value
// leaves the line out of the system message.
type ReasoningEffort string

// The reasoning efforts, spelled as in the reference's JSON.
const (
	EffortLow    ReasoningEffort = "Low"
	EffortMedium ReasoningEffort = "Medium"
	EffortHigh   ReasoningEffort = "High"
)

// ChannelConfig lists the channels the model may write to. With no channels,
// the system message has no channels line.
type ChannelConfig struct {
	ValidChannels   []string `json:"valid_channels"`
	ChannelRequired bool     `json:"channel_required"`
}

// RequireChannels returns a ChannelConfig that requires one of channels on
// every message.
func RequireChannels(channels ...string) *ChannelConfig {
	return &ChannelConfig{ValidChannels: append([]string(nil), channels...), ChannelRequired: true}
}

// ToolDescription describes one tool. Parameters is its JSON Schema, kept as
// raw JSON so that the order of its keys, which the rendered TypeScript
// follows, survives; nil (or JSON null) means the tool takes no parameters.
type ToolDescription struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// NewToolDescription returns a ToolDescription; parameters may be nil.
func NewToolDescription(name, description string, parameters json.RawMessage) ToolDescription {
	return ToolDescription{Name: name, Description: description, Parameters: parameters}
}

// ToolNamespaceConfig is a namespace of tools, such as "functions", "browser"
// or "python". With tools, its description is rendered as // comments above a
// TypeScript namespace; without, as plain lines.
type ToolNamespaceConfig struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Tools       []ToolDescription `json:"tools"`
}

// SystemContent is the content of a system message. Its zero value renders
// nothing; [NewSystemContent] gives the reference's defaults. Tools are keyed by
// namespace name and rendered in sorted key order.
type SystemContent struct {
	ModelIdentity         string                         `json:"model_identity,omitempty"`
	ReasoningEffort       ReasoningEffort                `json:"reasoning_effort,omitempty"`
	Tools                 map[string]ToolNamespaceConfig `json:"tools,omitempty"`
	ConversationStartDate string                         `json:"conversation_start_date,omitempty"`
	KnowledgeCutoff       string                         `json:"knowledge_cutoff,omitempty"`
	ChannelConfig         *ChannelConfig                 `json:"channel_config,omitempty"`
}

// DefaultModelIdentity is the model identity of [NewSystemContent].
const DefaultModelIdentity = "You are ChatGPT, a large language model trained by OpenAI."

// NewSystemContent returns the reference's default system content: the
// ChatGPT identity, medium reasoning, knowledge cutoff 2024-06, and the
// channels analysis, commentary and final required.
func NewSystemContent() SystemContent {
	return SystemContent{
		ModelIdentity:   DefaultModelIdentity,
		ReasoningEffort: EffortMedium,
		KnowledgeCutoff: "2024-06",
		ChannelConfig:   RequireChannels(ChannelAnalysis, ChannelCommentary, ChannelFinal),
	}
}

// WithModelIdentity returns a copy of s with the model identity set.
func (s SystemContent) WithModelIdentity(identity string) SystemContent {
	s.ModelIdentity = identity
	return s
}

// WithReasoningEffort returns a copy of s with the reasoning effort set.
func (s SystemContent) WithReasoningEffort(effort ReasoningEffort) SystemContent {
	s.ReasoningEffort = effort
	return s
}

// WithConversationStartDate returns a copy of s with the conversation start
// date set (an ISO date such as "2025-06-28").
func (s SystemContent) WithConversationStartDate(date string) SystemContent {
	s.ConversationStartDate = date
	return s
}

// WithKnowledgeCutoff returns a copy of s with the knowledge cutoff set.
func (s SystemContent) WithKnowledgeCutoff(cutoff string) SystemContent {
	s.KnowledgeCutoff = cutoff
	return s
}

// WithChannelConfig returns a copy of s with the channel configuration set.
func (s SystemContent) WithChannelConfig(c *ChannelConfig) SystemContent {
	s.ChannelConfig = c
	return s
}

// WithTools returns a copy of s with the namespace added (or replaced) under
// its name. The Tools map is copied, never modified in place.
func (s SystemContent) WithTools(ns ToolNamespaceConfig) SystemContent {
	s.Tools = withNamespace(s.Tools, ns)
	return s
}

// DeveloperContent is the content of a developer message: instructions,
// tools and response formats. Its zero value renders nothing.
type DeveloperContent struct {
	Instructions string                         `json:"instructions,omitempty"`
	Tools        map[string]ToolNamespaceConfig `json:"tools,omitempty"`
	// ResponseFormats are rendered last, under "# Response Formats", as the
	// harmony guide describes for structured output. The reference (v0.0.8)
	// has no such field; a developer message without response formats renders
	// exactly as it does there.
	ResponseFormats []ResponseFormat `json:"response_formats,omitempty"`
}

// ResponseFormat is a named JSON Schema the final answer should follow
// (structured output). Schema keeps its key order; it is rendered as compact
// JSON in that order.
type ResponseFormat struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Schema      json.RawMessage `json:"schema"`
}

// NewDeveloperContent returns an empty DeveloperContent.
func NewDeveloperContent() DeveloperContent { return DeveloperContent{} }

// WithInstructions returns a copy of d with the instructions set.
func (d DeveloperContent) WithInstructions(instructions string) DeveloperContent {
	d.Instructions = instructions
	return d
}

// WithTools returns a copy of d with the namespace added (or replaced) under
// its name. The Tools map is copied, never modified in place.
func (d DeveloperContent) WithTools(ns ToolNamespaceConfig) DeveloperContent {
	d.Tools = withNamespace(d.Tools, ns)
	return d
}

// WithResponseFormat returns a copy of d with f appended to a copy of its
// response formats.
func (d DeveloperContent) WithResponseFormat(f ResponseFormat) DeveloperContent {
	d.ResponseFormats = append(append(make([]ResponseFormat, 0, len(d.ResponseFormats)+1), d.ResponseFormats...), f)
	return d
}

// WithFunctionTools returns a copy of d with the tools as the "functions"
// namespace, the one the model calls with recipient "functions.NAME".
func (d DeveloperContent) WithFunctionTools(tools ...ToolDescription) DeveloperContent {
	return d.WithTools(ToolNamespaceConfig{Name: "functions", Tools: append([]ToolDescription(nil), tools...)})
}

func withNamespace(m map[string]ToolNamespaceConfig, ns ToolNamespaceConfig) map[string]ToolNamespaceConfig {
	out := make(map[string]ToolNamespaceConfig, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	out[ns.Name] = ns
	return out
}

func (SystemContent) contentType() string    { return "system_content" }
func (DeveloperContent) contentType() string { return "developer_content" }

// BrowserNamespace returns the built-in "browser" tool namespace with the
// reference's exact description and tools (search, open, find).
func BrowserNamespace() ToolNamespaceConfig {
	return ToolNamespaceConfig{
		Name: "browser",
		Description: "Tool for browsing.\n" +
			"The `cursor` appears in brackets before each browsing display: `[{cursor}]`.\n" +
			"Cite information from the tool using the following format:\n" +
			"`【{cursor}†L{line_start}(-L{line_end})?】`, for example: `【6†L9-L11】` or `【8†L3】`.\n" +
			"Do not quote more than 10 words directly from the tool output.\n" +
			"sources=web (default: web)",
		Tools: []ToolDescription{
			{
				Name:        "search",
				Description: "Searches for information related to `query` and displays `topn` results.",
				Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"},"topn":{"type":"number","default":10},"source":{"type":"string"}},"required":["query"]}`),
			},
			{
				Name: "open",
				Description: "Opens the link `id` from the page indicated by `cursor` starting at line number `loc`, showing `num_lines` lines.\n" +
					"Valid link ids are displayed with the formatting: `【{id}†.*】`.\n" +
					"If `cursor` is not provided, the most recent page is implied.\n" +
					"If `id` is a string, it is treated as a fully qualified URL associated with `source`.\n" +
					"If `loc` is not provided, the viewport will be positioned at the beginning of the document or centered on the most relevant passage, if available.\n" +
					"Use this function without `id` to scroll to a new location of an opened page.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"id":{"type":["number","string"],"default":-1},"cursor":{"type":"number","default":-1},"loc":{"type":"number","default":-1},"num_lines":{"type":"number","default":-1},"view_source":{"type":"boolean","default":false},"source":{"type":"string"}}}`),
			},
			{
				Name:        "find",
				Description: "Finds exact matches of `pattern` in the current page, or the page given by `cursor`.",
				Parameters:  json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"},"cursor":{"type":"number","default":-1}},"required":["pattern"]}`),
			},
		},
	}
}

// PythonNamespace returns the built-in "python" tool namespace with the
// reference's exact description. It has no tools: the model writes code as
// the message content, to recipient "python".
func PythonNamespace() ToolNamespaceConfig {
	return ToolNamespaceConfig{
		Name: "python",
		Description: "Use this tool to execute Python code in your chain of thought. The code will not be shown to the user. This tool should be used for internal reasoning, but not for code that is intended to be visible to the user (e.g. when creating plots, tables, or files).\n\n" +
			"When you send a message containing Python code to python, it will be executed in a stateful Jupyter notebook environment. python will respond with the output of the execution or time out after 120.0 seconds. The drive at '/mnt/data' can be used to save and persist user files. Internet access for this session is UNKNOWN. Depends on the cluster.",
		Tools: []ToolDescription{},
	}
}
