package harmony

// The message header, the text between <|start|> and <|message|>: how the
// renderer checks and writes it, and how the parser reads it. What a header
// says and how it is spelled (its fields, their two orders, the pieces they
// are written as) is internal/msghdr; this file turns those pieces into
// tokens and text, and text back into fields.

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/toolname"
)

// header is a message header: a message's fields without its content.
type header struct {
	role        Role
	name        string
	recipient   string
	channel     string
	contentType string
	form        string // the header as written, when kept and not the reference's form
}

// messageHeader returns the header fields of m (not its form).
func messageHeader(m *Message) header {
	return header{role: m.Role, name: m.Name, recipient: m.Recipient, channel: m.Channel, contentType: m.ContentType}
}

// fields returns h as internal/msghdr describes it.
func (h *header) fields() msghdr.Fields {
	author, name := headerAuthor(h.role, h.name)
	return msghdr.Fields{Author: author, Name: name, Recipient: h.recipient, Channel: h.channel, ContentType: h.contentType}
}

// headerAuthor returns the author and the author's name a header writes: a
// tool's message is authored by the tool's name, any other by its role and
// name.
func headerAuthor(role Role, name string) (string, string) {
	if role == RoleTool {
		return name, ""
	}
	return string(role), name
}

// sameFields reports whether h and o say the same, whatever their forms.
func (h header) sameFields(o header) bool {
	return h.role == o.role && h.name == o.name && h.recipient == o.recipient &&
		h.channel == o.channel && h.contentType == o.contentType
}

// message returns the message of header h with text as its content.
func (h header) message(text string) Message {
	return Message{
		Author:      Author{Role: h.role, Name: h.name},
		Recipient:   h.recipient,
		Channel:     h.channel,
		ContentType: h.contentType,
		Content:     []Content{TextContent{Text: text}},
		Header:      h.form,
	}
}

// markerToken returns the special token of a header marker.
func markerToken(k msghdr.Kind) Token {
	if k == msghdr.Channel {
		return TokenChannel
	}
	return TokenConstrain
}

// checkHeader refuses a header the renderer cannot write: fields that a
// parser would read as structure (text cannot forge a header any more than
// it can forge a special token), then an unknown role, or a tool's message
// without the tool's name.
func checkHeader(m *Message) error {
	if m.Name != "" || m.Recipient != "" || m.Channel != "" || m.ContentType != "" {
		if err := checkHeaderFields(m); err != nil {
			return err
		}
	}
	if m.Role == RoleTool {
		if m.Name == "" {
			return ErrMissingToolName
		}
	} else if !m.Role.Valid() {
		return fmt.Errorf("%w %q", ErrUnknownRole, m.Role)
	}
	return nil
}

// checkHeaderFields is checkHeader's check of the fields, which a message
// with none (most prompt messages) skips.
func checkHeaderFields(m *Message) error {
	ct, _ := strings.CutPrefix(m.ContentType, msghdr.ConstrainMarker)
	for _, f := range [...]struct{ what, v string }{
		{"name", m.Name}, {"recipient", m.Recipient}, {"channel", m.Channel}, {"content type", ct},
	} {
		if err := CheckHeaderField(f.v); err != nil {
			return fmt.Errorf("%w: %s %q %v", ErrInvalidHeader, f.what, f.v, err)
		}
	}
	return nil
}

// CheckHeaderField reports why s cannot be a name, recipient, channel or
// content type in a message header, or nil if it can: white space would end
// the field, "<|" would read as a special token's text, and a leading "to="
// as a recipient. The renderer refuses such fields with a [*RenderError]
// wrapping [ErrInvalidHeader]; servers can check tool-call names with it
// before they reach the renderer.
func CheckHeaderField(s string) error {
	// Most fields are short ASCII words: a byte above space, not '<' and
	// below 0x80 can start neither white space nor "<|".
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] > ' ' && s[i] != '<' && s[i] < utf8.RuneSelf
	}
	if plain {
		if strings.HasPrefix(s, msghdr.RecipientPrefix) {
			return errors.New(`starts with "to="`)
		}
		return nil
	}
	for i, r := range s {
		if unicode.IsSpace(r) {
			return fmt.Errorf("has white space at byte %d", i)
		}
	}
	switch {
	case strings.Contains(s, "<|"):
		return errors.New(`contains "<|"`)
	case strings.HasPrefix(s, msghdr.RecipientPrefix):
		return errors.New(`starts with "to="`)
	}
	return nil
}

// appendReferenceHeader appends m's header as the reference writes it:
// its pieces in the reference's order, each encoded on its own, so that
// token boundaries never cross from the role into the recipient or the
// channel.
func (e *Encoding) appendReferenceHeader(dst []Token, m *Message) []Token {
	author, name := headerAuthor(m.Role, m.Name)
	for p := range msghdr.Pieces(msghdr.Reference, author, name, m.Recipient, m.Channel, m.ContentType) {
		dst = e.appendPiece(dst, p)
	}
	return dst
}

