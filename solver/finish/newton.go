package finish

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
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
// Where primal.Dense holds (small d, a Cholesky factor no dearer than a
// CG solve) the Newton steps are exact; elsewhere trust-region Newton-CG runs
// instead, briefly, and hands back to the dual early (tron.go).

// Newton is the primal Newton finisher of a -s 1 or -s 7 subproblem
// (solver.Finisher, solver.Starter). It keeps its buffers from one
// subproblem to the next.
type Newton struct {
	p     *dcd.Problem
	t     *Tuning
	pt    *primal.Tuning
	dense bool // primal.Dense on the dual's rows: exact Newton steps
	rule  rule
	nt    *newton // allocated at the first switch: most runs never need it
	steps int     // Newton steps (Newton-CG iterations) of the current subproblem
	tron  int     // Newton-CG switches so far in this subproblem
	start start   // how the subproblem starts (upfront.go)
	trace func(format string, args ...any)
}

// NewNewton returns the finisher of p (loss L2SVM or Logistic) under the
// primal Newton method's tuning pt.
func NewNewton(p *dcd.Problem, t *Tuning, pt *primal.Tuning) *Newton {
	return &Newton{p: p, t: t, pt: pt, dense: primal.Dense(p.Rows, pt), rule: rule{t: t}}
}

// newton holds the finisher's state.
type newton struct {
	pp  *primal.Problem // the primal on the dual's rows, its W the dual's
	dim int
	cg  bool // the last primal solve was Newton-CG
	// moved: Newton-CG accepted a step (P(w) decreased)
	moved bool
	at    point // the dual at the switch, restored if Newton does not improve it
}

// Reset prepares for a new subproblem of p (after p.Reset).
func (f *Newton) Reset() {
	f.steps, f.tron = 0, 0
	est := f.estimate()
	budget := est
	if f.t.SwitchOps > 0 && budget != 0 {
		budget = f.t.SwitchOps
	}
	f.start = f.upfront(est)
	if f.start == epochFirst {
		budget = 1 // the switch at the first epoch's end
	}
	f.rule.reset(budget)
}

// Steps returns the Newton steps (Newton-CG iterations) of the current
// subproblem.
func (f *Newton) Steps() int { return f.steps }

// Due is the switch rule, asked at every epoch's end.
func (f *Newton) Due(r *solver.Run) bool {
	p := f.p
	return f.rule.due(state{
		cost:     p.Ops + f.t.DualStepOps*r.Steps,
		lastViol: r.LastViol,
		eps:      p.Eps,
		obj:      r.Obj,
		tron:     !f.dense,
		nnz:      p.NNZ(),
	}, nil, nil)
}

// Finish runs primal Newton from the dual's current w, leaves the dual at
// α from the margins (or rolls back to the point at the switch) with
// r.Obj set, re-arms the rule where Newton-CG handed back early, and
// reports whether the point is worth certifying.
func (f *Newton) Finish(r *solver.Run, round int) (improved bool) {
	p, t := f.p, f.t
	f.trace = r.Trace()
	f.rule.reset(0)
	f.steps += f.primalNewton(r)
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

// estimate returns the switch rule's budget: the estimated cost of Newton
// in the dual's operations (non-zeros touched): NewtonGuessIters steps of
// four passes and a Cholesky factor each, and the Hessians they form. -s 7
// forms its Hessian anew at every step; -s 1's squared hinge keeps the sum
// and updates it by the examples whose D_i changed (primal.formHessian),
// which after the first step are few: two whole Hessians stand for all
// of them (onehot3k -s 1 after its switch: the second and third steps
// counted about a third of the first's operations, passes and Cholesky
// factor included; docs/tuning.md).
func (f *Newton) estimate() int64 {
	p, t := f.p, f.t
	if !f.dense {
		return t.TronSwitchPasses * p.NNZ()
	}
	ratio := t.NewtonOpsSVM
	hessians := int64(2)
	if p.Loss == dcd.Logistic {
		ratio, hessians = t.NewtonOpsLR, t.NewtonGuessIters
	}
	o := outer(p.Data)
	passes := f.newtonStep(o) - o
	return dualOps(t.NewtonGuessIters*passes+hessians*o, ratio)
}

// newtonStep returns the operations of a dense Newton step given outer:
// the Hessian, its Cholesky factor and four passes (margins, gradient,
// direction and the line search's X·s).
func (f *Newton) newtonStep(outer int64) int64 {
	dim := int64(f.p.NF + 1)
	return 4*f.p.NNZ() + outer + dim*dim*dim/6
}

func (f *Newton) newNewton(r *solver.Run) *newton {
	p := f.p
	if f.nt == nil {
		dim := p.NF + 1
		loss := primal.SquaredHinge
		if p.Loss == dcd.Logistic {
			loss = primal.Logistic
		}
		pp := primal.New(p.Rows, loss, r.Tuning(), f.pt, p.Pool)
		pp.W = p.W
		pp.Y = p.Y
		f.nt = &newton{pp: pp, dim: dim, at: point{alpha: make([]float64, p.N), w: make([]float64, dim)}}
		if p.Loss == dcd.Logistic {
			f.nt.at.alphaC = make([]float64, p.N)
		}
	}
	return f.nt
}

// primal returns the primal problem of the current subproblem, its costs
// and Ops those of the dual, cancellation that of r.
func (f *Newton) primal(r *solver.Run) *primal.Problem {
	p := f.p
	pp := f.newNewton(r).pp
	// C_i as the dual has it (for -s 1 recovered from D_ii = 1/(2C_i),
	// as dcd.Problem.Cost does).
	pp.Cost = p.UB
	if p.Loss == dcd.L2SVM {
		pp.Cost = [2]float64{0.5 / p.Diag[0], 0.5 / p.Diag[1]}
	}
	pp.Ops = p.Ops
	pp.Poll, pp.Done, pp.Trace = r.Poll, r.Done(), r.Trace()
	return pp
}

// primalNewton minimises the primal from the current w and returns the
// Newton steps taken; it stops early on cancellation.
func (f *Newton) primalNewton(r *solver.Run) int {
	p := f.p
	nt := f.newNewton(r)
	nt.at.save(p, r.Obj)
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
	if p.Loss == dcd.Logistic {
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
	steps, _ := pp.Newton(f.t.NewtonMaxIter, 0, func(_ int, fval, gnorm float64) bool {
		// Progress: a Newton solve up front on dense data can take
		// seconds a class; −P(w) is the minimised dual's value at the
		// optimum.
		r.Note(gnorm*xmax, -fval)
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
func (f *Newton) dualFromPrimal(r *solver.Run) bool {
	p, nt := f.p, f.nt
	nt.pp.SetMargins()
	p.Ops += p.RP[p.N] - p.RP[0]
	for i, z := range nt.pp.Margins() {
		ci := p.Cost(i)
		var a float64
		if p.Loss == dcd.L2SVM {
			a = 2 * ci * max(0, 1-z)
		} else {
			// α = C σ(−z), C − α = C σ(z), each computed directly; both
			// stay strictly positive as the logistic dual requires.
			a = ci / (1 + fmath.Exp(z))
			ac := ci / (1 + fmath.Exp(-z))
			tiny := ci * dcd.Floor
			a, ac = max(a, tiny), max(ac, tiny)
			p.AlphaC[i] = ac
		}
		p.Alpha[i] = a
	}
	rebuildW(p)
	r.Obj = p.Objective()
	if r.Obj <= nt.at.obj || math.IsNaN(nt.at.obj) || nt.cg && nt.moved && !r.Cancelled() {
		return true
	}
	nt.at.restore(p, r)
	return false
}
