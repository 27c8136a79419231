package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/acfcd/acfcd/acf"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
)

// LASSO (Solver == Lasso): primal coordinate descent over features,
//
//	min_w F(w) = ½‖y − Xw‖² + λ‖w‖₁                      (Params.Lambda = λ ≥ 0)
//
// scikit-learn's Lasso minimises (1/(2ℓ))‖y − Xw‖² + alpha‖w‖₁ over ℓ
// examples, the same problem scaled by 1/ℓ: λ = alpha·ℓ, and its
// objective is F/ℓ. With Params.Intercept an unpenalised intercept b is
// added, ½‖y − Xw − b·1‖² + λ‖w‖₁; eliminating b (b = ȳ − μᵀw, μ the
// column means) leaves the same problem on the centred data X_c = X − 1μᵀ,
// y_c = y − ȳ1, which the solver uses implicitly: X stays sparse, the
// residual r = y_c − X_c·w is stored as a dense vector s plus one scalar
// offset o (r_i = s_i + o), and a step δ on feature j does s −= δ·x_j (a
// sparse Axpy) and o += δ·μ_j, so it costs O(nnz of column j) like
// without an intercept.
//
// Each step minimises F exactly along one coordinate (the soft-threshold
// step w_j ← S(q_j w_j + ρ_j, λ)/q_j with ρ_j = x_cjᵀr and q_j = ‖x_cj‖²)
// and computes its gain (the decrease of F, |w_j| terms included, also
// when the step crosses zero) in closed form from the step itself; ACF
// adapts the coordinate frequencies to these gains. Columns that are empty
// (or, with an intercept, constant, so that x_cj = 0) are not coordinates:
// their weight is 0.
//
// Stopping rule: the largest KKT violation over all features,
//
//	|∇_j + λ·sign w_j|       for w_j ≠ 0,
//	max(0, |∇_j| − λ)        for w_j = 0,        ∇_j = −x_cjᵀr,
//
// is at most eps (absolute, in the units of λ and ∇F). A batch whose
// steps all saw violations ≤ eps triggers a full pass over every feature
// at the current w (the residual recomputed from scratch) that takes no
// step: if it finds every violation ≤ eps it certifies convergence at
// the returned w; otherwise the coordinates it found above eps are
// stepped on and the batches go on. Params.Eps = 0 means the default
// eps = 1e-3·max(λ, 1e-3·λ_max) (LassoDefaultEpsRel): every subgradient
// condition holds to 0.1% of λ, with a floor for tiny λ (λ_max =
// ‖X_cᵀy_c‖_∞ is the smallest λ whose solution is w = 0).
//
// Selections (Params.Select): "cyclic" sweeps the features in index
// order (glmnet's and scikit-learn's default, the paper's baseline),
// "uniform" sweeps them in a fresh random permutation each time, and
// "acf" (the default) does a uniform warm-up sweep and then ACF batches.
// An epoch is one sweep (cyclic, uniform) or n coordinate steps (acf),
// n being the number of usable features; Result.Iterations counts CD
// steps (those of the fix-ups after a pass included) and
// Result.Operations the non-zeros read or written by Dot and Axpy, the
// passes and residual recomputations included.
//
// Result.Gap is the duality gap F(w) − D(θ) at the returned w, with the
// standard dual D(θ) = θᵀy_c − ½‖θ‖² (feasible when ‖X_cᵀθ‖_∞ ≤ λ) and
// the dual point θ = r·min(1, λ/‖X_cᵀr‖_∞) obtained by scaling the
// residual (scikit-learn's choice too). Since F(w) − F* ≤ Gap,
// TrainLassoGap can stop on it instead.

// LassoDefaultEpsRel is the default KKT tolerance of the LASSO relative
// to λ: Params.Eps = 0 means eps = LassoDefaultEpsRel·max(λ, LassoDefaultEpsRel·λ_max),
// λ_max = ‖X_cᵀy_c‖_∞.
const LassoDefaultEpsRel = 1e-3

