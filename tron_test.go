package acfcd

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

// highDim is a problem for the Newton-CG branch: more features than
// NewtonDenseMax, sparse rows, few examples (so the pure dual converges to
// a tight eps for the comparison).
func highDim(seed uint64) *dataio.Dataset {
	return genData(genSpec{seed: seed, rows: 500, feats: DefaultTuning().NewtonDenseMax + 900, density: 0.006, labels: []float64{1, -1}, noise: 0.15, scale: 3})
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
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		for _, c := range []float64{0.1, 10, 1000} {
			for _, bias := range []float64{-1, 1} {
				t.Run(fmt.Sprintf("s=%s/C=%g/B=%g", s.Flag(), c, bias), func(t *testing.T) {
					const eps = 1e-7
					ref, m, res, h := againstPureDual(t, d, Params{Problem: s, C: c, Eps: eps, Bias: bias, Weights: map[float64]float64{-1: 2}, Seed: 2, MaxEpochs: 1000000})
					if !res.Converged || m.Partial || res.NewtonSteps == 0 {
						t.Fatalf("Newton-CG run: %+v", res)
					}
					checkPureDual(t, checkDual(t, d, m, h, res, s, eps).dual, ref.Objective)
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
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		for _, sel := range dualSelections {
			t.Run(fmt.Sprintf("s=%s/%s", s.Flag(), sel), func(t *testing.T) {
				const eps = 1e-3
				p := Params{Problem: s, C: 100, Eps: eps, Bias: 1, Select: sel, Seed: 4, Tuning: forcedSwitch(20000)}
				m, res, duals := mustTrain(t, d, p)
				if !res.Converged || res.NewtonSteps == 0 {
					t.Fatalf("%+v", res)
				}
				checkDual(t, d, m, duals[0], res, s, eps)
			})
		}
	}
}

// TestTronOff: NoFallback turns Newton-CG off, and -s 3 has no large-d
// finisher.
func TestTronOff(t *testing.T) {
	d := highDim(33)
	for _, s := range dualProblems {
		p := Params{Problem: s, C: 100, Eps: 1e-3, Bias: 1, MaxEpochs: 30, NoFallback: s != HingeDual, Tuning: forcedSwitch(1)}
		if _, res, _ := mustTrain(t, d, p); res.NewtonSteps != 0 {
			t.Errorf("-s %s: %d Newton steps", s.Flag(), res.NewtonSteps)
		}
	}
}

// TestTronDeterministic: same seed, bit-identical model, Newton-CG included.
func TestTronDeterministic(t *testing.T) {
	d := highDim(34)
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		checkDeterministic(t, d, Params{Problem: s, C: 100, Eps: 1e-4, Bias: 1, Seed: 9, Tuning: forcedSwitch(1)})
	}
}

// TestTronCancel: a cancellation during Newton-CG stops it at its next CG
// step, and the partial model is consistent: α valid, w = Σ α_i y_i x_i.
func TestTronCancel(t *testing.T) {
	d := highDim(35)
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		ctx, cancel := context.WithCancel(context.Background())
		p := Params{Problem: s, C: 1000, Eps: 1e-6, Bias: 1, Select: Uniform, Tuning: forcedSwitch(1)}
		p.trace = func(format string, args ...any) {
			if strings.HasPrefix(format, "tron %d: f=") && args[0].(int) == 2 {
				cancel() // after two Newton-CG iterations
			}
		}
		m, res, duals := mustTrainCtx(t, ctx, d, p)
		cancel()
		if !res.Cancelled || !m.Partial || res.NewtonSteps != 2 {
			t.Fatalf("-s %s: %+v", s.Flag(), res)
		}
		h := duals[0]
		ind := evalIndependent(d, m, 0, h, s)
		if ind.wDiff > 1e-10 {
			t.Errorf("-s %s: w differs from Σ α y x by %g", s.Flag(), ind.wDiff)
		}
		for i, a := range h.alpha {
			if s == LogisticDual && !(a > 0 && h.alphaC[i] > 0) || !(a >= 0) {
				t.Fatalf("-s %s: α[%d] = %v", s.Flag(), i, a)
			}
		}
		if testkit.RelDiff(ind.dual, res.Objective) > 1e-9 {
			t.Errorf("-s %s: reported dual %v, independent %v", s.Flag(), res.Objective, ind.dual)
		}
	}
}
