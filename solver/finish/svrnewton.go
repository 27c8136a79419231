package finish

import (
	"math"

	"github.com/acfcd/acfcd/internal/compsum"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/primal"
)

// The squared-loss SVR (-s 12) at large C is a badly conditioned dual
// that coordinate descent crawls on, while its primal
//
//	P(w) = ½‖w‖² + C Σ_i (|wᵀx_i − y_i| − p)₊²
//
// is -s 11's problem, which package primal solves (d + 1 ≤
// Tuning.NewtonDenseMax): by a few exact Newton steps where primal.Dense
// holds, by Newton-CG where a Cholesky factor would cost more than a CG
// solve. liblinear 2.50 switches its -s 12 to its primal solver after 300
// epochs; here the switch is decided by cost
// (SVRNewton.Due), and the dual point of the primal answer is certified by
// the dual's own full pass, or the primal answer by liblinear's rule for
// the primal solver it switches to (SVRNewton.Accepts).

// SVRNewton is the primal Newton finisher of -s 12 (solver.Finisher,
// solver.Accepter). It switches once to exact Newton steps; Newton-CG
// switches again while it has not met liblinear's rule (at most
// TronMaxRounds times), each round resuming from the better in P of its
// last point and the dual's.
type SVRNewton struct {
	s      *dcd.SVR
	t      *Tuning
	pt     *primal.Tuning
	eps    float64 // liblinear's relative tolerance
	budget int64   // the switch once the dual has cost this (0: never)
	steps  int
	pp     *primal.Problem // the primal on the dual's rows, its W the dual's
	beta   []float64       // the dual point at the switch, for a rollback
	w0     []float64
	wN     []float64 // Newton's answer, its primal objective and ‖∇P‖
	pN, gN float64
	g0     float64 // ‖∇P(0)‖
	cgOps  int64   // Newton-CG: the operations of its last round (0: none yet)
}

// NewSVRNewton returns the finisher of s (the squared loss) whose relative
// tolerance is eps.
func NewSVRNewton(s *dcd.SVR, eps float64, t *Tuning, pt *primal.Tuning) *SVRNewton {
	f := &SVRNewton{s: s, t: t, pt: pt, eps: eps}
	f.budget = f.estimate()
	return f
}

// Due is the switch rule: once the dual has cost what Newton is expected
// to (the rule of -s 1's finisher), once.
func (f *SVRNewton) Due(r *solver.Run) bool {
	if f.budget <= 0 || f.s.Ops+f.t.DualStepOps*r.Steps < f.budget {
		return false
	}
	f.budget = 0
	return true
}

// Steps returns the Newton steps taken.
func (f *SVRNewton) Steps() int { return f.steps }

// estimate returns the operations after which the dual of -s 12
// should hand over to Newton (the switch rule of the -s 1 finisher), or 0
// when it never should: the ε-insensitive loss, or more than
// NewtonDenseMax weights. Where primal.Dense holds (exact steps) it is
// NewtonGuessIters steps of four passes and a Cholesky factor, and two
// whole Hessians: the squared tube's D_i is 0 or 2C, so, as for -s 1, the
// kept sum is updated by the few examples whose D_i changed (reg-corr -s 12
// C = 100: five steps after the switch counted 38M operations, where ten
// Hessians were 400M). Elsewhere Newton-CG runs, at the budget of -s 1's
// Newton-CG switch (TronSwitchPasses passes over the non-zeros).
func (f *SVRNewton) estimate() int64 {
	s, t := f.s, f.t
	dim := int64(s.NF + 1)
	if s.Lambda == 0 {
		return 0
	}
	if dim > int64(f.pt.NewtonDenseMax) {
		// Newton-CG does not pay here: on news20 (counts, the labels as
		// targets, C = 10) and debian-desc.regression (C = 100) the
		// primal is as badly conditioned as the dual, and its rounds
		// only delayed dual CD (docs/tuning.md).
		return 0
	}
	if t.SwitchOps > 0 {
		return t.SwitchOps
	}
	if !primal.Dense(s.Rows, f.pt) {
		// Newton-CG, at the budget of -s 1's first Newton-CG switch (its
		// CG iterations follow the conditioning, which nothing measures
		// up front); after it the dual and Newton-CG alternate, each
		// round of Newton-CG twice the last (Finish). A switch at the
		// first epoch's end was faster on reg-counts but also switched on
		// small data the dual finishes in a few epochs (docs/tuning.md).
		return t.TronSwitchPasses * s.NNZ()
	}
	ops := t.NewtonGuessIters*(4*s.NNZ()+dim*dim*dim/6) + 2*outer(s.Data)
	return dualOps(ops, t.NewtonOpsSVM)
}

// Finish minimises the primal of -s 12 from the current w by package
// primal's exact Newton steps (-s 11's), to the rounding level of P (and
// by Newton-CG to liblinear's rule for its primal solver, NewtonConverged,
// if the Hessian is not numerically positive definite). It then sets the
// dual point of its answer, β_i = −2C·sign(r_i)·(|r_i| − p)₊ with
// r_i = wᵀx_i − y_i, and w = Σ β_i x_i, and r.Obj. If that dual point is
// worse than the one at the switch, the dual goes back to it. It returns
// the Newton steps taken; it stops early when r is cancelled.
func (f *SVRNewton) Finish(r *solver.Run, round int) bool {
	f.steps += f.newton(r)
	if f.pp != nil && !f.pp.DenseNewton() && !f.Accepts() && round < f.t.TronMaxRounds && !r.Cancelled() {
		// Newton-CG ran out of its budget: the dual gets as much again
		// before the next round, which gets twice as much (a doubling ski
		// rental: neither method spends more than a few times the other's
		// share of the time).
		f.budget = f.s.Ops + f.t.DualStepOps*r.Steps + f.cgOps
	}
	return true
}

