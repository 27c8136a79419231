package finish

import (
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

// The up-front choice of -s 1 and -s 7. On data with few features a dense
// Newton step costs a few passes over the data, and dual CD, whose steps
// visit the rows in random order, spends far more than the switch rule's
// estimate before it gives up (a9a, w8a: 20 to 60 epochs, then Newton
// anyway). So a subproblem whose dense Newton step costs at most
// Tuning.PrimalFirstStep dual epochs starts with Newton from the dual's
// starting point, unless its dual is well conditioned, mean C_i‖x_i‖²
// below Tuning.PrimalFirstKappa (the dual's diagonal 1/(2C_i) dominates
// its Q_ii = ‖x_i‖², and it converges in a few epochs). α is then set
// from the margins and the dual's full KKT pass certifies it, as after
// any switch; dual CD finishes if it fails. Below
// Tuning.PrimalFirstMinNNZ non-zeros the data is in cache, a whole run
// takes milliseconds either way, and dual CD goes first.

// shape is what the up-front rule looks at.
type shape struct {
	dense bool    // d+1 ≤ Tuning.NewtonDenseMax: exact Newton steps
	nnz   int64   // the data's non-zeros
	step  int64   // the operations of one dense Newton step (newtonStep)
	epoch int64   // the operations of a dual epoch: non-zeros plus Tuning.DualStepOps per step
	kappa float64 // mean of C_i‖x_i‖² (bias included)
}

// upfront is the rule.
type upfront struct{ t *solver.Tuning }

// primalFirst reports whether a subproblem of shape s starts with Newton.
func (u upfront) primalFirst(s shape) bool {
	return s.dense && s.nnz >= u.t.PrimalFirstMinNNZ && s.epoch > 0 && s.kappa >= u.t.PrimalFirstKappa &&
		float64(s.step) <= u.t.PrimalFirstStep*float64(s.epoch)
}

// PrimalFirst reports whether the current subproblem (after Reset) starts
// with the primal Newton method rather than dual CD. Never for -s 3 or
// with the fallback off.
func (f *Finisher) PrimalFirst() bool {
	p := f.p
	if !f.on || p.Loss == dual.L1SVM || p.N == 0 {
		return false
	}
	s := shape{dense: p.NF+1 <= f.t.NewtonDenseMax, nnz: p.NNZ(), epoch: p.NNZ() + f.t.DualStepOps*int64(p.N)}
	if !s.dense {
		return false
	}
	s.step = f.newtonStep(f.outer())
	for i := range p.N {
		s.kappa += float64(p.Cost(i) * p.Qii(int32(i)))
	}
	s.kappa /= float64(p.N)
	return upfront{f.t}.primalFirst(s)
}

// Primal runs the primal Newton method from the dual's starting point,
// before any dual CD, and leaves the dual at α from the margins as
// Finish does; it reports whether that point is worth certifying.
func (f *Finisher) Primal(r *solver.Run) (improved bool) {
	f.trace = r.Trace()
	f.Steps += f.primalNewton(r)
	return f.dualFromPrimal(r)
}
