package acfcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/finish"
)

// Train fits a model to d as liblinear-train would with the same -s, -c,
// -e, -B and -wi. Classes are ordered as liblinear does (first appearance,
// with -1/+1 swapped to +1/-1); more than two are trained one-vs-rest, in
// parallel (the Weston–Watkins SVM trains all at once). A single class is
// trained as liblinear 2.3.0 does: one subproblem with every example
// positive.
//
// When ctx is cancelled, Train returns the model reached so far (Partial
// set) and its Result (Cancelled set) with an error wrapping ctx.Err().
func Train(ctx context.Context, d *Dataset, p Params) (*Model, *Result, error) {
	return trainWith(ctx, d, p, procs.NewPool(runtime.GOMAXPROCS(0)-1))
}

// trainWith is Train taking the goroutines beyond the caller's from pool.
func trainWith(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (m *Model, res *Result, err error) {
	if err := kernel.EnvError(); err != nil {
		return nil, nil, err
	}
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	if err := p.resolve(); err != nil {
		return nil, nil, err
	}
	switch p.Problem {
	case Lasso:
		m, res, err = trainLasso(ctx, d, p, pool)
	case WestonWatkins:
		m, res, err = trainWW(ctx, d, p, pool)
	case CrammerSinger:
		m, res, err = trainCS(ctx, d, p, pool)
	case LogisticPrimal, SquaredHingePrimal, SquaredSVRPrimal:
		m, res, err = trainPrimal(ctx, d, p, pool)
	case L1SquaredHinge, L1Logistic:
		m, res, err = trainL1(ctx, d, p, pool)
	case SquaredSVRDual, SVRDual:
		m, res, err = trainSVR(ctx, d, p, pool)
	case OneClassSVM:
		m, res, err = trainOneClass(ctx, d, p, pool)
	default:
		m, res, err = trainDual(ctx, d, p, pool)
	}
	if err == nil && res.Cancelled {
		err = interrupted(ctx, res)
	}
	return m, res, err
}

// interrupted is the error of a cancelled run: it wraps ctx.Err().
func interrupted(ctx context.Context, res *Result) error {
	cause := ctx.Err()
	if cause == nil {
		cause = context.Canceled
	}
	return fmt.Errorf("training interrupted after %d epochs (largest KKT violation %.3g, eps %g): %w", res.Epochs, res.Violation, res.Eps, cause)
}

func source(d *Dataset) string {
	if d == nil {
		return ""
	}
	return d.Source
}

// bias returns the bias feature's value, or −1 for none (the model
// file's convention).
func (p *Params) bias() float64 {
	if p.Bias > 0 {
		return p.Bias
	}
	return -1
}

// resolve checks p and fills in the defaults of its zero fields.
func (p *Params) resolve() error {
	if _, ok := p.Problem.solverType(); !ok {
		return fmt.Errorf("unknown problem %d", uint8(p.Problem))
	}
	if p.C == 0 {
		p.C = 1
	}
	if !(p.C > 0) || math.IsInf(p.C, 0) {
		return fmt.Errorf("C must be a positive finite number, got %g", p.C)
	}
	if p.Eps < 0 || math.IsNaN(p.Eps) || math.IsInf(p.Eps, 0) {
		return fmt.Errorf("eps must be >= 0 and finite, got %g", p.Eps)
	}
	if math.IsNaN(p.Bias) || math.IsInf(p.Bias, 0) {
		return fmt.Errorf("bias must be finite, got %g", p.Bias)
	}
	if p.UnregularizedBias {
		switch {
		case p.Problem != LogisticPrimal && p.Problem != SquaredHingePrimal && p.Problem != L1SquaredHinge &&
			p.Problem != L1Logistic && p.Problem != SquaredSVRPrimal:
			return fmt.Errorf("-R (an unregularised bias) is supported only for -s 0, 2, 5, 6 and 11 (L2R_LR, L2R_L2LOSS_SVC, L1R_L2LOSS_SVC, L1R_LR and L2R_L2LOSS_SVR), not -s %s (%s)", p.Problem.Flag(), p.Problem)
		case !(p.Bias > 0):
			return errors.New("to not regularize the bias, specify a bias with -B (e.g. -B 1) along with -R")
		}
	}
	if p.Seed == 0 {
		p.Seed = DefaultSeed
	}
	if p.MaxEpochs < 0 {
		return fmt.Errorf("MaxEpochs must be >= 0, got %d", p.MaxEpochs)
	}
	if err := p.ACF.Validate(); err != nil {
		return err
	}
	if p.Tuning == nil {
		t := DefaultTuning()
		p.Tuning = &t
	}
	if p.P == 0 {
		p.P = DefaultP
	}
	if math.IsNaN(p.P) || math.IsInf(p.P, 0) {
		return fmt.Errorf("P must be finite, got %g", p.P)
	}
	if p.Nu == 0 {
		p.Nu = DefaultNu
	}
	if !(p.Nu > 0 && p.Nu <= 1) {
		return fmt.Errorf("Nu must be in (0, 1], got %g", p.Nu)
	}
	allowed := selections(p.Problem)
	if p.Select == AutoSelection {
		if p.Problem == Lasso {
			return nil // chosen per working-set run (lasso.Problem.Fit)
		}
		p.Select = allowed[0]
	}
	for _, s := range allowed {
		if p.Select == s {
			return nil
		}
	}
	names := make([]string, len(allowed))
	for k, s := range allowed {
		names[k] = s.String()
	}
	return fmt.Errorf("coordinate selection %v is not available for %s (want %v)", p.Select, p.Problem, names)
}

// Selections returns the coordinate selections p takes (acfcd train
// --select), its default first (the LASSO's default: Params.Select).
func (p Problem) Selections() []Selection { return selections(p) }

// selections returns the coordinate selections a problem takes, its
// default first.
func selections(p Problem) []Selection {
	switch p {
	case Lasso:
		return []Selection{ACF, Uniform, Cyclic}
	case WestonWatkins:
		return []Selection{ACF, Uniform}
	case CrammerSinger:
		return []Selection{ACFShrink, ACF, Uniform, Shrink}
	case LogisticPrimal, SquaredHingePrimal, SquaredSVRPrimal:
		return []Selection{ACF} // no coordinate descent: the value is ignored
	case L1SquaredHinge, L1Logistic:
		return []Selection{ACFShrink, ACF, Uniform, Shrink, Cyclic}
	case SquaredSVRDual, SVRDual:
		return []Selection{ACFShrink, ACF, Uniform, Shrink}
	case OneClassSVM:
		return []Selection{ACFShrink, ACF, Uniform, Shrink}
	}
	return []Selection{ACFShrink, ACF, Uniform, Shrink}
}

// dualTraining is the setup of a -s 1, 3 or 7 training shared by its
// subproblems: liblinear's train() with one binary subproblem, or one per
// class.
type dualTraining struct {
	p         Params
	ctx       context.Context
	loss      dual.Loss
	inner     float64 // the violation certified: eps/2 for the SVMs
	user      float64 // the same for the user's eps (inner is smaller on small problems)
	maxEpochs int
	sel       Selection
	labels    []float64
	sh        *dual.Data
	findDups  func() *finish.Dups // the groups of identical rows, found on first call; nil: none looked for
	subs      []subproblem
	progress  func(Progress)
}

// newDualTraining checks d and p and sets up the subproblems; res has the
// fields that do not depend on training.
func newDualTraining(ctx context.Context, d *Dataset, p Params) (*dualTraining, *Result, error) {
	dt := &dualTraining{p: p, ctx: ctx, sel: p.Select}
	dt.loss = [...]dual.Loss{SquaredHingeDual: dual.L2SVM, HingeDual: dual.L1SVM, LogisticDual: dual.Logistic}[p.Problem]
	eps := p.Eps
	if eps == 0 {
		eps = 0.1 // liblinear's default for -s 1, 3 and 7
	}
	dt.maxEpochs = p.MaxEpochs
	if dt.maxEpochs == 0 {
		dt.maxEpochs = DefaultMaxEpochs
	}
	labels, _, err := checkClassification(d, &p, false)
	if err != nil {
		return nil, nil, err
	}
	dt.labels = labels
	res := &Result{Solver: p.Problem.String(), Select: p.Select.String(), C: p.C, Eps: eps}
	weighted, warnings := classCosts(labels, p)
	res.Warnings = warnings

	// -e keeps liblinear's meaning. For the SVMs liblinear stops when
	// PGmax − PGmin ≤ eps over a sweep; certifying max|PG| ≤ eps/2 over all
	// coordinates implies that spread for every coordinate at once. For
	// LR liblinear stops on max|∂f/∂α_i| ≤ eps, certified as is.
	dt.inner = eps
	if dt.loss != dual.Logistic {
		dt.inner = eps / 2
	}
	dt.user = dt.inner
	dt.inner = smallEps(d, &p, dt.inner)
	t := p.Tuning
	dt.sh = dual.NewData(d, p.bias(), t)
	if dt.loss != dual.Logistic && !p.NoFallback && t.PushDups && dt.sh.N <= t.DupsMaxRows {
		dt.findDups = sync.OnceValue(func() *finish.Dups { return p.warm.findDups(dt.sh) }) // FindC: once per fold
	}
	if dt.loss == dual.Logistic {
		// No α_i of the logistic dual sits at a bound: nothing to shrink.
		switch dt.sel {
		case Shrink:
			dt.sel = Uniform
		case ACFShrink:
			dt.sel = ACF
		}
	}
	dt.progress = lockedProgress(p.Progress)

	dt.subs = newSubproblems(labels, weighted, p.C)
	for k := range dt.subs {
		dt.subs[k].seed = mix.Seed(p.Seed, uint64(k)) // its own stream whatever goroutine runs it
	}
	return dt, res, nil
}

// worker returns a subproblem's state and finisher, reused from one
// subproblem to the next; w, if not nil, is the weight vector to train in.
func (dt *dualTraining) worker(w []float64, pool *procs.Pool) (*dual.Problem, *finish.Finisher) {
	dp := dual.New(dt.sh, dt.loss, dt.inner, w, pool, dt.p.Tuning)
	return dp, finish.New(dp, dt.p.Tuning, !dt.p.NoFallback)
}

// solve trains subproblem k in dp: dual coordinate descent, and whenever
// the switch rule fires, the finisher, whose answer the full KKT pass
// certifies or dual CD finishes. It fills in the subproblem's result.
func (dt *dualTraining) solve(k int, dp *dual.Problem, fin *finish.Finisher) {
	start := time.Now()
	s := &dt.subs[k]
	repair := solver.RepairMax
	if dt.loss == dual.Logistic {
		// A logistic dual has no bounds and its failed passes find many
		// violators, whose p_max would crowd out the rest.
		repair = solver.RepairAtLeastOne
	}
	cfg := solver.Config{Selection: dt.sel, Seed: s.seed, Eps: dt.inner, MaxEpochs: dt.maxEpochs, ACF: dt.p.ACF,
		EarlyCheck: true, Repair: repair, Work: 2 * dt.sh.NNZ(), Done: dt.ctx.Done(), Tuning: dt.p.Tuning, Trace: dt.p.trace}
	if dt.progress != nil {
		cfg.Progress = func(epoch int, viol, obj float64) {
			dt.progress(Progress{Class: s.class, Label: dt.labels[s.class], Subproblems: len(dt.subs), Epoch: epoch, Violation: viol, Objective: obj})
		}
	}
	if !dt.p.NoFallback {
		cfg.Switch = fin.Due
	}
	if dt.findDups != nil {
		// The groups are looked for at the first batch's end: a
		// subproblem certified after Newton never needs them.
		cfg.AfterBatch = func() float64 {
			if dups := dt.findDups(); dups != nil {
				return dups.Push(dp)
			}
			return 0
		}
	}

	obj := dp.Reset(dt.labels[s.class], s.cp, s.cn)
	if dt.p.warm != nil {
		obj = dt.p.warm.start(k, dp, obj)
	}
	fin.Reset()
	r := solver.NewRun(dp, cfg)
	r.Obj = obj
	var converged bool
	if !dt.p.NoFallback && fin.PrimalFirst() {
		// Few features: Newton first, then the dual's certificate (dual
		// CD finishes if it fails).
		improved := fin.Primal(r)
		converged = !r.Cancelled() && (improved && dp.Pass(r, true) || r.Solve(s.seed))
	} else {
		converged = r.Solve(s.seed)
	}
	for round := 1; r.Handover(); round++ {
		improved := fin.Finish(r, round)
		if r.Cancelled() {
			break
		}
		converged = improved && dp.Pass(r, true) || r.Solve(s.seed^newtonSalt*uint64(round))
	}

	res := &s.res
	converged, measured := r.Settle(dp, converged)
	viol, primal := r.LastViol, math.NaN()
	if measured {
		viol, primal = dp.PassViol, dp.PassPrimal
		// Stopped short of the small-problem target (the epoch cap) at a
		// point that the pass finds within the user's eps: converged as
		// liblinear would say.
		converged = converged || (!r.Cancelled() && viol <= dt.user)
	}
	res.Iterations = r.Steps
	res.Epochs = r.Epochs()
	res.Operations = dp.Ops
	res.Objective = dp.Objective()
	res.Primal = primal
	res.Gap = primal + res.Objective
	res.Violation = viol
	res.Converged = converged && !r.Cancelled()
	res.Cancelled = r.Cancelled()
	res.HitEpochCap = r.Capped() && !converged
	res.NewtonSteps = fin.Steps
	res.NewtonFirst = fin.Steps > 0 && fin.Upfront()
	for _, v := range dp.W {
		if v != 0 {
			res.NNZW++
		}
	}
	res.SupportVectors = 0
	for _, a := range dp.Alpha {
		if a > 0 {
			res.SupportVectors++
		}
	}
	res.Seconds = time.Since(start).Seconds()
	if dt.p.warm != nil && !res.Cancelled {
		dt.p.warm.keep(k, dp)
	}
}

// newtonSalt seeds the selection of the dual CD that finishes after a
// finisher, round by round.
const newtonSalt = 0x6e6577746f6e

// trainDual trains -s 1, 3 and 7, the classes in parallel.
func trainDual(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	dt, res, err := newDualTraining(ctx, d, p)
	if err != nil {
		return nil, nil, err
	}
	nsub := len(dt.subs)
	mdl, inPlace := dt.newModel(res)

	err = eachSubproblem(ctx, d, pool, nsub, func() func(k int) {
		dp, fin := dt.worker(inPlace, pool)
		return func(k int) {
			dt.solve(k, dp, fin)
			if inPlace == nil {
				dt.copyOut(mdl, k, dp.W)
			}
		}
	}, func(k int) { dt.subs[k].res.Cancelled = true })
	if err != nil {
		return nil, nil, err
	}

	dt.total(res, mdl)
	res.Seconds = time.Since(start).Seconds()
	return mdl, res, nil
}

// eachSubproblem trains subproblems 0 to nsub−1 on up to
// min(GOMAXPROCS, nsub) workers: the caller's processor and the spare ones
// of the pool. Each worker calls start once for its solve function (its
// own buffers), then solves the subproblems it claims; once ctx is
// cancelled the subproblems not started go to cancelled instead. A worker
// that finds no subproblem left gives its processor back to the pool, for
// the passes of the subproblems still running; the last one keeps it for
// the caller. A fault in a worker (a truncated mapped file) is returned
// as the error.
func eachSubproblem(ctx context.Context, d *Dataset, pool *procs.Pool, nsub int, start func() func(k int), cancelled func(k int)) error {
	workers := 1 + pool.Take(min(runtime.GOMAXPROCS(0), nsub)-1)
	var alive atomic.Int64
	alive.Store(int64(workers))
	var next atomic.Int64
	var wg sync.WaitGroup
	var faultMu sync.Mutex
	var faultErr error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if alive.Add(-1) > 0 {
					pool.Give(1)
				}
			}()
			defer fault.Guard()()
			var err error
			defer func() {
				if err != nil {
					faultMu.Lock()
					faultErr = err
					faultMu.Unlock()
				}
			}()
			defer fault.Recover(d.Source, &err)
			solve := start()
			for {
				k := int(next.Add(1) - 1)
				if k >= nsub {
					return
				}
				if ctx.Err() != nil {
					cancelled(k) // its weights stay 0
					continue
				}
				solve(k)
			}
		}()
	}
	wg.Wait()
	return faultErr
}

