package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acfcd/acfcd/acf"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
)

// Params are the training options, named after liblinear-train's flags.
type Params struct {
	// Solver is liblinear's -s: 1 (L2R_L2LOSS_SVC_DUAL, squared hinge),
	// 3 (L2R_L1LOSS_SVC_DUAL, hinge) or 7 (L2R_LR_DUAL, logistic).
	Solver int
	// C is the cost; it must be > 0 (callers default it to 1, as liblinear).
	C float64
	// Eps is the stopping tolerance on the largest KKT violation; 0 means
	// liblinear's default for the solver (0.1 for -s 1, 3 and 7).
	Eps float64
	// Bias is liblinear's -B: when >= 0 every example gets an implicit extra
	// feature of this value (its weight is regularised, as in liblinear).
	// Callers should use -1 (no bias) as the default.
	Bias float64
	// Weights is liblinear's -wi: the C of class label is C*Weights[label].
	// A label that does not occur is ignored with a warning in Result.
	Weights map[float64]float64
	// Select is the coordinate selection: "acf+shrink" (default: ACF
	// scheduling over liblinear's shrinking active set), "acf", "uniform"
	// or "shrink". The logistic dual (-s 7) has no variable at a
	// bound, so liblinear never shrinks it: there "shrink" runs as "uniform"
	// and "acf+shrink" as "acf".
	Select string
	// Seed seeds every random choice; the same seed gives a bit-identical model.
	Seed uint64
	// MaxEpochs caps the epochs of each subproblem (0: 1000, liblinear
	// 2.3.0's max_iter for these solvers). For "uniform" and "shrink" an
	// epoch is one sweep over the (active) coordinates, liblinear's #iter;
	// for "acf" and "acf+shrink" it is n coordinate steps.
	MaxEpochs int
	// ACF configures the adaptation of coordinate frequencies; the zero
	// value is the paper's defaults.
	ACF acf.Config
	// Lambda is the L1 penalty of the LASSO (Solver == Lasso):
	// min_w ½‖Xw − y‖² + λ‖w‖₁. scikit-learn's alpha is λ/ℓ.
	Lambda float64
	// Intercept adds an unpenalised intercept to the LASSO (y and the
	// columns are centred implicitly, without densifying X).
	Intercept bool
	// NoFallback turns off the primal Newton fallback of -s 1 and -s 7
	// (solver/newton.go) and the interior-point finisher of -s 3
	// (solver/hinge.go), which take over from a stalling dual once the
	// dual has cost what a Newton solve is expected to cost, and the push
	// of identical rows with opposite labels (-s 1, -s 3: solver/dups.go).
	// Comparisons of the coordinate selections themselves turn it off.
	NoFallback bool
	// Progress, if set, is called about once per epoch. One-vs-rest classes
	// train in parallel, so calls may come from several goroutines, but
	// never two at once.
	Progress func(Progress)
}

// Progress reports the state of one subproblem at the end of an epoch.
type Progress struct {
	Fold      int     // cross-validation fold, from 1 (0 outside CrossValidate)
	Class     int     // one-vs-rest subproblem (0 for a binary problem)
	Epoch     int     // epochs done
	Violation float64 // largest KKT violation seen in the last sweep
	Objective float64 // current dual objective, liblinear's convention
}

