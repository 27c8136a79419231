// Package lasso is the LASSO and the elastic net by primal coordinate
// descent over features,
//
//	min_w F(w) = ½‖y − Xw‖² + λ(α‖w‖₁ + ½(1−α)‖w‖²)        (λ ≥ 0, 0 < α ≤ 1)
//
// glmnet's objective times ℓ, the number of examples (its λ is ours
// divided by ℓ); scikit-learn's Lasso is the same problem scaled by 1/ℓ
// (λ = alpha·ℓ). With an intercept b, ½‖y − Xw − b·1‖² + …; eliminating b
// (b = ȳ − μᵀw, μ the column means) leaves the same problem on the centred
// data X_c = X − 1μᵀ, y_c = y − ȳ1, which is used implicitly: X stays
// sparse, the residual r = y_c − X_c·w is stored as a dense vector s plus
// one scalar offset o (r_i = s_i + o), and a step δ on feature j does
// s −= δ·x_j (a sparse Axpy) and o += δ·μ_j, so it costs O(nnz of column
// j) like without an intercept. With standardize (glmnet's), column j is
// also scaled by 1/sd_j (its standard deviation over the ℓ examples) the
// same implicit way, the penalty applies to the scaled weights, and the
// model reports w_j/sd_j.
//
// Each step minimises F exactly along one coordinate (the soft-threshold
// step w_j ← S(q_j w_j + ρ_j, λα)/(q_j + λ(1−α)) with ρ_j = x_cjᵀr and
// q_j = ‖x_cj‖²) and computes its gain in closed form (Gain); ACF adapts
// the coordinate frequencies to these gains. Columns that are empty (or,
// with an intercept or standardize, constant) are not coordinates: their
// weight is 0.
//
// Screening and working sets. Problem.Fit solves one λ from the current
// point. It starts from a working set W: the features with w_j ≠ 0 and
// those the sequential strong rule (Tibshirani et al. 2012) keeps,
// |g_j(λ_prev)| ≥ α(2λ − λ_prev) with g_j = ρ_j − λ(1−α)w_j at the
// previous solution — when there are more of the latter than
// max(Tuning.LassoWSMin, the support's size), that many of them by the
// priority |g_j|/‖x_cj‖ (celer's, Massias et al. 2018). The coordinate-descent driver (package solver,
// with its selections; by default ACF, or cyclic order where W's columns
// are short: Problem.runSelection) runs on W alone until W's duality
// gap meets the tolerance — the final one when W is the strong rule's
// set uncapped or a full pass found no violator outside it, else
// Tuning.LassoInnerRel times the last full gap. A full pass over all
// features (the KKT check of the strong rule) then measures the true
// duality gap and the KKT violations; if the stopping rule fails, the
// violators outside W join it (the same cap and priority) and the run
// goes on. So a path touches the whole data about once per λ, where plain
// CD sweeps it every epoch.
//
// Near interpolation (a support of at least Tuning.LassoNewtonRows times
// the examples, typical of small λ with more features than examples) CD
// converges at the rate of a nearly singular X̃_S; a working-set pass that
// fails with the same support and signs as the one before then takes a
// support Newton step (newton.go): conjugate gradients on F restricted to
// the current orthant, and the exact minimisation of F along the result.
//
// Covariance mode (gram.go, glmnet's type.gaussian = "covariance"):
// where the working set is small against its columns' lengths, the steps,
// the working set's measures and the full passes use the Gram columns
// X̃ᵀx̃_k of the support instead of the data, bought when the plain work
// they replace has paid for them.
//
// Stopping rule: by default the duality gap F(w) − D(θ) at most
// DefaultGapRel times the larger of F(w) and F(0) − F(w) (DefaultGap;
// or an absolute gap tolerance, or the largest KKT violation at most
// eps, as the caller asks), certified by a full pass with the
// residual recomputed from scratch. The dual is that of the LASSO on the
// augmented data [X; √(λ(1−α))·I], [y; 0] (the elastic net is that
// LASSO): D(θ) = s·rᵀy_c − ½s²(‖r‖² + λ(1−α)‖w‖²) at the scaled residual
// θ = s·(r, −√(λ(1−α))w), s the maximiser of D over the feasible
// s ≤ λα/max_j |g_j| (1 at the optimum); F(w) − F* ≤ gap. glmnet's
// rule (its thresh, for like-for-like runs) may replace it: no
// certificate, the gap is only measured. The rule is a stopRule. (Dual
// extrapolation from the last residuals, celer's, gave no smaller gaps
// under ACF: docs/tuning.md.)
package lasso

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
)

// DefaultGapRel is the default stopping tolerance: the duality gap
// relative to the larger of the objective F(w) and the decrease from w = 0,
// F(0) − F(w) (DefaultGap), so that F(w) is within that fraction of the
// optimum where the model explains less than half of F(0), and the
// decrease F(0) − F(w) within that fraction of the optimal decrease
// where it explains more (docs/tuning.md compares it with glmnet's
// default thresh = 1e-7). F(0) = ½‖y_c‖² is glmnet's scale, the null
// deviance halved. Near interpolation F(w) is a small part of F(0), and
// the gap of the scaled residual (package comment) is first-order in
// the largest KKT violation, λ‖w‖₁ ≈ F(w) times it, while the excess is
// second-order: a gap of 1e-4·F there took 10⁴ times the accuracy glmnet
// reaches, and four times the work (docs/tuning.md).
const DefaultGapRel = 1e-4

// DefaultGap is the gap at which the default rule stops at objective obj
// when the objective at w = 0 is f0 (½‖y_c‖²): DefaultGapRel·max(obj,
// f0 − obj).
func DefaultGap(obj, f0 float64) float64 { return DefaultGapRel * max(obj, f0-obj) }

// DefaultEpsRel is the KKT tolerance relative to λ that DefaultEps gives.
const DefaultEpsRel = 1e-3

// DefaultEps is a KKT tolerance at λ: DefaultEpsRel·max(λ,
// DefaultEpsRel·λ_max) (every subgradient condition to 0.1% of λ, with a
// floor for tiny λ). It decides which working-set coordinates a failed
// pass repairs when the caller's rule is on the gap.
func DefaultEps(lam, lamMax float64) float64 {
	return DefaultEpsRel * max(lam, DefaultEpsRel*lamMax)
}

// Data is the λ-independent part of a LASSO problem: the column-wise data
// and its per-column statistics.
type Data struct {
	csc         *dataio.CSC
	rows, nf    int
	intercept   bool
	standardize bool
	cols        []int32   // the coordinates: features with a non-zero (centred) column
	q           []float64 // ‖x̃_j‖² per feature, x̃_j the centred, scaled column (0 for non-coordinates)
	sc          []float64 // the scale of column j: 1, or 1/sd_j with standardize
	mu          []float64 // column means (intercept only, else nil), unscaled
	cs          []float64 // column sums ℓ·μ_j (intercept only, else nil), unscaled
	xty         []float64 // x̃_jᵀy_c
	yc          []float64 // y, centred with an intercept
	ybar        float64   // mean of y (0 without an intercept)
	gMax        float64   // ‖X̃ᵀy_c‖_∞
	nullDev     float64   // ‖y_c‖²
	nnz         int64
}

