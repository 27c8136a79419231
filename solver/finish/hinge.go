package finish

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/acfcd/acfcd/internal/dense"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/primal"
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
// one dense Cholesky and four passes over the data per iteration: one
// forms H (only its lower triangle, which package dense's Cholesky
// reads), the margins and the predictor's right-hand side together; one
// gives the predictor's Δα; one the corrector's right-hand side; and one
// its Δα together with ZᵀΔα, which moves w along with α.
//
// Most α end at a bound, and the method notices early: an α_i near a
// bound (within Tuning.IPMSettleRel·C_i, and close enough that the snap
// moves its margin by at most Tuning.IPMSettleFrac times its multiplier)
// whose multiplier is at least Tuning.IPMSettleMul is set to that bound
// and leaves the working set (ipmSettle), so that the passes, which are
// most of the work, shrink as the method goes.
// The passes run in fixed ranges of the working set on the spare
// processors (ipmPartition).
//
// The interior iterates never sit at a bound, so every iteration (once the
// gap is small) rounds them: α_i → 0 when its multiplier s_i dominates,
// α_i → C_i when t_i does. The first rounded point whose largest KKT
// violation over the working set, measured from w = Σ α_i y_i x_i
// summed afresh, is within eps ends the method. Where the method ends
// without one, the interior iterate of lowest f replaces the last rounded
// point if its f is lower (keepInterior: on raw features rounding moves
// the margins by far more than eps). The contract is then that of every
// finisher (package doc): the full KKT pass certifies the α handed over
// (and dual CD finishes if it is not within eps), and a point worse than
// the one at the switch is rolled back.

// IPM is the interior-point finisher of a -s 3 subproblem
// (solver.Finisher). It keeps its buffers from one subproblem to the next.
type IPM struct {
	p     *dcd.Problem
	t     *Tuning
	pt    *primal.Tuning // dense Newton's: NewtonDenseMax, HessianParallelOps, BinaryRows
	poll  int64          // the driver's PollWork
	rule  rule
	nt    *ipmMat // allocated at the first switch
	hg    *hinge
	steps int // interior-point iterations of the current subproblem
	trace func(format string, args ...any)
}

// NewIPM returns the finisher of p (loss L1SVM).
func NewIPM(p *dcd.Problem, t *Tuning, pt *primal.Tuning) *IPM {
	return &IPM{p: p, t: t, pt: pt, rule: rule{t: t}}
}

// ipmMat is the method's dense matrix H (dim × dim, lower triangle), the
// per-example D⁻¹ and the dual at the switch.
type ipmMat struct {
	dim   int
	h     []float64
	dcoef []float64
	at    point
}

// Reset prepares for a new subproblem of p (after p.Reset).
func (f *IPM) Reset() {
	f.steps = 0
	budget, _ := f.estimate()
	if f.t.SwitchOps > 0 && budget != 0 {
		budget = f.t.SwitchOps
	}
	f.rule.reset(budget)
}

// Steps returns the interior-point iterations of the current subproblem.
func (f *IPM) Steps() int { return f.steps }

// Upfront is false: the method never goes first.
func (f *IPM) Upfront() bool { return false }

// Due is the switch rule, asked at every epoch's end.
func (f *IPM) Due(r *solver.Run) bool {
	p := f.p
	if p.Tightening() {
		return false // the run holds a certified point; see dcd.Problem.Tightening
	}
	return f.rule.due(state{
		cost:     p.Ops + f.t.DualStepOps*r.Steps,
		lastViol: r.LastViol,
		eps:      p.Eps,
		obj:      r.Obj,
		hinge:    true,
		nnz:      p.NNZ(),
	}, f.gap, func() int64 {
		budget, _ := f.estimate()
		return p.Ops + f.t.DualStepOps*r.Steps + budget
	})
}

// Finish runs the interior-point method from the dual's current point,
// leaves the dual at its rounded answer (or rolls back to the point at the
// switch) with r.Obj set, re-arms the rule for one more switch and
// reports whether the point is worth certifying.
func (f *IPM) Finish(r *solver.Run, round int) (improved bool) {
	p, t := f.p, f.t
	f.trace = r.Trace()
	f.rule.reset(0)
	f.steps += f.hingeFinish(r, round == 1)
	improved = f.hingeRestore(r)
	if round < t.IPMMaxRounds {
		// Examples settled wrongly can leave dual CD a point it stalls
		// at: should it stall, it switches again, after the same budget,
		// to the method without settling.
		if budget, ok := f.estimate(); ok && budget > 0 {
			f.rule.reset(p.Ops + t.DualStepOps*r.Steps + budget)
			f.rule.probed = true
		}
	}
	return improved
}

