package harmony

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzRenderParsed checks that rendering never refuses a message the
// parser produced with KeepHeaders: whatever tokens (from bytes, as
// FuzzParse makes them) or text (special tokens spelled out) a model
// samples, in every mode (recovery with tools declared or not) and with the
// role told or not, the messages parsed render, each alone and all as a
// conversation. The reference's reading of
// a malformed header can give fields the renderer refuses (a recipient
// "<|constrain|>json", a channel "to=x"); with KeepHeaders the parser keeps
// the written form that says them (header.go, keepForm). Without
// KeepHeaders such messages are refused as the renderer refuses them today:
// only with ErrInvalidHeader. (A completion told to start inside a tool's
// message is left out: its header has no tool name to write.)
func FuzzRenderParsed(f *testing.F) {
	f.Add([]byte("<|start|>assistant<|channel|>final <|constrain|>json<|message|>{\"a\": 1}<|return|>"))
	f.Add([]byte("<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>"))
	f.Add([]byte("<|start|>assistant<|channel|>to=x<|message|>hi<|end|><|start|>to=functions.f<|channel|>analysis<|message|><|end|>"))
	f.Add([]byte(":alice<|channel|>final<|message|>x<|end|>"))
	f.Add([]byte("<|channel|>commentary to=container.exec <|constrain|>json<|message|>{}<|call|><|start|>assistant to=get_weather<|channel|>commentary json<|message|>{}<|call|>"))
	f.Add([]byte{0, 1, 0, 5, 0x10, 0x20, 0, 2, 0, 6, 0x41, 0, 0, 3, 0})
	enc := mustEncoding(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, toks := range [][]Token{tokensFromBytes(data), enc.EncodeWithSpecialTokens(string(data))} {
			for _, role := range []Role{"", RoleAssistant, RoleUser} {
				for _, opts := range []ParseOptions{{}, {Mode: ParseLenient}, {Mode: ParseRecover}, {Mode: ParseRecover, Functions: []string{"get_weather", "f", "Web Search"}, Namespaces: []string{"container"}}} {
					mode := opts.Mode
					for _, keep := range []bool{true, false} {
						opts.KeepHeaders = keep
						msgs, err := enc.ParseCompletion(toks, role, &opts)
						if err != nil {
							continue
						}
						for i, m := range msgs {
							_, err := enc.RenderMessage(m, nil)
							if keep {
								require.NoError(t, err, "role %q, %s, KeepHeaders: message %d %#v", role, mode, i, m)
							} else if err != nil {
								require.True(t, errors.Is(err, ErrInvalidHeader), "role %q, %s: message %d %#v: %v", role, mode, i, m, err)
							}
						}
						if keep {
							_, err = enc.RenderConversation(NewConversation(msgs...), &RenderOptions{Reasoning: ReasoningKeepAll})
							require.NoError(t, err, "role %q, %s, KeepHeaders: the conversation", role, mode)
						}
					}
				}
			}
		}
	})
}
