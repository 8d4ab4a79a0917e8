package harmony

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/go-harmony/harmony/internal/testsupport/conformance"
	"github.com/go-harmony/harmony/internal/testsupport/wild"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampledCompletion is a completion of a corpus: its tokens, and the role
// the prompt opened its first message with ("" when it starts at <|start|>).
type sampledCompletion struct {
	name string
	toks []Token
	role Role
}

// conformanceCompletions returns the completions of the strict parse cases
// of the conformance files named that the reference parses without error.
func conformanceCompletions(t *testing.T, files ...string) []sampledCompletion {
	var out []sampledCompletion
	for _, f := range files {
		cases, err := conformance.Load(filepath.Join("testdata", "conformance", f))
		require.NoError(t, err)
		for _, c := range cases {
			if c.Op != "parse" || c.ExpectError || c.Lenient() {
				continue
			}
			var role Role
			if c.Role != nil {
				role = Role(*c.Role)
			}
			toks := make([]Token, len(c.Tokens))
			for i, x := range c.Tokens {
				toks[i] = Token(x)
			}
			out = append(out, sampledCompletion{c.ID, toks, role})
		}
	}
	return out
}

// wildCompletions returns the completions of testdata/wild.
func wildCompletions(t *testing.T, enc *Encoding) []sampledCompletion {
	cases, err := wild.Load("testdata/wild")
	require.NoError(t, err)
	var out []sampledCompletion
	for _, c := range cases {
		out = append(out, sampledCompletion{c.File, wildTokens(enc, c), Role(c.Start)})
	}
	return out
}