// lassoDefaultEps is the default eps at λ.
func lassoDefaultEps(lam, lamMax float64) float64 {
	return LassoDefaultEpsRel * max(lam, LassoDefaultEpsRel*lamMax)
}

// lassoCheckOps is how many non-zeros the solver touches between two
// cancellation checks (about a millisecond of work).
const lassoCheckOps = 1 << 20

// lassoGapMaxWait caps the back-off of gap checks: after a failed check,
// TrainLassoGap skips 1, 2, 4, … up to this many batches before the next one.
const lassoGapMaxWait = 8

type lassoSelect int

const (
	lassoCyclic lassoSelect = iota
	lassoUniform
	lassoACF
)

var lassoSelections = map[string]lassoSelect{
	"cyclic":  lassoCyclic,
	"uniform": lassoUniform,
	"acf":     lassoACF,
}

// lassoProblem is the λ-independent part of a LASSO problem: the
// column-wise data and its per-column statistics.
type lassoProblem struct {
	csc       *dataio.CSC
	rows, nf  int
	intercept bool
	cols      []int32   // the coordinates: features with a non-zero (centred) column
	q         []float64 // ‖x_cj‖² per feature (0 for features that are not coordinates)
	mu        []float64 // column means (intercept only, else nil)
	cs        []float64 // column sums ℓ·μ_j (intercept only, else nil)
	yc        []float64 // y, centred with an intercept
	ybar      float64   // mean of y (0 without an intercept)
	lamMax    float64   // ‖X_cᵀy_c‖_∞
}

// newLassoProblem checks d and builds the CSC view and column statistics.
func newLassoProblem(d *dataio.Dataset, intercept bool) (*lassoProblem, error) {
	if err := checkData(d); err != nil {
		return nil, err
	}
	for i, y := range d.Label {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, fmt.Errorf("solver: LASSO: label %g of example %d is not finite", y, i+1)
		}
	}
	if err := checkLassoInput(d, intercept); err != nil {
		return nil, err
	}
	c := d.CSC()
	pr := &lassoProblem{csc: c, rows: d.Rows, nf: d.Features, intercept: intercept,
		q: make([]float64, d.Features), yc: make([]float64, d.Rows)}
	copy(pr.yc, d.Label)
	ell := float64(d.Rows)
	if intercept {
		pr.mu = make([]float64, d.Features)
		pr.cs = make([]float64, d.Features)
		pr.ybar = neumaier(pr.yc) / ell
		for i := range pr.yc {
			pr.yc[i] -= pr.ybar
		}
	}
	for j := 0; j < d.Features; j++ {
		a, b := c.ColPtr[j], c.ColPtr[j+1]
		val := c.Value[a:b:b]
		if len(val) == 0 {
			continue
		}
		sq := kernel.SqNorm(val)
		if math.IsNaN(sq) || math.IsInf(sq, 0) {
			return nil, fmt.Errorf("solver: LASSO: feature %d has a non-finite value (or ‖x_j‖² overflows)", j+1)
		}
		q := sq
		if intercept {
			s := neumaier(val)
			m := s / ell
			pr.cs[j], pr.mu[j] = s, m
			// ‖x_j − μ_j·1‖² without the cancellation of ‖x_j‖² − ℓμ_j².
			q = float64(d.Rows-len(val)) * m * m
			for _, v := range val {
				q += (v - m) * (v - m)
			}
			if !(q > 1e-20*sq) { // constant column: x_cj = 0 up to rounding
				pr.cs[j], pr.mu[j] = 0, 0
				continue
			}
		}
		if !(q > 0) { // all values underflow when squared
			continue
		}
		pr.q[j] = q
		pr.cols = append(pr.cols, int32(j))
	}
	for _, j := range pr.cols {
		a, b := c.ColPtr[j], c.ColPtr[j+1]
		pr.lamMax = max(pr.lamMax, math.Abs(kernel.Dot(c.RowIndex[a:b:b], c.Value[a:b:b], pr.yc)))
	}
	return pr, nil
}