// appendPiece appends the tokens of a piece of a header: a marker's special
// token, or the ordinary tokens of a text, its prefix and value encoded
// together.
func (e *Encoding) appendPiece(dst []Token, p msghdr.Piece) []Token {
	switch {
	case p.Kind != msghdr.Text:
		return append(dst, markerToken(p.Kind))
	case p.Prefix == "":
		return e.appendOrdinary(dst, p.Value)
	case p.Value == "":
		return e.appendOrdinary(dst, p.Prefix)
	}
	var buf [64]byte // most recipients fit: no allocation
	return e.appendOrdinary(dst, bytesString(p.AppendText(buf[:0])))
}

// writtenForm returns m's Header when the renderer writes it instead of the
// reference's form: it reads back as exactly m's fields when a parser reads
// the rendered message from its <|start|>, the role not known (readsBack).
// Such a form is written even where m's fields alone could not be (the
// reference's parse of "<|channel|>final <|constrain|>json" has the
// recipient "<|constrain|>json", which checkHeader refuses): the fields are
// what the form says, and the form's special tokens but the channel and
// constrain markers are written as text (appendForm), so that no Header can
// forge a message boundary.
func writtenForm(m *Message) (string, bool) {
	if m.Header == "" || !readsBack(m.Header, messageHeader(m)) {
		return "", false
	}
	return m.Header, true
}

// readsBack reports whether form, a header's text from the author on,
// reads as exactly the fields of h: by the reference's header grammar
// (parseHeader), or by recovery's (recoverHeader, nothing dropped, with the
// function h is addressed to declared, as it was when the model's header
// was read), the two grammars a parser of the rendered message may use.
func readsBack(form string, h header) bool {
	if r, _, hasRest, err := parseHeader(form, "", true); err == nil && !hasRest && r.sameFields(h) {
		return true
	}
	var declared []string
	if fn, ok := strings.CutPrefix(h.recipient, toolname.FunctionsPrefix); ok {
		declared = []string{fn}
	}
	p := StreamParser{tools: toolname.NewRule(toolname.Recover, declared, nil)}
	r, dropped := p.recoverHeader(form, "")
	return dropped == 0 && r.sameFields(h)
}

// writtenAddressed reports whether the written form of a message with
// recipient r addresses the message to r: it writes "to=R", or R as a bare
// word before the channel (the reference's bare recipient). A recipient the
// reference reads from a bare word after the channel ("<|channel|>final
// json", "<|channel|>final <|constrain|>json": gpt-oss's content type) does
// not: the model closes such a message with <|end|> or <|return|>, not
// <|call|>, and the renderer closes it with <|end|>.
func writtenAddressed(form, r string) bool {
	i := strings.Index(form, msghdr.ChannelMarker)
	if r == "" || i < 0 {
		return true
	}
	after := form[i+len(msghdr.ChannelMarker):]
	if end := strings.IndexFunc(after, func(c rune) bool { return c == '<' || unicode.IsSpace(c) }); end >= 0 {
		after = after[end:]
	} else {
		after = ""
	}
	var buf [8]string
	for _, w := range asciiFields(buf[:0], strings.ReplaceAll(after, msghdr.ConstrainMarker, " "+msghdr.ConstrainMarker)) {
		if w == r {
			return strings.Contains(form, msghdr.RecipientPrefix+r)
		}
	}
	return true
}

// appendForm appends a header as written: the channel and constrain
// markers as their special tokens, each stretch of text between them
// encoded whole.
func (e *Encoding) appendForm(dst []Token, form string) []Token {
	for {
		before, k, after, found := msghdr.CutMarker(form)
		dst = e.appendOrdinary(dst, before)
		if !found {
			return dst
		}
		dst = append(dst, markerToken(k))
		form = after
	}
}

// appendCanonical appends the header text the renderer writes for h in the
// reference's form (the text of appendReferenceHeader's tokens).
func (h *header) appendCanonical(dst []byte) []byte {
	f := h.fields()
	return f.AppendText(dst, msghdr.Reference)
}

