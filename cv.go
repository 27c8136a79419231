package acfcd

import (
	"context"
	"errors"
	"runtime"
	"strconv"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/folds"
	"github.com/acfcd/acfcd/solver/fit"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
)

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Folds   int
	Rows    int
	Correct int // held-out examples predicted right
	// Accuracy is 100·Correct/Rows, computed as liblinear's -v does.
	Accuracy float64
	// MSE and R2 are the mean squared error of the predictions and their
	// squared correlation coefficient with the labels, as liblinear's -v
	// prints them for regression ("Cross Validation Mean squared error",
	// "Cross Validation Squared correlation coefficient"); R2 is NaN when
	// the predictions or the labels are constant.
	MSE, R2 float64
	// Predicted holds each example's prediction by the model of the fold
	// that held it out, in d's row order.
	Predicted []float64
	// Results are the training results of the folds, in fold order.
	Results []*Result
}

// CVInterruptedError is the error of CrossValidate and FindC when ctx
// was cancelled while folds were training; it names the folds cut short
// and wraps ctx.Err().
type CVInterruptedError = folds.Interrupted

// CrossValidate is liblinear's -v, for every problem: the rows of d are
// shuffled once as liblinear shuffles them (glibc's rand() after
// srand(p.Seed), so the default seed gives liblinear's own folds) and cut
// into nfolds parts of near-equal size; a model trained on all but one part predicts that part. The
// result has the accuracy (classifiers, the one-class SVM) and the mean
// squared error and squared correlation (regression). An error of a fold is returned as
// "fold N: ..." for the first such fold; a cancelled ctx gives a
// *CVInterruptedError naming the folds that were running.
//
// Folds train concurrently, up to GOMAXPROCS at once (see
// cvConcurrency), each exactly as Train would train it alone: the result,
// predictions included, is the same at any GOMAXPROCS. p.Progress, if set,
// is called with Progress.Fold set, never for two folds at once.
func CrossValidate(ctx context.Context, d *Dataset, p Params, nfolds int) (res *CVResult, err error) {
	if err := kernel.EnvError(); err != nil {
		return nil, err
	}
	if err := checkArgs(ctx, d); err != nil {
		return nil, err
	}
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	if err := checkFolds(d, "folds", nfolds); err != nil {
		return nil, err
	}
	if err := checkRows(d, p); err != nil {
		return nil, err
	}
	if err := p.checkOne(); err != nil {
		return nil, err // before the folds, so that the message names none
	}
	if p.Seed == 0 {
		p.Seed = DefaultSeed
	}
	perm := folds.Perm(d.Rows, p.Seed)

	nprocs := runtime.GOMAXPROCS(0)
	conc := cvConcurrency(d, p, nfolds, nprocs)
	// The fold goroutines hold conc tokens, the rest are spare for the
	// classes and KKT passes inside the folds (internal/procs).
	pool := procs.NewPool(nprocs - conc)
	res = &CVResult{Folds: nfolds, Rows: d.Rows, Predicted: make([]float64, d.Rows), Results: make([]*Result, nfolds)}
	correct := make([]int, nfolds)
	progress := fit.LockedProgress(p.Progress) // for one fold at a time
	maxFeatures := 0                           // the folds' MaxFeatures: 0 is d's
	run := func() error {
		return folds.Run(ctx, nfolds, conc, pool, func(ctx context.Context, f int) (cut bool, err error) {
			// The fold reads d (Subset, the predictions), which may be a
			// mapped cache: the same fault guard as Train's goroutines.
			defer fault.Guard()()
			defer fault.Recover(source(d), &err)
			lo, hi := f*d.Rows/nfolds, (f+1)*d.Rows/nfolds
			train := append(append([]int(nil), perm[:lo]...), perm[hi:]...)
			pf := p
			if progress != nil {
				pf.Progress = func(pr Progress) {
					pr.Fold = f + 1
					progress(pr)
				}
			}
			m, r, err := trainWith(ctx, foldRows(d, train, maxFeatures), pf, pool)
			if r != nil && r.Cancelled {
				res.Results[f] = r
				return true, nil
			}
			if err != nil {
				return false, err
			}
			res.Results[f] = r
			folds.Predict(m, d, perm[lo:hi], func(i int, y float64) {
				res.Predicted[i] = y
				if y == d.Label[i] {
					correct[f]++
				}
			})
			return false, nil
		})
	}
	err = run()
	if lift, gerr := guardedAsWhole(d, p, err); lift {
		maxFeatures = d.Features
		clear(correct)
		err = run()
	} else {
		err = gerr
	}
	if err != nil {
		return nil, err
	}
	for _, c := range correct {
		res.Correct += c
	}
	res.Accuracy = 100 * float64(res.Correct) / float64(d.Rows)
	res.MSE, res.R2 = regressionStats(res.Predicted, d.Label)
	return res, nil
}

