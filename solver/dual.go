package solver

import (
	"math"
	"math/rand/v2"
	"time"
	"unsafe"

	"github.com/acfcd/acfcd/kernel"
)

// lossKind is the dual problem being solved.
//
// SVM (Hsieh et al. 2008; liblinear's solve_l2r_l1l2_svc):
//
//	min_α f(α) = ½αᵀ(Q+D)α − eᵀα,  0 ≤ α_i ≤ U_i,  Q_ij = y_i y_j x_iᵀx_j
//
// with U_i = C_i, D_ii = 0 for the hinge loss (-s 3) and U_i = ∞,
// D_ii = 1/(2C_i) for the squared hinge (-s 1).
//
// Logistic regression (Yu, Huang & Lin 2011; liblinear's solve_l2r_lr_dual):
//
//	min_α f(α) = ½αᵀQα + Σ_i [α_i log α_i + (C_i−α_i) log(C_i−α_i)],  0 < α_i < C_i.
type lossKind uint8

const (
	l2svm lossKind = iota
	l1svm
	logistic
)

const (
	pgZero      = 1e-12 // liblinear steps only when |PG| exceeds this
	cancelEvery = 1 << 16
	lrMaxInner  = 100    // liblinear's max_inner_iter
	lrInnerEps0 = 1e-2   // liblinear's initial innereps
	lrFloor     = 1e-300 // smallest α_i/C_i (and 1 − α_i/C_i) the logistic dual keeps
)

// worker solves subproblems one after another, reusing its buffers.
type worker struct {
	*shared

	w      []float64 // dense weights, len nf+1; w[nf] is the bias weight
	alpha  []float64
	alphaC []float64 // logistic: C_i − α_i, kept separately as liblinear does
	y      []int8    // ±1
	ub     [2]float64
	diag   [2]float64 // indexed by (y+1)/2: 0 negative, 1 positive
	index  []int32    // shrink: liblinear's index array
	shrunk []uint64   // acf+shrink: bit i set when coordinate i is shrunk
	active []int32
	rng    *rand.Rand

	// logistic inner Newton tolerance (adapted per sweep, as liblinear)
	innerEps, innerEpsMin float64
	newtonIters           int64

	// accounting
	steps, ops int64
	epochs     int
	slowAt     int64   // steps at which slow() must run next
	epochAt    int64   // acf selections: steps at which the current epoch ends
	stepEpochs bool    // epochs counted as n steps (acf, acf+shrink) rather than sweeps (uniform, shrink)
	obj        float64 // dual objective, tracked by subtracting the exact gains
	passViol   float64 // from the last kktPass
	passPrimal float64
	chunks     []kktChunk // kktPass's per-chunk results
	lastViol   float64    // largest violation of the last reported sweep
	cancelled  bool
	capped     bool
	class      int

	// primal Newton fallback (newton.go)
	nt           *newton
	hg           *hinge // the hinge finisher's extra buffers (hinge.go)
	switchOps    int64  // hand over to Newton once ops reaches this (0: never)
	switching    bool
	newtonSteps  int
	tronRound    int           // Newton-CG switches so far in this subproblem (tron.go)
	ipmDeferred  int           // -s 3: times the switch was put off (hingeNearOptimal)
	tronDefer    int64         // Newton-CG: ops until which a near-done dual keeps going (0: not deferred)
	onViolator   func(i int32) // told of each violator a failed full KKT pass stepped on
	earlyChecked bool          // acf, acf+shrink: the full KKT pass at earlyCheck·eps has run
	ipmGap       float64       // -s 3: the duality gap when it was last put off
	ipmProbed    bool          // -s 3: the gap was looked at halfway to the switch (ipmProbeAt)
}

// newWorker returns a worker with its own buffers. w, if not nil, is used
// as the weight vector (len nf+1): a binary problem trains straight into
// the model's slice, so that at kdd scale (3·10⁷ features) the weights are
// not held twice.
func newWorker(sh *shared, w []float64) *worker {
	wk := &worker{shared: sh}
	if w == nil {
		w = make([]float64, sh.nf+1)
	}
	wk.w = w
	wk.alpha = make([]float64, sh.n)
	wk.y = make([]int8, sh.n)
	if sh.kind == logistic {
		wk.alphaC = make([]float64, sh.n)
	}
	return wk
}

