package finish

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/primal"
)

// The primal Newton method for -s 1 and -s 7.
//
// The primal problems are
//
//	-s 1:  P(w) = ½‖w‖² + Σ_i C_i max(0, 1 − z_i)²
//	-s 7:  P(w) = ½‖w‖² + Σ_i C_i log(1 + e^{−z_i}),   z_i = y_i wᵀx_i,
//
// the problems of -s 2 and -s 0, solved by package primal on the dual's
// rows and w. Their minimiser gives the dual optimum in closed form:
// α_i = 2C_i max(0, 1 − z_i) for -s 1 and α_i = C_i/(1 + e^{z_i}) for
// -s 7, and w = Σ α_i y_i x_i − ∇P(w). So after Newton α is set from the
// margins, w = Σ α_i y_i x_i rebuilt exactly, and the dual's full KKT
// pass certifies (and if needed, dual CD finishes).
//
// For small d (d+1 ≤ Tuning.NewtonDenseMax) the Newton steps are exact
// (dense Hessian and Cholesky); for large d trust-region Newton-CG runs
// instead, briefly, and hands back to the dual early (tron.go).

// newton holds the fallback's state; it is allocated on the first switch
// only, since most runs never need it.
type newton struct {
	pp  *primal.Problem // the primal on the dual's rows, its W the dual's
	dim int
	cg  bool // the last primal solve was Newton-CG
	// moved: Newton-CG accepted a step (P(w) decreased)
	moved bool

	// the dual state at the switch, restored if Newton does not improve it
	alpha, alphaC, w []float64
	obj              float64

	// -s 3's interior-point method: its dense matrix H and per-example D⁻¹
	h     []float64
	dcoef []float64
}

func (f *Finisher) newNewton() *newton {
	p := f.p
	if f.nt == nil {
		dim := p.NF + 1
		loss := primal.SquaredHinge
		if p.Loss == dual.Logistic {
			loss = primal.Logistic
		}
		pp := primal.New(p.Rows, loss, f.t, p.Pool)
		pp.W = p.W
		pp.Y = p.Y
		f.nt = &newton{pp: pp, dim: dim, alpha: make([]float64, p.N), w: make([]float64, dim)}
		if p.Loss == dual.Logistic {
			f.nt.alphaC = make([]float64, p.N)
		}
	}
	return f.nt
}

// primal returns the primal problem of the current subproblem, its costs
// and Ops those of the dual, cancellation that of r.
func (f *Finisher) primal(r *solver.Run) *primal.Problem {
	p := f.p
	pp := f.newNewton().pp
	// C_i as the dual has it (for -s 1 recovered from D_ii = 1/(2C_i),
	// as dual.Problem.Cost does).
	pp.Cost = p.UB
	if p.Loss == dual.L2SVM {
		pp.Cost = [2]float64{0.5 / p.Diag[0], 0.5 / p.Diag[1]}
	}
	pp.Ops = p.Ops
	pp.Poll, pp.Done, pp.Trace = r.Poll, r.Done(), r.Trace()
	return pp
}

// primalNewton minimises the primal from the current w and returns the
// Newton steps taken; it stops early on cancellation.
func (f *Finisher) primalNewton(r *solver.Run) int {
	p := f.p
	nt := f.newNewton()
	copy(nt.alpha, p.Alpha)
	copy(nt.alphaC, p.AlphaC)
	copy(nt.w, p.W)
	nt.obj = r.Obj
	pp := f.primal(r)
	defer func() { p.Ops = pp.Ops }()
	nt.cg, nt.moved = false, false
	if !pp.DenseNewton() {
		return f.primalTron(r, pp)
	}
	xmax := 0.0
	for i := range p.N {
		xmax = max(xmax, p.Qii(int32(i)))
	}
	xmax = math.Sqrt(xmax)
	check := 0.0
	if p.Loss == dual.Logistic {
		pp.DropSum = f.t.NewtonDropSum
		check = f.t.NewtonViolCheck
		pp.Lean = true
		pp.RayMax = f.t.NewtonRayMax
	}
	// At w the rebuilt dual point is α from the margins and
	// Σ α_i y_i x_i = w − ∇P, so its violation at i is |x_iᵀ∇P|: the stop
	// asks for a quarter of eps, by the bound ‖x_i‖‖∇P‖ or, for -s 7 once
	// that is near, by a pass. (-s 1's squared hinge Newton ends with a
	// jump of ∇P to about 0; the pass would seldom stop it earlier.)
	tol := 0.25 * p.Eps
	steps, _ := pp.Newton(f.t.NewtonMaxIter, 0, func(_ int, _, gnorm float64) bool {
		if gnorm*xmax <= tol {
			return true
		}
		return gnorm*xmax <= check*tol && pp.MaxRowDot(pp.Gradient()) <= tol
	})
	return steps
}

// dualFromPrimal sets α from the margins at the current w and rebuilds
// w = Σ α_i y_i x_i and the tracked objective, so that dual CD and its
// KKT pass continue from a consistent point. If that point is worse than
// the dual state at the switch, it restores that state and returns false.
// (Newton-CG's point is kept whenever it moved: see tron.go.)
func (f *Finisher) dualFromPrimal(r *solver.Run) bool {
	p, nt := f.p, f.nt
	nt.pp.SetMargins()
	p.Ops += p.RP[p.N] - p.RP[0]
	for i, z := range nt.pp.Margins() {
		ci := p.Cost(i)
		var a float64
		if p.Loss == dual.L2SVM {
			a = 2 * ci * max(0, 1-z)
		} else {
			// α = C σ(−z), C − α = C σ(z), each computed directly; both
			// stay strictly positive as the logistic dual requires.
			a = ci / (1 + fmath.Exp(z))
			ac := ci / (1 + fmath.Exp(-z))
			tiny := ci * dual.Floor
			a, ac = max(a, tiny), max(ac, tiny)
			p.AlphaC[i] = ac
		}
		p.Alpha[i] = a
	}
	f.rebuildW()
	r.Obj = p.Objective()
	if r.Obj <= nt.obj || math.IsNaN(nt.obj) || nt.cg && nt.moved && !r.Cancelled() {
		return true
	}
	f.restoreSwitch(r)
	return false
}

// rebuildW sets w = Σ α_i y_i x_i from scratch.
func (f *Finisher) rebuildW() {
	p := f.p
	clear(p.W)
	for i, a := range p.Alpha {
		if a != 0 {
			p.AxpyRow(a*float64(p.Y[i]), int32(i), p.W)
		}
	}
}

// restoreSwitch puts back the dual state saved at the switch (α, C − α
// for -s 7, w and the tracked objective).
func (f *Finisher) restoreSwitch(r *solver.Run) {
	p, nt := f.p, f.nt
	copy(p.Alpha, nt.alpha)
	copy(p.AlphaC, nt.alphaC)
	copy(p.W, nt.w)
	r.Obj = nt.obj
}
