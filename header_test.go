package harmony

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/testsupport/golden"
	"github.com/stretchr/testify/require"
)

// TestHeaderMarkers checks that the markers of internal/msghdr are the
// texts of the special tokens the renderer writes for them.
func TestHeaderMarkers(t *testing.T) {
	for _, k := range []msghdr.Kind{msghdr.Channel, msghdr.Constrain} {
		if tok, ok := SpecialToken(k.Marker()); !ok || tok != markerToken(k) {
			t.Errorf("marker %q: special token %d, %v; the renderer writes %d", k.Marker(), tok, ok, markerToken(k))
		}
	}
}

// The header's renderers as they were before header.go, each spelling the
// header itself: the reference's tokens, the canonical text, and a written
// form's tokens.

func oldReferenceHeader(e *Encoding, dst []Token, m *Message) []Token {
	if m.Role == RoleTool {
		dst = e.appendOrdinary(dst, m.Name)
	} else {
		dst = e.appendOrdinary(dst, string(m.Role))
		if m.Name != "" {
			dst = e.appendOrdinary(dst, ":"+m.Name)
		}
	}
	if m.Recipient != "" && m.Recipient != "all" {
		dst = e.appendOrdinary(dst, " to="+m.Recipient)
	}
	if m.Channel != "" {
		dst = append(dst, TokenChannel)
		dst = e.appendOrdinary(dst, m.Channel)
	}
	if ct := m.ContentType; ct != "" {
		if rest, ok := strings.CutPrefix(ct, "<|constrain|>"); ok {
			dst = e.appendOrdinary(dst, " ")
			dst = append(dst, TokenConstrain)
			dst = e.appendOrdinary(dst, rest)
		} else {
			dst = e.appendOrdinary(dst, " "+ct)
		}
	}
	return dst
}

func oldCanonical(h header) []byte {
	var dst []byte
	if h.role == RoleTool {
		dst = append(dst, h.name...)
	} else {
		dst = append(dst, h.role...)
		if h.name != "" {
			dst = append(append(dst, ':'), h.name...)
		}
	}
	if h.recipient != "" && h.recipient != "all" {
		dst = append(append(dst, " to="...), h.recipient...)
	}
	if h.channel != "" {
		dst = append(append(dst, "<|channel|>"...), h.channel...)
	}
	if ct := h.contentType; ct != "" {
		if rest, ok := strings.CutPrefix(ct, "<|constrain|>"); ok {
			dst = append(append(append(dst, ' '), "<|constrain|>"...), rest...)
		} else {
			dst = append(append(dst, ' '), ct...)
		}
	}
	return dst
}

func oldForm(e *Encoding, dst []Token, form string) []Token {
	for form != "" {
		i := strings.Index(form, "<|")
		if i < 0 {
			return e.appendOrdinary(dst, form)
		}
		if i > 0 {
			dst = e.appendOrdinary(dst, form[:i])
		}
		if strings.HasPrefix(form[i:], "<|channel|>") {
			dst = append(dst, TokenChannel)
			form = form[i+len("<|channel|>"):]
		} else {
			dst = append(dst, TokenConstrain)
			form = form[i+len("<|constrain|>"):]
		}
	}
	return dst
}

