//go:build race

package harmony

// raceEnabled is true under the race detector, which makes this package's
// tests 10 to 50 times slower: see sampled.
const raceEnabled = true
