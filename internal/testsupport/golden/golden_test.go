package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(string, ...any)     { r.failed = true }
func (r *recorder) FailNow()                  { r.failed = true; panic(r) }
func (r *recorder) Fatalf(f string, a ...any) { r.Errorf(f, a...); r.FailNow() }

// check runs Check against a recorder and reports whether it failed.
func check(t *testing.T, path string, got []byte) (failed bool) {
	r := &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil && v != any(r) {
			panic(v)
		}
		failed = r.failed
	}()
	Check(r, path, got)
	return r.failed
}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "g.txt")
	assert.True(t, check(t, path, []byte("a")), "a missing file fails")

	*update = true
	assert.False(t, check(t, path, []byte("a\n")), "-update writes")
	*update = false
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "a\n", string(b))

	assert.False(t, check(t, path, []byte("a\n")), "the same contents pass")
	assert.True(t, check(t, path, []byte("b\n")), "other contents fail")
}

func TestCheckLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "large.txt")
	big := []byte(strings.Repeat("line\n", 4000))
	require.NoError(t, os.WriteFile(path, big, 0o644))
	assert.False(t, check(t, path, big), "the same large contents pass")
	changed := append([]byte(nil), big...)
	changed[len(changed)-2] = 'x'
	assert.True(t, check(t, path, changed), "a change on the last line fails")
	assert.True(t, check(t, path, big[:len(big)-5]), "a missing line fails")
}
