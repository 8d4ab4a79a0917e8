//go:build race

package constrain

// raceEnabled is true under the race detector, which makes the MaskBench
// differential ten times slower: it then runs as under -short.
const raceEnabled = true
