package primal

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/acfcd/acfcd/internal/rows"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// Defaults of liblinear 2.50's primal solvers.
const (
	// DefaultEps is -e of -s 0 and 2: ‖∇f(w)‖ ≤ eps·min(pos,neg)/l·‖∇f(0)‖.
	DefaultEps = 0.01
	// DefaultSVREps is -e of -s 11: ‖∇f(w)‖ ≤ eps·‖∇f(0)‖.
	DefaultSVREps = 1e-4
	// DefaultMaxIter is liblinear's cap on Newton iterations.
	DefaultMaxIter = 1000
)

// Spec is what Train fits: liblinear's -s 0 (Logistic), -s 2
// (SquaredHinge) or -s 11 (SquaredTube).
type Spec struct {
	fit.Spec
	Loss Loss
	// P is SquaredTube's ε (a negative P counts as 0).
	P float64
	// FreeBias leaves the bias weight out of the regulariser (liblinear's
	// -R; needs a bias).
	FreeBias bool
}

// Train trains -s 0, 2 and 11 by Newton's method on the primal: exact
// Newton steps for up to Tuning.NewtonDenseMax weights, trust-region
// Newton-CG beyond. The classifiers are liblinear's train(): one binary
// subproblem, or one per class against the rest, in parallel. The
// stopping rule is liblinear 2.50's: ‖∇f(w)‖ ≤ eps·max(min(pos, neg), 1)/l·‖∇f(0)‖
// for the classifiers (pos and neg the examples of each side of the
// subproblem), ‖∇f(w)‖ ≤ eps·‖∇f(0)‖ for the regression. Result.Violation
// is ‖∇f(w)‖/‖∇f(0)‖ divided by that factor, so that it is at most Eps
// when converged.
func Train(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	start := time.Now()
	t := &training{s: &s, d: d, ctx: ctx, maxIter: s.MaxEpochs, eps: s.Eps}
	if t.maxIter == 0 {
		t.maxIter = DefaultMaxIter
	}
	if t.eps == 0 {
		t.eps = DefaultEps
		if s.Loss == SquaredTube {
			t.eps = DefaultSVREps
		}
	}
	res := &fit.Result{Select: "newton", C: s.C, Eps: t.eps, SupportVectors: -1}
	if s.Loss == SquaredTube {
		if err := checkTargets(d, s.C, s.Bias); err != nil {
			return nil, nil, err
		}
		if len(s.Weights) > 0 {
			res.Warnings = append(res.Warnings, "class weights do not apply to regression; ignored")
		}
		t.subs = []fit.Subproblem{{Cp: s.C, Cn: s.C}}
	} else {
		labels, _, err := fit.CheckClassification(d, &s.Spec, false)
		if err != nil {
			return nil, nil, err
		}
		t.labels = labels
		t.subs, res.Warnings = fit.Subproblems(labels, &s.Spec)
	}
	t.rows = rows.New(d, s.Bias)
	t.progress = fit.LockedProgress(s.Progress)
	t.warm, _ = s.Warm.(*Warm)
	t.tune = tune.Get(ctx, DefaultTuning)
	drv := tune.Get(ctx, solver.DefaultTuning)
	if Dense(t.rows, t.tune) {
		t.denseStep = DenseStepOps(t.rows)
		t.cgStart = t.tune.DenseOpCost > 0 && !t.tune.CGDearer(1, t.rows.NNZ(), t.denseStep)
	}

	nsub := len(t.subs)
	t.errs = make([]error, nsub)
	mdl := fit.OneVsRest(t.labels, t.rows.NF, s.Bias, nsub, nil)
	err := fit.Each(ctx, d, s.Pool, nsub, func() func(k int) {
		pp := New(t.rows, s.Loss, drv, t.tune, s.Pool)
		pp.FreeBias = s.FreeBias
		if t.labels != nil {
			pp.Y = make([]int8, t.rows.N)
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
		pp.Done, pp.Trace = done, s.Trace
		pp.Polish = true
		return func(k int) {
			t.solve(k, pp, d.Label)
			fit.CopyOut(mdl, k, pp.W)
		}
	}, func(k int) { t.subs[k].Res.Cancelled = true })
	if err != nil {
		return nil, nil, err
	}
	for _, err := range t.errs {
		if err != nil {
			return nil, nil, err
		}
	}
	for k := range t.subs {
		t.subs[k].Res.SupportVectors = -1
	}
	fit.Total(res, t.subs, mdl)
	res.Seconds = time.Since(start).Seconds()
	return mdl, res, nil
}

// training is the setup of a -s 0, 2 or 11 training shared by its
// subproblems.
type training struct {
	s        *Spec
	d        *dataio.Dataset
	errs     []error // by subproblem: its arithmetic left the float64 range
	ctx      context.Context
	eps      float64
	maxIter  int
	rows     rows.Rows
	labels   []float64 // the classes (nil for the regression)
	subs     []fit.Subproblem
	progress func(fit.Progress)
	warm     *Warm
	tune     *Tuning
	// denseStep is DenseStepOps of rows where Dense holds, and cgStart
	// whether the subproblems start there with Newton-CG (cgFirst).
	denseStep int64
	cgStart   bool
}

// checkTargets checks the data of the regression: finite targets whose
// loss at w = 0 (C·Σ y_i² at most) does not overflow, and the data as for
// any solver.
func checkTargets(d *dataio.Dataset, c, bias float64) error {
	if err := fit.CheckData(d); err != nil {
		return err
	}
	var sq float64
	for i, y := range d.Label {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("%s: label %g is not a finite regression target", d.Where(i), y)
		}
		if sq += float64(y * y); !(float64(c*sq) <= math.MaxFloat64/4) {
			return fmt.Errorf("%s: label %g: C times the sum of the squared targets overflows (it is the loss at w = 0); scale the targets down",
				d.Where(i), y)
		}
	}
	if err := fit.CheckSquares(d, bias); err != nil {
		return err
	}
	return fit.CheckDense(d, 8*8, "training", 0)
}

