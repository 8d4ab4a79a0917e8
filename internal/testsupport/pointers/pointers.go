// Package pointers holds the table of "$ref" readings that every reader of
// schemas in the module (constrain, jsonschema, schemanorm) is tested
// against, so that they keep resolving JSON Pointers the same way.
package pointers

import (
	_ "embed"
	"encoding/json"
	"testing"
)

//go:embed pointers.json
var table []byte

// Case is one reference and the definition it names: Names is nil when it
// names none (it does not resolve, or it is not a valid pointer).
type Case struct {
	Ref   string  `json:"ref"`
	Names *string `json:"names"`
}

// Table is pointers.json: the names of the definitions of the schema, and
// the references into it.
type Table struct {
	Defs []string `json:"defs"`
	Refs []Case   `json:"refs"`
}

// Load returns the table, failing t if it does not decode.
func Load(t testing.TB) Table {
	t.Helper()
	var tab Table
	if err := json.Unmarshal(table, &tab); err != nil {
		t.Fatalf("pointers.json: %v", err)
	}
	return tab
}

// Schema returns the schema of the table for ref: "$defs" with one
// definition per name, each {"const": name}, and "$ref": ref at the root.
func (tab Table) Schema(t testing.TB, ref string) []byte {
	t.Helper()
	defs := map[string]any{}
	for _, name := range tab.Defs {
		defs[name] = map[string]any{"const": name}
	}
	b, err := json.Marshal(map[string]any{"$defs": defs, "$ref": ref})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
