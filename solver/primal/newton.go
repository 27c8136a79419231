package primal

import "math"

// Stop decides whether a method ends at its current iterate, given with
// a fresh gradient: iter is the number of steps taken, f the objective
// and gnorm ‖∇f‖. It is the place for progress reports too.
type Stop func(iter int, f, gnorm float64) bool

// Newton minimises f from W by exact Newton steps (d+1 ≤
// Tuning.NewtonDenseMax): each solves H s = −∇f by Cholesky and takes
// the longest step t = 2^{−k} with f(w + ts) ≤ f(w) + 0.01·t·∇fᵀs. It
// stops when stop says so, after maxIter steps, when a step decreases f
// by at most minRel·|f|, when the line search fails, or on cancellation.
// It returns the steps taken, and false for ok if the Cholesky
// factorisation failed (H not numerically positive definite: the caller
// may go on with NewtonCG from W).
func (p *Problem) Newton(maxIter int, minRel float64, stop Stop) (steps int, ok bool) {
	p.SetMargins()
	ww := p.reg(p.W, p.W)
	fval := float64(0.5*ww) + p.lossAt(0)
	for {
		if p.poll(true) {
			return steps, true
		}
		gnorm := p.SetGradient()
		if stop != nil && stop(steps, fval, gnorm) || steps >= maxIter {
			return steps, true
		}
		if !p.factor() {
			return steps, p.cancelled
		}
		CholSolve(p.h, p.Dim(), -1, p.g, p.s)
		gs := dot(p.g, p.s)
		if !(gs < 0) {
			return steps, true
		}
		p.rowProducts(p.s, p.xs, false)
		ws, ss := p.reg(p.W, p.s), p.reg(p.s, p.s)
		t := 1.0
		var fNew float64
		accepted := false
		for range 30 {
			fNew = float64(0.5*(ww+float64(2*t*ws)+float64(t*t*ss))) + p.lossAt(t)
			if fNew <= fval+float64(armijo*t*gs) {
				accepted = true
				break
			}
			t *= 0.5
		}
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
		done := fval-fNew <= minRel*math.Abs(fval)
		if p.Trace != nil {
			p.Trace("newton %d: f=%.12g |g|=%.4g step %.4g ops=%d", steps, fNew, gnorm, t, p.Ops)
		}
		fval = fNew
		if done {
			return steps, true
		}
	}
}
