// Package golden is the one -update flag of the module's tests and the
// comparison every golden-file test makes with it: a test compares what it
// produced with a file under testdata, and `go test ./pkg -update` rewrites
// the file instead, for review in the diff. The flag goes after the
// packages (or as -update=true): go test does not know it is a boolean, so
// in `go test -update ./pkg` it would take ./pkg as its value.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
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
	if string(want) == string(got) {
		return
	}
	if len(want) <= maxShown && len(got) <= maxShown {
		require.Equal(t, string(want), string(got), "%s differs (go test -update rewrites it; review the diff)", path)
	}
	// A large file: the first line that differs, not both files whole.
	wl, gl := strings.SplitAfter(string(want), "\n"), strings.SplitAfter(string(got), "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	line := func(l []string) string {
		if i < len(l) {
			return l[i]
		}
		return "(end of file)"
	}
	require.Failf(t, "golden file differs", "%s differs from line %d on (%d lines, got %d; go test -update rewrites it; review the diff):\nwant %q\ngot  %q",
		path, i+1, len(wl), len(gl), line(wl), line(gl))
}

// maxShown is the size up to which a differing golden file is shown whole,
// as a diff.
const maxShown = 8 << 10