// dotRow returns vᵀx_i, bias feature included, counting the non-zeros
// read. v is w for the dual steps, a Newton vector for the fallback.
func (wk *worker) dotRow(i int32, v []float64) float64 {
	a, b := wk.rp[i], wk.rp[i+1]
	wk.ops += b - a
	var s float64
	if wk.val32 == nil {
		s = kernel.Dot(wk.idx[a:b:b], wk.val[a:b:b], v)
	} else {
		s = kernel.Dot32(wk.idx[a:b:b], wk.val32[a:b:b], v)
	}
	return s + wk.bias*v[wk.nf]
}

// axpyRow does v += c·x_i, bias feature included, counting the non-zeros.
func (wk *worker) axpyRow(c float64, i int32, v []float64) {
	a, b := wk.rp[i], wk.rp[i+1]
	wk.ops += b - a
	if wk.val32 == nil {
		kernel.Axpy(c, wk.idx[a:b:b], wk.val[a:b:b], v)
	} else {
		kernel.Axpy32(c, wk.idx[a:b:b], wk.val32[a:b:b], v)
	}
	v[wk.nf] += c * wk.bias
}

// prefetchAhead is how many steps ahead the batch loops prefetch rows.
// Rows are visited in random order, so without it every step starts with
// a cache miss on its row's indices and values; 2 measured best.
const prefetchAhead = 2

// usePrefetch can be turned off by tests and measurements.
var usePrefetch = true

// prefetch asks for row i's indices and values ahead of use.
func (wk *worker) prefetch(i int32) {
	a, b := wk.rp[i], wk.rp[i+1]
	if b > a {
		if wk.val32 == nil {
			prefetchRow(unsafe.Pointer(&wk.idx[a]), uintptr(b-a)*4, unsafe.Pointer(&wk.val[a]), uintptr(b-a)*8)
		} else {
			prefetchRow(unsafe.Pointer(&wk.idx[a]), uintptr(b-a)*4, unsafe.Pointer(&wk.val32[a]), uintptr(b-a)*4)
		}
	}
}

// prefetchIn prefetches the row prefetchAhead places after k in batch.
func (wk *worker) prefetchIn(batch []int32, k int) {
	if k += prefetchAhead; k < len(batch) && usePrefetch {
		wk.prefetch(batch[k])
	}
}

// solve trains subproblem s: the examples labelled pos (class s.class, or
// for two classes class 0) positive, everything else negative.
func (wk *worker) solve(s *subproblem, pos float64) {
	start := time.Now()
	sel := wk.prepare(s, pos)
	converged := wk.run(wk.newMode(sel, s.seed))
	for round := uint64(1); wk.switching; round++ {
		wk.onViolator = nil // the mode that ran is done
		wk.switching, wk.switchOps = false, 0
		var improved bool
		if wk.kind == l1svm {
			wk.newtonSteps += wk.hingeFinish(round == 1)
			improved = wk.hingeRestore()
			if round < ipmMaxRounds && testSwitchOps == 0 {
				// Examples settled wrongly can leave dual CD a point it
				// stalls at (breast-cancer, C = 1000, -e 0.001: 1000
				// epochs at violation 0.003): should it stall, it
				// switches again, after the same budget, to the method
				// without settling (hinge.go).
				if budget, ok := wk.newtonSwitchOps(); ok && budget > 0 {
					wk.switchOps = wk.ops + dualStepOps*wk.steps + budget
					wk.ipmDeferred, wk.ipmProbed = 0, true
				}
			}
		} else {
			wk.newtonSteps += wk.primalNewton()
			improved = wk.dualFromPrimal()
			if wk.nt.tr != nil && round < tronMaxRounds {
				// Newton-CG hands back early (tron.go): should the dual
				// stall again, it switches again from where it is.
				next := wk.tronSwitchOps(wk.nnzAll())
				if testSwitchOps != 0 {
					next = testSwitchOps
				}
				wk.switchOps = wk.ops + dualStepOps*wk.steps + next
			}
		}
		if !wk.cancelled {
			// The full KKT pass certifies the Newton answer; if it is not
			// yet within eps, dual CD finishes from there.
			converged = (improved && wk.kktPass(true)) || wk.run(wk.newMode(sel, s.seed^0x6e6577746f6e*round))
		}
	}
	wk.finish(s, converged)
	s.res.Seconds = time.Since(start).Seconds()
}

