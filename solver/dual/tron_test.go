package dual

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/primal"
)

// highDim is a problem for the Newton-CG branch: more features than
// primal.Tuning's NewtonDenseMax, sparse rows, few examples (so the pure
// dual converges to a tight eps for the comparison).
func highDim(seed uint64) *dataio.Dataset {
	return synth.Classes(synth.ClassesConfig{Seed: seed, Rows: 500, Feats: primal.DefaultTuning().NewtonDenseMax + 900, Density: 0.006, Labels: []float64{1, -1}, Noise: 0.15, Scale: 3})
}

// TestTronMatchesDual: with the switch forced after the first epoch (and
// again after every hand-back), the run ends at the pure dual's optimum:
// the same dual objective to 1e-9 relative (both at a tight eps), and
// w = Σ α_i y_i x_i with the violation, recomputed independently, within
// eps.
func TestTronMatchesDual(t *testing.T) {
	if testing.Short() {
		t.Skip("long (seconds natively, minutes emulated); go test without -short runs it")
	}
	d := highDim(31)
	for _, k := range []Kind{L2LossSVC, LR} {
		for _, c := range []float64{0.1, 10, 1000} {
			for _, bias := range []float64{-1, 1} {
				t.Run(fmt.Sprintf("s=%s/C=%g/B=%g", flag(k), c, bias), func(t *testing.T) {
					const eps = 1e-7
					ref, m, res, h := againstPureDual(t, d, Spec{Spec: fit.Spec{C: c, Eps: eps, Bias: bias, Weights: map[float64]float64{-1: 2}, Seed: 2, MaxEpochs: 1000000}, Kind: k})
					if !res.Converged || m.Partial || res.NewtonSteps == 0 {
						t.Fatalf("Newton-CG run: %+v", res)
					}
					checkPureDual(t, checkDual(t, d, m, h, res, k, eps).dual, ref.Objective)
					t.Logf("%d epochs + %d Newton-CG steps (pure dual: %d epochs)", res.Epochs, res.NewtonSteps, ref.Epochs)
				})
			}
		}
	}
}

// TestTronSelections: every selection, at the default eps and the real
// switch rule moved forward, converges with Newton-CG on the way.
func TestTronSelections(t *testing.T) {
	if testing.Short() {
		t.Skip("long (seconds natively, minutes emulated); go test without -short runs it")
	}
	d := highDim(32)
	for _, k := range []Kind{L2LossSVC, LR} {
		for _, sel := range dualSelections {
			t.Run(fmt.Sprintf("s=%s/%s", flag(k), sel), func(t *testing.T) {
				const eps = 1e-3
				s := Spec{Spec: fit.Spec{C: 100, Eps: eps, Bias: 1, Select: sel, Seed: 4}, Kind: k}
				m, res, duals := mustTrainCtx(t, withSwitch(20000), d, s)
				if !res.Converged || res.NewtonSteps == 0 {
					t.Fatalf("%+v", res)
				}
				checkDual(t, d, m, duals[0], res, k, eps)
			})
		}
	}
}

// TestTronOff: NoFallback turns Newton-CG off, and -s 3 has no large-d
// finisher.
func TestTronOff(t *testing.T) {
	d := highDim(33)
	for _, k := range classifierKinds {
		s := Spec{Spec: fit.Spec{C: 100, Eps: 1e-3, Bias: 1, MaxEpochs: 30, NoFallback: k != L1LossSVC}, Kind: k}
		if _, res, _ := mustTrainCtx(t, withSwitch(1), d, s); res.NewtonSteps != 0 {
			t.Errorf("-s %s: %d Newton steps", flag(k), res.NewtonSteps)
		}
	}
}

// TestTronDeterministic: same seed, bit-identical model, Newton-CG included.
func TestTronDeterministic(t *testing.T) {
	d := highDim(34)
	for _, k := range []Kind{L2LossSVC, LR} {
		checkDeterministic(t, withSwitch(1), d, Spec{Spec: fit.Spec{C: 100, Eps: 1e-4, Bias: 1, Seed: 9}, Kind: k})
	}
}

// TestTronCancel: a cancellation during Newton-CG stops it at its next CG
// step, and the partial model is consistent: α valid, w = Σ α_i y_i x_i.
func TestTronCancel(t *testing.T) {
	d := highDim(35)
	for _, k := range []Kind{L2LossSVC, LR} {
		ctx, cancel := context.WithCancel(withSwitch(1))
		s := Spec{Spec: fit.Spec{C: 1000, Eps: 1e-6, Bias: 1, Select: solver.Uniform}, Kind: k}
		s.Trace = func(format string, args ...any) {
			if strings.HasPrefix(format, "tron %d: f=") && args[0].(int) == 2 {
				cancel() // after two Newton-CG iterations
			}
		}
		m, res, duals := mustTrainCtx(t, ctx, d, s)
		cancel()
		if !res.Cancelled || !m.Partial || res.NewtonSteps != 2 {
			t.Fatalf("-s %s: %+v", flag(k), res)
		}
		h := duals[0]
		ind := evalIndependent(d, m, 0, h, k)
		if ind.wDiff > 1e-10 {
			t.Errorf("-s %s: w differs from Σ α y x by %g", flag(k), ind.wDiff)
		}
		for i, a := range h.alpha {
			if k == LR && !(a > 0 && h.alphaC[i] > 0) || !(a >= 0) {
				t.Fatalf("-s %s: α[%d] = %v", flag(k), i, a)
			}
		}
		if testkit.RelDiff(ind.dual, res.Objective) > 1e-9 {
			t.Errorf("-s %s: reported dual %v, independent %v", flag(k), res.Objective, ind.dual)
		}
	}
}
