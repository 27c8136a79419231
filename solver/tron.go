package solver

import (
	"math"
)

// The large-d branch of the primal Newton fallback: a trust-region Newton
// method with diagonally preconditioned conjugate gradients (Lin, Weng &
// Keerthi 2008; the preconditioner and the M-norm trust region of Hsia,
// Chiang & Lin 2018, as in liblinear 2.2+; the quadratic-model CG rule of
// liblinear 2.4+, Galli & Lin 2021).
//
// Above newtonDenseMax the Hessian H = I + Σ_i D_i x_i x_iᵀ is never
// formed: CG needs only products Hv = v + Σ_{i∈I} D_i (x_iᵀv) x_i, two
// sparse passes over the rows of I = {i : D_i > 0} (for -s 1 the examples
// with margin below 1, for -s 7 all of them). Memory is O(n + d).
//
//   - Preconditioner M = (1−a)·I + a·diag(H), a = 0.01.
//   - Steihaug CG in the trust region ‖s‖_M ≤ Δ, stopped on the decrease
//     of the quadratic model Q: after step j, j·(Q_j − Q_{j−1}) ≥ η·Q_j,
//     η = min(0.5, ‖g‖_{M⁻¹}^{1/2}).
//   - Δ updated as in Lin & Moré (1999) and liblinear's TRON; a trial
//     point costs one pass (its margins), not a line search.
//
// Newton-CG alone is no cure on text data with raw counts at large C:
// there the primal is as badly conditioned as the dual (news20, -s 1
// -c 1000: after 200 iterations P(w) is still 1.5e-4 above its minimum,
// with a trust region of 1e-3; liblinear's -s 2 stops there 1% above it).
// But the two methods apparently fail on different parts of the problem:
// dual CD settles the many local coordinates quickly and stalls on a few
// global, badly conditioned directions, which a handful of CG steps gets
// right. So Newton-CG runs only briefly, and hands back to the dual (α
// from the margins, as for the dense branch) when
//
//   - the duality gap P(w) + f(α(w)) is at most tronGapRel·P(w), or
//   - it has spent tronBudgetPasses passes over the data (for -s 1
//     tronBudgetSVM; doubled at every further switch).
//
// Then the full KKT pass certifies or dual CD finishes, as always. From
// such a point dual CD converged in every case measured (news20 with raw
// counts, -s 1 and 7, C = 1 to 1000), even where the dual objective
// at α(w) was still far worse than at the switch: for -s 1 α_i = 2C_i(1−z_i)
// magnifies any error of the margins, so f(α(w)) is a poor measure of how
// close w is. The point is therefore kept whenever Newton-CG decreased
// P(w) (dualFromPrimal); only a cancelled run is rolled back if worse.
// Should the dual stall again, it switches again, after as many
// operations as the first time (at most tronMaxRounds switches).
//
// For small d the dense branch stays: forced onto a9a and w8a (-s 1 and
// 7, C = 10 and 1000), Newton-CG took 2 to 10 times the dual epochs and
// time of the dense Newton fallback.

const (
	pcgMix           = 0.01 // M = (1−a)I + a·diag(H)
	cgEtaMax         = 0.5  // largest quadratic-model tolerance η
	cgMaxIter        = 2000 // CG steps per Newton step at most
	tronMaxIter      = 200  // Newton iterations per switch at most
	tronMaxRounds    = 8    // switches to Newton-CG at most
	tronGapRel       = 1e-3 // hand back at this relative duality gap
	tronBudgetPasses = 50   // or after this many passes over the data (-s 7)
	// tronSwitchPasses is the switch rule's estimate of a Newton-CG
	// round and the dual CD that finishes after it, in passes over the
	// non-zeros (a dual step reads its row twice: 2 passes an epoch).
	// On news20 with raw counts 50 and 100 did about as well; 50
	// switched on debian-desc -s 1 -c 100, whose dual converges after 63,
	// and cost 24% more operations there; 100 leaves a margin.
	tronSwitchPasses = 100

	// trust-region radius update (Lin & Moré 1999; liblinear's TRON)
	trEta0, trEta1, trEta2       = 1e-4, 0.25, 0.75
	trSigma1, trSigma2, trSigma3 = 0.25, 0.5, 4.0
)