// solve trains subproblem k in pp (y are the data's labels, to set pp's
// ±1 labels from) and fills in the subproblem's result.
func (t *training) solve(k int, pp *Problem, y []float64) {
	start := time.Now()
	sp := &t.subs[k]
	tol := t.eps
	if t.labels != nil {
		pos := 0
		for i, v := range y {
			if v == t.labels[sp.Class] {
				pp.Y[i] = 1
				pos++
			} else {
				pp.Y[i] = -1
			}
		}
		tol = SolverTol(t.eps, pos, len(y))
	}
	pp.Cost = [2]float64{sp.Cn, sp.Cp}
	pp.P = max(t.s.P, 0)
	clear(pp.W)
	pp.Ops = 0

	// ‖∇f(0)‖ is the gradient's norm at the start, iteration 0, unless a
	// parameter search starts from the previous C's w: then, as
	// liblinear's warm start, the rule keeps ‖∇f(0)‖, computed first.
	var g0, gnorm, fval float64
	init := t.warm.initW(k)
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
		if t.progress != nil {
			t.progress(fit.Progress{Class: sp.Class, Epoch: iter, Violation: t.violation(gn, g0, tol), Objective: f})
		}
		// Beyond the float64 range nothing is certified (Inf ≤ tol·Inf).
		return gn <= tol*g0 || !fit.Finite(f, gn, g0)
	}
	var iters int
	if pp.DenseNewton() {
		cg := t.cgStart
		if cg {
			iters = t.cgFirst(pp, stop)
		}
		more, ok := 0, true
		if !cg || iters < t.maxIter && !pp.Cancelled() && last == iters && !(gnorm <= tol*g0) && fit.Finite(fval, gnorm, g0) {
			// After cgFirst, Newton's iteration 0 is its last point,
			// asked already.
			more, ok = pp.Newton(t.maxIter-iters, 1e-12, func(iter int, f, gn float64) bool {
				return (iter > 0 || !cg) && stop(iters+iter, f, gn)
			})
		}
		iters += more
		if !ok && iters < t.maxIter {
			// H was not numerically positive definite (a free bias
			// weight with nearly no examples in the loss's curved part):
			// Newton-CG needs only H's products.
			more, _ := pp.NewtonCG(t.maxIter-iters, 0, func(iter int, f, gn float64) bool { return stop(iters+iter, f, gn) })
			iters += more
		}
	} else {
		iters, _ = pp.NewtonCG(t.maxIter, 0, stop)
	}
	if last != iters && !pp.Cancelled() {
		// The method ended on a step (its decrease too small, or the cap):
		// the gradient there.
		pp.SetMargins()
		gnorm, fval = pp.SetGradient(), pp.Objective()
	}

	res := &sp.Res
	res.Iterations = int64(iters)
	res.Epochs = iters
	res.Operations = pp.Ops
	res.Objective, res.Primal = fval, fval
	res.Gap = math.NaN()
	res.Violation = t.violation(gnorm, g0, tol)
	res.Cancelled = pp.Cancelled()
	finite := fit.Finite(fval, gnorm, g0)
	res.Converged = gnorm <= tol*g0 && finite && !res.Cancelled
	if !finite && !res.Cancelled {
		t.errs[k] = fit.OutOfRange(t.d, outOfRange(fval, gnorm, g0, sp.Cp))
	}
	res.HitEpochCap = iters >= t.maxIter && !res.Converged
	for _, v := range pp.W {
		if v != 0 {
			res.NNZW++
		}
	}
	if !res.Cancelled {
		t.warm.keepW(k, pp.W)
	}
	res.Seconds = time.Since(start).Seconds()
}

