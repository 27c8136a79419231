// Package lasso is the LASSO by primal coordinate descent over features,
//
//	min_w F(w) = ½‖y − Xw‖² + λ‖w‖₁                      (λ ≥ 0)
//
// scikit-learn's Lasso minimises (1/(2ℓ))‖y − Xw‖² + alpha‖w‖₁ over ℓ
// examples, the same problem scaled by 1/ℓ: λ = alpha·ℓ, and its
// objective is F/ℓ. With an intercept b, ½‖y − Xw − b·1‖² + λ‖w‖₁;
// eliminating b (b = ȳ − μᵀw, μ the column means) leaves the same problem
// on the centred data X_c = X − 1μᵀ, y_c = y − ȳ1, which is used
// implicitly: X stays sparse, the residual r = y_c − X_c·w is stored as a
// dense vector s plus one scalar offset o (r_i = s_i + o), and a step δ
// on feature j does s −= δ·x_j (a sparse Axpy) and o += δ·μ_j, so it
// costs O(nnz of column j) like without an intercept.
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
// is at most eps (absolute, in the units of λ and ∇F), certified by a full
// pass over every feature at the current w (the residual recomputed from
// scratch) that takes no step; a failed pass steps on the features it
// found above eps. Alternatively (or as well) the run stops on the
// duality gap F(w) − D(θ), with the standard dual D(θ) = θᵀy_c − ½‖θ‖²
// (feasible when ‖X_cᵀθ‖_∞ ≤ λ) and the dual point θ = r·min(1,
// λ/‖X_cᵀr‖_∞) obtained by scaling the residual (scikit-learn's choice
// too); F(w) − F* ≤ gap.
package lasso

import (
	"fmt"
	"math"

	"github.com/acfcd/acfcd/internal/compsum"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
)

// DefaultEpsRel is the default KKT tolerance relative to λ:
// eps = DefaultEpsRel·max(λ, DefaultEpsRel·λ_max), λ_max = ‖X_cᵀy_c‖_∞
// (every subgradient condition holds to 0.1% of λ, with a floor for tiny
// λ).
const DefaultEpsRel = 1e-3

// DefaultEps is the default eps at λ.
func DefaultEps(lam, lamMax float64) float64 {
	return DefaultEpsRel * max(lam, DefaultEpsRel*lamMax)
}

// Data is the λ-independent part of a LASSO problem: the column-wise data
// and its per-column statistics.
type Data struct {
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
	nullDev   float64   // ‖y_c‖²
	nnz       int64
}