// lassoSolver is the state of coordinate descent at one λ; LassoPath
// reuses it, warm-started, for the next λ.
type lassoSolver struct {
	pr       *lassoProblem
	lam, eps float64

	w   []float64 // per feature
	rs  []float64 // residual r = rs + off (centred problem)
	off float64
	obj float64 // F(w), tracked through the gains between full passes

	steps, ops int64
	checkAt    int64
	done       <-chan struct{}
	cancelled  bool

	// The last full pass: its largest violation, the objective and the
	// duality gap at the w it saw; snap says that w is still the current
	// one (any step clears it).
	snap              bool
	passViol, passGap float64
	passObj           float64
	viols             []int32 // coordinates above eps in the last pass
}

func newLassoSolver(pr *lassoProblem) *lassoSolver {
	s := &lassoSolver{pr: pr, w: make([]float64, pr.nf), rs: make([]float64, pr.rows), checkAt: lassoCheckOps,
		viols: make([]int32, 0, len(pr.cols))}
	copy(s.rs, pr.yc)
	s.obj = 0.5 * dot2(s.rs, 0)
	return s
}

// column returns the stored entries of feature j.
func (s *lassoSolver) column(j int32) ([]int32, []float64) {
	c := s.pr.csc
	a, b := c.ColPtr[j], c.ColPtr[j+1]
	return c.RowIndex[a:b:b], c.Value[a:b:b]
}

// rho returns ρ_j = x_cjᵀr = −∇_j F (smooth part), using 1ᵀr = 0.
func (s *lassoSolver) rho(j int32, idx []int32, val []float64) float64 {
	r := kernel.Dot(idx, val, s.rs)
	if s.pr.intercept {
		r += s.off * s.pr.cs[j]
	}
	s.ops += int64(len(idx))
	return r
}

// lassoViolation is the KKT violation of a weight w with ρ = −∇.
func lassoViolation(w, rho, lam float64) float64 {
	switch {
	case w > 0:
		return math.Abs(rho - lam)
	case w < 0:
		return math.Abs(rho + lam)
	}
	return max(0, math.Abs(rho)-lam)
}

// move does the exact coordinate minimisation of F along feature j, given
// ρ_j, and returns its gain F(before) − F(after) ≥ 0.
func (s *lassoSolver) move(j int32, idx []int32, val []float64, rho float64) float64 {
	w := s.w[j]
	q := s.pr.q[j]
	lam := s.lam
	z := q*w + rho
	var nw float64
	if z > lam {
		nw = (z - lam) / q
	} else if z < -lam {
		nw = (z + lam) / q
	}
	d := nw - w
	if d == 0 {
		return 0
	}
	kernel.Axpy(-d, idx, val, s.rs)
	if s.pr.intercept {
		s.off += d * s.pr.mu[j]
	}
	s.ops += int64(len(idx))
	s.w[j] = nw
	s.snap = false
	return lassoGain(q, z, lam, w, nw)
}

// lassoGain is the exact decrease of φ(t) = ½q·t² − z·t + λ|t|, F along
// one coordinate up to a constant, from t = w to its minimiser nw ≠ w:
//
//	nw = 0:                 ½q·w² + |w|·(λ − sign(w)·z)
//	nw ≠ 0, no sign change: ½q·δ²                (δ = nw − w)
//	nw ≠ 0, crossing zero:  ½q·δ² + 2λ|w|
//
// These are identities of ρδ − ½qδ² + λ(|w| − |nw|) (the smooth decrease
// plus the change of the penalty) at the minimiser, written as sums of
// non-negative terms: no cancellation, so small gains keep their relative
// accuracy, which the ratios gain/r̄ of ACF need.
func lassoGain(q, z, lam, w, nw float64) float64 {
	if nw == 0 {
		t := lam - z
		if w < 0 {
			t = lam + z
		}
		return 0.5*q*w*w + math.Abs(w)*max(t, 0)
	}
	d := nw - w
	g := 0.5 * q * d * d
	if (w > 0 && nw < 0) || (w < 0 && nw > 0) {
		g += 2 * lam * math.Abs(w)
	}
	return g
}

