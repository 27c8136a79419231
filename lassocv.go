package acfcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
)

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
func FoldIDs(rows, folds int, seed uint64) []int {
	if seed == 0 {
		seed = DefaultSeed
	}
	id := make([]int, rows)
	for i := range id {
		id[i] = i%folds + 1
	}
	r := rand.New(rand.NewPCG(seed, 0x676c6d6e))
	r.Shuffle(rows, func(i, j int) { id[i], id[j] = id[j], id[i] })
	return id
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
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	if d == nil || d.Rows == 0 {
		return nil, errors.New("no training examples")
	}
	ids, folds, err := cvFolds(d.Rows, p.Seed, o)
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

	members := make([][]int, folds) // rows of each fold, in row order
	for i, f := range ids {
		members[f-1] = append(members[f-1], i)
	}
	sse := make([][]float64, folds)
	errs := make([]error, folds)
	conc := lassoCVConcurrency(d, folds, runtime.GOMAXPROCS(0))
	spare := procs.NewPool(runtime.GOMAXPROCS(0) - conc) // the folds' passes share what the folds leave
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				f := int(next.Add(1) - 1)
				if f >= folds {
					return
				}
				if ctx.Err() != nil {
					errs[f] = ctx.Err()
					continue
				}
				sse[f], errs[f] = cvFoldSSE(ctx, d, p, ids, f+1, members[f], lams, spare)
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("cross validation interrupted: %w", ctx.Err())
	}
	for f, e := range errs {
		if e != nil {
			return nil, fmt.Errorf("fold %d: %w", f+1, e)
		}
	}
	res = &CVPathResult{Lambda: lams, NNZ: nnz, FoldID: ids, Folds: folds, Path: full,
		FoldError: make([][]float64, folds)}
	sizes := make([]float64, folds)
	for f := range folds {
		sizes[f] = float64(len(members[f]))
		res.FoldError[f] = make([]float64, len(lams))
		for j := range lams {
			res.FoldError[f][j] = sse[f][j] / sizes[f]
		}
	}
	res.MeanError, res.SE = cvStats(res.FoldError, sizes)
	res.IndexMin, res.Index1SE = cvChoose(res.MeanError, res.SE)
	res.LambdaMin, res.Lambda1SE = lams[res.IndexMin], lams[res.Index1SE]
	return res, nil
}

// cvFolds resolves the fold of each row and the number of folds.
func cvFolds(rows int, seed uint64, o CVPathOptions) ([]int, int, error) {
	if o.FoldID == nil {
		k := o.Folds
		if k == 0 {
			k = DefaultCVFolds
		}
		if k < 2 {
			return nil, 0, fmt.Errorf("%d-fold cross-validation: need at least 2 folds", k)
		}
		if k > rows {
			return nil, 0, fmt.Errorf("%d-fold cross-validation: more folds than the %d examples", k, rows)
		}
		return FoldIDs(rows, k, seed), k, nil
	}
	if len(o.FoldID) != rows {
		return nil, 0, fmt.Errorf("fold ids: %d for %d examples", len(o.FoldID), rows)
	}
	k := 0
	for i, f := range o.FoldID {
		if f < 1 || f > rows {
			return nil, 0, fmt.Errorf("fold id %d of example %d: must be 1 to the number of folds", f, i+1)
		}
		k = max(k, f)
	}
	seen := make([]bool, k)
	for _, f := range o.FoldID {
		seen[f-1] = true
	}
	for f, s := range seen {
		if !s {
			return nil, 0, fmt.Errorf("fold ids: fold %d of %d has no example", f+1, k)
		}
	}
	if k < 2 {
		return nil, 0, errors.New("fold ids: need at least 2 folds")
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
	pts, err := trainPathLambdas(ctx, d.Subset(train), p, flams, pool)
	if err != nil {
		return nil, err
	}
	sse := make([]float64, len(lams))
	var buf []float64
	for j, pt := range pts {
		var s compsum.Sum
		for _, i := range held {
			a, b := d.RowPtr[i], d.RowPtr[i+1]
			var val []float64
			if d.Value != nil {
				val = d.Value[a:b:b]
			} else {
				buf = buf[:0]
				for _, v := range d.Value32[a:b] {
					buf = append(buf, float64(v))
				}
				val = buf
			}
			r := d.Label[i] - pt.Model.Predict(d.Index[a:b:b], val)
			s.Add(float64(r * r))
		}
		sse[j] = s.Value()
	}
	return sse, nil
}

// cvStats is cv.glmnet's cvm and cvsd from the folds' errors (fold ×
// λ) and the folds' sizes: the weighted mean of the folds' errors, and
// the square root of their weighted variance around it over K − 1.
func cvStats(foldErr [][]float64, sizes []float64) (mean, se []float64) {
	k := len(foldErr)
	n := len(foldErr[0])
	mean, se = make([]float64, n), make([]float64, n)
	var wsum compsum.Sum
	for _, s := range sizes {
		wsum.Add(s)
	}
	for j := range n {
		var m compsum.Sum
		for f := range k {
			m.Add(float64(sizes[f] * foldErr[f][j]))
		}
		mean[j] = m.Value() / wsum.Value()
		var v compsum.Sum
		for f := range k {
			e := foldErr[f][j] - mean[j]
			v.Add(float64(sizes[f] * float64(e*e)))
		}
		se[j] = math.Sqrt(v.Value() / wsum.Value() / float64(k-1))
	}
	return mean, se
}

// cvChoose is cv.glmnet's getOptcv: iMin is the largest λ (lowest index
// of a decreasing sequence) whose mean error is the least; i1SE the
// largest λ whose mean error is at most mean[iMin] + se[iMin].
func cvChoose(mean, se []float64) (iMin, i1SE int) {
	best := math.Inf(1)
	for _, m := range mean {
		best = min(best, m)
	}
	for j, m := range mean {
		if m <= best {
			iMin = j
			break
		}
	}
	bound := mean[iMin] + se[iMin]
	for j, m := range mean {
		if m <= bound {
			return iMin, j
		}
	}
	return iMin, iMin
}

// lassoCVConcurrency is how many folds CrossValidatePath fits at once:
// up to GOMAXPROCS, with the memory bound of cvConcurrency (each running
// fold holds a copy of its rows and the models of its path).
func lassoCVConcurrency(d *Dataset, folds, procs int) int {
	c := min(folds, procs)
	if c <= 1 {
		return 1
	}
	nnz := uint64(d.RowPtr[d.Rows])
	valBytes := uint64(8)
	if d.Value == nil {
		valBytes = 4
	}
	data := uint64(d.Rows)*16 + nnz*(4+valBytes)
	fold := data/uint64(folds)*uint64(folds-1) + uint64(d.Features+1)*8*4
	budget := max(uint64(cvMemoryFloor), data)
	return int(min(uint64(c), 1+budget/max(fold, 1)))
}
