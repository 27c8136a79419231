package primal

import (
	"math"

	"github.com/acfcd/acfcd/internal/dense"
	"github.com/acfcd/acfcd/internal/fmath"
)

// Stop decides whether a method ends at its current iterate, given with
// a fresh gradient: iter is the number of steps taken, f the objective
// and gnorm ‖∇f‖. It is the place for progress reports too.
type Stop func(iter int, f, gnorm float64) bool

// Newton minimises f from W by exact Newton steps (d+1 ≤
// Tuning.NewtonDenseMax): each solves H s = −∇f by Cholesky and takes
// the step t along s that lineSearch finds. It stops when stop says so,
// after maxIter steps, when a step decreases f by at most minRel·|f|
// (minRel > 0), when the line search fails, when the gradient stalls at
// f's rounding level (twice no measurable decrease of f with ‖∇f‖ not
// halved), or on cancellation. It returns the steps taken, and false for
// ok if the Cholesky factorisation failed (H not numerically positive
// definite: the caller may go on with NewtonCG from W).
func (p *Problem) Newton(maxIter int, minRel float64, stop Stop) (steps int, ok bool) {
	if p.Trace != nil {
		p.Trace("newton: dense, dim %d, %d examples", p.Dim(), p.N)
	}
	p.kept, p.hscale = false, 0
	p.SetMargins()
	ww := p.reg(p.W, p.W)
	fval := float64(0.5*ww) + p.lossAt(0)
	if p.RayMax > 0 && ww > 0 && !p.FreeBias && p.Loss == Logistic {
		ww, fval = p.rayScale(ww, fval)
	}
	prev := math.Inf(1) // ‖∇f‖ at the last step
	stalled := 0
	for {
		if p.poll(true) {
			return steps, true
		}
		gnorm := p.SetGradient()
		if stop != nil && stop(steps, fval, gnorm) {
			if p.Polish && steps > 0 && steps < maxIter {
				if f, g, ok := p.chord(ww, fval, gnorm); ok {
					if stop(steps+1, f, g) {
						return steps + 1, true
					}
					p.unchord()
					stop(steps, fval, gnorm)
				}
			}
			return steps, true
		}
		if steps >= maxIter {
			return steps, true
		}
		if gnorm > 0.5*prev {
			if stalled++; stalled >= 2 {
				return steps, true
			}
		}
		if !p.factor() {
			return steps, p.cancelled
		}
		dense.CholSolve(p.h, p.Dim(), -p.hessScale(), p.g, p.s)
		gs := dense.Dot(p.g, p.s)
		if !(gs < 0) {
			return steps, true
		}
		p.rowProducts(p.s, p.xs, false)
		ws, ss := p.reg(p.W, p.s), p.reg(p.s, p.s)
		t, fNew, accepted := p.lineSearch(ww, ws, ss, fval, gs, steps > 0)
		steps++
		if !accepted {
			return steps, true
		}
		for j := range p.W {
			p.W[j] += float64(t * p.s[j])
		}
		for i := range p.z {
			p.z[i] += float64(t * p.xs[i])
		}
		ww = p.reg(p.W, p.W)
		if p.Trace != nil {
			p.Trace("newton %d: f=%.12g |g|=%.4g step %.4g ops=%d", steps, fNew, gnorm, t, p.Ops)
		}
		dec := fval - fNew
		fval = fNew
		if minRel > 0 && dec <= minRel*math.Abs(fval) {
			return steps, true
		}
		// The stall count runs only while f no longer measurably falls.
		prev, stalled = math.Inf(1), 0
		if dec <= noise*math.Abs(fval) {
			prev = gnorm
		}
	}
}

// chord takes one more step from W, whose gradient (norm gnorm, f(W) =
// fval, ‖w‖² = ww) is fresh, along the Cholesky factor of the last
// Hessian still in h: no Hessian is formed, and near the optimum the step
// is nearly Newton's. If the step decreases f it returns f and ‖∇f‖ at
// the new W (the caller keeps it if its stopping rule still holds, or
// takes it back by unchord); otherwise W is unchanged.
func (p *Problem) chord(ww, fval, gnorm float64) (fNew, gNew float64, ok bool) {
	dim := p.Dim()
	dense.CholSolve(p.h, dim, -p.hessScale(), p.g, p.s)
	gs := dense.Dot(p.g, p.s)
	if !(gs < 0) {
		return 0, 0, false
	}
	p.rowProducts(p.s, p.xs, false)
	ws, ss := p.reg(p.W, p.s), p.reg(p.s, p.s)
	t, fNew, accepted := p.lineSearch(ww, ws, ss, fval, gs, true)
	if !accepted || !(fNew < fval) {
		return 0, 0, false
	}
	if len(p.zsave) < p.N {
		p.zsave = make([]float64, p.N)
		p.wsave = make([]float64, 2*dim)
	}
	copy(p.wsave[:dim], p.W)
	copy(p.wsave[dim:], p.g)
	copy(p.zsave, p.z)
	for j := range p.W {
		p.W[j] += float64(t * p.s[j])
	}
	for i := range p.z {
		p.z[i] += float64(t * p.xs[i])
	}
	gNew = p.SetGradient()
	if p.Trace != nil {
		p.Trace("newton chord: f=%.12g |g|=%.4g → %.4g step %.4g ops=%d", fNew, gnorm, gNew, t, p.Ops)
	}
	return fNew, gNew, true
}

