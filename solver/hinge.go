package solver

import (
	"math"
)

// The hinge-loss finisher (-s 3): an interior-point method on the dual.
//
// The hinge loss has no primal Newton method (it is not differentiable;
// a Huber-smoothed primal Newton took hundreds of steps), but its dual is
// a box-constrained QP
//
//	min_α f(α) = ½‖Zᵀα‖² − Σα,  0 ≤ α_i ≤ C_i,  rows of Z: z_i = y_i x_i,
//
// whose Hessian Q = Z Zᵀ has rank at most d+1. A primal-dual
// interior-point method (Mehrotra's predictor-corrector) solves it in a
// few tens of iterations whatever the conditioning, and for small d each
// iteration is cheap (Ferris & Munson 2002): with multipliers s, t ≥ 0
// of α ≥ 0 and α ≤ C, u = C − α and D = s/α + t/u, the Newton system
// (Q + D)Δα = r is solved by the Sherman–Morrison–Woodbury identity
// through the (d+1)×(d+1) matrix H = I + Zᵀ D⁻¹ Z:
//
//	Δα = D⁻¹(r − Z p),  H p = Zᵀ D⁻¹ r   (and ZᵀΔα = p),
//
// one pass over the data to form H, one dense Cholesky, and a few passes
// for the right-hand sides.
//
// The interior iterates never sit at a bound, so every iteration (once the
// gap is small) rounds them: α_i → 0 when its multiplier s_i dominates,
// α_i → C_i when t_i does. The first rounded point whose largest KKT
// violation, measured from w = Σ α_i y_i x_i rebuilt exactly, is within
// eps ends the method. The contract is then the primal Newton fallback's
// (newton.go): the full KKT pass certifies the rounded α (and dual CD
// finishes if it is not within eps), and a point worse than the one at
// the switch is rolled back. The iterations are counted as
// Result.NewtonSteps.

const (
	// ipmTheta keeps the starting α at least θ·min(C_i, 1) from its
	// bounds: the interior-point method needs an interior start, and a
	// start far from the dual's α (θ relative to C, or α = C/2) makes
	// w = Σ α_i y_i x_i huge at large C (w8a, C = 100: 70 iterations
	// instead of 55; a9a: 54 instead of 41).
	ipmTheta   = 1e-3
	ipmMaxIter = 80
	ipmStep    = 0.99 // fraction of the distance to the boundary taken
	// ipmTheta pulls the starting α into [θC_i, (1−θ)C_i].
	// Rounding is tried once the complementarity Σ α_i s_i + u_i t_i is
	// below ipmRoundRel·|f|, and the method ends, rounded, below
	// ipmStopRel·|f| (scaled down for eps below liblinear's default, and
	// at least 1e-13, where rounding errors dominate) even if the rounded
	// point is not within eps: from there dual CD needs a few epochs (a9a,
	// C = 1 to 100: 2 to 8), fewer than the interior-point iterations to
	// get the rounding exact.
	ipmRoundRel = 1e-3
	ipmStopRel  = 1e-4
	// ipmGuessIters are the iterations assumed by the switch rule
	// (newtonSwitchOps), and ipmOpsRatio the time of one of their
	// operations in dual CD operations (dualOps). Measured at -e 0.01 on
	// a9a and w8a (C = 1 to 100): 42–58 iterations; an interior-point op
	// costs 1.8–1.9 ns, a -s 3 dual op 7.4 ns (a9a) to 9 ns (w8a). With
	// the first guesses (45, 0.15) the switch came early enough to make
	// a9a C = 1, which the dual alone solves in 0.35 s, take 0.85 s.
	ipmGuessIters = 50
	ipmOpsRatio   = 0.25
)

// hinge holds the interior-point method's buffers.
type hinge struct {
	a, u, s, t []float64 // per example: α, C − α and the two multipliers
	g          []float64 // per example: G_i = z_iᵀw − 1 at the interior α
	r, da      []float64 // per example: right-hand side and Δα
	das, dat   []float64 // per example: the predictor's Δs and Δt
	v, p, wi   []float64 // dense: Zᵀ D⁻¹ r, H⁻¹v and w at the interior α
}

