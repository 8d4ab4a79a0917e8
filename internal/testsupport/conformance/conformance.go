// Package conformance reads the reference-generated conformance cases in
// testdata/conformance (see the README there) and compares messages the way
// that README says. The library's tests and the command's tests both run
// every case; this package keeps the two readings of the files identical.
package conformance

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// Case is one line of a conformance file.
type Case struct {
	ID           string            `json:"id"`
	Op           string            `json:"op"` // render, render_training, render_completion, parse or stream
	Role         *string           `json:"role"`
	AutoDrop     *bool             `json:"auto_drop"` // false: keep analysis
	Strict       *bool             `json:"strict"`    // false: lenient
	Conversation json.RawMessage   `json:"conversation"`
	Tokens       []uint32          `json:"tokens"`
	ExpectTokens []uint32          `json:"expect_tokens"`
	ExpectMsgs   []json.RawMessage `json:"expect_messages"`
	ExpectError  bool              `json:"expect_error"`
	ExpectSteps  [][5]*string      `json:"expect_steps"` // role, channel, recipient, content type, last delta
	ExpectErrAt  *int              `json:"expect_error_at"`
}

// KeepAnalysis reports whether the case renders with analysis dropping off.
func (c *Case) KeepAnalysis() bool { return c.AutoDrop != nil && !*c.AutoDrop }

// Lenient reports whether the case parses in non-strict mode.
func (c *Case) Lenient() bool { return c.Strict != nil && !*c.Strict }

// Load reads the cases of one JSON Lines file.
func Load(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	return out, nil
}

// NormalizeMessages decodes a JSON array of messages into generic values
// compared as the README says: keys whose value is null dropped, and content
// that is a single text part written as a string.
func NormalizeMessages(data []byte) ([]any, error) {
	var v []any
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	for _, m := range v {
		obj, ok := m.(map[string]any)
		if !ok {
			continue
		}
		for k, x := range obj {
			if x == nil {
				delete(obj, k)
			}
		}
		if parts, ok := obj["content"].([]any); ok && len(parts) == 1 {
			if p, ok := parts[0].(map[string]any); ok && p["type"] == "text" {
				obj["content"] = p["text"]
			}
		}
	}
	if v == nil {
		v = []any{}
	}
	return v, nil
}