// step does one CD step on feature j: it returns ρ_j and the violation
// before the step, and the gain.
func (s *lassoSolver) step(j int32) (rho, viol, gain float64) {
	idx, val := s.column(j)
	rho = s.rho(j, idx, val)
	viol = lassoViolation(s.w[j], rho, s.lam)
	gain = s.move(j, idx, val, rho)
	s.steps++
	return rho, viol, gain
}

// slow checks for cancellation; it returns true to stop.
func (s *lassoSolver) slow() bool {
	s.checkAt = s.ops + lassoCheckOps
	select {
	case <-s.done:
		s.cancelled = true
		return true
	default:
	}
	return false
}

// resetResidual recomputes r = y_c − X_c·w from scratch, removing the
// rounding drift of the incremental updates.
func (s *lassoSolver) resetResidual() {
	copy(s.rs, s.pr.yc)
	off := 0.0
	for _, j := range s.pr.cols {
		if w := s.w[j]; w != 0 {
			idx, val := s.column(j)
			kernel.Axpy(-w, idx, val, s.rs)
			s.ops += int64(len(idx))
			if s.pr.intercept {
				off += w * s.pr.mu[j]
			}
		}
	}
	s.off = off
}

// pass is a full pass over every coordinate at the current w, without
// steps, after recomputing the residual and the objective from scratch.
// It sets passViol (the largest violation), passObj and passGap (the
// objective and duality gap at this w), snap, and records in viols the
// coordinates whose violation exceeds eps, for fixViolators. It returns
// true if cancelled.
func (s *lassoSolver) pass() bool {
	s.resetResidual()
	rr := dot2(s.rs, s.off)
	ry := dotOff(s.rs, s.off, s.pr.yc)
	s.obj = 0.5*rr + s.lam*s.l1()
	var viol, maxRho float64
	s.viols = s.viols[:0]
	for k, j := range s.pr.cols {
		idx, val := s.column(j)
		rho := s.rho(j, idx, val)
		v := lassoViolation(s.w[j], rho, s.lam)
		viol = max(viol, v)
		maxRho = max(maxRho, math.Abs(rho))
		if v > s.eps {
			s.viols = append(s.viols, int32(k))
		}
		if s.ops >= s.checkAt && s.slow() {
			s.snap = false
			return true
		}
	}
	s.passViol = viol
	s.passObj = s.obj
	s.passGap = lassoGap(s.obj, rr, ry, maxRho, s.lam)
	s.snap = true
	return false
}

// l1 returns ‖w‖₁.
func (s *lassoSolver) l1() float64 {
	var sum, comp float64
	for _, j := range s.pr.cols {
		sum, comp = neumaierAdd(sum, comp, math.Abs(s.w[j]))
	}
	return sum + comp
}

// lassoGap is the duality gap F − D(θ) for the objective F, ‖r‖², rᵀy_c
// and ‖X_cᵀr‖_∞, with the dual point θ = r·min(1, λ/‖X_cᵀr‖_∞).
func lassoGap(obj, rr, ry, maxRho, lam float64) float64 {
	sc := 1.0
	if maxRho > lam {
		sc = lam / maxRho
	}
	return max(obj-(sc*ry-0.5*sc*sc*rr), 0)
}

// fixViolators steps on the coordinates that the last pass found above
// eps (their gains go to prefs, if not nil). It returns true if cancelled.
func (s *lassoSolver) fixViolators(prefs *acf.Prefs) bool {
	for _, k := range s.viols {
		_, _, gain := s.step(s.pr.cols[k])
		s.obj -= gain
		if prefs != nil {
			prefs.Observe(int(k), gain)
		}
		if s.ops >= s.checkAt && s.slow() {
			return true
		}
	}
	return false
}

// dot2 returns Σ (x_i + off)² with compensated summation.
func dot2(x []float64, off float64) float64 {
	var sum, comp float64
	for _, v := range x {
		v += off
		sum, comp = neumaierAdd(sum, comp, v*v)
	}
	return sum + comp
}

// dotOff returns Σ (x_i + off)·y_i with compensated summation.
func dotOff(x []float64, off float64, y []float64) float64 {
	y = y[:len(x)]
	var sum, comp float64
	for i, v := range x {
		sum, comp = neumaierAdd(sum, comp, (v+off)*y[i])
	}
	return sum + comp
}