// NewData builds the CSC view and column statistics of d, whose labels
// must be finite (the caller checks the data and the memory it needs).
func NewData(d *dataio.Dataset, intercept, standardize bool) (*Data, error) {
	c := d.CSC()
	pr := &Data{csc: c, rows: d.Rows, nf: d.Features, intercept: intercept, standardize: standardize,
		q: make([]float64, d.Features), sc: make([]float64, d.Features), xty: make([]float64, d.Features),
		yc: make([]float64, d.Rows), nnz: d.RowPtr[d.Rows]}
	copy(pr.yc, d.Label)
	ell := float64(d.Rows)
	if intercept {
		pr.mu = make([]float64, d.Features)
		pr.cs = make([]float64, d.Features)
		pr.ybar = sum(pr.yc) / ell
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
			return nil, fmt.Errorf("LASSO: feature %d has a non-finite value (or ‖x_j‖² overflows)", j+1)
		}
		q, m, s := sq, 0.0, 0.0
		if intercept || standardize {
			s = sum(val)
			m = s / ell
			// ‖x_j − μ_j·1‖² without the cancellation of ‖x_j‖² − ℓμ_j².
			v := float64(d.Rows-len(val)) * m * m
			for _, x := range val {
				v += float64((x - m) * (x - m))
			}
			if !(v > 1e-20*sq) { // constant column: x_cj = 0 up to rounding
				continue
			}
			if intercept {
				q = v
				pr.cs[j], pr.mu[j] = s, m
			}
			if standardize {
				// glmnet scales by the standard deviation (1/ℓ) also
				// without an intercept, where it does not centre.
				k := 1 / math.Sqrt(v/ell)
				pr.sc[j] = k
				q = float64(q*k) * k
				if !(k > 0) || math.IsInf(k, 0) {
					pr.sc[j] = 0
					if intercept {
						pr.cs[j], pr.mu[j] = 0, 0
					}
					continue
				}
			}
		}
		if !(q > 0) || math.IsInf(q, 0) { // all values underflow when squared
			if intercept {
				pr.cs[j], pr.mu[j] = 0, 0
			}
			pr.sc[j] = 0
			continue
		}
		if !standardize {
			pr.sc[j] = 1
		}
		pr.q[j] = q
		pr.cols = append(pr.cols, int32(j))
	}
	pr.nullDev = dot2(pr.yc, 0)
	for _, j := range pr.cols {
		a, b := c.ColPtr[j], c.ColPtr[j+1]
		// Σ y_c = 0 with an intercept, so the centring term drops out.
		g := pr.sc[j] * kernel.Dot(c.RowIndex[a:b:b], c.Value[a:b:b], pr.yc)
		pr.xty[j] = g
		pr.gMax = max(pr.gMax, math.Abs(g))
	}
	return pr, nil
}

// LambdaMax is λ_max at α: ‖X̃ᵀy_c‖_∞/α, the smallest λ whose solution is
// w = 0.
func (pr *Data) LambdaMax(alpha float64) float64 { return pr.gMax / alpha }

// Work is the non-zeros of a sweep.
func (pr *Data) Work() int64 { return 2 * pr.nnz }

// Rows is the number of examples.
func (pr *Data) Rows() int { return pr.rows }

// Features is the number of features (coordinates and not).
func (pr *Data) Features() int { return pr.nf }

// Problem is the LASSO (elastic net) at one λ from the current w; a path
// moves it to the next λ, warm-started.
type Problem struct {
	*Data
	alpha    float64
	lam      float64        // λ
	l1p, l2p float64        // λα and λ(1−α)
	eps      float64        // the KKT tolerance that decides the repairs
	stop     stopRule       // SetLambda's
	outside  int            // features outside W that the last full pass found violating
	drv      *solver.Tuning // the driver's: cancellation and parallel passes
	tune     *Tuning
	w        []float64 // per feature (scaled units)
	rs       []float64 // residual r = rs + off (centred problem)
	off      float64
	rr, ry   float64 // ‖r‖² and rᵀy_c, tracked by the steps between passes
	n1, n2   float64 // ‖w‖₁ and ‖w‖², likewise
	fresh    bool    // the six above are resetResidual's, at this w and λ
	g        gram    // covariance mode (gram.go)

	// Ops counts the non-zeros read or written by Dot and Axpy, the
	// passes and residual recomputations included.
	Ops     int64
	pool    *procs.Pool    // helpers for the passes' dot products (nil: none)
	nz      []int32        // resetResidual's non-zero weights
	chunks  []solver.Chunk // their chunks' results
	checkAt int64          // Ops at which a pass polls for cancellation next
	poll    int64
	// done is the running Fit's cancellation, for the work it does outside
	// the driver's runs (nil between fits).
	done <-chan struct{}

	// The last full pass: its largest violation, the objective and the
	// duality gap at the w it saw; Snap says that w is still the current
	// one (any step clears it), and then rho holds every ρ_j at w, taken
	// at λ = lamSnap.
	Snap              bool
	PassViol, PassGap float64
	PassObj           float64
	rho               []float64
	lamSnap           float64

	// The working set: ws its features, in[j] whether j is in it.
	ws     []int32
	wsc    []wsCol // the statistics of ws's features, in its order
	in     []bool
	wsWork int64
	scale  []float64 // GainScale's
	cand   []cand

	// The working-set run: its tolerance, its progress, its violators.
	innerTol float64 // > 0: W's gap at which its run ends (W not known complete)
	// The strong rule missed violators at the last λ (its first full pass
	// found some outside W); startSet has built the set whose first full
	// pass is still to come; W's next measure sets innerTol (startSet).
	strongMissed, strongOpen, innerFirst bool
	// innerTol is the capped set's (W lacks candidates it knows of), not
	// only that of a set that may prove incomplete: the Gram forecast
	// (EndBatch) aims at innerTol only then, else at the final tolerance,
	// which the next runs on about the same W go on to.
	innerCap bool
	run      wsRun
	viols    []int32 // working-set positions above eps in the last pass

	// The support Newton step (newton.go): g_j per working-set position
	// at the last pass, the support signature of the last failed pass,
	// Ops at the last step, scratch.
	gws                       []float64
	nSig                      uint64
	nSupp                     int
	newtonAt                  int64
	nIdx                      []int32
	nD, nRes, nZ, nP, nAp, nU []float64
	nKeep, nB                 []float64
	nBreak                    []brk
}

type cand struct {
	j     int32
	score float64
}