// Result describes a training run. For a multi-class problem the counts
// are sums over the one-vs-rest subproblems in Classes, Objective, Primal
// and Gap are sums, Violation is the largest, and Converged holds when
// every subproblem converged.
type Result struct {
	Solver     string // liblinear's name, e.g. "L2R_L1LOSS_SVC_DUAL"
	Select     string
	C, Eps     float64
	Iterations int64   // coordinate-descent steps (gradient evaluations while optimising)
	Epochs     int     // sweeps (acf: steps/n)
	Operations int64   // non-zeros touched: Dot + Axpy + the KKT passes
	Seconds    float64 // wall time of training
	// Objective is the dual objective as liblinear prints it ("Objective
	// value"): for -s 1/3, ½αᵀ(Q+D)α − Σα; for -s 7,
	// ½αᵀQα + Σ[α log α + (C−α) log(C−α) − C log C]. Minimised.
	Objective float64
	// Primal is ½‖w‖² + Σ C_i·loss_i at the returned w (hinge, squared
	// hinge or logistic loss), the function liblinear's primal solvers print.
	Primal float64
	// Gap is Primal + Objective ≥ 0, the duality gap (liblinear's printed dual
	// objective is the negative of the dual function).
	Gap float64
	// Violation is the largest KKT violation over all examples, from a full
	// pass at the returned model (after cancellation, which skips that
	// pass to stop at once, the largest seen in the last sweep, and Primal
	// and Gap are NaN) (|projected gradient| for -s 1/3, at most
	// Eps/2 when converged so that PGmax − PGmin ≤ Eps as liblinear's
	// criterion; |∂f/∂α_i| for -s 7, at most Eps).
	Violation float64
	NNZW      int // non-zero weights in the model (bias included)
	// NewtonSteps are the primal Newton steps of the fallback (for more
	// than 4095 features, trust-region Newton-CG iterations over all its
	// switches), for -s 3 the interior-point iterations of its finisher (0
	// when the dual CD alone converged).
	NewtonSteps int
	Converged   bool
	HitEpochCap bool
	Cancelled   bool
	// Warnings are non-fatal remarks, e.g. a -wi label that does not occur.
	Warnings []string
	Classes  []Result // per one-vs-rest subproblem (empty for binary)
}

// solverTypes maps liblinear's -s number to its name and our loss.
var solverTypes = map[int]struct {
	name string
	kind lossKind
}{
	1: {"L2R_L2LOSS_SVC_DUAL", l2svm},
	3: {"L2R_L1LOSS_SVC_DUAL", l1svm},
	7: {"L2R_LR_DUAL", logistic},
}

type selection int

const (
	selUniform selection = iota
	selShrink
	selACF
	selACFShrink
)

var selections = map[string]selection{
	"uniform":    selUniform,
	"shrink":     selShrink,
	"acf":        selACF,
	"acf+shrink": selACFShrink,
}

// acfcd's own problems, which have no liblinear -s number.
const (
	// Lasso is L1-regularised least squares by primal CD over features.
	Lasso = 100
	// WestonWatkins is the Weston–Watkins multi-class SVM by dual subspace
	// descent over examples, one block of K−1 variables per example.
	WestonWatkins = 101
)

// DefaultSelect is the coordinate selection when Params.Select is empty.
// ACF over the shrinking active set: the paper's adaptive frequencies plus
// liblinear's removal of variables stuck at a bound, which plain ACF keeps
// visiting at p_min (measured in bench/liblinear: it is the faster of the two
// on every data set we have, and plain acf loses to liblinear on w8a).
const DefaultSelect = "acf+shrink"

// DefaultMaxEpochs is liblinear 2.3.0's max_iter for the dual solvers.
const DefaultMaxEpochs = 1000

// maxLabel bounds class labels: liblinear stores them as C ints.
const maxLabel = math.MaxInt32

// Train fits a model to d as liblinear-train would with the same -s, -c,
// -e, -B and -wi. Labels are grouped in liblinear's order (first
// appearance, with -1/+1 swapped to +1/-1); more than two classes are
// trained one-vs-rest, in parallel. A single class is trained as
// liblinear 2.3.0 does: one subproblem with every example positive.
//
// When ctx is cancelled, Train returns the model reached so far with
// Partial set and Result.Cancelled, and no error.
func Train(ctx context.Context, d *dataio.Dataset, p Params) (m *Model, res *Result, err error) {
	return trainWith(ctx, d, p, newProcPool(runtime.GOMAXPROCS(0)-1))
}

// trainWith is Train taking the goroutines beyond the caller's from pool
// (see procs.go).
func trainWith(ctx context.Context, d *dataio.Dataset, p Params, pool *procPool) (m *Model, res *Result, err error) {
	defer guardFaults()()
	defer func() {
		if err != nil && m != nil {
			m, res = nil, nil // a worker faulted: its part of the model is missing
		}
	}()
	defer recoverFault(d, &err)
	return train(ctx, d, p, pool)
}