// estimate returns the switch rule's budget: the estimated cost of the
// method in the dual's operations, or false for never (more than
// Tuning.NewtonDenseMax weights, where H does not fit).
func (f *IPM) estimate() (int64, bool) {
	p, t := f.p, f.t
	nnz := p.NNZ()
	dim := int64(p.NF + 1)
	if dim > int64(f.pt.NewtonDenseMax) {
		return 0, false
	}
	// Per interior-point iteration: H over every row, its Cholesky and
	// two solves, and seven passes (w and the margins, two right-hand
	// sides and two Z·p).
	return dualOps(t.IPMGuessIters*(6*nnz+outer(p.Data)+dim*dim*dim/6+2*dim*dim), t.IPMOpsRatio), true
}

// gap returns the duality gap of -s 3 at the dual's point (one pass over
// the data).
func (f *IPM) gap() float64 {
	p := f.p
	var gap float64
	for i, a := range p.Alpha {
		c := p.UB[(p.Y[i]+1)>>1]
		G := float64(float64(p.Y[i])*p.DotRow(int32(i), p.W)) - 1
		gap += float64(a*max(G, 0)) + float64((c-a)*max(-G, 0))
	}
	return gap
}

// ipmStep is the fraction of the distance to the boundary a step takes
// (Mehrotra's predictor-corrector).
const ipmStep = 0.99

// hinge holds the interior-point method's buffers.
type hinge struct {
	a, u, s, t []float64 // per example: α, C − α and the two multipliers
	g          []float64 // per example: G_i = z_iᵀw − 1 at the interior α
	r, da      []float64 // per example: right-hand side and Δα
	das, dat   []float64 // per example: the predictor's Δs and Δt
	v, p, wi   []float64 // dense: Zᵀ D⁻¹ r, H⁻¹v and w at the interior α
	dw         []float64 // dense: ZᵀΔα
	sorted     bool      // every row's indices strictly increase
	parts      []ipmPart // the passes' ranges of set (ipmPartition)
	// set lists the examples the method still works on; the per-example
	// slices above (and nt.dcoef) are indexed by position in set. An
	// example leaves it when its α is settled at a bound (ipmSettle), and
	// w of those, wfix, and their Σα, fixed, are constants after that.
	set   []int32
	wfix  []float64
	fixed float64
	// best: α at the interior iterate of the lowest f (every example, the
	// settled ones at their bounds), kept for when rounding fails.
	best  []float64
	bestF float64
	// binary: every stored value is 1 (rowDot).
	binary bool
	// done is the run's cancellation, checked in the passes that form H;
	// aborted records that one stopped for it.
	done    <-chan struct{}
	aborted atomic.Bool
}

// ipmPart is one fixed range of rows of the interior-point passes, with
// its own partial sums (part 0 sums straight into the totals).
type ipmPart struct {
	lo, hi int
	h      []float64 // dim×dim: this range's Σ D_i⁻¹ z_i z_iᵀ (lower triangle)
	v, dw  []float64 // dense: this range's share of Zᵀ D⁻¹ r and ZᵀΔα
	ops    int64
}

func (f *IPM) newHinge() (*ipmMat, *hinge) {
	dp := f.p
	if f.nt == nil {
		dim := dp.NF + 1
		f.nt = &ipmMat{dim: dim, h: make([]float64, dim*dim), dcoef: make([]float64, dp.N),
			at: point{alpha: make([]float64, dp.N), w: make([]float64, dim)}}
	}
	nt := f.nt
	if f.hg == nil {
		n := dp.N
		buf := make([]float64, 9*n)
		f.hg = &hinge{a: buf[:n], u: buf[n : 2*n], s: buf[2*n : 3*n], t: buf[3*n : 4*n], g: buf[4*n : 5*n],
			r: buf[5*n : 6*n], da: buf[6*n : 7*n], das: buf[7*n : 8*n], dat: buf[8*n : 9*n],
			v: make([]float64, nt.dim), p: make([]float64, nt.dim), wi: make([]float64, nt.dim),
			dw: make([]float64, nt.dim), sorted: true, set: make([]int32, n), wfix: make([]float64, nt.dim)}
		for i := range n {
			idx := dp.Idx[dp.RP[i]:dp.RP[i+1]]
			for q := 1; q < len(idx); q++ {
				if idx[q] <= idx[q-1] {
					f.hg.sorted = false
				}
			}
		}
		f.hg.parts = f.ipmPartition(nt)
		f.hg.binary = f.pt.BinaryRows
		for k := dp.RP[0]; k < dp.RP[n] && f.hg.binary; k++ {
			f.hg.binary = dp.Value(k) == 1
		}
	}
	return nt, f.hg
}