// keepForm records written, the text of a header read as h (role given:
// the text after "<|start|>ROLE"), as h's form when the renderer needs it to
// write the tokens the model sampled: when it differs from the reference's
// form, or when the renderer would refuse h's fields (a recipient
// "<|constrain|>json", the reference's reading of a structured answer). The
// renderer writes a form only while it reads back as the message's fields
// (writtenForm); a header read with its role given that does not read back
// from its <|start|> ("assistant" followed by ":alice" or by the role again)
// is kept with a space after the role, or without the role when it starts
// with the role again, when that reads back; failing all, the reference's
// text when the fields need a form and it reads back (keepCanonical). So a
// message the parser produced can always be rendered. It returns buf, grown
// to hold the canonical text, for the next call.
func (h *header) keepForm(written string, role Role, buf []byte) []byte {
	buf = h.appendCanonical(buf[:0])
	text := written
	told := role != "" && role != RoleTool
	if told {
		written = string(role) + text
	}
	refused := h.refused()
	if string(buf) == written && !refused {
		return buf // the renderer writes it as the reference does
	}
	switch {
	case readsBack(written, *h):
		h.form = written
	case told && readsBack(string(role)+" "+text, *h):
		h.form = string(role) + " " + text
	case told && readsBack(text, *h):
		h.form = text // the role written again
	case refused:
		h.keepCanonical(buf)
	}
	if h.form == string(buf) && !refused {
		h.form = ""
	}
	return buf
}

// keepCanonical records canonical, the reference's text of h, as h's form
// when the renderer refuses h's fields and that text reads back as them (a
// channel "to=x", which the reference reads and writes, but checkHeader
// refuses): the one form left for a header whose written text is not kept
// or does not read back.
func (h *header) keepCanonical(canonical []byte) {
	if h.refused() && readsBack(string(canonical), *h) {
		h.form = string(canonical)
	}
}

// refused reports whether the renderer refuses h's fields (checkHeader),
// which then need a written form.
func (h *header) refused() bool {
	m := Message{Author: Author{Role: h.role, Name: h.name}, Recipient: h.recipient, Channel: h.channel, ContentType: h.contentType}
	return checkHeader(&m) != nil
}

// parseHeader reads a header's text as the reference does. With role "", the
// first word is the role, and a word that is no role, followed by more header
// parts, names a tool. When fields is false (a header cut short by a stop
// token), everything after the role and channel is returned as rest.
func parseHeader(s string, role Role, fields bool) (h header, rest string, hasRest bool, err error) {
	if i := strings.Index(s, msghdr.ChannelMarker); i >= 0 {
		after := s[i+len(msghdr.ChannelMarker):]
		end := strings.IndexFunc(after, func(r rune) bool { return r == '<' || unicode.IsSpace(r) })
		if end < 0 {
			end = len(after)
		}
		if end == 0 {
			return h, "", false, fmt.Errorf("%w: <|channel|> without a channel name", ErrInvalidHeader)
		}
		h.channel = after[:end]
		s = s[:i] + after[end:]
	}
	s = strings.TrimSpace(s)
	if strings.Contains(s, msghdr.ConstrainMarker) {
		s = strings.TrimSpace(strings.ReplaceAll(s, msghdr.ConstrainMarker, " "+msghdr.ConstrainMarker))
	}
	var buf [8]string
	parts := asciiFields(buf[:0], s)

	named := ""
	if role == "" {
		if len(parts) == 0 {
			return h, "", false, fmt.Errorf("%w: no role in the header", ErrInvalidHeader)
		}
		word := parts[0]
		named = word
		if r := Role(word); r.Valid() {
			role = r
		} else if len(parts) > 1 || strings.HasPrefix(word, msghdr.RecipientPrefix) {
			parts = parts[1:]
			role = RoleTool
		} else {
			return h, "", false, fmt.Errorf("%w %q", ErrUnknownRole, word)
		}
	}
	if len(parts) > 0 && parts[0] == string(role) {
		parts = parts[1:]
	}
	h.role = role
	if role == RoleTool {
		h.name = named
	}

	if fields && len(parts) > 0 {
		n := len(parts)
		last := parts[n-1]
		parts = parts[:n-1]
		if r, ok := strings.CutPrefix(last, msghdr.RecipientPrefix); ok {
			h.recipient = r
		} else if n == 1 {
			h.recipient = last
		} else {
			h.contentType = last
			if m := len(parts); m > 0 {
				r := parts[m-1]
				parts = parts[:m-1]
				r, _ = strings.CutPrefix(r, msghdr.RecipientPrefix)
				h.recipient = r
			}
		}
	}
	if len(parts) > 0 {
		return h, strings.Join(parts, " "), true, nil
	}
	return h, "", false, nil
}

// asciiFields splits s at runs of ASCII white space (space, \t, \n, \f, \r),
// as Rust's split_ascii_whitespace does; other white space stays in the words.
func asciiFields(out []string, s string) []string {
	start := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
			if start >= 0 {
				out = append(out, s[start:i])
				start = -1
			}
		default:
			if start < 0 {
				start = i
			}
		}
	}
	if start >= 0 {
		out = append(out, s[start:])
	}
	return out
}
