package l1

import (
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// TestStartC: liblinear's calc_start_C for -s 5 (1/(2‖Xᵀy‖∞)) and -s 6
// (2/‖Xᵀy‖∞), as 2^⌊log2 C⌋.
func TestStartC(t *testing.T) {
	d := &dataio.Dataset{Rows: 2, Features: 2, RowPtr: []int64{0, 2, 3}, Index: []int32{0, 1, 0},
		Value: []float64{3, 4, 1}, Label: []float64{1, -1}}
	for _, tc := range []struct {
		logistic bool
		want     float64
	}{
		{true, 0.5},      // Xᵀy = (2, 4): 2/4
		{false, 1.0 / 8}, // 1/(2·4)
	} {
		got, err := StartC(d, tc.logistic, 0)
		if err != nil || got != tc.want {
			t.Errorf("-s %s: start C %g (%v), want %g", flag(tc.logistic), got, err, tc.want)
		}
	}
}
