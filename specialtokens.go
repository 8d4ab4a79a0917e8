package harmony

// The special tokens of o200k_harmony: their ids, their texts, and finding
// their texts in a string.

import "strconv"

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

// specialTable holds the text of every special token, indexed by id minus
// FirstSpecialToken, and the reverse map. Built once at package init: it is
// small (1,091 entries) and needed by every Encoding.
var specialTable, specialByName = func() ([]string, map[string]Token) {
	named := map[Token]string{
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
	names := make([]string, LastSpecialToken-FirstSpecialToken+1)
	byName := make(map[string]Token, len(names))
	for i := range names {
		id := FirstSpecialToken + Token(i)
		name, ok := named[id]
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

// isSpecial reports whether t is a special token of the encoding (including
// the reserved ones).
func isSpecial(t Token) bool { return t >= FirstSpecialToken && t <= LastSpecialToken }

// SpecialToken returns the id of the special token whose text is name, such
// as "<|start|>", and false if there is none.
func SpecialToken(name string) (Token, bool) {
	t, ok := specialByName[name]
	return t, ok
}

// isStopToken reports whether t ends a message when sampling: <|return|>,
// <|call|> or <|end|>.
func isStopToken(t Token) bool { return t == TokenReturn || t == TokenCall || t == TokenEnd }

// maxSpecialLen is the length of the longest special token's text,
// "<|reserved_201088|>".
const maxSpecialLen = 19

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