// unchord takes back chord's step: W, the margins and ∇f as before it.
func (p *Problem) unchord() {
	dim := p.Dim()
	copy(p.W, p.wsave[:dim])
	copy(p.g, p.wsave[dim:2*dim])
	copy(p.z, p.zsave)
}

// slopeTol: the line search ends once |φ'(t)| ≤ slopeTol·|φ'(0)| (the
// minimiser along s to within a few percent is as good a step).
const slopeTol = 0.05

// noise is the relative rounding of f that a line search tolerates: a
// sum of n losses is rounded to about √n·2⁻⁵³ of itself, and near the
// optimum a Newton step lowers f by less than that.
const noise = 1e-12

// lineSearch returns the step t along s, given ‖w‖², wᵀs and ‖s‖² over
// the regularised weights, f(w) and φ'(0) = ∇fᵀs < 0 for φ(t) =
// f(w + ts), and f(w + ts); ok is false if no step decreases f by
// 0.01·t·∇fᵀs (Armijo) up to f's rounding (noise).
//
// If Armijo rejects the full step, the step is the minimiser of φ in
// (0, 1): Armijo's halving took down to 2⁻¹¹ on separable data at large C
// (mushrooms -s 2, C = 1000: 31 Newton steps, now 18), each a wasted
// Hessian. If it accepts it, the squared losses take it; the logistic
// loss, whose Newton steps fall short far from the optimum at large C,
// goes on to the minimiser beyond 1 with longer (but from w = 0, where
// that overshoots: mushrooms, a9a and w8a at C = 1, 100, 1000 took 20–45%
// fewer Newton steps). φ' is increasing (f is convex), and piecewise
// linear for the squared losses, so its root is found by Newton's method
// on φ' within a bracket (bisection when a step leaves it), one pass over
// the margins per iteration. Armijo's halving remains the fallback.
//
// With Lean (the logistic loss), if Armijo rejects t = 1, the points
// after it evaluate only the derivatives of φ (no logarithm per example)
// and f once, at the last: the first Newton steps from a poor start take
// 5 to 9 trials.
func (p *Problem) lineSearch(ww, ws, ss, fval, gs float64, longer bool) (t, fNew float64, ok bool) {
	tol := float64(noise * math.Abs(fval))
	slopeOnly := false
	at := func(t float64) (f, d1, d2 float64) {
		loss, l1, l2 := p.along(t, !slopeOnly)
		f = float64(0.5*(ww+float64(2*t*ws)+float64(t*t*ss))) + loss
		return f, l1 + ws + float64(t*ss), l2 + ss
	}
	armijoOK := func(t, f float64) bool { return f <= fval+float64(armijo*t*gs)+tol }
	t = 1
	fNew, d1, d2 := at(1)
	lo, hi := 0.0, 1.0
	if armijoOK(1, fNew) {
		if p.Loss != Logistic || !longer || fval-fNew <= tol || d1 >= 0 {
			return 1, fNew, true
		}
		lo, hi = 1, math.Inf(1)
	}
	best, fBest := 0.0, fval // the best point Armijo accepts
	if armijoOK(1, fNew) {
		best, fBest = 1, fNew
	}
	// Past an accepted t = 1 the minimiser is mostly one trial away, and
	// the final f would cost more than the logarithms saved.
	slopeOnly = p.Lean && p.Loss == Logistic && best == 0
	moved := false
	for range 50 {
		if math.Abs(d1) <= slopeTol*math.Abs(gs) {
			break
		}
		if d1 < 0 {
			lo = t
		} else {
			hi = t
		}
		next := t - d1/d2
		if !(d2 > 0) || !(next > lo && next < hi) {
			next = 2 * t
			if !math.IsInf(hi, 1) {
				next = 0.5 * (lo + hi)
			}
		}
		if math.Abs(next-t) <= 1e-14*t {
			break
		}
		t = next
		fNew, d1, d2 = at(t)
		moved = true
		if !slopeOnly && armijoOK(t, fNew) && fNew < fBest {
			best, fBest = t, fNew
		}
	}
	if slopeOnly {
		slopeOnly = false
		if moved {
			fNew = float64(0.5*(ww+float64(2*t*ws)+float64(t*t*ss))) + p.lossAt(t)
			if armijoOK(t, fNew) && fNew < fBest {
				best, fBest = t, fNew
			}
		}
	}
	if best > 0 {
		return best, fBest, true
	}
	t = 0.5
	for range 30 {
		fNew, _, _ = at(t)
		if armijoOK(t, fNew) {
			return t, fNew, true
		}
		t *= 0.5
	}
	return t, fNew, false
}

