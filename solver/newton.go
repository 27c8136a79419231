package solver

import "math"

// The primal Newton fallback.
//
// Dual CD stalls when the dual is badly conditioned: at large C on data
// with few features (a9a, w8a) thousands of epochs may not reach eps,
// while the primal, a smooth function of only d weights, is solved by a
// few Newton steps. liblinear 2.50 switches its -s 1 and -s 7 duals to its
// primal solvers (-s 2, -s 0) after 300 epochs. We switch earlier, by cost:
// once the dual has touched as many non-zeros as a Newton solve is
// expected to cost (a ski-rental rule: at most about twice the cost of
// the better choice made in hindsight), warm-started from the dual's w.
//
// The primal problems are
//
//	-s 1:  P(w) = ½‖w‖² + Σ_i C_i max(0, 1 − z_i)²
//	-s 7:  P(w) = ½‖w‖² + Σ_i C_i log(1 + e^{−z_i}),   z_i = y_i wᵀx_i.
//
// Their minimiser gives the dual optimum in closed form:
// α_i = 2C_i max(0, 1 − z_i) for -s 1 and α_i = C_i/(1 + e^{z_i}) for
// -s 7, and w = Σ α_i y_i x_i − ∇P(w). So after Newton we set α from the
// margins, rebuild w = Σ α_i y_i x_i exactly, and let the usual full KKT
// pass certify (and if needed, dual CD finish) the dual solution: the
// fallback changes the path, never the stopping rule or the answer.
//
// For small d (d+1 ≤ newtonDenseMax) the Newton steps are exact, with the
// dense Hessian I + Σ D_i x_i x_iᵀ formed in one pass and factored by
// Cholesky, and an Armijo line search evaluated on the margins
// (z + t·Xs) without another data pass. For large d (text data) a
// trust-region Newton-CG method runs instead, briefly, and hands back to
// the dual early (tron.go).
//
// If Newton ends at a dual point worse than the one it started from (it
// cannot, unless it stopped early), the dual state is restored and dual CD
// goes on without the fallback (Newton-CG's early hand-back: tron.go).
//
// The hinge loss (-s 3) has no primal Newton method; its fallback is an
// interior-point method on the dual (hinge.go), under the same switch rule
// and the same contract.

const (
	newtonMaxIter    = 100
	newtonDenseMax   = 4096 // largest dimension d+1 for the fallback
	newtonGuessIters = 10   // Newton steps assumed by the switch rule
	armijoC          = 0.01
)

// newtonSwitchOps returns the operations after which the dual should hand
// over to the primal Newton fallback (for -s 3 the interior-point
// finisher): the estimated cost of a Newton solve,
// in the same units as worker.ops (non-zeros touched), or 0 for never.
func (sh *shared) newtonSwitchOps() (ops int64, ok bool) {
	if !sh.fallback {
		return 0, false
	}
	nnz := sh.nnzAll()
	dim := int64(sh.nf + 1)
	if dim > newtonDenseMax {
		if sh.kind == l1svm {
			return 0, false
		}
		return sh.tronSwitchOps(nnz), true
	}
	var outer int64
	for i := 0; i < sh.n; i++ {
		k := sh.rp[i+1] - sh.rp[i]
		if sh.bias != 0 {
			k++
		}
		outer += k * (k + 1) / 2
	}
	if sh.kind == l1svm {
		// The interior-point finisher (hinge.go): per iteration H over
		// every row, its Cholesky and two solves, and seven passes
		// (w and the margins, two right-hand sides and two Z·p).
		return sh.dualOps(ipmGuessIters * (6*nnz + outer + dim*dim*dim/6 + 2*dim*dim)), true
	}
	pass := 4 * nnz // margins, gradient, direction, and the line search's X·s
	return sh.dualOps(newtonGuessIters * (pass + outer + dim*dim*dim/6)), true
}

