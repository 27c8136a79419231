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

// csMaxEpochs is liblinear's max_iter for -s 4 (Solver_MCSVM_CS's
// default, in 2.3.0 and 2.50 alike), the cap when Params.MaxEpochs is 0.
const csMaxEpochs = 100000

// trainCS fits the Crammer–Singer multi-class SVM (-s 4, MCSVM_CS) by dual
// block coordinate descent over examples (package multiclass).
//
// Params: C, Eps (default 0.1: the largest violation
// max_m G_m − min_{α_m < u_m} G_m over all examples, liblinear's stopping
// quantity, certified at most Tuning.CSCertify·Eps at the returned model),
// Bias, Weights (C_i = C × weight of class y_i), Select (ACFShrink, the
// default, and Shrink with liblinear's shrinking of classes and examples;
// ACF, Uniform), Seed, MaxEpochs (default 100000, liblinear's), ACF and
// Progress (Class is always 0).
//
// Result: Iterations counts block steps; Operations counts multiply-adds
// with the weights, one per stored non-zero for each class a product
// reads or an update writes; Objective is the dual as liblinear prints
// it, Primal P(W); SupportVectors counts the examples with some α ≠ 0.
// The model has NrW = K weight vectors, also for K = 2, and predicts the
// argmax.
func trainCS(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	ct, err := newCSTraining(ctx, d, p, pool)
	if err != nil {
		return nil, nil, err
	}
	m := ct.solve()
	ct.res.Seconds = time.Since(start).Seconds()
	return m, ct.res, nil
}

// csTraining is a Crammer–Singer training set up.
type csTraining struct {
	p      Params
	d      *Dataset
	labels []float64
	prob   *multiclass.CS
	cfg    solver.Config
	res    *Result
	user   float64 // the violation the user's eps certifies (the pass's is smaller on small problems)
}

// newCSTraining checks d and p and sets up the problem at α = 0.
func newCSTraining(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*csTraining, error) {
	eps := p.Eps
	if eps == 0 {
		eps = 0.1
	}
	maxEpochs := p.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = csMaxEpochs
	}
	labels, class, err := checkClassification(d, &p, true)
	if err != nil {
		return nil, err
	}
	K := len(labels)
	if uint64(d.Features+1)*uint64(K) > math.MaxInt || uint64(d.Rows)*uint64(K) > math.MaxInt {
		return nil, fmt.Errorf("%d examples and %d features × %d classes are too many for this platform", d.Rows, d.Features, K)
	}
	ct := &csTraining{p: p, d: d, labels: labels}
	ct.res = &Result{Solver: p.Problem.String(), Select: p.Select.String(), C: p.C, Eps: eps}
	ub, warnings := classCosts(labels, p)
	ct.res.Warnings = warnings
	// The pass certifies CSCertify·eps (docs/tuning.md): liblinear stops
	// at eps after a closing sweep that steps on every example.
	inner := eps
	if f := p.Tuning.CSCertify; f > 0 {
		inner = f * eps
	}
	ct.user = inner
	inner = smallEps(d, &p, inner)
	shrink := p.Select == Shrink || p.Select == ACFShrink
	ct.prob = multiclass.NewCS(d, class, ub, p.bias(), inner, shrink, pool, p.Tuning)
	ct.cfg = solver.Config{Selection: p.Select, Seed: mix.Seed(p.Seed, 0), Eps: inner, MaxEpochs: maxEpochs, ACF: p.ACF,
		Repair: solver.RepairKeep, Work: ct.prob.Work(), Done: ctx.Done(), Tuning: p.Tuning, Trace: p.trace}
	// Identical rows of different classes: see multiclass.CS.Push.
	if t := p.Tuning; !p.NoFallback && t.PushDups && d.Rows <= t.DupsMaxRows && ct.prob.FindDups() > 0 {
		ct.cfg.AfterBatch = ct.prob.Push
	}
	if f := p.Progress; f != nil {
		ct.cfg.Progress = func(epoch int, viol, obj float64) { f(Progress{Epoch: epoch, Violation: viol, Objective: obj}) }
	}
	return ct, nil
}

// solve trains and returns the model, filling in the result.
func (ct *csTraining) solve() *Model {
	prob, res := ct.prob, ct.res
	r := solver.NewRun(prob, ct.cfg)
	converged, measured := r.Settle(prob, r.Solve(ct.cfg.Seed))
	viol, primal := r.LastViol, math.NaN()
	if measured {
		viol, primal = prob.PassViol, prob.PassPrimal
		// Stopped short of the small-problem target at a point within
		// the user's eps: converged, as liblinear would report it.
		converged = converged || (!r.Cancelled() && viol <= ct.user)
	}
	K := len(ct.labels)
	rows := ct.d.Features
	if ct.p.bias() > 0 {
		rows++
	}
	m := &Model{SolverType: res.Solver, Labels: ct.labels, NumFeature: ct.d.Features, Bias: ct.p.bias(), NrW: K,
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
	res.SupportVectors = prob.SupportVectors()
	m.Partial = !res.Converged || res.Cancelled
	return m
}
