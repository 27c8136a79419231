package l1

import (
	"math"
	"unsafe"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/rows"
	solver "github.com/acfcd/acfcd/solver"
)

// SVC is -s 5, the L1-regularised squared-hinge SVM,
//
//	F(w) = ‖w‖₁ + Σ_i C_i·max(0, b_i)²,  b_i = 1 − y_i wᵀx_i,
//
// by coordinate descent over features (solver.Problem), as liblinear's
// solve_l1r_l2_svc (Yuan et al. 2010): a step on feature j takes the
// one-dimensional Newton direction of F with the generalised second
// derivative H = 2 Σ_{b_i>0} C_i x_ij² and its soft threshold, then halves
// it until F decreases by at least σ times the model's decrease (Armijo).
// The step updates b and computes the exact change of the loss in one
// pass over the column, so that every step's gain, the exact decrease of
// F, is known (ACF adapts to it).
//
// The stopping rule is liblinear's on ‖∇^S F(w)‖₁ (package comment), with
// liblinear's ‖∇^S F(0)‖₁ for -s 5, the violations of the first sweep
// (EndBatch), certified by a full pass at the current w that recomputes b
// from w.
// Between passes the sum of the violations each coordinate had at its
// last step estimates it (Due), as liblinear's sweep sum does.
type SVC struct {
	sub
	b  []float64  // 1 − y_i wᵀx_i
	co []svcCoord // per coordinate

	pending  int32 // the coordinate of the next step, or −1 (Step's prefetch)
	eps      float64
	lastSum  float64     // Σ of the coordinates' last violations, kept step by step
	first    bool        // in the first batch
	firstSum compsum.Sum // the first batch's violations

	// The last full pass: ‖∇^S F(w)‖₁ and F(w) at the w it saw.
	PassViol, PassObj float64
	viols             []int32

	checkAt, poll int64
	scale         []float64 // GainScale

	// fewInside: few examples are inside the margin, at most
	// Tuning.SVCBranchInside of them, and the loops branch on it
	// (svcloop.go); set after every batch.
	fewInside    bool
	branchInside float64
	sinceCount   int // steps handed out since the last count
}

// svcCoord is what a step reads and writes of its coordinate, together
// in half a cache line: coordinates come in random order, and the step
// starts with this miss (prefetched, see Step).
type svcCoord struct {
	a, b int64   // its entries
	w    float64 // its weight
	last float64 // its violation at its last step
}

// Armijo's σ and the most halvings of a step, liblinear's.
const (
	sigma         = 0.01
	maxLineSearch = 20
)

// NewSVC returns an SVC for dt, reused by reset for each subproblem; unreg
// leaves the bias (if dt has one) out of the regulariser.
func NewSVC(dt *Data, unreg bool, drv *solver.Tuning, t *Tuning) *SVC {
	s := &SVC{sub: newSub(dt, unreg), b: make([]float64, dt.rows), co: make([]svcCoord, len(dt.cols)), poll: drv.PollWork}
	for k := range s.co {
		s.co[k].a, s.co[k].b = dt.starts[k], dt.starts[k+1]
	}
	s.scale = dt.gainScale(make([]float64, len(dt.cols)), nil, t.L1StepOps)
	s.branchInside = t.SVCBranchInside
	return s
}

// Reset starts the subproblem in which the examples labelled pos are
// positive with cost cp and the others negative with cost cn, at w = 0,
// with stopping tolerance eps (liblinear's -e). It returns F(0).
func (s *SVC) Reset(label []float64, pos, cp, cn, eps float64) float64 {
	s.reset(label, pos, cp, cn)
	for i := range s.b {
		s.b[i] = 1
	}
	for k := range s.co {
		s.co[k].w, s.co[k].last = 0, 0
	}
	s.pending = -1
	s.fewInside = false
	s.sinceCount = s.rows // count after the first batch
	s.eps = eps
	s.first = true
	s.lastSum = 0
	s.firstSum = compsum.Sum{}
	s.init, s.tol = math.Inf(1), math.Inf(1)
	s.PassViol, s.PassObj = math.NaN(), s.loss()
	s.checkAt = s.Ops + s.poll
	return s.PassObj
}