// New returns the solver at w = 0 for mixing alpha in (0, 1].
func New(pr *Data, alpha float64, drv *solver.Tuning, t *Tuning) *Problem {
	s := &Problem{Data: pr, alpha: alpha, drv: drv, tune: t, w: make([]float64, pr.nf), rs: make([]float64, pr.rows),
		rho: make([]float64, pr.nf), in: make([]bool, pr.nf), poll: drv.PollWork}
	copy(s.rs, pr.yc)
	// w = 0 is measured at λ_max, where it is the solution: the strong
	// rule starts from there.
	copy(s.rho, pr.xty)
	s.rr, s.ry = pr.nullDev, pr.nullDev
	s.Snap, s.lamSnap = true, s.LambdaMax()
	s.PassObj = 0.5 * pr.nullDev
	return s
}

// LambdaMax is λ_max at the problem's α.
func (s *Problem) LambdaMax() float64 { return s.Data.LambdaMax(s.alpha) }

// SetPool lets the full passes and the working set's passes compute their
// dot products on the spare processors of pool (solver.RowPass): each ρ_j
// is the same dot product whoever computes it, and the passes combine
// them in feature order, so the results are the same bits with or without
// helpers.
func (s *Problem) SetPool(pool *procs.Pool) { s.pool = pool }

// dots calls body(k) for k in [0, n), n coordinates of nnz non-zeros:
// on the pool's spare processors when the pass is worth it, else in order
// on the calling goroutine. body must only write its own k's results and
// return the non-zeros it read; dots adds them to Ops. With r non-nil it
// reports whether r was cancelled during the pass (the results are then
// incomplete).
func (s *Problem) dots(r *solver.Run, n int, nnz int64, body func(k int) int64) (cancelled bool) {
	t := s.drv
	if s.pool == nil || n <= t.KKTChunkRows || nnz < t.KKTParallelNNZ {
		for k := range n {
			s.Ops += body(k)
			if r == nil {
				if s.polled() {
					return true
				}
			} else if s.Ops >= s.checkAt {
				s.checkAt = s.Ops + s.poll
				if r.Poll() {
					return true
				}
			}
		}
		return false
	}
	done := s.done
	if r != nil {
		done = r.Done()
	}
	var stopped atomic.Bool
	scan := func(bool) func(lo, hi int) solver.Chunk {
		return func(lo, hi int) solver.Chunk {
			select {
			case <-done:
				stopped.Store(true)
				return solver.Chunk{Stop: lo}
			default:
			}
			var ops int64
			for k := lo; k < hi; k++ {
				ops += body(k)
			}
			return solver.Chunk{Ops: ops, Stop: -1}
		}
	}
	_, _, ops, _ := solver.RowPass(t, s.pool, &s.chunks, n, nnz, scan, func(int, *float64, *float64) {})
	s.Ops += ops
	if stopped.Load() {
		if r != nil {
			r.Poll() // marks the run cancelled
		}
		return true
	}
	return false
}

