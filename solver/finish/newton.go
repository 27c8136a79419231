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
	p        *dcd.Problem
	t        *Tuning
	pt       *primal.Tuning
	dense    bool // primal.Dense on the dual's rows: exact Newton steps
	rule     rule
	nt       *newton   // allocated at the first switch: most runs never need it
	steps    int       // Newton steps (Newton-CG iterations) of the current subproblem
	tron     int       // Newton-CG switches so far in this subproblem
	start    start     // how the subproblem starts (upfront.go)
	refused  bool      // Refuses said yes in this subproblem
	poor     bool      // Refuses found the dual's certified point certifies nothing
	met      bool      // the Newton run after Refuses met the primal rule
	wbuf     []float64 // the lowest-primal point of this subproblem's Newton runs (Point)
	pN, relN float64   // its primal, and ‖∇P‖ over the primal rule's bound where met
	trace    func(format string, args ...any)
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
	f.steps, f.tron, f.refused, f.poor, f.met = 0, 0, false, false, false
	f.pN, f.relN = math.Inf(1), math.NaN()
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

// Refuses is asked at a point the dual's full pass certified
// (solver.Refuser): where its duality gap exceeds the dual objective
// itself (the primal is over twice the dual, the point certifies
// nothing), the model is a Newton point instead: this subproblem's best
// (Point) if it certifies, else one Newton goes on to from the dual's
// point, once a subproblem. Raw features with p ≫ n (arcene, 200×10000
// integers to 1000) end the dual there: every margin within eps of its
// target, the primal still ten to a hundred times its optimum.
func (f *Newton) Refuses(r *solver.Run) bool {
	p := f.p
	d := -p.Objective()
	if f.refused || !p.CertifiesNothing() {
		return false
	}
	f.poor = true
	if f.pN-d <= d {
		return false
	}
	f.refused = true
	if f.trace != nil {
		f.trace("dual gap %.3g above its objective %.3g: Newton from it", min(p.PassPrimal, f.pN)-d, d)
	}
	return true
}

// Accepts reports whether the Newton run after Refuses met the rule of
// the primal solver of the same problem (-s 2, -s 0): its point (Point)
// is then the answer, as good as that solver's, and dual CD does not go
// on from the rebuilt α, whose w = Σ α_i y_i x_i is off by ∇P(w) — on
// such data many times the primal's optimum.
func (f *Newton) Accepts() bool { return f.met }

// Point returns, where Refuses found the dual's point certifies nothing,
// the lowest-primal w of the subproblem's Newton runs, its primal
// objective and, if it is the point of the run after Refuses that met the
// primal rule, ‖∇P(w)‖ relative to that rule's bound (else NaN); else w
// is nil. The dual's own point may still be better (dual.classifiers
// keeps the lower primal).
func (f *Newton) Point() (w []float64, primal, rel float64) {
	if !f.poor || math.IsInf(f.pN, 1) {
		return nil, math.Inf(1), math.NaN()
	}
	return f.wbuf, f.pN, f.relN
}

// keep records the current w, of primal fval and rule ratio rel (NaN
// unless primalRule's), if it is the lowest of the subproblem's Newton
// points.
func (f *Newton) keep(fval, rel float64) {
	if fval < f.pN {
		f.wbuf = append(f.wbuf[:0], f.p.W...)
		f.pN, f.relN = fval, rel
	}
}

// primalRule runs Newton from 0 to liblinear's rule of the primal solver,
// ‖∇P(w)‖ ≤ primal.DefaultEps·max(min(pos, neg), 1)/l·‖∇P(0)‖, and keeps
// the point if it meets it.
func (f *Newton) primalRule(r *solver.Run) int {
	p := f.p
	nt := f.newNewton(r)
	nt.at.save(p, r.Obj)
	pp := f.primal(r)
	defer func() { p.Ops = pp.Ops }()
	// From w = 0, as the primal solver: from the dual's w the rule,
	// relative to ‖∇P(0)‖, can hold at once at a primal twice the
	// optimum (arcene).
	clear(p.W)
	pp.SetMargins()
	g0 := pp.SetGradient()
	pos := 0
	for _, y := range p.Y {
		if y > 0 {
			pos++
		}
	}
	tol := primal.SolverTol(primal.DefaultEps, pos, p.N) * g0
	var met bool
	var fN, rel float64
	stop := func(_ int, fval, gnorm float64) bool {
		r.Note(gnorm, -fval)
		met, fN, rel = gnorm <= tol, fval, gnorm/tol
		return met
	}
	var steps int
	ok := false
	if pp.DenseNewton() {
		steps, ok = pp.Newton(f.t.NewtonMaxIter, 0, stop)
	}
	if !ok {
		nt.cg = true
		var n int
		n, nt.moved = pp.NewtonCG(f.t.TronMaxIter, 0, stop)
		steps += n
	}
	if met {
		f.keep(fN, rel)
	}
	f.met = met
	return steps
}

// Finish runs primal Newton from the dual's current w, leaves the dual at
// α from the margins (or rolls back to the point at the switch) with
// r.Obj set, re-arms the rule where Newton-CG handed back early, and
// reports whether the point is worth certifying.
func (f *Newton) Finish(r *solver.Run, round int) (improved bool) {
	p, t := f.p, f.t
	f.trace = r.Trace()
	f.rule.reset(0)
	if f.refused {
		// The model is Newton's point (Point); of the dual points the
		// better one stays, for the gap.
		f.steps += f.primalRule(r)
		f.nt.moved = false
		return f.dualFromPrimal(r)
	}
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
	if !f.refused { // after Refuses, primalRule keeps its own point
		f.keep(nt.pp.Objective(), math.NaN())
	}
	rebuildW(p)
	r.Obj = p.Objective()
	// Newton-CG's α is kept even where its dual is worse than the
	// switch's (tron.go), but not where it is worse than α = 0: on raw
	// p ≫ n data (arcene) w = Σ α_i y_i x_i is then off by ∇P(w), many
	// times the primal's optimum, and dual CD from it takes more epochs
	// than it took from 0. Newton's point stays the model's candidate
	// (Point).
	if r.Obj <= nt.at.obj || math.IsNaN(nt.at.obj) || nt.cg && nt.moved && !r.Cancelled() && r.Obj <= 0 {
		return true
	}
	nt.at.restore(p, r)
	return false
}
