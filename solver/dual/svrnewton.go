package dual

import (
	"math"

	"github.com/acfcd/acfcd/internal/compsum"
	solver "github.com/acfcd/acfcd/solver"
)

// The squared-loss SVR (-s 12) at large C on data with few features is a
// badly conditioned dual that coordinate descent crawls on, while its
// primal
//
//	P(w) = ½‖w‖² + C Σ_i (|wᵀx_i − y_i| − p)₊²
//
// is piecewise quadratic in d + 1 weights: a few exact Newton steps solve
// it. liblinear 2.50 switches its -s 12 to its primal solver after 300
// epochs; here the switch is decided by cost (NewtonBudget), and the dual
// point of the primal answer is certified by the dual's own full pass.

// NewtonBudget returns the operations after which the dual of -s 12
// should hand over to Newton (the switch rule of the -s 1 finisher: the
// estimated cost of NewtonGuessIters Newton steps, in dual operations), or
// 0 when it never should: the ε-insensitive loss, or more than
// NewtonDenseMax weights.
func (s *SVR) NewtonBudget() int64 {
	t := s.tune
	dim := int64(s.NF + 1)
	if s.Lambda == 0 || dim > int64(t.NewtonDenseMax) {
		return 0
	}
	var outer int64
	for i := range s.N {
		k := s.RP[i+1] - s.RP[i]
		if s.Bias != 0 {
			k++
		}
		outer += k * (k + 1) / 2
	}
	ops := t.NewtonGuessIters * (4*s.NNZ() + outer + dim*dim*dim/6)
	if t.SwitchOps > 0 {
		return t.SwitchOps
	}
	return int64(float64(ops) * t.NewtonOpsSVM)
}

// svrNewton is the buffers of the primal Newton method.
type svrNewton struct {
	dim      int
	h        []float64 // dim×dim: the Hessian, then its Cholesky factor
	g, step  []float64
	r, z     []float64 // residuals wᵀx_i − y_i and Xs
	scale    []float64 // 1/√H_jj: the Hessian is factored equilibrated
	beta, w0 []float64 // the dual point at the switch, for a rollback
	wN       []float64 // Newton's answer, its primal objective and ‖∇P‖
	pN, gN   float64
	g0       float64 // ‖∇P(0)‖
}

