package multiclass

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// Defaults.
const (
	// DefaultEps is the largest violation both SVMs stop at (liblinear's
	// -e for -s 4).
	DefaultEps = 0.1
	// DefaultMaxEpochsWW is the Weston–Watkins SVM's cap on epochs
	// (liblinear 2.3.0's max_iter for the duals).
	DefaultMaxEpochsWW = 1000
	// DefaultMaxEpochsCS is liblinear's max_iter for -s 4 (Solver_MCSVM_CS's
	// default, in 2.3.0 and 2.50 alike).
	DefaultMaxEpochsCS = 100000
)

// Spec is what Train fits: the Weston–Watkins SVM, or with Crammer the
// Crammer–Singer SVM (liblinear's -s 4, MCSVM_CS).
type Spec struct {
	fit.Spec
	Crammer bool
}

// Train fits a multi-class SVM by dual block coordinate descent over
// examples, all K classes at once; the examples' C is C times the -wi
// weight of their class.
//
// Weston–Watkins: Eps (default 0.1) is the largest projected-gradient
// violation over all α_ic; the selections ACF and Uniform. Crammer–Singer:
// Eps is liblinear's stopping quantity, the largest violation
// max_m G_m − min_{α_m < u_m} G_m over all examples, certified at most
// Tuning.CSCertify·Eps at the returned model, with a duality gap of at
// most Tuning.CSGap·P (the tolerance tightens until it holds: at a large
// C the violation alone lets the gap reach Σ_i C_i·Eps); the selections ACFShrink
// and Shrink (liblinear's shrinking of classes and examples), ACF and
// Uniform; identical rows of different classes are pushed together
// (CS.Push) unless NoFallback.
//
// Result: Iterations counts block steps; Operations counts multiply-adds
// with the weights, one per stored non-zero for each class a product
// reads or an update writes; Objective is the dual (minimised, as
// liblinear prints -s 4's), Primal P(W); for Crammer–Singer
// SupportVectors counts the examples with some α ≠ 0. The model has
// NrW = K weight vectors, also for K = 2, and predicts the argmax.
func Train(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	m, res, _, err := train(ctx, d, s)
	return m, res, err
}

// train is Train that also returns the problem at its end (the tests read
// its duals).
func train(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, problem, error) {
	start := time.Now()
	eps := s.Eps
	if eps == 0 {
		eps = DefaultEps
	}
	maxEpochs := s.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultMaxEpochsWW
		if s.Crammer {
			maxEpochs = DefaultMaxEpochsCS
		}
	}
	labels, class, err := fit.CheckClassification(d, &s.Spec, true)
	if err != nil {
		return nil, nil, nil, err
	}
	K := len(labels)
	// The duals, Alpha (and perm when CS shrinks), are K values per example.
	perClass, what := uint64(8), "the Weston–Watkins SVM"
	if s.Crammer {
		what = "the Crammer–Singer SVM"
		if (s.Select == solver.Shrink || s.Select == solver.ACFShrink) && K <= maxShrinkClasses {
			perClass += 2
		}
	}
	if err := fit.CheckDuals(d, perClass, what, K); err != nil {
		return nil, nil, nil, err
	}
	if uint64(d.Features+1)*uint64(K) > math.MaxInt || uint64(d.Rows)*uint64(K) > math.MaxInt {
		return nil, nil, nil, fmt.Errorf("%d examples and %d features × %d classes are too many for this platform", d.Rows, d.Features, K)
	}
	res := &fit.Result{Select: s.Select.String(), C: s.C, Eps: eps}
	ub, warnings := fit.ClassCosts(labels, &s.Spec)
	res.Warnings = warnings

	// The violation the user's eps certifies; the pass's may be smaller
	// on small problems.
	user := eps
	small := s.Small(ctx, d.NNZ())
	drv := tune.Get(ctx, solver.DefaultTuning)
	var prob problem
	var cfg solver.Config
	if s.Crammer {
		// The pass certifies CSCertify·eps (docs/tuning.md): liblinear
		// stops at eps after a closing sweep that steps on every example.
		t := tune.Get(ctx, DefaultTuning)
		if f := t.CSCertify; f > 0 {
			user = f * eps
		}
		shrink := s.Select == solver.Shrink || s.Select == solver.ACFShrink
		cs := NewCS(d, class, ub, s.Bias, user*small, shrink, s.Pool, drv, t)
		cfg = s.Config(ctx, mix.Seed(s.Seed, 0), user*small, maxEpochs, solver.RepairKeep, cs.Work())
		// Identical rows of different classes: see CS.Push.
		if !s.NoFallback && t.PushDups && d.Rows <= t.DupsMaxRows && cs.FindDups() > 0 {
			cfg.AfterBatch = cs.Push
		}
		prob = cs
	} else {
		ww := NewWW(d, class, ub, s.Bias, eps*small, s.Pool, drv)
		cfg = s.Config(ctx, mix.Seed(s.Seed, 0), eps*small, maxEpochs, solver.RepairKeep, ww.Work())
		prob = ww
	}
	if f := s.Progress; f != nil {
		cfg.Progress = func(epoch int, viol, obj float64) { f(fit.Progress{Epoch: epoch, Violation: viol, Objective: obj}) }
	}

	r := solver.NewRun(prob, cfg)
	converged, measured := r.Settle(prob, r.Solve(cfg.Seed))
	measured = measured && !r.Cancelled() // cancelled in Settle's pass: its figures are partial
	ex := prob.base()
	viol, primal := fit.Measured(r, measured, ex.PassViol, ex.PassPrimal)
	// Stopped short of the small-problem target at a point within the
	// user's eps: converged, as liblinear would report it.
	// Crammer–Singer also needs its relative gap (CS.Pass).
	gapOK := true
	if cs, ok := prob.(*CS); ok && cs.gapTol > 0 && measured && !r.Cancelled() {
		gapOK = cs.gapOK()
	}
	converged = converged || (measured && !r.Cancelled() && viol <= user && gapOK)
	rows := d.Features
	if s.Bias > 0 {
		rows++
	}
	m := &model.Model{Labels: labels, NumFeature: d.Features, Bias: s.Bias, NrW: K, W: ex.W[: rows*K : rows*K]}
	// A cancelled run stops at once: recomputing the objective reads all
	// N·K duals (gigabytes with many classes), so it reports the one the
	// steps' exact gains tracked.
	res.Objective = r.Obj
	if !r.Cancelled() {
		res.Objective = prob.Objective()
	}
	res.SetRun(r, ex.Ops, converged, viol, primal)
	res.NNZW = m.NNZ()
	if cs, ok := prob.(*CS); ok {
		res.SupportVectors = cs.SupportVectors(r.Cancelled())
	}
	m.Partial = !res.Converged || res.Cancelled
	res.Seconds = time.Since(start).Seconds()
	return m, res, prob, nil
}

// problem is what Train needs of WW and CS.
type problem interface {
	solver.Problem
	base() *examples
	Objective() float64
}
