// Package folds is the machinery of cross-validation that liblinear's -v
// and -C and cv.glmnet share: which rows form each fold, how many folds
// train at once within a memory budget, the concurrent run of the folds
// with the outcome a sequential run would have, the held-out predictions
// and cv.glmnet's statistics.
package folds

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/crand"
	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
)

// MemoryFloor is the fold copies that concurrent folds may add on top of
// the sequential cross-validation's whatever the size of the data (see
// Concurrency).
const MemoryFloor = 512 << 20

// Perm is the order of the rows whose i·ℓ/k-th to (i+1)·ℓ/k-th entries are
// fold i: liblinear's own permutation, drawn with the C library's rand()
// (glibc's) after srand(seed mod 2³²), so that seed 1 gives the folds of
// liblinear-train -v and -C.
func Perm(rows int, seed uint64) []int { return crand.Perm(rows, uint32(seed)) }

// IDs is cv.glmnet's default fold assignment for rows rows: rep(1:folds,
// length = rows) in an order shuffled by seed.
func IDs(rows, folds int, seed uint64) []int {
	id := make([]int, rows)
	for i := range id {
		id[i] = i%folds + 1
	}
	r := rand.New(rand.NewPCG(seed, 0x676c6d6e))
	r.Shuffle(rows, func(i, j int) { id[i], id[j] = id[j], id[i] })
	return id
}

// Bytes is the memory of d's arrays: row pointers, labels, indices and
// values.
func Bytes(d *dataio.Dataset) uint64 {
	valBytes := uint64(8)
	if d.Value == nil {
		valBytes = 4
	}
	return uint64(d.Rows)*16 + uint64(d.RowPtr[d.Rows])*(4+valBytes)
}

// Concurrency is c, or fewer, folds at once: each running fold holds its
// own copy of its training rows (Dataset.Subset copies: the solvers index
// rows by position in plain CSR arrays, and a view through a row map
// would put an indirection in every coordinate step, while the copy also
// lays the fold's rows out in the order they are trained), about
// (folds−1)/folds of the data, plus perFold bytes of the solver's arrays.
// A sequential run holds one such copy; the folds run at once add at most
// the size of the data itself in copies (or MemoryFloor, for small data),
// so peak memory stays within about twice that of the sequential run.
// With two processors that always allows two folds.
func Concurrency(d *dataio.Dataset, folds, c int, perFold uint64) int {
	if c <= 1 {
		return 1
	}
	data := Bytes(d)
	fold := data/uint64(folds)*uint64(folds-1) + perFold
	budget := max(uint64(MemoryFloor), data)
	return int(min(uint64(c), 1+budget/max(fold, 1)))
}

// Interrupted is the error of a cross-validation whose ctx was cancelled
// while folds were training. It wraps ctx.Err() and ends with its text,
// so that a deadline reads differently from a cancellation.
type Interrupted struct {
	Folds []int // 1-based numbers of the folds cut short, increasing
	Err   error // ctx.Err()
}

