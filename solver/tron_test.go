package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// highDim is a problem for the Newton-CG branch: more features than
// newtonDenseMax, sparse rows, few examples (so the pure dual converges to
// a tight eps for the comparison).
func highDim(seed uint64) *dataio.Dataset {
	return genData(genSpec{seed: seed, rows: 500, feats: newtonDenseMax + 900, density: 0.006, labels: []float64{1, -1}, noise: 0.15, scale: 3})
}

// TestTronMatchesDual: with the switch forced after the first epoch (and
// again after every hand-back), the run ends at the pure dual's optimum:
// the same dual objective to 1e-9 relative (both at a tight eps), and
// w = Σ α_i y_i x_i with the violation, recomputed independently, within
// eps.
func TestTronMatchesDual(t *testing.T) {
	defer func() { testSwitchOps = 0 }()
	d := highDim(31)
	for _, s := range []int{1, 7} {
		for _, c := range []float64{0.1, 10, 1000} {
			for _, bias := range []float64{-1, 1} {
				t.Run(fmt.Sprintf("s=%d/C=%g/B=%g", s, c, bias), func(t *testing.T) {
					const eps = 1e-7
					p := Params{Solver: s, C: c, Eps: eps, Bias: bias, Weights: map[float64]float64{-1: 2}, Seed: 2, MaxEpochs: 1000000}
					testSwitchOps = 0
					p.NoFallback = true
					_, ref, _ := mustTrain(t, d, p)
					if !ref.Converged {
						t.Fatalf("pure dual did not converge: %+v", ref)
					}
					p.NoFallback = false
					testSwitchOps = 1
					m, res, duals := mustTrain(t, d, p)
					if !res.Converged || m.Partial || res.NewtonSteps == 0 {
						t.Fatalf("Newton-CG run: %+v", res)
					}
					checkTron(t, d, m, duals[0], res, s, eps)
					ind := evalIndependent(d, m, 0, duals[0], s)
					if rd := math.Abs(ind.dual-ref.Objective) / math.Max(1e-300, math.Abs(ref.Objective)); rd > 1e-9 {
						t.Errorf("dual objective %.15g, pure dual %.15g (relative %.2g)", ind.dual, ref.Objective, rd)
					}
					t.Logf("%d epochs + %d Newton-CG steps (pure dual: %d epochs)", res.Epochs, res.NewtonSteps, ref.Epochs)
				})
			}
		}
	}
}

// checkTron checks a converged -s 1 or -s 7 result independently.
func checkTron(t *testing.T, d *dataio.Dataset, m *Model, h hookData, res *Result, s int, eps float64) {
	t.Helper()
	ind := evalIndependent(d, m, 0, h, s)
	if ind.wDiff > 1e-10 {
		t.Errorf("w differs from Σ α y x by %g", ind.wDiff)
	}
	limit := eps
	if s == 1 {
		limit = eps / 2 // -e certifies max|PG| ≤ eps/2 for the SVMs (Train)
	}
	if ind.violation > limit*(1+1e-9) {
		t.Errorf("independent max violation %g > %g", ind.violation, limit)
	}
	if relDiff(ind.dual, res.Objective) > 1e-9 || relDiff(ind.primal, res.Primal) > 1e-9 {
		t.Errorf("reported dual %v primal %v, independent %v %v", res.Objective, res.Primal, ind.dual, ind.primal)
	}
	for i, a := range h.alpha {
		if s == 7 {
			c := h.ub[(h.y[i]+1)>>1]
			if !(a > 0 && h.alphaC[i] > 0 && math.Abs(a+h.alphaC[i]-c) <= 1e-12*c) {
				t.Fatalf("α[%d] = %v, C−α = %v, C = %v", i, a, h.alphaC[i], c)
			}
		} else if !(a >= 0) {
			t.Fatalf("α[%d] = %v", i, a)
		}
	}
}

// TestTronSelections: every selection, at the default eps and the real
// switch rule moved forward, converges with Newton-CG on the way.
func TestTronSelections(t *testing.T) {
	defer func() { testSwitchOps = 0 }()
	d := highDim(32)
	for _, s := range []int{1, 7} {
		for _, sel := range allSelections {
			t.Run(fmt.Sprintf("s=%d/%s", s, sel), func(t *testing.T) {
				const eps = 1e-3
				testSwitchOps = 20000
				p := Params{Solver: s, C: 100, Eps: eps, Bias: 1, Select: sel, Seed: 4}
				m, res, duals := mustTrain(t, d, p)
				if !res.Converged || res.NewtonSteps == 0 {
					t.Fatalf("%+v", res)
				}
				checkTron(t, d, m, duals[0], res, s, eps)
			})
		}
	}
}

// TestTronOff: NoFallback turns Newton-CG off, and -s 3 has no large-d
// finisher.
func TestTronOff(t *testing.T) {
	defer func() { testSwitchOps = 0 }()
	testSwitchOps = 1
	d := highDim(33)
	for _, s := range []int{1, 3, 7} {
		p := Params{Solver: s, C: 100, Eps: 1e-3, Bias: 1, MaxEpochs: 30, NoFallback: s != 3}
		_, res, _ := mustTrain(t, d, p)
		if res.NewtonSteps != 0 {
			t.Errorf("-s %d: %d Newton steps", s, res.NewtonSteps)
		}
	}
}