// prepare sets up subproblem s at liblinear's starting point and returns
// the selection to use.
func (wk *worker) prepare(s *subproblem, pos float64) selection {
	for i, v := range wk.label {
		if v == pos { // labels are validated integers: no NaN, and −0 == +0 as in groupClasses
			wk.y[i] = 1
		} else {
			wk.y[i] = -1
		}
	}
	wk.class = s.class
	wk.ub = [2]float64{s.cn, s.cp}
	switch wk.kind {
	case l1svm:
		wk.diag = [2]float64{0, 0}
	case l2svm:
		wk.ub = [2]float64{math.Inf(1), math.Inf(1)}
		wk.diag = [2]float64{0.5 / s.cn, 0.5 / s.cp}
	case logistic:
		wk.diag = [2]float64{0, 0}
	}
	clear(wk.w)
	wk.steps, wk.ops, wk.epochs, wk.newtonIters = 0, 0, 0, 0
	wk.cancelled, wk.capped = false, false
	wk.lastViol = math.Inf(1)
	wk.switching, wk.newtonSteps, wk.tronRound, wk.ipmDeferred = false, 0, 0, 0
	wk.tronDefer = 0
	wk.earlyChecked = false
	wk.ipmProbed = false
	wk.switchOps, _ = wk.newtonSwitchOps()
	if testSwitchOps != 0 && wk.switchOps != 0 {
		wk.switchOps = testSwitchOps
	}
	wk.obj = 0
	if wk.kind == logistic {
		// liblinear's start: α_i = min(0.001 C_i, 1e-8).
		wk.innerEps = lrInnerEps0
		wk.innerEpsMin = min(1e-8, wk.eps)
		for i := range wk.alpha {
			c := wk.ub[(wk.y[i]+1)>>1]
			a := min(0.001*c, 1e-8)
			wk.alpha[i] = a
			wk.alphaC[i] = c - a
			wk.axpyRow(a*float64(wk.y[i]), int32(i), wk.w)
		}
		wk.obj = wk.dualObjective()
	} else {
		clear(wk.alpha)
	}
	wk.rng = rand.New(rand.NewPCG(s.seed, 0x73687269))

	sel := wk.sel
	if wk.kind == logistic {
		// No α_i of the logistic dual sits at a bound: nothing to shrink.
		switch sel {
		case selShrink:
			sel = selUniform
		case selACFShrink:
			sel = selACF
		}
	}
	// The ACF selections count an epoch as n coordinate steps. (Counting
	// acf+shrink's sweeps over the shrunk active set instead, as liblinear
	// counts #iter, was tried: ACF sweeps over a small active set visit
	// low-preference coordinates rarely, and at the same cap of 1000 it
	// stopped unconverged on diabetes_scale -s 3 -c 1 where liblinear
	// converges; see bench/results.)
	wk.stepEpochs = sel == selACF || sel == selACFShrink
	wk.epochAt = int64(wk.n)
	wk.slowAt = min(int64(cancelEvery), wk.epochAt)
	if !wk.stepEpochs {
		wk.slowAt = cancelEvery
	}
	return sel
}

