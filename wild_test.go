package harmony

import (
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/wild"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWildOutputs parses every real model output of testdata/wild in
// recovery mode, as a server would, and checks that the messages give at
// least what the best peer server extracted: the same answer, the same tool
// calls, its reasoning. openaicompat's TestWildOutputs checks the same
// through the Chat Completions converter.
func TestWildOutputs(t *testing.T) {
	enc := mustEncoding(t)
	cases, err := wild.Load("testdata/wild")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(cases), 60, "cases in the corpus")
	for _, c := range cases {
		t.Run(c.File, func(t *testing.T) {
			toks := wildTokens(enc, c)
			msgs, err := enc.ParseCompletion(toks, Role(c.Start), &ParseOptions{Mode: ParseRecover})
			require.NoError(t, err)
			assert.NoError(t, wild.AtLeast(extract(msgs, c), c.Best), "%s (%s)", c.ID, c.Kind)
		})
	}
}

func wildTokens(enc *Encoding, c wild.Case) []Token {
	if c.Text != nil {
		return enc.EncodeWithSpecialTokens(*c.Text)
	}
	toks := make([]Token, len(c.Tokens))
	for i, t := range c.Tokens {
		toks[i] = Token(t)
	}
	return toks
}

// extract is what a server answers from parsed messages, by the rules of
// openaicompat's lenient conversion (an independent statement of them, as
// this package cannot import openaicompat): the final answer and preambles
// are content, analysis is reasoning, a message to functions.NAME or a
// built-in tool is a call (declared, when the case declares tools), any
// other message with a recipient is reasoning, other roles are dropped.
func extract(msgs []Message, c wild.Case) wild.Extraction {
	declared := c.Tools != nil || c.Builtins != nil
	var content, reasoning []string
	var out wild.Extraction
	for _, m := range msgs {
		switch {
		case m.Role != RoleAssistant:
		case m.Recipient != "":
			name, fn := strings.CutPrefix(m.Recipient, "functions.")
			ns, _, _ := strings.Cut(m.Recipient, ".")
			if !declared || fn && contains(c.Tools, name) || !fn && contains(c.Builtins, ns) {
				out.ToolCalls = append(out.ToolCalls, wild.ToolCall{Name: name, Arguments: m.Text()})
			} else {
				reasoning = append(reasoning, m.Text())
			}
		case m.Channel == ChannelAnalysis:
			reasoning = append(reasoning, m.Text())
		default:
			content = append(content, m.Text())
		}
	}
	out.Content = strings.Join(content, "\n\n")
	out.Reasoning = strings.Join(reasoning, "\n\n")
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
