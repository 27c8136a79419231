package rows

import (
	"slices"
	"testing"
)

// TestIdentical: the sets of identical rows, exactly those, each in row
// order, whatever the values' type; a row equal in its indices but not
// its values, or a prefix of another, is not in a set.
func TestIdentical(t *testing.T) {
	// Rows: 0 = {1:1 3:2}, 1 = {1:1}, 2 = {1:1 3:2}, 3 = {1:1 3:2.5},
	// 4 = {1:1}, 5 = {}, 6 = {}, 7 = {1:1 3:2}.
	rp := []int64{0, 2, 3, 5, 7, 8, 8, 8, 10}
	idx := []int32{1, 3, 1, 1, 3, 1, 3, 1, 1, 3}
	val := []float64{1, 2, 1, 1, 2, 1, 2.5, 1, 1, 2}
	val32 := make([]float32, len(val))
	for k, v := range val {
		val32[k] = float32(v)
	}
	want := [][]int32{{0, 2, 7}, {1, 4}, {5, 6}}
	for _, r := range []Rows{{RP: rp, Idx: idx, Val: val, N: 8, NF: 4}, {RP: rp, Idx: idx, Val32: val32, N: 8, NF: 4, Bias: 1}} {
		var got [][]int32
		r.Identical(func(rows []int32) { got = append(got, slices.Clone(rows)) })
		slices.SortFunc(got, func(a, b []int32) int { return int(a[0] - b[0]) })
		if len(got) != len(want) {
			t.Fatalf("float32 %v: sets %v, want %v", r.Val32 != nil, got, want)
		}
		for k := range want {
			if !slices.Equal(got[k], want[k]) {
				t.Fatalf("float32 %v: sets %v, want %v", r.Val32 != nil, got, want)
			}
		}
	}
}
