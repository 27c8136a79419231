package primal

import (
	"math"

	"github.com/acfcd/acfcd/internal/dense"
)

// The large-d method: a trust-region Newton method with diagonally
// preconditioned conjugate gradients (Lin, Weng & Keerthi 2008; the
// preconditioner and the M-norm trust region of Hsia, Chiang & Lin 2018,
// as in liblinear 2.2+; the quadratic-model CG rule of liblinear 2.4+,
// Galli & Lin 2021).
//
// The Hessian H = I + Σ_i D_i x_i x_iᵀ is never formed: CG needs only
// products Hv = v + Σ_{i∈I} D_i (x_iᵀv) x_i, two sparse passes over the
// rows of I = {i : D_i > 0}. Memory is O(n + d).
//
//   - Preconditioner M = (1−a)·I + a·diag(H), a = 0.01.
//   - Steihaug CG in the trust region ‖s‖_M ≤ Δ, stopped on the decrease
//     of the quadratic model Q: after step j, j·(Q_j − Q_{j−1}) ≥ η·Q_j,
//     η = min(0.5, ‖g‖_{M⁻¹}^{1/2}).
//   - Δ updated as in Lin & Moré (1999) and liblinear's TRON.

const (
	pcgMix    = 0.01 // M = (1−a)I + a·diag(H)
	cgEtaMax  = 0.5  // largest quadratic-model tolerance η
	cgMaxIter = 2000 // CG steps per Newton step at most

	// trust-region radius update (Lin & Moré 1999; liblinear's TRON)
	trEta0, trEta1, trEta2       = 1e-4, 0.25, 0.75
	trSigma1, trSigma2, trSigma3 = 0.25, 0.5, 4.0
)

// cgState holds the Newton-CG buffers (allocated on first use).
type cgState struct {
	r, d, hd, m []float64 // dense: residual, CG direction, H·d, preconditioner
	act         []int32   // rows with D_i > 0
	steps       int       // CG steps of the current NewtonCG call
}

func (p *Problem) newCG() *cgState {
	if p.cg == nil {
		dim := p.Dim()
		buf := make([]float64, 4*dim)
		p.cg = &cgState{r: buf[:dim], d: buf[dim : 2*dim], hd: buf[2*dim : 3*dim], m: buf[3*dim:],
			act: make([]int32, 0, p.N)}
	}
	return p.cg
}

// CGSteps returns the CG steps of the last NewtonCG call.
func (p *Problem) CGSteps() int {
	if p.cg == nil {
		return 0
	}
	return p.cg.steps
}

// precondition sets cg.act to the rows with D_i > 0 and cg.m to the
// preconditioner (1−a) + a·diag(H), diag(H)_j = 1 + Σ_i D_i x_ij² (no 1
// for a free bias weight).
func (p *Problem) precondition() {
	cg := p.cg
	cg.act = cg.act[:0]
	for j := range cg.m {
		cg.m[j] = 1
	}
	if p.FreeBias {
		cg.m[p.NF] = 0
	}
	for i, di := range p.dc {
		if di == 0 {
			continue
		}
		cg.act = append(cg.act, int32(i))
		a, b := p.RP[i], p.RP[i+1]
		idx := p.Idx[a:b:b]
		if p.Val32 == nil {
			for k, v := range p.Val[a:b:b] {
				cg.m[idx[k]] += float64(di * v * v)
			}
		} else {
			for k, v := range p.Val32[a:b:b] {
				cg.m[idx[k]] += float64(di * float64(v) * float64(v))
			}
		}
		cg.m[p.NF] += float64(di * p.Bias * p.Bias)
		p.Ops += b - a
	}
	for j, v := range cg.m {
		cg.m[j] = (1 - pcgMix) + float64(pcgMix*v)
	}
}

// hv sets out = H v = v + Σ_{i∈I} D_i (x_iᵀv) x_i (without the v of a
// free bias weight). It returns false if cancelled on the way.
func (p *Problem) hv(v, out []float64) bool {
	copy(out, v)
	if p.FreeBias {
		out[p.NF] = 0
	}
	for _, i := range p.cg.act {
		k := p.RP[i+1] - p.RP[i]
		p.Ops += k
		if t := p.dc[i] * p.dotRow(int(i), v); t != 0 {
			p.axpyRow(t, int(i), out)
			p.Ops += k
		}
		if p.poll(false) {
			return false
		}
	}
	return true
}

