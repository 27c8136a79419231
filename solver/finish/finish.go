// Package finish holds what takes over from dual coordinate descent where
// it crawls: the primal Newton method (-s 1, -s 7; trust-region Newton-CG
// for many features), the interior-point method on the hinge-loss dual
// (-s 3), the rule that decides when to switch, and the push of identical
// rows with opposite labels.
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
// The contract is the same for every finisher: it starts from the dual's
// point, leaves a consistent dual point (α, w = Σ α_i y_i x_i and the
// objective), rolls back to the point at the switch if its own is worse,
// and the dual's full KKT pass certifies the answer (dual CD finishes if
// it does not): a finisher changes the path, never the stopping rule.
package finish

import (
	"math"

	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

// Finisher takes over from a stalling dual. It keeps its buffers from one
// subproblem to the next.
type Finisher struct {
	p    *dual.Problem
	t    *solver.Tuning
	on   bool // the fallback is allowed at all
	rule rule
	nt   *newton // allocated at the first switch: most runs never need it
	hg   *hinge  // -s 3's extra buffers
	// Steps are the Newton steps (Newton-CG iterations, interior-point
	// iterations) of the current subproblem.
	Steps int
	tron  int   // Newton-CG switches so far in this subproblem
	start start // how the subproblem starts (upfront.go)
	trace func(format string, args ...any)
}

// New returns the finisher of p; with on false it never switches.
func New(p *dual.Problem, t *solver.Tuning, on bool) *Finisher {
	return &Finisher{p: p, t: t, on: on, rule: rule{t: t}}
}

// Reset prepares for a new subproblem of p (after p.Reset).
func (f *Finisher) Reset() {
	f.Steps, f.tron = 0, 0
	budget, _ := f.estimate()
	if f.t.SwitchOps > 0 && budget != 0 {
		budget = f.t.SwitchOps
	}
	f.start = f.upfront()
	if f.start == epochFirst {
		budget = 1 // the switch at the first epoch's end
	}
	f.rule.reset(budget)
}

// Due is the switch rule (solver.Config.Switch), asked at every epoch's end.
func (f *Finisher) Due(r *solver.Run) bool {
	p := f.p
	return f.rule.due(state{
		cost:     p.Ops + f.t.DualStepOps*r.Steps,
		lastViol: r.LastViol,
		eps:      p.Eps,
		obj:      r.Obj,
		hinge:    p.Loss == dual.L1SVM,
		tron:     p.Loss != dual.L1SVM && p.NF+1 > f.t.NewtonDenseMax,
		nnz:      p.NNZ(),
	}, f.hingeGap, func() int64 {
		budget, _ := f.estimate()
		return p.Ops + f.t.DualStepOps*r.Steps + budget
	})
}

// Finish runs the finisher of the round's switch (from 1) on the dual's
// current point, leaves the dual at its answer (or rolls back to the point
// at the switch) with r.Obj set, re-arms the rule where a further switch
// may come, and reports whether the point is worth certifying.
func (f *Finisher) Finish(r *solver.Run, round int) (improved bool) {
	p, t := f.p, f.t
	f.trace = r.Trace()
	f.rule.reset(0)
	if p.Loss == dual.L1SVM {
		f.Steps += f.hingeFinish(r, round == 1)
		improved = f.hingeRestore(r)
		if round < t.IPMMaxRounds {
			// Examples settled wrongly can leave dual CD a point it
			// stalls at: should it stall, it switches again, after the
			// same budget, to the method without settling.
			if budget, ok := f.estimate(); ok && budget > 0 {
				f.rule.reset(p.Ops + t.DualStepOps*r.Steps + budget)
				f.rule.probed = true
			}
		}
		return improved
	}
	f.Steps += f.primalNewton(r)
	improved = f.dualFromPrimal(r)
	if f.nt.cg && round < t.TronMaxRounds {
		// Newton-CG hands back early: should the dual stall again, it
		// switches again from where it is.
		next := t.TronSwitchPasses * p.NNZ()
		if t.SwitchOps > 0 {
			next = t.SwitchOps
		}
		f.rule.reset(p.Ops + t.DualStepOps*r.Steps + next)
	}
	return improved
}

// estimate returns the switch rule's budget: the estimated cost of the
// finisher, in the dual's operations (non-zeros touched), or false for
// never.
func (f *Finisher) estimate() (int64, bool) {
	p, t := f.p, f.t
	if !f.on {
		return 0, false
	}
	nnz := p.NNZ()
	dim := int64(p.NF + 1)
	if dim > int64(t.NewtonDenseMax) {
		if p.Loss == dual.L1SVM {
			return 0, false
		}
		return t.TronSwitchPasses * nnz, true
	}
	outer := f.outer()
	if p.Loss == dual.L1SVM {
		// Per interior-point iteration: H over every row, its Cholesky
		// and two solves, and seven passes (w and the margins, two
		// right-hand sides and two Z·p).
		return f.dualOps(t.IPMGuessIters * (6*nnz + outer + dim*dim*dim/6 + 2*dim*dim)), true
	}
	return f.dualOps(t.NewtonGuessIters * f.newtonStep(outer)), true
}

// outer returns the operations of forming the dense Hessian over every
// row: Σ_i k_i(k_i+1)/2 for k_i non-zeros (bias included).
func (f *Finisher) outer() int64 {
	p := f.p
	var outer int64
	for i := 0; i < p.N; i++ {
		k := p.RP[i+1] - p.RP[i]
		if p.Bias != 0 {
			k++
		}
		outer += k * (k + 1) / 2
	}
	return outer
}

// newtonStep returns the operations of a dense Newton step given outer:
// the Hessian, its Cholesky factor and four passes (margins, gradient,
// direction and the line search's X·s).
func (f *Finisher) newtonStep(outer int64) int64 {
	dim := int64(f.p.NF + 1)
	return 4*f.p.NNZ() + outer + dim*dim*dim/6
}

// dualOps converts finisher operations into dual CD operations of the
// same time: the finishers read rows in storage order with dense inner
// loops, while dual CD visits rows in random order (a cache miss per
// step) and, for -s 7, solves a small Newton problem at every step.
func (f *Finisher) dualOps(ops int64) int64 {
	ratio := f.t.NewtonOpsSVM
	switch f.p.Loss {
	case dual.Logistic:
		ratio = f.t.NewtonOpsLR
	case dual.L1SVM:
		ratio = f.t.IPMOpsRatio
	}
	return int64(float64(ops) * ratio)
}

// hingeGap returns the duality gap of -s 3 at the dual's point (one pass
// over the data).
func (f *Finisher) hingeGap() float64 {
	p := f.p
	var gap float64
	for i, a := range p.Alpha {
		c := p.UB[(p.Y[i]+1)>>1]
		G := float64(float64(p.Y[i])*p.DotRow(int32(i), p.W)) - 1
		gap += float64(a*max(G, 0)) + float64((c-a)*max(-G, 0))
	}
	return gap
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
	t         *solver.Tuning
	budget    int64   // switch once the cost reaches this (0: never)
	probed    bool    // -s 3: the gap was looked at halfway to the switch
	deferred  int     // -s 3: times the switch was put off
	gap       float64 // -s 3: the duality gap when it was last put off
	tronDefer int64   // Newton-CG: cost until which a near-done dual goes on (0: not deferred)
}

func (u *rule) reset(budget int64) {
	*u = rule{t: u.t, budget: budget}
}

// due reports whether to switch now. gap measures -s 3's duality gap (a
// pass over the data, which adds to the cost); rebudget returns the
// budget for one more estimate from the current cost.
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
