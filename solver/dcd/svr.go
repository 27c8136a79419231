package dcd

import (
	"math"

	"github.com/acfcd/acfcd/internal/procs"
	solver "github.com/acfcd/acfcd/solver"
)

// SVR is the dual of L2-regularised support vector regression
// (liblinear's -s 12 and 13, solve_l2r_l1l2_svr; Ho & Lin 2012):
//
//	min_β f(β) = ½βᵀ(Q + λI)β + p‖β‖₁ − yᵀβ,  −U ≤ β_i ≤ U,  Q_ij = x_iᵀx_j
//
// with U = C, λ = 0 for the ε-insensitive loss (-s 13) and U = ∞,
// λ = 1/(2C) for the squared one (-s 12); p is the loss's ε and the
// labels are the targets y. w = Σ β_i x_i is kept up to date.
//
// liblinear stops when the sum of the violations over a sweep, each taken
// just before its step, is at most eps times that of its first sweep (a
// sweep over all examples in random order; here the driver's first batch,
// for every selection: the ACF warm-up). The problem certifies the
// 1-norm at one point instead: a full pass finds Σ_i |PG_i| ≤ Tol, half
// of that, as the SVMs certify max|PG_i| ≤ eps/2. Half, since after a
// random sweep an example's violation comes from the steps after its own,
// half a sweep's worth on average, where the one before its step comes
// from a whole sweep's.
type SVR struct {
	*Data
	W    []float64 // len NF+1; W[NF] is the bias weight
	Beta []float64
	C, P float64
	// Lambda is the diagonal λ, U the bound on |β_i|.
	Lambda, U float64
	// Tol is the 1-norm of the violations at one point that certifies
	// convergence, set by the first batch (−Inf before: nothing is).
	Tol float64
	eps float64

	// Ops counts the non-zeros touched by the steps and passes.
	Ops int64
	// PassViol, PassSum and PassPrimal are the largest violation, their
	// sum and the primal objective at the point of the last full pass.
	PassViol, PassSum, PassPrimal float64
	// Pool lends spare processors to the full passes.
	Pool *procs.Pool

	// Rule, where on, is the primal solver's rule the certified point
	// must meet too (primalrule.go).
	Rule PrimalRule
	// GapRule, where set, applies the hinge loss's gap rule (gap.go) to
	// the ε-insensitive loss (-s 13) with these constants.
	GapRule *Tuning

	gap  gapRule
	tol0 float64 // Tol before the gap rule lowered it (once gap.refused)

	tune        *solver.Tuning
	chunks      []solver.Chunk
	sums        []float64 // the pass's violation sums, one per chunk
	stepSum     float64   // Σ|PG| over the steps of the running batch
	lastStepSum float64   // and of the last batch
}

// NewSVR returns the SVR dual on sh (labels: the targets) at β = 0: l2 for
// the squared loss (-s 12), else the ε-insensitive loss (-s 13); p < 0
// counts as 0. eps is liblinear's relative tolerance. w, if not nil, is
// the weight vector to train in (len NF+1).
func NewSVR(sh *Data, l2 bool, C, p, eps float64, w []float64, pool *procs.Pool, t *solver.Tuning) *SVR {
	s := &SVR{Data: sh, C: C, P: max(p, 0), Pool: pool, tune: t}
	if l2 {
		s.Lambda, s.U = 0.5/C, math.Inf(1)
	} else {
		s.U = C
	}
	if w == nil {
		w = make([]float64, sh.NF+1)
	}
	clear(w)
	s.W = w
	s.Beta = make([]float64, sh.N)
	s.eps, s.Tol = eps, math.Inf(-1)
	return s
}

// Len is the number of examples.
func (s *SVR) Len() int { return s.N }

// shrinkLevel is liblinear's Gmax_old from the driver's thresholds: the
// largest violation of the last sweep (+Inf: shrink nothing).
func shrinkLevel(th solver.Thresholds) float64 {
	m := math.Inf(1)
	if !math.IsInf(th.Max, 1) {
		m = th.Max
	}
	if !math.IsInf(th.Min, -1) && (math.IsInf(m, 1) || -th.Min > m) {
		m = -th.Min
	}
	return m
}