// cvConcurrency returns how many folds CrossValidate trains at once.
//
// Processors: a binary problem (and the Weston–Watkins SVM) trains on one
// goroutine, so up to GOMAXPROCS folds run at once; one-vs-rest with
// nsub classes already runs min(GOMAXPROCS, nsub) of them in parallel, so
// only GOMAXPROCS/nsub folds do (one when there are at least as many
// classes as processors: the classes share them). Processors left over
// (and those of folds that finished) go to the classes and KKT passes
// inside the folds, through the pool. Memory: folds.Concurrency.
func cvConcurrency(d *Dataset, p Params, nfolds, procs int) int {
	nsub := 1
	if p.Problem != WestonWatkins {
		if labels, _, err := fit.Classes(d.Label); err == nil && len(labels) > 2 {
			nsub = len(labels)
		}
	}
	rows := uint64(d.Rows)
	trainRows := rows - rows/uint64(nfolds)
	// α, C−α, y, ‖x‖², shrinking lists; w of the model, the worker's.
	return folds.Concurrency(d, nfolds, min(nfolds, procs, max(1, procs/nsub)), trainRows*48+uint64(d.Features+1)*8*uint64(nsub+1))
}

// foldRows returns the rows of d that train a fold; maxFeatures, if not
// 0, replaces d's MaxFeatures (see guardedAsWhole).
func foldRows(d *Dataset, rows []int, maxFeatures int) *Dataset {
	s := d.Subset(rows)
	if maxFeatures > 0 {
		s.MaxFeatures = maxFeatures
	}
	return s
}

