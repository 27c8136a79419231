// Package primal is the L2-regularised primal problem of linear
// classification and regression, solved by Newton's method:
//
//	f(w) = ½‖w‖² + Σ_i C_i ℓ(z_i)
//
// with the losses of liblinear's primal solvers
//
//	-s 0  logistic:        ℓ(z) = log(1 + e^{−z}),        z_i = y_i wᵀx_i
//	-s 2  squared hinge:   ℓ(z) = max(0, 1 − z)²,          z_i = y_i wᵀx_i
//	-s 11 squared ε-tube:  ℓ(r) = max(0, |r| − ε)²,        r_i = wᵀx_i − y_i
//
// (the same functions are the primals of the duals -s 7 and -s 1, which
// package finish solves here when dual coordinate descent stalls). With
// FreeBias (liblinear's -R) the bias weight is left out of ½‖w‖².
//
// Where Dense holds (at most Tuning.NewtonDenseMax weights, and a
// Cholesky factor no dearer than the Hessian and a CG solve) the Newton
// steps are exact: the
// Hessian H = I + Σ D_i x_i x_iᵀ (D_i is C_i times the loss's second
// derivative, the generalised one for the squared losses) is formed in
// its lower triangle over each row's non-zeros (dense.go), factored by
// Cholesky, and the step's length comes from a line search evaluated on
// the margins z + t·Xs without another pass over the data (newton.go).
// For larger d a trust-region Newton method with preconditioned conjugate
// gradients runs instead, needing only Hessian-vector products (cg.go).
//
// Every phase polls for cancellation (the Hessian's formation every
// Tuning.PollWork operations, the Cholesky factorisation after each block
// of rows, Newton-CG at every CG step): a formation or a factorisation
// near d = 4096 takes seconds.
package primal

import (
	"math"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/dense"
	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/rows"
	"github.com/acfcd/acfcd/kernel"
	solver "github.com/acfcd/acfcd/solver"
)

// Loss is the loss of the primal problem.
type Loss uint8

const (
	Logistic     Loss = iota // -s 0 (the primal of -s 7)
	SquaredHinge             // -s 2 (the primal of -s 1)
	SquaredTube              // -s 11: the squared ε-insensitive loss of support vector regression
)

// armijo is the sufficient decrease of the line search (liblinear's eta).
const armijo = 0.01

// Problem is one primal problem over rows: a binary subproblem (labels
// in Y) or a regression (targets in T). Its buffers are reused when the
// caller changes the labels, costs or W for the next subproblem.
type Problem struct {
	rows.Rows
	Loss Loss
	// Y are the ±1 labels of the classification losses; T the targets of
	// SquaredTube (Y nil).
	Y []int8
	T []float64
	// Cost holds C_i by class, Cost[(y_i+1)/2]; the regression uses Cost[0].
	Cost [2]float64
	// P is SquaredTube's ε.
	P float64
	// FreeBias leaves the bias weight W[NF] out of the regulariser.
	FreeBias bool
	// W is the weight vector, len NF+1; W[NF] is the bias weight.
	W []float64
	// Ops counts the non-zeros touched (and the Hessian's and the
	// Cholesky factor's operations).
	Ops int64
	// Pool lends spare processors to the Hessian's formation and the
	// margins.
	Pool *procs.Pool
	// Poll, if set, reports cancellation; it is called from the calling
	// goroutine only. Done, if set, is closed on cancellation too: the
	// goroutines helping with the Hessian check it.
	Poll func() bool
	Done <-chan struct{}
	// Trace, if set, gets a line per iteration.
	Trace func(format string, args ...any)
	// Polish: once the stopping rule of Newton holds, one more step along
	// the last Hessian's factor (chord), kept if it lowers f and ‖∇f‖.
	Polish bool
	// DropSum: the logistic loss's Hessian leaves out the rows of least
	// D_i‖x_i‖² that sum to at most DropSum (0: only those below
	// Tuning.HessianDropRel).
	DropSum float64
	// Lean: the logistic loss's passes take their cheaper forms (one
	// exponential per example in the gradient; no f at the line search's
	// inner trials, lineSearch), rounded otherwise than -s 0's.
	Lean bool
	// RayMax: the logistic loss's Newton method first moves W to the
	// minimiser βW of f along its ray if β ≤ RayMax (0: never; rayScale).
	RayMax float64

	drv       *solver.Tuning // the driver's: cancellation and parallel passes
	tune      *Tuning
	dense     bool      // Dense(Rows, tune), fixed at New
	z, xs, dc []float64 // per example: margin, margin of the direction, Hessian weight D_i
	g, s      []float64 // gradient, direction
	h         []float64 // dense Hessian dim×dim (lower triangle), allocated on first use
	hw        []int64   // Hessian work by row of H, cumulative (the parallel split), on first use
	split     []int     // the boundaries of the rows of H of the formation's parts
	qsplit    []int32   // per example, the positions of the inner boundaries of split
	qparts    int       // the number of parts of split and qsplit (0: none yet)
	hrows     []int32   // the examples of a formation
	hcoef     []float64 // and their coefficients
	hsum      []float64 // Σ D_i x_i x_iᵀ of the last formation, kept for the squared losses
	dprev     []float64 // its D_i
	xsq       []float64 // per example ‖x_i‖², for the logistic loss's formation
	kept      bool      // hsum and dprev hold the last formation of this Newton run
	hscale    float64   // 2^−k with p.h = H·2^−k when H overflows a float64, 0 otherwise (this Newton run)
	order     int8      // 0 unknown, 1 every row's indices strictly increase, −1 not
	binary    int8      // 0 unknown, 1 every stored value is 1, −1 not
	cg        *cgState
	sums      []float64 // per part: partial sums of the loss (and of its derivatives)
	gparts    []float64 // parts 1, 2, ...: the gradient's partial sums (dense Newton only)
	cancelled bool
	pollAt    int64     // Ops at which the next poll is due
	zsave     []float64 // chord: the margins before its step
	wsave     []float64 // chord: W and ∇f before its step
}

