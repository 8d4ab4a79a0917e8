// Package msghdr describes the header of a harmony message, the text
// between <|start|> and <|message|>, over strings: its fields, the two
// orders they are written in, and the pieces they are written as (text,
// and the <|channel|> and <|constrain|> markers). It is the one place that
// spells a header. Package harmony renders the pieces as tokens (each
// piece encoded alone, as the reference renderer does) and as text, and
// reads headers; package constrain builds the envelope's headers from
// their text (each run of text between markers encoded whole, as harmony
// renders a header as written), and package openaicompat writes the
// headers of the model's calls in a history from it.
package msghdr

import (
	"iter"
	"strings"
)

// The markers of a header: the texts of the special tokens that start the
// channel and a constrained content type.
const (
	ChannelMarker   = "<|channel|>"
	ConstrainMarker = "<|constrain|>"
)

// JSONContentType is the content type of a function call's arguments:
// JSON, constrained.
const JSONContentType = ConstrainMarker + "json"

// RecipientPrefix starts a recipient in a header: "to=functions.f".
const RecipientPrefix = "to="

// The constant texts written before a field.
const (
	nameSep      = ":"                   // between a role and the author's name
	recipientSep = " " + RecipientPrefix // before the recipient
	typeSep      = " "                   // before the content type
)

// Kind is the kind of a Piece: text, or one of the two markers.
type Kind uint8

const (
	Text      Kind = iota // text, written as a Piece's Prefix then its Value
	Channel               // the <|channel|> marker
	Constrain             // the <|constrain|> marker
)

// Marker returns the text of the marker k, or "" for Text.
func (k Kind) Marker() string {
	switch k {
	case Channel:
		return ChannelMarker
	case Constrain:
		return ConstrainMarker
	}
	return ""
}

// Order is an order in which a header's fields are written.
type Order uint8

const (
	// Reference is the reference renderer's order: the author, the
	// recipient, the channel, the content type
	// ("assistant to=functions.f<|channel|>commentary <|constrain|>json").
	Reference Order = iota
	// GptOss is the order gpt-oss samples its calls in, as the harmony
	// guide's function-calling example writes them: the recipient after
	// the channel ("assistant<|channel|>commentary to=functions.f
	// <|constrain|>json").
	GptOss
)

// Fields are what a header says. An empty field is not written, nor is a
// Recipient of "all".
type Fields struct {
	// Author is the author's role, or for a tool's message the tool's
	// name. It is "" for the rest of a header whose author was written
	// already (the envelope's headers, after the prompt's
	// "<|start|>assistant").
	Author string
	// Name is the author's name, written ":NAME" after the role (never
	// set with a tool's name as the Author).
	Name        string
	Recipient   string
	Channel     string
	ContentType string // a leading <|constrain|> is the marker
}

// Piece is a piece of a header as written: a marker, or text. The text is
// Prefix (a constant separator: ":", " to=", " ") followed by Value, two
// strings so that nobody needs to join them.
type Piece struct {
	Kind   Kind
	Prefix string
	Value  string
}

// AppendText appends the text of p.
func (p Piece) AppendText(dst []byte) []byte {
	if p.Kind != Text {
		return append(dst, p.Kind.Marker()...)
	}
	return append(append(dst, p.Prefix...), p.Value...)
}

// Pieces yields the pieces of a header written in order o: the author,
// ":NAME", " to=RECIPIENT" (here in the Reference order), <|channel|> and
// CHANNEL (" to=RECIPIENT" here in the GptOss order), then " TYPE", or
// " ", <|constrain|> and TYPE for a content type that starts with the
// marker. Each field is a piece of its own; the reference renderer encodes
// each alone. The fields are as in [Fields], passed one by one: Pieces and
// a loop body that calls a function are inlined where the loop is, and a
// range over them allocates nothing and copies no Fields.
func Pieces(o Order, author, name, recipient, channel, contentType string) iter.Seq[Piece] {
	return func(yield func(Piece) bool) {
		if author != "" && !yield(Piece{Value: author}) {
			return
		}
		if name != "" && !yield(Piece{Prefix: nameSep, Value: name}) {
			return
		}
		to := recipient != "" && recipient != "all"
		if to && o == Reference && !yield(Piece{Prefix: recipientSep, Value: recipient}) {
			return
		}
		if channel != "" {
			if !yield(Piece{Kind: Channel}) || !yield(Piece{Value: channel}) {
				return
			}
		}
		if to && o != Reference && !yield(Piece{Prefix: recipientSep, Value: recipient}) {
			return
		}
		if contentType != "" {
			if rest, ok := strings.CutPrefix(contentType, ConstrainMarker); ok {
				if !yield(Piece{Prefix: typeSep}) || !yield(Piece{Kind: Constrain}) {
					return
				}
				yield(Piece{Value: rest})
			} else {
				yield(Piece{Prefix: typeSep, Value: contentType})
			}
		}
	}
}

// AppendText appends the text of the header f written in order o, its
// pieces' texts one after the other.
func (f *Fields) AppendText(dst []byte, o Order) []byte {
	for p := range Pieces(o, f.Author, f.Name, f.Recipient, f.Channel, f.ContentType) {
		dst = p.AppendText(dst)
	}
	return dst
}

// Text returns the text of the header f written in order o.
func (f *Fields) Text(o Order) string {
	var b strings.Builder
	b.Grow(len(f.Author) + len(f.Name) + len(f.Recipient) + len(f.Channel) + len(f.ContentType) +
		len(nameSep) + len(recipientSep) + len(ChannelMarker) + len(typeSep))
	for p := range Pieces(o, f.Author, f.Name, f.Recipient, f.Channel, f.ContentType) {
		if p.Kind != Text {
			b.WriteString(p.Kind.Marker())
		} else {
			b.WriteString(p.Prefix)
			b.WriteString(p.Value)
		}
	}
	return b.String()
}

// CutMarker slices s around its first marker: the text before it, the
// marker's kind, and the text after it; found is false, and before is s,
// when s holds no marker. A "<|" that starts no marker is text.
func CutMarker(s string) (before string, k Kind, after string, found bool) {
	for i := 0; ; i += 2 {
		j := strings.Index(s[i:], "<|")
		if j < 0 {
			return s, Text, "", false
		}
		i += j
		switch {
		case strings.HasPrefix(s[i:], ChannelMarker):
			return s[:i], Channel, s[i+len(ChannelMarker):], true
		case strings.HasPrefix(s[i:], ConstrainMarker):
			return s[:i], Constrain, s[i+len(ConstrainMarker):], true
		}
	}
}

// IsMarker reports whether s is the text of a marker.
func IsMarker(s string) bool { return s == ChannelMarker || s == ConstrainMarker }
