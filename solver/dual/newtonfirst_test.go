package dual

import (
	"context"
	"fmt"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/tune"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/primal"
)

// TestNewtonFirstReported: Result.NewtonFirst tells a Newton chosen up
// front (the defaults on this data: Newton before any dual epoch, or
// after one) from a switch of a stalling dual (the up-front
// rule off), for -s 1 and 7, per class and in the total.
func TestNewtonFirstReported(t *testing.T) {
	d := synth.LowDim()
	first := finish.DefaultTuning()
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

// TestNewtonFirstSmallDense: on a small dense set of few features (3000
// rows of 16, 48k non-zeros: the shape of bench/corpus's onehot3k, where
// dual CD first took four times Newton first's time) -s 1 and -s 7 at
// their defaults start with Newton, whatever the data's size: no dual
// epoch beyond the certifying pass where the dual CD start takes ten or
// more, and a primal objective within liblinear's -s 2 and -s 0 (package
// primal's Newton at their default tolerance) to 1e-4.
func TestNewtonFirstSmallDense(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 3, Rows: 3000, Feats: 16, Density: 1, Labels: []float64{1, -1}, Noise: 0.1, Scale: 1})
	for _, tc := range []struct {
		k    Kind
		loss primal.Loss
	}{{L2LossSVC, primal.SquaredHinge}, {LR, primal.Logistic}} {
		for _, c := range []float64{1, 100} {
			t.Run(fmt.Sprintf("s=%s/C=%g", flag(tc.k), c), func(t *testing.T) {
				s := Spec{Spec: fit.Spec{C: c, Seed: 1}, Kind: tc.k}
				_, res, _ := mustTrain(t, d, s)
				_, dual, _ := mustTrainCtx(t, dualFirstCtx(), d, s)
				_, ref, err := primal.Train(context.Background(), d, primal.Spec{Spec: fit.Spec{C: c, Bias: -1, Seed: 1}, Loss: tc.loss})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Converged || !res.NewtonFirst || res.NewtonSteps == 0 || res.Epochs > 1 {
					t.Errorf("not Newton first: %d epochs, %d Newton steps, NewtonFirst %v, converged %v", res.Epochs, res.NewtonSteps, res.NewtonFirst, res.Converged)
				}
				if dual.Epochs < 5 {
					t.Errorf("dual CD first certified after %d epochs: too easy a set to test the rule on", dual.Epochs)
				}
				if res.Primal > ref.Primal*(1+1e-4) {
					t.Errorf("primal %.10g, -s %s's %.10g", res.Primal, map[Kind]string{L2LossSVC: "2", LR: "0"}[tc.k], ref.Primal)
				}
				t.Logf("Newton first: %d epochs, %d steps, %d ops, primal %.10g; dual first: %d epochs, %d ops, primal %.10g; primal solver %.10g",
					res.Epochs, res.NewtonSteps, res.Operations, res.Primal, dual.Epochs, dual.Operations, dual.Primal, ref.Primal)
			})
		}
	}
}
