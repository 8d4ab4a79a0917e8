package harmony

import "strconv"

// Token is a token id of the o200k_harmony encoding.
type Token uint32

// The special tokens of o200k_harmony. Every other id from
// [FirstSpecialToken] to [LastSpecialToken] is reserved and named
// "<|reserved_N|>" with N its id.
const (
	TokenStartOfText Token = 199998 // <|startoftext|>
	TokenEndOfText   Token = 199999 // <|endoftext|>
	TokenReturn      Token = 200002 // <|return|>: end of a final answer, sampling is done
	TokenConstrain   Token = 200003 // <|constrain|>: starts a constrained content type
	TokenChannel     Token = 200005 // <|channel|>
	TokenStart       Token = 200006 // <|start|>
	TokenEnd         Token = 200007 // <|end|>
	TokenMessage     Token = 200008 // <|message|>
	TokenCall        Token = 200012 // <|call|>: end of a tool call

	// FirstSpecialToken is the lowest special token id; every lower id is an
	// o200k_base rank.
	FirstSpecialToken Token = 199998
	// LastSpecialToken is the highest id of the encoding. Ids above it are
	// unknown: decoding or parsing them is an error.
	LastSpecialToken Token = 201088
)

// The number of ids the encoding knows: ranks 0..199997 and the specials.
const vocabSize = int(LastSpecialToken) + 1

var namedSpecials = map[Token]string{
	TokenStartOfText: "<|startoftext|>",
	TokenEndOfText:   "<|endoftext|>",
	TokenReturn:      "<|return|>",
	TokenConstrain:   "<|constrain|>",
	TokenChannel:     "<|channel|>",
	TokenStart:       "<|start|>",
	TokenEnd:         "<|end|>",
	TokenMessage:     "<|message|>",
	TokenCall:        "<|call|>",
}

// specialTable holds the text of every special token, indexed by id minus
// FirstSpecialToken, and the reverse map. Built once at package init: it is
// small (1,091 entries) and needed by every Encoding.
var specialTable, specialByName = func() ([]string, map[string]Token) {
	names := make([]string, LastSpecialToken-FirstSpecialToken+1)
	byName := make(map[string]Token, len(names))
	for i := range names {
		id := FirstSpecialToken + Token(i)
		name, ok := namedSpecials[id]
		if !ok {
			name = "<|reserved_" + strconv.Itoa(int(id)) + "|>"
		}
		names[i] = name
		byName[name] = id
	}
	return names, byName
}()

// specialBytes holds the same texts as byte slices, for decoding without
// allocating.
var specialBytes = func() [][]byte {
	out := make([][]byte, len(specialTable))
	for i, name := range specialTable {
		out[i] = []byte(name)
	}
	return out
}()

// IsSpecial reports whether t is a special token of the encoding (including the
// reserved ones). It is false for ids the encoding does not know.
func IsSpecial(t Token) bool { return t >= FirstSpecialToken && t <= LastSpecialToken }

// SpecialTokenName returns the text of special token t, such as "<|start|>",
// and false if t is not a special token.
func SpecialTokenName(t Token) (string, bool) {
	if !IsSpecial(t) {
		return "", false
	}
	return specialTable[t-FirstSpecialToken], true
}

// SpecialToken returns the id of the special token whose text is name, and
// false if there is none.
func SpecialToken(name string) (Token, bool) {
	t, ok := specialByName[name]
	return t, ok
}

// SpecialTokens returns the text of every special token, in id order.
func SpecialTokens() []string { return append([]string(nil), specialTable...) }

// IsStopToken reports whether t ends a message when sampling: <|return|>,
// <|call|> or <|end|>.
func IsStopToken(t Token) bool { return t == TokenReturn || t == TokenCall || t == TokenEnd }

// StopTokens returns the tokens that end sampling of a message: <|return|>,
// <|call|> and <|end|>.
func StopTokens() []Token { return []Token{TokenReturn, TokenCall, TokenEnd} }

// StopTokensForAssistantActions returns the tokens that end an assistant's
// turn: <|return|> and <|call|>.
func StopTokensForAssistantActions() []Token { return []Token{TokenReturn, TokenCall} }

// maxSpecialLen is the length of the longest special token's text,
// "<|reserved_201088|>".
const maxSpecialLen = 19

// The formatting markers the reference names but o200k_harmony has no token
// for. Text that contains them is ordinary text.
const (
	markerRefusal      = "<|refusal|>"
	markerUntrusted    = "<|untrusted|>"
	markerEndUntrusted = "<|end_untrusted|>"
	markerMetaEnd      = "<|meta_end|>"
	markerConstrain    = "<|constrain|>"
	markerChannel      = "<|channel|>"
)

// findSpecial returns the position and id of the first special token's text in
// s at or after from, or -1. Every special token's text is "<|" + name + "|>"
// with no "|>" inside, so the only candidate starting at a "<|" ends at the
// next "|>", and no special token's text is longer than maxSpecialLen: a
// linear scan, no regular expression.
func findSpecial(s string, from int) (int, int, Token) {
	for i := from; i+1 < len(s); i++ {
		if s[i] != '<' || s[i+1] != '|' {
			continue
		}
		for j := i + 2; j+1 < len(s) && j+2-i <= maxSpecialLen; j++ {
			if s[j] == '|' && s[j+1] == '>' {
				if t, ok := specialByName[s[i:j+2]]; ok {
					return i, j + 2, t
				}
				break
			}
		}
	}
	return -1, -1, 0
}