// The passes over the data (forming H, the right-hand sides, Δα) split
// the rows into a fixed number of ranges of about equal non-zeros, each
// summing into its own partial H and vectors, which are then added in
// order; the ranges run on the spare processors of the pool. The number
// of ranges depends only on the data, never on how many processors are
// free, so the same data gives the same bits everywhere.

// ipmPartition returns the passes' ranges, not yet bounded (ipmBound):
// one when the rows are not all sorted (addOuterAny sums straight into
// nt.h), when the data is small, or when a second H would not fit in
// ipmPartsMem.
func (f *IPM) ipmPartition(nt *ipmMat) []ipmPart {
	dp := f.p
	dim, n := nt.dim, dp.N
	np := 1
	if nnz := dp.RP[n] - dp.RP[0]; f.hg.sorted && nnz >= f.t.IPMParallelNNZ {
		np = min(f.t.IPMMaxParts, max(1, f.t.IPMPartsMem/(8*dim*dim)), n)
	}
	parts := make([]ipmPart, np)
	for k := 1; k < np; k++ {
		parts[k].h = make([]float64, dim*dim)
		parts[k].v = make([]float64, dim)
		parts[k].dw = make([]float64, dim)
	}
	return parts
}

// ipmBound splits set into the parts' ranges of about equal non-zeros.
func (f *IPM) ipmBound(hg *hinge) {
	dp := f.p
	var total int64
	for _, i := range hg.set {
		total += dp.RP[i+1] - dp.RP[i]
	}
	np := int64(len(hg.parts))
	var sum int64
	k, lo := int64(0), 0
	for q, i := range hg.set {
		// Part k ends before the first position at which the non-zeros
		// reach (k+1)/np of the total.
		for k < np-1 && sum >= total*(k+1)/np {
			hg.parts[k].lo, hg.parts[k].hi = lo, q
			lo = q
			k++
		}
		sum += dp.RP[i+1] - dp.RP[i]
	}
	for ; k < np; k++ {
		hg.parts[k].lo, hg.parts[k].hi = lo, len(hg.set)
		lo = len(hg.set)
	}
}

// ipmRun calls fn on every part, on the calling goroutine and as many
// helpers as the pool spares.
func (f *IPM) ipmRun(fn func(k int, p *ipmPart)) {
	dp := f.p
	parts := f.hg.parts
	helpers := 0
	if len(parts) > 1 {
		helpers = dp.Pool.Take(len(parts) - 1)
	}
	if helpers == 0 {
		for k := range parts {
			fn(k, &parts[k])
		}
		return
	}
	var next atomic.Int64
	dp.Pool.Run(helpers, func(bool) {
		for {
			k := int(next.Add(1) - 1)
			if k >= len(parts) {
				return
			}
			fn(k, &parts[k])
		}
	}, func() { next.Store(int64(len(parts))) })
}

// ipmSum adds the parts' operations into dp.Ops and, unless vec is nil,
// their partial sums of one vector (selected by vec) into the total, part
// 0's, in order.
func (f *IPM) ipmSum(vec func(p *ipmPart) []float64) {
	dp := f.p
	parts := f.hg.parts
	for k := range parts {
		dp.Ops += parts[k].ops
		parts[k].ops = 0
		if k > 0 && vec != nil {
			total := vec(&parts[0])
			for j, x := range vec(&parts[k]) {
				total[j] += x
			}
		}
	}
}

