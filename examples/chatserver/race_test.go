//go:build race

package main

// The size of TestSampledCompletions under -race, some ten times slower.
const (
	sampleSeeds     = 1
	sampleMaskBench = 2
)
