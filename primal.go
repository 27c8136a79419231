package acfcd

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/rows"
	"github.com/acfcd/acfcd/solver/primal"
)

// Defaults of liblinear 2.50's primal solvers.
const (
	// defaultPrimalEps is -e of -s 0 and 2: ‖∇f(w)‖ ≤ eps·min(pos,neg)/l·‖∇f(0)‖.
	defaultPrimalEps = 0.01
	// defaultSVREps is -e of -s 11: ‖∇f(w)‖ ≤ eps·‖∇f(0)‖.
	defaultSVREps = 1e-4
	// defaultNewtonIter is liblinear's cap on Newton iterations.
	defaultNewtonIter = 1000
)

// primalTraining is the setup of a -s 0, 2 or 11 training shared by its
// subproblems: liblinear's train() with one binary subproblem, one per
// class, or one regression.
type primalTraining struct {
	p        Params
	ctx      context.Context
	loss     primal.Loss
	eps      float64
	maxIter  int
	rows     rows.Rows
	labels   []float64 // the classes (nil for the regression)
	subs     []subproblem
	progress func(Progress)
}

// trainPrimal trains -s 0, 2 and 11 by Newton's method on the primal
// (package primal): exact Newton steps for up to Tuning.NewtonDenseMax
// weights, trust-region Newton-CG beyond. The stopping rule is liblinear
// 2.50's: ‖∇f(w)‖ ≤ eps·max(min(pos, neg), 1)/l·‖∇f(0)‖ for the
// classifiers (pos and neg the examples of each side of the subproblem),
// ‖∇f(w)‖ ≤ eps·‖∇f(0)‖ for the regression. Result.Violation is
// ‖∇f(w)‖/‖∇f(0)‖ divided by that factor, so that it is at most Eps when
// converged.
func trainPrimal(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	pt, res, err := newPrimalTraining(ctx, d, p)
	if err != nil {
		return nil, nil, err
	}
	nsub := len(pt.subs)
	mdl := &Model{SolverType: res.Solver, Labels: pt.labels, NumFeature: pt.rows.NF, Bias: p.bias(), NrW: nsub}
	nw := pt.rows.NF
	if p.bias() > 0 {
		nw++
	}
	mdl.W = make([]float64, nw*nsub)
	err = eachSubproblem(ctx, d, pool, nsub, func() func(k int) {
		pp := primal.New(pt.rows, pt.loss, p.Tuning, pool)
		pp.FreeBias = p.UnregularizedBias
		if pt.labels != nil {
			pp.Y = make([]int8, pt.rows.N)
		} else {
			pp.T = d.Label
		}
		done := ctx.Done()
		pp.Poll = func() bool {
			select {
			case <-done:
				return true
			default:
				return false
			}
		}
		pp.Done, pp.Trace = done, p.trace
		pp.Polish = true
		return func(k int) {
			pt.solve(k, pp, d.Label)
			for j := range nw {
				mdl.W[j*nsub+k] = pp.W[j]
			}
		}
	}, func(k int) { pt.subs[k].res.Cancelled = true })
	if err != nil {
		return nil, nil, err
	}
	res.Converged = true
	for k := range pt.subs {
		r := &pt.subs[k].res
		r.Solver, r.Select, r.C, r.Eps, r.SupportVectors = res.Solver, res.Select, res.C, res.Eps, -1
		res.add(r)
	}
	res.NNZW = mdl.NNZ()
	if nsub > 1 {
		res.Classes = make([]Result, nsub)
		for k := range pt.subs {
			res.Classes[k] = pt.subs[k].res
		}
	}
	mdl.Partial = !res.Converged || res.Cancelled
	res.Seconds = time.Since(start).Seconds()
	return mdl, res, nil
}

// newPrimalTraining checks d and p and sets up the subproblems; res has
// the fields that do not depend on training.
func newPrimalTraining(ctx context.Context, d *Dataset, p Params) (*primalTraining, *Result, error) {
	pt := &primalTraining{p: p, ctx: ctx, maxIter: p.MaxEpochs}
	if pt.maxIter == 0 {
		pt.maxIter = defaultNewtonIter
	}
	pt.eps = p.Eps
	switch p.Problem {
	case LogisticPrimal:
		pt.loss = primal.Logistic
	case SquaredHingePrimal:
		pt.loss = primal.SquaredHinge
	default:
		pt.loss = primal.SquaredTube
	}
	if pt.eps == 0 {
		pt.eps = defaultPrimalEps
		if pt.loss == primal.SquaredTube {
			pt.eps = defaultSVREps
		}
	}
	res := &Result{Solver: p.Problem.String(), Select: "newton", C: p.C, Eps: pt.eps, SupportVectors: -1}
	if pt.loss == primal.SquaredTube {
		if err := primalTargets(d, p); err != nil {
			return nil, nil, err
		}
		if len(p.Weights) > 0 {
			res.Warnings = append(res.Warnings, "class weights (-wi) do not apply to regression: ignored")
		}
		pt.rows = rows.New(d, p.bias())
		pt.subs = []subproblem{{cp: p.C, cn: p.C}}
	} else {
		labels, _, err := checkClassification(d, &p, false)
		if err != nil {
			return nil, nil, err
		}
		pt.labels = labels
		weighted, warnings := classCosts(labels, p)
		res.Warnings = warnings
		pt.rows = rows.New(d, p.bias())
		pt.subs = newSubproblems(labels, weighted, p.C)
	}
	pt.progress = lockedProgress(p.Progress)
	return pt, res, nil
}

