//go:build race

package jsonschema

// raceEnabled tells the tests that measure the heap to skip, and the
// MaskBench tests to read part of it: under the race detector they are slow
// and prove nothing more.
const raceEnabled = true
