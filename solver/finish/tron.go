package finish

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

// The large-d branch of the primal Newton method: a trust-region Newton
// method with diagonally preconditioned conjugate gradients (Lin, Weng &
// Keerthi 2008; the preconditioner and the M-norm trust region of Hsia,
// Chiang & Lin 2018, as in liblinear 2.2+; the quadratic-model CG rule of
// liblinear 2.4+, Galli & Lin 2021).
//
// Above Tuning.NewtonDenseMax the Hessian H = I + Σ_i D_i x_i x_iᵀ is
// never formed: CG needs only products Hv = v + Σ_{i∈I} D_i (x_iᵀv) x_i,
// two sparse passes over the rows of I = {i : D_i > 0}. Memory is O(n + d).
//
//   - Preconditioner M = (1−a)·I + a·diag(H), a = 0.01.
//   - Steihaug CG in the trust region ‖s‖_M ≤ Δ, stopped on the decrease
//     of the quadratic model Q: after step j, j·(Q_j − Q_{j−1}) ≥ η·Q_j,
//     η = min(0.5, ‖g‖_{M⁻¹}^{1/2}).
//   - Δ updated as in Lin & Moré (1999) and liblinear's TRON.
//
// On text data with raw counts at large C the primal is as badly
// conditioned as the dual, but the two fail on different parts of the
// problem: dual CD settles the many local coordinates quickly and stalls
// on a few global directions, which a handful of CG steps gets right. So
// Newton-CG runs only briefly and hands back to the dual (α from the
// margins) once the duality gap is within Tuning.TronGapRel of P(w) or
// its budget of passes is spent; dual CD then finishes. Its point is kept
// whenever it decreased P(w): for -s 1, α_i = 2C_i(1−z_i) magnifies any
// error of the margins, so f(α(w)) is a poor measure of how close w is.
// Should the dual stall again, it switches again (Finisher.Finish).

const (
	pcgMix    = 0.01 // M = (1−a)I + a·diag(H)
	cgEtaMax  = 0.5  // largest quadratic-model tolerance η
	cgMaxIter = 2000 // CG steps per Newton step at most

	// trust-region radius update (Lin & Moré 1999; liblinear's TRON)
	trEta0, trEta1, trEta2       = 1e-4, 0.25, 0.75
	trSigma1, trSigma2, trSigma3 = 0.25, 0.5, 4.0
)

// tronBudgetSVM returns the budget in passes for -s 1: 0.1/eps passes for
// -e eps (p.Eps is eps/2), between 10 and Tuning.TronBudgetPasses. For -s 7
// the gap rule ends most rounds; for -s 1 it ends them late, since
// α_i = 2C_i(1−z_i) magnifies the margins' errors, while P(w) drops within
// the first few Newton steps, and the dual finishes as fast from there.
func (f *Finisher) tronBudgetSVM() int64 {
	return int64(min(float64(f.t.TronBudgetPasses), max(10, math.Round(0.05/f.p.Eps))))
}

// tron holds the Newton-CG buffers (allocated on the first large-d switch).
type tron struct {
	r, d, hd, m []float64 // dense: residual, CG direction, H·d, preconditioner
	act         []int32   // rows with D_i > 0
	cgSteps     int
	moved       bool // a step was accepted: P(w) decreased
}

func (nt *newton) newTron() *tron {
	if nt.tr == nil {
		buf := make([]float64, 4*nt.dim)
		nt.tr = &tron{r: buf[:nt.dim], d: buf[nt.dim : 2*nt.dim], hd: buf[2*nt.dim : 3*nt.dim], m: buf[3*nt.dim:],
			act: make([]int32, 0, nt.p.N)}
	}
	return nt.tr
}

// precondition sets tr.act to the rows with D_i > 0 and tr.m to the
// preconditioner (1−a) + a·diag(H), diag(H)_j = 1 + Σ_i D_i x_ij².
func (nt *newton) precondition() {
	p, tr := nt.p, nt.tr
	tr.act = tr.act[:0]
	for j := range tr.m {
		tr.m[j] = 1
	}
	for i, di := range nt.dcoef {
		if di == 0 {
			continue
		}
		tr.act = append(tr.act, int32(i))
		a, b := p.RP[i], p.RP[i+1]
		idx := p.Idx[a:b:b]
		if p.Val32 == nil {
			for k, v := range p.Val[a:b:b] {
				tr.m[idx[k]] += float64(di * v * v)
			}
		} else {
			for k, v := range p.Val32[a:b:b] {
				tr.m[idx[k]] += float64(di * float64(v) * float64(v))
			}
		}
		tr.m[p.NF] += float64(di * p.Bias * p.Bias)
		p.Ops += b - a
	}
	for j, v := range tr.m {
		tr.m[j] = (1 - pcgMix) + float64(pcgMix*v)
	}
}