// primalTargets checks the data of the regression: finite targets whose
// loss at w = 0 (C·Σ y_i² at most) does not overflow, and the data as for
// any solver.
func primalTargets(d *Dataset, p Params) error {
	if err := checkData(d); err != nil {
		return err
	}
	var sq float64
	for i, y := range d.Label {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("%s: label %g is not a finite regression target", d.Where(i), y)
		}
		if sq += float64(y * y); !(float64(p.C*sq) <= math.MaxFloat64/4) {
			return fmt.Errorf("%s: label %g: C times the sum of the squared targets overflows (it is the loss at w = 0); scale the targets down",
				d.Where(i), y)
		}
	}
	if err := checkSquares(d, p.Bias); err != nil {
		return err
	}
	return checkDense(d, 8*8, "training", 0)
}

// solve trains subproblem k in pp (y are the data's labels, to set pp's
// ±1 labels from) and fills in the subproblem's result.
func (pt *primalTraining) solve(k int, pp *primal.Problem, y []float64) {
	start := time.Now()
	s := &pt.subs[k]
	tol := pt.eps
	if pt.labels != nil {
		pos := 0
		for i, v := range y {
			if v == pt.labels[s.class] {
				pp.Y[i] = 1
				pos++
			} else {
				pp.Y[i] = -1
			}
		}
		// liblinear's primal_solver_tol
		tol = pt.eps * float64(max(min(pos, len(y)-pos), 1)) / float64(len(y))
	}
	if t := pt.p.Tuning; pt.p.warm != nil && t != nil && t.SearchTighten > 0 && t.SearchTighten < 1 {
		// FindC: at liblinear's rule a warm start at the next C often
		// passes at once, and the accuracies compared are where it stood.
		tol *= t.SearchTighten
	}
	pp.Cost = [2]float64{s.cn, s.cp}
	pp.P = max(pt.p.P, 0)
	clear(pp.W)
	pp.Ops = 0

	// ‖∇f(0)‖ is the gradient's norm at the start, iteration 0, unless
	// FindC starts from the previous C's w: then, as liblinear's warm
	// start, the rule keeps ‖∇f(0)‖, computed first.
	var g0, gnorm, fval float64
	init := pt.p.warm.initW(k)
	if init != nil {
		pp.SetMargins()
		g0 = pp.SetGradient()
		copy(pp.W, init)
	}
	last := -1
	stop := func(iter int, f, gn float64) bool {
		if iter == 0 && init == nil {
			g0 = gn
		}
		last, gnorm, fval = iter, gn, f
		if pt.progress != nil {
			pt.progress(Progress{Class: s.class, Epoch: iter, Violation: pt.violation(gn, g0, tol), Objective: f})
		}
		return gn <= tol*g0
	}
	var iters int
	if pp.DenseNewton() {
		var ok bool
		iters, ok = pp.Newton(pt.maxIter, 1e-12, stop)
		if !ok && iters < pt.maxIter {
			// H was not numerically positive definite (a free bias
			// weight with nearly no examples in the loss's curved part):
			// Newton-CG needs only H's products.
			more, _ := pp.NewtonCG(pt.maxIter-iters, 0, func(iter int, f, gn float64) bool { return stop(iters+iter, f, gn) })
			iters += more
		}
	} else {
		iters, _ = pp.NewtonCG(pt.maxIter, 0, stop)
	}
	if last != iters && !pp.Cancelled() {
		// The method ended on a step (its decrease too small, or the cap):
		// the gradient there.
		pp.SetMargins()
		gnorm, fval = pp.SetGradient(), pp.Objective()
	}

	res := &s.res
	res.Iterations = int64(iters)
	res.Epochs = iters
	res.Operations = pp.Ops
	res.Objective, res.Primal = fval, fval
	res.Gap = math.NaN()
	res.Violation = pt.violation(gnorm, g0, tol)
	res.Cancelled = pp.Cancelled()
	res.Converged = gnorm <= tol*g0 && !res.Cancelled
	res.HitEpochCap = iters >= pt.maxIter && !res.Converged
	for _, v := range pp.W {
		if v != 0 {
			res.NNZW++
		}
	}
	if !res.Cancelled {
		pt.p.warm.keepW(k, pp.W)
	}
	res.Seconds = time.Since(start).Seconds()
}

// violation expresses ‖∇f‖ in units of -e: ‖∇f‖/‖∇f(0)‖ over liblinear's
// factor tol/eps, at most eps when the stopping rule holds.
func (pt *primalTraining) violation(gnorm, g0, tol float64) float64 {
	if g0 == 0 {
		return 0
	}
	return gnorm / g0 * pt.eps / tol
}
