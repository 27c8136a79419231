package folds

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	"github.com/acfcd/acfcd/solver/fit"
)

// The constants of liblinear's parameter search (find_parameter_C).
const (
	searchUnchanged = 5     // stop when w has not moved for this many C (see Chain)
	searchWTol      = 1e-15 // ‖Δw‖ at or below this is "not moved"
)

// Point is one C (and for the SVRs one ε) of a parameter search.
type Point struct {
	C float64
	// P is the SVRs' ε (0 for the classifiers).
	P float64
	// Correct and Accuracy (percent) are the cross-validation accuracy of
	// a classifier; MSE is the cross-validation mean squared error of an
	// SVR (0 for the classifiers).
	Correct  int
	Accuracy float64
	MSE      float64
	// Iterations and Operations are summed over the folds' training, and
	// Seconds is the sum of their training times.
	Iterations int64
	Operations int64
	Seconds    float64
	// Results are the folds' training results, in fold order.
	Results []*fit.Result
	// Last marks the last C of its search (for the SVRs: of its ε);
	// MaxCReached says that the search ended there because the next C
	// would exceed the largest (liblinear's "WARNING: maximum C
	// reached."), not because w stopped moving.
	Last, MaxCReached bool
}

// SearchResult is the outcome of a parameter search.
type SearchResult struct {
	Folds int
	// Points are the C (and ε) tried, in order.
	Points []Point
	// Best indexes Points: the first point of the highest accuracy (the
	// lowest MSE), as liblinear keeps the first of equals.
	Best  int
	BestC float64
	BestP float64 // SVRs: the best ε
	// Accuracy (percent) or MSE at the best point.
	Accuracy, MSE float64
	// Operations are summed over every point; Seconds is the wall time of
	// the search.
	Operations int64
	Seconds    float64
}

// TrainFunc trains one fold's rows at cost C from warm (a family's warm
// start, or nil) with the goroutines of pool; fold is 0-based.
type TrainFunc func(ctx context.Context, rows *dataio.Dataset, fold int, C float64, warm any, pool *procs.Pool) (*model.Model, *fit.Result, error)

// Search is the fold machinery of a parameter search: the folds of Perm
// (CrossValidate's), Conc of them trained at once, the others of Procs
// spare for the training inside them.
type Search struct {
	D          *dataio.Dataset
	Folds      int
	Perm       []int
	Regression bool
	Conc       int
	Procs      int
	// Keep holds every fold's copy of its training rows for the whole
	// search (see KeepCopies); otherwise each training makes its own.
	Keep bool
	// MaxFeatures, if not 0, replaces D's in the folds' training rows: the
	// caller judged the memory guard on D, whose rows the folds share.
	MaxFeatures int
	// NewWarm, if set, returns a fold's warm start, kept from one C to
	// the next.
	NewWarm func() any
	Point   func(Point) // called with each point, in order
	Out     *SearchResult

	labels []float64 // D's labels, read under the caller's fault guard
	subs   []*dataio.Dataset
}

// KeepCopies reports whether every fold's copy of its training rows may
// stay in memory for the whole search: when all of them add at most what
// cross-validation allows its concurrent folds (the size of the data, or
// MemoryFloor).
func KeepCopies(d *dataio.Dataset, nfolds int) bool {
	data := Bytes(d)
	return data/uint64(nfolds)*uint64(nfolds-1)*uint64(nfolds) <= max(uint64(MemoryFloor), data)
}

// foldRows returns fold f's training rows, its held-out rows.
func (s *Search) foldRows(fold int) (train *dataio.Dataset, held []int) {
	lo, hi := fold*s.D.Rows/s.Folds, (fold+1)*s.D.Rows/s.Folds
	if train = s.subs[fold]; train == nil {
		rows := append(append(make([]int, 0, s.D.Rows-(hi-lo)), s.Perm[:lo]...), s.Perm[hi:]...)
		train = s.D.Subset(rows)
	}
	if s.MaxFeatures > 0 {
		train.MaxFeatures = s.MaxFeatures
	}
	if s.Keep {
		s.subs[fold] = train
	}
	return train, s.Perm[lo:hi]
}

// cell is the outcome of one fold at one C.
type cell struct {
	res   *fit.Result
	moved bool // ‖w − w at the previous C‖ > searchWTol
}