// newModel returns the model the subproblems train into. One subproblem
// trains in place in its W (inPlace, len NF+1); with several, each worker
// has its own w and copies it out interleaved (copyOut).
func (dt *dualTraining) newModel(res *Result) (mdl *Model, inPlace []float64) {
	nsub := len(dt.subs)
	nf := dt.sh.NF
	mdl = &Model{SolverType: res.Solver, Labels: dt.labels, NumFeature: nf, Bias: dt.p.bias(), NrW: nsub}
	if nsub == 1 {
		inPlace = make([]float64, nf+1)
		mdl.W = inPlace[:dt.rows()]
	} else {
		mdl.W = make([]float64, dt.rows()*nsub)
	}
	return mdl, inPlace
}

// rows is the number of weight rows: the features, and the bias.
func (dt *dualTraining) rows() int {
	if dt.p.bias() > 0 {
		return dt.sh.NF + 1
	}
	return dt.sh.NF
}

// copyOut stores subproblem k's weights w in the model.
func (dt *dualTraining) copyOut(mdl *Model, k int, w []float64) {
	nsub := len(dt.subs)
	for j := range dt.rows() {
		mdl.W[j*nsub+k] = w[j]
	}
}

// total sums the subproblems' results into res and marks the model.
func (dt *dualTraining) total(res *Result, mdl *Model) {
	res.Converged = true
	for k := range dt.subs {
		r := &dt.subs[k].res
		r.Solver, r.Select, r.C, r.Eps = res.Solver, res.Select, res.C, res.Eps
		res.add(r)
		res.SupportVectors += r.SupportVectors
	}
	res.NNZW = mdl.NNZ()
	if len(dt.subs) > 1 {
		res.Classes = make([]Result, len(dt.subs))
		for k := range dt.subs {
			res.Classes[k] = dt.subs[k].res
		}
	}
	mdl.Partial = !res.Converged || res.Cancelled
}