// polled reports whether the running Fit is cancelled, checking once every
// Tuning.PollWork operations (the work outside the driver's runs: the
// passes at a new λ, the support Newton step).
func (s *Problem) polled() bool {
	if s.Ops < s.checkAt {
		return false
	}
	s.checkAt = s.Ops + s.poll
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// gwsFor sizes gws to the working set.
func (s *Problem) gwsFor() []float64 {
	if cap(s.gws) < len(s.ws) {
		s.gws = make([]float64, len(s.ws))
	}
	s.gws = s.gws[:len(s.ws)]
	return s.gws
}

// stopRule is when a fit stops (package comment), chosen once from the
// Spec's tolerances (Data.rule): the certified duality gap, that or the
// KKT tolerance eps, or glmnet's thresh. The zero value stops at a gap 0.
type stopRule struct {
	kind   ruleKind
	eps    float64 // the KKT tolerance asked for (0: DefaultEps at λ); epsRule stops on it
	gapTol float64 // > 0: the absolute gap that stops
	gapRel float64 // else the gap relative to F(w)
	thr    float64 // threshRule: thresh·‖y_c‖², on q_j·δ²
	// The default rule's F(0) = ½‖y_c‖²: its gap is relative to the larger
	// of F(w) and F(0) − F(w) (DefaultGapRel).
	f0 float64
}

type ruleKind uint8

const (
	gapRule    ruleKind = iota // the duality gap
	epsRule                    // the gap, or the largest KKT violation at most eps
	threshRule                 // glmnet's: the gap is only measured
)

// rule is the stopping rule of a Spec's Eps, GapTol and Thresh: glmnet's
// if thresh > 0 (a cycle over W moving no weight by a δ with q_j·δ² above
// thresh·‖y_c‖², then no violator outside W), eps if eps > 0 and gapTol
// if gapTol > 0 (either meeting it), else a gap of DefaultGap(F(w), F(0)).
func (pr *Data) rule(eps, gapTol, thresh float64) stopRule {
	r := stopRule{eps: eps, gapTol: gapTol}
	switch {
	case thresh > 0:
		r = stopRule{kind: threshRule, eps: eps, thr: thresh * pr.nullDev}
	case eps > 0:
		r.kind = epsRule
	case eps == 0 && gapTol == 0:
		r.gapRel = DefaultGapRel
		r.f0 = 0.5 * pr.nullDev
	}
	return r
}

// target is the gap that stops at objective obj.
func (r *stopRule) target(obj float64) float64 {
	if r.gapTol > 0 {
		return r.gapTol
	}
	if r.f0 > 0 {
		return DefaultGap(obj, r.f0)
	}
	return r.gapRel * obj
}

// violMet reports whether a KKT violation of viol stops (epsRule).
func (r *stopRule) violMet(viol float64) bool { return r.kind == epsRule && viol <= r.eps }

// wsRun is a working-set run's progress under the rule: reset at its
// start, advanced by the steps, EndBatch and Pass; Due only reads it.
type wsRun struct {
	cyclic  bool    // the selection is cyclic: a batch is a cycle over W in order
	due     bool    // EndBatch's verdict on the last batch: a pass is worthwhile
	byGap   bool    // the verdict came from the gap estimate (a failed pass backs off)
	cycled  bool    // threshRule: the last pass (or batch) was a cycle below thr
	viol    float64 // the largest violation of this batch's steps
	maxG    float64 // the largest |g_j| of the steps since the last batch
	maxMove float64 // the largest q_j·δ² since the last batch or cycle
	// The gap estimate's back-off after a failed pass, and the batches.
	wait, skip, batches int
	// predict's first measure of progress and its batch, and its batches.
	m0     float64
	b0, mb int
}

// predict returns the batches the run still needs to bring its measure
// of progress m (the gap, the violation or the largest move) to tau, at
// the rate it fell from its first value to this batch's; 0 where it has
// not fallen yet (the rate is unknown).
func (st *wsRun) predict(m, tau float64) float64 {
	st.mb++
	if !(m > tau) || !(tau > 0) || math.IsInf(m, 0) {
		return 0
	}
	if st.m0 == 0 {
		st.m0, st.b0 = m, st.mb
		return 0
	}
	if !(m < st.m0) {
		return 0
	}
	rate := math.Log(st.m0/m) / float64(st.mb-st.b0)
	return math.Log(m/tau) / rate
}

// SetLambda moves the problem to λ = lam under the stopping rule and
// returns the KKT tolerance that decides the repairs (the rule's eps, or
// DefaultEps).
func (s *Problem) SetLambda(lam float64, rule stopRule) float64 {
	s.lam, s.stop = lam, rule
	s.l1p = lam * s.alpha
	s.l2p = 0
	if s.alpha < 1 {
		s.l2p = lam * (1 - s.alpha)
	}
	s.run = wsRun{}
	s.fresh = false // ‖w‖² is computed only for the elastic net's λ > 0
	s.eps = rule.eps
	if s.eps == 0 {
		s.eps = DefaultEps(lam, s.LambdaMax())
	}
	if s.lamSnap != lam && s.Snap {
		// The point is the same, its measures at the new λ are not.
		s.PassViol, s.PassGap, s.PassObj = math.NaN(), math.NaN(), math.NaN()
	}
	return s.eps
}

// Objective is F(w) from the residual as it is (no recomputation).
func (s *Problem) Objective() float64 {
	s.syncResidual()
	return s.objective(dot2(s.rs, s.off), s.l1(), s.l2())
}

func (s *Problem) objective(rr, n1, n2 float64) float64 {
	return float64(0.5*rr) + float64(s.l1p*n1) + float64(0.5*s.l2p*n2)
}

// DevRatio is the fraction of the null deviance explained at w,
// 1 − ‖r‖²/‖y_c‖² (0 when y_c = 0).
func (s *Problem) DevRatio() float64 {
	if !(s.nullDev > 0) {
		return 0
	}
	if s.g.stale {
		// The last measure's ‖r‖², from the Gram identities.
		return 1 - s.rr/s.nullDev
	}
	return 1 - dot2(s.rs, s.off)/s.nullDev
}

// column returns the stored entries of feature j.
func (s *Problem) column(j int32) ([]int32, []float64) {
	c := s.csc
	a, b := c.ColPtr[j], c.ColPtr[j+1]
	return c.RowIndex[a:b:b], c.Value[a:b:b]
}

// corr returns ρ_j = x̃_jᵀr (the smooth part's −∇_j without the ridge
// term), using 1ᵀr = 0 with an intercept. It does not count Ops (the
// passes' helpers call it; dots counts).
func (s *Problem) corr(j int32, idx []int32, val []float64) float64 {
	r := kernel.Dot(idx, val, s.rs)
	if s.intercept {
		r += float64(s.off * s.cs[j])
	}
	return s.sc[j] * r
}

// violation is the KKT violation of a weight w where the smooth part's
// −∇ is g and the L1 weight l1p.
func violation(w, g, l1p float64) float64 {
	switch {
	case w > 0:
		return math.Abs(g - l1p)
	case w < 0:
		return math.Abs(g + l1p)
	}
	return max(0, math.Abs(g)-l1p)
}

// softStep is the coordinate minimiser of ½qq·w² − z·w + l1p·|w|: z
// soft-thresholded by l1p, over qq.
func softStep(z, l1p, qq float64) float64 {
	switch {
	case z > l1p:
		return (z - l1p) / qq
	case z < -l1p:
		return (z + l1p) / qq
	}
	return 0
}

// move does the exact coordinate minimisation of F along feature j, given
// ρ_j, and returns its gain F(before) − F(after) ≥ 0.
func (s *Problem) move(j int32, c *wsCol, idx []int32, val []float64, rho float64) float64 {
	w := s.w[j]
	q := c.q
	z := float64(q*w) + rho
	l1p, qq := s.l1p, q+s.l2p
	nw := softStep(z, l1p, qq)
	d := nw - w
	if d == 0 {
		return 0
	}
	k := c.sc
	kernel.Axpy(-float64(d*k), idx, val, s.rs)
	if s.intercept {
		s.off += float64(float64(d*k) * c.mu)
	}
	s.Ops += int64(len(idx))
	s.rr += float64(float64(d*q)*d) - float64(2*d*rho)
	s.ry -= float64(d * c.xty)
	s.n1 += math.Abs(nw) - math.Abs(w)
	s.n2 += float64(nw*nw) - float64(w*w)
	s.w[j] = nw
	s.Snap, s.fresh = false, false
	s.run.maxMove = max(s.run.maxMove, float64(float64(q*d)*d))
	// Along the coordinate F is ½(q+λ₂)t² − z·t + λα|t| + const.
	return Gain(qq, z, l1p, w, nw)
}

// Gain is the exact decrease of φ(t) = ½q·t² − z·t + λ|t|, F along one
// coordinate up to a constant, from t = w to its minimiser nw ≠ w (also
// the inner problem of package l1's newGLMNET):
//
//	nw = 0:                 ½q·w² + |w|·(λ − sign(w)·z)
//	nw ≠ 0, no sign change: ½q·δ²                (δ = nw − w)
//	nw ≠ 0, crossing zero:  ½q·δ² + 2λ|w|
//
// These are identities of ρδ − ½qδ² + λ(|w| − |nw|) at the minimiser,
// written as sums of non-negative terms: no cancellation, so small gains
// keep their relative accuracy, which the ratios gain/r̄ of ACF need.
func Gain(q, z, lam, w, nw float64) float64 {
	if nw == 0 {
		t := lam - z
		if w < 0 {
			t = lam + z
		}
		return float64(0.5*q*w*w) + float64(math.Abs(w)*max(t, 0))
	}
	d := nw - w
	g := float64(0.5 * q * d * d)
	if (w > 0 && nw < 0) || (w < 0 && nw > 0) {
		g += float64(2 * lam * math.Abs(w))
	}
	return g
}

// step does one CD step on feature j: it returns ρ_j and the violation
// before the step, and the gain.
func (s *Problem) step(j int32) (rho, viol, gain float64) {
	c := s.colOf(j)
	return s.stepCol(j, &c)
}

// wsCol is what a step on a feature reads besides its column and weight,
// gathered in the working set's order: read from the per-feature arrays,
// scattered over all the features, a step missed the cache on each.
type wsCol struct {
	a, b               int64 // the column's range in the CSC
	q, sc, mu, cs, xty float64
}

// colOf gathers feature j's wsCol.
func (s *Problem) colOf(j int32) wsCol {
	c := wsCol{a: s.csc.ColPtr[j], b: s.csc.ColPtr[j+1], q: s.q[j], sc: s.sc[j], xty: s.xty[j]}
	if s.intercept {
		c.mu, c.cs = s.mu[j], s.cs[j]
	}
	return c
}

// rhoCol returns ρ_j = x̃_jᵀr for the working-set feature whose
// statistics are c, and its column.
func (s *Problem) rhoCol(c *wsCol) (rho float64, idx []int32, val []float64) {
	rho, idx, val = s.rhoOf(c)
	s.Ops += int64(len(idx))
	return rho, idx, val
}

// rhoOf is rhoCol without counting (for the passes' helpers).
func (s *Problem) rhoOf(c *wsCol) (rho float64, idx []int32, val []float64) {
	idx, val = s.csc.RowIndex[c.a:c.b:c.b], s.csc.Value[c.a:c.b:c.b]
	r := kernel.Dot(idx, val, s.rs)
	if s.intercept {
		r += float64(s.off * c.cs)
	}
	return float64(c.sc * r), idx, val // rounded first: no fused multiply-add after
}

// stepCol is step on feature j whose statistics are c.
func (s *Problem) stepCol(j int32, c *wsCol) (rho, viol, gain float64) {
	rho, idx, val := s.rhoCol(c)
	g := rho - float64(s.l2p*s.w[j])
	viol = violation(s.w[j], g, s.l1p)
	s.run.maxG = max(s.run.maxG, math.Abs(g))
	gain = s.move(j, c, idx, val, rho)
	return rho, viol, gain
}

// l1 returns ‖w‖₁.
func (s *Problem) l1() float64 {
	var n compsum.Sum
	for _, j := range s.cols {
		n.Add(math.Abs(s.w[j]))
	}
	return n.Value()
}

// l2 returns ‖w‖².
func (s *Problem) l2() float64 {
	if s.l2p == 0 {
		return 0
	}
	var n compsum.Sum
	for _, j := range s.cols {
		n.Add(s.w[j] * s.w[j])
	}
	return n.Value()
}

// gap is the duality gap F − D at the dual point sθ̃ of the package
// comment: obj is F, tt = ‖r‖², ty = rᵀy_c, n2 = ‖w‖² and maxG =
// max_j |g_j|. s maximises D(sθ̃) = s·ty − ½s²(tt + λ(1−α)n2)
// over the feasible s ≤ λα/maxG.
func (s *Problem) gap(obj, tt, ty, n2, maxG float64) float64 {
	sc := 1.0
	if maxG > s.l1p {
		sc = s.l1p / maxG
	}
	q := tt + float64(s.l2p*n2)
	if q > 0 && ty < sc*q {
		sc = max(ty/q, 0)
	}
	return max(obj-(float64(sc*ty)-float64(0.5*sc*sc*q)), 0)
}

// resetResidual recomputes r = y_c − X̃·w, ‖r‖², rᵀy_c, ‖w‖₁ and ‖w‖²
// from scratch, removing the rounding drift of the incremental updates.
func (s *Problem) resetResidual() {
	copy(s.rs, s.yc)
	var off, n1, n2 compsum.Sum
	nz := s.nz[:0]
	var nnz int64
	for _, j := range s.cols {
		if w := s.w[j]; w != 0 {
			nz = append(nz, j)
			nnz += s.csc.ColPtr[j+1] - s.csc.ColPtr[j]
			if s.intercept {
				off.Add(float64(w*s.sc[j]) * s.mu[j])
			}
			// Sums of non-negative terms skip the zeros: adding +0 leaves
			// them as they are, so these are l1's and l2's bits.
			n1.Add(math.Abs(w))
			n2.Add(w * w)
		}
	}
	s.nz = nz
	s.Ops += nnz
	// r_i gets the columns' terms in their order whichever goroutine
	// updates row i: the same bits with helpers as without.
	blocks := 1
	t := s.drv
	if s.pool != nil && nnz >= t.KKTParallelNNZ && s.rows >= 2*t.KKTChunkRows {
		blocks += s.pool.Take(min(s.rows/t.KKTChunkRows, 8) - 1)
	}
	axpyRows := func(a, b int32) {
		for _, j := range nz {
			idx, val := s.column(j)
			lo, hi := 0, len(idx)
			if a > 0 || int(b) < s.rows {
				lo, _ = slices.BinarySearch(idx, a)
				hi, _ = slices.BinarySearch(idx, b)
			}
			kernel.Axpy(-float64(s.w[j]*s.sc[j]), idx[lo:hi], val[lo:hi], s.rs)
		}
	}
	if blocks == 1 {
		axpyRows(0, int32(s.rows))
	} else {
		var next atomic.Int64
		s.pool.Run(blocks-1, func(bool) {
			for {
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				axpyRows(int32(s.rows*b/blocks), int32(s.rows*(b+1)/blocks))
			}
		}, func() { next.Store(int64(blocks)) })
	}
	s.off = off.Value()
	s.rr = dot2(s.rs, s.off)
	s.ry = dotOff(s.rs, s.off, s.yc)
	s.n1, s.n2 = n1.Value(), 0
	if s.l2p != 0 {
		s.n2 = n2.Value()
	}
	s.fresh, s.g.stale = true, false
}

// fullPass measures the current point over every coordinate: the residual
// recomputed, every ρ_j, the objective, the largest KKT violation and the
// duality gap (PassObj, PassViol, PassGap, Snap). It returns true if
// cancelled (r non-nil polls).
func (s *Problem) fullPass(r *solver.Run) bool {
	if ran, cancelled := s.gramPass(r); cancelled {
		s.Snap = false
		return true
	} else if !ran {
		if !s.fresh || s.g.stale { // else the working set's pass just did it
			s.resetResidual()
		}
		if s.dots(r, len(s.cols), s.nnz, func(k int) int64 {
			j := s.cols[k]
			idx, val := s.column(j)
			s.rho[j] = s.corr(j, idx, val)
			return int64(len(idx))
		}) {
			s.Snap = false
			return true
		}
	}
	obj := s.objective(s.rr, s.n1, s.n2)
	var viol, maxG float64
	s.outside = 0
	for _, j := range s.cols {
		g := s.rho[j] - float64(s.l2p*s.w[j])
		v := violation(s.w[j], g, s.l1p)
		viol = max(viol, v)
		maxG = max(maxG, math.Abs(g))
		if v > 0 && !s.in[j] {
			s.outside++
		}
	}
	s.PassViol, s.PassObj = viol, obj
	s.PassGap = s.gap(obj, s.rr, s.ry, s.n2, maxG)
	s.Snap, s.lamSnap = true, s.lam
	return false
}

// met reports whether the last full pass met the stopping rule.
func (s *Problem) met() bool {
	if s.stop.kind == threshRule {
		return s.run.cycled && s.outside == 0
	}
	return s.stop.violMet(s.PassViol) || s.PassGap <= s.stop.target(s.PassObj)
}

// Fit is the outcome of Problem.Fit.
type Fit struct {
	Converged, Cancelled, Capped bool
	Steps                        int64   // coordinate steps
	Epochs                       int     // the working-set runs' epochs plus the full passes
	Passes                       int     // full passes
	WorkingSet                   int     // the final working set's size
	Runs, CyclicRuns             int     // working-set runs, and those swept in cyclic order
	GramRuns                     int     // working-set runs that started in covariance mode
	LastViol                     float64 // the largest violation of the last batch
}

// Fit solves at the current λ from the current point (package comment):
// cfg configures the driver's runs on the working set (its Eps is not
// used; MaxEpochs caps their epochs in all), seed seeds them. The final
// point is measured by a full pass (PassObj, PassGap, PassViol) unless
// the run was cancelled.
func (s *Problem) Fit(cfg solver.Config, seed uint64) Fit {
	f := Fit{LastViol: s.PassViol}
	if cfg.MaxEpochs <= 0 {
		cfg.MaxEpochs = math.MaxInt
	}
	progress := cfg.Progress
	select {
	case <-cfg.Done:
		f.Cancelled = true
		return f
	default:
	}
	s.done = cfg.Done
	defer func() { s.done = nil }()
	for outer := 0; ; outer++ {
		if !s.Snap || s.lamSnap != s.lam {
			// The λ is new (or the point moved): measure, to start the
			// working set or to stop at once.
			if s.lamSnap != s.lam && s.Snap && outer == 0 {
				s.startSet()
			} else {
				if s.fullPass(nil) {
					f.Cancelled = true
					return f
				}
				f.Passes++
				f.Epochs++
				if s.met() {
					f.Converged = true
					return f
				}
				s.grow()
			}
		} else if outer == 0 {
			if s.met() {
				f.Converged = true
				return f
			}
			s.grow()
		}
		base := f.Epochs
		if progress != nil {
			cfg.Progress = func(epoch int, viol, obj float64) { progress(base+epoch, viol, obj) }
		}
		rc := cfg
		s.g.ahead = 0
		s.gramRunStart()
		gramOn := s.gramMaybe()
		rc.Selection = s.runSelection(cfg.Selection)
		rc.MaxEpochs = max(cfg.MaxEpochs-f.Epochs-1, 1) // one left for the full pass
		// The polls count each step's cost beyond its column as well.
		rc.Work = s.stepWork() + int64(len(s.ws))*int64(max(s.tune.LassoStepOps, 0))
		if gramOn {
			f.GramRuns++
		}
		sub := (*wsProblem)(s)
		run := solver.NewRun(sub, rc)
		run.Obj = s.objective(s.rr, s.n1, s.n2)
		s.run = wsRun{cyclic: rc.Selection == solver.Cyclic}
		s.nSupp, s.newtonAt = -1, s.Ops
		if s.run.cyclic {
			f.CyclicRuns++
		}
		f.Runs++
		ok := run.Solve(mix.Seed(seed, uint64(outer)))
		s.gramRunEnd() // the residual may stay behind until needed
		f.Steps += run.Steps
		f.Epochs += run.Epochs()
		f.WorkingSet = len(s.ws)
		if !math.IsInf(run.LastViol, 0) {
			f.LastViol = run.LastViol
		}
		if run.Cancelled() {
			f.Cancelled = true
			return f
		}
		if s.fullPass(run) {
			f.Cancelled = true
			return f
		}
		f.Passes++
		f.Epochs++
		if s.met() {
			f.Converged = true
			return f
		}
		if !ok || f.Epochs >= cfg.MaxEpochs {
			f.Capped = true
			return f
		}
		if s.grow() == 0 && run.Steps == 0 {
			// W holds every violator and meets the tolerance, the whole
			// problem does not: rounding; nothing more to do.
			f.Capped = true
			return f
		}
	}
}

// runSelection resolves the default selection (solver.Auto) for the
// next working-set run: ACF, or cyclic order when the set's columns hold
// fewer than Tuning.LassoACFMinNNZ non-zeros on average. ACF's
// bookkeeping (its preference update and schedule) costs about as much
// as a step on a column of 40 non-zeros; on shorter ones it has to save
// more than half the steps to pay, and on text-like sets it saves less
// (docs/tuning.md).
func (s *Problem) runSelection(sel solver.Selection) solver.Selection {
	if sel != solver.Auto {
		return sel
	}
	if float64(s.stepWork()) < 2*s.tune.LassoACFMinNNZ*float64(len(s.ws)) {
		return solver.Cyclic
	}
	return solver.ACF
}

// stepWork is the cost of a sweep over the working set: the columns'
// non-zeros twice (Dot and Axpy), or 2|W| a step in covariance mode.
func (s *Problem) stepWork() int64 {
	if s.g.on {
		return 2 * int64(len(s.ws)) * int64(len(s.ws))
	}
	return s.wsWork
}

// startSet builds the working set at a new λ from the ρ_j of the last
// full pass (at λ_prev, the current point): the support and the
// sequential strong rule's features. Where the rule missed violators at
// the last λ, the set is not taken as complete: its run ends once W's
// gap is LassoInnerRel times its first measure in the run (the gap at
// the start is that of the last λ's solution, near 0 however far the new
// one lies). Near interpolation the rule misses a hundred features by
// up to twice λ, and solving its set to the end first cost half of each
// λ's work on reg-textpn-b's path (docs/tuning.md).
func (s *Problem) startSet() {
	if s.strongOpen { // the last λ stopped on its first full pass
		s.strongMissed = false
	}
	thr := s.alpha * (2*s.lam - s.lamSnap)
	s.clearSet()
	s.cand = s.cand[:0]
	maxG := 0.0
	for _, j := range s.cols {
		g := s.rho[j] - float64(s.l2p*s.w[j])
		maxG = max(maxG, math.Abs(g))
		if s.w[j] != 0 {
			s.add(j)
		} else if math.Abs(g) >= thr {
			s.cand = append(s.cand, cand{j, math.Abs(g) / math.Sqrt(s.q[j])})
		}
	}
	obj := s.objective(s.rr, s.n1, s.n2)
	s.addCands(s.gap(obj, s.rr, s.ry, s.n2, maxG), false)
	s.strongOpen, s.innerFirst = true, s.strongMissed
}

// grow adds the KKT violators of the last full pass to the working set
// and returns how many there were. Where there are any, the features
// within Tuning.LassoGrowMargin of violating are candidates too (the
// cap and priority of addCands choose among them all): the next full
// pass would often find them over the line, and on debian-desc every
// round of a trickle of a few features cost a run over W and a full pass
// (docs/tuning.md).
func (s *Problem) grow() int {
	s.cand = s.cand[:0]
	n := 0
	edge := (1 - s.tune.LassoGrowMargin) * s.l1p
	for _, j := range s.cols {
		if s.in[j] {
			continue
		}
		g := s.rho[j] - float64(s.l2p*s.w[j])
		if violation(s.w[j], g, s.l1p) > 0 {
			n++
		} else if s.w[j] != 0 || !(math.Abs(g) > edge) {
			continue
		}
		s.cand = append(s.cand, cand{j, math.Abs(g) / math.Sqrt(s.q[j])})
	}
	if n == 0 {
		s.cand = s.cand[:0]
	}
	if s.strongOpen {
		s.strongMissed, s.strongOpen = n > 0, false
	}
	s.addCands(s.PassGap, n > 0)
	return n
}

// addCands adds the candidates to the working set, the best
// max(LassoWSMin, support) by priority when there are more, and sets the
// working-set run's tolerance: LassoInnerRel·gap where W is not known
// complete (candidates were left out, or grown is set: they are the
// violators of a full pass, and solving W to the end only to find new
// violators outside it wasted the work: near interpolation each round
// found a few hundred more and cost a hundred sweeps of W), else the
// final one.
func (s *Problem) addCands(gap float64, grown bool) {
	nnz := 0
	for _, j := range s.ws {
		if s.w[j] != 0 {
			nnz++
		}
	}
	k := max(s.tune.LassoWSMin, nnz)
	s.innerTol, s.innerFirst, s.innerCap = 0, false, false
	if grown {
		s.innerTol = s.tune.LassoInnerRel * gap
	}
	if len(s.cand) > k {
		s.innerCap = true
		// The k best, in the order a full sort gives them: at a cold start
		// far below λ_max every feature is a candidate, and sorting them
		// all at every growth of W cost a tenth of the fit.
		topK(s.cand, k)
		slices.SortFunc(s.cand[:k], candOrder)
		s.cand = s.cand[:k]
		s.innerTol = s.tune.LassoInnerRel * gap
	}
	for _, c := range s.cand {
		s.add(c.j)
	}
}

// candOrder orders candidates by score, highest first, ties by feature:
// a total order, so the working set does not depend on the sort.
func candOrder(a, b cand) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	return cmp.Compare(a.j, b.j)
}

