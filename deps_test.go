package harmony

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCoreDependencies checks that the core package links nothing heavy:
// schema validation lives in harmony/jsonschema, tiktoken-go serves only
// tests, testify only tests.
func TestCoreDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"jsonschema", "tiktoken", "testify", "regexp2", "/testsupport/"} {
			if strings.Contains(dep, heavy) {
				t.Errorf("package harmony depends on %s", dep)
			}
		}
	}
}
