package finish

import (
	"math"
	"math/rand/v2"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

// denseRow returns row i of d as a dense vector of d.Features+1 entries
// (a repeated index adds up; the bias last, if bias ≥ 0).
func denseRow(d *dataio.Dataset, i int, bias float64) []float64 {
	x := make([]float64, d.Features+1)
	for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
		x[d.Index[k]] += d.Value[k]
	}
	if bias >= 0 {
		x[d.Features] = bias
	}
	return x
}

// TestDenseHessian checks the Newton system against a brute-force dense
// H = I + Σ D_i x_i x_iᵀ, on rows with unsorted and repeated indices (a
// Dataset built by hand may have them) and float32 values.
func TestDenseHessian(t *testing.T) {
	d := messyRows(false) // the brute force's values (exact in float32 too)
	for _, f32 := range []bool{false, true} {
		for _, bias := range []float64{-1, 0.5} {
			x := newFixture(t, messyRows(f32), dual.L2SVM, 1, 1e-3, bias, nil, true)
			nt := x.f.newNewton()
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
				x := denseRow(d, i, bias)
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
	for _, loss := range []dual.Loss{dual.L2SVM, dual.Logistic} {
		x := newFixture(t, d, loss, 100, 1e-3, 1, nil, false)
		x.run(solver.Uniform, 5) // stops at the 5-epoch cap
		alpha, alphaC, w := x.snapshot()
		obj := x.r.Obj
		if x.f.primalNewton(x.r) == 0 {
			t.Fatalf("loss %d: no Newton step", loss)
		}
		for j := range x.p.W {
			x.p.W[j] *= 50 // a primal point far from the optimum
		}
		if x.f.dualFromPrimal(x.r) {
			t.Fatalf("loss %d: a worse point was accepted", loss)
		}
		if x.r.Obj != obj {
			t.Errorf("loss %d: objective %v, want %v", loss, x.r.Obj, obj)
		}
		x.checkState(t, alpha, alphaC, w)
	}
}

// TestEstimate: the switch rule's budget. Above NewtonDenseMax it is
// Newton-CG's TronSwitchPasses passes for -s 1 and 7, and never for -s 3
// (no interior-point method there, even when SwitchOps forces a switch);
// with the finisher off, never; below, a positive estimate for each.
func TestEstimate(t *testing.T) {
	def := solver.DefaultTuning()
	wide := &dataio.Dataset{Rows: 2, Features: def.NewtonDenseMax + 10, RowPtr: []int64{0, 1, 2},
		Index: []int32{0, int32(def.NewtonDenseMax) + 5}, Value: []float64{1, 1}, Label: []float64{1, -1}}
	forced := def
	forced.SwitchOps = 1
	for _, loss := range []dual.Loss{dual.L2SVM, dual.Logistic, dual.L1SVM} {
		for _, on := range []bool{true, false} {
			x := newFixture(t, wide, loss, 1, 1e-3, -1, nil, on)
			ops, ok := x.f.estimate()
			want := on && loss != dual.L1SVM
			if ok != want || ok && ops != def.TronSwitchPasses*2 || !ok && ops != 0 {
				t.Errorf("loss %d, on %v, d > %d: switch %v at %d ops", loss, on, def.NewtonDenseMax, ok, ops)
			}
			if x.f.rule.budget != ops {
				t.Errorf("loss %d, on %v: the rule's budget %d, estimate %d", loss, on, x.f.rule.budget, ops)
			}
			y := newFixture(t, wide, loss, 1, 1e-3, -1, &forced, on)
			if b := y.f.rule.budget; want && b != 1 || !want && b != 0 {
				t.Errorf("loss %d, on %v, SwitchOps 1: budget %d", loss, on, b)
			}
		}
		x := newFixture(t, lowDim(), loss, 1, 1e-3, 1, nil, true)
		if ops, ok := x.f.estimate(); !ok || ops <= 0 {
			t.Errorf("loss %d, low d: switch %v at %d ops", loss, ok, ops)
		}
	}
}
