package acfcd

import (
	"fmt"
	"testing"
)

// TestNewtonFirstReported: Result.NewtonFirst tells a Newton chosen up
// front (the size threshold lowered to this data: Newton before any dual
// epoch, or after one) from a switch of a stalling dual (the up-front
// rule off), for -s 1 and 7, per class and in the total.
func TestNewtonFirstReported(t *testing.T) {
	d := lowDim()
	first := DefaultTuning()
	first.PrimalFirstMinNNZ = 0
	epoch := first
	epoch.PrimalFirstEpoch = 1
	stall := DefaultTuning()
	stall.PrimalFirstStep = 0 // never up front
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		for _, tc := range []struct {
			name string
			tune *Tuning
			want bool
		}{{"first", &first, true}, {"epoch", &epoch, true}, {"stall", &stall, false}} {
			t.Run(fmt.Sprintf("s=%s/%s", s.Flag(), tc.name), func(t *testing.T) {
				p := Params{Problem: s, C: 1000, Eps: 1e-3, Bias: 1, Seed: 5, Tuning: tc.tune}
				_, res, _ := mustTrain(t, d, p)
				if res.NewtonSteps == 0 || res.NewtonFirst != tc.want {
					t.Errorf("%d Newton steps after %d epochs, NewtonFirst %v; want steps and %v", res.NewtonSteps, res.Epochs, res.NewtonFirst, tc.want)
				}
			})
		}
	}
}
