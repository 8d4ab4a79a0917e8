package harmony

// This file holds the rules of recovery mode (ParseRecover): how a
// header that the reference would misread or refuse is read instead. Real
// gpt-oss output puts content types where recipients go ("<|channel|>final
// <|constrain|>json"), addresses the assistant itself ("to=assistant"),
// repeats "to=" and writes channels that are no channel. Each rule is one
// line on ParseRecover; this is their one implementation.

import (
	"strings"

	"github.com/go-harmony/harmony/internal/msghdr"
	"github.com/go-harmony/harmony/internal/toolname"
)

// headerItems splits header text into words at ASCII white space and around
// the text of special tokens: "<|channel|>" and "<|constrain|>" are items of
// their own, any other special token's text separates words and is counted
// as dropped. A "to=" word that names a declared function with spaces in its
// name (tools.Declared) is one word, spaces and all.
func headerItems(dst []string, s string, tools *toolname.Rule) (items []string, dropped int) {
	items = dst
	word := -1
	flush := func(end int) {
		if word >= 0 {
			items = append(items, s[word:end])
			word = -1
		}
	}
	for i := 0; i < len(s); {
		switch s[i] {
		case ' ', '\t', '\n', '\f', '\r':
			flush(i)
			i++
			continue
		case '<':
			if j, k, t := findSpecial(s[:min(len(s), i+maxSpecialLen)], i); j == i {
				flush(i)
				switch t {
				case TokenChannel, TokenConstrain:
					items = append(items, s[i:k])
				default:
					dropped++
				}
				i = k
				continue
			}
		}
		if word < 0 {
			word = i
			if n := spacedToWord(s[i:], tools); n > 0 {
				i += n
				flush(i)
				continue
			}
		}
		i++
	}
	flush(len(s))
	return items, dropped
}

// recoverHeader reads a complete header (its <|message|> has arrived) by the
// recovery rules; role is the role the caller told, or "". It cannot fail:
// what it cannot place is dropped and counted.
func (p *StreamParser) recoverHeader(s string, role Role) (h header, dropped int) {
	var buf [16]string
	items, dropped := headerItems(buf[:0], s, &p.tools)
	i := 0
	switch {
	case role != "":
		if len(items) > 0 && items[0] == string(role) {
			i = 1 // the role written again, as after a doubled <|start|>
		}
	case len(items) > 0 && Role(items[0]).Valid():
		role, i = Role(items[0]), 1
	case len(items) > 1 && !msghdr.IsMarker(items[0]) && CheckHeaderField(items[0]) == nil:
		role, h.name, i = RoleTool, items[0], 1 // a tool's name, as the reference reads it
	default:
		role = RoleAssistant
	}
	h.role = role
	afterChannel := false
	toUnknown := false // a "to=" that names no valid recipient, nor the user
	toSelf := false    // a "to=assistant" in an assistant's message
	for ; i < len(items); i++ {
		it := items[i]
		switch {
		case it == msghdr.ChannelMarker:
			afterChannel = true
			if i+1 == len(items) || msghdr.IsMarker(items[i+1]) {
				dropped++
				continue
			}
			i++
			c := items[i]
			if !isKnownChannel(c) {
				c = ChannelAnalysis
				dropped++
			}
			if h.channel != "" {
				// A header begun again: the later channel wins, unless
				// the earlier one was analysis, and its content type
				// goes with the earlier channel.
				dropped++
				h.contentType = ""
				if h.channel == ChannelAnalysis {
					c = ChannelAnalysis
				}
			}
			h.channel = c
		case it == msghdr.ConstrainMarker:
			if i+1 == len(items) || msghdr.IsMarker(items[i+1]) || h.contentType != "" || CheckHeaderField(items[i+1]) != nil {
				dropped++
				continue
			}
			i++
			h.contentType = msghdr.ConstrainMarker + items[i]
		case strings.HasPrefix(it, msghdr.RecipientPrefix):
			switch r := p.recipient(role, it[len(msghdr.RecipientPrefix):]); {
			case h.recipient == "" && r.Valid():
				h.recipient = r.Full
			case h.recipient == "" && r.Kind != toolname.Address:
				toUnknown = true
				dropped++
			case role == RoleAssistant && r.Full == string(RoleAssistant):
				toSelf = true
				dropped++
			default:
				dropped++
			}
		case !afterChannel && h.recipient == "":
			if r := p.recipient(role, it); r.Valid() {
				h.recipient = r.Full // the reference's bare recipient before the channel
			} else {
				dropped++
			}
		case afterChannel && h.contentType == "" && CheckHeaderField(it) == nil:
			h.contentType = it // a word after the channel that is not to=
		default:
			dropped++
		}
	}
	if toUnknown && h.recipient == "" {
		// Meant for a tool that is not one: never content, never a call.
		h.channel = ChannelAnalysis
	}
	if toSelf && h.recipient == "" && h.channel != ChannelFinal {
		// The assistant writing to itself off the final channel: a tool's
		// reply it made up (it ends it with <|call|>), no answer.
		h.channel = ChannelAnalysis
	}
	return h, dropped
}

