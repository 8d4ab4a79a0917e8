package harmony

// This file renders the tools of system and developer messages as the
// TypeScript-like declarations the model was trained on: one namespace per
// tool group, one "type NAME = (_: PARAMS) => any;" per tool. The JSON
// Schema walk itself lives in internal/schemats, which works on the raw JSON
// so that the order of properties in the schema is the order in the prompt.

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/go-harmony/harmony/internal/schemanorm"
	"github.com/go-harmony/harmony/internal/schemats"
)

// sortedKeys appends the keys of m to dst, sorted.
func sortedKeys(dst []string, m map[string]ToolNamespaceConfig) []string {
	for k := range m {
		dst = append(dst, k)
	}
	slices.Sort(dst)
	return dst
}

// writeToolsSection writes the "# Tools" section for the namespaces of tools,
// in sorted order of their keys.
func (e *Encoding) writeToolsSection(b *textBuilder, tools map[string]ToolNamespaceConfig) error {
	b.writeString("# Tools")
	var keys [8]string
	for _, key := range sortedKeys(keys[:0], tools) {
		ns := tools[key]
		hasTools := len(ns.Tools) > 0
		b.writeString("\n\n## ")
		b.writeString(ns.Name)
		b.writeString("\n")
		if hasTools {
			b.writeLines(ns.Description, "\n// ", "")
		} else {
			b.writeLines(ns.Description, "\n", "")
		}
		if !hasTools {
			continue
		}
		b.writeString("\nnamespace ")
		b.writeString(ns.Name)
		b.writeString(" {\n")
		for _, tool := range ns.Tools {
			b.writeLines(tool.Description, "\n// ", "")
			b.writeString("\ntype ")
			b.writeString(tool.Name)
			if !schemanorm.NoParameters(tool.Parameters) {
				ts, err := e.typeScript(bytes.TrimSpace(tool.Parameters))
				if err != nil {
					return fmt.Errorf("%w: tool %q in namespace %q: %v", ErrInvalidSchema, tool.Name, ns.Name, err)
				}
				b.writeString(" = (_: ")
				b.writeString(ts)
				b.writeString(") => any;\n")
			} else {
				b.writeString(" = () => any;\n")
			}
		}
		b.writeString("\n} // namespace ")
		b.writeString(ns.Name)
	}
	return nil
}

// typeScript returns the TypeScript of a tool's parameter schema, from the
// encoding's cache when the same schema was rendered before: a server
// declares the same tools on every request.
func (e *Encoding) typeScript(schema []byte) (string, error) {
	if ts, ok := e.typeScripts.GetBytes(schema); ok {
		return ts, nil
	}
	ts, err := schemats.TypeScript(schema)
	if err != nil {
		return "", err
	}
	e.typeScripts.Put(string(schema), ts, int64(len(ts)))
	return ts, nil
}