// topK moves the k first candidates of candOrder into c[:k], in any
// order (quickselect with a median-of-three pivot; a full sort when it
// recurses deeper than 2·log₂ n, so it is never quadratic).
func topK(c []cand, k int) {
	lo, hi := 0, len(c) // the k-th position lies in c[lo:hi]
	depth := 2 * bits.Len(uint(len(c)))
	for hi-lo > 16 {
		if depth--; depth < 0 {
			slices.SortFunc(c[lo:hi], candOrder)
			return
		}
		m := lo + (hi-lo)/2
		// Median of three to c[hi-1], the pivot.
		if candOrder(c[m], c[lo]) < 0 {
			c[m], c[lo] = c[lo], c[m]
		}
		if candOrder(c[hi-1], c[lo]) < 0 {
			c[hi-1], c[lo] = c[lo], c[hi-1]
		}
		if candOrder(c[m], c[hi-1]) < 0 {
			c[m], c[hi-1] = c[hi-1], c[m]
		}
		p := c[hi-1]
		i := lo
		for j := lo; j < hi-1; j++ {
			if candOrder(c[j], p) < 0 {
				c[i], c[j] = c[j], c[i]
				i++
			}
		}
		c[i], c[hi-1] = c[hi-1], c[i]
		switch {
		case i == k || i == k-1:
			return
		case i > k:
			hi = i
		default:
			lo = i + 1
		}
	}
	slices.SortFunc(c[lo:hi], candOrder)
}

