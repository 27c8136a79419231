package acfcd

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/procs"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/multiclass"
)

// trainWW fits the Weston–Watkins multi-class SVM by dual block
// coordinate descent over examples (package multiclass).
//
// Params: C, Eps (default 0.1: the largest projected-gradient violation
// over all α_ic), Bias, Weights (C_i = C × weight of class y_i), Select
// (ACF or Uniform), Seed, MaxEpochs, ACF and Progress (Class is always 0).
//
// Result: Iterations counts block steps; Operations counts multiply-adds
// with the weights, K per stored non-zero for each product and update;
// Objective is the dual (minimised), Primal P(W). The model has NrW = K
// weight vectors, also for K = 2, and predicts the argmax.
func trainWW(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	wt, err := newWWTraining(ctx, d, p, pool)
	if err != nil {
		return nil, nil, err
	}
	m := wt.solve()
	wt.res.Seconds = time.Since(start).Seconds()
	return m, wt.res, nil
}

// wwTraining is a Weston–Watkins training set up.
type wwTraining struct {
	p      Params
	d      *Dataset
	labels []float64
	prob   *multiclass.Problem
	cfg    solver.Config
	res    *Result
	user   float64 // the violation the user's eps certifies (the pass's is smaller on small problems)
}

// newWWTraining checks d and p and sets up the problem at α = 0.
func newWWTraining(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*wwTraining, error) {
	eps := p.Eps
	if eps == 0 {
		eps = 0.1
	}
	maxEpochs := p.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultMaxEpochs
	}
	labels, class, err := checkClassification(d, &p, true)
	if err != nil {
		return nil, err
	}
	K := len(labels)
	if uint64(d.Features+1)*uint64(K) > math.MaxInt || uint64(d.Rows)*uint64(K) > math.MaxInt {
		return nil, fmt.Errorf("%d examples and %d features × %d classes are too many for this platform", d.Rows, d.Features, K)
	}
	wt := &wwTraining{p: p, d: d, labels: labels}
	wt.res = &Result{Solver: p.Problem.String(), Select: p.Select.String(), C: p.C, Eps: eps}
	ub, warnings := classCosts(labels, p)
	wt.res.Warnings = warnings
	inner := smallEps(d, &p, eps)
	wt.user = eps
	wt.prob = multiclass.New(d, class, ub, p.bias(), inner, pool, p.Tuning)
	wt.cfg = solver.Config{Selection: p.Select, Seed: mix.Seed(p.Seed, 0), Eps: inner, MaxEpochs: maxEpochs, ACF: p.ACF,
		Repair: solver.RepairKeep, Work: wt.prob.Work(), Done: ctx.Done(), Tuning: p.Tuning, Trace: p.trace}
	if f := p.Progress; f != nil {
		wt.cfg.Progress = func(epoch int, viol, obj float64) { f(Progress{Epoch: epoch, Violation: viol, Objective: obj}) }
	}
	return wt, nil
}

// solve trains and returns the model, filling in the result.
func (wt *wwTraining) solve() *Model {
	prob, res := wt.prob, wt.res
	r := solver.NewRun(prob, wt.cfg)
	converged, measured := r.Settle(prob, r.Solve(wt.cfg.Seed))
	viol, primal := r.LastViol, math.NaN()
	if measured {
		viol, primal = prob.PassViol, prob.PassPrimal
		// Stopped short of the small-problem target at a point within
		// the user's eps: converged, as liblinear would report it.
		converged = converged || (!r.Cancelled() && viol <= wt.user)
	}

	K := len(wt.labels)
	rows := wt.d.Features
	if wt.p.bias() > 0 {
		rows++
	}
	m := &Model{SolverType: res.Solver, Labels: wt.labels, NumFeature: wt.d.Features, Bias: wt.p.bias(), NrW: K,
		W: prob.W[: rows*K : rows*K]}
	res.Iterations = r.Steps
	res.Epochs = r.Epochs()
	res.Operations = prob.Ops
	res.Objective = prob.Objective()
	res.Primal = primal
	res.Gap = res.Primal + res.Objective
	res.Violation = viol
	res.Converged = converged && !r.Cancelled()
	res.Cancelled = r.Cancelled()
	res.HitEpochCap = r.Capped() && !converged
	res.NNZW = m.NNZ()
	m.Partial = !res.Converged || res.Cancelled
	return m
}
