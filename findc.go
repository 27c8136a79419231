package acfcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/folds"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
)

// The constants of liblinear's parameter search (find_parameters).
const (
	searchMaxC      = 1024    // the largest C tried for the classifiers
	searchMaxCSVR   = 1 << 20 // and for the SVRs
	searchPSteps    = 20      // the SVRs' ε grid: i·max|y|/20, i = 19 … 0
	searchUnchanged = 5       // stop when w has not moved for this many C (see chain)
	searchWTol      = 1e-15   // ‖Δw‖ at or below this is "not moved"
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
	// the previous C. The grid, the folds and the output are the same; it
	// is there to measure what the warm starts save.
	Cold bool
	// Point, if set, is called with each C's outcome as soon as it is
	// known, in the order tried (the CLI prints liblinear's lines from it).
	Point func(CPoint)
}

// CPoint is one C (and for the SVRs one ε) of a parameter search.
type CPoint struct {
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
	Results []*Result
	// Last marks the last C of its search (for the SVRs: of its ε);
	// MaxCReached says that the search ended there because the next C
	// would exceed the largest (liblinear's "WARNING: maximum C
	// reached."), not because w stopped moving.
	Last, MaxCReached bool
}

// CSearch is the outcome of FindC.
type CSearch struct {
	Folds int
	// Points are the C (and ε) tried, in order.
	Points []CPoint
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
// primal Newton solvers (-s 0, 2, 11) start from its w and solve each C
// to eps·Tuning.SearchTighten, so that a point's accuracy is that of its
// C's solution, not of where a warm start passed liblinear's rule; the
// others train every C from scratch. The first C is opt.StartC, or
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
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	switch p.Problem {
	case Lasso:
		return nil, errors.New("parameter search is for the models with a C; the LASSO has λ instead (TrainPath, acfcd train --lambda-path)")
	case OneClassSVM:
		return nil, errors.New("parameter search: the one-class SVM has no C (its parameter is ν, -n)")
	}
	if err := checkFolds(d, "folds", nfolds); err != nil {
		return nil, err
	}
	if !(opt.StartC >= 0) || math.IsInf(opt.StartC, 0) {
		return nil, fmt.Errorf("parameter search: the first C must be a positive finite number, got %g", opt.StartC)
	}
	if !(opt.StartP >= 0) || math.IsInf(opt.StartP, 0) {
		return nil, fmt.Errorf("parameter search: the first ε must be a non-negative finite number, got %g", opt.StartP)
	}
	if err := checkRows(d, p); err != nil {
		return nil, err
	}
	q := p
	if err := q.resolve(); err != nil {
		return nil, err // before any fold, so that the message names none
	}
	if p.Seed == 0 {
		p.Seed = DefaultSeed
	}
	start := time.Now()
	nprocs := runtime.GOMAXPROCS(0)
	f := &finder{d: d, folds: nfolds, opt: opt, regression: p.Problem.Regression(),
		perm: folds.Perm(d.Rows, p.Seed), // CrossValidate's folds
		conc: cvConcurrency(d, p, nfolds, nprocs), nprocs: nprocs,
		subs: make([]*Dataset, nfolds), keep: keepFoldCopies(d, nfolds),
		labels: append([]float64(nil), d.Label...)} // read here, under the fault guard
	f.cs = &CSearch{Folds: nfolds, Best: -1}
	if p.Progress != nil {
		user := p.Progress
		var mu sync.Mutex // one call at a time, as CrossValidate
		p.Progress = func(pr Progress) {
			mu.Lock()
			defer mu.Unlock()
			user(pr)
		}
	}
	defer func() { f.cs.Seconds = time.Since(start).Seconds() }()

	if !f.regression {
		startC := opt.StartC
		if startC == 0 {
			if startC, err = families[p.Problem].start(d, &p); err != nil {
				return nil, err
			}
		}
		return f.cs, f.chain(ctx, p, min(startC, searchMaxC), searchMaxC)
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
		if err := f.chain(ctx, pi, min(startC, searchMaxCSVR), searchMaxCSVR); err != nil {
			return f.cs, err
		}
	}
	return f.cs, nil
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

// keepFoldCopies reports whether every fold's copy of its training rows
// may stay in memory for the whole search: when all of them add at most
// what CrossValidate allows its concurrent folds (the size of the data, or
// cvMemoryFloor). Otherwise each training makes its copy anew.
func keepFoldCopies(d *Dataset, nfolds int) bool {
	data := folds.Bytes(d)
	return data/uint64(nfolds)*uint64(nfolds-1)*uint64(nfolds) <= max(uint64(folds.MemoryFloor), data)
}

// finder is the state of one FindC call.
type finder struct {
	d          *Dataset
	folds      int
	perm       []int
	opt        SearchOptions
	regression bool
	labels     []float64 // d's labels, for the points (see finalise)
	conc       int       // folds trained at once (cvConcurrency)
	nprocs     int
	subs       []*Dataset // the folds' training rows, when kept
	keep       bool
	cs         *CSearch
}

// foldRows returns fold f's training rows, its held-out rows.
func (f *finder) foldRows(fold int) (train *Dataset, held []int) {
	lo, hi := fold*f.d.Rows/f.folds, (fold+1)*f.d.Rows/f.folds
	if f.subs[fold] != nil {
		return f.subs[fold], f.perm[lo:hi]
	}
	rows := append(append(make([]int, 0, f.d.Rows-(hi-lo)), f.perm[:lo]...), f.perm[hi:]...)
	train = f.d.Subset(rows)
	if f.keep {
		f.subs[fold] = train
	}
	return train, f.perm[lo:hi]
}

// cell is the outcome of one fold at one C.
type cell struct {
	res   *Result
	moved bool // ‖w − w at the previous C‖ > searchWTol
}

// chain runs the C of one search, startC, 2·startC, … ≤ maxC, as
// liblinear's find_parameter_C, and appends its points to f.cs: each
// fold's C follow one another (folds.Chain), and the search ends at the
// first C at which no fold's w has moved for searchUnchanged C in a row.
func (f *finder) chain(ctx context.Context, p Params, startC, maxC float64) error {
	var grid []float64
	for c := startC; c <= maxC; c *= 2 {
		grid = append(grid, c)
	}
	n, nf := len(grid), f.folds
	cells := make([][]cell, n)
	for k := range cells {
		cells[k] = make([]cell, nf)
	}
	// Every fold's warm start; a solver that does not use it leaves it
	// empty and trains from scratch. Cold, it keeps only what does not
	// depend on C.
	warm := make([]any, nf)
	for i := range warm {
		if newWarm := families[p.Problem].warm; newWarm != nil {
			warm[i] = newWarm(f.opt.Cold)
		}
	}
	prevW := make([][]float64, nf)
	var mu sync.Mutex             // guards preds
	preds := make([][]float64, n) // each point's held-out predictions, in d's row order, until final
	unchanged := 0                // liblinear's num_unchanged_w

	// final completes point k, all of whose folds are done.
	final := func(k int) (last bool) {
		pt := CPoint{C: grid[k], Results: make([]*Result, nf)}
		if f.regression {
			pt.P = p.epsilon()
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
			y := f.labels[i] // a copy: d may be a mapped file, and this goroutine has no fault guard
			if v == y {
				pt.Correct++
			}
			sq += float64((v - y) * (v - y))
		}
		rows := float64(f.d.Rows)
		if f.regression {
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
		cs := f.cs
		cs.Points = append(cs.Points, pt)
		cs.Operations += pt.Operations
		if b := cs.Best; b < 0 || f.regression && pt.MSE < cs.MSE || !f.regression && pt.Accuracy > cs.Accuracy {
			cs.Best, cs.BestC, cs.BestP, cs.Accuracy, cs.MSE = len(cs.Points)-1, pt.C, pt.P, pt.Accuracy, pt.MSE
		}
		if f.opt.Point != nil {
			f.opt.Point(pt) // in order: folds.Chain calls final so
		}
		return unchanged == searchUnchanged
	}

	pool := procs.NewPool(f.nprocs - f.conc)
	done, err := folds.Chain(ctx, n, nf, f.conc, pool, func(ctx context.Context, k, fo int) (cut bool, err error) {
		mu.Lock()
		if preds[k] == nil {
			preds[k] = make([]float64, f.d.Rows)
		}
		pred := preds[k] // the folds write their own rows
		mu.Unlock()
		c, w, cut, err := f.train(ctx, p, fo, grid[k], warm[fo], prevW[fo], pred, pool)
		cells[k][fo], prevW[fo] = c, w
		return cut, err
	}, final)
	var ce *folds.CellError
	switch {
	case errors.As(err, &ce):
		return fmt.Errorf("C = %.6g: fold %d: %w", grid[ce.Point], ce.Fold+1, ce.Err)
	case err != nil:
		return fmt.Errorf("parameter search interrupted at C = %.6g: %w", grid[done], err)
	}
	return nil
}

// train trains fold fo at cost C (from warm's state, if not nil) and
// predicts its held-out rows into pred; w is the model's weights, to
// compare with the next C's.
func (f *finder) train(ctx context.Context, p Params, fo int, C float64, warm any, prevW, pred []float64, pool *procs.Pool) (c cell, w []float64, cut bool, err error) {
	// The fold reads d, which may be a mapped cache: the same fault guard
	// as CrossValidate's folds.
	defer fault.Guard()()
	defer fault.Recover(source(f.d), &err)
	sub, held := f.foldRows(fo)
	pc := p
	pc.C = C
	pc.warm = warm
	if p.Progress != nil {
		user := p.Progress
		pc.Progress = func(pr Progress) {
			pr.Fold = fo + 1
			user(pr)
		}
	}
	m, r, err := trainWith(ctx, sub, pc, pool)
	c.res = r
	if r != nil && r.Cancelled {
		return c, nil, true, nil
	}
	if err != nil {
		return c, nil, false, err
	}
	folds.Predict(m, f.d, held, func(i int, y float64) { pred[i] = y })
	w = m.W
	if prevW != nil && len(prevW) == len(w) {
		var s float64
		for j, v := range w {
			s += float64((v - prevW[j]) * (v - prevW[j]))
		}
		c.moved = math.Sqrt(s) > searchWTol
	}
	return c, w, false, nil
}