func neumaier(x []float64) float64 {
	var sum, comp float64
	for _, v := range x {
		sum, comp = neumaierAdd(sum, comp, v)
	}
	return sum + comp
}

func neumaierAdd(sum, comp, v float64) (float64, float64) {
	t := sum + v
	if math.Abs(sum) >= math.Abs(v) {
		comp += (sum - t) + v
	} else {
		comp += (v - t) + sum
	}
	return t, comp
}

// lassoRun drives a lassoSolver with one coordinate selection.
type lassoRun struct {
	*lassoSolver
	sel   lassoSelect
	sched *acf.Scheduler
	prefs *acf.Prefs
	warm  bool // acf: the warm-up sweep is still to come

	epochs     int
	batchSteps int64 // acf: steps in batches (epochs are m of them)
	epochAt    int64
	progress   func(Progress)
}

func (s *lassoSolver) newRun(sel lassoSelect, seed uint64, cfg acf.Config) *lassoRun {
	m := len(s.pr.cols)
	r := &lassoRun{lassoSolver: s, sel: sel, epochAt: int64(m)}
	if sel != lassoCyclic {
		r.sched = acf.NewScheduler(m, seed)
	}
	if sel == lassoACF {
		r.prefs = acf.NewPrefs(m, cfg)
		r.warm = true
	}
	return r
}

// batch does one sweep (cyclic, uniform) or one ACF batch (the first one
// the uniform warm-up sweep). It returns the largest violation and the
// largest |ρ_j| its steps saw before stepping, and stop when cancelled.
func (r *lassoRun) batch() (viol, maxRho float64, stop bool) {
	cols := r.pr.cols
	var gain float64
	if r.sel == lassoCyclic {
		for _, j := range cols {
			rho, v, g := r.step(j)
			viol = max(viol, v)
			maxRho = max(maxRho, math.Abs(rho))
			gain += g
			if r.ops >= r.checkAt && r.slow() {
				r.obj -= gain
				return viol, maxRho, true
			}
		}
		r.obj -= gain
		return viol, maxRho, false
	}
	var b []int32
	if r.sel == lassoUniform || r.warm {
		b = r.sched.Uniform()
	} else {
		b = r.sched.Next(r.prefs)
	}
	prefs := r.prefs
	for _, k := range b {
		rho, v, g := r.step(cols[k])
		if prefs != nil {
			prefs.Observe(int(k), g)
		}
		viol = max(viol, v)
		maxRho = max(maxRho, math.Abs(rho))
		gain += g
		if r.ops >= r.checkAt && r.slow() {
			r.obj -= gain
			return viol, maxRho, true
		}
	}
	r.obj -= gain
	if r.warm {
		prefs.EndWarmup()
		r.warm = false
	}
	r.batchSteps += int64(len(b))
	return viol, maxRho, false
}

// gapEstimate is the duality gap at the current w with ‖X_cᵀr‖_∞
// replaced by maxRho, the largest |ρ_j| seen in the last batch: O(ℓ+n)
// instead of a pass over the data. It decides when the exact gap is
// worth a pass.
func (s *lassoSolver) gapEstimate(maxRho float64) float64 {
	rr := dot2(s.rs, s.off)
	ry := dotOff(s.rs, s.off, s.pr.yc)
	return lassoGap(0.5*rr+s.lam*s.l1(), rr, ry, maxRho, s.lam)
}

// endBatch advances the epoch count after a batch, reports progress and
// returns true when the epoch cap is reached.
func (r *lassoRun) endBatch(viol float64, maxEpochs int) bool {
	if r.sel != lassoACF {
		r.epochs++
		r.report(viol)
		return r.epochs >= maxEpochs
	}
	for r.batchSteps >= r.epochAt {
		r.epochAt += int64(len(r.pr.cols))
		r.epochs++
		r.report(viol)
	}
	return r.epochs >= maxEpochs
}