// tronBudgetSVM returns tronBudgetPasses for -s 1: 0.1/eps passes for -e
// eps (wk.eps is eps/2), between 10 and tronBudgetPasses. For -s 7 the gap
// rule ends most rounds; for -s 1 it ends them late, since
// α_i = 2C_i(1−z_i) magnifies the margins' errors, while P(w) drops within
// the first few Newton steps, and the dual finishes as fast from there:
// on debian-desc -s 1 -c 1000 -e 0.01, 10 passes (3 Newton steps, gap
// 2e-2) instead of the rule's 17 steps and 49 passes (gap 8e-4) took 3 to
// 31% fewer operations in all, 18% on average over five seeds (seed 1:
// train 3.1 s → 2.3 s), and 17 to 27% on news20bin -c 10 to 1000 with
// the pairwise push of before (dups.go; now it does not switch). At
// -e 0.001 that point was too rough for news20bin -c 100: the dual
// stalled at a violation of 1.5e-3 until a second switch, 30% more
// operations over six seeds; hence the longer budget for small eps
// (debian-desc -c 1000 -e 0.005: 20 passes, as many operations as 50).
// For -s 7, 10 passes cost news20bin 40-80% more operations.
func (wk *worker) tronBudgetSVM() int64 {
	return int64(min(tronBudgetPasses, max(10, math.Round(0.05/wk.eps))))
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
		f := make([]float64, 4*nt.dim)
		nt.tr = &tron{r: f[:nt.dim], d: f[nt.dim : 2*nt.dim], hd: f[2*nt.dim : 3*nt.dim], m: f[3*nt.dim:],
			act: make([]int32, 0, nt.wk.n)}
	}
	return nt.tr
}

// precondition sets tr.act to the rows with D_i > 0 and tr.m to the
// preconditioner (1−a) + a·diag(H), diag(H)_j = 1 + Σ_i D_i x_ij².
func (nt *newton) precondition() {
	wk, tr := nt.wk, nt.tr
	tr.act = tr.act[:0]
	for j := range tr.m {
		tr.m[j] = 1
	}
	for i, di := range nt.dcoef {
		if di == 0 {
			continue
		}
		tr.act = append(tr.act, int32(i))
		a, b := wk.rp[i], wk.rp[i+1]
		idx := wk.idx[a:b:b]
		if wk.val32 == nil {
			for k, v := range wk.val[a:b:b] {
				tr.m[idx[k]] += di * v * v
			}
		} else {
			for k, v := range wk.val32[a:b:b] {
				tr.m[idx[k]] += di * float64(v) * float64(v)
			}
		}
		tr.m[wk.nf] += di * wk.bias * wk.bias
		wk.ops += b - a
	}
	for j, v := range tr.m {
		tr.m[j] = (1 - pcgMix) + pcgMix*v
	}
}

// hv sets out = H v = v + Σ_{i∈I} D_i (x_iᵀv) x_i.
func (nt *newton) hv(v, out []float64) {
	wk := nt.wk
	copy(out, v)
	for _, i := range nt.tr.act {
		if t := nt.dcoef[i] * wk.dotRow(i, v); t != 0 {
			wk.axpyRow(t, i, out)
		}
	}
}

// trpcg sets nt.s to an approximate minimiser of the quadratic model
// gᵀs + ½sᵀHs within the trust region ‖s‖_M ≤ delta, by preconditioned CG
// (Steihaug), leaving the residual −g − Hs in tr.r. It returns whether
// the step reached the region's boundary, and false for ok if cancelled.
func (nt *newton) trpcg(delta float64) (boundary, ok bool) {
	wk, tr := nt.wk, nt.tr
	s, r, d, hd, m, g := nt.s, tr.r, tr.d, tr.hd, tr.m, nt.g
	var zr float64
	for j := range s {
		s[j] = 0
		r[j] = -g[j]
		d[j] = r[j] / m[j]
		zr += d[j] * r[j]
	}
	eta := min(cgEtaMax, math.Sqrt(math.Sqrt(zr)))
	var q float64
	for it := 1; it <= cgMaxIter; it++ {
		select {
		case <-wk.done:
			wk.cancelled = true
			return false, false
		default:
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
			sms += s[j] * mj * s[j]
			smd += s[j] * mj * d[j]
			dmd += d[j] * mj * d[j]
		}
		if sms+step*(2*smd+step*dmd) > delta*delta {
			// Go to the boundary: the positive root τ of
			// dMd·τ² + 2·sMd·τ + sMs − δ² = 0, computed without cancellation.
			rad := math.Sqrt(smd*smd + dmd*(delta*delta-sms))
			if smd >= 0 {
				step = (delta*delta - sms) / (smd + rad)
			} else {
				step = (rad - smd) / dmd
			}
			for j := range s {
				s[j] += step * d[j]
				r[j] -= step * hd[j]
			}
			return true, true
		}
		var sr, sg float64
		for j := range s {
			s[j] += step * d[j]
			r[j] -= step * hd[j]
			sr += s[j] * r[j]
			sg += s[j] * g[j]
		}
		// The quadratic model at s: Q = gᵀs + ½sᵀHs = −½(sᵀr − sᵀg).
		qNew := -0.5 * (sr - sg)
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
			d[j] = r[j]/m[j] + beta*d[j]
		}
		zr = zrNew
	}
	return false, true
}

