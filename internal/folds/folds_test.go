package folds

import (
	"math"
	"testing"
)

// TestChoose: cv.glmnet's rules — λ.min is the largest λ among equal
// least errors, λ.1se the largest λ within one standard error of it.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		mean, se   []float64
		iMin, i1SE int
	}{
		{[]float64{5, 2.4, 2, 2, 2.5}, []float64{1, 1, 0.5, 0.1, 1}, 2, 1},
		{[]float64{5, 4, 3, 2}, []float64{1, 1, 1, 0}, 3, 3},
		{[]float64{1, 2, 3}, []float64{0, 0, 0}, 0, 0},
		{[]float64{3, 2.9, 1, 2}, []float64{0, 0, 2, 0}, 2, 0},
	} {
		if i, j := Choose(c.mean, c.se); i != c.iMin || j != c.i1SE {
			t.Errorf("Choose(%v, %v) = %d, %d, want %d, %d", c.mean, c.se, i, j, c.iMin, c.i1SE)
		}
	}
	// cvm and cvsd of folds of sizes 1 and 3 with errors 1 and 3:
	// (1 + 9)/4 = 2.5, sqrt((1·2.25 + 3·0.25)/4/1).
	m, s := Stats([][]float64{{1}, {3}}, []float64{1, 3})
	if m[0] != 2.5 || math.Abs(s[0]-math.Sqrt(0.75)) > 1e-15 {
		t.Errorf("Stats = %v, %v", m, s)
	}
}
