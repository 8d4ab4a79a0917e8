package constrain

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/testsupport/golden"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// envelopeTestTools are the tools of TestEnvelopeHeadersPinned: names
// that are words of the header (json, commentary, to, functions, analysis,
// final, constrain), one character long, dotted, long enough to take
// several tokens.
func envelopeTestTools() []EnvelopeTool {
	var tools []EnvelopeTool
	for _, name := range []string{
		"get_weather", "a", "json", "commentary", "to", "functions", "x.y-z_1", "_", "-", "9",
		"get_current_weather_in_a_city_by_its_name_and_country_code_xyz", strings.Repeat("ab", 32),
		"search.web", "Tool_Name-2", "analysis", "final", "constrain",
	} {
		tools = append(tools, EnvelopeTool{Name: name})
	}
	return tools
}

// kindNames names the kinds of header in the golden file.
var kindNames = map[uint8]string{kAnalysis: "analysis", kPreamble: "preamble", kFinal: "final", kCall: "call"}

// envelopeGolden returns the golden text of e's header trie and the
// tokens between messages: e.next's tokens, then each header from the trie's root
// (<|message|> included) in the trie's order, its kind, its tool (index and
// name) for a call, its tokens, and their text.
func envelopeGolden(t *testing.T, enc *harmony.Encoding, tools []EnvelopeTool, e *Envelope) string {
	var b strings.Builder
	writeTokens := func(toks []harmony.Token) {
		for _, tok := range toks {
			fmt.Fprintf(&b, " %d", tok)
		}
		text, err := enc.Decode(toks)
		require.NoError(t, err)
		fmt.Fprintf(&b, " %q\n", text)
	}
	b.WriteString("next")
	writeTokens(e.next)
	for _, seq := range trieHeaders(e) {
		nd := e.nodes[seq.leaf]
		b.WriteString(kindNames[nd.leaf])
		if nd.leaf == kCall {
			fmt.Fprintf(&b, " %d %q", nd.tool, tools[nd.tool].Name)
		}
		writeTokens(seq.toks)
	}
	return b.String()
}

// TestEnvelopeHeadersPinned pins the envelope's headers, for each tool
// choice, to testdata/envelope_headers.txt; checks that each node of the
// trie is of the kinds of the headers through it; and that the headers are
// the tokens harmony renders for the same headers written in gpt-oss's
// order.
func TestEnvelopeHeadersPinned(t *testing.T) {
	enc := testenc.Encoding(t)
	tools := envelopeTestTools()
	tests := []struct {
		name string
		opts EnvelopeOptions
	}{
		{"no tools", EnvelopeOptions{}},
		{"auto", EnvelopeOptions{Tools: tools}},
		{"none", EnvelopeOptions{Tools: tools, ToolChoice: ToolChoiceNone}},
		{"required", EnvelopeOptions{Tools: tools, ToolChoice: ToolChoiceRequired}},
		{"named", EnvelopeOptions{Tools: tools, Function: "x.y-z_1"}},
		{"one tool", EnvelopeOptions{Tools: tools[:1]}},
	}
	var out strings.Builder
	for _, tt := range tests {
		e, err := NewEnvelope(enc, &tt.opts)
		require.NoError(t, err, tt.name)
		got := envelopeGolden(t, enc, tt.opts.Tools, e)
		fmt.Fprintf(&out, "== %s\n%s", tt.name, got)

		// Each node is of the kinds of the headers through it.
		var kinds func(at int32) uint8
		kinds = func(at int32) uint8 {
			k := e.nodes[at].leaf
			for _, kid := range e.nodes[at].kids {
				k |= kinds(kid)
			}
			if k != e.nodes[at].kinds {
				require.Failf(t, "node kinds", "%s: node %d is of kinds %b, its headers %b", tt.name, at, e.nodes[at].kinds, k)
			}
			return k
		}
		kinds(0)

		// Each header, after "<|start|>assistant", is what harmony
		// renders for a message whose Header is that header written
		// in gpt-oss's order.
		for _, seq := range trieHeaders(e) {
			nd := e.nodes[seq.leaf]
			m := harmony.NewTextMessage(harmony.RoleAssistant, "x")
			switch nd.leaf {
			case kAnalysis:
				m = m.WithChannel(harmony.ChannelAnalysis)
			case kPreamble:
				m = m.WithChannel(harmony.ChannelCommentary)
			case kFinal:
				m = m.WithChannel(harmony.ChannelFinal)
			case kCall:
				m = m.WithChannel(harmony.ChannelCommentary).
					WithRecipient("functions." + tt.opts.Tools[nd.tool].Name).
					WithContentType(msghdr.JSONContentType)
			}
			f := msghdr.Fields{Author: string(m.Role), Recipient: m.Recipient, Channel: m.Channel, ContentType: m.ContentType}
			m.Header = f.Text(msghdr.GptOss)
			rendered, err := enc.RenderMessage(m, nil)
			require.NoError(t, err)
			want := append(slices.Clone(e.next), seq.toks...)
			assert.Equal(t, want, rendered[:min(len(want), len(rendered))], "%s: header %q", tt.name, m.Header)
		}
	}
	golden.Check(t, filepath.Join("testdata", "envelope_headers.txt"), []byte(out.String()))
}

type trieHeader struct {
	leaf int32
	toks []harmony.Token
}

// trieHeaders returns the token sequences from the trie's root to each
// complete header, <|message|> included.
func trieHeaders(e *Envelope) []trieHeader {
	var out []trieHeader
	var walk func(at int32, path []harmony.Token)
	walk = func(at int32, path []harmony.Token) {
		if e.nodes[at].leaf != 0 {
			out = append(out, trieHeader{at, slices.Clone(path)})
		}
		for _, k := range e.nodes[at].kids {
			walk(k, append(path, e.nodes[k].tok))
		}
	}
	walk(0, nil)
	return out
}