// finish fills in s.res after the run.
func (wk *worker) finish(s *subproblem, converged bool) {
	r := &s.res
	var viol, primal float64
	if converged {
		viol, primal = wk.passViol, wk.passPrimal
	} else if wk.cancelled {
		// A full pass reads all the data: seconds at kdd scale, where
		// the caller asked to stop now. Report the last sweep's largest
		// violation instead, and no primal.
		viol, primal = wk.lastViol, math.NaN()
	} else {
		// Stopped early: measure where we are, without steps.
		wk.kktPass(false)
		viol, primal = wk.passViol, wk.passPrimal
		converged = viol <= wk.eps
	}
	if testHookAlpha != nil {
		testHookAlpha(hookData{class: s.class, alpha: wk.alpha, alphaC: wk.alphaC, y: wk.y, ub: wk.ub, diag: wk.diag})
	}
	r.Iterations = wk.steps
	r.Epochs = wk.epochs
	if wk.stepEpochs {
		r.Epochs = int((wk.steps + int64(wk.n) - 1) / int64(wk.n))
	}
	r.Operations = wk.ops
	r.Objective = wk.dualObjective()
	r.Primal = primal
	r.Gap = primal + r.Objective
	r.Violation = viol
	r.Converged = converged && !wk.cancelled
	r.Cancelled = wk.cancelled
	r.HitEpochCap = wk.capped && !converged
	r.NewtonSteps = wk.newtonSteps
	for _, v := range wk.w {
		if v != 0 {
			r.NNZW++
		}
	}
}

// debugf, when set by a test, receives trace lines (every full KKT pass;
// with debugBatches, every batch too).
var (
	debugf       func(format string, args ...any)
	debugBatches bool
)

// testSwitchOps, when set by a test, replaces the switch rule's estimate
// (where the fallback is allowed at all).
var testSwitchOps int64

// testHookAlpha, when set by a test, sees each subproblem's final dual
// variables (slices owned by the worker: copy them).
var testHookAlpha func(hookData)

type hookData struct {
	class         int
	alpha, alphaC []float64 // alphaC: C_i − α_i, logistic only
	y             []int8
	ub, diag      [2]float64 // indexed by (y+1)/2
}

// dualObjective is f(α) as liblinear prints it:
// SVM: ½(‖w‖² + Σ α_i(α_i D_ii − 2)) (linear.cpp 2.3.0, solve_l2r_l1l2_svc);
// LR:  ½‖w‖² + Σ α_i log α_i + (C_i−α_i) log(C_i−α_i) − C_i log C_i
// (solve_l2r_lr_dual).
func (wk *worker) dualObjective() float64 {
	var ww float64
	for _, v := range wk.w {
		ww += v * v
	}
	if wk.kind == logistic {
		v := 0.5 * ww
		for i, a := range wk.alpha {
			c := wk.ub[(wk.y[i]+1)>>1]
			v += xlogx(a) + xlogx(wk.alphaC[i]) - c*math.Log(c)
		}
		return v
	}
	v := ww
	for i, a := range wk.alpha {
		v += a * (a*wk.diag[(wk.y[i]+1)>>1] - 2)
	}
	return v / 2
}

func xlogx(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return x * math.Log(x)
}

// svmGrad returns G = ∂f/∂α_i = y_i wᵀx_i − 1 + D_ii α_i.
func (wk *worker) svmGrad(i int32) float64 {
	c := (wk.y[i] + 1) >> 1
	return float64(wk.y[i])*wk.dotRow(i, wk.w) - 1 + wk.alpha[i]*wk.diag[c]
}

// svmPG is the projected gradient for gradient G at coordinate i.
func (wk *worker) svmPG(i int32, G float64) float64 {
	a := wk.alpha[i]
	if a == 0 {
		return min(G, 0)
	}
	if a == wk.ub[(wk.y[i]+1)>>1] {
		return max(G, 0)
	}
	return G
}

// svmMove does the exact one-variable minimisation at coordinate i with
// gradient G and returns the decrease of f, −(G d + ½ Q_ii d²).
func (wk *worker) svmMove(i int32, G float64) float64 {
	c := (wk.y[i] + 1) >> 1
	q := wk.qii(i) + wk.diag[c]
	a := wk.alpha[i]
	var na float64
	if q > 0 {
		na = min(max(a-G/q, 0), wk.ub[c])
	} else if G < 0 { // empty row, hinge loss: f is linear in α_i
		na = wk.ub[c]
	}
	d := na - a
	if d == 0 {
		return 0
	}
	wk.alpha[i] = na
	wk.axpyRow(d*float64(wk.y[i]), i, wk.w)
	return -(G*d + 0.5*q*d*d)
}