func (wk *worker) newHinge() (*newton, *hinge) {
	nt := wk.newNewton()
	if wk.hg == nil {
		n := wk.n
		f := make([]float64, 9*n)
		wk.hg = &hinge{a: f[:n], u: f[n : 2*n], s: f[2*n : 3*n], t: f[3*n : 4*n], g: f[4*n : 5*n],
			r: f[5*n : 6*n], da: f[6*n : 7*n], das: f[7*n : 8*n], dat: f[8*n : 9*n],
			v: make([]float64, nt.dim), p: make([]float64, nt.dim), wi: make([]float64, nt.dim)}
	}
	return nt, wk.hg
}

// hingeFinish runs the interior-point method from the current α and
// returns its iterations; it stops early on cancellation. It leaves in
// α the last rounded point (or the state at the switch if none was
// tried), with w rebuilt and wk.obj = f(α), and keeps the state at the
// switch for hingeRestore.
func (wk *worker) hingeFinish() int {
	nt, hg := wk.newHinge()
	copy(nt.alpha, wk.alpha)
	copy(nt.w, wk.w)
	nt.obj = wk.obj
	n := wk.n

	// Start: α pulled into the interior, w at it, and multipliers that
	// make the dual residual Qα − 1 − s + t zero.
	for i := range hg.a {
		c := wk.ub[(wk.y[i]+1)>>1]
		lo := ipmTheta * min(c, 1)
		a := min(max(wk.alpha[i], lo), c-lo)
		hg.a[i], hg.u[i] = a, c-a
	}
	wk.ipmMargins(hg)
	for i, G := range hg.g {
		hg.s[i] = max(G, 0) + 1
		hg.t[i] = max(-G, 0) + 1
	}

	// Tighter tolerances than liblinear's default need a closer hand-over.
	stopRel := max(ipmStopRel*min(1, wk.eps/0.05), 1e-13)
	tried := false
	iters := 0
loop:
	for iters < ipmMaxIter {
		select {
		case <-wk.done:
			wk.cancelled = true
			break loop
		default:
		}
		var comp, fval float64
		for i := range hg.a {
			comp += hg.a[i]*hg.s[i] + hg.u[i]*hg.t[i]
		}
		mu := comp / float64(2*n)
		// The dual objective at the interior point, for the gap test.
		fval = 0.5 * dot(hg.wi, hg.wi)
		for _, a := range hg.a {
			fval -= a
		}
		if debugf != nil {
			debugf("ipm %d: f=%.12g comp=%.4g ops=%d", iters, fval, comp, wk.ops)
		}
		if comp <= ipmRoundRel*math.Abs(fval) {
			tried = true
			if viol := wk.ipmRound(hg); viol <= wk.eps || comp <= stopRel*math.Abs(fval) {
				break
			}
		}

		// D⁻¹ in nt.dcoef and H = I + Zᵀ D⁻¹ Z.
		for i := range hg.a {
			nt.dcoef[i] = 1 / (hg.s[i]/hg.a[i] + hg.t[i]/hg.u[i])
		}
		if !nt.factor(1) {
			break
		}
		iters++

		// Predictor (affine scaling): r = −(Qα − 1 − s + t) − s + t = −G.
		for i, G := range hg.g {
			hg.r[i] = -G
		}
		wk.ipmSolve(nt, hg)
		for i, d := range hg.da {
			hg.das[i] = -hg.s[i] - hg.s[i]/hg.a[i]*d
			hg.dat[i] = -hg.t[i] + hg.t[i]/hg.u[i]*d
		}
		step := hg.maxStep(hg.da, hg.das, hg.dat)
		var compAff float64
		for i, d := range hg.da {
			compAff += (hg.a[i]+step*d)*(hg.s[i]+step*hg.das[i]) + (hg.u[i]-step*d)*(hg.t[i]+step*hg.dat[i])
		}
		sigma := math.Pow(compAff/comp, 3)

		// Corrector: complementarity rs = σμ − αs − Δα·Δs, rt = σμ − ut + Δα·Δt,
		// r = −(Qα − 1 − s + t) + rs/α − rt/u.
		sm := sigma * mu
		for i, G := range hg.g {
			da := hg.da[i]
			rs := sm - hg.a[i]*hg.s[i] - da*hg.das[i]
			rt := sm - hg.u[i]*hg.t[i] + da*hg.dat[i]
			hg.das[i], hg.dat[i] = rs, rt
			rd := G - hg.s[i] + hg.t[i]
			hg.r[i] = -rd + rs/hg.a[i] - rt/hg.u[i]
		}
		wk.ipmSolve(nt, hg)
		for i, d := range hg.da {
			hg.das[i] = (hg.das[i] - hg.s[i]*d) / hg.a[i]
			hg.dat[i] = (hg.dat[i] + hg.t[i]*d) / hg.u[i]
		}
		step = min(1, ipmStep*hg.maxStep(hg.da, hg.das, hg.dat))
		for i, d := range hg.da {
			hg.a[i] += step * d
			hg.u[i] -= step * d
			hg.s[i] += step * hg.das[i]
			hg.t[i] += step * hg.dat[i]
		}
		wk.ipmMargins(hg)
	}
	if !tried {
		wk.ipmRound(hg)
	}
	wk.obj = wk.dualObjective()
	return iters
}