// hingeFinish runs the interior-point method from the current α and
// returns its iterations; it stops early on cancellation. It leaves in
// α the last rounded point (or the state at the switch if none was
// tried), with w rebuilt and r.Obj = f(α), and keeps the state at the
// switch for hingeRestore.
func (f *IPM) hingeFinish(r *solver.Run, settle bool) int {
	dp := f.p
	t0 := time.Now()
	nt, hg := f.newHinge()
	nt.at.save(dp, r.Obj)
	f.poll = r.Tuning().PollWork
	hg.done = r.Done()
	hg.aborted.Store(false)
	n := dp.N
	hg.a, hg.u, hg.s, hg.t = hg.a[:n], hg.u[:n], hg.s[:n], hg.t[:n]
	hg.g, hg.r, hg.da, hg.das, hg.dat = hg.g[:n], hg.r[:n], hg.da[:n], hg.das[:n], hg.dat[:n]
	hg.set = hg.set[:n]
	for i := range hg.set {
		hg.set[i] = int32(i)
	}
	clear(hg.wfix)
	hg.fixed = 0
	f.ipmBound(hg)

	// Start: the dual's α, pulled into the interior by how far its
	// gradient points out of the box, and perfectly centred multipliers.
	// The duality gap at the dual's point (w from dual CD's running sums)
	// is Σ α_i G_i⁺ + (C_i − α_i) G_i⁻: the complementarity of s = G⁺,
	// t = G⁻, which sets the starting μ.
	var gap float64
	for i, a := range dp.Alpha {
		c := dp.UB[(dp.Y[i]+1)>>1]
		G := float64(float64(dp.Y[i])*dp.DotRow(int32(i), dp.W)) - 1
		hg.g[i] = G
		gap += float64(a*max(G, 0)) + float64((c-a)*max(-G, 0))
	}
	// (At least 10⁻¹²·C, so that the start is interior even at gap 0.)
	mu0 := max(f.t.IPMKappa*gap/float64(2*n), 1e-12*max(dp.UB[0], dp.UB[1]))
	for i, G := range hg.g {
		c := dp.UB[(dp.Y[i]+1)>>1]
		a := InteriorStart(dp.Alpha[i], G, c, mu0, f.t.IPMTheta)
		hg.a[i], hg.u[i] = a, c-a
	}
	clear(hg.wi)
	for i, a := range hg.a {
		dp.AxpyRow(a*float64(dp.Y[i]), int32(i), hg.wi)
	}
	// Centred multipliers: α_i s_i = (C_i − α_i) t_i = μ₀.
	for i := range hg.a {
		hg.s[i], hg.t[i] = mu0/hg.a[i], mu0/hg.u[i]
	}
	if f.trace != nil {
		f.trace("ipm start: gap %.4g mu0 %.4g obj %.10g", gap, mu0, r.Obj)
	}

	// Tighter tolerances than liblinear's default need a closer hand-over.
	stopRel := max(f.t.IPMStopRel*min(1, dp.Eps/0.05), 1e-13)
	tried := false
	iters := 0
	viol := math.Inf(1) // the last rounded point's largest violation
	if hg.best == nil {
		hg.best = make([]float64, n)
	}
	hg.bestF = math.Inf(1)
	rdMax := math.Inf(1)  // largest |G_i − s_i + t_i| at the last iterate
	rdPrev := math.Inf(1) // and at the one before
loop:
	for iters < f.t.IPMMaxIter {
		if r.Poll() {
			break loop
		}
		var comp, fval float64
		for i := range hg.a {
			comp += float64(hg.a[i]*hg.s[i]) + float64(hg.u[i]*hg.t[i])
		}
		mu := comp / float64(2*len(hg.a))
		// The dual objective at the interior point, for the gap test.
		fval = float64(0.5*dense.Dot(hg.wi, hg.wi)) - hg.fixed
		for _, a := range hg.a {
			fval -= a
		}
		if f.trace != nil {
			f.trace("ipm %d: f=%.12g comp=%.4g ops=%d", iters, fval, comp, dp.Ops)
		}
		if fval < hg.bestF {
			hg.bestF = fval
			copy(hg.best, dp.Alpha)
			for q, i := range hg.set {
				hg.best[i] = hg.a[q]
			}
		}
		// The scale: |f| at the interior point, but no more than at the
		// switch (f is below it at the optimum) when the pull into the
		// interior made f large.
		fs := math.Abs(fval)
		if nt.at.obj < 0 {
			fs = min(fs, -nt.at.obj)
		}
		if comp <= f.t.IPMRoundRel*fs {
			tried = true
			viol = f.ipmRound(hg)
			if f.trace != nil {
				f.trace("ipm %d: largest dual residual %.3g", iters, rdMax)
			}
			// (The residual's floor is set by rounding: once a step no
			// longer halves it, it is there.)
			if viol <= dp.Eps || comp <= stopRel*fs && (rdMax <= dp.Eps || rdMax > 0.5*rdPrev) {
				break
			}
		}

		// One pass: the margins G at the interior α, D⁻¹ in nt.dcoef,
		// H = I + Zᵀ D⁻¹ Z and the predictor's right-hand side
		// r = −(Qα − 1 − s + t) − s + t = −G with v = Zᵀ D⁻¹ r.
		if dp.Val32 == nil {
			ipmFormPass(f, nt, hg, dp.Val)
		} else {
			ipmFormPass(f, nt, hg, dp.Val32)
		}
		if hg.aborted.Load() || !dense.Cholesky(nt.h, nt.dim, r.Poll, dp.Pool, f.pt.HessianParallelOps) {
			break
		}
		dp.Ops += int64(nt.dim) * int64(nt.dim) * int64(nt.dim) / 6
		iters++

		// Predictor (affine scaling).
		f.ipmSolve(nt, hg, false)
		for i, d := range hg.da {
			hg.das[i] = -hg.s[i] - float64(hg.s[i]/hg.a[i]*d)
			hg.dat[i] = -hg.t[i] + float64(hg.t[i]/hg.u[i]*d)
		}
		step := hg.maxStep(hg.da, hg.das, hg.dat)
		var compAff float64
		for i, d := range hg.da {
			as := float64((hg.a[i] + float64(step*d)) * (hg.s[i] + float64(step*hg.das[i])))
			ut := float64((hg.u[i] - float64(step*d)) * (hg.t[i] + float64(step*hg.dat[i])))
			compAff += as + ut
		}
		sr := compAff / comp // σ = sr³ multiplied out: math.Pow is not the same everywhere
		sigma := sr * sr * sr

		// Corrector: complementarity rs = σμ − αs − Δα·Δs, rt = σμ − ut + Δα·Δt,
		// r = −(Qα − 1 − s + t) + rs/α − rt/u.
		sm := float64(sigma * mu)
		rdPrev, rdMax = rdMax, 0
		for i, G := range hg.g {
			da := hg.da[i]
			rs := sm - float64(hg.a[i]*hg.s[i]) - float64(da*hg.das[i])
			rt := sm - float64(hg.u[i]*hg.t[i]) + float64(da*hg.dat[i])
			hg.das[i], hg.dat[i] = rs, rt
			rd := G - hg.s[i] + hg.t[i]
			rdMax = max(rdMax, math.Abs(rd))
			hg.r[i] = -rd + rs/hg.a[i] - rt/hg.u[i]
		}
		if dp.Val32 == nil {
			ipmRHSPass(f, nt, hg, dp.Val)
		} else {
			ipmRHSPass(f, nt, hg, dp.Val32)
		}
		f.ipmSolve(nt, hg, true)
		for i, d := range hg.da {
			hg.das[i] = (hg.das[i] - float64(hg.s[i]*d)) / hg.a[i]
			hg.dat[i] = (hg.dat[i] + float64(hg.t[i]*d)) / hg.u[i]
		}
		step = min(1, ipmStep*hg.maxStep(hg.da, hg.das, hg.dat))
		for i, d := range hg.da {
			hg.a[i] += float64(step * d)
			hg.u[i] -= float64(step * d)
			hg.s[i] += float64(step * hg.das[i])
			hg.t[i] += float64(step * hg.dat[i])
		}
		// w at the new α: the pass that gave Δα also summed ZᵀΔα.
		for j, d := range hg.dw {
			hg.wi[j] += float64(step * d)
		}
		if settle && !tried {
			f.ipmSettle(hg)
		}
	}
	if !tried {
		viol = f.ipmRound(hg)
	}
	rebuildW(dp)
	r.Obj = dp.Objective()
	if viol > dp.Eps && !math.IsInf(hg.bestF, 1) {
		f.keepInterior(r)
	}
	if f.trace != nil {
		f.trace("ipm: %d iterations in %v", iters, time.Since(t0))
	}
	return iters
}