// New returns a problem on r with its own buffers (W included); the
// caller sets Y or T, Cost, P and FreeBias.
func New(r rows.Rows, loss Loss, drv *solver.Tuning, t *Tuning, pool *procs.Pool) *Problem {
	dim := r.NF + 1
	return &Problem{Rows: r, Loss: loss, Pool: pool, drv: drv, tune: t, dense: Dense(r, t),
		W: make([]float64, dim), g: make([]float64, dim), s: make([]float64, dim),
		z: make([]float64, r.N), xs: make([]float64, r.N), dc: make([]float64, r.N)}
}

// Dim is the number of weights, the bias weight included.
func (p *Problem) Dim() int { return p.NF + 1 }

// DenseNewton reports whether the Newton steps are exact (a dense
// Hessian) rather than trust-region Newton-CG: Dense.
func (p *Problem) DenseNewton() bool { return p.dense }

// Dense reports whether exact Newton steps are the method on rows r: at
// most Tuning.NewtonDenseMax weights (the Hessian's d² floats in memory),
// and a Cholesky factor, d³/6 multiply-adds, that costs no more than
// forming the Hessian, Outer(r), plus d Hessian products over the data,
// the most a conjugate-gradient solve of H s = −∇f takes: beyond that
// Newton-CG's steps undercut exact ones whatever H's condition. 2000 count
// features of about 30 a row (bench/corpus reg-counts) factor in 1.3·10⁹
// against a 1.4·10⁷ formation and 9.6·10⁸ for d products; a1a's 124
// weights factor in 3·10⁵, below its 5·10⁶ for d products.
func Dense(r rows.Rows, t *Tuning) bool {
	dim := int64(r.NF + 1)
	return dim <= int64(t.NewtonDenseMax) && dim*dim*dim/6 <= Outer(r)+2*dim*(r.RP[r.N]-r.RP[0])
}

// DenseStepOps returns the operations of a dense Newton step on r beyond
// its passes: the Hessian's lower triangle over every row's non-zeros
// (Outer) and its Cholesky factor.
func DenseStepOps(r rows.Rows) int64 {
	dim := int64(r.NF + 1)
	return Outer(r) + dim*dim*dim/6
}

