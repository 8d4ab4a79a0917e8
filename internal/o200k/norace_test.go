//go:build !race

package o200k

// raceEnabled scales the heavier tests down under -race, where tiktoken-go
// runs an order of magnitude slower (see sampled), and turns the counts of
// allocations off.
const raceEnabled = false
