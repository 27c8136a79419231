package finish

import (
	solver "github.com/acfcd/acfcd/solver"
)

// The up-front choice of -s 1 and -s 7. On data with few features a dense
// Newton solve costs a few passes over the data and one Hessian, while
// dual CD, whose steps visit the rows in random order, crawls on such a
// low-rank dual and spends far more than the switch rule's estimate before
// it gives up (a9a, w8a, the dense shapes of bench/corpus: 20 to 60 epochs
// a class, then Newton anyway). So the rule compares the two costs up
// front: a subproblem whose whole Newton solve (Finisher.estimate, in dual
// operations) costs at most Tuning.PrimalFirstStep dual epochs starts with
// Newton (from the dual's starting point, or after one dual epoch:
// choose), unless its dual is well conditioned, mean C_i‖x_i‖² below
// Tuning.PrimalFirstKappa (the dual's diagonal 1/(2C_i) dominates its
// Q_ii = ‖x_i‖², and it converges in a few epochs). α is then set from the
// margins and the dual's full KKT pass certifies it, as after any switch;
// dual CD finishes if it fails. The rule looks at costs only, not at the
// data's size: on a small set the whole run is milliseconds, but so is
// the process, and the Newton start is what keeps it ahead (onehot3k:
// 48k non-zeros, a quarter of the dual's time).

// shape is what the up-front rule looks at.
type shape struct {
	dense bool    // primal.Dense: exact Newton steps
	solve int64   // the estimated cost of the Newton solve, in dual operations (estimate)
	step  int64   // the operations of one dense Newton step (newtonStep)
	epoch int64   // the operations of a dual epoch: non-zeros plus Tuning.DualStepOps per step
	kappa float64 // mean of C_i‖x_i‖² (bias included)
}

// start is how a subproblem starts.
type start uint8

const (
	dualFirst   start = iota // dual CD; the switch rule may hand over later
	newtonFirst              // Newton from the dual's starting point
	epochFirst               // one epoch of dual CD, then Newton
)

// upfront is the rule.
type upfront struct{ t *Tuning }

// choose returns how a subproblem of shape s starts. Where a Newton step
// costs at least Tuning.PrimalFirstEpoch dual epochs, one epoch of dual CD
// goes first: it settles the many examples far from the margin, and
// Newton then needs fewer of its steps over them (w8a, mushrooms).
func (u upfront) choose(s shape) start {
	if !s.dense || s.epoch <= 0 || s.kappa < u.t.PrimalFirstKappa ||
		float64(s.solve) > u.t.PrimalFirstStep*float64(s.epoch) {
		return dualFirst
	}
	if float64(s.step) >= u.t.PrimalFirstEpoch*float64(s.epoch) {
		return epochFirst
	}
	return newtonFirst
}

// upfront returns how the current subproblem (after the dual's Reset)
// starts, given budget, the switch rule's estimate of the Newton solve.
func (f *Newton) upfront(budget int64) start {
	p := f.p
	if p.N == 0 {
		return dualFirst
	}
	s := shape{dense: f.dense, epoch: p.NNZ() + f.t.DualStepOps*int64(p.N)}
	if !s.dense {
		return dualFirst
	}
	s.solve = budget
	s.step = f.newtonStep(outer(p.Data))
	for i := range p.N {
		s.kappa += float64(p.Cost(i) * p.Qii(int32(i)))
	}
	s.kappa /= float64(p.N)
	return upfront{f.t}.choose(s)
}

// First reports whether the current subproblem (after Reset) starts with
// the primal Newton method (Start) rather than dual CD (solver.Starter).
// (A start with one epoch of dual CD is the switch rule's, due after that
// epoch.)
func (f *Newton) First() bool { return f.start == newtonFirst }

// Upfront reports whether the current subproblem's Newton steps were
// chosen up front (Newton first, or after one dual epoch), rather than
// by the switch rule on a stalling dual.
func (f *Newton) Upfront() bool { return f.start != dualFirst }

// Start runs the primal Newton method from the dual's starting point,
// before any dual CD, and leaves the dual at α from the margins as
// Finish does; it reports whether that point is worth certifying.
func (f *Newton) Start(r *solver.Run) (improved bool) {
	f.trace = r.Trace()
	f.steps += f.primalNewton(r)
	return f.dualFromPrimal(r)
}