// Step does one exact coordinate step (solver.Problem). The signed
// projected gradient is that of f with the subgradient of p|β_i| of least
// magnitude: negative when β_i should grow.
func (s *SVR) Step(i, ahead int32, th solver.Thresholds) (pg, gain float64, shrink bool) {
	if ahead >= 0 {
		s.Prefetch(ahead)
	}
	b := s.Beta[i]
	G := s.Dot(i, s.W, &s.Ops) - s.Label[i] + float64(s.Lambda*b)
	Gp, Gn := G+s.P, G-s.P
	switch {
	case b == 0:
		switch {
		case Gp < 0:
			pg = Gp
		case Gn > 0:
			pg = Gn
		default:
			if m := shrinkLevel(th); Gp > m && Gn < -m {
				return 0, 0, true
			}
			return 0, 0, false // optimal at 0: no move
		}
	case b >= s.U:
		if Gp < -shrinkLevel(th) {
			return 0, 0, true
		}
		pg = max(Gp, 0)
	case b <= -s.U:
		if Gn > shrinkLevel(th) {
			return 0, 0, true
		}
		pg = min(Gn, 0)
	case b > 0:
		pg = Gp
	default:
		pg = Gn
	}
	s.stepSum += math.Abs(pg)
	return pg, s.move(i, b, G), false
}

// move does the exact minimisation over β_i (liblinear's Newton direction
// of the piecewise quadratic, clipped to the box) given the smooth part's
// gradient G at β_i = b, and returns the decrease of f.
func (s *SVR) move(i int32, b, G float64) float64 {
	H := s.Qii(i) + s.Lambda
	Gp, Gn := G+s.P, G-s.P
	var d float64
	switch {
	case Gp < H*b:
		d = -Gp / H // H = 0 (-s 13, empty row): ±Inf, clipped to the bound
	case Gn > H*b:
		d = -Gn / H
	default:
		d = -b
	}
	if math.Abs(d) < pgZero && (H <= farQ || math.Abs(float64(d*H)) < pgZero) {
		return 0
	}
	nb := min(max(b+d, -s.U), s.U)
	d = nb - b
	if d == 0 {
		return 0
	}
	s.Beta[i] = nb
	s.Axpy(d, i, s.W, &s.Ops)
	return -(float64(G*d) + float64(0.5*H*d*d)) - float64(s.P*(math.Abs(nb)-math.Abs(b)))
}

// farQ is the Q_ii beyond which liblinear's cut of steps |d| < pgZero is
// taken on the change d·Q_ii of the margin instead: there the cut drops
// the steps of violations up to 10⁶, and at values of 1e150 (β_i about
// 1/Q_ii) every step. Raw data such as cpusmall's (Q_ii ≤ 8e12) keep it.
const farQ = 0x1p60

// EndBatch keeps the batch's sum of violations for Due; the first sets
// Tol.
func (s *SVR) EndBatch(int, bool) float64 {
	s.lastStepSum, s.stepSum = s.stepSum, 0
	if math.IsInf(s.Tol, -1) {
		s.Tol = 0.5 * s.eps * s.lastStepSum
	}
	return 0
}

// Due says when the certifying pass is worth running: when the violations
// the last batch's steps saw sum to at most 2·Tol, liblinear's test on its
// sweep.
func (s *SVR) Due(float64) bool {
	if s.gap.spent(s.Ops) {
		s.Tol = s.tol0
	}
	return s.lastStepSum <= 2*s.Tol
}

// tighten is the gap rule of the ε-insensitive loss (Problem.tighten):
// max(|wᵀx_i − y_i| − p, 0) is the hinge loss's shape on both sides, and
// the certified 1-norm of the violations bounds its primal as loosely.
func (s *SVR) tighten() bool {
	if s.GapRule == nil || s.Lambda != 0 {
		return false
	}
	first := !s.gap.refused()
	f, ok := s.gap.refuse(s.GapRule, s.PassPrimal, -s.Objective(), s.Ops)
	if !ok {
		return false
	}
	if first {
		s.tol0 = s.Tol
	}
	s.Tol *= f
	return true
}

// Tightening reports whether the gap rule has refused a point that
// certified something and is still spending (Problem.Tightening).
func (s *SVR) Tightening() bool { return s.gap.active() }