// guardedAsWhole reports whether err is the memory guard (fit.CheckDense)
// refusing a fold of data that it lets train whole; otherwise it returns
// err, or the whole data's refusal. The guard weighs the dense arrays
// against the data's size, and a fold holds less of it: what trains on
// d must cross-validate on d, so the caller retries the folds with the
// guard lifted (MaxFeatures = d.Features, which declares the size). A
// training under a cancelled context runs the checks and stops.
func guardedAsWhole(d *Dataset, p Params, err error) (bool, error) {
	var de *fit.DataError
	if !errors.As(err, &de) || de.Hint.Option != "Options.MaxFeatures" || de.Hint.Value != strconv.Itoa(d.Features) ||
		d.MaxFeatures >= d.Features {
		return false, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.Progress, p.warm = nil, nil
	if _, _, werr := trainWith(ctx, d, p, procs.NewPool(0)); errors.As(werr, &de) {
		return false, werr
	}
	return true, nil
}

// checkFolds refuses data without rows and a number of folds (the
// parameter named param) that cannot cut it.
func checkFolds(d *Dataset, param string, folds int) error {
	switch {
	case d == nil || d.Rows == 0:
		return errors.New("no training examples")
	case folds < 2:
		return paramError(param, folds, "cross-validation needs at least 2 folds")
	case folds > d.Rows:
		return paramError(param, folds, "more folds than the %d examples", d.Rows)
	}
	return nil
}

// checkRows refuses data that every fold would refuse, before the folds,
// so that no message names a fold.
func checkRows(d *Dataset, p Params) error {
	if err := fit.CheckData(d); err != nil {
		return err
	}
	return fit.CheckSquares(d, p.Bias)
}

// DefaultCVFolds is cv.glmnet's nfolds.
const DefaultCVFolds = 10

// CVPathOptions configures CrossValidatePath. The zero value is
// cv.glmnet's defaults: 10 folds drawn from Params.Seed, glmnet's λ
// sequence fitted on the whole data.
type CVPathOptions struct {
	// Folds is the number of folds K ≥ 2 (0: DefaultCVFolds). Ignored
	// when FoldID is given.
	Folds int
	// FoldID is cv.glmnet's foldid: the fold, 1 to K, of each row of the
	// data, every fold non-empty. nil draws it from Params.Seed (FoldIDs).
	FoldID []int
	// Lambdas is the λ sequence (non-increasing). nil fits
	// LambdaSequence(d, p, N, Ratio) on the whole data with glmnet's
	// early stop, as cv.glmnet does, and cross-validates the λ of that
	// fit.
	Lambdas []float64
	N       int     // path length when Lambdas is nil (0: DefaultPathLength)
	Ratio   float64 // λ_min/λ_max when Lambdas is nil (0: glmnet's)
}

// CVPathResult is cv.glmnet's answer.
type CVPathResult struct {
	Lambda []float64 // the λ sequence, largest first
	// MeanError is cv.glmnet's cvm: the mean squared error of the
	// held-out predictions, the folds' MSEs averaged with the folds'
	// sizes as weights. SE is its cvsd, the standard error
	// sqrt(Σ_k n_k (e_k − cvm)² / Σ_k n_k / (K − 1)).
	MeanError, SE []float64
	// FoldError[k][j] is the MSE of fold k+1 at Lambda[j].
	FoldError [][]float64
	// NNZ is the non-zero weights of the whole data's fit at each λ
	// (cv.glmnet's nzero).
	NNZ []int
	// IndexMin is the largest λ with the least MeanError (cv.glmnet's
	// lambda.min); Index1SE the largest λ whose MeanError is at most
	// MeanError + SE at IndexMin (lambda.1se).
	IndexMin, Index1SE   int
	LambdaMin, Lambda1SE float64
	// FoldID is the fold of each row, 1 to K.
	FoldID []int
	Folds  int
	// Path is the fit on the whole data at each λ, with its models.
	Path []PathPoint
}

// FoldIDs returns cv.glmnet's default fold assignment for rows rows:
// rep(1:folds, length = rows) in an order shuffled by seed (0: DefaultSeed).
// It needs rows ≥ 0 and 1 ≤ nfolds.
func FoldIDs(rows, nfolds int, seed uint64) ([]int, error) {
	if rows < 0 {
		return nil, paramError("rows", rows, "a row count cannot be negative")
	}
	if nfolds < 1 {
		return nil, paramError("nfolds", nfolds, "folds are numbered from 1: at least 1 is needed")
	}
	if seed == 0 {
		seed = DefaultSeed
	}
	return folds.IDs(rows, nfolds, seed), nil
}

// CrossValidatePath is cv.glmnet for the LASSO (and the elastic net of
// p.Alpha): the path is fitted on the whole data, then on each fold's
// complement (warm starts, every λ, as cv.glmnet fits its folds), each
// held-out row is predicted at every λ, and the squared
// errors give MeanError, SE, λ.min and λ.1se by cv.glmnet's definitions.
// p is used as by TrainPathLambdas. As in cv.glmnet, whose loss is
// averaged over the rows, the penalty keeps its weight per row: a fold
// with ℓ_k training rows of the ℓ is fitted at λ·ℓ_k/ℓ. Folds train concurrently, up to
// GOMAXPROCS at once; the result is the same at any GOMAXPROCS and, for
// the same p.Seed and options, on every run.
//
// When ctx is cancelled it returns an error wrapping ctx.Err().
func CrossValidatePath(ctx context.Context, d *Dataset, p Params, o CVPathOptions) (res *CVPathResult, err error) {
	if err := kernel.EnvError(); err != nil {
		return nil, err
	}
	if err := checkArgs(ctx, d); err != nil {
		return nil, err
	}
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	if d == nil || d.Rows == 0 {
		return nil, errors.New("no training examples")
	}
	ids, nfolds, err := cvFolds(d, p.Seed, o)
	if err != nil {
		return nil, err
	}
	var full []PathPoint
	if o.Lambdas != nil {
		full, err = TrainPathLambdas(ctx, d, p, o.Lambdas)
	} else {
		full, err = TrainPath(ctx, d, p, o.N, o.Ratio)
	}
	if err != nil {
		return nil, err
	}
	lams := make([]float64, len(full))
	nnz := make([]int, len(full))
	for j, pt := range full {
		lams[j], nnz[j] = pt.Lambda, pt.NNZ
	}

	members := make([][]int, nfolds) // rows of each fold, in row order
	for i, f := range ids {
		members[f-1] = append(members[f-1], i)
	}
	sse := make([][]float64, nfolds)
	conc := folds.Concurrency(d, nfolds, min(nfolds, runtime.GOMAXPROCS(0)), uint64(d.Features+1)*8*4) // the fold's path of models
	spare := procs.NewPool(runtime.GOMAXPROCS(0) - conc)                                               // the folds' passes share what the folds leave
	// The folds report through Progress with Fold set, one at a time;
	// their points are not the path's.
	progress := fit.LockedProgress(p.Progress)
	fp := p
	fp.PathProgress = nil
	err = folds.Run(ctx, nfolds, conc, spare, func(ctx context.Context, f int) (cut bool, err error) {
		defer fault.Guard()()
		defer fault.Recover(source(d), &err)
		pf := fp
		if progress != nil {
			pf.Progress = func(pr Progress) { pr.Fold = f + 1; progress(pr) }
		}
		sse[f], err = cvFoldSSE(ctx, d, pf, ids, f+1, members[f], lams, spare)
		return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded), err
	})
	if err != nil {
		return nil, err
	}
	res = &CVPathResult{Lambda: lams, NNZ: nnz, FoldID: ids, Folds: nfolds, Path: full,
		FoldError: make([][]float64, nfolds)}
	sizes := make([]float64, nfolds)
	for f := range nfolds {
		sizes[f] = float64(len(members[f]))
		res.FoldError[f] = make([]float64, len(lams))
		for j := range lams {
			res.FoldError[f][j] = sse[f][j] / sizes[f]
		}
	}
	res.MeanError, res.SE = folds.Stats(res.FoldError, sizes)
	res.IndexMin, res.Index1SE = folds.Choose(res.MeanError, res.SE)
	res.LambdaMin, res.Lambda1SE = lams[res.IndexMin], lams[res.Index1SE]
	return res, nil
}