// Newton minimises the primal of -s 12 from the current w by Newton steps
// with an exact line search, then sets the dual point of its answer,
// β_i = −2C·sign(r_i)·(|r_i| − p)₊ with r_i = wᵀx_i − y_i, and w = Σ β_i x_i,
// and r.Obj. If that dual point is worse than the one at the switch, the
// dual goes back to it. It returns the Newton steps taken; it stops early
// when r is cancelled.
func (s *SVR) Newton(r *solver.Run) int {
	dim := s.NF + 1
	nt := s.nt
	if nt == nil {
		nt = &svrNewton{dim: dim, h: make([]float64, dim*dim), g: make([]float64, dim), step: make([]float64, dim),
			r: make([]float64, s.N), z: make([]float64, s.N), scale: make([]float64, dim)}
		s.nt = nt
	}
	nt.beta = append(nt.beta[:0], s.Beta...)
	nt.w0 = append(nt.w0[:0], s.W...)
	before := s.Objective()
	w := s.W
	C2 := 2 * s.C
	steps := 0
	for steps < s.tune.NewtonMaxIter && !r.Poll() {
		// Residuals, gradient w + 2C Σ_I (r_i − sign(r_i)p) x_i and the
		// generalised Hessian I + 2C Σ_I x_i x_iᵀ over I = {|r_i| > p}.
		copy(nt.g, w)
		clear(nt.h)
		var P float64 // the primal objective at w
		for i := range s.N {
			i := int32(i)
			ri := s.dot(i, w, &s.Ops) - s.Label[i]
			nt.r[i] = ri
			if e := math.Abs(ri) - s.P; e > 0 {
				P += float64(s.C * e * e)
				s.axpy(C2*math.Copysign(e, ri), i, nt.g, &s.Ops)
				s.addOuter(nt, i, C2)
			}
		}
		for _, v := range w {
			P += float64(0.5 * v * v)
		}
		for j := range dim {
			nt.h[j*dim+j]++
		}
		if !nt.cholesky(&s.Ops) {
			break
		}
		nt.solve()
		var gs float64
		for j := range dim {
			gs += float64(nt.g[j] * nt.step[j])
		}
		// −gᵀs/2 is the decrease a Newton step predicts: at the rounding
		// level of P, stop.
		if !(gs < 0) || -gs <= 1e-15*P {
			break
		}
		for i := range s.N {
			nt.z[i] = s.dot(int32(i), nt.step, &s.Ops)
		}
		t := s.lineSearch(nt)
		for j := range dim {
			w[j] += float64(t * nt.step[j])
		}
		steps++
		if t == 1 && -gs <= 1e-12*P {
			break
		}
	}
	// The dual point of w (and the primal and its gradient there), and w
	// rebuilt from it.
	nt.wN = append(nt.wN[:0], w...)
	nt.pN = 0
	copy(nt.g, w)
	for i := range s.N {
		i := int32(i)
		ri := s.dot(i, w, &s.Ops) - s.Label[i]
		s.Beta[i] = 0
		if e := math.Abs(ri) - s.P; e > 0 {
			nt.pN += float64(s.C * e * e)
			s.Beta[i] = -C2 * math.Copysign(e, ri)
			s.axpy(-s.Beta[i], i, nt.g, &s.Ops)
		}
	}
	for _, v := range w {
		nt.pN += float64(0.5 * v * v)
	}
	nt.gN = norm(nt.g)
	if nt.g0 == 0 {
		// ∇P(0) = −2C Σ sign(y_i)(|y_i| − p)₊ x_i.
		clear(nt.g)
		for i, y := range s.Label {
			if e := math.Abs(y) - s.P; e > 0 {
				s.axpy(-C2*math.Copysign(e, y), int32(i), nt.g, &s.Ops)
			}
		}
		nt.g0 = norm(nt.g)
	}
	// w = Σ β_i x_i summed with compensation: on data of large values
	// (raw counts of 10⁶) plain sums lose digits that the residuals, and so
	// the primal objective, amplify.
	sums := make([]compsum.Sum, dim)
	for i, b := range s.Beta {
		if b == 0 {
			continue
		}
		for k := s.RP[i]; k < s.RP[i+1]; k++ {
			sums[s.Idx[k]].Add(float64(b * s.Value(k)))
		}
		sums[s.NF].Add(float64(b * s.Bias))
		s.Ops += s.RP[i+1] - s.RP[i]
	}
	for j := range w {
		w[j] = sums[j].Value()
	}
	if after := s.Objective(); !(after <= before) {
		copy(s.Beta, nt.beta)
		copy(s.W, nt.w0)
		r.Obj = before
		return steps
	}
	r.Obj = s.Objective()
	return steps
}

// NewtonPoint returns the w of the last Newton run and its primal
// objective, or nil. On badly conditioned data it can be better in the
// primal than the dual's w = Σ β_i x_i rebuilt from it: w moves by the
// primal gradient there, whose tiny size the Hessian's largest
// eigenvalues magnify. Any w with any dual point bounds the gap.
func (s *SVR) NewtonPoint() (w []float64, primal float64) {
	if s.nt == nil || s.nt.wN == nil {
		return nil, math.Inf(1)
	}
	return s.nt.wN, s.nt.pN
}

// NewtonConverged reports whether the last Newton run met liblinear's
// stopping rule for the primal solver it switches -s 12 to:
// ‖∇P(w)‖ ≤ 0.001·eps·‖∇P(0)‖. On badly scaled data the dual's own rule
// can lie below what rounding lets w = Σ β_i x_i reach.
func (s *SVR) NewtonConverged() bool {
	nt := s.nt
	return nt != nil && nt.wN != nil && nt.gN <= 0.001*s.eps*nt.g0
}

func norm(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += float64(x * x)
	}
	return math.Sqrt(s)
}

