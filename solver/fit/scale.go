package fit

import (
	"fmt"
	"math"

	dataio "github.com/acfcd/acfcd/io"
)

// OutOfRange is the error of a solver whose arithmetic left the float64
// range on d: what says which quantity and its value. The data's largest
// value is named, since the scale of the features is the cause and the
// remedy; a model from such a run would be wrong, not merely unconverged.
func OutOfRange(d *dataio.Dataset, what string) error {
	row, at, v := largest(d)
	if row < 0 {
		return fmt.Errorf("%s; scale the features", what)
	}
	how := "down (to about [-1, 1]) or use a smaller C"
	if math.Abs(v) < 1 {
		how = "up (to about [-1, 1])"
	}
	return fmt.Errorf("%s: feature %d value %g: %s; scale the features %s",
		d.Where(row), d.Index[at]+1, v, what, how)
}

// largest returns the row, the position and the value of d's entry of
// largest magnitude (row −1 if d has none).
func largest(d *dataio.Dataset) (row int, at int64, v float64) {
	row, at = -1, -1
	for i := 0; i < d.Rows; i++ {
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			var x float64
			if d.Value != nil {
				x = d.Value[k]
			} else {
				x = float64(d.Value32[k])
			}
			if row < 0 || !(math.Abs(x) <= math.Abs(v)) {
				row, at, v = i, k, x
			}
		}
	}
	return row, at, v
}

// Finite reports whether every value is a finite float64.
func Finite(v ...float64) bool {
	for _, x := range v {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
	}
	return true
}