// visit does one coordinate-descent step at i and returns the violation
// measured before it and the exact decrease of f.
func (wk *worker) visit(i int32) (viol, gain float64) {
	if wk.kind == logistic {
		return wk.lrStep(i, wk.dotRow(i, wk.w))
	}
	G := wk.svmGrad(i)
	pg := wk.svmPG(i, G)
	if math.Abs(pg) > pgZero {
		gain = wk.svmMove(i, G)
	}
	return math.Abs(pg), gain
}

// lrStep minimises the logistic dual along coordinate i by liblinear's
// safeguarded Newton method on the one-variable subproblem, given
// wx = wᵀx_i. It returns |∂f/∂α_i| before the step and the exact decrease
// of f.
//
// With a = Q_ii, b = y_i wᵀx_i, the subproblem in z (z = α_i, or C−α_i
// when the minimiser lies above C/2, so that z stays the smaller, exactly
// represented side) is
//
//	g(z) = z log z + (C−z) log(C−z) + ½a(z−z₀)² + s·b(z−z₀),  s = ±1.
//
// The change of f is g(z) − g(z₀). With δ = z − z₀, u₀ = C − z₀ and
// h(x) = (1+x)log(1+x) − x,
//
//	z log z − z₀ log z₀ = δ log z₀ + z₀ h(δ/z₀)
//
// and likewise for C−z, so
//
//	Δf = δ·g'(z₀) + ½aδ² + z₀ h(δ/z₀) + u₀ h(−δ/u₀),  g'(z₀) = s·b + log(z₀/u₀),
//
// where each h term is a non-negative Bregman divergence evaluated without
// cancellation (series for small arguments).
func (wk *worker) lrStep(i int32, wx float64) (viol, gain float64) {
	yf := float64(wk.y[i])
	C := wk.ub[(wk.y[i]+1)>>1]
	a := wk.qii(i)
	b := yf * wx
	al, ac := wk.alpha[i], wk.alphaC[i]
	g0 := b + math.Log(al/ac) // ∂f/∂α_i
	viol = lrViolation(g0, al, ac, C)

	z0, u0, sign := al, ac, 1.0
	if 0.5*a*(ac-al)+b < 0 {
		z0, u0, sign = ac, al, -1.0
	}
	// g'(z₀) = log(z₀/u₀) + s·b is ±g0: no second logarithm (logarithms
	// were 11% of -s 7's profile on debian-desc -c 100), and from the
	// stored pair α, C − α rather than C − z₀.
	z, gp := z0, sign*g0
	if C-z < 0.5*C {
		z = 0.1 * z
		gp = a*(z-z0) + sign*b + math.Log(z/(C-z))
	}
	inner := 0
	for inner <= lrMaxInner {
		if math.Abs(gp) < wk.innerEps {
			break
		}
		gpp := a + C/(C-z)/z
		// Newton on z where the quadratic term a·z dominates g'', and on
		// u = log z where the log term does (a·z < 1) or the step on z
		// leaves (0, C). g' is convex and increasing in u on
		// (−∞, log C/2], and g'(C/2) ≥ 0 by the choice of side, so in u
		// a step from the right of the root descends to it monotonically
		// and a step from the left lands right of it (or at C/2).
		// liblinear's Newton on z instead multiplies z by 0.1 whenever the
		// step leaves (0, C): an example whose optimal α is e^{−40}·C then
		// needs hundreds of visits to walk down (and, once overshot, back
		// up by a factor 1+|g'| per step), which left -s 7 at its epoch cap
		// on news20 with raw counts at every C ≥ 0.1.
		tz := z - gp/gpp
		if a*z < 1 || tz <= 0 {
			tz = z * math.Exp(-gp/(z*gpp))
		}
		z = min(tz, 0.5*C)
		if z < lrFloor*C {
			z = lrFloor * C // the optimum is below what float64 keeps (margin > 690)
		}
		gp = a*(z-z0) + sign*b + math.Log(z/(C-z))
		inner++
		if z == lrFloor*C && gp > 0 {
			break
		}
	}
	wk.newtonIters += int64(inner)
	// liblinear updates only after a Newton iteration; we also keep a moved
	// starting point (z₀ > C/2 replaced by 0.1 z₀) that already met the
	// inner tolerance, else such a coordinate could never move.
	if inner == 0 && z == z0 {
		return viol, 0
	}
	d := z - z0
	if sign > 0 {
		wk.alpha[i], wk.alphaC[i] = z, C-z
	} else {
		wk.alphaC[i], wk.alpha[i] = z, C-z
	}
	wk.axpyRow(sign*d*yf, i, wk.w)
	return viol, -lrDelta(d, z0, u0, a, sign*g0)
}