// primalTron minimises the primal from the current w by the trust-region
// Newton method and returns its iterations; it stops early on
// cancellation, leaving w at the last accepted iterate.
func (wk *worker) primalTron() int {
	nt := wk.nt
	tr := nt.newTron()
	tr.cgSteps, tr.moved = 0, false
	nt.margins()
	ww := dot(wk.w, wk.w)
	f := 0.5*ww + nt.primalLoss(0)
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
	passes := int64(tronBudgetPasses)
	if wk.kind == l2svm {
		passes = wk.tronBudgetSVM()
	}
	budget := wk.ops + passes*wk.nnzAll()<<min(wk.tronRound, 20)
	wk.tronRound++
	for iters < tronMaxIter {
		if check {
			dualF := nt.dualAt()
			gap := f + dualF
			if debugf != nil {
				debugf("tron %d: f=%.12g dual=%.12g (switch %.12g) gap=%.3g delta=%.4g cg=%d ops=%d", iters, f, dualF, nt.obj, gap/math.Abs(f), delta, tr.cgSteps, wk.ops)
			}
			if gap <= tronGapRel*math.Abs(f) {
				break
			}
		}
		if wk.ops >= budget {
			break
		}
		boundary, ok := nt.trpcg(delta)
		if !ok {
			break
		}
		iters++
		for i := range nt.xs {
			nt.xs[i] = float64(wk.y[i]) * wk.dotRow(int32(i), nt.s)
		}
		var ws, ss, gs, sr, sms float64
		for j, sj := range nt.s {
			ws += wk.w[j] * sj
			ss += sj * sj
			gs += nt.g[j] * sj
			sr += sj * tr.r[j]
			sms += sj * tr.m[j] * sj
		}
		fNew := 0.5*(ww+2*ws+ss) + nt.primalLoss(1)
		actred := f - fNew
		prered := -0.5 * (gs - sr)
		snorm := math.Sqrt(sms)
		if iters == 1 {
			delta = min(delta, snorm)
		}
		// The radius update of Lin & Moré (1999) as in liblinear's TRON:
		// a is the minimiser of the quadratic interpolating f along s.
		a := trSigma3
		if fNew-f-gs > 0 {
			a = max(trSigma1, -0.5*gs/(fNew-f-gs))
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
				wk.w[j] += sj
			}
			for i, v := range nt.xs {
				nt.z[i] += v
			}
			ww = dot(wk.w, wk.w)
			f = fNew
			nt.gradient()
			nt.precondition()
		}
		if debugf != nil {
			debugf("tron %d: actred=%.4g prered=%.4g snorm=%.4g boundary=%v", iters, actred, prered, snorm, boundary)
		}
		if prered <= 0 || math.Abs(actred) <= 1e-12*math.Abs(f) && prered <= 1e-12*math.Abs(f) {
			break
		}
	}
	return iters
}

// dualAt returns the dual objective f(α) at the α dualFromPrimal builds
// from the current w, with ∇P(w) in nt.g and the margins in nt.z: there
// Σ α_i y_i x_i = w − ∇P(w), so it takes no data pass.
func (nt *newton) dualAt() float64 {
	wk := nt.wk
	var ww, v float64
	for j, wj := range wk.w {
		u := wj - nt.g[j]
		ww += u * u
	}
	for i, z := range nt.z {
		ci := wk.cost(i)
		if wk.kind == l2svm {
			if a := 2 * ci * max(0, 1-z); a != 0 {
				v += a*a/(4*ci) - a
			}
		} else {
			a := ci / (1 + math.Exp(z))
			ac := ci / (1 + math.Exp(-z))
			v += xlogx(a) + xlogx(ac) - ci*math.Log(ci)
		}
	}
	return 0.5*ww + v
}

// tronSwitchOps is newtonSwitchOps for the Newton-CG branch, given the
// non-zeros of all rows.
func (sh *shared) tronSwitchOps(nnz int64) int64 {
	return tronSwitchPasses * nnz
}

// nnzAll returns the non-zeros of all rows, bias feature included.
func (sh *shared) nnzAll() int64 {
	nnz := sh.rp[sh.n]
	if sh.bias != 0 {
		nnz += int64(sh.n)
	}
	return nnz
}

// tronNearViol and tronDeferPasses: the switch to Newton-CG waits while
// the dual's last sweep violation is at most tronNearViol·eps, for at most
// tronDeferPasses passes over the non-zeros (variables for tests).
var (
	tronNearViol          = 4.0
	tronDeferPasses int64 = 20
)