// CGDearer reports whether a Newton-CG iteration of k CG products on rows
// of nnz non-zeros costs more than half a dense Newton step of denseStep
// operations (DenseStepOps): each product is two passes over the
// non-zeros and the iteration's step, margins and gradient three more;
// the dense step's Hessian and factor cost Tuning.DenseOpCost an
// operation, and its passes four. Half, since Newton-CG takes up to twice
// the iterations of exact Newton steps on the same problem (bench/corpus's
// dense shapes: 3–4 exact steps against 4–7).
// Asked with k = 1 before the start, it tells whether even the cheapest
// iteration would be dearer, and dense steps start at once (a9a: a dense
// step costs a few passes).
func (t *Tuning) CGDearer(k int, nnz, denseStep int64) bool {
	cg := float64((2*int64(k) + 3) * nnz)
	return 2*cg > float64(t.DenseOpCost*float64(denseStep))+float64(4*nnz)
}

// Outer returns the multiply-adds of forming the Hessian's lower triangle
// over the rows' non-zeros (bias included): Σ_i k_i(k_i+1)/2.
func Outer(r rows.Rows) int64 {
	var outer int64
	for i := 0; i < r.N; i++ {
		k := r.RP[i+1] - r.RP[i]
		if r.Bias != 0 {
			k++
		}
		outer += k * (k + 1) / 2
	}
	return outer
}

// Margins returns the margins z (r for the regression) at W as of the
// last Margins call or step.
func (p *Problem) Margins() []float64 { return p.z }

// Gradient returns ∇f as of the last gradient evaluation.
func (p *Problem) Gradient() []float64 { return p.g }

// Cancelled reports whether Poll stopped a method.
func (p *Problem) Cancelled() bool { return p.cancelled }

// C returns C_i.
func (p *Problem) C(i int) float64 {
	if p.Y == nil {
		return p.Cost[0]
	}
	return p.Cost[(p.Y[i]+1)>>1]
}

// poll checks for cancellation once Ops passed the next poll point (or
// always, with force).
func (p *Problem) poll(force bool) bool {
	if p.cancelled {
		return true
	}
	if p.Poll == nil || !force && p.Ops < p.pollAt {
		return false
	}
	p.pollAt = p.Ops + p.drv.PollWork
	p.cancelled = p.Poll()
	return p.cancelled
}

// dotRow returns vᵀx_i, the bias feature included.
func (p *Problem) dotRow(i int, v []float64) float64 {
	a, b := p.RP[i], p.RP[i+1]
	var s float64
	if p.binary == 1 {
		s = dotOnes(p.Idx[a:b:b], v)
	} else if p.Val32 == nil {
		s = kernel.Dot(p.Idx[a:b:b], p.Val[a:b:b], v)
	} else {
		s = kernel.Dot32(p.Idx[a:b:b], p.Val32[a:b:b], v)
	}
	return s + float64(p.Bias*v[p.NF])
}

// axpyRow does v += c·x_i, the bias feature included.
func (p *Problem) axpyRow(c float64, i int, v []float64) {
	a, b := p.RP[i], p.RP[i+1]
	if p.binary == 1 {
		// fma(c, 1, v) is c + v rounded once: kernel.Axpy's bits.
		for _, j := range p.Idx[a:b:b] {
			v[j] += c
		}
	} else if p.Val32 == nil {
		kernel.Axpy(c, p.Idx[a:b:b], p.Val[a:b:b], v)
	} else {
		kernel.Axpy32(c, p.Idx[a:b:b], p.Val32[a:b:b], v)
	}
	v[p.NF] += float64(c * p.Bias)
}

// SetMargins sets the margins from scratch at W: z_i = y_i wᵀx_i, or for
// the regression r_i = wᵀx_i − y_i.
func (p *Problem) SetMargins() {
	p.scanRows()
	p.rowProducts(p.W, p.z, true)
}

// dotOnes is kernel.Dot of a row whose values are all 1, without reading
// them (the passes are bound by memory, and such data, a9a and w8a, store
// 8 bytes of value per 4 of index): element k goes into partial sum
// k mod 8 and the sums meet in kernel's tree, and fma(1, v, s) is v + s
// rounded once, so the bits are kernel.Dot's.
func dotOnes(idx []int32, v []float64) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	k := 0
	for ; k+8 <= len(idx); k += 8 {
		i := idx[k : k+8 : k+8]
		s0 += v[i[0]]
		s1 += v[i[1]]
		s2 += v[i[2]]
		s3 += v[i[3]]
		s4 += v[i[4]]
		s5 += v[i[5]]
		s6 += v[i[6]]
		s7 += v[i[7]]
	}
	s := [8]float64{s0, s1, s2, s3, s4, s5, s6, s7}
	for l, j := range idx[k:] {
		s[l] += v[j]
	}
	return ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
}

