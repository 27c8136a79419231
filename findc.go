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
	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/finish"
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
func FindC(ctx context.Context, d *Dataset, p Params, folds int, opt SearchOptions) (cs *CSearch, err error) {
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
	if d == nil || d.Rows == 0 {
		return nil, errors.New("no training examples")
	}
	if folds < 2 {
		return nil, fmt.Errorf("%d-fold cross-validation: need at least 2 folds", folds)
	}
	if folds > d.Rows {
		return nil, fmt.Errorf("%d-fold cross-validation: more folds than the %d examples", folds, d.Rows)
	}
	if !(opt.StartC >= 0) || math.IsInf(opt.StartC, 0) {
		return nil, fmt.Errorf("parameter search: the first C must be a positive finite number, got %g", opt.StartC)
	}
	if !(opt.StartP >= 0) || math.IsInf(opt.StartP, 0) {
		return nil, fmt.Errorf("parameter search: the first ε must be a non-negative finite number, got %g", opt.StartP)
	}
	if err := checkData(d); err != nil {
		return nil, err
	}
	if err := checkSquares(d, p.Bias); err != nil {
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
	f := &finder{d: d, folds: folds, opt: opt, regression: p.Problem.Regression(),
		perm: foldPerm(d.Rows, p.Seed), // CrossValidate's folds
		conc: cvConcurrency(d, p, folds, nprocs), nprocs: nprocs,
		subs: make([]*Dataset, folds), keep: keepFoldCopies(d, folds),
		labels: append([]float64(nil), d.Label...)} // read here, under the fault guard
	f.cs = &CSearch{Folds: folds, Best: -1}
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
			if startC, err = calcStartC(d, p); err != nil {
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
			if startC, err = calcStartC(d, pi); err != nil {
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

// calcStartC returns the first C of the search (see FindC).
func calcStartC(d *Dataset, p Params) (float64, error) {
	var maxSq float64
	b2 := 0.0
	if p.Bias > 0 {
		b2 = p.Bias * p.Bias // liblinear's x holds the bias feature
	}
	for i := 0; i < d.Rows; i++ {
		a, b := d.RowPtr[i], d.RowPtr[i+1]
		var s float64
		if d.Value != nil {
			s = kernel.SqNorm(d.Value[a:b:b])
		} else {
			for _, v := range d.Value32[a:b] {
				s += float64(float64(v) * float64(v))
			}
		}
		maxSq = max(maxSq, s+b2)
	}
	l := float64(d.Rows)
	var c0 float64
	switch p.Problem {
	case LogisticPrimal, LogisticDual, HingeDual, CrammerSinger, WestonWatkins:
		c0 = 1 / (l * maxSq)
	case SquaredHingePrimal, SquaredHingeDual:
		c0 = 1 / (2 * l * maxSq)
	case SquaredSVRPrimal, SquaredSVRDual, SVRDual:
		// liblinear's bound for the squared ε-insensitive loss, δ = 0.1.
		eps := p.epsilon()
		var sumY, loss float64
		for _, y := range d.Label {
			sumY += math.Abs(y)
			if h := math.Abs(y) - eps; h > 0 {
				loss += float64(h * h)
			}
		}
		c0 = math.Inf(1)
		if loss > 0 {
			c0 = 0.1 * 0.1 * loss / (8 * sumY * sumY * maxSq)
		}
	case L1SquaredHinge, L1Logistic:
		g, err := maxCorrelation(d, p)
		if err != nil {
			return 0, err
		}
		c0 = 2 / g
		if p.Problem == L1SquaredHinge {
			c0 = 1 / (2 * g)
		}
	default:
		c0 = 1
	}
	return pow2Floor(c0), nil
}

// pow2Floor returns 2^⌊log2 x⌋ for x > 0 (liblinear's
// pow(2, floor(log(x)/log(2))), here exact: from x's binary exponent).
func pow2Floor(x float64) float64 {
	if math.IsInf(x, 1) || math.IsNaN(x) || x <= 0 {
		return math.Inf(1) // no data to measure: the search starts at its largest C
	}
	_, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	return math.Ldexp(1, exp-1)
}

// maxCorrelation returns max_k ‖Σ_i y_i^k x_i‖∞ over the one-vs-rest
// subproblems k (one for two classes: class 0 positive), the bias feature
// included unless it is unregularised: the gradient of the L1-regularised
// losses at w = 0 is proportional to it.
func maxCorrelation(d *Dataset, p Params) (float64, error) {
	labels, class, err := groupClasses(d.Label)
	if err != nil {
		return 0, fmt.Errorf("%s: labels: %w", d.Source, err)
	}
	nsub := len(labels)
	if nsub == 2 {
		nsub = 1
	}
	nf := d.Features + 1
	s := make([]float64, len(labels)*nf) // per class Σ x_i
	for i := 0; i < d.Rows; i++ {
		row := s[int(class[i])*nf:][:nf]
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			v := 0.0
			if d.Value != nil {
				v = d.Value[k]
			} else {
				v = float64(d.Value32[k])
			}
			row[d.Index[k]] += v
		}
		if p.Bias > 0 && !p.UnregularizedBias {
			row[nf-1] += p.Bias
		}
	}
	g := 0.0
	for j := range nf {
		var total float64
		for c := range labels {
			total += s[c*nf+j]
		}
		for k := range nsub {
			g = max(g, math.Abs(float64(2*s[k*nf+j])-total)) // Σ_{y=k} x − Σ_{y≠k} x
		}
	}
	return g, nil
}

// keepFoldCopies reports whether every fold's copy of its training rows
// may stay in memory for the whole search: when all of them add at most
// what CrossValidate allows its concurrent folds (the size of the data, or
// cvMemoryFloor). Otherwise each training makes its copy anew.
func keepFoldCopies(d *Dataset, folds int) bool {
	nnz := uint64(d.RowPtr[d.Rows])
	valBytes := uint64(8)
	if d.Value == nil {
		valBytes = 4
	}
	data := uint64(d.Rows)*16 + nnz*(4+valBytes)
	return data/uint64(folds)*uint64(folds-1)*uint64(folds) <= max(uint64(cvMemoryFloor), data)
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
	res       *Result
	moved     bool // ‖w − w at the previous C‖ > searchWTol
	done      bool
	cancelled bool
	err       error
}

// chain runs the C of one search, startC, 2·startC, … ≤ maxC, as
// liblinear's find_parameter_C, and appends its points to f.cs.
//
// Fold f at the k-th C needs fold f at the (k−1)-th (its warm start), but
// no other fold: the workers take the fold whose next C is the smallest,
// so that the points complete in order while a worker never waits for
// the others to finish a C. A point is final once all folds have done
// it; when it ends the search (w has stopped moving), trainings already
// started on a larger C are cancelled and dropped.
func (f *finder) chain(ctx context.Context, p Params, startC, maxC float64) error {
	var grid []float64
	for c := startC; c <= maxC; c *= 2 {
		grid = append(grid, c)
	}
	n, folds := len(grid), f.folds
	cells := make([][]cell, n)
	for k := range cells {
		cells[k] = make([]cell, folds)
	}
	// Every fold's warm start; a solver that does not use it leaves it
	// empty and trains from scratch. Cold, it keeps only what does not
	// depend on C.
	warm := make([]*warmStart, folds)
	for i := range warm {
		warm[i] = &warmStart{cold: f.opt.Cold}
	}
	prevW := make([][]float64, folds)
	preds := make([][]float64, n) // each point's held-out predictions, in d's row order, until final
	next := make([]int, folds)
	running := make([]bool, folds)
	cancels := make([]context.CancelFunc, folds)
	limit := n - 1 // the last C that may be trained
	final := 0     // the next point to finalise
	unchanged := 0 // liblinear's num_unchanged_w
	failed := false
	var mu sync.Mutex

	// finalise completes the points whose folds are all done (mu held).
	finalise := func() {
		for final <= limit && !failed {
			k := final
			pt := CPoint{C: grid[k], Results: make([]*Result, folds)}
			if f.regression {
				pt.P = p.epsilon()
			}
			moved := false
			for fo := range folds {
				c := &cells[k][fo]
				if !c.done || c.cancelled || c.err != nil {
					return
				}
				pt.Results[fo] = c.res
				pt.Iterations += c.res.Iterations
				pt.Operations += c.res.Operations
				pt.Seconds += c.res.Seconds
				moved = moved || c.moved
			}
			var sq float64 // in row order, as liblinear sums it
			for i, v := range preds[k] {
				y := f.labels[i] // a copy: d may be a mapped file, and this goroutine has no fault guard
				if v == y {
					pt.Correct++
				}
				sq += float64((v - y) * (v - y))
			}
			preds[k] = nil
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
				limit = k
				for fo := range folds {
					if running[fo] && next[fo] > k {
						cancels[fo]() // beyond the end: its outcome is dropped
					}
				}
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
				f.opt.Point(pt) // in order: finalise runs under mu
			}
			final++
		}
	}

	pool := procs.NewPool(f.nprocs - f.conc)
	var wg sync.WaitGroup
	for range f.conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pool.Give(1) // no fold left: lend the processor to those still training
			for {
				mu.Lock()
				fo := -1
				for g := range folds {
					if !running[g] && next[g] <= limit && (fo < 0 || next[g] < next[fo]) {
						fo = g
					}
				}
				if fo < 0 || failed || ctx.Err() != nil {
					// Every other fold is running or done; a running fold's
					// next C is taken by the worker that trains it.
					mu.Unlock()
					return
				}
				k := next[fo]
				fctx, cancel := context.WithCancel(ctx)
				running[fo], cancels[fo] = true, cancel
				if preds[k] == nil {
					preds[k] = make([]float64, f.d.Rows)
				}
				pred := preds[k] // the folds write their own rows
				mu.Unlock()

				c, w := f.train(fctx, p, fo, grid[k], warm[fo], prevW[fo], pred, pool)
				cancel()

				mu.Lock()
				running[fo] = false
				next[fo]++
				prevW[fo] = w
				if k <= limit {
					cells[k][fo] = c
					if c.err != nil {
						// No training starts after an error; those running
						// finish, and the first error in the order of a
						// sequential search is reported.
						failed = true
					}
					finalise()
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if failed {
		for k := range cells {
			for fo, c := range cells[k] {
				if c.err != nil {
					return fmt.Errorf("C = %.6g: fold %d: %w", grid[k], fo+1, c.err)
				}
			}
		}
	}
	if final <= limit {
		// Cancelled: the point being trained names the folds cut short
		// (or, between trainings, the first not trained).
		intr := &CVInterruptedError{Err: ctx.Err()}
		if intr.Err == nil {
			intr.Err = context.Canceled
		}
		for fo := range folds {
			if c := cells[final][fo]; !c.done || c.cancelled {
				intr.Folds = append(intr.Folds, fo+1)
			}
		}
		return fmt.Errorf("parameter search interrupted at C = %.6g: %w", grid[final], intr)
	}
	return nil
}

// train trains fold fo at cost C (from warm's state, if not nil) and
// predicts its held-out rows into pred; w is the model's weights, to
// compare with the next C's.
func (f *finder) train(ctx context.Context, p Params, fo int, C float64, warm *warmStart, prevW, pred []float64, pool *procs.Pool) (c cell, w []float64) {
	err := func() (err error) {
		// The fold reads d, which may be a mapped cache: the same fault
		// guard as CrossValidate's folds.
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
			c.cancelled = true
			return nil
		}
		if err != nil {
			return err
		}
		var buf []float64
		for _, i := range held {
			a, b := f.d.RowPtr[i], f.d.RowPtr[i+1]
			var val []float64
			if f.d.Value != nil {
				val = f.d.Value[a:b:b]
			} else { // float32 storage
				buf = buf[:0]
				for _, v := range f.d.Value32[a:b] {
					buf = append(buf, float64(v))
				}
				val = buf
			}
			pred[i] = m.Predict(f.d.Index[a:b:b], val)
		}
		w = m.W
		if prevW != nil && len(prevW) == len(w) {
			var s float64
			for j, v := range w {
				s += float64((v - prevW[j]) * (v - prevW[j]))
			}
			c.moved = math.Sqrt(s) > searchWTol
		}
		return nil
	}()
	c.err = err
	c.done = true
	return c, w
}

// warmStart carries one fold's solutions from one C of FindC to the
// next: dualTraining.solve (-s 1, 3, 7) starts each subproblem from its
// dual solution at the previous C instead of liblinear's starting point
// (start), and keeps its new solution here (keep); a primal solver would
// start from the previous weights (initW, keepW). The subproblems of one
// training run in parallel, hence the lock around the slice.
type warmStart struct {
	cold bool // no warm starts (SearchOptions.Cold): only the fold's dups are kept
	mu   sync.Mutex
	subs []*warmSub
	// dups are the fold's identical rows with opposite labels, the same
	// at every C; found once (finish.FindDups sorts a hash per row).
	dups     *finish.Dups
	dupsDone bool
}

// findDups returns finish.FindDups(sh), found at the fold's first C (on
// a nil ws, every time).
func (ws *warmStart) findDups(sh *dual.Data) *finish.Dups {
	if ws == nil {
		return finish.FindDups(sh)
	}
	if !ws.dupsDone {
		ws.dups, ws.dupsDone = finish.FindDups(sh), true
	}
	return ws.dups
}

// warmSub is one subproblem's solution at the previous C.
type warmSub struct {
	cost         [2]float64 // C of the negative and the positive examples
	alpha, alphC []float64  // alphC: C_i − α_i (logistic)
	w            []float64
}

func (ws *warmStart) sub(k int) *warmSub {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for len(ws.subs) <= k {
		ws.subs = append(ws.subs, nil)
	}
	if ws.subs[k] == nil {
		ws.subs[k] = &warmSub{}
	}
	return ws.subs[k]
}

// initW returns subproblem k's weights at the previous C, nil at the
// first: a primal solver starts from them (liblinear's init_sol).
func (ws *warmStart) initW(k int) []float64 {
	if ws == nil || ws.cold {
		return nil
	}
	return ws.sub(k).w
}

// keepW stores subproblem k's weights w (a primal solver's answer).
func (ws *warmStart) keepW(k int, w []float64) {
	if ws == nil || ws.cold {
		return
	}
	s := ws.sub(k)
	s.w = append(s.w[:0], w...)
}

// costs returns the costs C of dp's negative and positive examples.
func costs(dp *dual.Problem) [2]float64 {
	if dp.Loss == dual.L2SVM {
		return [2]float64{0.5 / dp.Diag[0], 0.5 / dp.Diag[1]}
	}
	return dp.UB
}

// keep stores dp's solution of subproblem k.
func (ws *warmStart) keep(k int, dp *dual.Problem) {
	if ws.cold {
		return
	}
	s := ws.sub(k)
	s.cost = costs(dp)
	s.alpha = append(s.alpha[:0], dp.Alpha...)
	s.w = append(s.w[:0], dp.W...)
	if dp.AlphaC != nil {
		s.alphC = append(s.alphC[:0], dp.AlphaC...)
	}
}

// start replaces the starting point that dp.Reset set for subproblem k
// (objective obj) by the solution at the previous C, scaled, and returns
// the objective there.
//
// With costs grown by the ratio r (2 from one C to the next), the old α
// is feasible as it is (for -s 3 α ≤ C ≤ rC; for -s 7 0 < α < C < rC, an
// interior point), but the best point along the ray tα is better: for
// small C, where every α sits at its bound and w ∝ C, it is tα with t = r;
// for large C, where the margins have settled, t ≈ 1. The dual objective
// along the ray is a quadratic in t for the SVMs, minimised in closed
// form, and convex for logistic regression (a few Newton steps); w = Σ
// α_i y_i x_i scales with α, so w becomes tw with no pass over the data.
func (ws *warmStart) start(k int, dp *dual.Problem, obj float64) float64 {
	if ws.cold {
		return obj
	}
	s := ws.sub(k)
	if len(s.alpha) != len(dp.Alpha) || len(s.w) != len(dp.W) {
		return obj // the first C: liblinear's start
	}
	now := costs(dp)
	r := [2]float64{now[0] / s.cost[0], now[1] / s.cost[1]}
	var ww float64
	for _, v := range s.w {
		ww += float64(v * v)
	}
	t := 1.0
	switch dp.Loss {
	case dual.Logistic:
		t = lrRay(dp, s, r, ww)
	default:
		// f(tα) = ½t²(‖w‖² + Σ D_ii α_i²) − tΣα_i.
		var sa, q float64
		tmax := math.Inf(1)
		for i, a := range s.alpha {
			if a == 0 {
				continue
			}
			c := (dp.Y[i] + 1) >> 1
			sa += a
			q += float64(dp.Diag[c] * a * a)
			if dp.Loss == dual.L1SVM {
				tmax = min(tmax, dp.UB[c]/a)
			}
		}
		if sa > 0 && ww+q > 0 {
			t = min(sa/(ww+q), tmax)
		}
	}
	for i, a := range s.alpha {
		c := (dp.Y[i] + 1) >> 1
		switch dp.Loss {
		case dual.Logistic:
			C := dp.UB[c]
			// C − tα = r(C_old − α) + (r − t)α: no cancellation near C.
			al := max(float64(t*a), dual.Floor*C)
			ac := max(float64(r[c]*s.alphC[i])+float64((r[c]-t)*a), dual.Floor*C)
			dp.Alpha[i], dp.AlphaC[i] = al, ac
		case dual.L1SVM:
			dp.Alpha[i] = min(float64(t*a), dp.UB[c])
		default:
			dp.Alpha[i] = float64(t * a)
		}
	}
	for j, v := range s.w {
		dp.W[j] = float64(t * v)
	}
	return dp.Objective()
}

// lrRay returns the t in (0, min C_i/α_i) that minimises the logistic dual
// at tα:
//
//	φ(t) = ½t²‖w‖² + Σ_i [tα_i log tα_i + (C_i − tα_i) log(C_i − tα_i)],
//	φ'(t) = t‖w‖² + Σ_i α_i log(tα_i/(C_i − tα_i)),
//	φ''(t) = ‖w‖² + Σ_i α_i C_i/(t(C_i − tα_i)),
//
// by Newton's method safeguarded by bisection on a bracket of the root of
// the increasing φ'. C_i − tα_i is r_i(C_i,old − α_i) + (r_i − t)α_i.
func lrRay(dp *dual.Problem, s *warmSub, r [2]float64, ww float64) float64 {
	lo, hi := 0.0, math.Inf(1)
	for i, a := range s.alpha {
		c := (dp.Y[i] + 1) >> 1
		if a > 0 {
			hi = min(hi, dp.UB[c]/a)
		}
	}
	if math.IsInf(hi, 1) {
		return 1
	}
	deriv := func(t float64) (d1, d2 float64) {
		d1, d2 = t*ww, ww
		for i, a := range s.alpha {
			c := (dp.Y[i] + 1) >> 1
			rest := float64(r[c]*s.alphC[i]) + float64((r[c]-t)*a)
			if rest <= 0 {
				return math.Inf(1), math.Inf(1)
			}
			d1 += float64(a * fmath.Log(float64(t*a)/rest))
			d2 += a * dp.UB[c] / float64(t*rest)
		}
		return d1, d2
	}
	t := min(1, hi/2)
	for range 50 {
		d1, d2 := deriv(t)
		if d1 > 0 {
			hi = t
		} else {
			lo = t
		}
		if math.Abs(d1) <= 1e-9*d2*t || hi-lo <= 1e-12*hi {
			break
		}
		nt := t - d1/d2
		if !(nt > lo && nt < hi) {
			nt = (lo + hi) / 2
		}
		t = nt
	}
	return t
}