// ipmMargins sets hg.wi = Σ a_i y_i x_i and hg.g to G_i = y_i wᵀx_i − 1
// at the interior point.
func (wk *worker) ipmMargins(hg *hinge) {
	clear(hg.wi)
	for i, a := range hg.a {
		wk.axpyRow(a*float64(wk.y[i]), int32(i), hg.wi)
	}
	for i := range hg.g {
		hg.g[i] = float64(wk.y[i])*wk.dotRow(int32(i), hg.wi) - 1
	}
}

// ipmSolve solves (Q + D)Δα = r into hg.da, with D⁻¹ in nt.dcoef and H
// factored.
func (wk *worker) ipmSolve(nt *newton, hg *hinge) {
	clear(hg.v)
	for i, r := range hg.r {
		if r != 0 {
			wk.axpyRow(r*nt.dcoef[i]*float64(wk.y[i]), int32(i), hg.v)
		}
	}
	nt.cholSolve(1, hg.v, hg.p)
	wk.ops += int64(nt.dim) * int64(nt.dim)
	for i, r := range hg.r {
		hg.da[i] = (r - float64(wk.y[i])*wk.dotRow(int32(i), hg.p)) * nt.dcoef[i]
	}
}

// maxStep returns the largest step in (0, ∞] that keeps a, u, s, t
// non-negative along (da, −da, ds, dt).
func (hg *hinge) maxStep(da, ds, dt []float64) float64 {
	step := math.Inf(1)
	for i, d := range da {
		if d < 0 {
			step = min(step, -hg.a[i]/d)
		} else if d > 0 {
			step = min(step, hg.u[i]/d)
		}
		if ds[i] < 0 {
			step = min(step, -hg.s[i]/ds[i])
		}
		if dt[i] < 0 {
			step = min(step, -hg.t[i]/dt[i])
		}
	}
	return step
}

// ipmRound sets α to the interior point rounded to the bounds its
// multipliers point at, rebuilds w, and returns the largest KKT
// violation there.
func (wk *worker) ipmRound(hg *hinge) float64 {
	for i, a := range hg.a {
		c := wk.ub[(wk.y[i]+1)>>1]
		switch {
		case a/c < hg.s[i]:
			a = 0
		case hg.u[i]/c < hg.t[i]:
			a = c
		}
		wk.alpha[i] = a
	}
	wk.rebuildW()
	var viol float64
	for i := range wk.alpha {
		G := float64(wk.y[i])*wk.dotRow(int32(i), wk.w) - 1
		viol = max(viol, math.Abs(wk.svmPG(int32(i), G)))
	}
	if debugf != nil {
		debugf("ipm round: viol %.4g", viol)
	}
	return viol
}

// hingeRestore restores the state at the switch if the finisher ended at
// a worse dual point and returns false then.
func (wk *worker) hingeRestore() bool {
	nt := wk.nt
	if wk.obj <= nt.obj || math.IsNaN(nt.obj) {
		return true
	}
	wk.restoreSwitch()
	return false
}
