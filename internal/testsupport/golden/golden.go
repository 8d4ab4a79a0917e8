// Package golden is the one -update flag of the module's tests and the
// comparison every golden-file test makes with it: a test compares what it
// produced with a file under testdata, and `go test -update` rewrites the
// file instead, for review in the diff.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files (review every change)")

// Updating reports whether the tests were run with -update: a golden test
// that writes a file of its own (not through Check) writes it then.
func Updating() bool { return *update }

// Check fails t unless got equals the contents of the file at path; with
// -update it writes got to path (making its directory) instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to write %s", path)
	require.Equal(t, string(want), string(got), "%s differs (go test -update rewrites it; review the diff)", path)
}