// along returns the loss at the margins z + t·xs and its first and
// second derivatives in t, summed by part.
func (p *Problem) along(t float64, withLoss bool) (loss, d1, d2 float64) {
	np := p.parts()
	if cap(p.sums) < 3*np {
		p.sums = make([]float64, 3*np)
	}
	sums := p.sums[:3*np]
	p.forParts(func(k, lo, hi int) {
		var f, a, b float64
		z, xs := p.z[lo:hi], p.xs[lo:hi]
		xs = xs[:len(z)]
		switch p.Loss {
		case SquaredHinge:
			for i, zi := range z {
				if h := 1 - (zi + float64(t*xs[i])); h > 0 {
					ci := p.C(lo + i)
					c := 2 * ci * xs[i]
					f += float64(ci * h * h)
					a -= float64(c * h)
					b += float64(c * xs[i])
				}
			}
		case Logistic:
			if !withLoss {
				for i, zi := range z {
					m := zi + float64(t*xs[i])
					e := fmath.Exp(-math.Abs(m))
					sNeg := 1 / (1 + e) // σ(−m)
					if m >= 0 {
						sNeg = e / (1 + e)
					}
					c := p.C(lo+i) * xs[i]
					a -= float64(c * sNeg)
					b += float64(c * xs[i] * e / ((1 + e) * (1 + e)))
				}
				break
			}
			for i, zi := range z {
				m := zi + float64(t*xs[i])
				e := fmath.Exp(-math.Abs(m))
				sNeg := 1 / (1 + e) // σ(−m)
				l := fmath.Log1p(e) // log(1 + e^{−m}) = max(−m, 0) + log(1 + e^{−|m|})
				if m >= 0 {
					sNeg = e / (1 + e)
				} else {
					l -= m
				}
				ci := p.C(lo + i)
				c := ci * xs[i]
				f += float64(ci * l)
				a -= float64(c * sNeg)
				b += float64(c * xs[i] * e / ((1 + e) * (1 + e)))
			}
		case SquaredTube:
			ci := p.Cost[0]
			c := 2 * ci
			for i, r := range z {
				m := r + float64(t*xs[i])
				if e := math.Abs(m) - p.P; e > 0 {
					f += float64(ci * e * e)
					a += float64(math.Copysign(c*e, m) * xs[i])
					b += float64(c * xs[i] * xs[i])
				}
			}
		}
		sums[3*k], sums[3*k+1], sums[3*k+2] = f, a, b
	})
	for k := range np {
		loss += sums[3*k]
		d1 += sums[3*k+1]
		d2 += sums[3*k+2]
	}
	return loss, d1, d2
}

// rayScale moves W to βW, the minimiser of f along the ray through W,
// when β ≤ RayMax: after one dual epoch at large C, W is several times too
// long, and a Newton step from there is mostly cut back by the line
// search (w8a, C = 100 and 1000: t = 0.05 and 0.014). It returns ‖W‖²
// and f at the point kept. With φ(t) = f((1 − t)W): one pass over the
// margins if β > RayMax, otherwise Newton's method on φ' within the
// bracket (1 − RayMax, 1), as lineSearch, and f at its end.
func (p *Problem) rayScale(ww, fval float64) (float64, float64) {
	for i, z := range p.z {
		p.xs[i] = -z // the margins of the direction −W
	}
	slope := func(t float64) (d1, d2 float64) {
		_, l1, l2 := p.along(t, false)
		return l1 - ww + float64(t*ww), l2 + ww
	}
	// φ' is increasing: φ'(1 − RayMax) < 0 tells that β ≤ RayMax, and
	// otherwise one pass is all the test costs.
	t := 1 - p.RayMax
	d1, d2 := slope(t)
	if !(d1 < 0) {
		return ww, fval
	}
	lo, hi, ref := t, 1.0, math.Abs(d1)
	for range 50 {
		if math.Abs(d1) <= slopeTol*ref {
			break
		}
		if d1 < 0 {
			lo = t
		} else {
			hi = t
		}
		next := t - d1/d2
		if !(d2 > 0) || !(next > lo && next < hi) {
			next = 0.5 * (lo + hi)
		}
		t = next
		d1, d2 = slope(t)
	}
	if 1-t > p.RayMax {
		return ww, fval
	}
	fNew := float64(0.5*float64((1-t)*(1-t)*ww)) + p.lossAt(t)
	if !(fNew < fval) {
		return ww, fval
	}
	if p.Trace != nil {
		p.Trace("newton: W scaled by %.4g, f=%.12g", 1-t, fNew)
	}
	for j := range p.W {
		p.W[j] -= float64(t * p.W[j])
	}
	for i := range p.z {
		p.z[i] += float64(t * p.xs[i])
	}
	return p.reg(p.W, p.W), fNew
}
