package finish

import (
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
)

// TestNewtonRestore: if the point Newton hands back is a worse dual point
// than the one at the switch, the dual state is restored exactly.
func TestNewtonRestore(t *testing.T) {
	d := lowDim()
	for _, loss := range []dcd.Loss{dcd.L2SVM, dcd.Logistic} {
		x := newFixture(t, d, loss, 100, 1e-3, 1, nil, false)
		x.run(solver.Uniform, 5) // stops at the 5-epoch cap
		alpha, alphaC, w := x.snapshot()
		obj := x.r.Obj
		if x.newton.primalNewton(x.r) == 0 {
			t.Fatalf("loss %d: no Newton step", loss)
		}
		for j := range x.p.W {
			x.p.W[j] *= 50 // a primal point far from the optimum
		}
		if x.newton.dualFromPrimal(x.r) {
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
// below, a positive estimate for each.
func TestEstimate(t *testing.T) {
	def := defaults()
	dense := def.primal.NewtonDenseMax
	wide := &dataio.Dataset{Rows: 2, Features: dense + 10, RowPtr: []int64{0, 1, 2},
		Index: []int32{0, int32(dense) + 5}, Value: []float64{1, 1}, Label: []float64{1, -1}}
	forced := def
	forced.fin.SwitchOps = 1
	for _, loss := range []dcd.Loss{dcd.L2SVM, dcd.Logistic} {
		x := newFixture(t, wide, loss, 1, 1e-3, -1, nil, true)
		if ops := x.newton.estimate(); ops != def.fin.TronSwitchPasses*2 || x.newton.rule.budget != ops {
			t.Errorf("loss %d, d > %d: estimate %d, the rule's budget %d", loss, dense, ops, x.newton.rule.budget)
		}
		if b := newFixture(t, wide, loss, 1, 1e-3, -1, &forced, true).newton.rule.budget; b != 1 {
			t.Errorf("loss %d, SwitchOps 1: budget %d", loss, b)
		}
		if ops := newFixture(t, lowDim(), loss, 1, 1e-3, 1, nil, true).newton.estimate(); ops <= 0 {
			t.Errorf("loss %d, low d: estimate %d", loss, ops)
		}
	}
	x := newFixture(t, wide, dcd.L1SVM, 1, 1e-3, -1, nil, true)
	if ops, ok := x.ipm.estimate(); ok || ops != 0 || x.ipm.rule.budget != 0 {
		t.Errorf("-s 3, d > %d: switch %v at %d ops, budget %d", dense, ok, ops, x.ipm.rule.budget)
	}
	if b := newFixture(t, wide, dcd.L1SVM, 1, 1e-3, -1, &forced, true).ipm.rule.budget; b != 0 {
		t.Errorf("-s 3, d > %d, SwitchOps 1: budget %d", dense, b)
	}
	if ops, ok := newFixture(t, lowDim(), dcd.L1SVM, 1, 1e-3, 1, nil, true).ipm.estimate(); !ok || ops <= 0 {
		t.Errorf("-s 3, low d: switch %v at %d ops", ok, ops)
	}
}
