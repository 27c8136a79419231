package finish

import (
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

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