// EndBatch ends a batch (solver.BatchEnder). The first one is a sweep
// over all coordinates in every selection (ACF's warm-up), and as in
// liblinear the sum of its violations, each taken before its step, is
// ‖∇^S F(0)‖₁ of the stopping rule: liblinear's Gnorm1_init.
//
// It also chooses the form of the loops (fewInside), counting the examples
// inside the margin once the batches since the last count handed out a
// quarter as many steps as there are examples: the batches of acf+shrink
// can be much shorter than ℓ.
func (s *SVC) EndBatch(entries int, _ bool) float64 {
	if s.sinceCount += entries; 4*s.sinceCount >= s.rows {
		s.sinceCount = 0
		s.fewInside = float64(s.inside()) <= s.branchInside*float64(s.rows)
	}
	if s.first {
		s.first = false
		s.init = s.firstSum.Value()
		s.tol = s.eps * s.TolScale() * s.init
	}
	return 0
}

// Len is the number of coordinates.
func (s *SVC) Len() int { return len(s.co) }

// W returns the weights per feature (the bias last), valid until the next
// call.
func (s *SVC) W() []float64 { return s.features(func(k int) float64 { return s.co[k].w }) }

// GainScale weighs the gains that ACF sees by the cost of their steps
// (solver.StepCoster): a step reads its column, whose lengths differ by
// orders of magnitude in sparse data.
func (s *SVC) GainScale() []float64 { return s.scale }

// Step does the step on coordinate k (solver.Problem): it returns the
// violation before it and its gain, or shrinks a weight at 0 whose
// gradient is deep inside [−1, 1] (liblinear's shrinking, with th.Max its
// last sweep's largest violation). It prefetches the coordinate two steps
// ahead, and the column of the next, whose coordinate the last step
// prefetched.
func (s *SVC) Step(k, ahead int32, th solver.Thresholds) (viol, gain float64, shrink bool) {
	if p := s.pending; p >= 0 {
		c := &s.co[p]
		rows.PrefetchSpan(s.span(c.a, c.b))
	}
	if s.pending = ahead; ahead >= 0 {
		rows.PrefetchBytes(unsafe.Pointer(&s.co[ahead]), unsafe.Sizeof(svcCoord{}))
		rows.PrefetchBytes(unsafe.Pointer(&s.scale[ahead]), 8) // the driver's read of GainScale
	}
	c := &s.co[k]
	idx, val := s.span(c.a, c.b)
	free := k == s.free
	w := c.w
	var g, h float64
	if w == 0 && !free {
		// Most steps leave a weight at 0 there; only one that moves needs
		// the second derivative, in a second pass over the column.
		if g = s.slope(idx, val); shrinkable(g, th.Max, s.rows) {
			s.lastSum -= c.last
			c.last = 0
			return 0, 0, true
		}
		if math.Abs(g) > 1 {
			h = s.curvature(idx, val)
		}
	} else {
		g, h = s.grad(idx, val)
	}
	viol = violation(w, g, free)
	s.lastSum += viol - c.last
	c.last = viol
	if s.first {
		s.firstSum.Add(viol)
	}
	if viol == 0 {
		return 0, 0, false
	}
	return viol, s.newton(c, w, g, h, free), false
}

// newton does liblinear's step on coordinate c at w_c = w with loss
// derivatives g and h and returns its gain (0 if no step was taken).
func (s *SVC) newton(c *svcCoord, w, g, h float64, free bool) float64 {
	h = max(h, 1e-12)
	var d float64
	switch {
	case math.IsInf(h, 1):
		d = s.farDirection(c, w, g, free)
	case free:
		d = -g / h
	case g+1 < h*w:
		d = -(g + 1) / h
	case g-1 > h*w:
		d = -(g - 1) / h
	default:
		d = -w
	}
	if math.Abs(d) < 1e-12 && !farStep(d, h) {
		return 0
	}
	reg := func(d float64) float64 { // the change of the regulariser
		if free {
			return 0
		}
		return math.Abs(w+d) - math.Abs(w)
	}
	delta := reg(d) + float64(g*d)
	idx, val := s.span(c.a, c.b)
	applied, dl := 0.0, 0.0
	for range maxLineSearch {
		dl += s.move(idx, val, d-applied)
		applied = d
		if f := reg(d) + dl; f <= sigma*delta {
			c.w = w + d
			return -f
		}
		d *= 0.5
		delta *= 0.5
	}
	// No sufficient decrease within the halvings: undo.
	s.move(idx, val, -applied)
	return 0
}

