//go:build race

package sample

// Race is true when the race detector is on, which makes tests 5 to 50
// times slower: under it, tests over large corpora run in part (see
// Sampled), and tests that count allocations or measure the heap skip (the
// detector changes both).
const Race = true