func (r *lassoRun) report(viol float64) {
	if r.progress != nil {
		r.progress(Progress{Epoch: r.epochs, Violation: viol, Objective: r.obj})
	}
}

// solve runs to convergence, the epoch cap or cancellation. A full pass
// (pass) is made when the last batch's violations were all ≤ eps (with
// useEps) or, with gapTol > 0, when the gap estimated from the batch is
// ≤ gapTol; the run stops, converged, if the pass finds every violation
// ≤ eps (with useEps) or a gap ≤ gapTol (with gapTol > 0), and otherwise
// steps on the coordinates the pass found above eps and goes on. After a
// gap-triggered pass fails, the next gap triggers are skipped with a
// back-off of 1, 2, 4, … up to lassoGapMaxWait batches. It returns
// whether it converged and whether it hit the epoch cap.
func (r *lassoRun) solve(maxEpochs int, useEps bool, gapTol float64) (converged, capped bool) {
	if len(r.pr.cols) == 0 {
		if r.pass() {
			return false, false
		}
		return true, false
	}
	wait, skip := 0, 0
	for {
		if r.slow() {
			return false, false
		}
		viol, maxRho, stop := r.batch()
		if stop {
			return false, false
		}
		capped = r.endBatch(viol, maxEpochs)
		byEps := useEps && viol <= r.eps
		byGap := false
		if !byEps && gapTol > 0 {
			if skip > 0 {
				skip--
			} else {
				byGap = r.gapEstimate(maxRho) <= gapTol
			}
		}
		if byEps || byGap {
			if r.pass() {
				return false, false
			}
			if (useEps && r.passViol <= r.eps) || (gapTol > 0 && r.passGap <= gapTol) {
				return true, false
			}
			if byGap {
				wait = min(max(2*wait, 1), lassoGapMaxWait)
				skip = wait
			}
			if r.fixViolators(r.prefs) {
				return false, false
			}
		}
		if capped {
			return false, true
		}
	}
}

// lassoSetup validates the parameters common to Train and LassoPath and
// returns the selection, eps (0: resolve from λ_max) and the epoch cap.
// DefaultLassoMaxEpochs caps LASSO epochs when Params.MaxEpochs is 0. It is
// scikit-learn's default max_iter for Lasso multiplied by 100: p >> n problems
// such as arcene need thousands of epochs, and a cap should only catch a run
// that cannot converge.
const DefaultLassoMaxEpochs = 100000

func lassoSetup(p Params) (string, lassoSelect, int, error) {
	selName := p.Select
	if selName == "" {
		selName = "acf"
	}
	sel, ok := lassoSelections[selName]
	if !ok {
		return "", 0, 0, fmt.Errorf("solver: unknown coordinate selection %q for the LASSO (want acf, uniform or cyclic)", p.Select)
	}
	if p.Eps < 0 || math.IsNaN(p.Eps) || math.IsInf(p.Eps, 0) {
		return "", 0, 0, fmt.Errorf("solver: eps must be >= 0 and finite, got %g", p.Eps)
	}
	maxEpochs := p.MaxEpochs
	if maxEpochs < 0 {
		return "", 0, 0, fmt.Errorf("solver: MaxEpochs must be >= 0, got %d", p.MaxEpochs)
	}
	if maxEpochs == 0 {
		maxEpochs = DefaultLassoMaxEpochs
	}
	if err := p.ACF.Validate(); err != nil {
		return "", 0, 0, fmt.Errorf("solver: %w", err)
	}
	return selName, sel, maxEpochs, nil
}

func checkLambda(lam float64) error {
	if !(lam >= 0) || math.IsInf(lam, 0) {
		return fmt.Errorf("solver: LASSO: lambda must be a finite number >= 0, got %g", lam)
	}
	return nil
}

// trainLasso is Train for Solver == Lasso.
func trainLasso(ctx context.Context, d *dataio.Dataset, p Params) (*Model, *Result, error) {
	return TrainLassoGap(ctx, d, p, 0)
}

