//go:build race

package openaicompat

// raceEnabled is true under the race detector: the conformance runs take
// part of the cases (see sampled), and the allocation counts are skipped,
// sync.Pool dropping items at random and encoding/json allocating more.
const raceEnabled = true
