package sample

import (
	"slices"
	"testing"
)

func TestEvery(t *testing.T) {
	s := []int{0, 1, 2, 3, 4, 5, 6}
	for _, tc := range []struct {
		k    int
		want []int
	}{
		{-1, s}, {0, s}, {1, s}, {2, []int{0, 2, 4, 6}}, {3, []int{0, 3, 6}}, {7, []int{0}}, {8, []int{0}},
	} {
		if got := Every(s, tc.k); !slices.Equal(got, tc.want) {
			t.Errorf("Every(%v, %d) = %v, want %v", s, tc.k, got, tc.want)
		}
	}
	if got := Every([]int(nil), 3); len(got) != 0 {
		t.Errorf("Every(nil, 3) = %v", got)
	}
}
