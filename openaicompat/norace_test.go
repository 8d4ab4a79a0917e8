//go:build !race

package openaicompat

const raceEnabled = false
