package harmony

import "github.com/go-harmony/harmony/internal/testsupport/sample"

// sampleEvery is the k of the corpora's every k-th case when sampled.
const sampleEvery = 8

// every returns the stride for a corpus: sampleEvery when sampled, else 1.
func every() int {
	if sample.Sampled() {
		return sampleEvery
	}
	return 1
}