func train(ctx context.Context, d *dataio.Dataset, p Params, pool *procPool) (*Model, *Result, error) {
	switch p.Solver {
	case Lasso:
		return trainLasso(ctx, d, p)
	case WestonWatkins:
		return trainWW(ctx, d, p, pool)
	}
	start := time.Now()
	st, ok := solverTypes[p.Solver]
	if !ok {
		return nil, nil, fmt.Errorf("solver: unknown solver -s %d (implemented: 1, 3 and 7)", p.Solver)
	}
	if !(p.C > 0) || math.IsInf(p.C, 0) {
		return nil, nil, fmt.Errorf("solver: C must be a positive finite number, got %g", p.C)
	}
	eps := p.Eps
	if eps < 0 || math.IsNaN(eps) || math.IsInf(eps, 0) {
		return nil, nil, fmt.Errorf("solver: eps must be >= 0 and finite, got %g", p.Eps)
	}
	if eps == 0 {
		eps = 0.1 // liblinear's default for -s 1, 3 and 7
	}
	if math.IsNaN(p.Bias) || math.IsInf(p.Bias, 0) {
		return nil, nil, fmt.Errorf("solver: bias must be finite, got %g", p.Bias)
	}
	selName := p.Select
	if selName == "" {
		selName = DefaultSelect
	}
	sel, ok := selections[selName]
	if !ok {
		return nil, nil, fmt.Errorf("solver: unknown coordinate selection %q (want acf, uniform, shrink or acf+shrink)", p.Select)
	}
	maxEpochs, labels, _, err := checkClassification(d, p, false)
	if err != nil {
		return nil, nil, err
	}

	res := &Result{Solver: st.name, Select: selName, C: p.C, Eps: eps}
	weighted := make([]float64, len(labels))
	for j := range weighted {
		weighted[j] = p.C
	}
	wlabels := make([]float64, 0, len(p.Weights))
	for lab := range p.Weights {
		wlabels = append(wlabels, lab)
	}
	sort.Float64s(wlabels) // deterministic warnings
	for _, lab := range wlabels {
		j := indexOf(labels, lab)
		if j < 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("class label %g specified in weight is not found", lab))
			continue
		}
		weighted[j] *= p.Weights[lab]
	}

	// -e keeps liblinear's meaning. For the SVMs liblinear stops when
	// PGmax − PGmin ≤ eps over a sweep; certifying max|PG| ≤ eps/2 over all
	// coordinates implies that spread for every coordinate at once, so a
	// model is at least as converged as liblinear's at the same -e. For
	// LR liblinear stops on max|∂f/∂α_i| ≤ eps, which is certified as is.
	inner := eps
	if st.kind != logistic {
		inner = eps / 2
	}
	sh := newShared(d, st.kind, sel, inner, p.Bias, maxEpochs, p.ACF)
	if err := sh.checkNorms(d); err != nil {
		return nil, nil, err
	}
	sh.done = ctx.Done()
	sh.fallback = !p.NoFallback
	if (sh.kind == l1svm || sh.kind == l2svm) && sh.fallback && usePushDups && sh.n <= dupsMaxRows {
		sh.dupRows, sh.dupOff = sh.dupGroups()
	}
	sh.pool = pool
	if p.Progress != nil {
		var mu sync.Mutex
		f := p.Progress
		sh.progress = func(pr Progress) {
			mu.Lock()
			defer mu.Unlock()
			f(pr)
		}
	}

	// Subproblems as liblinear's train(): two classes give one problem with
	// class 0 positive, Cp = weighted C of class 0 and Cn = that of class 1;
	// otherwise (one class included) one-vs-rest with Cp = weighted C of
	// class k and Cn = C.
	nsub := len(labels)
	if nsub == 2 {
		nsub = 1
	}
	subs := make([]subproblem, nsub)
	for k := range subs {
		s := &subs[k]
		s.class = k
		if len(labels) == 2 {
			s.cp, s.cn = weighted[0], weighted[1]
		} else {
			s.cp, s.cn = weighted[k], p.C
		}
		s.seed = mixSeed(p.Seed, uint64(k))
	}

	wlen := d.Features
	if p.Bias >= 0 {
		wlen++
	}
	model := &Model{SolverType: st.name, Labels: labels, NumFeature: d.Features, Bias: p.Bias, NrW: nsub}
	if p.Bias < 0 {
		model.Bias = -1
	}
	// One subproblem trains in place in model.W (see newWorker); with
	// several, each worker has its own w and copies it out interleaved.
	var inPlace []float64
	if nsub == 1 {
		inPlace = make([]float64, d.Features+1)
		model.W = inPlace[:wlen]
	} else {
		model.W = make([]float64, wlen*nsub)
	}

	// The classes go to up to min(GOMAXPROCS, nsub) workers: the caller's
	// processor and the spare ones of the pool (all GOMAXPROCS for a plain
	// Train; inside CrossValidate the folds running hold theirs). A worker
	// that finds no class left gives its processor back to the pool, for
	// the KKT passes of the classes still running; the last one keeps it
	// for the caller.
	workers := 1 + pool.take(min(runtime.GOMAXPROCS(0), nsub)-1)
	var alive atomic.Int64
	alive.Store(int64(workers))
	var next atomic.Int64
	var wg sync.WaitGroup
	var faultMu sync.Mutex
	var fault error
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if alive.Add(-1) > 0 {
					pool.give(1)
				}
			}()
			defer guardFaults()()
			var err error
			defer func() {
				if err != nil {
					faultMu.Lock()
					fault = err
					faultMu.Unlock()
				}
			}()
			defer recoverFault(d, &err)
			wk := newWorker(sh, inPlace)
			for {
				k := int(next.Add(1) - 1)
				if k >= nsub {
					return
				}
				s := &subs[k]
				if ctx.Err() != nil {
					// Cancelled: the classes not started keep w = 0.
					s.res.Cancelled = true
					continue
				}
				wk.solve(s, labels[s.class])
				if inPlace != nil {
					continue
				}
				for j := 0; j < wlen; j++ {
					model.W[j*nsub+k] = wk.w[j]
				}
			}
		}()
	}
	wg.Wait()
	if fault != nil {
		return nil, nil, fault
	}

	res.Converged = true
	for k := range subs {
		r := &subs[k].res
		r.Solver, r.Select, r.C, r.Eps = res.Solver, res.Select, res.C, res.Eps
		res.Iterations += r.Iterations
		res.Epochs += r.Epochs
		res.NewtonSteps += r.NewtonSteps
		res.Operations += r.Operations
		res.Objective += r.Objective
		res.Primal += r.Primal
		res.Gap += r.Gap
		res.Violation = max(res.Violation, r.Violation)
		res.Converged = res.Converged && r.Converged
		res.HitEpochCap = res.HitEpochCap || r.HitEpochCap
		res.Cancelled = res.Cancelled || r.Cancelled
	}
	for _, v := range model.W {
		if v != 0 {
			res.NNZW++
		}
	}
	if nsub > 1 {
		res.Classes = make([]Result, nsub)
		for k := range subs {
			res.Classes[k] = subs[k].res
		}
	}
	model.Partial = !res.Converged || res.Cancelled
	res.Seconds = time.Since(start).Seconds()
	return model, res, nil
}

