package table

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetIndex checks that sets beyond the room are given their least
// superset, or every byte.
func TestSetIndex(t *testing.T) {
	var sets [][4]uint64
	for i, c := range []struct {
		set  [4]uint64
		want uint32
	}{
		{[4]uint64{}, 0},
		{[4]uint64{1}, 1},
		{[4]uint64{3}, 2},
		{[4]uint64{1}, 1},
		{[4]uint64{2}, 2},    // no room: {3} is the least superset
		{[4]uint64{0, 1}, 3}, // every byte, added last
		{[4]uint64{1}, 1},
	} {
		assert.Equal(t, c.want, SetIndex(&sets, c.set, 4), "%d: SetIndex(%v)", i, c.set)
	}
	require.Len(t, sets, 4)
	assert.Equal(t, [4]uint64{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}, sets[3], "sets = %v", sets)
}
