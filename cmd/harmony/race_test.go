//go:build race

package main

// raceEnabled is true under the race detector, which makes the tests that
// render thousands of conversations many times slower: see sampled.
const raceEnabled = true