// checkData rejects datasets the solvers cannot use, before any work.
func checkData(d *dataio.Dataset) error {
	if d == nil || d.Rows == 0 {
		return errors.New("solver: no training examples")
	}
	if d.Rows > math.MaxInt32 {
		return fmt.Errorf("solver: %d examples: at most %d are supported", d.Rows, math.MaxInt32)
	}
	if len(d.Label) != d.Rows || len(d.RowPtr) != d.Rows+1 {
		return fmt.Errorf("solver: malformed dataset: %d rows, %d labels, %d row pointers", d.Rows, len(d.Label), len(d.RowPtr))
	}
	nnz := d.RowPtr[d.Rows]
	nval := int64(len(d.Value))
	if d.Value == nil {
		nval = int64(len(d.Value32)) // float32 storage: kernel.Dot32/Axpy32
	}
	if d.RowPtr[0] != 0 || int64(len(d.Index)) < nnz || nval < nnz {
		return errors.New("solver: malformed dataset: row pointers do not match the index and value arrays")
	}
	if d.Features < 0 {
		return fmt.Errorf("solver: malformed dataset: %d features", d.Features)
	}
	for i := 0; i < d.Rows; i++ {
		if d.RowPtr[i+1] < d.RowPtr[i] {
			return fmt.Errorf("solver: malformed dataset: row pointers decrease at row %d", i)
		}
	}
	nf := int64(d.Features)
	for _, j := range d.Index[:nnz] {
		if j < 0 || int64(j) >= nf {
			return fmt.Errorf("solver: malformed dataset: feature index %d outside [0, %d)", j, nf)
		}
	}
	return checkFeatureCount(d)
}