// dualOps converts Newton operations into dual CD operations of the same
// time. Newton reads the rows in storage order and forms the Hessian with
// dense inner loops, while dual CD visits rows in random order (a cache
// miss per step) and, for -s 7, solves a small Newton problem with
// logarithms at every step. Measured on a9a and w8a (bench/results): a
// dual op costs 5 ns (-s 1) and 8.5 ns (-s 7), a Newton op about 2 ns.
// For -s 3 it is the interior-point finisher's ipmOpsRatio (hinge.go).
func (sh *shared) dualOps(newtonOps int64) int64 {
	ratio := 0.4
	switch sh.kind {
	case logistic:
		ratio = 0.25
	case l1svm:
		ratio = ipmOpsRatio
	}
	return int64(float64(newtonOps) * ratio)
}

// newton holds the fallback's buffers; they are allocated on the first
// switch only, since most runs never need them.
type newton struct {
	wk    *worker
	dim   int
	z, xs []float64 // per example: margins y_i wᵀx_i, and y_i sᵀx_i
	dcoef []float64 // per example: Hessian weight D_i
	g, s  []float64 // gradient, Newton direction
	h     []float64 // dense Hessian, dim×dim, row-major (dim ≤ newtonDenseMax)
	tr    *tron     // trust-region Newton-CG buffers (dim > newtonDenseMax, tron.go)

	// the dual state at the switch, restored if Newton does not improve it
	alpha, alphaC, w []float64
	obj              float64
}

func (wk *worker) newNewton() *newton {
	if wk.nt == nil {
		dim := wk.nf + 1
		wk.nt = &newton{wk: wk, dim: dim,
			z: make([]float64, wk.n), xs: make([]float64, wk.n), dcoef: make([]float64, wk.n),
			g: make([]float64, dim), s: make([]float64, dim),
			alpha: make([]float64, wk.n), w: make([]float64, dim)}
		if dim <= newtonDenseMax {
			wk.nt.h = make([]float64, dim*dim)
		}
		if wk.kind == logistic {
			wk.nt.alphaC = make([]float64, wk.n)
		}
	}
	return wk.nt
}

// cost returns C_i of example i for every loss (the -s 1 dual has no
// upper bound, so its C_i is recovered from D_ii = 1/(2C_i)).
func (wk *worker) cost(i int) float64 {
	c := (wk.y[i] + 1) >> 1
	if wk.kind == l2svm {
		return 0.5 / wk.diag[c]
	}
	return wk.ub[c]
}

// margins sets z_i = y_i wᵀx_i from scratch.
func (nt *newton) margins() {
	wk := nt.wk
	for i := range nt.z {
		nt.z[i] = float64(wk.y[i]) * wk.dotRow(int32(i), wk.w)
	}
}

// primalLoss returns Σ_i C_i·loss(z_i + t·xs_i).
func (nt *newton) primalLoss(t float64) float64 {
	wk := nt.wk
	var f float64
	for i, z := range nt.z {
		m := z + t*nt.xs[i]
		if wk.kind == l2svm {
			if h := 1 - m; h > 0 {
				f += wk.cost(i) * h * h
			}
		} else {
			f += wk.cost(i) * log1pExpNeg(m)
		}
	}
	return f
}

// gradient sets nt.g = ∇P(w) and the Hessian weights D_i at the current
// margins, and returns ‖g‖.
func (nt *newton) gradient() float64 {
	wk := nt.wk
	copy(nt.g, wk.w)
	for i, z := range nt.z {
		ci := wk.cost(i)
		var gi, di float64
		if wk.kind == l2svm {
			if z < 1 {
				gi = -2 * ci * (1 - z)
				di = 2 * ci
			}
		} else {
			// σ(−z) and σ(z)σ(−z) without overflow
			e := math.Exp(-math.Abs(z))
			sNeg := 1 / (1 + math.Exp(z))
			if z < 0 {
				sNeg = 1 / (1 + e)
			}
			gi = -ci * sNeg
			di = ci * e / ((1 + e) * (1 + e))
		}
		nt.dcoef[i] = di
		if gi != 0 {
			wk.axpyRow(gi*float64(wk.y[i]), int32(i), nt.g)
		}
	}
	return math.Sqrt(dot(nt.g, nt.g))
}