// sharedWildCompletions returns the completions of the two sets of
// ../shared/wild (see the README there): the text after "<|start|>" and
// the case's start role (assistant when the set does not say), or its
// tokens when it has them. It returns nil, nil when the sets are absent.
func sharedWildCompletions(enc *Encoding) ([]sampledCompletion, error) {
	var out []sampledCompletion
	for _, name := range []string{"set-2026-11-23.jsonl", "set-2026-11-27.jsonl"} {
		f, err := os.Open(filepath.Join("..", "shared", "wild", name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var c struct {
				ID     string   `json:"id"`
				Text   *string  `json:"text"`
				Tokens []uint32 `json:"tokens"`
				Start  *string  `json:"start"`
			}
			if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
				f.Close()
				return nil, err
			}
			role := RoleAssistant
			if c.Start != nil {
				role = Role(*c.Start)
			}
			var toks []Token
			switch {
			case c.Tokens != nil:
				for _, x := range c.Tokens {
					toks = append(toks, Token(x))
				}
			case c.Text != nil:
				toks = enc.EncodeWithSpecialTokens(*c.Text)
			}
			out = append(out, sampledCompletion{name + ":" + c.ID, toks, role})
		}
		f.Close()
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// historyShaped reports whether a completion that parsed strictly into msgs
// is one a history can hold token for token: every header holds text and
// the channel and constrain markers only (a stop token or <|start|> the
// reference reads into a header is never written back as a special token),
// every content text only, as UTF-8; each message is closed by the token the
// renderer writes for it (<|call|> for the assistant's message to a
// recipient its header addresses, <|end|> or <|return|> otherwise), or cut
// off by the end; and a completion that starts inside its first header
// reads the same from its <|start|>.
func historyShaped(enc *Encoding, c sampledCompletion, msgs []Message) bool {
	i, inContent, start := 0, false, 0
	for k, t := range c.toks {
		switch {
		case t == TokenMessage && !inContent:
			inContent, start = true, k+1
		case inContent && isStopToken(t):
			if i >= len(msgs) {
				return false
			}
			form, written := writtenForm(&msgs[i])
			if (closingToken(&msgs[i], form, written) == TokenCall) != (t == TokenCall) {
				return false
			}
			if b, err := enc.AppendBytes(nil, c.toks[start:k]); err != nil || !utf8.Valid(b) {
				return false
			}
			i, inContent = i+1, false
		case isSpecial(t) && (inContent || t != TokenChannel && t != TokenConstrain && t != TokenStart):
			return false
		case t == TokenStart && k > 0 && c.toks[k-1] != TokenEnd && c.toks[k-1] != TokenCall && c.toks[k-1] != TokenReturn:
			return false // a <|start|> inside a header
		}
	}
	if inContent {
		if b, err := enc.AppendBytes(nil, c.toks[start:]); err != nil || !utf8.Valid(b) {
			return false
		}
	}
	if c.role != "" {
		full := append(append([]Token{TokenStart}, enc.EncodeOrdinary(string(c.role))...), c.toks...)
		again, err := enc.ParseCompletion(full, "", nil)
		plain, _ := enc.ParseCompletion(c.toks, c.role, nil)
		if err != nil || !reflect.DeepEqual(again, plain) {
			return false
		}
	}
	return true
}

// roundTrip parses each completion with opts and renders the messages
// again; it returns how many are history-shaped (by their strict parse)
// and, in recovery, read with nothing dropped: well formed) and how many of
// those render back to their sampled tokens, failing the test on any
// rendering error.
func roundTrip(t *testing.T, enc *Encoding, all []sampledCompletion, mode ParseMode) (shaped, exact int) {
	t.Helper()
	for _, c := range all {
		strict, err := enc.ParseCompletion(c.toks, c.role, &ParseOptions{KeepHeaders: true})
		if err != nil || len(strict) == 0 || !historyShaped(enc, c, strict) {
			continue
		}
		msgs := strict
		if mode == ParseRecover {
			var dropped int
			msgs, dropped = recoverExact(t, enc, c)
			if dropped > 0 {
				continue // recovery changed what a header says
			}
		}
		shaped++
		want := sampledAsHistory(enc, c.toks, c.role, &msgs[len(msgs)-1])
		got, err := enc.RenderConversation(NewConversation(msgs...), &RenderOptions{Reasoning: ReasoningKeepAll})
		require.NoError(t, err, "%s: %s", c.name, mode)
		if slices.Equal(got, want) {
			exact++
			continue
		}
		gs, _ := enc.Decode(got)
		ws, _ := enc.Decode(want)
		t.Logf("%s (%s): rendered back\n%q\nsampled\n%q", c.name, mode, gs, ws)
	}
	return shaped, exact
}

// recoverExact parses c in recovery with KeepHeaders, and returns the
// messages and what recovery dropped.
func recoverExact(t *testing.T, enc *Encoding, c sampledCompletion) ([]Message, int) {
	t.Helper()
	p, err := enc.NewStreamParser(c.role, &ParseOptions{Mode: ParseRecover, KeepHeaders: true})
	require.NoError(t, err)
	for _, tok := range c.toks {
		require.NoError(t, p.Process(tok), c.name)
	}
	require.NoError(t, p.ProcessEOS(), c.name)
	return p.Messages(), p.Dropped()
}

// TestRenderParseRoundTrip is issue 21's check that a history holds the
// model's turns as it sampled them: render(parse(t)) == t (<|return|>
// written <|end|>) for every history-shaped completion (historyShaped) of
// the conformance set and both wild sets, parsed strictly with KeepHeaders
// and parsed in recovery with KeepHeaders. The strict parse decides which
// completions are history-shaped (well formed) for both modes; recovery's
// well-formed ones are those it reads dropping nothing. (Before structured
// answers were written from their forms, 355 of the 374 strict ones and 350
// of the 353 recovered ones rendered back exactly.)
func TestRenderParseRoundTrip(t *testing.T) {
	enc := mustEncoding(t)
	sets := []struct {
		name   string
		all    []sampledCompletion
		total  int
		shaped [2]int // strict, recover
	}{
		{"conformance", conformanceCompletions(t, "parse.jsonl", "upstream_tests.jsonl"), 304, [2]int{257, 256}},
		{"testdata/wild", wildCompletions(t, enc), 69, [2]int{43, 35}},
	}
	shared, err := sharedWildCompletions(enc)
	require.NoError(t, err)
	if shared == nil {
		t.Log("../shared/wild is absent: its two sets are not checked")
	} else {
		sets = append(sets, struct {
			name   string
			all    []sampledCompletion
			total  int
			shaped [2]int
		}{"../shared/wild", shared, 121, [2]int{74, 62}})
	}
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			require.Len(t, s.all, s.total, "completions")
			for i, mode := range []ParseMode{ParseStrict, ParseRecover} {
				shaped, exact := roundTrip(t, enc, s.all, mode)
				t.Logf("%s: %d of %d completions history-shaped, %d render back exactly", mode, shaped, len(s.all), exact)
				assert.Equal(t, s.shaped[i], shaped, "%s: history-shaped completions", mode)
				assert.Equal(t, shaped, exact, "%s: completions rendered back exactly", mode)
			}
		})
	}
}
