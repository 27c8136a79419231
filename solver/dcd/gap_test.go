package dcd

import (
	"math"
	"testing"

	solver "github.com/acfcd/acfcd/solver"
)

// TestTighten: a point of the hinge loss that the full pass certifies
// with a duality gap above Tuning.HingeGapRel of the primal (recomputed
// here) is refused without a step and Eps drops by min(HingeGapTighten,
// HingeGapRel·P/gap), a pass without repair
// still judges at the eps given, and Reset restores it. Once the rule has
// spent HingeGapSpend times the operations before its first refusal, Due
// puts Eps back and the next pass accepts. The other losses, and
// HingeGapSpend = 0, accept the same point.
func TestTighten(t *testing.T) {
	d := binaryData(61, 3000, 300, 0.03, 0.1, 2)
	tune := DefaultTuning()
	for _, loss := range losses {
		p, obj := newProblem(t, d, loss, 0, 2, 1, &tune)
		r := solver.NewRun(p, solver.Config{Selection: solver.ACFShrink, Seed: 3, MaxEpochs: 3})
		r.Obj = obj
		r.Solve(3)
		p.Eps = 1e3 // every example within it
		steps, ops := r.Steps, p.Ops
		ok := p.Pass(r, true)
		if loss != L1SVM {
			if !ok || p.Eps != 1e3 {
				t.Errorf("%s: pass %v, Eps %v: only the hinge loss has the gap rule", lossNames[loss], ok, p.Eps)
			}
			continue
		}
		var ww float64
		for _, v := range p.W {
			ww += v * v
		}
		var hinge, sum float64
		for i, a := range p.Alpha {
			if m := float64(p.Y[i]) * p.DotRow(int32(i), p.W); m < 1 {
				hinge += p.UB[(p.Y[i]+1)>>1] * (1 - m)
			}
			sum += a
		}
		primal, dual := 0.5*ww+hinge, sum-0.5*ww
		gap := primal - dual
		if gap <= tune.HingeGapRel*primal {
			t.Fatalf("the case no longer exercises the rule: relative gap %.3g", gap/primal)
		}
		f := min(tune.HingeGapTighten, tune.HingeGapRel*primal/gap)
		if ok || r.Steps != steps || math.Abs(p.Eps-1e3*f) > 1e-9*1e3*f || !p.Tightening() {
			t.Errorf("pass %v after %d steps, Eps %v, tightening %v: want a refusal without steps and Eps %v", ok, r.Steps-steps, p.Eps, p.Tightening(), 1e3*f)
		}
		if !p.Pass(r, false) {
			t.Errorf("a pass without repair judged at the lowered Eps %v (violation %v)", p.Eps, p.PassViol)
		}
		// The pass's own operations were spent after the refusal; the
		// rule's budget is HingeGapSpend of those before it (ops plus the
		// first pass).
		p.Ops = ops + (p.Ops-ops)/2
		limit := p.gap.limit
		if p.Pass(r, true) || math.Abs(p.Eps-1e3*f*f) > 1e-9*1e3*f*f {
			t.Errorf("within the budget: the point is accepted, or Eps %v (want %v)", p.Eps, 1e3*f*f)
		}
		p.Ops = limit
		if p.Due(p.PassViol); p.Eps != 1e3 || p.Tightening() {
			t.Errorf("budget spent: Eps %v, tightening %v; want 1e3 and the rule over", p.Eps, p.Tightening())
		}
		if !p.Pass(r, true) {
			t.Errorf("budget spent: the point is refused")
		}
		off := tune
		off.HingeGapSpend = 0
		q, _ := newProblem(t, d, loss, 1e3, 2, 1, &off)
		copy(q.Alpha, p.Alpha)
		copy(q.W, p.W)
		if !q.Pass(solver.NewRun(q, solver.Config{Selection: solver.ACFShrink}), true) || q.Eps != 1e3 {
			t.Errorf("HingeGapSpend = 0: the point is refused")
		}
		p.Reset(1, 2, 1)
		if p.Eps != 1e3 || p.Tightening() {
			t.Errorf("Reset leaves Eps at %v, tightening %v; want 1e3 and no rule", p.Eps, p.Tightening())
		}
	}
}