// TrainLassoGap fits the LASSO as Train does for Solver == Lasso (which
// it ignores: the problem is always the LASSO), with an optional
// duality-gap tolerance. With gapTol > 0 the run stops, converged, at
// the first full pass (which takes no step) whose duality gap
// F(w) − D(θ) is at most gapTol, in the units of F = ½‖y − Xw‖² + λ‖w‖₁.
// A pass is tried when the gap estimated in O(ℓ+n) after a batch (with
// ‖X_cᵀr‖_∞ taken over the batch's steps only) is ≤ gapTol. The KKT
// tolerance then stops the run too only if p.Eps > 0 was given
// (whichever is met first); the default eps still decides which
// coordinates a failed pass steps on. scikit-learn's tol corresponds to
// gapTol = tol·‖y‖² (tol·‖y − ȳ‖² with fit_intercept). gapTol = 0 is
// Train.
//
// The model has SolverType "LASSO", no labels, NrW 1 and predicts
// w·x (+ b): without an intercept Bias is −1; with one, Bias is 1 and
// the intercept b is the bias weight W[NumFeature], so that Predict and
// liblinear-style model files include it. C, Bias and Weights of p are
// not used. On cancellation the model reached so far is returned with
// Partial set and Result.Cancelled, and no error.
func TrainLassoGap(ctx context.Context, d *dataio.Dataset, p Params, gapTol float64) (m *Model, res *Result, err error) {
	defer guardFaults()()
	defer recoverFault(d, &err)
	return trainLassoGap(ctx, d, p, gapTol)
}

func trainLassoGap(ctx context.Context, d *dataio.Dataset, p Params, gapTol float64) (*Model, *Result, error) {
	start := time.Now()
	selName, sel, maxEpochs, err := lassoSetup(p)
	if err != nil {
		return nil, nil, err
	}
	if err := checkLambda(p.Lambda); err != nil {
		return nil, nil, err
	}
	if !(gapTol >= 0) || math.IsInf(gapTol, 0) {
		return nil, nil, fmt.Errorf("solver: LASSO: gap tolerance must be a finite number >= 0, got %g", gapTol)
	}
	pr, err := newLassoProblem(d, p.Intercept)
	if err != nil {
		return nil, nil, err
	}
	s := newLassoSolver(pr)
	s.done = ctx.Done()
	m, res := s.fit(p, sel, maxEpochs, gapTol, p.Seed)
	res.Select = selName
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}

// fit solves at λ = p.Lambda from the current state and returns the model
// and the result (Seconds and Select not set).
func (s *lassoSolver) fit(p Params, sel lassoSelect, maxEpochs int, gapTol float64, seed uint64) (*Model, *Result) {
	pr := s.pr
	s.lam = p.Lambda
	s.eps = p.Eps
	useEps := p.Eps > 0 || gapTol == 0
	if s.eps == 0 {
		s.eps = lassoDefaultEps(s.lam, pr.lamMax)
	}
	s.snap = false
	steps0, ops0 := s.steps, s.ops
	r := s.newRun(sel, seed, p.ACF)
	r.progress = p.Progress
	converged, capped := r.solve(maxEpochs, useEps, gapTol)
	if !converged || !s.snap {
		// Stopped early: measure where we are, without steps. (The pass
		// also runs when cancelled: it is one epoch's work at most.)
		done := s.done
		s.done = nil
		s.pass()
		s.done = done
		ok := (useEps && s.passViol <= s.eps) || (gapTol > 0 && s.passGap <= gapTol)
		converged = converged || ok
	}
	res := &Result{Solver: "LASSO", Eps: s.eps}
	res.Iterations = s.steps - steps0
	res.Operations = s.ops - ops0
	res.Epochs = r.epochs
	res.Objective = s.passObj
	res.Primal = s.passObj
	res.Gap = s.passGap
	res.Violation = s.passViol
	res.Cancelled = s.cancelled
	res.Converged = converged && !s.cancelled
	res.HitEpochCap = capped && !res.Converged && !s.cancelled
	if p.Bias > 0 || len(p.Weights) > 0 {
		res.Warnings = append(res.Warnings, "the LASSO ignores -B and -wi (use Params.Intercept for an intercept)")
	}
	m := s.model()
	m.Partial = !res.Converged
	res.NNZW = m.NNZ()
	return m, res
}

