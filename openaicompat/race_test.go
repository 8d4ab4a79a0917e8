//go:build race

package openaicompat_test

// raceEnabled skips the allocation counts under -race, where sync.Pool
// drops items at random and encoding/json allocates more.
const raceEnabled = true
