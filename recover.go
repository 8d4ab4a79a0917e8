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
// as dropped.
func headerItems(dst []string, s string) (items []string, dropped int) {
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
	items, dropped := headerItems(buf[:0], s)
	i := 0
	switch {
	case role != "":
		if len(items) > 0 && items[0] == string(role) {
			i = 1 // the role written again, as after a doubled <|start|>
		}
	case len(items) > 0 && Role(items[0]).Valid():
		role, i = Role(items[0]), 1
	case len(items) > 1 && !msghdr.IsMarker(items[0]) && !strings.HasPrefix(items[0], msghdr.RecipientPrefix):
		role, h.name, i = RoleTool, items[0], 1 // a tool's name, as the reference reads it
	default:
		role = RoleAssistant
	}
	h.role = role
	afterChannel := false
	toUnknown := false // a "to=" that names no valid recipient, nor the user
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
			if i+1 == len(items) || msghdr.IsMarker(items[i+1]) || h.contentType != "" {
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
			default:
				dropped++
			}
		case !afterChannel && h.recipient == "":
			if r := p.recipient(role, it); r.Valid() {
				h.recipient = r.Full // the reference's bare recipient before the channel
			} else {
				dropped++
			}
		case afterChannel && h.contentType == "":
			h.contentType = it // a word after the channel that is not to=
		default:
			dropped++
		}
	}
	if toUnknown && h.recipient == "" {
		// Meant for a tool that is not one: never content, never a call.
		h.channel = ChannelAnalysis
	}
	return h, dropped
}

// headerlessText returns the text of a header cut short by a stop token, for
// recovery: the header's words without the role written again and without
// the channel marker and its word, white space as the model wrote it.
func headerlessText(s string, role Role) string {
	s = strings.TrimLeft(s, " \t\n\f\r")
	if role != "" {
		if rest, ok := strings.CutPrefix(s, string(role)); ok && (rest == "" || strings.HasPrefix(rest, "<|") || isASCIISpace(rest[0])) {
			s = rest
		}
	}
	if i := strings.Index(s, msghdr.ChannelMarker); i >= 0 {
		after := s[i+len(msghdr.ChannelMarker):]
		end := strings.IndexFunc(after, func(r rune) bool { return r == '<' || r < 0x80 && isASCIISpace(byte(r)) })
		if end < 0 {
			end = len(after)
		}
		s = s[:i] + after[end:]
	}
	for {
		i, j, _ := findSpecial(s, 0)
		if i < 0 {
			break
		}
		s = s[:i] + s[j:]
	}
	return strings.Trim(s, " \t\n\f\r")
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

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
