package wild

// This file reads the sets of real outputs kept in JSON lines
// (testdata/wild/sets/set-*.jsonl, copied from ../shared/wild), whose two
// formats say what to expect differently: set-2026-11-23 gives the best
// reading and others as good (best, accept; a null text is none), and
// set-2026-11-27 one reading whose null fields are not scored (expect).

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// SetCase is one output of a set.
type SetCase struct {
	Set       string   // the set's file name
	ID        string   // the case's id
	Kind      string   // what is odd about it, when the set says
	Start     string   // "assistant": the tokens follow "<|start|>assistant"; "": they start at <|start|>
	Text      *string  // the output, special tokens spelled out
	Tokens    []uint32 // or its token ids
	Truncated bool     // sampling stopped at the token limit
	Tools     []string // the declared function names; nil: not known
	Builtins  []string // the declared tool namespaces ("browser", "python", …)
	Readings  []Reading
}

// Reading is what a server may read from an output: the case's expected
// reading, or one the set accepts as just as good.
type Reading struct {
	Content   *string // nil: not scored
	Reasoning *string // nil: not scored
	// ReasoningContains are texts the reasoning must hold (white space
	// aside).
	ReasoningContains []string
	Calls             []ToolCall
	CallsScored       bool
	Why               string // why an accepted reading is as good
}

// LoadSet reads the set in file (JSON lines of either format).
func LoadSet(file string) ([]SetCase, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	set := filepath.Base(file)
	var out []SetCase
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		c, err := setCase(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		c.Set = set
		out = append(out, c)
	}
	return out, sc.Err()
}

// setLine is a line of either format.
type setLine struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	Start     *string   `json:"start"`
	Text      *string   `json:"text"`
	Tokens    []uint32  `json:"tokens"`
	Truncated bool      `json:"truncated"`
	Tools     []string  `json:"tools"`
	Builtins  []string  `json:"builtins"`
	Best      *reading  `json:"best"`
	Accept    []reading `json:"accept"`
	Expect    *reading  `json:"expect"`
}

// reading is a reading as either format writes it.
type reading struct {
	Content           *string    `json:"content"`
	Reasoning         *string    `json:"reasoning"`
	ReasoningContains []string   `json:"reasoning_contains"`
	ToolCalls         []ToolCall `json:"tool_calls"` // set-2026-11-23
	Calls             []ToolCall `json:"calls"`      // set-2026-11-27
	Why               string     `json:"why"`
}

func setCase(line []byte) (SetCase, error) {
	var l setLine
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&l); err != nil {
		return SetCase{}, err
	}
	c := SetCase{ID: l.ID, Kind: l.Kind, Text: l.Text, Tokens: l.Tokens, Truncated: l.Truncated}
	if c.Tokens != nil {
		c.Text = nil // the ids are what was sampled; the text shows them
	}
	if c.Text == nil && c.Tokens == nil {
		return SetCase{}, fmt.Errorf("%s: neither text nor tokens", l.ID)
	}
	switch {
	case l.Expect != nil: // set-2026-11-27: null is not scored
		if l.Start == nil {
			return SetCase{}, fmt.Errorf("%s: no start", l.ID)
		}
		c.Start, c.Tools, c.Builtins = *l.Start, l.Tools, l.Builtins
		c.Readings = []Reading{{Content: l.Expect.Content, Reasoning: l.Expect.Reasoning,
			ReasoningContains: l.Expect.ReasoningContains, Calls: l.Expect.Calls, CallsScored: l.Expect.Calls != nil}}
	case l.Best != nil: // set-2026-11-23: null is none
		c.Start = "assistant"
		for _, r := range append([]reading{*l.Best}, l.Accept...) {
			c.Readings = append(c.Readings, Reading{Content: orEmpty(r.Content), Reasoning: orEmpty(r.Reasoning),
				Calls: r.ToolCalls, CallsScored: true, Why: r.Why})
		}
		c.Tools, c.Builtins = called(c.Readings)
	default:
		return SetCase{}, fmt.Errorf("%s: neither best nor expect", l.ID)
	}
	return c, nil
}

func orEmpty(s *string) *string {
	if s == nil {
		return new(string)
	}
	return s
}

// called returns the tools the readings call, as set-2026-11-23's requests
// declared them: a dotted name or python or browser is a namespace's tool,
// any other a function. A name no request could declare (one holding a
// special token's text) is left out. Functions is never nil: a request
// declares its functions, even when it has none.
func called(rs []Reading) (functions, namespaces []string) {
	functions = []string{}
	seen := map[string]bool{}
	for _, r := range rs {
		for _, c := range r.Calls {
			n := c.Name
			if strings.Contains(n, "<|") || seen[n] {
				continue
			}
			seen[n] = true
			ns, _, dotted := strings.Cut(n, ".")
			switch {
			case dotted:
				if !seen[ns+"."] {
					seen[ns+"."] = true
					namespaces = append(namespaces, ns)
				}
			case n == "python" || n == "browser":
				namespaces = append(namespaces, n)
			default:
				functions = append(functions, n)
			}
		}
	}
	return functions, namespaces
}

// Check reports how got differs from r, or nil: texts are compared with
// runs of white space collapsed, arguments as JSON values when both are
// JSON.
func (r Reading) Check(got Extraction) error {
	if r.Content != nil && squash(got.Content) != squash(*r.Content) {
		return fmt.Errorf("content %q, want %q", got.Content, *r.Content)
	}
	if r.Reasoning != nil && squash(got.Reasoning) != squash(*r.Reasoning) {
		return fmt.Errorf("reasoning %q, want %q", got.Reasoning, *r.Reasoning)
	}
	for _, s := range r.ReasoningContains {
		if !strings.Contains(squash(got.Reasoning), squash(s)) {
			return fmt.Errorf("reasoning %q lacks %q", got.Reasoning, s)
		}
	}
	if !r.CallsScored {
		return nil
	}
	if err := sameCalls(got.ToolCalls, r.Calls, "want"); err != nil {
		return err
	}
	return nil
}

// Match returns the index of the first of c's readings that got reads as,
// or the reason it reads as none (its difference from each).
func (c SetCase) Match(got Extraction) (int, error) {
	var why []string
	for i, r := range c.Readings {
		err := r.Check(got)
		if err == nil {
			return i, nil
		}
		why = append(why, fmt.Sprintf("reading %d: %v", i, err))
	}
	return -1, fmt.Errorf("%s", strings.Join(why, "; "))
}
