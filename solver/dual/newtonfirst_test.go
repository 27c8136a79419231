package dual

import (
	"context"
	"fmt"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/tune"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestNewtonFirstReported: Result.NewtonFirst tells a Newton chosen up
// front (the size threshold lowered to this data: Newton before any dual
// epoch, or after one) from a switch of a stalling dual (the up-front
// rule off), for -s 1 and 7, per class and in the total.
func TestNewtonFirstReported(t *testing.T) {
	d := synth.LowDim()
	first := finish.DefaultTuning()
	first.PrimalFirstMinNNZ = 0
	epoch := first
	epoch.PrimalFirstEpoch = 1
	stall := finish.DefaultTuning()
	stall.PrimalFirstStep = 0 // never up front
	for _, k := range []Kind{L2LossSVC, LR} {
		for _, tc := range []struct {
			name string
			fin  *finish.Tuning
			want bool
		}{{"first", &first, true}, {"epoch", &epoch, true}, {"stall", &stall, false}} {
			t.Run(fmt.Sprintf("s=%s/%s", flag(k), tc.name), func(t *testing.T) {
				s := Spec{Spec: fit.Spec{C: 1000, Eps: 1e-3, Bias: 1, Seed: 5}, Kind: k}
				_, res, _ := mustTrainCtx(t, tune.With(context.Background(), tc.fin), d, s)
				if res.NewtonSteps == 0 || res.NewtonFirst != tc.want {
					t.Errorf("%d Newton steps after %d epochs, NewtonFirst %v; want steps and %v", res.NewtonSteps, res.Epochs, res.NewtonFirst, tc.want)
				}
			})
		}
	}
}
