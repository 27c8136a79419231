// Package finish holds what takes over from dual coordinate descent where
// it crawls, behind the driver's seam (solver.Finisher): the primal
// Newton method of -s 1 and -s 7 (Newton; trust-region Newton-CG for many
// features), the interior-point method on the hinge-loss dual of -s 3
// (IPM), their counterparts for support vector regression (SVRNewton for
// -s 12, SVRIPM for -s 13), the rule that decides when to switch, and the
// push of identical rows with opposite labels (Dups). Package dual picks
// the finisher; the duals of package dcd know nothing of them.
//
// Dual CD stalls when the dual is badly conditioned: at large C on data
// with few features (a9a, w8a) thousands of epochs may not reach eps,
// while the primal, a smooth function of only d weights, is solved by a
// few Newton steps. liblinear 2.50 switches its -s 1 and -s 7 duals to its
// primal solvers after 300 epochs; here the switch comes by cost, once the
// dual has touched as many non-zeros as the finisher is expected to cost
// (a ski-rental rule: at most about twice the cost of the better choice
// made in hindsight).
//
// The contract is the same for every finisher (solver.Finisher): it
// starts from the dual's point, leaves a consistent dual point (α,
// w = Σ α_i y_i x_i and the objective), rolls back to the point at the
// switch if its own is worse, and the dual's full KKT pass certifies the
// answer (dual CD finishes if it does not): a finisher changes the path,
// never the stopping rule.
package finish

import (
	"math"

	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/primal"
)

// outer returns the operations of forming the dense Hessian over every
// row of p: Σ_i k_i(k_i+1)/2 for k_i non-zeros (bias included).
func outer(p *dcd.Data) int64 { return primal.Outer(p.Rows) }

// dualOps converts finisher operations into dual CD operations of the
// same time by ratio: the finishers read rows in storage order with dense
// inner loops, while dual CD visits rows in random order (a cache miss per
// step) and, for -s 7, solves a small Newton problem at every step.
func dualOps(ops int64, ratio float64) int64 { return int64(float64(ops) * ratio) }

// point is a dual point (α, C − α for -s 7, w and the tracked objective)
// saved at a switch, put back when the finisher's own is worse.
type point struct {
	alpha, alphaC, w []float64
	obj              float64
}

// save copies p's point and the run's objective.
func (s *point) save(p *dcd.Problem, obj float64) {
	copy(s.alpha, p.Alpha)
	copy(s.alphaC, p.AlphaC)
	copy(s.w, p.W)
	s.obj = obj
}

// restore puts the saved point back into p and r.
func (s *point) restore(p *dcd.Problem, r *solver.Run) {
	copy(p.Alpha, s.alpha)
	copy(p.AlphaC, s.alphaC)
	copy(p.W, s.w)
	r.Obj = s.obj
}

// rebuildW sets w = Σ α_i y_i x_i of p from scratch.
func rebuildW(p *dcd.Problem) {
	clear(p.W)
	for i, a := range p.Alpha {
		if a != 0 {
			p.AxpyRow(a*float64(p.Y[i]), int32(i), p.W)
		}
	}
}

// state is what the switch rule looks at, at an epoch's end.
type state struct {
	cost          int64   // the dual's operations so far, steps weighed in
	lastViol, eps float64 // the last epoch's violation, the tolerance
	obj           float64 // the dual objective
	hinge         bool    // -s 3: the interior-point finisher
	tron          bool    // -s 1, 7 with many features: Newton-CG
	nnz           int64   // the data's non-zeros
}

// rule is the switch rule: switch once the dual has cost budget, with
// three refinements for -s 3 (a probe halfway, deferral near the optimum)
// and one for Newton-CG (deferral while the dual is nearly done).
type rule struct {
	t         *Tuning
	budget    int64   // switch once the cost reaches this (0: never)
	probed    bool    // -s 3: the gap was looked at halfway to the switch
	deferred  int     // -s 3: times the switch was put off
	gap       float64 // -s 3: the duality gap when it was last put off
	tronDefer int64   // Newton-CG: cost until which a near-done dual goes on (0: not deferred)
}

func (u *rule) reset(budget int64) {
	*u = rule{t: u.t, budget: budget}
}

// due reports whether to switch now. For -s 3, gap measures the duality
// gap (a pass over the data, which adds to the cost) and rebudget returns
// the budget for one more estimate from the current cost.
func (u *rule) due(s state, gap func() float64, rebudget func() int64) bool {
	t := u.t
	if s.hinge && !u.probed && u.deferred == 0 && u.budget > 0 && float64(s.cost) >= t.IPMProbeAt*float64(u.budget) {
		// A dual still far from its optimum halfway to the switch is not
		// going to finish in the other half.
		u.probed = true
		if s.lastViol > t.IPMFarViol*s.eps && gap() >= t.IPMFarGap*math.Abs(s.obj) {
			return true
		}
	}
	if u.budget <= 0 || s.cost < u.budget {
		return false
	}
	if s.tron {
		// A dual whose last sweep was near eps is nearly done: a few more
		// passes before the switch.
		if u.tronDefer == 0 && s.lastViol <= t.TronNearViol*s.eps {
			u.tronDefer = s.cost + t.TronDeferPasses*s.nnz
		}
		if s.cost < u.tronDefer {
			return false
		}
	}
	u.tronDefer = 0
	if s.hinge && u.deferred < t.IPMMaxDefer {
		// At small C the dual is often nearly done when the rule fires,
		// and the interior-point method costs more than its last epochs:
		// below IPMNearGap·|f| (and at most half the gap of the last
		// deferral) it gets the same budget again.
		g := gap()
		near := g <= t.IPMNearGap*math.Abs(s.obj) && (u.deferred == 0 || g <= 0.5*u.gap)
		u.gap = g
		if near {
			u.deferred++
			u.budget = rebudget()
			return false
		}
	}
	return true
}