// farDirection is newton's direction where h overflows (values of about
// 1e153): with h_σ of the column scaled by σ = 2⁻⁵¹², h = h_σ/σ², and the
// products by σ are exact, so the same cases are decided in finite terms.
func (s *SVC) farDirection(c *svcCoord, w, g float64, free bool) float64 {
	const sc = 0x1p-512
	idx, val := s.span(c.a, c.b)
	s.Ops += int64(len(idx))
	var hs float64
	for k, i := range idx {
		if s.b[i] > 0 {
			x := float64(val[k] * sc)
			hs += float64(float64(s.c(int(i))*x) * x)
		}
	}
	hs *= 2
	down := func(v float64) float64 { return float64(float64(v*sc) * sc) } // v·σ²
	switch {
	case free:
		return -down(g / hs)
	case down(g+1) < float64(hs*w):
		return -down((g + 1) / hs)
	case down(g-1) > float64(hs*w):
		return -down((g - 1) / hs)
	}
	return -w
}

// Due decides whether the batch makes the full pass worthwhile
// (solver.Trigger): the violations of every coordinate at its last step
// add up to at most the tolerance.
// The sum is kept up to date step by step (lastSum) and summed anew from
// the coordinates only when it is near the tolerance: the exact sum costs
// a read of every coordinate, a batch of acf+shrink may step on a few.
func (s *SVC) Due(float64) bool {
	if s.lastSum > 2*s.tol {
		return false
	}
	s.lastSum = s.estimate()
	return s.lastSum <= s.tol
}

// Estimate is the estimate of Due, relative as Relative.
func (s *SVC) Estimate() float64 { return s.Relative(s.estimate()) }

func (s *SVC) estimate() float64 {
	var n compsum.Sum
	for k := range s.co {
		n.Add(s.co[k].last)
	}
	return n.Value()
}

// loss returns Σ C_i max(0, b_i)².
func (s *SVC) loss() float64 {
	var n compsum.Sum
	for i, bi := range s.b {
		if bi > 0 {
			n.Add(s.c(i) * bi * bi)
		}
	}
	return n.Value()
}

// Objective is F(w) from b as it is.
func (s *SVC) Objective() float64 {
	var n compsum.Sum
	for k := range s.co {
		if int32(k) != s.free {
			n.Add(math.Abs(s.co[k].w))
		}
	}
	return s.loss() + n.Value()
}

// Pass is the full pass at the current w (solver.Problem): b and F are
// recomputed from w, then every coordinate's violation; it sets PassViol
// and PassObj and r.Obj, and reports whether ‖∇^S F(w)‖₁ ≤ tol. With
// repair, a failed pass steps on the coordinates whose violation exceeds
// their share tol/n of the tolerance.
func (s *SVC) Pass(r *solver.Run, repair bool) bool {
	if s.pass(r, repair) {
		return false
	}
	r.Obj = s.PassObj
	ok := s.PassViol <= s.tol
	if ok || !repair {
		return ok
	}
	for _, k := range s.viols {
		c := &s.co[k]
		g, h := s.grad(s.span(c.a, c.b))
		v := violation(c.w, g, k == s.free)
		s.lastSum += v - c.last
		c.last = v
		r.Repaired(k, s.newton(c, c.w, g, h, k == s.free))
		if s.Ops >= s.checkAt {
			s.checkAt = s.Ops + s.poll
			if r.Poll() {
				return false
			}
		}
	}
	return false
}

// pass is Pass without the repairs; it returns true if cancelled.
func (s *SVC) pass(r *solver.Run, poll bool) bool {
	for i := range s.b {
		s.b[i] = 1
	}
	for k := range s.co {
		if c := &s.co[k]; c.w != 0 {
			idx, val := s.span(c.a, c.b)
			for q, i := range idx {
				s.b[i] -= float64(c.w * val[q])
			}
			s.Ops += int64(len(idx))
		}
	}
	share := s.tol / float64(max(len(s.co), 1))
	var sum compsum.Sum
	s.viols = s.viols[:0]
	for k := range s.co {
		c := &s.co[k]
		v := violation(c.w, s.slope(s.span(c.a, c.b)), int32(k) == s.free)
		c.last = v
		sum.Add(v)
		if v > share {
			s.viols = append(s.viols, int32(k))
		}
		if poll && s.Ops >= s.checkAt {
			s.checkAt = s.Ops + s.poll
			if r.Poll() {
				return true
			}
		}
	}
	s.PassViol = sum.Value()
	s.lastSum = s.PassViol
	s.PassObj = s.Objective()
	return false
}