// NewData builds the CSC view and column statistics of d, whose labels
// must be finite (the caller checks the data and the memory it needs).
func NewData(d *dataio.Dataset, intercept bool) (*Data, error) {
	c := d.CSC()
	pr := &Data{csc: c, rows: d.Rows, nf: d.Features, intercept: intercept,
		q: make([]float64, d.Features), yc: make([]float64, d.Rows), nnz: d.RowPtr[d.Rows]}
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
		q := sq
		if intercept {
			s := sum(val)
			m := s / ell
			pr.cs[j], pr.mu[j] = s, m
			// ‖x_j − μ_j·1‖² without the cancellation of ‖x_j‖² − ℓμ_j².
			q = float64(d.Rows-len(val)) * m * m
			for _, v := range val {
				q += float64((v - m) * (v - m))
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
	pr.nullDev = dot2(pr.yc, 0)
	for _, j := range pr.cols {
		a, b := c.ColPtr[j], c.ColPtr[j+1]
		pr.lamMax = max(pr.lamMax, math.Abs(kernel.Dot(c.RowIndex[a:b:b], c.Value[a:b:b], pr.yc)))
	}
	return pr, nil
}

// LambdaMax is ‖X_cᵀy_c‖_∞, the smallest λ whose solution is w = 0.
func (pr *Data) LambdaMax() float64 { return pr.lamMax }

// Work is the non-zeros of a sweep (solver.Config.Work).
func (pr *Data) Work() int64 { return 2 * pr.nnz }

// Features is the number of features (coordinates and not).
func (pr *Data) Features() int { return pr.nf }

// Problem is coordinate descent on the LASSO at one λ (solver.Problem); a
// path moves it to the next λ, warm-started.
type Problem struct {
	*Data
	lam, eps float64
	useEps   bool    // the KKT tolerance stops the run
	gapTol   float64 // > 0: the duality gap stops the run

	w   []float64 // per feature
	rs  []float64 // residual r = rs + off (centred problem)
	off float64

	// Ops counts the non-zeros read or written by Dot and Axpy, the
	// passes and residual recomputations included.
	Ops     int64
	checkAt int64 // Ops at which a pass polls for cancellation next
	poll    int64

	// The last full pass: its largest violation, the objective and the
	// duality gap at the w it saw; Snap says that w is still the current
	// one (any step clears it).
	Snap              bool
	PassViol, PassGap float64
	PassObj           float64
	viols             []int32 // coordinates above eps in the last pass

	maxRho     float64 // the largest |ρ_j| of this batch's steps
	wait, skip int     // back-off of the gap checks
	byGap      bool    // the pass now due was asked for by the gap
	maxWait    int
}

// New returns the solver at w = 0.
func New(pr *Data, t *solver.Tuning) *Problem {
	s := &Problem{Data: pr, w: make([]float64, pr.nf), rs: make([]float64, pr.rows),
		viols: make([]int32, 0, len(pr.cols)), poll: t.PollWork, maxWait: t.LassoGapMaxWait}
	copy(s.rs, pr.yc)
	return s
}

// SetLambda moves the problem to λ = lam, with KKT tolerance eps (0: the
// default at lam) and duality-gap tolerance gapTol (0: none). With
// gapTol > 0 the KKT tolerance stops the run too only if eps > 0 was
// given; the resolved eps still decides which features a failed pass
// steps on. It returns the resolved eps.
func (s *Problem) SetLambda(lam, eps, gapTol float64) float64 {
	s.lam, s.gapTol = lam, gapTol
	s.useEps = eps > 0 || gapTol == 0
	if eps == 0 {
		eps = DefaultEps(lam, s.lamMax)
	}
	s.eps = eps
	s.Snap = false
	s.wait, s.skip, s.maxRho = 0, 0, 0
	return eps
}

// DevRatio is the fraction of the null deviance explained at w,
// 1 − ‖r‖²/‖y_c‖² (0 when y_c = 0).
func (s *Problem) DevRatio() float64 {
	if !(s.nullDev > 0) {
		return 0
	}
	return 1 - dot2(s.rs, s.off)/s.nullDev
}

// Len is the number of coordinates.
func (s *Problem) Len() int { return len(s.cols) }

// Objective is F(w) from the residual as it is (no recomputation).
func (s *Problem) Objective() float64 {
	return float64(0.5*dot2(s.rs, s.off)) + float64(s.lam*s.l1())
}

// column returns the stored entries of feature j.
func (s *Problem) column(j int32) ([]int32, []float64) {
	c := s.csc
	a, b := c.ColPtr[j], c.ColPtr[j+1]
	return c.RowIndex[a:b:b], c.Value[a:b:b]
}

// rho returns ρ_j = x_cjᵀr = −∇_j F (smooth part), using 1ᵀr = 0.
func (s *Problem) rho(j int32, idx []int32, val []float64) float64 {
	r := kernel.Dot(idx, val, s.rs)
	if s.intercept {
		r += float64(s.off * s.cs[j])
	}
	s.Ops += int64(len(idx))
	return r
}

// violation is the KKT violation of a weight w with ρ = −∇.
func violation(w, rho, lam float64) float64 {
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
func (s *Problem) move(j int32, idx []int32, val []float64, rho float64) float64 {
	w := s.w[j]
	q := s.q[j]
	lam := s.lam
	z := float64(q*w) + rho
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
	if s.intercept {
		s.off += float64(d * s.mu[j])
	}
	s.Ops += int64(len(idx))
	s.w[j] = nw
	s.Snap = false
	return Gain(q, z, lam, w, nw)
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
	idx, val := s.column(j)
	rho = s.rho(j, idx, val)
	viol = violation(s.w[j], rho, s.lam)
	gain = s.move(j, idx, val, rho)
	return rho, viol, gain
}

// Step does the step on coordinate k, feature cols[k] (solver.Problem).
func (s *Problem) Step(k, _ int32, _ solver.Thresholds) (viol, gain float64, shrink bool) {
	rho, viol, gain := s.step(s.cols[k])
	s.maxRho = max(s.maxRho, math.Abs(rho))
	return viol, gain, false
}

// Due decides whether a batch whose violation was viol makes the full
// pass worthwhile (solver.Trigger): viol ≤ eps, or with a gap tolerance,
// the duality gap estimated in O(ℓ+n) from the batch (‖X_cᵀr‖_∞ replaced
// by the largest |ρ_j| its steps saw). After a gap-triggered pass fails,
// the next gap estimates are skipped with a back-off of 1, 2, 4, … up to
// Tuning.LassoGapMaxWait batches.
func (s *Problem) Due(viol float64) bool {
	maxRho := s.maxRho
	s.maxRho = 0
	byEps := s.useEps && viol <= s.eps
	s.byGap = false
	if !byEps && s.gapTol > 0 {
		if s.skip > 0 {
			s.skip--
		} else {
			s.byGap = s.gapEstimate(maxRho) <= s.gapTol
		}
	}
	return byEps || s.byGap
}

// met reports whether the last pass met the stopping rule.
func (s *Problem) met() bool {
	return (s.useEps && s.PassViol <= s.eps) || (s.gapTol > 0 && s.PassGap <= s.gapTol)
}

// Pass is the full pass over every coordinate at the current w
// (solver.Problem), after recomputing the residual and the objective from
// scratch; it takes no step. It sets PassViol, PassObj, PassGap and Snap,
// sets r.Obj to the objective, and reports whether the stopping rule is
// met. With repair, a pass that fails then steps on the coordinates it
// found above eps, and a pass can be cancelled (a measuring pass, one
// epoch's work at most, cannot).
func (s *Problem) Pass(r *solver.Run, repair bool) bool {
	if s.pass(r, repair) {
		return false
	}
	r.Obj = s.PassObj
	if s.met() || !repair {
		return s.met()
	}
	if s.byGap {
		s.wait = min(max(2*s.wait, 1), s.maxWait)
		s.skip = s.wait
	}
	for _, k := range s.viols {
		_, _, gain := s.step(s.cols[k])
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

// resetResidual recomputes r = y_c − X_c·w from scratch, removing the
// rounding drift of the incremental updates.
func (s *Problem) resetResidual() {
	copy(s.rs, s.yc)
	off := 0.0
	for _, j := range s.cols {
		if w := s.w[j]; w != 0 {
			idx, val := s.column(j)
			kernel.Axpy(-w, idx, val, s.rs)
			s.Ops += int64(len(idx))
			if s.intercept {
				off += float64(w * s.mu[j])
			}
		}
	}
	s.off = off
}

// pass is Pass without the repairs. It returns true if cancelled.
func (s *Problem) pass(r *solver.Run, poll bool) bool {
	s.resetResidual()
	rr := dot2(s.rs, s.off)
	ry := dotOff(s.rs, s.off, s.yc)
	obj := float64(0.5*rr) + float64(s.lam*s.l1())
	var viol, maxRho float64
	s.viols = s.viols[:0]
	for k, j := range s.cols {
		idx, val := s.column(j)
		rho := s.rho(j, idx, val)
		v := violation(s.w[j], rho, s.lam)
		viol = max(viol, v)
		maxRho = max(maxRho, math.Abs(rho))
		if v > s.eps {
			s.viols = append(s.viols, int32(k))
		}
		if poll && s.Ops >= s.checkAt {
			s.checkAt = s.Ops + s.poll
			if r.Poll() {
				s.Snap = false
				return true
			}
		}
	}
	s.PassViol = viol
	s.PassObj = obj
	s.PassGap = gap(obj, rr, ry, maxRho, s.lam)
	s.Snap = true
	return false
}

// l1 returns ‖w‖₁.
func (s *Problem) l1() float64 {
	var n compsum.Sum
	for _, j := range s.cols {
		n.Add(math.Abs(s.w[j]))
	}
	return n.Value()
}

// gap is the duality gap F − D(θ) for the objective F, ‖r‖², rᵀy_c and
// ‖X_cᵀr‖_∞, with the dual point θ = r·min(1, λ/‖X_cᵀr‖_∞).
func gap(obj, rr, ry, maxRho, lam float64) float64 {
	sc := 1.0
	if maxRho > lam {
		sc = lam / maxRho
	}
	return max(obj-(float64(sc*ry)-float64(0.5*sc*sc*rr)), 0)
}

// gapEstimate is the duality gap at the current w with ‖X_cᵀr‖_∞
// replaced by maxRho: O(ℓ+n) instead of a pass over the data.
func (s *Problem) gapEstimate(maxRho float64) float64 {
	rr := dot2(s.rs, s.off)
	ry := dotOff(s.rs, s.off, s.yc)
	return gap(float64(0.5*rr)+float64(s.lam*s.l1()), rr, ry, maxRho, s.lam)
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

// Model returns the current weights as a model: SolverType "LASSO", no
// labels, one weight vector, predicting w·x (+ b). Without an intercept
// Bias is −1; with one, Bias is 1 and the intercept b is the bias weight
// W[NumFeature].
func (s *Problem) Model() *model.Model {
	m := &model.Model{SolverType: "LASSO", NumFeature: s.nf, Bias: -1, NrW: 1}
	if !s.intercept {
		m.W = append([]float64(nil), s.w...)
		return m
	}
	m.Bias = 1
	m.W = make([]float64, s.nf+1)
	copy(m.W, s.w)
	var mw compsum.Sum
	for _, j := range s.cols {
		mw.Add(s.mu[j] * s.w[j])
	}
	m.W[s.nf] = s.ybar - mw.Value()
	return m
}
