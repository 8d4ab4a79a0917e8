//go:build !race

package sample

// Race is true when the race detector is on (see race.go).
const Race = false