// hv sets out = H v = v + Σ_{i∈I} D_i (x_iᵀv) x_i.
func (nt *newton) hv(v, out []float64) {
	p := nt.p
	copy(out, v)
	for _, i := range nt.tr.act {
		if t := nt.dcoef[i] * p.DotRow(i, v); t != 0 {
			p.AxpyRow(t, i, out)
		}
	}
}

// trpcg sets nt.s to an approximate minimiser of the quadratic model
// gᵀs + ½sᵀHs within the trust region ‖s‖_M ≤ delta, by preconditioned CG
// (Steihaug), leaving the residual −g − Hs in tr.r. It returns whether
// the step reached the region's boundary, and false for ok if cancelled.
func (nt *newton) trpcg(delta float64) (boundary, ok bool) {
	tr := nt.tr
	s, r, d, hd, m, g := nt.s, tr.r, tr.d, tr.hd, tr.m, nt.g
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
		if nt.r.Poll() {
			return false, false
		}
		tr.cgSteps++
		nt.hv(d, hd)
		dhd := dot(d, hd)
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

// primalTron minimises the primal from the current w by the trust-region
// Newton method and returns its iterations; it stops early on
// cancellation, leaving w at the last accepted iterate.
func (f *Finisher) primalTron(r *solver.Run) int {
	p, nt := f.p, f.nt
	nt.r = r
	tr := nt.newTron()
	tr.cgSteps, tr.moved = 0, false
	nt.margins()
	ww := dot(p.W, p.W)
	fval := float64(0.5*ww) + nt.primalLoss(0)
	nt.gradient()
	nt.precondition()
	var delta float64 // ‖g‖_{M⁻¹} at the start
	for j, gj := range nt.g {
		delta += gj * gj / tr.m[j]
	}
	delta = math.Sqrt(delta)
	iters := 0
	check := true // a new gradient: test the stopping rule
	// Each further switch doubles the budget: a dual that stalls again
	// got handed back too early.
	passes := f.t.TronBudgetPasses
	if p.Loss == dual.L2SVM {
		passes = f.tronBudgetSVM()
	}
	budget := p.Ops + passes*p.NNZ()<<min(f.tron, 20)
	f.tron++
	trace := r.Trace()
	for iters < f.t.TronMaxIter {
		if check {
			dualF := nt.dualAt()
			gap := fval + dualF
			if trace != nil {
				trace("tron %d: f=%.12g dual=%.12g (switch %.12g) gap=%.3g delta=%.4g cg=%d ops=%d", iters, fval, dualF, nt.obj, gap/math.Abs(fval), delta, tr.cgSteps, p.Ops)
			}
			if gap <= f.t.TronGapRel*math.Abs(fval) {
				break
			}
		}
		if p.Ops >= budget {
			break
		}
		boundary, ok := nt.trpcg(delta)
		if !ok {
			break
		}
		iters++
		for i := range nt.xs {
			nt.xs[i] = float64(p.Y[i]) * p.DotRow(int32(i), nt.s)
		}
		var ws, ss, gs, sr, sms float64
		for j, sj := range nt.s {
			ws += float64(p.W[j] * sj)
			ss += float64(sj * sj)
			gs += float64(nt.g[j] * sj)
			sr += float64(sj * tr.r[j])
			sms += float64(sj * tr.m[j] * sj)
		}
		fNew := float64(0.5*(ww+2*ws+ss)) + nt.primalLoss(1)
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
			tr.moved = true
			for j, sj := range nt.s {
				p.W[j] += sj
			}
			for i, v := range nt.xs {
				nt.z[i] += v
			}
			ww = dot(p.W, p.W)
			fval = fNew
			nt.gradient()
			nt.precondition()
		}
		if trace != nil {
			trace("tron %d: actred=%.4g prered=%.4g snorm=%.4g boundary=%v", iters, actred, prered, snorm, boundary)
		}
		if prered <= 0 || math.Abs(actred) <= 1e-12*math.Abs(fval) && prered <= 1e-12*math.Abs(fval) {
			break
		}
	}
	return iters
}

// dualAt returns the dual objective f(α) at the α dualFromPrimal builds
// from the current w, with ∇P(w) in nt.g and the margins in nt.z: there
// Σ α_i y_i x_i = w − ∇P(w), so it takes no data pass.
func (nt *newton) dualAt() float64 {
	p := nt.p
	var ww, v float64
	for j, wj := range p.W {
		u := wj - nt.g[j]
		ww += float64(u * u)
	}
	for i, z := range nt.z {
		ci := p.Cost(i)
		if p.Loss == dual.L2SVM {
			if a := float64(2 * ci * max(0, 1-z)); a != 0 {
				v += a*a/(4*ci) - a
			}
		} else {
			a := ci / (1 + fmath.Exp(z))
			ac := ci / (1 + fmath.Exp(-z))
			v += dual.XLogX(a) + dual.XLogX(ac) - float64(ci*fmath.Log(ci))
		}
	}
	return float64(0.5*ww) + v
}
