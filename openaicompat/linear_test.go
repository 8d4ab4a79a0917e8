package openaicompat

import (
	"runtime"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/testsupport/testenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongCallLinear converts a tool call with long arguments, whole and
// streamed, for both APIs, and checks that the memory allocated grows in
// proportion to the arguments: appending each delta to a string would
// allocate about n²/2 bytes for n bytes of arguments (hundreds of MB here).
func TestLongCallLinear(t *testing.T) {
	enc := testenc.Encoding(t)
	args := `{"text": "` + strings.Repeat("lorem ipsum dolor sit amet ", 4000) + `"}`
	toks := enc.EncodeWithSpecialTokens(`<|channel|>commentary to=functions.f <|constrain|>json<|message|>` + args + `<|call|>`)
	require.GreaterOrEqual(t, len(toks), 15000, "tokens")
	limit := uint64(400 * len(toks)) // generous: the stream's chunks cost ~200 bytes a token
	measure := func(name string, run func() string) {
		t.Helper()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		got := run()
		runtime.ReadMemStats(&after)
		assert.True(t, got == args, "%s: arguments differ (%d bytes, want %d)", name, len(got), len(args))
		assert.LessOrEqual(t, after.TotalAlloc-before.TotalAlloc, limit, "%s: bytes allocated for %d tokens", name, len(toks))
	}
	measure("chat whole", func() string {
		r, err := ChatCompletionFromTokens(enc, toks, Sampling{}, nil)
		require.NoError(t, err)
		return r.Choices[0].Message.ToolCalls[0].Function.Arguments
	})
	measure("chat stream", func() string {
		c, _ := NewChatStreamConverter(enc, nil)
		var b strings.Builder
		for _, x := range toks {
			chunks, err := c.Process(x)
			require.NoError(t, err)
			for _, ch := range chunks {
				for _, tc := range ch.Choices[0].Delta.ToolCalls {
					b.WriteString(tc.Function.Arguments)
				}
			}
		}
		return b.String()
	})
	measure("responses whole", func() string {
		r, err := ResponseFromTokens(enc, toks, Sampling{}, nil)
		require.NoError(t, err)

		return r.Output[0].Arguments
	})
}
