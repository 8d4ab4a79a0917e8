package harmony

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// headerPieces are what a model writes inside headers, each with a word
// (marked Z…, or a channel's name) that must never reach a message's text;
// textPieces are text, in headers or content, that holds none of them.
var (
	headerPieces = []string{
		"<|start|>assistant", "<|channel|>analysis", "<|channel|>commentary", "<|channel|>final",
		"<|channel|>Zc", "<|channel|> final", " to=functions.Zq", " to=Zq",
		"<|constrain|>Zt", " <|constrain|>Zt", "<|constrain|> Zt", " json",
	}
	textPieces  = []string{" alpha", " beta.", "\n\n", `{"x": 1}`, "Gamma", "?", "…", " ", " to", " t", " too", "\t", " Zs"}
	stopPieces  = []string{"<|end|>", "<|call|>", "<|return|>"}
	headerWords = []string{"to=", "Zq", "Zt", "Zc", "analysis", "commentary", "final"}
)

// FuzzRecoverHeaderWords checks the invariant of recovery that header
// words are never text: over streams of header pieces, text and special
// tokens, no "to=" word, channel name or <|constrain|> type word written
// inside a header appears in the text of any message ParseRecover returns,
// whatever ended, interrupted or never completed the header, nor a "to="
// word glued to content before an interrupting <|channel|>. The
// generator writes header pieces only where the parser is in a header (it
// follows the recovery's states), and text anywhere. Batch and stream
// agree, and each message's deltas concatenate to its text (words that
// may be "to=" words are held back from the deltas, then given or
// dropped).
func FuzzRecoverHeaderWords(f *testing.F) {
	f.Add([]byte{1, 9, 2, 40, 12, 7, 33, 3, 0, 5})
	f.Add([]byte{4, 6, 11, 20, 21, 22, 8, 0, 30, 31, 2, 1})
	f.Add([]byte{3, 12, 13, 8, 40, 41, 0, 2, 5, 6, 10})
	enc := mustEncoding(f)
	opts := &ParseOptions{Mode: ParseRecover, Functions: []string{"Zq", "Zs Zq"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			return
		}
		var text strings.Builder
		inContent := false
		for _, b := range data {
			switch k := int(b) % 4; {
			case k == 0 && !inContent:
				text.WriteString(headerPieces[int(b>>2)%len(headerPieces)])
			case k == 1:
				text.WriteString(textPieces[int(b>>2)%len(textPieces)])
			case k == 2:
				switch sp := int(b>>2) % 5; {
				case sp < 3:
					text.WriteString(stopPieces[sp])
					inContent = false
				case sp == 3:
					text.WriteString("<|message|>")
					inContent = true
				default:
					if inContent && b&0x80 != 0 {
						// The next header's recipient glued to the
						// content: it leaves the content.
						text.WriteString([]string{" to=functions.Zq", " to=Zq", " to=functions.Zs Zq", "\n to=Zs Zq"}[int(b>>4)%4])
					}
					text.WriteString("<|channel|>") // a new header, even in content
					text.WriteString([]string{"analysis", "final", "commentary"}[int(b>>5)%3])
					inContent = false
				}
			case k == 3 && inContent:
				text.WriteString("<|start|>assistant")
				inContent = false
			}
		}
		toks := enc.EncodeWithSpecialTokens(text.String())
		for _, role := range []Role{"", RoleAssistant} {
			msgs, err := enc.ParseCompletion(toks, role, opts)
			require.NoError(t, err)
			p, err := enc.NewStreamParser(role, opts)
			require.NoError(t, err)
			stream, _ := streamParse(enc, p, toks)
			require.Equal(t, msgs, stream.msgs, "role %q: batch and stream of %q", role, text.String())
			checkEvents(t, enc, toks, role, opts) // the deltas of each message concatenate to its text
			for i, m := range msgs {
				for _, w := range headerWords {
					require.NotContains(t, m.Text(), w, "role %q, message %d of %q", role, i, text.String())
				}
			}
		}
	})
}