// rowProducts sets out_i = y_i vᵀx_i, or for the regression vᵀx_i, minus
// t_i with margins (each row's product is the same bits on any
// goroutine).
func (p *Problem) rowProducts(v, out []float64, margins bool) {
	t := p.T
	if !margins {
		t = nil
	}
	p.Ops += p.RP[p.N] - p.RP[0]
	p.forParts(func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			m := p.dotRow(i, v)
			switch {
			case t != nil:
				m -= t[i]
			case p.Y != nil:
				m = float64(p.Y[i]) * m
			}
			out[i] = m
		}
	})
}

// The passes over the examples run in a fixed number of parts of
// consecutive rows (Tuning.RowParts; see parts), on as many goroutines
// as the pool spares. A part's sums are its own and are added
// in part order, so the results do not depend on how many goroutines ran.

// parts returns the number of parts of the passes: one for Newton-CG,
// whose sums (and models) are those of its code before the parts, and on
// small data.
func (p *Problem) parts() int {
	if !p.DenseNewton() || p.RP[p.N]-p.RP[0] < p.drv.KKTParallelNNZ || p.N < 2 {
		return 1
	}
	return max(1, min(p.tune.RowParts, p.N))
}

// forParts calls fn(k, lo, hi) for every part k of the rows [lo, hi), on
// the calling goroutine and the pool's spare ones.
func (p *Problem) forParts(fn func(k, lo, hi int)) {
	np := p.parts()
	bound := func(k int) int { return int(int64(p.N) * int64(k) / int64(np)) }
	helpers := 0
	if np > 1 {
		helpers = p.Pool.Take(np - 1)
	}
	if helpers == 0 {
		for k := range np {
			fn(k, bound(k), bound(k+1))
		}
		return
	}
	var next atomic.Int64
	p.Pool.Run(helpers, func(bool) {
		for {
			k := int(next.Add(1) - 1)
			if k >= np {
				return
			}
			fn(k, bound(k), bound(k+1))
		}
	}, func() { next.Store(int64(np)) })
}

// reg returns aᵀb over the regularised weights (all but the bias weight
// with FreeBias).
func (p *Problem) reg(a, b []float64) float64 {
	if p.FreeBias {
		return dense.Dot(a[:p.NF], b[:p.NF])
	}
	return dense.Dot(a, b)
}

// lossAt returns Σ_i C_i ℓ(z_i + t·xs_i), summed by part.
func (p *Problem) lossAt(t float64) float64 {
	sums := p.partSums()
	p.forParts(func(k, lo, hi int) { sums[k] = p.lossRows(t, lo, hi) })
	var f float64
	for _, v := range sums {
		f += v
	}
	return f
}

// partSums returns a zeroed slice of one float64 per part.
func (p *Problem) partSums() []float64 {
	np := p.parts()
	if cap(p.sums) < np {
		p.sums = make([]float64, np)
	}
	p.sums = p.sums[:np]
	clear(p.sums)
	return p.sums
}

// lossRows returns Σ_{lo ≤ i < hi} C_i ℓ(z_i + t·xs_i).
func (p *Problem) lossRows(t float64, lo, hi int) float64 {
	var f float64
	z, xs := p.z[lo:hi], p.xs[lo:hi]
	xs = xs[:len(z)]
	switch p.Loss {
	case SquaredHinge:
		for i, zi := range z {
			if h := 1 - (zi + float64(t*xs[i])); h > 0 {
				f += float64(p.C(lo+i) * h * h)
			}
		}
	case Logistic:
		for i, zi := range z {
			f += float64(p.C(lo+i) * log1pExpNeg(zi+float64(t*xs[i])))
		}
	case SquaredTube:
		c := p.Cost[0]
		for i, r := range z {
			if e := math.Abs(r+float64(t*xs[i])) - p.P; e > 0 {
				f += float64(c * e * e)
			}
		}
	}
	return f
}

// Objective returns f at W from the margins of the last SetMargins or step.
func (p *Problem) Objective() float64 {
	return float64(0.5*p.reg(p.W, p.W)) + p.lossAt(0)
}

