// Package dual trains the L2-regularised linear models that liblinear
// solves in the dual, by dual coordinate descent with ACF on the driver
// (package solver; the problems' mathematics is package dcd):
//
//	-s 1   L2R_L2LOSS_SVC_DUAL   the squared-hinge SVM
//	-s 3   L2R_L1LOSS_SVC_DUAL   the hinge-loss SVM
//	-s 7   L2R_LR_DUAL           logistic regression
//	-s 12  L2R_L2LOSS_SVR_DUAL   support vector regression, squared ε-insensitive loss
//	-s 13  L2R_L1LOSS_SVR_DUAL   support vector regression, ε-insensitive loss
//	-s 21  ONECLASS_SVM          the one-class SVM
//
// The classifiers are liblinear's train(): one binary subproblem, or one
// per class against the rest, trained in parallel. Where the dual crawls
// (large C on few features) a finisher of package finish takes over —
// primal Newton for -s 1, 7 and 12, an interior-point method for -s 3 and
// 13 — and the dual's full KKT pass certifies its answer.
package dual

import (
	"context"

	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/primal"
)

// Kind is the model Train fits, named after liblinear's solver types.
type Kind uint8

const (
	L2LossSVC Kind = iota // -s 1
	L1LossSVC             // -s 3
	LR                    // -s 7
	L2LossSVR             // -s 12
	L1LossSVR             // -s 13
	OneClass              // -s 21
)

// Defaults.
const (
	// DefaultEps is liblinear's -e for -s 1, 3, 7, 12 and 13.
	DefaultEps = 0.1
	// DefaultOneClassEps is liblinear's -e for -s 21.
	DefaultOneClassEps = 0.01
	// DefaultMaxEpochs is liblinear 2.3.0's max_iter for the dual solvers.
	DefaultMaxEpochs = 1000
)

// Spec is what Train fits.
type Spec struct {
	fit.Spec
	Kind Kind
	// P is the ε of the SVRs' loss (a negative P counts as 0); Nu the
	// one-class SVM's ν in (0, 1].
	P, Nu float64
	// PrimalEps, where positive, is the -e of the primal solver of the
	// same problem (-s 2, 0, 11) that this dual trains in place of
	// (TrainPrimal): a certified point must meet that solver's rule too
	// (dcd.PrimalRule).
	PrimalEps float64
}

// Train fits s.Kind to d: the classifiers in classifiers.go, the SVRs in
// svr.go, the one-class SVM in oneclass.go.
func Train(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	switch s.Kind {
	case L2LossSVR, L1LossSVR:
		return trainSVR(ctx, d, s)
	case OneClass:
		return trainOneClass(ctx, d, s)
	}
	return trainClassifier(ctx, d, s)
}

// tunings are the constants a training of the family runs under: the
// driver's, the problems', the family's own, the finishers' and dense
// Newton's (internal/tune).
type tunings struct {
	drv *solver.Tuning
	dcd *dcd.Tuning
	own *Tuning
	fin *finish.Tuning
	pt  *primal.Tuning
}

func tuningsOf(ctx context.Context) tunings {
	return tunings{tune.Get(ctx, solver.DefaultTuning), tune.Get(ctx, dcd.DefaultTuning), tune.Get(ctx, DefaultTuning),
		tune.Get(ctx, finish.DefaultTuning), tune.Get(ctx, primal.DefaultTuning)}
}

// config is the driver's configuration of the SVR and one-class duals:
// one problem, seeded as the first subproblem of the classifiers.
func (s *Spec) config(ctx context.Context, eps float64, work int64, repair solver.Repair) solver.Config {
	maxEpochs := s.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultMaxEpochs
	}
	cfg := s.Config(ctx, mix.Seed(s.Seed, 0), eps, maxEpochs, repair, work)
	if f := s.Progress; f != nil {
		cfg.Progress = func(epoch int, viol, obj float64) { f(fit.Progress{Epoch: epoch, Violation: viol, Objective: obj}) }
	}
	return cfg
}

// settle fills in the result of a single-problem run r that ended with
// converged, at the violation and primal objective measured.
func settle(res *fit.Result, m *model.Model, r *solver.Run, ops int64, converged bool, viol, primal float64) {
	res.SetRun(r, ops, converged, viol, primal)
	res.NNZW = m.NNZ()
	m.Partial = !res.Converged || res.Cancelled
}
