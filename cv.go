package acfcd

import (
	"context"
	"errors"
	"fmt"
	"github.com/acfcd/acfcd/internal/crand"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
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

// CVInterruptedError is CrossValidate's error when ctx was cancelled while
// folds were training. It wraps ctx.Err().
type CVInterruptedError struct {
	Folds []int // 1-based numbers of the folds cut short, increasing
	Err   error // ctx.Err()
}

func (e *CVInterruptedError) Error() string {
	s := make([]string, len(e.Folds))
	for k, f := range e.Folds {
		s[k] = fmt.Sprint(f)
	}
	if len(s) == 1 {
		return "cross validation interrupted in fold " + s[0]
	}
	return "cross validation interrupted in folds " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func (e *CVInterruptedError) Unwrap() error { return e.Err }

// cvMemoryFloor is the fold copies that concurrent folds may add on top of
// the sequential cross-validation's whatever the size of the data (see
// cvConcurrency).
const cvMemoryFloor = 512 << 20

// CrossValidate is liblinear's -v, for every problem: the rows of d are
// shuffled once as liblinear shuffles them (glibc's rand() after
// srand(p.Seed), so the default seed gives liblinear's own folds) and cut
// into folds parts of near-equal size; a model trained on all but one part predicts that part. The
// result has the accuracy (classifiers, the one-class SVM) and the mean
// squared error and squared correlation (regression). An error of a fold is returned as
// "fold N: ..." for the first such fold; a cancelled ctx gives a
// *CVInterruptedError naming the folds that were running.
//
// Folds train concurrently, up to GOMAXPROCS at once (see
// cvConcurrency), each exactly as Train would train it alone: the result,
// predictions included, is the same at any GOMAXPROCS. p.Progress, if set,
// is called with Progress.Fold set, never for two folds at once.
func CrossValidate(ctx context.Context, d *Dataset, p Params, folds int) (res *CVResult, err error) {
	if err := kernel.EnvError(); err != nil {
		return nil, err
	}
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	if d == nil || d.Rows == 0 {
		return nil, errors.New("no training examples")
	}
	if folds < 2 {
		return nil, fmt.Errorf("%d-fold cross-validation: need at least 2 folds", folds)
	}
	if folds > d.Rows {
		return nil, fmt.Errorf("%d-fold cross-validation: more folds than the %d examples", folds, d.Rows)
	}
	if err := checkData(d); err != nil {
		return nil, err
	}
	if err := checkSquares(d, p.Bias); err != nil {
		return nil, err // before the folds, so that the message names no fold
	}
	if p.Seed == 0 {
		p.Seed = DefaultSeed
	}
	perm := foldPerm(d.Rows, p.Seed)

	nprocs := runtime.GOMAXPROCS(0)
	conc := cvConcurrency(d, p, folds, nprocs)
	// The fold goroutines hold conc tokens, the rest are spare for the
	// classes and KKT passes inside the folds (procs.go).
	pool := procs.NewPool(nprocs - conc)

	res = &CVResult{Folds: folds, Rows: d.Rows, Predicted: make([]float64, d.Rows), Results: make([]*Result, folds)}
	errs := make([]error, folds)
	cancelled := make([]bool, folds)
	correct := make([]int, folds)
	cancels := make([]context.CancelFunc, folds)
	var mu sync.Mutex     // guards cancels
	var progMu sync.Mutex // the user's Progress is called for one fold at a time
	var next atomic.Int64
	var failed atomic.Int64 // lowest fold with an error: later folds are not started
	failed.Store(int64(folds))
	fail := func(f int) {
		for {
			e := failed.Load()
			if int64(f) >= e || failed.CompareAndSwap(e, int64(f)) {
				break
			}
		}
		mu.Lock()
		for g := f + 1; g < folds; g++ {
			if cancels[g] != nil {
				cancels[g]() // its outcome no longer matters
			}
		}
		mu.Unlock()
	}

	runFold := func(f int) (err error) {
		// The fold reads d (Subset, the predictions), which may be a
		// mapped cache: the same fault guard as Train's goroutines.
		defer fault.Guard()()
		defer fault.Recover(source(d), &err)
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		mu.Lock()
		cancels[f] = cancel
		stop := failed.Load() < int64(f)
		mu.Unlock()
		if stop {
			return nil
		}
		lo, hi := f*d.Rows/folds, (f+1)*d.Rows/folds
		train := append(append([]int(nil), perm[:lo]...), perm[hi:]...)
		pf := p
		if p.Progress != nil {
			user := p.Progress
			pf.Progress = func(pr Progress) {
				pr.Fold = f + 1
				progMu.Lock()
				defer progMu.Unlock()
				user(pr)
			}
		}
		m, r, err := trainWith(fctx, d.Subset(train), pf, pool)
		if r != nil && r.Cancelled {
			res.Results[f] = r
			cancelled[f] = true
			return nil
		}
		if err != nil {
			return err
		}
		res.Results[f] = r
		var buf []float64
		for _, i := range perm[lo:hi] {
			a, b := d.RowPtr[i], d.RowPtr[i+1]
			var val []float64
			if d.Value != nil {
				val = d.Value[a:b:b]
			} else { // float32 storage
				buf = buf[:0]
				for _, v := range d.Value32[a:b] {
					buf = append(buf, float64(v))
				}
				val = buf
			}
			y := m.Predict(d.Index[a:b:b], val)
			res.Predicted[i] = y
			if y == d.Label[i] {
				correct[f]++
			}
		}
		return nil
	}

	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pool.Give(1) // no fold left: lend the processor to the folds still running
			for {
				f := int(next.Add(1) - 1)
				if f >= folds || int64(f) > failed.Load() {
					return
				}
				if ctx.Err() != nil {
					continue // not started; the folds running report the interruption
				}
				if err := runFold(f); err != nil {
					errs[f] = err
					fail(f)
				}
			}
		}()
	}
	wg.Wait()

	// The outcome is that of the first fold that failed or was cut
	// short, as if the folds had run one after another.
	var intr *CVInterruptedError
	for f := range folds {
		switch {
		case errs[f] != nil && intr == nil:
			return nil, fmt.Errorf("fold %d: %w", f+1, errs[f])
		case cancelled[f]:
			if intr == nil {
				intr = &CVInterruptedError{Err: ctx.Err()}
			}
			intr.Folds = append(intr.Folds, f+1)
		}
	}
	if intr == nil && ctx.Err() != nil {
		// Cancelled between folds: none was cut short, but some never ran.
		for f := range folds {
			if res.Results[f] == nil {
				return nil, &CVInterruptedError{Folds: []int{f + 1}, Err: ctx.Err()}
			}
		}
	}
	if intr != nil {
		return nil, intr
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
// inside the folds, through the pool.
//
// Memory: each running fold holds its own copy of its training rows
// (Dataset.Subset copies: the solvers index rows by position in plain CSR
// arrays, and a view through a row map would put an indirection in every
// coordinate step, while the copy also lays the fold's rows out in the
// order they are trained), about (folds−1)/folds of the data, plus the
// solver's per-example and per-feature arrays. Sequential
// cross-validation holds one such copy; the folds run concurrently add at
// most the size of the data itself in copies (or cvMemoryFloor, for small
// data), so peak memory stays within about twice that of the sequential
// run. With two processors that always allows two folds.
func cvConcurrency(d *dataio.Dataset, p Params, folds, procs int) int {
	nsub := 1
	if p.Problem != WestonWatkins {
		if labels, _, err := groupClasses(d.Label); err == nil && len(labels) > 2 {
			nsub = len(labels)
		}
	}
	c := min(folds, procs, max(1, procs/nsub))
	if c <= 1 {
		return 1
	}
	nnz := uint64(d.RowPtr[d.Rows])
	valBytes := uint64(8)
	if d.Value == nil {
		valBytes = 4
	}
	rows := uint64(d.Rows)
	data := rows*16 + nnz*(4+valBytes) // row pointers, labels, indices, values
	trainRows := rows - rows/uint64(folds)
	fold := data/uint64(folds)*uint64(folds-1) + trainRows*48 + // copy; α, C−α, y, ‖x‖², shrinking lists
		uint64(d.Features+1)*8*uint64(nsub+1) // w of the model, the worker's
	budget := max(uint64(cvMemoryFloor), data)
	return int(min(uint64(c), 1+budget/max(fold, 1)))
}

// foldPerm is the order of the rows whose i·ℓ/k-th to (i+1)·ℓ/k-th
// entries are fold i: liblinear's own permutation, drawn with the C
// library's rand() (glibc's) after srand(seed mod 2³²), so that the
// default seed, 1, gives the folds of liblinear-train -v and -C.
func foldPerm(rows int, seed uint64) []int { return crand.Perm(rows, uint32(seed)) }
