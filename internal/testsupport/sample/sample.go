// Package sample picks the part of a corpus that a test runs when it runs
// in part. Tests over large corpora and long random walks run whole under a
// plain go test, and on every k-th case under -short and under the race
// detector ([Race]): a deterministic part, spread over the whole corpus,
// whose cases are checked as exactly as in the whole run.
package sample

import "testing"

// Sampled reports whether a test over a large corpus or a long random walk
// runs in part: under -short, and under the race detector. A plain go test
// runs it whole. Call it from a test, after the flags are parsed.
func Sampled() bool { return testing.Short() || Race }

// Every returns every k-th element of s, from the first, in a new slice; s
// itself when k is 1 or less.
func Every[T any](s []T, k int) []T {
	if k <= 1 {
		return s
	}
	out := make([]T, 0, (len(s)+k-1)/k)
	for i := 0; i < len(s); i += k {
		out = append(out, s[i])
	}
	return out
}