// log1pExpNeg is log(1 + e^{−m}) without overflow.
func log1pExpNeg(m float64) float64 {
	if m >= 0 {
		return fmath.Log1p(fmath.Exp(-m))
	}
	return -m + fmath.Log1p(fmath.Exp(m))
}

// SetGradient sets ∇f and the Hessian weights D_i at the current margins
// and returns ‖∇f‖. Each part sums its rows' terms into its own vector
// (the first into ∇f, which starts at the regulariser's w), added in part
// order.
func (p *Problem) SetGradient() float64 {
	np := p.parts()
	if p.DenseNewton() && np > 1 {
		if len(p.gparts) < (np-1)*p.Dim() {
			p.gparts = make([]float64, (np-1)*p.Dim())
		}
	} else {
		np = 1 // a vector per part is too much at large d
	}
	dim := p.Dim()
	ops := make([]int64, np)
	run := func(k, lo, hi int) {
		g := p.g
		if k > 0 {
			g = p.gparts[(k-1)*dim : k*dim]
			clear(g)
		} else {
			// The regulariser's w first, as Newton-CG's sums always were.
			copy(g, p.W)
			if p.FreeBias {
				g[p.NF] = 0
			}
		}
		ops[k] = p.gradientRows(g, lo, hi)
	}
	if np == 1 {
		run(0, 0, p.N)
	} else {
		p.forParts(run)
	}
	for k := 1; k < np; k++ {
		for j, v := range p.gparts[(k-1)*dim : k*dim] {
			p.g[j] += v
		}
	}
	for _, o := range ops {
		p.Ops += o
	}
	return safeNorm(p.g, dense.Dot(p.g, p.g))
}

// safeNorm returns ‖v‖ given ss = vᵀv: √ss when ss is a normal float64,
// otherwise v scaled by its largest entry first, as BLAS's dnrm2, since
// entries beyond 1e154 overflow ss (and those below 1e-154 underflow it).
func safeNorm(v []float64, ss float64) float64 {
	if ss >= 0x1p-1000 && ss <= math.MaxFloat64 || ss == 0 {
		return math.Sqrt(ss)
	}
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	if m == 0 || math.IsInf(m, 0) || math.IsNaN(m) {
		return m
	}
	var s float64
	for _, x := range v {
		x /= m
		s += float64(x * x)
	}
	return m * math.Sqrt(s)
}

// gradientRows adds the loss terms of rows [lo, hi) to g and sets their
// D_i; it returns the non-zeros touched.
func (p *Problem) gradientRows(g []float64, lo, hi int) (ops int64) {
	for i := lo; i < hi; i++ {
		z := p.z[i]
		var gi, di float64
		switch p.Loss {
		case SquaredHinge:
			if z < 1 {
				ci := p.C(i)
				gi = -2 * ci * (1 - z)
				di = 2 * ci
			}
		case Logistic:
			// σ(−z) and σ(z)σ(−z) without overflow
			ci := p.C(i)
			e := fmath.Exp(-math.Abs(z))
			var sNeg float64
			switch {
			case z < 0:
				sNeg = 1 / (1 + e)
			case p.Lean:
				sNeg = e / (1 + e)
			default:
				sNeg = 1 / (1 + fmath.Exp(z))
			}
			gi = -ci * sNeg
			di = ci * e / ((1 + e) * (1 + e))
		case SquaredTube:
			c := p.Cost[0]
			if z < -p.P {
				gi, di = 2*c*(z+p.P), 2*c
			} else if z > p.P {
				gi, di = 2*c*(z-p.P), 2*c
			}
		}
		p.dc[i] = di
		if gi != 0 {
			if p.Y != nil {
				gi *= float64(p.Y[i])
			}
			p.axpyRow(gi, i, g)
			ops += p.RP[i+1] - p.RP[i]
		}
	}
	return ops
}

// MaxRowDot returns max_i |vᵀx_i| over the examples (the bias feature
// included), one pass over the data.
func (p *Problem) MaxRowDot(v []float64) float64 {
	p.scanRows()
	sums := p.partSums()
	p.Ops += p.RP[p.N] - p.RP[0]
	p.forParts(func(k, lo, hi int) {
		var m float64
		for i := lo; i < hi; i++ {
			m = max(m, math.Abs(p.dotRow(i, v)))
		}
		sums[k] = m
	})
	var m float64
	for _, v := range sums {
		m = max(m, v)
	}
	return m
}
