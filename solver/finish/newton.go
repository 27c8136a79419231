package finish

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

// The primal Newton method for -s 1 and -s 7.
//
// The primal problems are
//
//	-s 1:  P(w) = ½‖w‖² + Σ_i C_i max(0, 1 − z_i)²
//	-s 7:  P(w) = ½‖w‖² + Σ_i C_i log(1 + e^{−z_i}),   z_i = y_i wᵀx_i.
//
// Their minimiser gives the dual optimum in closed form:
// α_i = 2C_i max(0, 1 − z_i) for -s 1 and α_i = C_i/(1 + e^{z_i}) for
// -s 7, and w = Σ α_i y_i x_i − ∇P(w). So after Newton α is set from the
// margins, w = Σ α_i y_i x_i rebuilt exactly, and the dual's full KKT
// pass certifies (and if needed, dual CD finishes).
//
// For small d (d+1 ≤ Tuning.NewtonDenseMax) the Newton steps are exact,
// with the dense Hessian I + Σ D_i x_i x_iᵀ formed in one pass and
// factored by Cholesky, and an Armijo line search evaluated on the margins
// (z + t·Xs) without another data pass. For large d a trust-region
// Newton-CG method runs instead, briefly, and hands back to the dual
// early (tron.go).

const armijoC = 0.01

// newton holds the fallback's buffers; they are allocated on the first
// switch only, since most runs never need them.
type newton struct {
	p     *dual.Problem
	r     *solver.Run // the run the finisher works for (cancellation, trace)
	dim   int
	z, xs []float64 // per example: margins y_i wᵀx_i, and y_i sᵀx_i
	dcoef []float64 // per example: Hessian weight D_i
	g, s  []float64 // gradient, Newton direction
	h     []float64 // dense Hessian, dim×dim, row-major (dim ≤ Tuning.NewtonDenseMax)
	tr    *tron     // Newton-CG buffers (dim > Tuning.NewtonDenseMax, tron.go)

	// the dual state at the switch, restored if Newton does not improve it
	alpha, alphaC, w []float64
	obj              float64
}

func (f *Finisher) newNewton() *newton {
	p := f.p
	if f.nt == nil {
		dim := p.NF + 1
		f.nt = &newton{p: p, dim: dim,
			z: make([]float64, p.N), xs: make([]float64, p.N), dcoef: make([]float64, p.N),
			g: make([]float64, dim), s: make([]float64, dim),
			alpha: make([]float64, p.N), w: make([]float64, dim)}
		if dim <= f.t.NewtonDenseMax {
			f.nt.h = make([]float64, dim*dim)
		}
		if p.Loss == dual.Logistic {
			f.nt.alphaC = make([]float64, p.N)
		}
	}
	return f.nt
}

// margins sets z_i = y_i wᵀx_i from scratch.
func (nt *newton) margins() {
	p := nt.p
	for i := range nt.z {
		nt.z[i] = float64(p.Y[i]) * p.DotRow(int32(i), p.W)
	}
}

// primalLoss returns Σ_i C_i·loss(z_i + t·xs_i).
func (nt *newton) primalLoss(t float64) float64 {
	p := nt.p
	var f float64
	for i, z := range nt.z {
		m := z + float64(t*nt.xs[i])
		if p.Loss == dual.L2SVM {
			if h := 1 - m; h > 0 {
				f += float64(p.Cost(i) * h * h)
			}
		} else {
			f += float64(p.Cost(i) * dual.Log1pExpNeg(m))
		}
	}
	return f
}