// lrViolation is the KKT violation of the logistic dual at α_i = al
// (C_i − α_i = ac) with gradient g: |g|, except that a side held at the
// floor lrFloor·C_i while g pushes it further down counts as at a bound.
// Its optimum there is below what float64 represents (C·e^{−m} for a
// margin m > 690, seen on news20 with raw counts), and no step can
// change the objective by more than 1e-300·C.
func lrViolation(g, al, ac, C float64) float64 {
	if (g > 0 && al <= lrFloor*C) || (g < 0 && ac <= lrFloor*C) {
		return 0
	}
	return math.Abs(g)
}

// lrDelta is the change of the logistic dual objective when the variable z
// of lrStep moves from z0 (its complement u0 = C − z0) by d, with
// a = Q_ii and gp0 = g'(z0):
//
//	Δf = d·gp0 + ½ a d² + z0·h(d/z0) + u0·h(−d/u0).
func lrDelta(d, z0, u0, a, gp0 float64) float64 {
	return d*gp0 + 0.5*a*d*d + z0*bregLog(d/z0) + u0*bregLog(-d/u0)
}

// bregLog returns h(x) = (1+x)·log(1+x) − x for x > −1 without
// cancellation: h(x) = Σ_{k≥2} (−1)^k x^k / (k(k−1)) for small |x|.
func bregLog(x float64) float64 {
	if x <= -1 {
		// The step took a side of the pair to 0 (its complement to C,
		// to rounding): the limit (1+x)log(1+x) → 0 gives h(−1) = 1,
		// where the formula below would give 0·(−∞) = NaN.
		return 1
	}
	if math.Abs(x) >= 0.05 {
		return (1+x)*math.Log1p(x) - x
	}
	// Horner over k = 2..14; the k = 15 term is below 1e-17 of the sum.
	const (
		c2  = 1.0 / 2
		c3  = -1.0 / 6
		c4  = 1.0 / 12
		c5  = -1.0 / 20
		c6  = 1.0 / 30
		c7  = -1.0 / 42
		c8  = 1.0 / 56
		c9  = -1.0 / 72
		c10 = 1.0 / 90
		c11 = -1.0 / 110
		c12 = 1.0 / 132
		c13 = -1.0 / 156
		c14 = 1.0 / 182
	)
	p := c14
	p = p*x + c13
	p = p*x + c12
	p = p*x + c11
	p = p*x + c10
	p = p*x + c9
	p = p*x + c8
	p = p*x + c7
	p = p*x + c6
	p = p*x + c5
	p = p*x + c4
	p = p*x + c3
	p = p*x + c2
	return p * x * x
}

