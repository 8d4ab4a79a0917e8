// Package maskbench reads MaskBench (JSONSchemaBench's mask benchmark:
// real JSON Schemas with valid and invalid instances), which the shared
// folder beside this repository holds as maskbench.jsonl.gz. The constrain
// and jsonschema tests, the sampler's property test and the MaskBench
// runner all read it here; none of them copies it into the repository.
package maskbench

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Entry is one schema of MaskBench with its test instances.
type Entry struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
	Tests  []Test          `json:"tests"`
}

// Test is one instance of a schema: valid or not.
type Test struct {
	Valid bool            `json:"valid"`
	Data  json.RawMessage `json:"data"`
}

// Path returns where MaskBench is for a package dir levels below the
// repository's root: the shared folder is the root's sibling.
func Path(levels int) string {
	p := filepath.Join("..", "shared", "maskbench", "maskbench.jsonl.gz")
	for range levels {
		p = filepath.Join("..", p)
	}
	return p
}

// Load reads every every-th entry of the file at path (every < 1 is 1). An
// error wrapping os.ErrNotExist means the shared folder is not there.
func Load(path string, every int) ([]Entry, error) {
	every = max(every, 1)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 64<<20)
	var out []Entry
	for i := 0; sc.Scan(); i++ {
		if i%every != 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, i+1, err)
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}
