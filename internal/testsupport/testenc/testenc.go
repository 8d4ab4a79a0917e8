// Package testenc is the one loader of the gpt-oss encoding for the tests
// of the packages outside the root (the root's own tests cannot import it
// and keep their mustEncoding). The encoding is loaded once per test
// binary; a failed load fails every test that asks for it, not only the
// first.
package testenc

import (
	"sync"
	"testing"

	"github.com/go-harmony/harmony"
	"github.com/stretchr/testify/require"
)

var load = sync.OnceValues(func() (*harmony.Encoding, error) {
	return harmony.LoadEncoding(harmony.HarmonyGptOss)
})

// Encoding returns the HarmonyGptOss encoding, shared by the tests of the
// binary, or fails t with the load's error.
func Encoding(t testing.TB) *harmony.Encoding {
	t.Helper()
	enc, err := load()
	require.NoError(t, err, "harmony.LoadEncoding(HarmonyGptOss)")
	return enc
}