func (s *Problem) clearSet() {
	for _, j := range s.ws {
		s.in[j] = false
	}
	s.ws = s.ws[:0]
	s.wsc = s.wsc[:0]
	s.wsWork = 0
}

func (s *Problem) add(j int32) {
	s.in[j] = true
	s.ws = append(s.ws, j)
	s.wsc = append(s.wsc, s.colOf(j))
	s.wsWork += 2 * (s.csc.ColPtr[j+1] - s.csc.ColPtr[j])
}

// wsProblem is the problem restricted to the working set, for the driver
// (solver.Problem, solver.Trigger): coordinate k is feature ws[k].
type wsProblem Problem

// Len is the working set's size.
func (u *wsProblem) Len() int { return len(u.ws) }

// Step does the step on working-set coordinate k.
func (u *wsProblem) Step(k, _ int32, _ solver.Thresholds) (viol, gain float64, shrink bool) {
	_, viol, gain = (*Problem)(u).wsStep(int(k))
	if viol > u.run.viol { // the batch's, as the driver's: EndBatch comes before Due
		u.run.viol = viol
	}
	return viol, gain, false
}

// WarmupOrder orders the warm-up sweep of a working-set run
// (solver.WarmupOrderer): the features at zero first — the newcomers, by
// priority where the set was capped — then the support, which the last
// run left near its optimum. A random order spends steps where little
// moves; runs of a few sweeps pay for it (docs/tuning.md).
func (u *wsProblem) WarmupOrder(b []int32) {
	s := (*Problem)(u)
	k := 0
	for i, j := range s.ws {
		if s.w[j] == 0 {
			b[k] = int32(i)
			k++
		}
	}
	for i, j := range s.ws {
		if s.w[j] != 0 {
			b[k] = int32(i)
			k++
		}
	}
}