// keepInterior replaces a rounded point that failed (its violation above
// eps) by the interior iterate of the lowest f where that is lower: on raw
// features rounding thousands of α of 10⁻¹⁰ moves the margins by tens to
// millions (the coherent sum of tiny steps along rows of 10³), while the
// interior α is feasible and near the optimum, and dual CD goes on from
// either.
func (f *IPM) keepInterior(r *solver.Run) {
	dp, hg := f.p, f.hg
	rounded := hg.g[:dp.N] // (the margins' buffer is free after the method)
	copy(rounded, dp.Alpha)
	copy(dp.Alpha, hg.best)
	rebuildW(dp)
	if obj := dp.Objective(); obj < r.Obj {
		if f.trace != nil {
			f.trace("ipm: the interior point, f=%.12g, for the rounded one, f=%.12g", obj, r.Obj)
		}
		r.Obj = obj
		return
	}
	copy(dp.Alpha, rounded)
	rebuildW(dp)
}

// floatV is the stored value type, float64 or float32.
type floatV interface{ ~float32 | ~float64 }

// ipmFormPass sets, in one pass over the data, hg.g to the margins
// G_i = z_iᵀw − 1 at the interior point (w = hg.wi), D⁻¹ in nt.dcoef,
// hg.r = −G, hg.v = Zᵀ D⁻¹ r, and H = I + Zᵀ D⁻¹ Z in nt.h (its lower
// triangle, as dense.Cholesky reads it). On cancellation it stops early
// with hg.aborted set.
func ipmFormPass[V floatV](f *IPM, nt *ipmMat, hg *hinge, val []V) {
	dim, h := nt.dim, nt.h
	hg.parts[0].h, hg.parts[0].v = h, hg.v
	f.ipmRun(func(_ int, p *ipmPart) {
		clear(p.h)
		clear(p.v)
		ipmFormRows(f, nt, hg, val, p)
	})
	f.ipmSum(func(p *ipmPart) []float64 { return p.v })
	for _, p := range hg.parts[1:] {
		for j := 0; j < dim; j++ {
			hj, pj := h[j*dim:j*dim+j+1], p.h[j*dim:j*dim+j+1]
			for k, x := range pj {
				hj[k] += x
			}
		}
	}
	for j := 0; j < dim; j++ {
		h[j*dim+j]++
	}
}

