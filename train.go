package acfcd

import (
	"context"
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
	switch {
	case p.Problem == Lasso:
		m, res, err = trainLasso(ctx, d, p)
	case p.Problem == WestonWatkins:
		m, res, err = trainWW(ctx, d, p, pool)
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
	var allowed []Selection
	switch p.Problem {
	case Lasso:
		allowed = []Selection{ACF, Uniform, Cyclic}
	case WestonWatkins:
		allowed = []Selection{ACF, Uniform}
	default:
		allowed = []Selection{ACFShrink, ACF, Uniform, Shrink}
	}
	if p.Select == AutoSelection {
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

// trainDual trains -s 1, 3 and 7: one binary subproblem, or one per class.
func trainDual(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	loss := [...]dual.Loss{SquaredHingeDual: dual.L2SVM, HingeDual: dual.L1SVM, LogisticDual: dual.Logistic}[p.Problem]
	eps := p.Eps
	if eps == 0 {
		eps = 0.1 // liblinear's default for -s 1, 3 and 7
	}
	maxEpochs := p.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultMaxEpochs
	}
	labels, _, err := checkClassification(d, &p, false)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Solver: p.Problem.String(), Select: p.Select.String(), C: p.C, Eps: eps}
	weighted, warnings := classCosts(labels, p)
	res.Warnings = warnings

	// -e keeps liblinear's meaning. For the SVMs liblinear stops when
	// PGmax − PGmin ≤ eps over a sweep; certifying max|PG| ≤ eps/2 over all
	// coordinates implies that spread for every coordinate at once. For
	// LR liblinear stops on max|∂f/∂α_i| ≤ eps, certified as is.
	inner := eps
	if loss != dual.Logistic {
		inner = eps / 2
	}
	t := p.Tuning
	sh, err := dual.NewData(d, p.bias(), t)
	if err != nil {
		return nil, nil, err
	}
	fallback := !p.NoFallback
	var dups *finish.Dups
	if loss != dual.Logistic && fallback && t.PushDups && sh.N <= t.DupsMaxRows {
		dups = finish.FindDups(sh)
	}
	sel := p.Select
	if loss == dual.Logistic {
		// No α_i of the logistic dual sits at a bound: nothing to shrink.
		switch sel {
		case Shrink:
			sel = Uniform
		case ACFShrink:
			sel = ACF
		}
	}
	repair := solver.RepairMax
	if loss == dual.Logistic {
		// A logistic dual has no bounds and its failed passes find many
		// violators, whose p_max would crowd out the rest.
		repair = solver.RepairAtLeastOne
	}
	progress := lockedProgress(p.Progress)

	// Subproblems as liblinear's train(): two classes give one problem with
	// class 0 positive, Cp = weighted C of class 0 and Cn = that of class 1;
	// otherwise (one class included) one-vs-rest with Cp = weighted C of
	// class k and Cn = C.
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
			s.cp, s.cn = weighted[k], p.C
		}
		s.seed = mix.Seed(p.Seed, uint64(k)) // its own stream whatever goroutine runs it
	}

	wlen := d.Features
	if p.bias() > 0 {
		wlen++
	}
	mdl := &Model{SolverType: res.Solver, Labels: labels, NumFeature: d.Features, Bias: p.bias(), NrW: nsub}
	// One subproblem trains in place in the model's W; with several, each
	// worker has its own w and copies it out interleaved.
	var inPlace []float64
	if nsub == 1 {
		inPlace = make([]float64, d.Features+1)
		mdl.W = inPlace[:wlen]
	} else {
		mdl.W = make([]float64, wlen*nsub)
	}

	// The classes go to up to min(GOMAXPROCS, nsub) workers: the caller's
	// processor and the spare ones of the pool. A worker that finds no
	// class left gives its processor back to the pool, for the KKT passes
	// of the classes still running; the last one keeps it for the caller.
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
			dp := dual.New(sh, loss, inner, inPlace, pool, t)
			fin := finish.New(dp, t, fallback)
			for {
				k := int(next.Add(1) - 1)
				if k >= nsub {
					return
				}
				s := &subs[k]
				if ctx.Err() != nil {
					// Cancelled: the classes not started keep w = 0.
					s.res.Cancelled = true
					continue
				}
				cfg := solver.Config{Selection: sel, Seed: s.seed, Eps: inner, MaxEpochs: maxEpochs, ACF: p.ACF,
					EarlyCheck: true, Repair: repair, Work: 2 * sh.NNZ(), Done: ctx.Done(), Tuning: t, Trace: p.trace}
				if progress != nil {
					class := s.class
					cfg.Progress = func(epoch int, viol, obj float64) {
						progress(Progress{Class: class, Epoch: epoch, Violation: viol, Objective: obj})
					}
				}
				if fallback {
					cfg.Switch = fin.Due
				}
				if dups != nil {
					cfg.AfterBatch = func() float64 { return dups.Push(dp) }
				}
				trainOne(dp, fin, cfg, labels[s.class], s)
				if inPlace != nil {
					continue
				}
				for j := 0; j < wlen; j++ {
					mdl.W[j*nsub+k] = dp.W[j]
				}
			}
		}()
	}
	wg.Wait()
	if faultErr != nil {
		return nil, nil, faultErr
	}

	res.Converged = true
	for k := range subs {
		r := &subs[k].res
		r.Solver, r.Select, r.C, r.Eps = res.Solver, res.Select, res.C, res.Eps
		res.add(r)
	}
	res.NNZW = mdl.NNZ()
	if nsub > 1 {
		res.Classes = make([]Result, nsub)
		for k := range subs {
			res.Classes[k] = subs[k].res
		}
	}
	mdl.Partial = !res.Converged || res.Cancelled
	res.Seconds = time.Since(start).Seconds()
	return mdl, res, nil
}

// add adds a subproblem's result r to the total.
func (res *Result) add(r *Result) {
	res.Iterations += r.Iterations
	res.Epochs += r.Epochs
	res.NewtonSteps += r.NewtonSteps
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

// newtonSalt seeds the selection of the dual CD that finishes after a
// finisher, round by round.
const newtonSalt = 0x6e6577746f6e

// trainOne solves subproblem s (the examples labelled pos positive): dual
// coordinate descent, and whenever the switch rule fires, the finisher,
// whose answer the full KKT pass certifies or dual CD finishes.
func trainOne(dp *dual.Problem, fin *finish.Finisher, cfg solver.Config, pos float64, s *subproblem) {
	start := time.Now()
	obj := dp.Reset(pos, s.cp, s.cn)
	fin.Reset()
	r := solver.NewRun(dp, cfg)
	r.Obj = obj
	converged := r.Solve(s.seed)
	for round := 1; r.Handover(); round++ {
		improved := fin.Finish(r, round)
		if r.Cancelled() {
			break
		}
		converged = improved && dp.Pass(r, true) || r.Solve(s.seed^newtonSalt*uint64(round))
	}

	res := &s.res
	viol, primal := dp.PassViol, dp.PassPrimal
	switch {
	case converged:
	case r.Cancelled():
		// A full pass reads all the data: seconds at kdd scale, where the
		// caller asked to stop now.
		viol, primal = r.LastViol, math.NaN()
	default:
		// Stopped early: measure where it is, without steps.
		converged = dp.Pass(r, false)
		viol, primal = dp.PassViol, dp.PassPrimal
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
	for _, v := range dp.W {
		if v != 0 {
			res.NNZW++
		}
	}
	res.Seconds = time.Since(start).Seconds()
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