// lineSearch minimises P(w + t·s) over t ≥ 0, a convex piecewise quadratic,
// by Newton's method on its derivative from t = 1 (exact within a few
// iterations once the active set stops changing), safeguarded by
// bisection on [0, t_max].
func (s *SVR) lineSearch(nt *svrNewton) float64 {
	var ws, ss float64
	for j := range nt.step {
		ws += float64(s.W[j] * nt.step[j])
		ss += float64(nt.step[j] * nt.step[j])
	}
	C2 := 2 * s.C
	deriv := func(t float64) (d1, d2 float64) {
		d1, d2 = ws+float64(t*ss), ss
		for i, ri := range nt.r {
			zi := nt.z[i]
			v := ri + float64(t*zi)
			if e := math.Abs(v) - s.P; e > 0 {
				d1 += float64(C2 * math.Copysign(e, v) * zi)
				d2 += float64(C2 * zi * zi)
			}
		}
		return d1, d2
	}
	lo, hi := 0.0, math.Inf(1)
	t := 1.0
	for range 50 {
		d1, d2 := deriv(t)
		if d1 == 0 {
			return t
		}
		if d1 > 0 {
			hi = t
		} else {
			lo = t
		}
		next := t - d1/d2
		if !(next > lo && next < hi) {
			if math.IsInf(hi, 1) {
				next = 2 * t
			} else {
				next = 0.5 * (lo + hi)
			}
		}
		if math.Abs(next-t) <= 1e-12*t {
			return next
		}
		t = next
	}
	return t
}

// addOuter adds c·x_i x_iᵀ (bias included) to the upper triangle of the
// Hessian, counting its multiply-adds.
func (s *SVR) addOuter(nt *svrNewton, i int32, c float64) {
	dim, h := nt.dim, nt.h
	a, b := s.RP[i], s.RP[i+1]
	k := b - a
	s.Ops += k * (k + 1) / 2
	for p := a; p < b; p++ {
		jp := int(s.Idx[p])
		vp := c * s.Value(p)
		for q := p; q < b; q++ {
			jq := int(s.Idx[q])
			lo, up := min(jp, jq), max(jp, jq)
			h[lo*dim+up] += float64(vp * s.Value(q))
		}
		if s.Bias != 0 {
			h[jp*dim+s.NF] += float64(vp * s.Bias)
		}
	}
	if s.Bias != 0 {
		h[s.NF*dim+s.NF] += float64(c * s.Bias * s.Bias)
	}
}

// cholesky factors the Hessian H, given in its upper triangle, scaled
// to unit diagonal (SHS with S = diag(1/√H_jj): features of very
// different scales, such as raw counts next to fractions, otherwise leave
// it numerically singular), as LLᵀ with L in the lower triangle; false if
// it is not numerically positive definite.
func (nt *svrNewton) cholesky(ops *int64) bool {
	dim, h := nt.dim, nt.h
	for j := range dim {
		nt.scale[j] = 1 / math.Sqrt(h[j*dim+j])
	}
	for j := range dim {
		for k := j; k < dim; k++ {
			v := float64(h[j*dim+k]*nt.scale[j]) * nt.scale[k]
			h[j*dim+k], h[k*dim+j] = v, v
		}
	}
	for j := range dim {
		rj := h[j*dim : j*dim+j+1]
		d := rj[j]
		for q := range j {
			d -= float64(rj[q] * rj[q])
		}
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		rj[j] = d
		for k := j + 1; k < dim; k++ {
			rk := h[k*dim : k*dim+j+1]
			v := rk[j]
			for q := range j {
				v -= float64(rk[q] * rj[q])
			}
			rk[j] = v / d
		}
	}
	*ops += int64(dim) * int64(dim) * int64(dim) / 6
	return true
}

// solve sets step = −H⁻¹g = −S(SHS)⁻¹Sg from the Cholesky factor.
func (nt *svrNewton) solve() {
	dim, h, x := nt.dim, nt.h, nt.step
	for j := range dim {
		v := -float64(nt.g[j] * nt.scale[j])
		for q := range j {
			v -= float64(h[j*dim+q] * x[q])
		}
		x[j] = v / h[j*dim+j]
	}
	for j := dim - 1; j >= 0; j-- {
		v := x[j]
		for k := j + 1; k < dim; k++ {
			v -= float64(h[k*dim+j] * x[k])
		}
		x[j] = v / h[j*dim+j]
	}
	for j := range dim {
		x[j] *= nt.scale[j]
	}
}
