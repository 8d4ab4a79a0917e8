//go:build race

package main

// raceEnabled is true under the race detector, which makes the sampler
// some ten times slower: TestSampledCompletions then runs in part.
const raceEnabled = true