// add adds a subproblem's result r to the total.
func (res *Result) add(r *Result) {
	res.Iterations += r.Iterations
	res.Epochs += r.Epochs
	res.NewtonSteps += r.NewtonSteps
	res.NewtonFirst = res.NewtonFirst || r.NewtonFirst
	res.Operations += r.Operations
	res.Objective += r.Objective
	res.Primal += r.Primal
	res.Gap += r.Gap
	res.Violation = max(res.Violation, r.Violation)
	res.Converged = res.Converged && r.Converged
	res.HitEpochCap = res.HitEpochCap || r.HitEpochCap
	res.Cancelled = res.Cancelled || r.Cancelled
}

// subproblem is one binary problem: class k (or class 0 of two) against the rest.
type subproblem struct {
	class  int
	cp, cn float64
	seed   uint64
	res    Result
}

// classCosts returns the C of each class (C times its -wi weight) and the
// warnings for weights of labels that do not occur, in label order.
func classCosts(labels []float64, p Params) ([]float64, []string) {
	weighted := make([]float64, len(labels))
	for j := range weighted {
		weighted[j] = p.C
	}
	wlabels := make([]float64, 0, len(p.Weights))
	for lab := range p.Weights {
		wlabels = append(wlabels, lab)
	}
	sort.Float64s(wlabels) // deterministic warnings
	var warnings []string
	for _, lab := range wlabels {
		j := indexOf(labels, lab)
		if j < 0 {
			warnings = append(warnings, fmt.Sprintf("class label %g specified in weight is not found", lab))
			continue
		}
		weighted[j] *= p.Weights[lab]
	}
	return weighted, warnings
}

// lockedProgress makes f safe to call from several goroutines, one call
// at a time.
func lockedProgress(f func(Progress)) func(Progress) {
	if f == nil {
		return nil
	}
	var mu sync.Mutex
	return func(pr Progress) {
		mu.Lock()
		defer mu.Unlock()
		f(pr)
	}
}

// newSubproblems returns liblinear's train() subproblems with their
// costs: two classes give one problem with class 0 positive, Cp = weighted
// C of class 0 and Cn = that of class 1; otherwise (one class included)
// one-vs-rest with Cp = weighted C of class k and Cn = c.
func newSubproblems(labels, weighted []float64, c float64) []subproblem {
	nsub := len(labels)
	if nsub == 2 {
		nsub = 1
	}
	subs := make([]subproblem, nsub)
	for k := range subs {
		s := &subs[k]
		s.class = k
		if len(labels) == 2 {
			s.cp, s.cn = weighted[0], weighted[1]
		} else {
			s.cp, s.cn = weighted[k], c
		}
	}
	return subs
}
