package harmony

// This file writes the text of system and developer messages as the
// reference does: identity, dates, reasoning effort, tools and channels for a
// system message; instructions, tools and response formats for a developer
// message. The tools themselves are rendered by tools_ts.go.

import (
	"fmt"
	"strings"

	"github.com/go-harmony/harmony/internal/ojson"
)

// systemText is the text of a system message: sections joined by a blank
// line — identity and dates, reasoning effort, tools, channels.
// It appends to dst, which the caller reuses, so that a warm render (its text
// found in the cache) allocates nothing.
func (e *Encoding) systemText(dst []byte, s *SystemContent, functionTools bool) ([]byte, error) {
	b := &textBuilder{dst}
	sep := func() {
		if b.len() > 0 {
			b.writeString("\n\n")
		}
	}
	top := false
	line := func(prefix, v string) {
		if v == "" {
			return
		}
		if top {
			b.writeByte('\n')
		}
		top = true
		b.writeString(prefix)
		b.writeString(v)
	}
	line("", s.ModelIdentity)
	line("Knowledge cutoff: ", s.KnowledgeCutoff)
	line("Current date: ", s.ConversationStartDate)
	if s.ReasoningEffort != "" {
		var effort string
		switch s.ReasoningEffort {
		case EffortLow:
			effort = "low"
		case EffortMedium:
			effort = "medium"
		case EffortHigh:
			effort = "high"
		default:
			return dst, fmt.Errorf("%w: reasoning effort %q", ErrUnsupportedContent, s.ReasoningEffort)
		}
		sep()
		b.writeString("Reasoning: ")
		b.writeString(effort)
	}
	if len(s.Tools) > 0 {
		sep()
		if err := e.writeToolsSection(b, s.Tools); err != nil {
			return dst, err
		}
	}
	if cc := s.ChannelConfig; cc != nil && len(cc.ValidChannels) > 0 {
		sep()
		b.writeString("# Valid channels: ")
		for i, c := range cc.ValidChannels {
			if i > 0 {
				b.writeString(", ")
			}
			b.writeString(c)
		}
		b.writeByte('.')
		if cc.ChannelRequired {
			b.writeString(" Channel must be included for every message.")
		}
		if functionTools {
			b.writeString("\nCalls to these tools must go to the commentary channel: 'functions'.")
		}
	}
	return b.buf, nil
}

// developerText appends the text of a developer message: "# Instructions"
// and the instructions, then the tools, then the response formats.
func (e *Encoding) developerText(dst []byte, d *DeveloperContent) ([]byte, error) {
	b := &textBuilder{dst}
	if d.Instructions != "" {
		b.writeString("# Instructions\n\n")
		b.writeString(d.Instructions)
	}
	if len(d.Tools) > 0 {
		if b.len() > 0 {
			b.writeString("\n\n")
		}
		if err := e.writeToolsSection(b, d.Tools); err != nil {
			return dst, err
		}
	}
	if len(d.ResponseFormats) > 0 {
		if b.len() > 0 {
			b.writeString("\n\n")
		}
		if err := writeResponseFormats(b, d.ResponseFormats); err != nil {
			return dst, err
		}
	}
	return b.buf, nil
}

// textBuilder appends text to a byte slice.
type textBuilder struct{ buf []byte }

func (b *textBuilder) writeString(s string) { b.buf = append(b.buf, s...) }
func (b *textBuilder) writeByte(c byte)     { b.buf = append(b.buf, c) }
func (b *textBuilder) len() int             { return len(b.buf) }

// writeLines writes each line of s, as Rust's str::lines splits it, between
// prefix and suffix: lines end at "\n", one "\r" before it is removed, and
// a final "\n" starts no empty last line.
func (b *textBuilder) writeLines(s, prefix, suffix string) {
	for s != "" {
		line, rest, found := strings.Cut(s, "\n")
		if found {
			line = strings.TrimSuffix(line, "\r")
		}
		b.writeString(prefix)
		b.writeString(line)
		b.writeString(suffix)
		s = rest
	}
}

// writeResponseFormats writes the "# Response Formats" section: per format,
// "## name", its description as // lines, and the schema as compact JSON in
// its own key order.
func writeResponseFormats(b *textBuilder, formats []ResponseFormat) error {
	b.writeString("# Response Formats")
	for _, f := range formats {
		v, err := ojson.Parse(f.Schema)
		if err != nil {
			return fmt.Errorf("%w: response format %q: %v", ErrInvalidSchema, f.Name, err)
		}
		b.writeString("\n\n## ")
		b.writeString(f.Name)
		b.writeString("\n\n")
		b.writeLines(f.Description, "// ", "\n")
		b.buf = ojson.AppendCompact(b.buf, v)
	}
	return nil
}
