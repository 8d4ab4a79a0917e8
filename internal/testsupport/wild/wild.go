// Package wild reads the corpus of real gpt-oss outputs in testdata/wild:
// what the model sampled, where it was found, and what the best of the
// servers that met it extracted. The library's and openaicompat's tests run
// every case.
package wild

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
)

// Case is one output of the corpus.
type Case struct {
	File        string            `json:"-"`
	ID          string            `json:"id"`
	Source      string            `json:"source"`
	SourceKind  string            `json:"source_kind"`
	Kind        string            `json:"kind"`
	Description string            `json:"description"`
	Start       string            `json:"start"`    // "assistant": the tokens follow "<|start|>assistant"; "": they start at <|start|>
	Text        *string           `json:"text"`     // the output, special tokens spelled out
	Tokens      []uint32          `json:"tokens"`   // or its token ids
	Tools       []string          `json:"tools"`    // the declared function names; absent: not known
	Builtins    []string          `json:"builtins"` // the declared built-in tools ("browser", "python")
	Peers       json.RawMessage   `json:"peers"`    // what each peer server returns or the source says
	Best        Extraction        `json:"best"`     // the best a server can return, by the rules
	Verdicts    map[string]string `json:"verdicts"` // each peer against best: ok, partial, fail or leak
}

// Extraction is what a server returns for an output.
type Extraction struct {
	Content   string     `json:"content"`
	Reasoning string     `json:"reasoning"`
	ToolCalls []ToolCall `json:"tool_calls"`
}

// ToolCall is a function call, its name without the "functions." prefix.
type ToolCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Load reads every case under dir (testdata/wild), in file name order.
func Load(dir string) ([]Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Case
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var c Case
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if (c.Text == nil) == (c.Tokens == nil) {
			return nil, fmt.Errorf("%s: want exactly one of text and tokens", f)
		}
		c.File = filepath.Base(f)
		out = append(out, c)
	}
	return out, nil
}

// AtLeast reports how got falls short of best, or nil: the same content and
// the same tool calls (arguments compared as JSON when both are JSON), and
// the best reasoning contained in got's (white space aside), since recovery
// may add to the reasoning what a peer drops.
func AtLeast(got, best Extraction) error {
	if strings.TrimSpace(got.Content) != strings.TrimSpace(best.Content) {
		return fmt.Errorf("content %q, best peer %q", got.Content, best.Content)
	}
	if err := sameCalls(got.ToolCalls, best.ToolCalls, "best peer"); err != nil {
		return err
	}
	if want := squash(best.Reasoning); want != "" && !strings.Contains(squash(got.Reasoning), want) {
		return fmt.Errorf("reasoning %q lacks the best peer's %q", got.Reasoning, best.Reasoning)
	}
	return nil
}

func sameArguments(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil {
		return reflect.DeepEqual(x, y)
	}
	return strings.TrimSpace(a) == strings.TrimSpace(b)
}

func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// Peer is what one peer server returned for a case, as the corpus records
// it: an error, or what it extracted, or only a note.
type Peer struct {
	Error     string     `json:"error"`
	Content   *string    `json:"content"`
	Reasoning *string    `json:"reasoning"`
	ToolCalls []ToolCall `json:"tool_calls"`
	Messages  []struct {
		Channel *string `json:"channel"`
		Content string  `json:"content"`
	} `json:"messages"`
	Note string `json:"note"`
}

// PeerResults decodes the case's peers.
func (c Case) PeerResults() (map[string]Peer, error) {
	var m map[string]Peer
	if err := json.Unmarshal(c.Peers, &m); err != nil {
		return nil, fmt.Errorf("%s: peers: %w", c.File, err)
	}
	return m, nil
}

// Sources counts the cases by the project they come from (the id's prefix)
// and by kind of source.
func Sources(cases []Case) (projects map[string]int, tests, issues int) {
	projects = map[string]int{}
	for _, c := range cases {
		p, _, _ := strings.Cut(c.ID, "-")
		projects[p]++
		if c.SourceKind == "issue" {
			issues++
		} else {
			tests++
		}
	}
	return projects, tests, issues
}

// Table writes the README's markdown table: one row for every case and
// peer whose verdict is not "ok", what that peer returns, and what ours
// (got, by file) returns.
func Table(cases []Case, got map[string]Extraction) (string, error) {
	var b strings.Builder
	b.WriteString("| Output | Peer | The peer returns | harmony-go returns |\n|---|---|---|---|\n")
	for _, c := range cases {
		peers, err := c.PeerResults()
		if err != nil {
			return "", err
		}
		names := make([]string, 0, len(c.Verdicts))
		for p, v := range c.Verdicts {
			if v != "ok" {
				names = append(names, p)
			}
		}
		sort.Strings(names)
		for _, p := range names {
			fmt.Fprintf(&b, "| [%s](%s) (%s) | %s: %s | %s | %s |\n", c.ID, c.Source, c.Kind,
				p, c.Verdicts[p], peers[p].summary(), got[c.File].summary())
		}
	}
	return b.String(), nil
}

func (p Peer) summary() string {
	switch {
	case p.Error != "":
		return "error: " + cell(p.Error, 70)
	case p.Content != nil || p.Reasoning != nil || p.ToolCalls != nil:
		e := Extraction{ToolCalls: p.ToolCalls}
		if p.Content != nil {
			e.Content = *p.Content
		}
		if p.Reasoning != nil {
			e.Reasoning = *p.Reasoning
		}
		return e.summary()
	case p.Messages != nil:
		parts := make([]string, 0, len(p.Messages))
		for _, m := range p.Messages {
			ch := "no channel"
			if m.Channel != nil {
				ch = *m.Channel
			}
			parts = append(parts, ch+" "+cell(m.Content, 30))
		}
		return fmt.Sprintf("%d messages: %s", len(p.Messages), strings.Join(parts, "; "))
	default:
		return cell(p.Note, 70)
	}
}

func (e Extraction) summary() string {
	var parts []string
	if e.Content != "" {
		parts = append(parts, "content "+cell(e.Content, 40))
	}
	if e.Reasoning != "" {
		parts = append(parts, "reasoning "+cell(e.Reasoning, 30))
	}
	for _, c := range e.ToolCalls {
		parts = append(parts, "call "+cell(c.Name+"("+c.Arguments+")", 40))
	}
	if parts == nil {
		return "nothing"
	}
	return strings.Join(parts, "; ")
}

// cell quotes s, cut to max runes, as a markdown table's code span.
func cell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	s = strings.ReplaceAll(s, "`", "'")
	return "`" + strings.ReplaceAll(s, "|", `\|`) + "`"
}

// sameCalls reports how the calls got differ from want (named so in the
// error), or nil: the same names in order, arguments as JSON values.
func sameCalls(got, want []ToolCall, wantName string) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d tool calls %+v, %s %d %+v", len(got), got, wantName, len(want), want)
	}
	for i, c := range got {
		w := want[i]
		if c.Name != w.Name || !sameArguments(c.Arguments, w.Arguments) {
			return fmt.Errorf("tool call %d: %s(%s), %s %s(%s)", i, c.Name, c.Arguments, wantName, w.Name, w.Arguments)
		}
	}
	return nil
}