// model returns the current weights as a Model.
func (s *lassoSolver) model() *Model {
	pr := s.pr
	m := &Model{SolverType: "LASSO", NumFeature: pr.nf, Bias: -1, NrW: 1}
	if !pr.intercept {
		m.W = append([]float64(nil), s.w...)
		return m
	}
	m.Bias = 1
	m.W = make([]float64, pr.nf+1)
	copy(m.W, s.w)
	var mw, comp float64
	for _, j := range pr.cols {
		mw, comp = neumaierAdd(mw, comp, pr.mu[j]*s.w[j])
	}
	m.W[pr.nf] = pr.ybar - (mw + comp)
	return m
}

// PathPoint is one solution of a LASSO path.
type PathPoint struct {
	Lambda     float64
	NNZ        int     // non-zero feature weights (the intercept not counted)
	Objective  float64 // F(w) = ½‖y − Xw − b‖² + λ‖w‖₁
	Gap        float64 // duality gap at w
	Violation  float64 // largest KKT violation at w
	Converged  bool
	Iterations int64   // CD steps spent at this λ
	Epochs     int     // epochs spent at this λ
	Seconds    float64 // wall time spent at this λ
	Model      *Model
}

// LassoPath fits the LASSO at n values of λ, from λ_max = ‖X_cᵀy_c‖_∞
// (where w = 0) geometrically down to ratio·λ_max, each warm-started from
// the previous solution, as glmnet and scikit-learn's lasso_path do. p is
// used as by Train except for Lambda (an eps of 0 means the default
// eps at each λ). Each λ gets a fresh ACF state
// (warm-up sweep included) whose seed is derived from p.Seed and the
// point's index. n must be ≥ 1 and 0 < ratio ≤ 1 (n = 1 gives λ_max only).
//
// When ctx is cancelled, LassoPath returns the points done so far, the
// interrupted one last with Model.Partial set, and ctx's error.
func LassoPath(ctx context.Context, d *dataio.Dataset, p Params, n int, ratio float64) (pts []PathPoint, err error) {
	defer guardFaults()()
	defer recoverFault(d, &err)
	return lassoPath(ctx, d, p, n, ratio)
}

func lassoPath(ctx context.Context, d *dataio.Dataset, p Params, n int, ratio float64) ([]PathPoint, error) {
	if n < 1 {
		return nil, fmt.Errorf("solver: LASSO path: need at least 1 point, got %d", n)
	}
	if !(ratio > 0 && ratio <= 1) {
		return nil, fmt.Errorf("solver: LASSO path: ratio must be in (0, 1], got %g", ratio)
	}
	_, sel, maxEpochs, err := lassoSetup(p)
	if err != nil {
		return nil, err
	}
	pr, err := newLassoProblem(d, p.Intercept)
	if err != nil {
		return nil, err
	}
	s := newLassoSolver(pr)
	s.done = ctx.Done()
	pts := make([]PathPoint, 0, n)
	for k := 0; k < n; k++ {
		start := time.Now()
		lam := pr.lamMax
		if n > 1 {
			lam = pr.lamMax * math.Pow(ratio, float64(k)/float64(n-1))
		}
		q := p
		q.Lambda = lam
		m, res := s.fit(q, sel, maxEpochs, 0, mixSeed(p.Seed, uint64(k)))
		nnz := 0
		for _, v := range m.W[:pr.nf] {
			if v != 0 {
				nnz++
			}
		}
		pts = append(pts, PathPoint{Lambda: lam, NNZ: nnz, Objective: res.Objective, Gap: res.Gap,
			Violation: res.Violation, Converged: res.Converged, Iterations: res.Iterations,
			Epochs: res.Epochs, Seconds: time.Since(start).Seconds(), Model: m})
		if res.Cancelled {
			if err := ctx.Err(); err != nil {
				return pts, err
			}
			return pts, errors.New("solver: LASSO path cancelled")
		}
	}
	return pts, nil
}
