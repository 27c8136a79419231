package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// lowDim is the case the fallback exists for: many overlapping examples,
// few features, large C (the dual is badly conditioned and stalls).
func lowDim() *dataio.Dataset {
	return genData(genSpec{seed: 21, rows: 4000, feats: 12, density: 0.7, labels: []float64{1, -1}, noise: 0.25, scale: 3})
}

// TestNewtonFallback: on a low-dimensional problem at large C the primal
// Newton fallback takes over, and the answer is still certified by the
// dual: an independent recomputation finds w = Σ α_i y_i x_i, the largest
// KKT violation ≤ eps, and the same dual objective as a pure dual run.
func TestNewtonFallback(t *testing.T) {
	d := lowDim()
	for _, s := range []int{1, 7} {
		for _, sel := range allSelections {
			t.Run(fmt.Sprintf("s=%d/%s", s, sel), func(t *testing.T) {
				const eps = 1e-3
				p := Params{Solver: s, C: 1000, Eps: eps, Bias: 1, Weights: map[float64]float64{-1: 2}, Select: sel, Seed: 5}
				m, res, duals := mustTrain(t, d, p)
				if !res.Converged || m.Partial {
					t.Fatalf("not converged: %+v", res)
				}
				if res.NewtonSteps == 0 {
					t.Fatalf("the fallback did not run: %+v", res)
				}
				ind := evalIndependent(d, m, 0, duals[0], s)
				if ind.wDiff > 1e-10 {
					t.Errorf("w differs from Σ α y x by %g", ind.wDiff)
				}
				if ind.violation > eps*(1+1e-9) {
					t.Errorf("independent max violation %g > eps %g", ind.violation, eps)
				}
				if relDiff(ind.dual, res.Objective) > 1e-9 || relDiff(ind.primal, res.Primal) > 1e-9 {
					t.Errorf("reported dual %v primal %v, independent %v %v", res.Objective, res.Primal, ind.dual, ind.primal)
				}
				// The duality gap, from the independent primal and dual,
				// certifies the optimum itself (a pure dual run at this C
				// takes minutes: the reason for the fallback).
				if gap := (ind.primal + ind.dual) / math.Abs(ind.primal); gap < -1e-12 || gap > 1e-6 {
					t.Errorf("relative duality gap %.3g (primal %.12g, dual %.12g)", gap, ind.primal, ind.dual)
				}
				t.Logf("%d epochs + %d Newton steps, %d ops, violation %.2g", res.Epochs, res.NewtonSteps, res.Operations, ind.violation)
			})
		}
	}
}

// TestNewtonOff: no fallback when turned off (the hinge loss's finisher:
// TestHingeOff; large d: TestTronOff).
func TestNewtonOff(t *testing.T) {
	d := lowDim()
	for _, p := range []Params{
		{Solver: 1, C: 1000, Eps: 1e-3, Bias: 1, Select: "acf+shrink", MaxEpochs: 50, NoFallback: true},
		{Solver: 7, C: 1000, Eps: 1e-3, Bias: 1, Select: "acf+shrink", MaxEpochs: 50, NoFallback: true},
	} {
		_, res, _ := mustTrain(t, d, p)
		if res.NewtonSteps != 0 {
			t.Errorf("%+v: %d Newton steps", p, res.NewtonSteps)
		}
	}
	// Large d: Newton-CG (tron.go) for -s 1 and 7, nothing for -s 3.
	wide := &dataio.Dataset{Rows: 2, Features: newtonDenseMax + 10, RowPtr: []int64{0, 1, 2},
		Index: []int32{0, newtonDenseMax + 5}, Value: []float64{1, 1}, Label: []float64{1, -1}}
	for _, kind := range []lossKind{l2svm, logistic, l1svm} {
		sh := newShared(wide, kind, selACF, 1e-3, -1, 10, Params{}.ACF)
		sh.fallback = true
		ops, ok := sh.newtonSwitchOps()
		if want := kind != l1svm; ok != want || ok && ops != tronSwitchPasses*2 {
			t.Errorf("kind %d, d > %d: switch %v at %d ops", kind, newtonDenseMax, ok, ops)
		}
	}
}

