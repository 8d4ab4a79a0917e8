package constrain

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/testsupport/testenc"
)

// handWrittenTrie builds the header trie and the tokens between messages
// as NewEnvelope built them before its headers came from internal/msghdr:
// the special tokens spelled out, and EncodeOrdinary of each text between
// them. choice is the tool choice NewEnvelope settles on for opts.
func handWrittenTrie(enc *harmony.Encoding, choice ToolChoice, opts *EnvelopeOptions) ([]hnode, []harmony.Token) {
	e := &Envelope{nodes: []hnode{{}}}
	text := func(s string) []harmony.Token { return enc.EncodeOrdinary(s) }
	header := func(kind uint8, tool int32, parts ...[]harmony.Token) {
		at := int32(0)
		e.nodes[0].kinds |= kind
		for _, p := range parts {
			for _, tok := range p {
				at = e.child(at, tok)
				e.nodes[at].kinds |= kind
			}
		}
		e.nodes[at].leaf, e.nodes[at].tool = kind, tool
	}
	ch, msg := []harmony.Token{harmony.TokenChannel}, []harmony.Token{harmony.TokenMessage}
	header(kAnalysis, -1, ch, text("analysis"), msg)
	if choice != ToolChoiceNone {
		header(kPreamble, -1, ch, text("commentary"), msg)
		for i, t := range opts.Tools {
			if opts.Function != "" && t.Name != opts.Function {
				continue
			}
			header(kCall, int32(i), ch, text("commentary to=functions."+t.Name+" "),
				[]harmony.Token{harmony.TokenConstrain}, text("json"), msg)
		}
	}
	if choice != ToolChoiceRequired {
		header(kFinal, -1, ch, text("final"), msg)
	}
	return e.nodes, append([]harmony.Token{harmony.TokenStart}, text("assistant")...)
}

// TestEnvelopeHeadersPinned checks that the envelope's headers, built from
// internal/msghdr, are token for token those it spelled by hand before,
// and the tokens harmony renders for the same headers written in gpt-oss's
// order.
func TestEnvelopeHeadersPinned(t *testing.T) {
	enc := testenc.Encoding(t)
	var tools []EnvelopeTool
	for _, name := range []string{
		"get_weather", "a", "json", "commentary", "to", "functions", "x.y-z_1", "_", "-", "9",
		"get_current_weather_in_a_city_by_its_name_and_country_code_xyz", strings.Repeat("ab", 32),
		"search.web", "Tool_Name-2", "analysis", "final", "constrain",
	} {
		tools = append(tools, EnvelopeTool{Name: name})
	}
	tests := []struct {
		name   string
		opts   EnvelopeOptions
		choice ToolChoice
	}{
		{"no tools", EnvelopeOptions{}, ToolChoiceNone},
		{"auto", EnvelopeOptions{Tools: tools}, ToolChoiceAuto},
		{"none", EnvelopeOptions{Tools: tools, ToolChoice: ToolChoiceNone}, ToolChoiceNone},
		{"required", EnvelopeOptions{Tools: tools, ToolChoice: ToolChoiceRequired}, ToolChoiceRequired},
		{"named", EnvelopeOptions{Tools: tools, Function: "x.y-z_1"}, ToolChoiceRequired},
		{"one tool", EnvelopeOptions{Tools: tools[:1]}, ToolChoiceAuto},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewEnvelope(enc, &tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			nodes, next := handWrittenTrie(enc, tt.choice, &tt.opts)
			if !reflect.DeepEqual(e.nodes, nodes) {
				t.Errorf("header trie differs from the hand-written one:\n got %v\nwant %v", e.nodes, nodes)
			}
			if !slices.Equal(e.next, next) {
				t.Errorf("next = %v, want %v", e.next, next)
			}

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
				if err != nil {
					t.Fatal(err)
				}
				want := append(slices.Clone(e.next), seq.toks...)
				if !slices.Equal(rendered[:min(len(want), len(rendered))], want) {
					t.Errorf("header %q: envelope %v, harmony renders %v", m.Header, want, rendered)
				}
			}
		})
	}
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