// checkClassification validates what the classifiers (the one-vs-rest duals
// and the Weston–Watkins SVM) share: the epoch cap (0 gives the default),
// the class weights, the ACF configuration and the data; it returns the
// cap and the classes in liblinear's order, and with perExample each
// example's class index (the one-vs-rest duals do without it: at 10⁷
// examples it would be 40 MB, and each subproblem's ±1 labels come from
// comparing the labels themselves).
func checkClassification(d *dataio.Dataset, p Params, perExample bool) (maxEpochs int, labels []float64, class []int32, err error) {
	maxEpochs = p.MaxEpochs
	if maxEpochs < 0 {
		return 0, nil, nil, fmt.Errorf("solver: MaxEpochs must be >= 0, got %d", p.MaxEpochs)
	}
	if maxEpochs == 0 {
		maxEpochs = DefaultMaxEpochs
	}
	for lab, w := range p.Weights {
		if !(w > 0) || math.IsInf(w, 0) {
			return 0, nil, nil, fmt.Errorf("solver: weight %g of class %g must be a positive finite number", w, lab)
		}
	}
	if err := p.ACF.Validate(); err != nil {
		return 0, nil, nil, fmt.Errorf("solver: %w", err)
	}
	if err := checkData(d); err != nil {
		return 0, nil, nil, err
	}
	if perExample {
		class = make([]int32, len(d.Label))
	}
	labels, err = group(d.Label, class)
	if le, ok := err.(*labelError); ok {
		return 0, nil, nil, labelMessage(d, le)
	}
	if err == nil {
		err = checkDense(d, 8*denseVectors(len(labels)), "training", len(labels))
	}
	return maxEpochs, labels, class, err
}

// groupClasses orders the labels as liblinear's group_classes (identical
// in 2.3.0 and 2.50): by first appearance, except that a two-class problem
// whose labels are -1 then +1 is swapped so that +1 is class 0, the
// positive side of the binary problem. It returns the labels and each
// example's class index.
func groupClasses(y []float64) ([]float64, []int32, error) {
	class := make([]int32, len(y))
	labels, err := group(y, class)
	if err != nil {
		return nil, nil, err
	}
	return labels, class, nil
}

// group is groupClasses writing the class indices into class, or only
// returning the labels if class is nil.
func group(y []float64, class []int32) ([]float64, error) {
	var labels []float64
	seen := map[float64]int32{}
	for i, v := range y {
		if v != math.Trunc(v) || math.IsInf(v, 0) || math.Abs(v) > maxLabel {
			return nil, &labelError{row: i, label: v}
		}
		if v == 0 {
			v = 0 // -0 and +0 are one class
		}
		k, ok := seen[v]
		if !ok {
			k = int32(len(labels))
			seen[v] = k
			labels = append(labels, v)
		}
		if class != nil {
			class[i] = k
		}
	}
	if len(labels) == 2 && labels[0] == -1 && labels[1] == 1 {
		labels[0], labels[1] = labels[1], labels[0]
		for i := range class {
			class[i] = 1 - class[i]
		}
	}
	return labels, nil
}

