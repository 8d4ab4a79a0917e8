//go:build !race

package main

// The size of TestSampledCompletions: seeds per scenario, and schemas taken
// from MaskBench besides the built-in ones.
const (
	sampleSeeds     = 6
	sampleMaskBench = 8
)
