package multiclass

import (
	"context"
	"testing"

	"github.com/acfcd/acfcd/solver/fit"
)

// Weston–Watkins's block steps are about 1/‖x_i‖²: their squares
// underflowed from values of about 1e77 on, and the step, read as none,
// changed α but not W: these classes stayed at w = 0 until the epoch
// cap. Any scale must separate them as at 1.
func TestWWHugeValues(t *testing.T) {
	for _, scale := range []float64{1, 1e10, 1e100, 1e153} {
		d := scaledClasses(t, scale)
		m, res := mustTrain(t, context.Background(), d, Spec{Spec: fit.Spec{C: 1}})
		if right := trainingRight(m, d); right != d.Rows || !res.Converged || res.HitEpochCap {
			t.Errorf("scale %g: training accuracy %d/%d, converged %v, epoch cap %v, violation %g after %d epochs",
				scale, right, d.Rows, res.Converged, res.HitEpochCap, res.Violation, res.Epochs)
		}
	}
}