// gradient sets nt.g = ∇P(w) and the Hessian weights D_i at the current
// margins, and returns ‖g‖.
func (nt *newton) gradient() float64 {
	p := nt.p
	copy(nt.g, p.W)
	for i, z := range nt.z {
		ci := p.Cost(i)
		var gi, di float64
		if p.Loss == dual.L2SVM {
			if z < 1 {
				gi = -2 * ci * (1 - z)
				di = 2 * ci
			}
		} else {
			// σ(−z) and σ(z)σ(−z) without overflow
			e := fmath.Exp(-math.Abs(z))
			sNeg := 1 / (1 + fmath.Exp(z))
			if z < 0 {
				sNeg = 1 / (1 + e)
			}
			gi = -ci * sNeg
			di = ci * e / ((1 + e) * (1 + e))
		}
		nt.dcoef[i] = di
		if gi != 0 {
			p.AxpyRow(gi*float64(p.Y[i]), int32(i), nt.g)
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
		s0 += float64(a[i] * b[i])
		s1 += float64(a[i+1] * b[i+1])
		s2 += float64(a[i+2] * b[i+2])
		s3 += float64(a[i+3] * b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += float64(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
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
	dp := nt.p
	dim, h := nt.dim, nt.h
	a, b := dp.RP[i], dp.RP[i+1]
	idx := dp.Idx[a:b:b]
	k := b - a
	dp.Ops += k * (k + 1) / 2
	sorted := true
	for q := 1; q < len(idx); q++ {
		if idx[q] <= idx[q-1] {
			sorted = false
			break
		}
	}
	if dp.Bias != 0 {
		bv := di * dp.Bias
		for p, jp := range idx {
			h[int(jp)*dim+dp.NF] += float64(bv * dp.Value(a+int64(p)))
		}
		h[dp.NF*dim+dp.NF] += float64(bv * dp.Bias)
	}
	switch {
	case sorted && dp.Val32 == nil:
		addOuterSorted(h, dim, di, idx, dp.Val[a:b:b])
	case sorted:
		addOuterSorted(h, dim, di, idx, dp.Val32[a:b:b])
	default:
		for p, jp := range idx {
			vp := di * dp.Value(a+int64(p))
			h[int(jp)*dim+int(jp)] += float64(vp * dp.Value(a+int64(p)))
			for q := p + 1; q < len(idx); q++ {
				// A Dataset built by hand may have unordered rows: order
				// each pair (and count a repeated index for both of its
				// orders).
				r, c := int(jp), int(idx[q])
				v := float64(vp * dp.Value(a+int64(q)))
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
	p, dim, h := nt.p, nt.dim, nt.h
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
	p.Ops += int64(dim) * int64(dim) * int64(dim) / 6
	return true
}

// cholSolve solves H x = sign·b with the factor from factor: L u = sign·b,
// then Lᵀ x = u. x must not alias b.
func (nt *newton) cholSolve(sign float64, b, x []float64) {
	dim, h := nt.dim, nt.h
	for j := 0; j < dim; j++ {
		rj := h[j*dim : j*dim+j+1]
		x[j] = (float64(sign*b[j]) - dot(rj[:j], x[:j])) / rj[j]
	}
	for j := dim - 1; j >= 0; j-- {
		v := x[j]
		for k := j + 1; k < dim; k++ {
			v -= float64(h[k*dim+j] * x[k])
		}
		x[j] = v / h[j*dim+j]
	}
}

// primalNewton minimises the primal from the current w and returns the
// Newton steps taken; it stops early on cancellation.
func (f *Finisher) primalNewton(r *solver.Run) int {
	p := f.p
	nt := f.newNewton()
	copy(nt.alpha, p.Alpha)
	copy(nt.alphaC, p.AlphaC)
	copy(nt.w, p.W)
	nt.obj = r.Obj
	if nt.h == nil {
		return f.primalTron(r)
	}
	xmax := 0.0
	for i := range p.N {
		xmax = max(xmax, p.Qii(int32(i)))
	}
	xmax = math.Sqrt(xmax)
	nt.margins()
	ww := dot(p.W, p.W)
	fval := float64(0.5*ww) + nt.primalLoss(0)
	steps := 0
	for steps < f.t.NewtonMaxIter {
		if r.Poll() {
			return steps
		}
		gnorm := nt.gradient()
		// |x_iᵀ∇P| ≤ ‖x_i‖‖∇P‖ bounds what the rebuilt dual w will add
		// to each coordinate's violation: a quarter of eps leaves room.
		if gnorm*xmax <= 0.25*p.Eps {
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
			nt.xs[i] = float64(p.Y[i]) * p.DotRow(int32(i), nt.s)
		}
		ws, ss := dot(p.W, nt.s), dot(nt.s, nt.s)
		t := 1.0
		var fNew float64
		accepted := false
		for range 30 {
			fNew = float64(0.5*(ww+float64(2*t*ws)+float64(t*t*ss))) + nt.primalLoss(t)
			if fNew <= fval+float64(armijoC*t*gs) {
				accepted = true
				break
			}
			t *= 0.5
		}
		steps++
		if !accepted {
			break
		}
		for j := range p.W {
			p.W[j] += float64(t * nt.s[j])
		}
		for i := range nt.z {
			nt.z[i] += float64(t * nt.xs[i])
		}
		ww = dot(p.W, p.W)
		done := fval-fNew <= 1e-15*math.Abs(fval)
		fval = fNew
		if done {
			break
		}
	}
	return steps
}

// dualFromPrimal sets α from the margins at the current w and rebuilds
// w = Σ α_i y_i x_i and the tracked objective, so that dual CD and its
// KKT pass continue from a consistent point. If that point is worse than
// the dual state at the switch, it restores that state and returns false.
// (Newton-CG's point is kept whenever it moved: see tron.go.)
func (f *Finisher) dualFromPrimal(r *solver.Run) bool {
	p, nt := f.p, f.nt
	nt.margins()
	for i, z := range nt.z {
		ci := p.Cost(i)
		var a float64
		if p.Loss == dual.L2SVM {
			a = 2 * ci * max(0, 1-z)
		} else {
			// α = C σ(−z), C − α = C σ(z), each computed directly; both
			// stay strictly positive as the logistic dual requires.
			a = ci / (1 + fmath.Exp(z))
			ac := ci / (1 + fmath.Exp(-z))
			tiny := ci * dual.Floor
			a, ac = max(a, tiny), max(ac, tiny)
			p.AlphaC[i] = ac
		}
		p.Alpha[i] = a
	}
	f.rebuildW()
	r.Obj = p.Objective()
	if r.Obj <= nt.obj || math.IsNaN(nt.obj) || nt.tr != nil && nt.tr.moved && !r.Cancelled() {
		return true
	}
	f.restoreSwitch(r)
	return false
}

// rebuildW sets w = Σ α_i y_i x_i from scratch.
func (f *Finisher) rebuildW() {
	p := f.p
	clear(p.W)
	for i, a := range p.Alpha {
		if a != 0 {
			p.AxpyRow(a*float64(p.Y[i]), int32(i), p.W)
		}
	}
}

// restoreSwitch puts back the dual state saved at the switch (α, C − α
// for -s 7, w and the tracked objective).
func (f *Finisher) restoreSwitch(r *solver.Run) {
	p, nt := f.p, f.nt
	copy(p.Alpha, nt.alpha)
	copy(p.AlphaC, nt.alphaC)
	copy(p.W, nt.w)
	r.Obj = nt.obj
}