// dot4 returns aᵀb with four running sums (b at least as long as a).
func dot4(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// denseSolve forms H = I + Σ D_i x_i x_iᵀ and solves H s = −g by Cholesky.
func (nt *newton) denseSolve() bool {
	if !nt.factor(1) {
		return false
	}
	nt.cholSolve(-1, nt.g, nt.s)
	return true
}

// factor forms H = μI + Σ D_i x_i x_iᵀ and factors it by Cholesky
// (H = LLᵀ, L in nt.h's lower triangle); it returns false if that fails.
func (nt *newton) factor(mu float64) bool {
	dim := nt.dim
	h := nt.h
	clear(h)
	for i, di := range nt.dcoef {
		if di == 0 {
			continue
		}
		nt.addOuter(i, di)
	}
	// The loop filled the upper triangle (j ≤ k); mirror it and add μI.
	for j := 0; j < dim; j++ {
		h[j*dim+j] += mu
		for k := j + 1; k < dim; k++ {
			h[k*dim+j] = h[j*dim+k]
		}
	}
	return nt.cholesky()
}

// addOuter adds di·x_i x_iᵀ (bias feature included) to the upper
// triangle of nt.h.
func (nt *newton) addOuter(i int, di float64) {
	wk := nt.wk
	dim, h := nt.dim, nt.h
	a, b := wk.rp[i], wk.rp[i+1]
	idx := wk.idx[a:b:b]
	k := b - a
	wk.ops += k * (k + 1) / 2
	sorted := true
	for q := 1; q < len(idx); q++ {
		if idx[q] <= idx[q-1] {
			sorted = false
			break
		}
	}
	if wk.bias != 0 {
		bv := di * wk.bias
		for p, jp := range idx {
			h[int(jp)*dim+wk.nf] += bv * wk.value(a+int64(p))
		}
		h[wk.nf*dim+wk.nf] += bv * wk.bias
	}
	switch {
	case sorted && wk.val32 == nil:
		addOuterSorted(h, dim, di, idx, wk.val[a:b:b])
	case sorted:
		addOuterSorted(h, dim, di, idx, wk.val32[a:b:b])
	default:
		for p, jp := range idx {
			vp := di * wk.value(a+int64(p))
			h[int(jp)*dim+int(jp)] += vp * wk.value(a+int64(p))
			for q := p + 1; q < len(idx); q++ {
				// A Dataset built by hand may have unordered rows: order
				// each pair (and count a repeated index for both of its
				// orders).
				r, c := int(jp), int(idx[q])
				v := vp * wk.value(a+int64(q))
				if r > c {
					r, c = c, r
				} else if r == c {
					v *= 2
				}
				h[r*dim+c] += v
			}
		}
	}
}

// cholesky factors nt.h = LLᵀ in its lower triangle (the upper one must
// mirror it) and returns false if H is not numerically positive definite.
func (nt *newton) cholesky() bool {
	wk, dim, h := nt.wk, nt.dim, nt.h
	for j := 0; j < dim; j++ {
		rj := h[j*dim : j*dim+j+1]
		d := rj[j] - dot4(rj[:j], rj[:j])
		if !(d > 0) {
			return false
		}
		d = math.Sqrt(d)
		rj[j] = d
		inv := 1 / d
		for k := j + 1; k < dim; k++ {
			rk := h[k*dim : k*dim+j+1]
			rk[j] = (rk[j] - dot4(rk[:j], rj[:j])) * inv
		}
	}
	wk.ops += int64(dim) * int64(dim) * int64(dim) / 6
	return true
}

// cholSolve solves H x = sign·b with the factor from factor: L u = sign·b,
// then Lᵀ x = u. x must not alias b.
func (nt *newton) cholSolve(sign float64, b, x []float64) {
	dim, h := nt.dim, nt.h
	for j := 0; j < dim; j++ {
		rj := h[j*dim : j*dim+j+1]
		x[j] = (sign*b[j] - dot(rj[:j], x[:j])) / rj[j]
	}
	for j := dim - 1; j >= 0; j-- {
		v := x[j]
		for k := j + 1; k < dim; k++ {
			v -= h[k*dim+j] * x[k]
		}
		x[j] = v / h[j*dim+j]
	}
}

// primalNewton minimises the primal from the current w and returns the
// Newton steps taken; it stops early on cancellation.
func (wk *worker) primalNewton() int {
	nt := wk.newNewton()
	copy(nt.alpha, wk.alpha)
	copy(nt.alphaC, wk.alphaC)
	copy(nt.w, wk.w)
	nt.obj = wk.obj
	if nt.h == nil {
		return wk.primalTron()
	}
	xmax := 0.0
	for i := range wk.n {
		xmax = max(xmax, wk.qii(int32(i)))
	}
	xmax = math.Sqrt(xmax)
	nt.margins()
	ww := dot(wk.w, wk.w)
	f := 0.5*ww + nt.primalLoss(0)
	steps := 0
	for steps < newtonMaxIter {
		select {
		case <-wk.done:
			wk.cancelled = true
			return steps
		default:
		}
		gnorm := nt.gradient()
		// |x_iᵀ∇P| ≤ ‖x_i‖‖∇P‖ bounds what the rebuilt dual w will add
		// to each coordinate's violation: a quarter of eps leaves room.
		if gnorm*xmax <= 0.25*wk.eps {
			break
		}
		if !nt.denseSolve() {
			break
		}
		gs := dot(nt.g, nt.s)
		if !(gs < 0) {
			break
		}
		for i := range nt.xs {
			nt.xs[i] = float64(wk.y[i]) * wk.dotRow(int32(i), nt.s)
		}
		ws, ss := dot(wk.w, nt.s), dot(nt.s, nt.s)
		t := 1.0
		var fNew float64
		accepted := false
		for range 30 {
			fNew = 0.5*(ww+2*t*ws+t*t*ss) + nt.primalLoss(t)
			if fNew <= f+armijoC*t*gs {
				accepted = true
				break
			}
			t *= 0.5
		}
		steps++
		if !accepted {
			break
		}
		for j := range wk.w {
			wk.w[j] += t * nt.s[j]
		}
		for i := range nt.z {
			nt.z[i] += t * nt.xs[i]
		}
		ww = dot(wk.w, wk.w)
		done := f-fNew <= 1e-15*math.Abs(f)
		f = fNew
		if done {
			break
		}
	}
	return steps
}

// dualFromPrimal sets α from the margins at the current w and rebuilds
// w = Σ α_i y_i x_i and the tracked objective, so that the dual CD and its
// KKT pass continue from a consistent point. If that point is worse than
// the dual state at the switch, it restores that state and returns false.
func (wk *worker) dualFromPrimal() bool {
	nt := wk.nt
	nt.margins()
	for i, z := range nt.z {
		ci := wk.cost(i)
		var a float64
		if wk.kind == l2svm {
			a = 2 * ci * max(0, 1-z)
		} else {
			// α = C σ(−z), C − α = C σ(z), each computed directly; both
			// stay strictly positive as the logistic dual requires.
			a = ci / (1 + math.Exp(z))
			ac := ci / (1 + math.Exp(-z))
			tiny := ci * 1e-300
			a, ac = max(a, tiny), max(ac, tiny)
			wk.alphaC[i] = ac
		}
		wk.alpha[i] = a
	}
	wk.rebuildW()
	wk.obj = wk.dualObjective()
	if wk.obj <= nt.obj || math.IsNaN(nt.obj) || nt.tr != nil && nt.tr.moved && !wk.cancelled {
		return true
	}
	wk.restoreSwitch()
	return false
}

// rebuildW sets w = Σ α_i y_i x_i from scratch.
func (wk *worker) rebuildW() {
	clear(wk.w)
	for i, a := range wk.alpha {
		if a != 0 {
			wk.axpyRow(a*float64(wk.y[i]), int32(i), wk.w)
		}
	}
}

// restoreSwitch puts back the dual state saved in wk.nt at the switch to
// a fallback (α, C − α for -s 7, w and the tracked objective).
func (wk *worker) restoreSwitch() {
	nt := wk.nt
	copy(wk.alpha, nt.alpha)
	copy(wk.alphaC, nt.alphaC)
	copy(wk.w, nt.w)
	wk.obj = nt.obj
}