// kktPass goes over every example in storage order at the current α and w
// and sets passViol to the largest violation: |projected gradient| for the
// SVMs, |∂f/∂α_i| for LR (α_i is always interior there, so its KKT
// condition is ∂f/∂α_i = 0). With fix, a coordinate whose violation
// exceeds eps is stepped on the spot and the pass reports failure. A pass
// that returns true took no step, so passViol ≤ eps holds for ALL
// coordinates at one point (α, w), and passPrimal is the primal objective
// at that w. The pass is not counted as an epoch.
//
// Up to the first violator (all of the pass when none is found) nothing
// changes, so that part is read-only and runs in chunks of kktChunkRows
// examples on the spare processors of the pool (scanChunks). From the first
// violator on, each step changes w for the examples after it, and the pass
// goes on sequentially. The result is the same as the plain sequential
// loop's: the same steps in the same order, the same α, w, objective and
// counts, and the same violation; only the loss is summed per chunk, with
// the chunk sums added in chunk order, so the primal value has the same
// bits at any GOMAXPROCS (and may differ from one running sum in the last
// bits).
func (wk *worker) kktPass(fix bool) bool {
	var start time.Time
	if testHookKKTPass != nil {
		start = time.Now()
	}
	nch := (wk.n + kktChunkRows - 1) / kktChunkRows
	if cap(wk.chunks) < nch {
		wk.chunks = make([]kktChunk, nch)
	}
	chunks := wk.chunks[:nch]
	done := scanChunks(chunks, wk.n, wk.rp[wk.n], wk.pool, func(bool) func(lo, hi int) kktChunk {
		return func(lo, hi int) kktChunk { return wk.kktScan(lo, hi, fix) }
	})
	var viol, loss float64
	for _, r := range chunks[:done] {
		viol = max(viol, r.viol)
		loss += r.loss
		wk.ops += r.ops
	}
	ok, first := true, wk.n
	if done > 0 && chunks[done-1].stop >= 0 {
		ok, first = false, chunks[done-1].stop
		for i := first; i < wk.n; i++ {
			i := int32(i)
			wx := wk.dotRow(i, wk.w)
			v, l, G := wk.kktEval(i, wx)
			loss += l
			if v > wk.eps {
				wk.steps++
				if wk.kind == logistic {
					_, gain := wk.lrStep(i, wx)
					wk.obj -= gain
				} else {
					wk.obj -= wk.svmMove(i, G)
				}
				if wk.onViolator != nil {
					wk.onViolator(i)
				}
			}
			viol = max(viol, v)
		}
	}
	wk.passViol = viol
	if debugf != nil {
		debugf("class %d: kkt pass fix=%v ok=%v viol=%.3g steps=%d (%.1f epochs) obj=%.10g", wk.class, fix, ok, viol, wk.steps, float64(wk.steps)/float64(wk.n), wk.obj)
	}
	var ww float64
	for _, x := range wk.w {
		ww += x * x
	}
	wk.passPrimal = 0.5*ww + loss
	if testHookKKTPass != nil {
		testHookKKTPass(time.Since(start), ok, first)
	}
	return ok
}

// testHookKKTPass, when set by a measurement, is called at the end of each
// full KKT pass with its wall time, its answer and the first violator
// stepped on (n when none). It may be called from several goroutines.
var testHookKKTPass func(d time.Duration, ok bool, first int)

// kktScan evaluates examples [lo, hi) at the current point, changing
// nothing (it runs on several goroutines at once). With fix it stops at
// the first example whose violation exceeds eps and leaves it out.
func (wk *worker) kktScan(lo, hi int, fix bool) kktChunk {
	r := kktChunk{stop: -1}
	w := wk.w
	for i := lo; i < hi; i++ {
		a, b := wk.rp[i], wk.rp[i+1]
		var wx float64
		if wk.val32 == nil {
			wx = kernel.Dot(wk.idx[a:b:b], wk.val[a:b:b], w)
		} else {
			wx = kernel.Dot32(wk.idx[a:b:b], wk.val32[a:b:b], w)
		}
		wx += wk.bias * w[wk.nf] // as dotRow
		v, l, _ := wk.kktEval(int32(i), wx)
		if fix && v > wk.eps {
			r.stop = i
			return r
		}
		r.ops += b - a
		r.viol = max(r.viol, v)
		r.loss += l
	}
	return r
}

// kktEval returns example i's KKT violation and weighted primal loss at
// the current α given wx = wᵀx_i, and for the SVMs its gradient G.
func (wk *worker) kktEval(i int32, wx float64) (viol, loss, G float64) {
	c := (wk.y[i] + 1) >> 1
	m := float64(wk.y[i]) * wx // margin
	if wk.kind == logistic {
		viol = lrViolation(m+math.Log(wk.alpha[i]/wk.alphaC[i]), wk.alpha[i], wk.alphaC[i], wk.ub[c])
		return viol, wk.ub[c] * log1pExpNeg(m), 0
	}
	G = m - 1 + wk.alpha[i]*wk.diag[c]
	viol = math.Abs(wk.svmPG(i, G))
	if h := 1 - m; h > 0 {
		if wk.kind == l1svm {
			loss = wk.ub[c] * h
		} else {
			loss = 0.5 / wk.diag[c] * h * h
		}
	}
	return viol, loss, G
}