// ipmFormRows is ipmFormPass over the rows of part p, into p.h and p.v.
func ipmFormRows[V floatV](f *IPM, nt *ipmMat, hg *hinge, val []V, p *ipmPart) {
	dp := f.p
	dim, nf, bias := nt.dim, dp.NF, dp.Bias
	wi, v, h := hg.wi[:dim], p.v[:dim], p.h
	var ops, work int64
	for q := p.lo; q < p.hi; q++ {
		if work >= f.poll {
			// One formation near d = 4096 takes seconds.
			work = 0
			if hg.aborted.Load() || closed(hg.done) {
				hg.aborted.Store(true)
				break
			}
		}
		i := hg.set[q]
		a, b := dp.RP[i], dp.RP[i+1]
		idx, x := dp.Idx[a:b:b], val[a:b:b]
		x = x[:len(idx)]
		yf := float64(dp.Y[i])
		G := float64(yf*(rowDot(idx, x, wi, hg.binary)+float64(bias*wi[nf]))) - 1
		di := 1 / (hg.s[q]/hg.a[q] + hg.t[q]/hg.u[q])
		hg.g[q], hg.r[q], nt.dcoef[q] = G, -G, di
		c := -G * di * yf
		rowAxpy(c, idx, x, v, hg.binary)
		v[nf] += float64(c * bias)
		ops += 2 * (b - a)
		k := b - a
		work += k * (k + 1) / 2
		ops += k * (k + 1) / 2
		if !hg.sorted {
			addOuterAny(dp, nt, int(i), di) // one part only (ipmPartition)
			continue
		}
		if hg.binary {
			dense.AddOuterOnes(h, dim, di, idx)
		} else {
			dense.AddOuter(h, dim, di, idx, x)
		}
		if bias != 0 {
			hb := h[nf*dim : nf*dim+nf+1]
			for p, jp := range idx {
				hb[jp] += float64(di * float64(x[p]) * bias)
			}
			hb[nf] += float64(di * bias * bias)
		}
	}
	p.ops += ops
}