// headerless reads a header that recovery cannot complete (cut short by a
// stop token, the end of the output or a <|start|>, or left without
// <|message|>): its words contribute only their fields and are dropped
// (counted), and the text around them is kept, white space as the model
// wrote it but at its ends. The header's words are the role written again
// at its start, each <|channel|> and the channel word after it, each "to="
// word (a declared name with spaces whole), each <|constrain|> and the type
// word after it, and a bare content type right after another header word.
// The text is final when the header names the final channel exactly, has
// no text before it and addresses no tool (never a call); otherwise it is
// analysis (a commentary header cut short is most often a call's, broken).
func (p *StreamParser) headerless(s string, role Role) (text, channel string, dropped int) {
	s = strings.TrimLeft(s, " \t\n\f\r")
	if role != "" {
		if rest, ok := strings.CutPrefix(s, string(role)); ok && (rest == "" || strings.HasPrefix(rest, "<|") ||
			strings.HasPrefix(rest, msghdr.RecipientPrefix) || isASCIISpace(rest[0])) {
			s = rest
		}
	}
	var b strings.Builder
	named := true      // every channel word is a channel's exact name
	before := false    // text came before the first <|channel|>
	addressed := false // a "to=" names something other than the user or the assistant
	afterWord := false // the last item was a header word: a bare content type may follow
	seen := false      // a <|channel|> came
	for i := 0; i < len(s); {
		if isASCIISpace(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		if s[i] == '<' {
			if j, k, t := findSpecial(s[:min(len(s), i+maxSpecialLen)], i); j == i {
				dropped++
				i = k
				switch t {
				case TokenChannel:
					n, name := channelWord(s[k:])
					if n == 0 {
						// "<|channel|> final": the name after blanks, if it is one
						rest := strings.TrimLeft(s[k:], " \t")
						if startsWithChannel(rest) {
							m, c := channelWord(rest)
							n, name = len(s[k:])-len(rest)+m, c
						}
					}
					i += n
					seen = true
					switch {
					case name == "":
						named = false
					case channel != ChannelAnalysis:
						channel = name // of several, analysis wins, else the last
					}
					afterWord = true
				case TokenConstrain:
					sp := len(s[k:]) - len(strings.TrimLeft(s[k:], " \t"))
					i += sp + wordLen(s[k+sp:]) // the type word, after any blanks
					afterWord = true
				}
				continue
			}
		}
		n := wordLen(s[i:])
		if n == 0 {
			n = 2 // a "<|" that starts no special token's text is text
		}
		switch w := s[i : i+n]; {
		case strings.HasPrefix(w, msghdr.RecipientPrefix):
			if m := spacedToWord(s[i:], &p.tools); m > 0 {
				n = m
			}
			if p.recipient(role, s[i+len(msghdr.RecipientPrefix):i+n]).Kind != toolname.Address {
				addressed = true
			}
			dropped++
			afterWord = true
		case afterWord && seen && isContentTypeWord(w):
			dropped++
			afterWord = false
		default:
			b.WriteString(w)
			before = before || !seen
			afterWord = false
		}
		i += n
	}
	if before || addressed || !named || channel != ChannelFinal {
		channel = ChannelAnalysis // commentary too: the header of a call or a preamble, broken
	}
	return strings.Trim(b.String(), " \t\n\f\r"), channel, dropped
}

// spacedToWord returns the length of the "to=" word at the start of s when
// it names a declared function whose name holds white space
// (tools.Declared), spaces and all, or 0: the one reading of such a word
// for headerItems and headerless.
func spacedToWord(s string, tools *toolname.Rule) int {
	if r, ok := strings.CutPrefix(s, msghdr.RecipientPrefix); ok {
		if n := tools.Declared(r); n > 0 {
			return len(msghdr.RecipientPrefix) + n
		}
	}
	return 0
}

// wordLen returns the length of the header word at the start of s: up to
// ASCII white space or a special token's "<|".
func wordLen(s string) int {
	for i := 0; i < len(s); i++ {
		if isASCIISpace(s[i]) || s[i] == '<' && i+1 < len(s) && s[i+1] == '|' {
			return i
		}
	}
	return len(s)
}

// channelWord returns the length of the channel word at the start of s,
// after a <|channel|> of a header without <|message|>, and the channel it
// names exactly, or "". A word that is a channel's name followed by text
// without white space between ("commentary?commentary?We need") is the
// run of channel names and the punctuation after each, so that the text
// after it stays text; it names no channel (analysis).
func channelWord(s string) (n int, channel string) {
	for _, c := range [...]string{ChannelAnalysis, ChannelCommentary, ChannelFinal} {
		if strings.HasPrefix(s, c) && (len(s) == len(c) || wordLen(s[len(c):]) == 0) {
			return len(c), c
		}
	}
	j := 0
	for more := true; more; {
		more = false
		for _, c := range [...]string{ChannelAnalysis, ChannelCommentary, ChannelFinal} {
			if strings.HasPrefix(s[j:], c) {
				j += len(c)
				for j < len(s) && isChannelPunct(s[j]) {
					j++
				}
				more = true
				break
			}
		}
	}
	if j > 0 && (j == len(s) || !('a' <= s[j] && s[j] <= 'z')) {
		return j, ""
	}
	return wordLen(s), ""
}

// startsWithChannel reports whether s starts with a channel's name.
func startsWithChannel(s string) bool {
	return strings.HasPrefix(s, ChannelAnalysis) || strings.HasPrefix(s, ChannelCommentary) || strings.HasPrefix(s, ChannelFinal)
}

// isChannelPunct reports whether c is ASCII punctuation that may follow a
// channel's name in a garbled channel word.
func isChannelPunct(c byte) bool {
	return c > ' ' && c < 0x7f && c != '<' && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}

// isContentTypeWord reports whether w, bare after a header word of a header
// without <|message|>, is a content type rather than text: json or code, as
// gpt-oss writes them, or a media type ("application/json").
func isContentTypeWord(w string) bool {
	if w == "json" || w == "code" {
		return true
	}
	if !strings.Contains(w, "/") {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("./+-", c) >= 0) {
			return false
		}
	}
	return true
}

// isASCIISpace reports whether c is ASCII white space: space, tab,
// newline, form feed or carriage return.
func isASCIISpace(c byte) bool { return asciiSpace[c] }

// asciiSpace marks the bytes isASCIISpace reports (a table: the stream's
// hold-back asks for every byte of most content tokens).
var asciiSpace = [256]bool{' ': true, '\t': true, '\n': true, '\f': true, '\r': true}

// isKnownChannel reports whether c is a channel recovery accepts; any other
// channel word makes the message analysis.
func isKnownChannel(c string) bool {
	return c == ChannelAnalysis || c == ChannelCommentary || c == ChannelFinal
}

// recipient says what r is as the recipient of a message from role, by the
// rule of recovery mode (toolname.Recover) for the tools of
// ParseOptions.Functions and ParseOptions.Namespaces.
func (p *StreamParser) recipient(role Role, r string) toolname.Recipient {
	return p.tools.Resolve(r, role == RoleTool)
}