// trpcg sets p.s to an approximate minimiser of the quadratic model
// gᵀs + ½sᵀHs within the trust region ‖s‖_M ≤ delta, by preconditioned CG
// (Steihaug), leaving the residual −g − Hs in cg.r. It returns whether
// the step reached the region's boundary, and false for ok if cancelled.
func (p *Problem) trpcg(delta float64) (boundary, ok bool) {
	cg := p.cg
	s, r, d, hd, m, g := p.s, cg.r, cg.d, cg.hd, cg.m, p.g
	var zr float64
	for j := range s {
		s[j] = 0
		r[j] = -g[j]
		d[j] = r[j] / m[j]
		zr += float64(d[j] * r[j])
	}
	eta := min(cgEtaMax, math.Sqrt(math.Sqrt(zr)))
	var q float64
	for it := 1; it <= cgMaxIter; it++ {
		if p.poll(true) {
			return false, false
		}
		cg.steps++
		if !p.hv(d, hd) {
			return false, false
		}
		dhd := dense.Dot(d, hd)
		if !(dhd > 0) {
			break
		}
		step := zr / dhd
		// ‖s + step·d‖_M² = sMs + 2·step·sMd + step²·dMd
		var sms, smd, dmd float64
		for j, mj := range m {
			sms += float64(s[j] * mj * s[j])
			smd += float64(s[j] * mj * d[j])
			dmd += float64(d[j] * mj * d[j])
		}
		if sms+float64(step*(2*smd+float64(step*dmd))) > delta*delta {
			// Go to the boundary: the positive root τ of
			// dMd·τ² + 2·sMd·τ + sMs − δ² = 0, computed without cancellation.
			rad := math.Sqrt(float64(smd*smd) + float64(dmd*(float64(delta*delta)-sms)))
			if smd >= 0 {
				step = (float64(delta*delta) - sms) / (smd + rad)
			} else {
				step = (rad - smd) / dmd
			}
			for j := range s {
				s[j] += float64(step * d[j])
				r[j] -= float64(step * hd[j])
			}
			return true, true
		}
		var sr, sg float64
		for j := range s {
			s[j] += float64(step * d[j])
			r[j] -= float64(step * hd[j])
			sr += float64(s[j] * r[j])
			sg += float64(s[j] * g[j])
		}
		// The quadratic model at s: Q = gᵀs + ½sᵀHs = −½(sᵀr − sᵀg).
		qNew := float64(-0.5 * (sr - sg))
		qDiff := qNew - q
		if !(qNew <= 0 && qDiff <= 0) || float64(it)*qDiff >= eta*qNew {
			break
		}
		q = qNew
		var zrNew float64
		for j := range r {
			zrNew += r[j] * r[j] / m[j]
		}
		beta := zrNew / zr
		for j := range d {
			d[j] = r[j]/m[j] + float64(beta*d[j])
		}
		zr = zrNew
	}
	return false, true
}

// NewtonCG minimises f from W by the trust-region Newton method. stop is
// asked at the start and after every accepted step; the method also ends
// after maxIter iterations, once it has touched budget more operations
// after its first gradient (if budget > 0), when the predicted and actual
// reductions vanish, or on cancellation, leaving W at the last accepted
// iterate. It returns the iterations and whether a step was accepted (f
// decreased).
func (p *Problem) NewtonCG(maxIter int, budget int64, stop Stop) (iters int, moved bool) {
	cg := p.newCG()
	cg.steps = 0
	p.SetMargins()
	ww := p.reg(p.W, p.W)
	fval := float64(0.5*ww) + p.lossAt(0)
	gnorm := p.SetGradient()
	p.precondition()
	var delta float64 // ‖g‖_{M⁻¹} at the start
	for j, gj := range p.g {
		delta += gj * gj / cg.m[j]
	}
	delta = math.Sqrt(delta)
	if budget > 0 {
		budget += p.Ops
	}
	check := true // a new gradient: ask stop
	for iters < maxIter {
		if check && stop != nil && stop(iters, fval, gnorm) {
			break
		}
		if budget > 0 && p.Ops >= budget || p.poll(true) {
			break
		}
		boundary, ok := p.trpcg(delta)
		if !ok {
			break
		}
		iters++
		p.rowProducts(p.s, p.xs, false)
		var ws, ss, gs, sr, sms float64
		for j, sj := range p.s {
			gs += float64(p.g[j] * sj)
			sr += float64(sj * cg.r[j])
			sms += float64(sj * cg.m[j] * sj)
		}
		ws, ss = p.reg(p.W, p.s), p.reg(p.s, p.s)
		fNew := float64(0.5*(ww+2*ws+ss)) + p.lossAt(1)
		actred := fval - fNew
		prered := -0.5 * (gs - sr)
		snorm := math.Sqrt(sms)
		if iters == 1 {
			delta = min(delta, snorm)
		}
		// The radius update of Lin & Moré (1999) as in liblinear's TRON:
		// a is the minimiser of the quadratic interpolating f along s.
		a := trSigma3
		if fNew-fval-gs > 0 {
			a = max(trSigma1, -0.5*gs/(fNew-fval-gs))
		}
		switch {
		case actred < trEta0*prered:
			delta = min(a*snorm, trSigma2*delta)
		case actred < trEta1*prered:
			delta = max(trSigma1*delta, min(a*snorm, trSigma2*delta))
		case actred < trEta2*prered:
			delta = max(trSigma1*delta, min(a*snorm, trSigma3*delta))
		case boundary:
			delta = trSigma3 * delta
		default:
			delta = max(delta, min(a*snorm, trSigma3*delta))
		}
		check = actred > trEta0*prered
		if check {
			moved = true
			for j, sj := range p.s {
				p.W[j] += sj
			}
			for i, v := range p.xs {
				p.z[i] += v
			}
			ww = p.reg(p.W, p.W)
			fval = fNew
			gnorm = p.SetGradient()
			p.precondition()
		}
		if p.Trace != nil {
			p.Trace("newton-cg %d: actred=%.4g prered=%.4g snorm=%.4g boundary=%v cg=%d", iters, actred, prered, snorm, boundary, cg.steps)
		}
		if prered <= 0 || math.Abs(actred) <= 1e-12*math.Abs(fval) && prered <= 1e-12*math.Abs(fval) {
			break
		}
	}
	return iters, moved
}