// addOuterAny adds di·x_i x_iᵀ, bias feature included, to the lower
// triangle of nt.h for a row in any order (a Dataset built by hand).
func addOuterAny(dp *dcd.Problem, nt *ipmMat, i int, di float64) {
	dim, h := nt.dim, nt.h
	a, b := dp.RP[i], dp.RP[i+1]
	if dp.Val32 == nil {
		dense.AddOuterAny(h, dim, di, dp.Idx[a:b], dp.Val[a:b])
	} else {
		dense.AddOuterAny(h, dim, di, dp.Idx[a:b], dp.Val32[a:b])
	}
	if dp.Bias != 0 {
		bv := di * dp.Bias
		for k := a; k < b; k++ {
			h[dp.NF*dim+int(dp.Idx[k])] += float64(bv * dp.Value(k))
		}
		h[dp.NF*dim+dp.NF] += float64(bv * dp.Bias)
	}
}

// closed reports whether done is closed (false for nil).
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// sparseDot returns Σ_k x_k·v[idx_k] for a row stored as indices and
// values (float32 or float64).
func sparseDot[V floatV](idx []int32, x []V, v []float64) float64 {
	x = x[:len(idx)]
	var m float64
	for k, j := range idx {
		m += float64(float64(x[k]) * v[j])
	}
	return m
}

// rowDot is sparseDot, or with binary (every stored value is 1) the sum
// of v over the row's indices, which does not read the values at all: the
// passes are bound by memory, and one-hot data (a9a, w8a) stores 8 bytes
// of value per 4 of index. (Multiplying by 1 is exact: the sums are the
// same bits.)
func rowDot[V floatV](idx []int32, x []V, v []float64, binary bool) float64 {
	if !binary {
		return sparseDot(idx, x, v)
	}
	var m float64
	for _, j := range idx {
		m += v[j]
	}
	return m
}

// rowAxpy adds c·x to v for a row (with binary, c at each index).
func rowAxpy[V floatV](c float64, idx []int32, x []V, v []float64, binary bool) {
	c = float64(c) // inlined, a product passed in would fuse with the sums below
	if binary {
		for _, j := range idx {
			v[j] += c
		}
		return
	}
	x = x[:len(idx)]
	for k, j := range idx {
		v[j] += float64(c * float64(x[k]))
	}
}

// ipmRHSPass sets hg.v = Zᵀ D⁻¹ r.
func ipmRHSPass[V floatV](f *IPM, nt *ipmMat, hg *hinge, val []V) {
	dp := f.p
	nf, bias := dp.NF, dp.Bias
	hg.parts[0].v = hg.v
	f.ipmRun(func(_ int, p *ipmPart) {
		v := p.v
		clear(v)
		for q := p.lo; q < p.hi; q++ {
			i := hg.set[q]
			a, b := dp.RP[i], dp.RP[i+1]
			idx, x := dp.Idx[a:b:b], val[a:b:b]
			p.ops += b - a
			c := hg.r[q] * nt.dcoef[q] * float64(dp.Y[i])
			rowAxpy(c, idx, x, v, hg.binary)
			v[nf] += float64(c * bias)
		}
	})
	f.ipmSum(func(p *ipmPart) []float64 { return p.v })
}

// ipmDeltaPass sets Δα = D⁻¹(r − Z p) into hg.da and, with sum, hg.dw = ZᵀΔα.
func ipmDeltaPass[V floatV](f *IPM, nt *ipmMat, hg *hinge, val []V, sum bool) {
	dp := f.p
	nf, bias := dp.NF, dp.Bias
	pv := hg.p
	hg.parts[0].dw = hg.dw
	f.ipmRun(func(_ int, p *ipmPart) {
		dw := p.dw
		if sum {
			clear(dw)
		}
		for q := p.lo; q < p.hi; q++ {
			i := hg.set[q]
			a, b := dp.RP[i], dp.RP[i+1]
			idx, x := dp.Idx[a:b:b], val[a:b:b]
			p.ops += b - a
			if sum {
				p.ops += b - a
			}
			yf := float64(dp.Y[i])
			d := (hg.r[q] - float64(yf*(rowDot(idx, x, pv, hg.binary)+float64(bias*pv[nf])))) * nt.dcoef[q]
			hg.da[q] = d
			if sum {
				c := d * yf
				rowAxpy(c, idx, x, dw, hg.binary)
				dw[nf] += float64(c * bias)
			}
		}
	})
	if sum {
		f.ipmSum(func(p *ipmPart) []float64 { return p.dw })
	} else {
		f.ipmSum(nil)
	}
}

