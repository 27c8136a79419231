package acfcd

import (
	"context"
	"math"
	"runtime"
	"time"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/folds"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
	"github.com/acfcd/acfcd/solver/fit"
)

// The grid of liblinear's parameter search (find_parameters).
const (
	searchMaxC    = 1024    // the largest C tried for the classifiers
	searchMaxCSVR = 1 << 20 // and for the SVRs
	searchPSteps  = 20      // the SVRs' ε grid: i·max|y|/20, i = 19 … 0
)

// SearchOptions configure FindC; the zero value is liblinear's -C.
type SearchOptions struct {
	// StartC is the first C tried (liblinear's -c given with -C); 0
	// computes it from the data (see FindC).
	StartC float64
	// StartP, for the SVRs, is the largest ε tried (liblinear's -p given
	// with -C); 0 starts at the top of the grid.
	StartP float64
	// Cold trains every C from scratch instead of from the solution of
	// the previous C, to measure what the warm starts save. The folds are
	// the same; w then moves at every C, so the search runs to the
	// largest C.
	Cold bool
	// Point, if set, is called with each C's outcome as soon as it is
	// known, in the order tried (the CLI prints liblinear's lines from it).
	Point func(CPoint)
}

// CPoint is one C (and for the SVRs one ε) of a parameter search.
type CPoint = folds.Point

// CSearch is the outcome of FindC.
type CSearch = folds.SearchResult

// FindC is liblinear's -C: a search for the C of best cross-validation
// accuracy (for the SVRs, the C and ε of least mean squared error). C
// starts small and doubles up to 1024 (2^20 for the SVRs); the search stops
// early once no fold's w has moved (‖Δw‖ ≤ 1e-15) for 5 C in a row. The
// SVRs repeat this for ε = i·max|y|/20, i = 19, …, 0 (from StartP down if
// given), as liblinear does for -s 11.
//
// The folds are those of CrossValidate with the same seed, trained
// concurrently as CrossValidate trains them; each fold's C follow one
// another. For the dual solvers (-s 1, 3, 7) each fold starts a C from
// its solution at the previous C (see warmStart), unless opt.Cold; the
// primal Newton solvers (-s 0, 2, 11) start from its w and stop by
// liblinear's rule (‖∇f(0)‖ of w = 0), as liblinear's warm start: at
// large C that rule holds at the previous w, which then does not move,
// and that is what ends the search early. The others train every C from
// scratch. The first C is opt.StartC, or
// liblinear's calc_start_C: 2^⌊log2 C₀⌋ with C₀ = 1/(ℓ·max‖x_i‖²) for
// logistic regression (-s 0, 7) and the hinge losses (-s 3, 4, ww: below
// it every α is at its bound, so the direction of w does not change),
// 1/(2ℓ·max‖x_i‖²) for the squared hinge (-s 1, 2), liblinear's formula
// from the ε-insensitive loss for the SVRs, and for the L1-regularised
// -s 5 and 6 the largest C whose model is w = 0 (1/(2‖Xᵀy‖∞) and
// 2/‖Xᵀy‖∞, the smallest over the one-vs-rest subproblems).
//
// A cancelled ctx stops the search soon: FindC returns the points done,
// with an error that wraps ctx.Err(). An error of a fold is returned as
// "C = X: fold N: ...".
func FindC(ctx context.Context, d *Dataset, p Params, nfolds int, opt SearchOptions) (cs *CSearch, err error) {
	if err := kernel.EnvError(); err != nil {
		return nil, err
	}
	if err := checkArgs(ctx, d); err != nil {
		return nil, err
	}
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	switch p.Problem {
	case Lasso:
		return nil, paramError("Params.Problem", p.Problem, "parameter search is for the models with a C; the LASSO has λ instead (TrainPath)")
	case OneClassSVM:
		return nil, paramError("Params.Problem", p.Problem, "parameter search: the one-class SVM has no C (its parameter is ν)")
	}
	if err := checkFolds(d, "folds", nfolds); err != nil {
		return nil, err
	}
	if !(opt.StartC >= 0) || math.IsInf(opt.StartC, 0) {
		return nil, paramError("SearchOptions.StartC", opt.StartC, "the first C must be a positive finite number")
	}
	if !(opt.StartP >= 0) || math.IsInf(opt.StartP, 0) {
		return nil, paramError("SearchOptions.StartP", opt.StartP, "the first ε must be a non-negative finite number")
	}
	if err := checkRows(d, p); err != nil {
		return nil, err
	}
	if err := p.Check(); err != nil {
		return nil, err // before any fold, so that the message names none
	}
	if p.Seed == 0 {
		p.Seed = DefaultSeed
	}
	start := time.Now()
	nprocs := runtime.GOMAXPROCS(0)
	out := &CSearch{Folds: nfolds, Best: -1}
	f := &folds.Search{D: d, Folds: nfolds, Perm: folds.Perm(d.Rows, p.Seed), // CrossValidate's folds
		Regression: p.Problem.Regression(), Conc: cvConcurrency(d, p, nfolds, nprocs), Procs: nprocs,
		Keep: folds.KeepCopies(d, nfolds), Point: opt.Point, Out: out}
	if newWarm := families[p.Problem].warm; newWarm != nil {
		f.NewWarm = func() any { return newWarm(opt.Cold) }
	}
	p.Progress = fit.LockedProgress(p.Progress) // one call at a time, as CrossValidate
	defer func() { out.Seconds = time.Since(start).Seconds() }()

	if !f.Regression {
		startC := opt.StartC
		if startC == 0 {
			if startC, err = families[p.Problem].start(d, &p); err != nil {
				return nil, err
			}
		}
		return out, chain(ctx, f, d, p, min(startC, searchMaxC), searchMaxC)
	}
	maxP := 0.0
	for _, y := range d.Label {
		maxP = max(maxP, math.Abs(y))
	}
	i := searchPSteps - 1
	if opt.StartP > 0 {
		if q := opt.StartP / (maxP / searchPSteps); q < float64(i) {
			i = int(q)
		}
	}
	for ; i >= 0; i-- {
		pi := p
		pi.P = float64(i) * maxP / searchPSteps
		if pi.P == 0 {
			pi.P = -1 // Params.P: negative is ε = 0 (0 would be the default)
		}
		startC := opt.StartC
		if startC == 0 {
			if startC, err = families[p.Problem].start(d, &pi); err != nil {
				return nil, err
			}
		}
		if err := chain(ctx, f, d, pi, min(startC, searchMaxCSVR), searchMaxCSVR); err != nil {
			return out, err
		}
	}
	return out, nil
}

