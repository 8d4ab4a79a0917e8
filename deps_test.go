package harmony

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCoreDependencies checks that the core package links nothing heavy:
// schema validation lives in harmony/jsonschema, tiktoken-go serves only
// tests, testify only tests.
func TestCoreDependencies(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	require.NoError(t, err, "go list -deps")
	for _, dep := range strings.Fields(string(out)) {
		for _, heavy := range []string{"jsonschema", "tiktoken", "testify", "regexp2", "/testsupport/"} {
			assert.NotContains(t, dep, heavy, "package harmony depends on %s", dep)
		}
	}
}