// cvFolds resolves the fold of each row and the number of folds.
func cvFolds(d *Dataset, seed uint64, o CVPathOptions) ([]int, int, error) {
	if o.FoldID == nil {
		k := o.Folds
		if k == 0 {
			k = DefaultCVFolds
		}
		if err := checkFolds(d, "CVPathOptions.Folds", k); err != nil {
			return nil, 0, err
		}
		ids, err := FoldIDs(d.Rows, k, seed)
		return ids, k, err
	}
	k, bad, reason := folds.CheckIDs(o.FoldID, d.Rows)
	if reason != "" {
		return nil, 0, paramError("CVPathOptions.FoldID", bad, "%s", reason)
	}
	if err := checkFolds(d, "CVPathOptions.FoldID", k); err != nil {
		return nil, 0, err
	}
	return append([]int(nil), o.FoldID...), k, nil
}

// cvFoldSSE fits the path on the rows outside fold f and returns the sum
// of squared errors of fold f's rows (held, in row order) at each λ.
func cvFoldSSE(ctx context.Context, d *Dataset, p Params, ids []int, f int, held []int, lams []float64, pool *procs.Pool) ([]float64, error) {
	train := make([]int, 0, d.Rows-len(held))
	for i, g := range ids {
		if g != f {
			train = append(train, i)
		}
	}
	// glmnet's loss is 1/(2ℓ)‖y − Xw − b‖²: cv.glmnet fits a fold at the
	// whole data's λ/ℓ, which in acfcd's unscaled loss is λ·ℓ_fold/ℓ.
	scale := float64(len(train)) / float64(d.Rows)
	flams := make([]float64, len(lams))
	for j, lam := range lams {
		flams[j] = lam * scale
	}
	// The path on the whole data passed the memory guard: a fold, which
	// holds less data, is judged as the whole (see guardedAsWhole).
	pts, err := trainPathLambdas(ctx, foldRows(d, train, d.Features), p, flams, pool)
	if err != nil {
		return nil, err
	}
	sse := make([]float64, len(lams))
	for j, pt := range pts {
		var s compsum.Sum
		folds.Predict(pt.Model, d, held, func(i int, y float64) {
			r := d.Label[i] - y
			s.Add(float64(r * r))
		})
		sse[j] = s.Value()
	}
	return sse, nil
}