// TestNewtonDeterministic: same seed, bit-identical model, fallback included.
func TestNewtonDeterministic(t *testing.T) {
	d := lowDim()
	p := Params{Solver: 7, C: 100, Eps: 1e-3, Bias: 1, Seed: 9}
	m1, r1, _ := mustTrain(t, d, p)
	m2, _, _ := mustTrain(t, d, p)
	if r1.NewtonSteps == 0 {
		t.Fatal("fallback did not run")
	}
	for j := range m1.W {
		if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
			t.Fatalf("w[%d]: %v vs %v", j, m1.W[j], m2.W[j])
		}
	}
}

// TestDenseHessian checks the Newton system against a brute-force dense
// H = I + Σ D_i x_i x_iᵀ, on rows with unsorted and repeated indices (a
// Dataset built by hand may have them) and float32 values.
func TestDenseHessian(t *testing.T) {
	d := handRows(false) // the brute force's values (exact in float32 too)
	for _, f32 := range []bool{false, true} {
		dd := handRows(f32)
		for _, bias := range []float64{-1, 0.5} {
			sh := newShared(dd, l2svm, selACF, 1e-3, bias, 10, Params{}.ACF)
			wk := newWorker(sh, nil)
			nt := wk.newNewton()
			r := rand.New(rand.NewPCG(1, 2))
			for i := range nt.dcoef {
				nt.dcoef[i] = r.Float64() * 3
			}
			nt.dcoef[1] = 0
			for j := range nt.g {
				nt.g[j] = r.NormFloat64()
			}
			if bias < 0 {
				nt.g[d.Features] = 0
			}
			if !nt.denseSolve() {
				t.Fatal("Cholesky failed on a positive definite matrix")
			}
			dim := d.Features + 1
			h := make([]float64, dim*dim)
			for j := 0; j < dim; j++ {
				h[j*dim+j] = 1
			}
			for i := 0; i < d.Rows; i++ {
				x := make([]float64, dim)
				for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
					x[d.Index[k]] += d.Value[k]
				}
				if bias >= 0 {
					x[d.Features] = bias
				}
				for j := range x {
					for k := range x {
						h[j*dim+k] += nt.dcoef[i] * x[j] * x[k]
					}
				}
			}
			for j := 0; j < dim; j++ {
				var hs float64
				for k := 0; k < dim; k++ {
					hs += h[j*dim+k] * nt.s[k]
				}
				if math.Abs(hs+nt.g[j]) > 1e-12 {
					t.Errorf("f32=%v bias=%v: (Hs + g)[%d] = %g", f32, bias, j, hs+nt.g[j])
				}
			}
		}
	}
}

// TestNewtonRestore: if the point Newton hands back is a worse dual point
// than the one at the switch, the dual state is restored exactly.
func TestNewtonRestore(t *testing.T) {
	d := lowDim()
	labels, _, err := groupClasses(d.Label)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []lossKind{l2svm, logistic} {
		sh := newShared(d, kind, selUniform, 1e-3, 1, 5, Params{}.ACF)
		wk := newWorker(sh, nil)
		sel := wk.prepare(&subproblem{cp: 100, cn: 100, seed: 3}, labels[0])
		wk.switchOps = 0
		wk.run(wk.newMode(sel, 3)) // stops at the 5-epoch cap
		alpha := append([]float64(nil), wk.alpha...)
		w := append([]float64(nil), wk.w...)
		obj := wk.obj
		wk.primalNewton()
		for j := range wk.w {
			wk.w[j] *= 50 // a primal point far from the optimum
		}
		if wk.dualFromPrimal() {
			t.Fatalf("kind %d: a worse point was accepted", kind)
		}
		if wk.obj != obj {
			t.Errorf("kind %d: objective %v, want %v", kind, wk.obj, obj)
		}
		for i := range alpha {
			if wk.alpha[i] != alpha[i] {
				t.Fatalf("kind %d: alpha[%d] %v, want %v", kind, i, wk.alpha[i], alpha[i])
			}
		}
		for j := range w {
			if wk.w[j] != w[j] {
				t.Fatalf("kind %d: w[%d] %v, want %v", kind, j, wk.w[j], w[j])
			}
		}
	}
}