// cgFirst runs Newton-CG where dense Newton steps could (pp.DenseNewton)
// until an iteration costs more than half a dense step (Tuning.CGDearer).
// Which is cheaper is the data's conditioning, seen only by running:
// one-hot rows (soybean, dna) and dense rows of hundreds of features
// (usps) take a few CG steps an iteration, badly conditioned dense rows
// of tens of features (cpusmall, raw scales) many. It returns the
// iterations; the caller's stop tells whether the rule was met.
func (t *training) cgFirst(pp *Problem, stop Stop) int {
	nnz := t.rows.RP[t.rows.N] - t.rows.RP[0]
	prev := 0
	iters, _ := pp.NewtonCG(t.maxIter, 0, func(iter int, f, gn float64) bool {
		if stop(iter, f, gn) {
			return true
		}
		k := pp.CGSteps() - prev
		prev = pp.CGSteps()
		return t.tune.CGDearer(k, nnz, t.denseStep)
	})
	return iters
}

// SolverTol is liblinear's primal_solver_tol: the factor of ‖∇f(0)‖ that
// ends -s 0 and 2 at -e eps on a subproblem of pos positives in n
// examples, eps·max(min(pos, n−pos), 1)/n.
func SolverTol(eps float64, pos, n int) float64 {
	return eps * float64(max(min(pos, n-pos), 1)) / float64(n)
}

// outOfRange names the first of f, ‖∇f‖ and ‖∇f(0)‖ that is not finite,
// for fit.OutOfRange.
func outOfRange(f, gnorm, g0, c float64) string {
	what, v := "the objective", f
	switch {
	case !fit.Finite(g0):
		what, v = "‖∇f(0)‖", g0
	case !fit.Finite(gnorm):
		what, v = "‖∇f(w)‖", gnorm
	}
	return fmt.Sprintf("the primal Newton method's %s is %g at C = %g, outside the float64 range", what, v, c)
}

// violation expresses ‖∇f‖ in units of -e: ‖∇f‖/‖∇f(0)‖ over liblinear's
// factor tol/eps, at most eps when the stopping rule holds.
func (t *training) violation(gnorm, g0, tol float64) float64 {
	if g0 == 0 {
		return 0
	}
	return gnorm / g0 * t.eps / tol
}

// Warm carries one fold's weights from one C of a parameter search to the
// next: each subproblem starts from its w at the previous C (liblinear's
// init_sol), and every C is solved by liblinear's rule, so that a warm
// start that meets it at once leaves w as it was and five such C end the
// search, as liblinear's does. The subproblems of one training run in
// parallel, hence the lock.
type Warm struct {
	cold bool // every C from w = 0
	mu   sync.Mutex
	w    [][]float64
}

// NewWarm returns the warm start of one fold; cold keeps nothing.
func NewWarm(cold bool) *Warm { return &Warm{cold: cold} }

// initW returns subproblem k's weights at the previous C, nil at the
// first (or on a nil or cold Warm).
func (ws *Warm) initW(k int) []float64 {
	if ws == nil || ws.cold {
		return nil
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if k < len(ws.w) {
		return ws.w[k]
	}
	return nil
}

// Seed sets subproblem k's starting weights to w (a copy), as if a
// previous C had ended there: the next Train starts from them and keeps
// its stopping rule relative to ‖∇f(0)‖.
func (ws *Warm) Seed(k int, w []float64) { ws.keepW(k, w) }

// keepW stores subproblem k's weights w.
func (ws *Warm) keepW(k int, w []float64) {
	if ws == nil || ws.cold {
		return
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for len(ws.w) <= k {
		ws.w = append(ws.w, nil)
	}
	ws.w[k] = append(ws.w[k][:0], w...)
}