// ipmSolve solves (Q + D)Δα = r into hg.da, with D⁻¹ in nt.dcoef, H
// factored and v = Zᵀ D⁻¹ r in hg.v; with sum it also sets hg.dw = ZᵀΔα.
func (f *IPM) ipmSolve(nt *ipmMat, hg *hinge, sum bool) {
	dp := f.p
	dense.CholSolve(nt.h, nt.dim, 1, hg.v, hg.p)
	dp.Ops += int64(nt.dim) * int64(nt.dim)
	if dp.Val32 == nil {
		ipmDeltaPass(f, nt, hg, dp.Val, sum)
	} else {
		ipmDeltaPass(f, nt, hg, dp.Val32, sum)
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

// ipmSettle takes out of the set the examples whose α has settled at a
// bound: within IPMSettleRel·C_i of it, with a multiplier (s_i at 0, t_i
// at C_i: how far the margin is on the bound's side) of at least
// IPMSettleMul, and close enough that the snap moves the example's own
// margin, by the distance times Q_ii, by at most IPMSettleFrac times that
// multiplier. Each is set to its bound (w moves with it). On raw features
// (Q_ii ~ 10⁷) the distance IPMSettleRel·C alone moved the margins by
// thousands, and the method never recovered (bench/corpus's dense36raw,
// docs/tuning.md). The rest
// of the method solves the problem over the others with these held
// there; should one belong elsewhere, the full KKT pass after the method
// finds it and dual CD corrects it. It runs only before rounding starts.
func (f *IPM) ipmSettle(hg *hinge) {
	dp := f.p
	m := 0
	for q, i := range hg.set {
		c := dp.UB[(dp.Y[i]+1)>>1]
		var to float64
		tol, qi := f.t.IPMSettleRel*c, f.t.IPMSettleFrac/dp.Qii(i)
		switch {
		case hg.a[q] < min(tol, qi*hg.s[q]) && hg.s[q] > f.t.IPMSettleMul:
			to = 0
		case hg.u[q] < min(tol, qi*hg.t[q]) && hg.t[q] > f.t.IPMSettleMul:
			to = c
		default:
			hg.set[m] = i
			hg.a[m], hg.u[m], hg.s[m], hg.t[m] = hg.a[q], hg.u[q], hg.s[q], hg.t[q]
			m++
			continue
		}
		yf := float64(dp.Y[i])
		dp.AxpyRow((to-hg.a[q])*yf, i, hg.wi)
		dp.Alpha[i] = to
		if to != 0 {
			dp.AxpyRow(to*yf, i, hg.wfix)
			hg.fixed += to
		}
	}
	if m == len(hg.set) {
		return
	}
	if f.trace != nil {
		f.trace("ipm settle: %d of %d settled", len(hg.set)-m, len(hg.set))
	}
	hg.set = hg.set[:m]
	hg.a, hg.u, hg.s, hg.t = hg.a[:m], hg.u[:m], hg.s[:m], hg.t[:m]
	hg.g, hg.r, hg.da, hg.das, hg.dat = hg.g[:m], hg.r[:m], hg.da[:m], hg.das[:m], hg.dat[:m]
	f.ipmBound(hg)
}

// ipmRound sets α of the set to the interior point rounded to the bounds
// its multipliers point at, and returns the largest KKT violation over
// the set there (w = wfix + Σ_set α_i z_i, in hg.dw).
func (f *IPM) ipmRound(hg *hinge) float64 {
	dp := f.p
	copy(hg.dw, hg.wfix)
	for q, a := range hg.a {
		i := hg.set[q]
		c := dp.UB[(dp.Y[i]+1)>>1]
		switch {
		case a/c < hg.s[q]:
			a = 0
		case hg.u[q]/c < hg.t[q]:
			a = c
		}
		dp.Alpha[i] = a
		if a != 0 {
			dp.AxpyRow(a*float64(dp.Y[i]), i, hg.dw)
		}
	}
	var viol float64
	for _, i := range hg.set {
		G := float64(float64(dp.Y[i])*dp.DotRow(i, hg.dw)) - 1
		viol = max(viol, math.Abs(dp.PG(i, G)))
	}
	if f.trace != nil {
		f.trace("ipm round: viol %.4g", viol)
	}
	return viol
}

// hingeRestore restores the state at the switch if the finisher ended at
// a worse dual point and returns false then.
func (f *IPM) hingeRestore(r *solver.Run) bool {
	at := &f.nt.at
	if r.Obj <= at.obj || math.IsNaN(at.obj) {
		return true
	}
	at.restore(f.p, r)
	return false
}
