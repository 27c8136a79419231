package multiclass

import (
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestTrainCSGapLargeC: at a large C the largest violation bounds the
// duality gap by about Σ_i C_i·eps only (each example's share is at most
// C_i times its violation), so a run stopped on the violation alone may
// return a primal far above the optimum (here 2% at the default eps,
// before Tuning.CSGap). On a small dense problem of six classes at C = 100
// the default run converges with an independently evaluated gap of at
// most CSGap·P, so its primal lies within that of the optimum.
func TestTrainCSGapLargeC(t *testing.T) {
	d, _ := classData(19, 600, 30, 6, 1, 0.02, 0)
	m, res, du := trainDuals(t, d, Spec{Spec: fit.Spec{C: 100}, Crammer: true})
	ev := csEvaluate(d, m, du)
	gap := ev.primal + ev.dual
	t.Logf("epochs %d ops %d primal %.10g dual %.10g gap %.3g (%.3g) viol %.3g",
		res.Epochs, res.Operations, ev.primal, ev.dual, gap, gap/ev.primal, ev.violation)
	if !res.Converged || m.Partial || ev.infeasible != "" {
		t.Fatalf("converged %v partial %v %s", res.Converged, m.Partial, ev.infeasible)
	}
	if testkit.RelDiff(ev.primal, res.Primal) > 1e-9 || testkit.RelDiff(ev.dual, res.Objective) > 1e-9 {
		t.Errorf("primal %v dual %v, independent %v %v", res.Primal, res.Objective, ev.primal, ev.dual)
	}
	if tol := DefaultTuning().CSGap; gap > tol*ev.primal {
		t.Errorf("converged with gap %g > %g·primal %g", gap, tol, ev.primal)
	}
	if gap > 1e-3*ev.primal {
		t.Errorf("primal %g may lie %.3g above the optimum", ev.primal, gap/ev.primal)
	}
}