// Violation returns example i's violation |PG_i| given wx = wᵀx_i.
func (s *SVR) Violation(i int32, wx float64) float64 {
	v, _, _ := s.eval(i, wx)
	return v
}

// eval returns example i's violation |PG_i| and its primal loss given
// wx = wᵀx_i, and its gradient G of the smooth part.
func (s *SVR) eval(i int32, wx float64) (viol, loss, G float64) {
	b := s.Beta[i]
	G = wx - s.Label[i] + float64(s.Lambda*b)
	Gp, Gn := G+s.P, G-s.P
	switch {
	case b == 0:
		viol = max(-Gp, Gn, 0)
	case b >= s.U:
		viol = max(Gp, 0)
	case b <= -s.U:
		viol = max(-Gn, 0)
	case b > 0:
		viol = math.Abs(Gp)
	default:
		viol = math.Abs(Gn)
	}
	if e := math.Abs(wx-s.Label[i]) - s.P; e > 0 {
		if s.Lambda > 0 {
			loss = float64(float64(s.C*e) * e) // liblinear's C·max(0, |wᵀx − y| − p)²
		} else {
			loss = float64(s.C * e)
		}
	}
	return viol, loss, G
}

// Pass scans every example at the current point (solver.Problem), in
// chunks on the spare processors, and reports whether the violations sum
// to at most Tol. With repair, a pass that fails then steps, in storage
// order, on each example whose violation is above the mean, and tells r
// of each.
func (s *SVR) Pass(r *solver.Run, repair bool) bool {
	size := s.tune.KKTChunkRows
	nch := (s.N + size - 1) / size
	if cap(s.sums) < nch {
		s.sums = make([]float64, nch)
	}
	sums := s.sums[:nch]
	viol, loss, ops, _ := solver.RowPass(s.tune, s.Pool, &s.chunks, s.N, s.RP[s.N],
		func(bool) func(lo, hi int) solver.Chunk {
			return func(lo, hi int) solver.Chunk {
				c := solver.Chunk{Stop: -1}
				var sum float64
				for i := lo; i < hi; i++ {
					v, l, _ := s.eval(int32(i), s.Dot(int32(i), s.W, &c.Ops))
					c.Viol = max(c.Viol, v)
					c.Loss += l
					sum += v
				}
				sums[lo/size] = sum
				return c
			}
		}, func(int, *float64, *float64) {})
	s.Ops += ops
	var sum float64
	for _, v := range sums {
		sum += v
	}
	s.PassViol, s.PassSum, s.PassPrimal = viol, sum, solver.Primal(s.W, loss)
	tol := s.Tol
	if !repair && s.gap.refused() {
		tol = s.tol0 // a run stopped after the gap rule is judged at the Tol it was given
	}
	ok := sum <= tol
	if ok && repair && (s.tighten() || s.primalRefuses()) {
		return false
	}
	if ok || !repair {
		return ok
	}
	mean := sum / float64(s.N)
	for i := range s.N {
		i := int32(i)
		v, _, G := s.eval(i, s.Dot(i, s.W, &s.Ops))
		if v > mean {
			r.Repaired(i, s.move(i, s.Beta[i], G))
		}
	}
	return false
}

// Objective is f(β) as liblinear prints it:
// ½‖w‖² + Σ (p|β_i| − y_iβ_i + ½λβ_i²).
func (s *SVR) Objective() float64 {
	var ww float64
	for _, v := range s.W {
		ww += float64(v * v)
	}
	v := 0.5 * ww
	for i, b := range s.Beta {
		v += float64(s.P*math.Abs(b)) - float64(s.Label[i]*b) + float64(0.5*s.Lambda*b*b)
	}
	return v
}

// SupportVectors counts the β_i ≠ 0 (liblinear's nSV).
func (s *SVR) SupportVectors() int {
	n := 0
	for _, b := range s.Beta {
		if b != 0 {
			n++
		}
	}
	return n
}

// NearDone reports whether the last batch's violations summed to at most
// near times liblinear's test (2·Tol): a dual that is nearly done, for
// which a finisher would cost more than its last epochs.
func (s *SVR) NearDone(near float64) bool { return s.lastStepSum <= near*2*s.Tol }
