package finish

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/primal"
)

// The large-d branch of the primal Newton method: package primal's
// trust-region Newton-CG, run briefly.
//
// On text data with raw counts at large C the primal is as badly
// conditioned as the dual, but the two fail on different parts of the
// problem: dual CD settles the many local coordinates quickly and stalls
// on a few global directions, which a handful of CG steps gets right. So
// Newton-CG runs only briefly and hands back to the dual (α from the
// margins) once the duality gap is within Tuning.TronGapRel of P(w) or
// its budget of passes is spent; dual CD then finishes. Its point is kept
// whenever it decreased P(w): for -s 1, α_i = 2C_i(1−z_i) magnifies any
// error of the margins, so f(α(w)) is a poor measure of how close w is.
// Should the dual stall again, it switches again (Newton.Finish).

// tronBudgetSVM returns the budget in passes for -s 1: 0.1/eps passes for
// -e eps (p.Eps is eps/2), between 10 and Tuning.TronBudgetPasses. For -s 7
// the gap rule ends most rounds; for -s 1 it ends them late, since
// α_i = 2C_i(1−z_i) magnifies the margins' errors, while P(w) drops within
// the first few Newton steps, and the dual finishes as fast from there.
func (f *Newton) tronBudgetSVM() int64 {
	return int64(min(float64(f.t.TronBudgetPasses), max(10, math.Round(0.05/f.p.Eps))))
}

// primalTron minimises the primal from the current w by Newton-CG and
// returns its iterations; it stops early on cancellation, leaving w at
// the last accepted iterate.
func (f *Newton) primalTron(r *solver.Run, pp *primal.Problem) int {
	p, nt := f.p, f.nt
	nt.cg = true
	// Each further switch doubles the budget: a dual that stalls again
	// got handed back too early.
	passes := f.t.TronBudgetPasses
	if p.Loss == dcd.L2SVM {
		passes = f.tronBudgetSVM()
	}
	budget := passes * p.NNZ() << min(f.tron, 20)
	f.tron++
	trace := r.Trace()
	iters, moved := pp.NewtonCG(f.t.TronMaxIter, budget, func(iter int, fval, _ float64) bool {
		dualF := f.dualAt(pp)
		gap := fval + dualF
		if trace != nil {
			trace("tron %d: f=%.12g dual=%.12g (switch %.12g) gap=%.3g cg=%d ops=%d", iter, fval, dualF, nt.at.obj, gap/math.Abs(fval), pp.CGSteps(), pp.Ops)
		}
		return gap <= f.t.TronGapRel*math.Abs(fval)
	})
	nt.moved = moved
	return iters
}

// dualAt returns the dual objective f(α) at the α dualFromPrimal builds
// from the current w, with ∇P(w) and the margins in pp: there
// Σ α_i y_i x_i = w − ∇P(w), so it takes no data pass.
func (f *Newton) dualAt(pp *primal.Problem) float64 {
	p := f.p
	g := pp.Gradient()
	var ww, v float64
	for j, wj := range p.W {
		u := wj - g[j]
		ww += float64(u * u)
	}
	for i, z := range pp.Margins() {
		ci := p.Cost(i)
		if p.Loss == dcd.L2SVM {
			if a := float64(2 * ci * max(0, 1-z)); a != 0 {
				v += a*a/(4*ci) - a
			}
		} else {
			a := ci / (1 + fmath.Exp(z))
			ac := ci / (1 + fmath.Exp(-z))
			v += dcd.XLogX(a) + dcd.XLogX(ac) - float64(ci*fmath.Log(ci))
		}
	}
	return float64(0.5*ww) + v
}