func oldWrittenForm(m *Message) (string, bool) {
	if m.Header == "" {
		return "", false
	}
	rest := m.Header
	for {
		i := strings.Index(rest, "<|")
		if i < 0 {
			break
		}
		rest = rest[i:]
		switch {
		case strings.HasPrefix(rest, "<|channel|>"):
			rest = rest[len("<|channel|>"):]
		case strings.HasPrefix(rest, "<|constrain|>"):
			rest = rest[len("<|constrain|>"):]
		default:
			return "", false
		}
	}
	h, _, hasRest, err := parseHeader(m.Header, "", true)
	want := header{role: m.Role, name: m.Name, recipient: m.Recipient, channel: m.Channel, contentType: m.ContentType}
	if err != nil || hasRest || !h.sameFields(want) {
		return "", false
	}
	return m.Header, true
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

// headerCode is the header code a golden line is written from.
type headerCode struct {
	reference   func(m *Message) []Token // the reference's tokens
	canonical   func(m *Message) string  // the canonical text
	writtenForm func(m *Message) (string, bool)
	form        func(form string) []Token // a written form's tokens
}

// headerLine returns the golden line of m: its fields; its reference
// header's tokens; then each written form tried, the canonical text, the
// gpt-oss order, that padded with spaces ("  " before, " " after), and
// that followed by <|end|>, with writtenForm's answer ("ok" for the form
// itself and true, "no" for "" and false) and the form's tokens (but for
// the form holding <|end|>, which the renderer never writes). The last two
// forms' texts are not written again.
func headerLine(m *Message, c headerCode) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q %q %q %q %q | ref", m.Role, m.Name, m.Recipient, m.Channel, m.ContentType)
	writeTokens := func(toks []Token) {
		for _, tok := range toks {
			fmt.Fprintf(&b, " %d", tok)
		}
	}
	writeTokens(c.reference(m))
	h := messageHeader(m)
	f := h.fields()
	canonical, gpt := c.canonical(m), f.Text(msghdr.GptOss)
	for _, form := range []struct{ label, text string }{
		{fmt.Sprintf("canonical %q", canonical), canonical},
		{fmt.Sprintf("gpt-oss %q", gpt), gpt},
		{"padded", "  " + gpt + " "},
		{"<|end|>", gpt + "<|end|>"},
	} {
		w := *m
		w.Header = form.text
		fmt.Fprintf(&b, " | %s ", form.label)
		switch got, ok := c.writtenForm(&w); {
		case ok && got == form.text:
			b.WriteString("ok")
		case !ok && got == "":
			b.WriteString("no")
		default:
			fmt.Fprintf(&b, "%q %v", got, ok)
		}
		if !strings.Contains(form.text, "<|end|>") {
			writeTokens(c.form(form.text))
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
	code := headerCode{
		reference: func(m *Message) []Token { return enc.appendReferenceHeader(nil, m) },
		canonical: func(m *Message) string {
			h := messageHeader(m)
			return string(h.appendCanonical(nil))
		},
		writtenForm: writtenForm,
		form:        func(form string) []Token { return enc.appendForm(nil, form) },
	}
	old := headerCode{
		reference:   func(m *Message) []Token { return oldReferenceHeader(enc, nil, m) },
		canonical:   func(m *Message) string { return string(oldCanonical(messageHeader(m))) },
		writtenForm: oldWrittenForm,
		form:        func(form string) []Token { return oldForm(enc, nil, form) },
	}
	var got strings.Builder
	for _, m := range headerMessages() {
		line := headerLine(&m, code)
		if o := headerLine(&m, old); o != line {
			require.Failf(t, "header differs from the old code", "new %s\nold %s", line, o)
		}
		got.WriteString(line)
		toks := code.reference(&m)
		if dec, text := renderText(t, enc, toks), code.canonical(&m); dec != text {
			require.Failf(t, "reference tokens are not the canonical text", "%+v: tokens read %q, canonical text %q", m, dec, text)
		}
	}
	golden.Check(t, filepath.Join("testdata", "header", "reference.txt"), []byte(got.String()))
}

// TestHeaderPinned checks header.go's renderers, built on internal/msghdr's
// pieces, against the hand-written ones they replaced, and that the
// reference's tokens and the canonical text are the same header.
func TestHeaderPinned(t *testing.T) {
	enc := mustEncoding(t)
	long := "functions." + strings.Repeat("very_long_function_name_", 5)
	var msgs []Message
	for _, role := range []Role{RoleSystem, RoleUser, RoleAssistant, RoleTool} {
		for _, name := range []string{"", "bob", "functions.f", "browser.search"} {
			for _, recipient := range []string{"", "all", "assistant", "functions.get_weather", "python", long} {
				for _, channel := range []string{"", "analysis", "commentary", "final"} {
					for _, ct := range []string{"", "json", "<|constrain|>json", "<|constrain|>", "code"} {
						m := NewTextMessage(role, "x").WithName(name).WithRecipient(recipient).WithChannel(channel).WithContentType(ct)
						if role == RoleTool && name == "" {
							continue
						}
						msgs = append(msgs, m)
					}
				}
			}
		}
	}
	for _, m := range msgs {
		got := enc.appendReferenceHeader(nil, &m)
		if want := oldReferenceHeader(enc, nil, &m); !slices.Equal(got, want) {
			t.Fatalf("%+v: reference header %v, was %v", m, got, want)
		}
		h := messageHeader(&m)
		text := h.appendCanonical(nil)
		if want := oldCanonical(h); string(text) != string(want) {
			t.Fatalf("%+v: canonical text %q, was %q", m, text, want)
		}
		if dec := renderText(t, enc, got); dec != string(text) {
			t.Fatalf("%+v: reference tokens read %q, canonical text %q", m, dec, text)
		}
		f := h.fields()
		for _, form := range []string{string(text), f.Text(msghdr.GptOss), "  " + f.Text(msghdr.GptOss) + " ", f.Text(msghdr.GptOss) + "<|end|>"} {
			w := m
			w.Header = form
			gotForm, gotOK := writtenForm(&w)
			wantForm, wantOK := oldWrittenForm(&w)
			if gotForm != wantForm || gotOK != wantOK {
				t.Fatalf("%q: writtenForm %q, %v; was %q, %v", form, gotForm, gotOK, wantForm, wantOK)
			}
			if !strings.Contains(form, "<|end|>") {
				if got, want := enc.appendForm(nil, form), oldForm(enc, nil, form); !slices.Equal(got, want) {
					t.Fatalf("%q: form tokens %v, was %v", form, got, want)
				}
			}
		}
	}
}