// GainScale is the mean cost of a step over the working set divided by
// the cost of a step on each (its column's non-zeros plus
// Tuning.LassoStepOps), so that ACF adapts to gain per unit of work
// (solver.StepCoster); all 1 (gains as they are) when LassoStepOps < 0.
func (u *wsProblem) GainScale() []float64 {
	s := (*Problem)(u)
	extra := s.tune.LassoStepOps
	s.scale = s.scale[:0]
	if extra < 0 || s.g.on { // Gram steps all cost the same
		for range s.ws {
			s.scale = append(s.scale, 1) // gain·1: the same bits
		}
		return s.scale
	}
	total := 0.0
	for _, j := range s.ws {
		c := float64(s.csc.ColPtr[j+1]-s.csc.ColPtr[j]) + float64(extra)
		s.scale = append(s.scale, c)
		total += c
	}
	mean := total / float64(len(s.ws))
	for k, c := range s.scale {
		s.scale[k] = mean / c
	}
	return s.scale
}

// EndBatch judges the batch just ended for Due (solver.BatchEnder): no
// weight moved beyond thr (glmnet's rule), else its violation, W's gap
// estimated in O(1) from the tracked sums (backing off 1, 2, 4, … up to
// LassoGapMaxWait batches after a gap-triggered pass fails), or every
// LassoGapEvery batches.
func (u *wsProblem) EndBatch(_ int, stopped bool) float64 {
	s := (*Problem)(u)
	if stopped {
		return 0 // the run ends here: no verdict
	}
	st := &s.run
	if !s.g.on && s.gramStepCheaper() {
		// The rent paid, and the rent this run will still pay at the rate
		// its measure of progress has fallen so far, may buy the columns.
		var m, tau float64
		switch s.stop.kind {
		case threshRule:
			m, tau = st.maxMove, s.stop.thr
		case epsRule:
			m, tau = st.viol, s.stop.eps
		default:
			obj := s.objective(s.rr, s.n1, s.n2)
			m, tau = s.gap(obj, s.rr, s.ry, s.n2, st.maxG), s.stop.target(obj)
			if s.innerCap {
				tau = max(tau, s.innerTol)
			}
		}
		s.g.ahead = int64(min(st.predict(m, tau)*float64(s.wsWork), 1<<62))
		s.gramMaybe()
	}
	viol, maxG := st.viol, st.maxG
	st.viol, st.maxG = 0, 0
	if s.stop.kind == threshRule {
		st.due = st.maxMove <= s.stop.thr
		st.maxMove = 0
		return 0
	}
	byViol := s.wsViolMet(viol)
	st.byGap = false
	if !byViol {
		if st.skip > 0 {
			st.skip--
		} else {
			obj := s.objective(s.rr, s.n1, s.n2)
			st.byGap = s.wsGapMet(s.gap(obj, s.rr, s.ry, s.n2, maxG), obj)
		}
	}
	st.batches++
	every := s.tune.LassoGapEvery > 0 && st.batches%s.tune.LassoGapEvery == 0
	st.due = byViol || st.byGap || every
	return 0
}