// chain runs f.Chain at p; a refusal of the memory guard before any point
// is judged on the whole data and, if that passes, the folds run again
// with the guard lifted (see guardedAsWhole).
func chain(ctx context.Context, f *folds.Search, d *Dataset, p Params, startC, maxC float64) error {
	err := f.Chain(ctx, startC, maxC, p.epsilon(), foldTrainer(p))
	if err == nil || len(f.Out.Points) > 0 || f.MaxFeatures > 0 {
		return err
	}
	lift, err := guardedAsWhole(d, p, err)
	if !lift {
		return err
	}
	f.MaxFeatures = d.Features
	return f.Chain(ctx, startC, maxC, p.epsilon(), foldTrainer(p))
}

// epsilon is the SVRs' ε that p stands for.
func (p *Params) epsilon() float64 {
	switch {
	case p.P < 0:
		return 0
	case p.P == 0:
		return DefaultP
	}
	return p.P
}

// foldTrainer trains a fold of FindC with p at the fold's C and warm
// start.
func foldTrainer(p Params) folds.TrainFunc {
	return func(ctx context.Context, rows *Dataset, fold int, C float64, warm any, pool *procs.Pool) (*Model, *Result, error) {
		pc := p
		pc.C, pc.warm = C, warm
		if p.Progress != nil {
			pc.Progress = func(pr Progress) {
				pr.Fold = fold + 1
				p.Progress(pr)
			}
		}
		return trainWith(ctx, rows, pc, pool)
	}
}
