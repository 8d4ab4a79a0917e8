//go:build !race

package harmony

const raceEnabled = false
