package o200k

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestInvalidInPlace checks that long pieces with invalid UTF-8, which are
// merged without building the replaced text (merge with invalid set), come
// out as their replaced text does through the ordinary path.
func TestInvalidInPlace(t *testing.T) {
	e := mustLoad(t)
	require.True(t, e.fffdAtomic(), "fffdAtomic is false for o200k_base")
	check := func(s string) {
		t.Helper()
		got, want := e.AppendEncode(nil, s), e.AppendEncode(nil, replaceInvalid(s))
		require.Equal(t, want, got, "%q: %s", s, firstDiff(e, replaceInvalid(s), got, want))
	}
	for _, unit := range []string{"\xff", "\xef\xbf", "\xbd", "\xef", "!\xff", "\xff\uFFFD", "\xc3", "\xe4\xb8", "\xf0\x9f\x98", "\xed\xa0\x80", "-\xbf\xbd"} {
		for _, n := range []int{1, 2, 3, 50, 130, 1000, 5000} {
			check(strings.Repeat(unit, n))
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"\xff", "\xef", "\xbf", "\xbd", "\uFFFD", "!", "-", "😀", "\xf0\x9f", "/", "\xe4\xb8\xad"}
	for i := 0; i < 300; i++ {
		var b strings.Builder
		for n := 1 + rng.IntN(600); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		check(b.String())
	}
}