func (e *Interrupted) Error() string {
	s := make([]string, len(e.Folds))
	for k, f := range e.Folds {
		s[k] = fmt.Sprint(f)
	}
	var msg string
	switch len(s) {
	case 0:
		msg = "cross validation interrupted"
	case 1:
		msg = "cross validation interrupted in fold " + s[0]
	default:
		msg = "cross validation interrupted in folds " + strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Interrupted) Unwrap() error { return e.Err }

// Run calls fold for the folds 0 to n−1 on conc goroutines, each under a
// context of its own: fold reports whether its training was cut short by
// the cancellation of ctx, or an error. A worker with no fold left gives
// its processor back to pool, for the folds still running. Once a fold
// fails, the folds after it are not started and those running are
// cancelled (their outcome no longer matters). The outcome is that of
// the first fold that failed or was cut short, as if the folds had run
// one after another: that fold's error as "fold N: …", or an
// *Interrupted naming the folds cut short.
func Run(ctx context.Context, n, conc int, pool *procs.Pool, fold func(ctx context.Context, f int) (cut bool, err error)) error {
	errs := make([]error, n)
	cut := make([]bool, n)
	ran := make([]bool, n)
	cancels := make([]context.CancelFunc, n)
	var mu sync.Mutex // guards cancels
	var next atomic.Int64
	var failed atomic.Int64 // lowest fold with an error: later folds are not started
	failed.Store(int64(n))
	fail := func(f int) {
		for {
			e := failed.Load()
			if int64(f) >= e || failed.CompareAndSwap(e, int64(f)) {
				break
			}
		}
		mu.Lock()
		for g := f + 1; g < n; g++ {
			if cancels[g] != nil {
				cancels[g]()
			}
		}
		mu.Unlock()
	}
	run := func(f int) {
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		mu.Lock()
		cancels[f] = cancel
		stop := failed.Load() < int64(f)
		mu.Unlock()
		if stop {
			return
		}
		cut[f], errs[f] = fold(fctx, f)
		ran[f] = errs[f] == nil
		if errs[f] != nil {
			fail(f)
		}
	}
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pool.Give(1) // no fold left: lend the processor to the folds still running
			for {
				f := int(next.Add(1) - 1)
				if f >= n || int64(f) > failed.Load() {
					return
				}
				if ctx.Err() != nil {
					continue // not started; the folds running report the interruption
				}
				run(f)
			}
		}()
	}
	wg.Wait()

	var intr *Interrupted
	for f := range n {
		switch {
		case errs[f] != nil && intr == nil:
			return fmt.Errorf("fold %d: %w", f+1, errs[f])
		case cut[f]:
			if intr == nil {
				intr = &Interrupted{Err: ctx.Err()}
			}
			intr.Folds = append(intr.Folds, f+1)
		}
	}
	if intr == nil && ctx.Err() != nil {
		// Cancelled between folds: none was cut short, but some never ran.
		for f := range n {
			if !ran[f] {
				return &Interrupted{Folds: []int{f + 1}, Err: ctx.Err()}
			}
		}
	}
	if intr != nil {
		return intr
	}
	return nil
}

// Predict calls f with each of d's rows in rows and m's prediction of it.
func Predict(m *model.Model, d *dataio.Dataset, rows []int, f func(i int, y float64)) {
	var buf []float64
	for _, i := range rows {
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
		f(i, m.Predict(d.Index[a:b:b], val))
	}
}

// Stats is cv.glmnet's cvm and cvsd from the folds' errors (fold × λ) and
// the folds' sizes: the weighted mean of the folds' errors, and the square
// root of their weighted variance around it over K − 1.
func Stats(foldErr [][]float64, sizes []float64) (mean, se []float64) {
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

// Choose is cv.glmnet's getOptcv: iMin is the largest λ (lowest index of
// a decreasing sequence) whose mean error is the least; i1SE the largest
// λ whose mean error is at most mean[iMin] + se[iMin].
func Choose(mean, se []float64) (iMin, i1SE int) {
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

// CheckIDs checks a fold assignment (cv.glmnet's foldid) of rows rows:
// folds 1 to k, every one non-empty. Otherwise it returns the offending
// value and why.
func CheckIDs(ids []int, rows int) (k, bad int, reason string) {
	if len(ids) != rows {
		return 0, len(ids), fmt.Sprintf("%d fold ids for %d examples", len(ids), rows)
	}
	for i, f := range ids {
		if f < 1 || f > rows {
			return 0, f, fmt.Sprintf("the fold of example %d must be 1 to the number of folds", i+1)
		}
		k = max(k, f)
	}
	seen := make([]bool, k)
	for _, f := range ids {
		seen[f-1] = true
	}
	for f, s := range seen {
		if !s {
			return 0, f + 1, fmt.Sprintf("fold %d of %d has no example", f+1, k)
		}
	}
	return k, 0, ""
}