// Due reports EndBatch's verdict on the batch (solver.Trigger).
func (u *wsProblem) Due(float64) bool { return u.run.due }

// wsViolMet reports whether a violation of viol ends the working set's
// run: the rule's, where W is known complete.
func (s *Problem) wsViolMet(viol float64) bool { return s.innerTol == 0 && s.stop.violMet(viol) }

// wsGapMet reports whether W's gap at objective obj ends its run.
func (s *Problem) wsGapMet(gap, obj float64) bool { return gap <= max(s.innerTol, s.stop.target(obj)) }

// Pass is the working set's pass (solver.Problem): under glmnet's rule a
// cycle over it; else a measure of it, and repairs where that fails.
func (u *wsProblem) Pass(r *solver.Run, repair bool) bool {
	s := (*Problem)(u)
	if s.stop.kind == threshRule {
		return s.cycle(r, repair)
	}
	ok := s.measureSet(r)
	if ok || !repair || r.Cancelled() {
		return ok
	}
	return s.repair(r)
}

// repair follows a failed measure: it backs the gap estimate off if that
// triggered the pass, tries the Newton step (reporting whether that meets
// the tolerance), else steps on the coordinates above eps.
func (s *Problem) repair(r *solver.Run) bool {
	if st := &s.run; st.byGap {
		st.wait = min(max(2*st.wait, 1), s.tune.LassoGapMaxWait)
		st.skip = st.wait
	}
	if it := s.failedPass(); it > 0 && s.newton(s.gws, it) {
		if s.measureSet(r) {
			return true
		}
	}
	if r.Poll() { // the Newton step stops early when cancelled
		return false
	}
	for _, k := range s.viols {
		_, _, gain := s.wsStep(int(k))
		r.Repaired(k, gain)
		if s.Ops >= s.checkAt {
			s.checkAt = s.Ops + s.poll
			if r.Poll() {
				return false
			}
		}
	}
	return false
}

// cycle is Pass under glmnet's rule. A cyclic batch within the threshold
// was a cycle over W in its order: glmnet's test, passed. An ACF batch may
// have skipped coordinates of low preference, so one cycle over the whole
// working set in its order decides, as glmnet's own cycles do (without
// repair it only reports that it cannot tell).
func (s *Problem) cycle(r *solver.Run, repair bool) bool {
	st := &s.run
	if st.cyclic && st.due {
		st.cycled = true
		return true
	}
	if !repair {
		return false
	}
	st.maxMove = 0
	for k := range s.ws {
		_, _, gain := s.wsStep(k)
		r.Repaired(int32(k), gain)
		if s.Ops >= s.checkAt {
			s.checkAt = s.Ops + s.poll
			if r.Poll() {
				return false
			}
		}
	}
	st.cycled = st.maxMove <= s.stop.thr
	st.maxMove = 0
	if st.cycled {
		return true
	}
	if it := s.failedPass(); it > 0 {
		g := s.gwsFor()
		if s.g.on {
			s.gramRho() // gr drifts with the steps; the step needs g at w
		}
		for k, j := range s.ws {
			if s.w[j] != 0 {
				var rho float64
				if s.g.on {
					rho = s.g.gr[k]
				} else {
					rho, _, _ = s.rhoCol(&s.wsc[k])
				}
				g[k] = rho - float64(s.l2p*s.w[j])
			}
		}
		s.newton(g, it)
		st.maxMove = 0
	}
	return false
}

// measureSet measures the working set: the residual recomputed, g_j and
// the violators over it, its duality gap; it reports whether the run's
// tolerance is met (false if r was cancelled during it).
func (s *Problem) measureSet(r *solver.Run) bool {
	if s.g.on {
		viol, maxG := s.gramMeasure()
		obj := s.objective(s.rr, s.n1, s.n2)
		r.Obj = obj
		return s.wsMeasured(s.gap(obj, s.rr, s.ry, s.n2, maxG), obj, viol)
	}
	if !s.fresh || s.g.stale { // else the working set's pass just did it
		s.resetResidual()
	}
	obj := s.objective(s.rr, s.n1, s.n2)
	var viol, maxG float64
	s.viols = s.viols[:0]
	gws := s.gwsFor()
	if s.dots(r, len(s.ws), s.wsWork/2, func(k int) int64 {
		rho, idx, _ := s.rhoOf(&s.wsc[k])
		gws[k] = rho - float64(s.l2p*s.w[s.ws[k]])
		return int64(len(idx))
	}) {
		return false
	}
	for k, j := range s.ws {
		g := gws[k]
		v := violation(s.w[j], g, s.l1p)
		viol = max(viol, v)
		maxG = max(maxG, math.Abs(g))
		if v > s.eps {
			s.viols = append(s.viols, int32(k))
		}
	}
	r.Obj = obj
	return s.wsMeasured(s.gap(obj, s.rr, s.ry, s.n2, maxG), obj, viol)
}

// wsMeasured reports whether W's measured gap and violation end its run,
// the first measure after startSet setting innerTol where it is due.
func (s *Problem) wsMeasured(gap, obj, viol float64) bool {
	if s.innerFirst {
		s.innerFirst = false
		s.innerTol = max(s.innerTol, s.tune.LassoInnerRel*gap)
	}
	return s.wsGapMet(gap, obj) || s.wsViolMet(viol)
}

// dot2 returns Σ (x_i + off)² with compensated summation.
func dot2(x []float64, off float64) float64 {
	var n compsum.Sum
	for _, v := range x {
		v += off
		n.Add(v * v)
	}
	return n.Value()
}

// dotOff returns Σ (x_i + off)·y_i with compensated summation.
func dotOff(x []float64, off float64, y []float64) float64 {
	y = y[:len(x)]
	var n compsum.Sum
	for i, v := range x {
		n.Add((v + off) * y[i])
	}
	return n.Value()
}

func sum(x []float64) float64 {
	var n compsum.Sum
	for _, v := range x {
		n.Add(v)
	}
	return n.Value()
}

// Model returns the current weights as a model on the original scale:
// SolverType "LASSO", no labels, one weight vector, predicting w·x (+ b).
// Without an intercept Bias is −1; with one, Bias is 1 and the intercept
// b is the bias weight W[NumFeature].
func (s *Problem) Model() *model.Model {
	m := &model.Model{SolverType: "LASSO", NumFeature: s.nf, Bias: -1, NrW: 1}
	n := s.nf
	if s.intercept {
		m.Bias = 1
		n++
	}
	m.W = make([]float64, n)
	for _, j := range s.cols {
		if w := s.w[j]; w != 0 {
			m.W[j] = w * s.sc[j]
		}
	}
	if s.intercept {
		var mw compsum.Sum
		for _, j := range s.cols {
			mw.Add(s.mu[j] * m.W[j])
		}
		m.W[s.nf] = s.ybar - mw.Value()
	}
	return m
}
