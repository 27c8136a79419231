package dual

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/tune"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestFallbackCertified: on a low-dimensional problem at large C the
// dual hands over to its fallback (the interior-point finisher of -s 3,
// the primal Newton method of -s 1 and -s 7), and the answer is still
// certified by the dual: an independent recomputation finds
// w = Σ α_i y_i x_i, α feasible, the largest KKT violation within eps, and
// a duality gap that certifies the optimum itself (a pure dual run at this
// C takes minutes: the reason for the fallbacks).
func TestFallbackCertified(t *testing.T) {
	d := synth.LowDim()
	for _, k := range classifierKinds {
		for _, sel := range dualSelections {
			t.Run(fmt.Sprintf("s=%s/%s", flag(k), sel), func(t *testing.T) {
				const eps = 1e-3
				s := Spec{Spec: fit.Spec{C: 1000, Eps: eps, Bias: 1, Weights: map[float64]float64{-1: 2}, Select: sel, Seed: 5}, Kind: k}
				m, res, duals := mustTrain(t, d, s)
				if !res.Converged || m.Partial {
					t.Fatalf("not converged: %+v", res)
				}
				if res.NewtonSteps == 0 {
					t.Fatalf("the fallback did not run: %+v", res)
				}
				ind := checkDual(t, d, m, duals[0], res, k, eps)
				if gap := (ind.primal + ind.dual) / math.Abs(ind.primal); gap < -1e-12 || gap > 1e-6 {
					t.Errorf("relative duality gap %.3g (primal %.12g, dual %.12g)", gap, ind.primal, ind.dual)
				}
				t.Logf("%d epochs + %d fallback iterations, %d ops, violation %.2g", res.Epochs, res.NewtonSteps, res.Operations, ind.violation)
			})
		}
	}
}

// TestFallbackOff: no fallback when turned off (large d: TestTronOff,
// and solver/finish's TestEstimate).
func TestFallbackOff(t *testing.T) {
	d := synth.LowDim()
	for _, k := range classifierKinds {
		s := Spec{Spec: fit.Spec{C: 1000, Eps: 1e-3, Bias: 1, Select: solver.ACFShrink, MaxEpochs: 50, NoFallback: true}, Kind: k}
		if _, res, _ := mustTrain(t, d, s); res.NewtonSteps != 0 {
			t.Errorf("-s %s: NoFallback, yet %d fallback iterations", flag(k), res.NewtonSteps)
		}
	}
}

// TestFallbackDeterministic: same seed, bit-identical model, with the
// interior-point finisher of -s 3 and the Newton fallback of -s 7.
func TestFallbackDeterministic(t *testing.T) {
	d := synth.LowDim()
	for _, k := range []Kind{L1LossSVC, LR} {
		checkDeterministic(t, context.Background(), d, Spec{Spec: fit.Spec{C: 100, Eps: 1e-3, Bias: 1, Seed: 9}, Kind: k})
	}
}

// TestPrimalFirstCertified: where the up-front rule sends -s 1 and -s 7
// to Newton first (at its defaults, on this data), no dual
// epoch runs (or, with one epoch first, one) when Newton's α passes the
// dual's full KKT pass, and the answer is certified as any: w =
// Σ α_i y_i x_i, the largest KKT violation within eps and a duality gap
// that certifies the optimum, all recomputed independently; at C = 1 the
// dual objective is the pure dual CD's.
func TestPrimalFirstCertified(t *testing.T) {
	d := synth.LowDim()
	now := finish.DefaultTuning()
	epoch := now
	epoch.PrimalFirstEpoch = 1 // below this data's step
	for _, k := range []Kind{L2LossSVC, LR} {
		for _, c := range []float64{1, 1000} {
			for epochs, fin := range []*finish.Tuning{&now, &epoch} {
				t.Run(fmt.Sprintf("s=%s/C=%g/epochs=%d", flag(k), c, epochs), func(t *testing.T) {
					const eps = 1e-3
					s := Spec{Spec: fit.Spec{C: c, Eps: eps, Bias: 1, Weights: map[float64]float64{-1: 2}, Seed: 5}, Kind: k}
					m, res, duals := mustTrainCtx(t, tune.With(context.Background(), fin), d, s)
					if !res.Converged || m.Partial || res.NewtonSteps == 0 || res.Epochs != epochs {
						t.Fatalf("not certified after %d epochs and Newton: %+v", epochs, res)
					}
					ind := checkDual(t, d, m, duals[0], res, k, eps)
					if gap := (ind.primal + ind.dual) / math.Abs(ind.primal); gap < -1e-12 || gap > 1e-6 {
						t.Errorf("relative duality gap %.3g (primal %.12g, dual %.12g)", gap, ind.primal, ind.dual)
					}
					if c == 1 && epochs == 0 {
						s.NoFallback = true
						_, ref, _ := mustTrain(t, d, s)
						if !ref.Converged || math.Abs(ref.Primal-res.Primal) > 1e-6*ref.Primal {
							t.Errorf("primal %.12g, pure dual CD's %.12g (%+v)", res.Primal, ref.Primal, ref)
						}
					}
					t.Logf("%d Newton steps, %d ops, violation %.2g", res.NewtonSteps, res.Operations, ind.violation)
				})
			}
		}
	}
}