// Chain runs the C of one search, startC, 2·startC, … ≤ maxC, at the
// SVRs' ε eps, as liblinear's find_parameter_C, and appends its points to
// s.Out: each fold's C follow one another (Chain), and the search ends at
// the first C at which no fold's w has moved for searchUnchanged C in a
// row.
func (s *Search) Chain(ctx context.Context, startC, maxC, eps float64, train TrainFunc) error {
	if s.labels == nil {
		s.labels = append([]float64(nil), s.D.Label...)
		s.subs = make([]*dataio.Dataset, s.Folds)
	}
	var grid []float64
	for c := startC; c <= maxC; c *= 2 {
		grid = append(grid, c)
	}
	n, nf := len(grid), s.Folds
	cells := make([][]cell, n)
	for k := range cells {
		cells[k] = make([]cell, nf)
	}
	warm := make([]any, nf) // nil where the family has none: every C from scratch
	for i := range warm {
		if s.NewWarm != nil {
			warm[i] = s.NewWarm()
		}
	}
	prevW := make([][]float64, nf)
	var mu sync.Mutex             // guards preds
	preds := make([][]float64, n) // each point's held-out predictions, in D's row order, until final
	unchanged := 0                // liblinear's num_unchanged_w

	// final completes point k, all of whose folds are done.
	final := func(k int) (last bool) {
		pt := Point{C: grid[k], Results: make([]*fit.Result, nf)}
		if s.Regression {
			pt.P = eps
		}
		moved := false
		for fo, c := range cells[k] {
			pt.Results[fo] = c.res
			pt.Iterations += c.res.Iterations
			pt.Operations += c.res.Operations
			pt.Seconds += c.res.Seconds
			moved = moved || c.moved
		}
		mu.Lock()
		pred := preds[k]
		preds[k] = nil
		mu.Unlock()
		var sq float64 // in row order, as liblinear sums it
		for i, v := range pred {
			y := s.labels[i] // a copy: D may be a mapped file, and this goroutine has no fault guard
			if v == y {
				pt.Correct++
			}
			sq += float64((v - y) * (v - y))
		}
		rows := float64(s.D.Rows)
		if s.Regression {
			pt.MSE = sq / rows
		} else {
			pt.Accuracy = 100 * float64(pt.Correct) / rows // as CrossValidate
		}
		switch {
		case k == 0:
			unchanged = 1
		case moved:
			unchanged = 0
		default:
			unchanged++
		}
		switch {
		case unchanged == searchUnchanged:
			pt.Last = true
		case k == n-1:
			pt.Last, pt.MaxCReached = true, true
		}
		out := s.Out
		out.Points = append(out.Points, pt)
		out.Operations += pt.Operations
		if b := out.Best; b < 0 || s.Regression && pt.MSE < out.MSE || !s.Regression && pt.Accuracy > out.Accuracy {
			out.Best, out.BestC, out.BestP, out.Accuracy, out.MSE = len(out.Points)-1, pt.C, pt.P, pt.Accuracy, pt.MSE
		}
		if s.Point != nil {
			s.Point(pt) // in order: Chain calls final so
		}
		return unchanged == searchUnchanged
	}

	pool := procs.NewPool(s.Procs - s.Conc)
	done, err := Chain(ctx, n, nf, s.Conc, pool, func(ctx context.Context, k, fo int) (cut bool, err error) {
		mu.Lock()
		if preds[k] == nil {
			preds[k] = make([]float64, s.D.Rows)
		}
		pred := preds[k] // the folds write their own rows
		mu.Unlock()
		c, w, cut, err := s.train(ctx, train, fo, grid[k], warm[fo], prevW[fo], pred, pool)
		cells[k][fo], prevW[fo] = c, w
		return cut, err
	}, final)
	var ce *CellError
	switch {
	case errors.As(err, &ce):
		return fmt.Errorf("C = %.6g: fold %d: %w", grid[ce.Point], ce.Fold+1, ce.Err)
	case err != nil:
		return fmt.Errorf("parameter search interrupted at C = %.6g: %w", grid[done], err)
	}
	return nil
}

// train trains fold fo at cost C and predicts its held-out rows into
// pred; w is the model's weights, to compare with the next C's.
func (s *Search) train(ctx context.Context, train TrainFunc, fo int, C float64, warm any, prevW, pred []float64, pool *procs.Pool) (c cell, w []float64, cut bool, err error) {
	// The fold reads D, which may be a mapped cache: the same fault guard
	// as cross-validation's folds.
	defer fault.Guard()()
	defer fault.Recover(s.D.Source, &err)
	sub, held := s.foldRows(fo)
	m, r, err := train(ctx, sub, fo, C, warm, pool)
	c.res = r
	if r != nil && r.Cancelled {
		return c, nil, true, nil
	}
	if err != nil {
		return c, nil, false, err
	}
	Predict(m, s.D, held, func(i int, y float64) { pred[i] = y })
	w = m.W
	if prevW != nil && len(prevW) == len(w) {
		var sum float64
		for j, v := range w {
			sum += float64((v - prevW[j]) * (v - prevW[j]))
		}
		c.moved = math.Sqrt(sum) > searchWTol
	}
	return c, w, false, nil
}
