package harmony

import "testing"

// sampled reports whether the tests over large corpora and long random
// walks run on a deterministic part of them (every k-th conformance case,
// the first of the random cases): under -short, and under the race
// detector. A plain go test runs them whole.
func sampled() bool { return testing.Short() || raceEnabled }

// sampleEvery is the k of the corpora's every k-th case when sampled.
const sampleEvery = 8

// every returns the stride for a corpus: sampleEvery when sampled, else 1.
func every() int {
	if sampled() {
		return sampleEvery
	}
	return 1
}