func indexOf(s []float64, v float64) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// mixSeed derives a subproblem's seed (splitmix64 of seed and class), so
// that each class has its own random stream whatever goroutine runs it.
func mixSeed(seed, k uint64) uint64 {
	z := seed + (k+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// shared is the read-only state common to every subproblem.
type shared struct {
	rp    []int64
	idx   []int32
	val   []float64
	val32 []float32 // instead of val for float32 storage
	label []float64 // the examples' labels
	xsq   []float64 // ‖x_i‖², plus B² with a bias; nil above xsqStoreMax examples (see qii)
	n     int       // examples
	nf    int       // features; w[nf] is the bias weight (kept 0 without a bias)
	bias  float64   // B, or 0 without a bias

	kind      lossKind
	sel       selection
	eps       float64
	maxEpochs int
	acfCfg    acf.Config
	done      <-chan struct{}
	fallback  bool      // primal Newton fallback allowed
	pool      *procPool // spare processors, for the chunks of the full KKT pass
	progress  func(Progress)

	dupRows, dupOff []int32 // -s 3: groups of identical rows (dups.go)
}

func newShared(d *dataio.Dataset, kind lossKind, sel selection, eps, bias float64, maxEpochs int, cfg acf.Config) *shared {
	sh := &shared{rp: d.RowPtr, idx: d.Index, val: d.Value, val32: d.Value32, label: d.Label, n: d.Rows, nf: d.Features,
		kind: kind, sel: sel, eps: eps, maxEpochs: maxEpochs, acfCfg: cfg}
	if bias >= 0 {
		sh.bias = bias
	}
	if d.Value != nil {
		sh.val32 = nil
	}
	if sh.n <= xsqStoreMax {
		sh.xsq = make([]float64, sh.n)
		for i := range sh.xsq {
			sh.xsq[i] = sh.sqNorm(int32(i))
		}
	}
	return sh
}

// xsqStoreMax is the most examples for which Q_ii = ‖x_i‖² + B² is stored.
// Beyond it each step recomputes Q_ii from the row it has just read (in
// cache; bit-identical to the stored value, so only speed and memory
// differ): at 10⁷ examples that saves 80 MB, 2% of a kdd-sized dataset,
// for a cost lost in the random access to w, while on small data (a9a:
// 14 non-zeros per row, w in L1) the stored value is up to ~10% faster.
var xsqStoreMax = 1 << 22

// sqNorm returns ‖x_i‖² + B², the same bits whether stored or recomputed.
func (sh *shared) sqNorm(i int32) float64 {
	a, b := sh.rp[i], sh.rp[i+1]
	if sh.val32 == nil {
		return kernel.SqNorm(sh.val[a:b:b]) + sh.bias*sh.bias
	}
	var q float64
	for _, v := range sh.val32[a:b:b] {
		q += float64(v) * float64(v)
	}
	return q + sh.bias*sh.bias
}

// qii returns Q_ii without the loss's diagonal term: ‖x_i‖² + B².
func (sh *shared) qii(i int32) float64 {
	if sh.xsq != nil {
		return sh.xsq[i]
	}
	return sh.sqNorm(i)
}

// checkNorms rejects an example whose squared norm ‖x_i‖² + B² overflows
// (features beyond about 10¹⁵⁴): its steps would be 0 or NaN and the model
// wrong, reported only as unconverged after the epoch cap.
func (sh *shared) checkNorms(d *dataio.Dataset) error {
	for i := range sh.n {
		if q := sh.qii(int32(i)); math.IsInf(q, 0) || q != q {
			return fmt.Errorf("%s: the example's squared norm ‖x‖² overflows a float64; scale the features down", d.Where(i))
		}
	}
	return nil
}

// subproblem is one binary problem: class k (or class 0 of two) against the rest.
type subproblem struct {
	class  int
	cp, cn float64
	seed   uint64
	res    Result
}
