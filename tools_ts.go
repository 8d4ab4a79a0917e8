package harmony

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
	"github.com/go-harmony/harmony/internal/schemats"
)

// This file renders tool namespaces as the TypeScript-like declarations the
// model was trained on. The JSON Schema walk itself lives in
// internal/schemats, which works on the raw JSON so that the order of
// properties in the schema is the order in the prompt.

// writeToolsSection writes the "# Tools" section for the namespaces of tools,
// in sorted order of their keys.
func writeToolsSection(b *strings.Builder, tools map[string]ToolNamespaceConfig) error {
	b.WriteString("# Tools")
	for _, key := range sortedKeys(tools) {
		ns := tools[key]
		hasTools := len(ns.Tools) > 0
		b.WriteString("\n\n## ")
		b.WriteString(ns.Name)
		b.WriteString("\n")
		for _, line := range rustLines(ns.Description) {
			b.WriteByte('\n')
			if hasTools {
				b.WriteString("// ")
			}
			b.WriteString(line)
		}
		if !hasTools {
			continue
		}
		b.WriteString("\nnamespace ")
		b.WriteString(ns.Name)
		b.WriteString(" {\n")
		for _, tool := range ns.Tools {
			for _, line := range rustLines(tool.Description) {
				b.WriteString("\n// ")
				b.WriteString(line)
			}
			b.WriteString("\ntype ")
			b.WriteString(tool.Name)
			if params := bytes.TrimSpace(tool.Parameters); len(params) > 0 && !bytes.Equal(params, []byte("null")) {
				ts, err := typeScript(params)
				if err != nil {
					return fmt.Errorf("%w: tool %q in namespace %q: %v", ErrInvalidSchema, tool.Name, ns.Name, err)
				}
				b.WriteString(" = (_: ")
				b.WriteString(ts)
				b.WriteString(") => any;\n")
			} else {
				b.WriteString(" = () => any;\n")
			}
		}
		b.WriteString("\n} // namespace ")
		b.WriteString(ns.Name)
	}
	return nil
}

// writeResponseFormats writes the "# Response Formats" section: per format,
// "## name", its description as // lines, and the schema as compact JSON in
// its own key order.
func writeResponseFormats(b *strings.Builder, formats []ResponseFormat) error {
	b.WriteString("# Response Formats")
	for _, f := range formats {
		v, err := ojson.Parse(f.Schema)
		if err != nil {
			return fmt.Errorf("%w: response format %q: %v", ErrInvalidSchema, f.Name, err)
		}
		b.WriteString("\n\n## ")
		b.WriteString(f.Name)
		b.WriteString("\n\n")
		for _, line := range rustLines(f.Description) {
			b.WriteString("// ")
			b.WriteString(line)
			b.WriteByte('\n')
		}
		b.Write(ojson.AppendCompact(nil, v))
	}
	return nil
}

// typeScripts caches the TypeScript of tool parameter schemas by their raw
// JSON: a server declares the same tools on every request.
var typeScripts cache[string]

func typeScript(schema []byte) (string, error) {
	if ts, ok := typeScripts.get(string(schema)); ok {
		return ts, nil
	}
	ts, err := schemats.TypeScript(schema)
	if err != nil {
		return "", err
	}
	typeScripts.put(string(schema), ts, len(schema)+len(ts))
	return ts, nil
}

// rustLines splits s into lines as Rust's str::lines does: at "\n", with one
// "\r" before it removed, and no empty last line after a final "\n".
func rustLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if t, ok := strings.CutSuffix(l, "\n"); ok {
			t, _ = strings.CutSuffix(t, "\r")
			lines[i] = t
		}
	}
	return lines
}

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