// TestTronDeterministic: same seed, bit-identical model, Newton-CG included.
func TestTronDeterministic(t *testing.T) {
	defer func() { testSwitchOps = 0 }()
	testSwitchOps = 1
	d := highDim(34)
	for _, s := range []int{1, 7} {
		p := Params{Solver: s, C: 100, Eps: 1e-4, Bias: 1, Seed: 9}
		m1, r1, _ := mustTrain(t, d, p)
		m2, _, _ := mustTrain(t, d, p)
		if r1.NewtonSteps == 0 {
			t.Fatal("Newton-CG did not run")
		}
		for j := range m1.W {
			if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
				t.Fatalf("-s %d: w[%d]: %v vs %v", s, j, m1.W[j], m2.W[j])
			}
		}
	}
}

// TestTronCancel: a cancellation during Newton-CG stops it at its next CG
// step, and the partial model is consistent: α valid, w = Σ α_i y_i x_i.
func TestTronCancel(t *testing.T) {
	defer func() { testSwitchOps, debugf = 0, nil }()
	testSwitchOps = 1
	d := highDim(35)
	for _, s := range []int{1, 7} {
		ctx, cancel := context.WithCancel(context.Background())
		debugf = func(format string, args ...any) {
			if strings.HasPrefix(format, "tron %d: f=") && args[0].(int) == 2 {
				cancel() // after two Newton-CG iterations
			}
		}
		p := Params{Solver: s, C: 1000, Eps: 1e-6, Bias: 1, Select: "uniform"}
		duals, restore := captureDuals(t)
		m, res, err := Train(ctx, d, p)
		restore()
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if !res.Cancelled || !m.Partial || res.NewtonSteps != 2 {
			t.Fatalf("-s %d: %+v", s, res)
		}
		h := duals[0]
		ind := evalIndependent(d, m, 0, h, s)
		if ind.wDiff > 1e-10 {
			t.Errorf("-s %d: w differs from Σ α y x by %g", s, ind.wDiff)
		}
		for i, a := range h.alpha {
			if s == 7 && !(a > 0 && h.alphaC[i] > 0) || !(a >= 0) {
				t.Fatalf("-s %d: α[%d] = %v", s, i, a)
			}
		}
		if relDiff(ind.dual, res.Objective) > 1e-9 {
			t.Errorf("-s %d: reported dual %v, independent %v", s, res.Objective, ind.dual)
		}
	}
}

// TestTronHessianVector checks Hv = v + Σ D_i (x_iᵀv) x_i and the
// preconditioner's diag(H) against brute force, on rows with unsorted and
// repeated indices and float32 values.
func TestTronHessianVector(t *testing.T) {
	d := handRows(false) // the brute force's values (exact in float32 too)
	for _, f32 := range []bool{false, true} {
		dd := handRows(f32)
		for _, bias := range []float64{-1, 0.5} {
			sh := newShared(dd, l2svm, selACF, 1e-3, bias, 10, Params{}.ACF)
			wk := newWorker(sh, nil)
			nt := wk.newNewton()
			nt.newTron()
			r := rand.New(rand.NewPCG(1, 2))
			for i := range nt.dcoef {
				nt.dcoef[i] = r.Float64() * 3
			}
			nt.dcoef[1] = 0
			v := make([]float64, nt.dim)
			for j := range v {
				v[j] = r.NormFloat64()
			}
			nt.precondition()
			out := make([]float64, nt.dim)
			nt.hv(v, out)
			dim := d.Features + 1
			want := append([]float64(nil), v...)
			diag := make([]float64, dim)
			for j := range diag {
				diag[j] = 1
			}
			for i := 0; i < d.Rows; i++ {
				x := make([]float64, dim)
				for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
					x[d.Index[k]] += d.Value[k]
				}
				if bias >= 0 {
					x[d.Features] = bias
				}
				xv := dot(x, v)
				for j := range x {
					want[j] += nt.dcoef[i] * xv * x[j]
				}
				// diag(H) as the preconditioner sums it: per stored value
				// (a repeated index counts its values' squares).
				for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
					diag[d.Index[k]] += nt.dcoef[i] * d.Value[k] * d.Value[k]
				}
				if bias >= 0 {
					diag[d.Features] += nt.dcoef[i] * bias * bias
				}
			}
			for j := range want {
				if math.Abs(out[j]-want[j]) > 1e-12*(1+math.Abs(want[j])) {
					t.Errorf("f32=%v bias=%v: (Hv)[%d] = %v, want %v", f32, bias, j, out[j], want[j])
				}
				if m := (1 - pcgMix) + pcgMix*diag[j]; math.Abs(nt.tr.m[j]-m) > 1e-12*m {
					t.Errorf("f32=%v bias=%v: M[%d] = %v, want %v", f32, bias, j, nt.tr.m[j], m)
				}
			}
		}
	}
}