func (f *SVRNewton) newton(r *solver.Run) int {
	s, nt := f.s, f
	dim := s.NF + 1
	if nt.pp == nil {
		pp := primal.New(s.Rows, primal.SquaredTube, r.Tuning(), f.pt, s.Pool)
		pp.W, pp.T = s.W, s.Label
		pp.Cost, pp.P = [2]float64{s.C, s.C}, s.P
		nt.pp = pp
	}
	pp := nt.pp
	nt.beta = append(nt.beta[:0], s.Beta...)
	nt.w0 = append(nt.w0[:0], s.W...)
	before := s.Objective()
	pp.Ops = s.Ops
	pp.Poll, pp.Done, pp.Trace = r.Poll, r.Done(), r.Trace()
	defer func() { s.Ops = pp.Ops }()
	if nt.g0 == 0 {
		clear(s.W)
		pp.SetMargins()
		nt.g0 = pp.SetGradient()
		copy(s.W, nt.w0)
	}
	tol := 0.001 * f.eps * nt.g0
	cgStop := func(_ int, _, gnorm float64) bool { return gnorm <= tol }
	var steps int
	if pp.DenseNewton() {
		var ok bool
		steps, ok = pp.Newton(f.t.NewtonMaxIter, 1e-12, func(_ int, _, gnorm float64) bool { return gnorm == 0 })
		if !ok && !pp.Cancelled() {
			// H is not numerically positive definite (features of very
			// different scales): Newton-CG needs only its products.
			more, _ := pp.NewtonCG(f.t.TronMaxIter, 0, cgStop)
			steps += more
		}
	} else {
		// Newton-CG to liblinear's primal rule, within what the dual has
		// spent so far (a ski rental again: where the primal is badly
		// conditioned too, the dual goes on from the better point having
		// lost at most that much).
		budget := s.Ops
		if nt.cgOps > 0 {
			// The next round, from the better in P of the last round's
			// point and the dual's (one pass).
			budget = 2 * nt.cgOps
			pp.SetMargins()
			if nt.pN < pp.Objective() {
				copy(s.W, nt.wN)
			}
		}
		from := pp.Ops
		steps, _ = pp.NewtonCG(f.t.TronMaxIter, budget, cgStop)
		nt.cgOps = pp.Ops - from
	}
	if pp.Cancelled() {
		copy(s.W, nt.w0)
		r.Obj = before
		return steps
	}
	// The dual point of w (and the primal and its gradient there), and w
	// rebuilt from it.
	pp.SetMargins()
	nt.gN = pp.SetGradient()
	nt.pN = pp.Objective()
	nt.wN = append(nt.wN[:0], s.W...)
	C2 := 2 * s.C
	for i, ri := range pp.Margins() {
		s.Beta[i] = 0
		if e := math.Abs(ri) - s.P; e > 0 {
			s.Beta[i] = -C2 * math.Copysign(e, ri)
		}
	}
	// w = Σ β_i x_i summed with compensation: on data of large values
	// (raw counts of 10⁶) plain sums lose digits that the residuals, and so
	// the primal objective, amplify.
	sums := make([]compsum.Sum, dim)
	for i, b := range s.Beta {
		if b == 0 {
			continue
		}
		for k := s.RP[i]; k < s.RP[i+1]; k++ {
			sums[s.Idx[k]].Add(float64(b * s.Value(k)))
		}
		sums[s.NF].Add(float64(b * s.Bias))
		pp.Ops += s.RP[i+1] - s.RP[i]
	}
	for j := range s.W {
		s.W[j] = sums[j].Value()
	}
	if after := s.Objective(); !(after <= before) {
		copy(s.Beta, nt.beta)
		copy(s.W, nt.w0)
		r.Obj = before
		return steps
	}
	r.Obj = s.Objective()
	return steps
}

// Point returns the w of the last Newton run and its primal objective,
// or nil. On badly conditioned data it can be better in the
// primal than the dual's w = Σ β_i x_i rebuilt from it: w moves by the
// primal gradient there, whose tiny size the Hessian's largest
// eigenvalues magnify. Any w with any dual point bounds the gap.
func (f *SVRNewton) Point() (w []float64, primal float64) {
	if f.wN == nil {
		return nil, math.Inf(1)
	}
	return f.wN, f.pN
}

// Accepts reports whether the last Newton run met liblinear's stopping
// rule for the primal solver it switches -s 12 to:
// ‖∇P(w)‖ ≤ 0.001·eps·‖∇P(0)‖. On badly scaled data the dual's own rule
// can lie below what rounding lets w = Σ β_i x_i reach.
func (f *SVRNewton) Accepts() bool {
	return f.wN != nil && f.gN <= 0.001*f.eps*f.g0
}
