package sample

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEvery(t *testing.T) {
	s := []int{0, 1, 2, 3, 4, 5, 6}
	for _, tc := range []struct {
		k    int
		want []int
	}{
		{-1, s}, {0, s}, {1, s}, {2, []int{0, 2, 4, 6}}, {3, []int{0, 3, 6}}, {7, []int{0}}, {8, []int{0}},
	} {
		assert.Equal(t, tc.want, Every(s, tc.k), "Every(%v, %d)", s, tc.k)
	}
	assert.Empty(t, Every([]int(nil), 3), "Every(nil, 3)")
}