// log1pExpNeg returns log(1 + e^{−m}) without overflow.
func log1pExpNeg(m float64) float64 {
	if m >= 0 {
		return math.Log1p(math.Exp(-m))
	}
	return -m + math.Log1p(math.Exp(m))
}

// slow runs the rare checks: cancellation, and for step-counted epochs the
// epoch boundary (progress report, epoch cap). It returns true to stop.
func (wk *worker) slow(viol float64) bool {
	select {
	case <-wk.done:
		wk.cancelled = true
		return true
	default:
	}
	if wk.stepEpochs {
		for wk.steps >= wk.epochAt {
			wk.epochAt += int64(wk.n)
			wk.epochs++
			if wk.endEpoch(viol) {
				return true
			}
		}
		wk.slowAt = min(wk.steps+cancelEvery, wk.epochAt)
	} else {
		wk.slowAt = wk.steps + cancelEvery
	}
	return false
}

// endEpoch reports progress and applies the epoch cap.
func (wk *worker) endEpoch(viol float64) bool {
	wk.report(viol)
	if wk.switchNow() {
		return true
	}
	if wk.epochs >= wk.maxEpochs {
		wk.capped = true
		return true
	}
	return false
}

// dualStepOps is the cost of a dual CD step beyond its non-zeros, in
// non-zeros (for the Newton switch rule).
const dualStepOps = 8

// switchNow reports whether the dual has spent the Newton fallback's
// estimated cost, and marks the switch.
func (wk *worker) switchNow() bool {
	// A step costs a random row access and the selection's bookkeeping on
	// top of its non-zeros: on w8a (12 non-zeros a row) acf+shrink spends
	// about as much time per step as on 8 non-zeros.
	cur := wk.ops + dualStepOps*wk.steps
	if wk.kind == l1svm && !wk.ipmProbed && wk.ipmDeferred == 0 && wk.switchOps > 0 && testSwitchOps == 0 &&
		float64(cur) >= ipmProbeAt*float64(wk.switchOps) {
		// -s 3: a dual still far from its optimum halfway to the switch
		// is not going to finish in the other half (hinge.go).
		wk.ipmProbed = true
		if wk.lastViol > ipmFarViol*wk.eps && wk.hingeGap() >= ipmFarGap*math.Abs(wk.obj) {
			if debugf != nil {
				debugf("ipm probe: obj %.10g, last violation %.3g after %d epochs: switch now", wk.obj, wk.lastViol, wk.epochs)
			}
			wk.switching = true
			return true
		}
	}
	if wk.switchOps > 0 && cur >= wk.switchOps {
		if wk.kind != l1svm && int64(wk.nf+1) > newtonDenseMax && testSwitchOps == 0 {
			// Newton-CG (tron.go): a dual whose last sweep was near eps
			// is nearly done; it gets tronDeferPasses more passes over
			// the non-zeros before the switch.
			if wk.tronDefer == 0 && wk.lastViol <= tronNearViol*wk.eps {
				wk.tronDefer = cur + tronDeferPasses*wk.nnzAll()
			}
			if cur < wk.tronDefer {
				return false
			}
		}
		wk.tronDefer = 0
		if wk.kind == l1svm && wk.ipmDeferred < ipmMaxDefer && testSwitchOps == 0 && wk.hingeNearOptimal() {
			// -s 3: the dual is nearly done (hinge.go); it gets the
			// same budget again before the switch.
			wk.ipmDeferred++
			budget, _ := wk.newtonSwitchOps()
			wk.switchOps = wk.ops + dualStepOps*wk.steps + budget
			return false
		}
		wk.switching = true
		return true
	}
	return false
}

func (wk *worker) report(viol float64) {
	wk.lastViol = viol
	if wk.progress != nil {
		wk.progress(Progress{Class: wk.class, Epoch: wk.epochs, Violation: viol, Objective: wk.obj})
	}
}

// lrEndSweep adapts liblinear's inner Newton tolerance after a sweep of m steps.
func (wk *worker) lrEndSweep(m int) {
	if wk.kind == logistic {
		if wk.newtonIters <= int64(m/10) {
			wk.innerEps = max(wk.innerEpsMin, 0.1*wk.innerEps)
		}
		wk.newtonIters = 0
	}
}
