package harmony

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/testsupport/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeaderMarkers checks that the markers of internal/msghdr are the
// texts of the special tokens the renderer writes for them.
func TestHeaderMarkers(t *testing.T) {
	for _, k := range []msghdr.Kind{msghdr.Channel, msghdr.Constrain} {
		tok, ok := SpecialToken(k.Marker())
		assert.True(t, ok, "marker %q is a special token", k.Marker())
		assert.Equal(t, markerToken(k), tok, "marker %q: special token; the renderer writes", k.Marker())
	}
}

// headerMessages returns the messages whose headers the golden file
// testdata/header/reference.txt pins, in a fixed order: every role with
// no name, a plain one and a tool's, every recipient (none, "all", a role,
// a function, a tool, one long enough to take several tokens), no channel
// or one, and every kind of content type (none, plain, constrained, the
// bare constrain marker); then a second tool name, the other channels and
// another plain content type with every role and recipient.
func headerMessages() []Message {
	long := "functions." + strings.Repeat("very_long_function_name_", 5)
	roles := []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool}
	recipients := []string{"", "all", "assistant", "functions.get_weather", "python", long}
	var msgs []Message
	add := func(role Role, name, recipient, channel, ct string) {
		if role == RoleTool && name == "" {
			return // a tool's message is authored by the tool's name
		}
		msgs = append(msgs, NewTextMessage(role, "x").WithName(name).WithRecipient(recipient).WithChannel(channel).WithContentType(ct))
	}
	for _, role := range roles {
		for _, name := range []string{"", "bob", "functions.f"} {
			for _, recipient := range recipients {
				for _, channel := range []string{"", "analysis"} {
					for _, ct := range []string{"", "json", "<|constrain|>json", "<|constrain|>"} {
						add(role, name, recipient, channel, ct)
					}
				}
			}
		}
	}
	for _, role := range roles {
		for _, recipient := range recipients {
			add(role, "browser.search", recipient, "", "")
			add(role, "browser.search", recipient, "analysis", "<|constrain|>json")
			for _, channel := range []string{"commentary", "final"} {
				for _, ct := range []string{"", "code"} {
					add(role, "functions.f", recipient, channel, ct)
				}
			}
		}
	}
	return msgs
}

// headerLine returns the golden line of m: its fields; its reference
// header's tokens; then each written form tried, the canonical text, the
// gpt-oss order, that padded with spaces ("  " before, " " after), and
// that followed by <|end|>, with writtenForm's answer ("ok" for the form
// itself and true, "no" for "" and false) and the form's tokens (but for
// the form holding <|end|>, which the renderer never writes). The last two
// forms' texts are not written again.
func headerLine(enc *Encoding, m *Message) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q %q %q | ref", m.Role, m.Name, m.Recipient, m.Channel, m.ContentType)
	writeTokens := func(toks []Token) {
		for _, tok := range toks {
			fmt.Fprintf(&b, " %d", tok)
		}
	}
	writeTokens(enc.appendReferenceHeader(nil, m))
	h := messageHeader(m)
	f := h.fields()
	canonical, gpt := string(h.appendCanonical(nil)), f.Text(msghdr.GptOss)
	for _, form := range []struct{ label, text string }{
		{fmt.Sprintf("canonical %q", canonical), canonical},
		{fmt.Sprintf("gpt-oss %q", gpt), gpt},
		{"padded", "  " + gpt + " "},
		{"<|end|>", gpt + "<|end|>"},
	} {
		w := *m
		w.Header = form.text
		fmt.Fprintf(&b, " | %s ", form.label)
		switch got, ok := writtenForm(&w); {
		case ok && got == form.text:
			b.WriteString("ok")
		case !ok && got == "":
			b.WriteString("no")
		default:
			fmt.Fprintf(&b, "%q %v", got, ok)
		}
		if !strings.Contains(form.text, "<|end|>") {
			writeTokens(enc.appendForm(nil, form.text))
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// TestHeaderGolden pins header.go's renderers and writtenForm, over the
// messages of headerMessages, to testdata/header/reference.txt, and checks
// that the reference's tokens read as the canonical text.
func TestHeaderGolden(t *testing.T) {
	enc := mustEncoding(t)
	var got strings.Builder
	for _, m := range headerMessages() {
		got.WriteString(headerLine(enc, &m))
		h := messageHeader(&m)
		if dec, text := renderText(t, enc, enc.appendReferenceHeader(nil, &m)), string(h.appendCanonical(nil)); dec != text {
			require.Failf(t, "reference tokens are not the canonical text", "%+v: tokens read %q, canonical text %q", m, dec, text)
		}
	}
	golden.Check(t, filepath.Join("testdata", "header", "reference.txt"), []byte(got.String()))
}
