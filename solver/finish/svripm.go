package finish

import (
	"math"

	"github.com/acfcd/acfcd/internal/dense"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/primal"
)

// The ε-insensitive SVR (-s 13) on few, unscaled features is a dual that
// coordinate descent crawls on for thousands of epochs (cpusmall: values
// up to 10⁶, d = 12 ≪ n), and its primal is not differentiable. With
// β = a − b, 0 ≤ a, b ≤ C, the dual is the QP
//
//	min ½‖Σ (a_i − b_i) x_i‖² + Σ (p − y_i) a_i + (p + y_i) b_i
//
// (the same optimum: at it a_i b_i = 0), which a primal-dual
// interior-point method (Mehrotra's predictor-corrector, as -s 3's
// finisher in package finish) solves in a few tens of iterations whatever
// the conditioning. With multipliers s, t ≥ 0 of a ≥ 0 and a ≤ C (and
// likewise for b), D_a = s_a/a + t_a/(C − a), its Newton system reduces,
// a and b sharing the row x_i, to the (d+1)×(d+1) system
//
//	(I + Σ e_i x_i x_iᵀ) Δw = Σ ρ_i x_i,  e_i = 1/D_a + 1/D_b,
//	Δa_i = (r_a − x_iᵀΔw)/D_a,  Δb_i = (r_b + x_iᵀΔw)/D_b,
//
// one Cholesky (after a diagonal scaling: the features' scales differ by
// 10⁶) and four passes over the data per iteration. Every iteration, once
// the complementarity is small, rounds the interior point to the bounds
// its multipliers point at and stops when the dual's own full pass would
// certify it (Σ|PG_i| ≤ Tol) and the complementarity is below
// Tuning.SVRIPMStopRel·|f|; the driver's pass then certifies it. w is
// the method's own (its Newton steps move it directly), not rebuilt from
// β: with features of 10⁶, w = Σ β_i x_i cancels to a few digits.

// SVRIPM is the interior-point finisher of -s 13 (solver.Finisher). It
// switches once, deferred while the dual is nearly done.
type SVRIPM struct {
	s      *dcd.SVR
	t      *Tuning
	pt     *primal.Tuning
	budget int64 // the switch once the dual has cost this (0: never)
	step   int64 // the budget of one estimate, added at each deferral
	defers int
	steps  int
	ipm    *svrIPM
}

// NewSVRIPM returns the finisher of s (the ε-insensitive loss).
func NewSVRIPM(s *dcd.SVR, t *Tuning, pt *primal.Tuning) *SVRIPM {
	f := &SVRIPM{s: s, t: t, pt: pt}
	f.budget = f.estimate()
	f.step = f.budget
	return f
}

// Due is the switch rule: once the dual has cost the method's estimate,
// unless the dual is nearly done (it then goes on for the same budget
// again, at most Tuning.SVRIPMMaxDefer times); once.
func (f *SVRIPM) Due(r *solver.Run) bool {
	if f.s.Tightening() {
		return false // the run holds a certified point; see dcd.SVR.Tightening
	}
	if f.budget <= 0 || f.s.Ops+f.t.DualStepOps*r.Steps < f.budget {
		return false
	}
	if f.defers < f.t.SVRIPMMaxDefer && f.s.NearDone(f.t.SVRIPMNear) {
		f.defers++
		f.budget += f.step
		return false
	}
	f.budget = 0
	return true
}

// Steps returns the interior-point iterations taken.
func (f *SVRIPM) Steps() int { return f.steps }

// svrIPM holds the interior-point method's buffers: per example the
// variables, slacks and multipliers of a and b, their steps, D and the
// right-hand sides; dense w at the interior point, its step, H.
type svrIPM struct {
	a, b, ua, ub, sa, ta, sb, tb []float64
	da, db, dsa, dta, dsb, dtb   []float64
	ea, eb, ra, rb, m            []float64 // 1/D_a, 1/D_b, right-hand sides, margins x_iᵀw
	w, v, z, h, sc               []float64 // w, Σ ρ_i x_i, Δw, H, its scaling
	beta, w0                     []float64 // the dual point at the switch
	sorted                       bool      // every row's indices strictly increase
}

func (f *SVRIPM) newIPM() *svrIPM {
	s := f.s
	if f.ipm != nil {
		return f.ipm
	}
	n, dim := s.N, s.NF+1
	buf := make([]float64, 19*n)
	sl := func() []float64 { x := buf[:n:n]; buf = buf[n:]; return x }
	ip := &svrIPM{a: sl(), b: sl(), ua: sl(), ub: sl(), sa: sl(), ta: sl(), sb: sl(), tb: sl(),
		da: sl(), db: sl(), dsa: sl(), dta: sl(), dsb: sl(), dtb: sl(),
		ea: sl(), eb: sl(), ra: sl(), rb: sl(), m: sl(),
		w: make([]float64, dim), v: make([]float64, dim), z: make([]float64, dim),
		h: make([]float64, dim*dim), sc: make([]float64, dim), sorted: true}
	for i := range n {
		idx := s.Idx[s.RP[i]:s.RP[i+1]]
		for q := 1; q < len(idx); q++ {
			if idx[q] <= idx[q-1] {
				ip.sorted = false
			}
		}
	}
	f.ipm = ip
	return ip
}

// estimate returns the operations after which the dual of -s 13 hands
// over to the interior-point method: its estimated cost (IPMGuessIters
// iterations of four passes, H over every row and its Cholesky) in dual
// operations (IPMOpsRatio), or 0 for never: more than NewtonDenseMax
// weights, where H does not fit.
func (f *SVRIPM) estimate() int64 {
	s, t := f.s, f.t
	dim := int64(s.NF + 1)
	if s.Lambda != 0 || dim > int64(f.pt.NewtonDenseMax) {
		return 0
	}
	if t.SwitchOps > 0 {
		return t.SwitchOps
	}
	ops := t.IPMGuessIters * (6*s.NNZ() + outer(s.Data) + dim*dim*dim/6 + 2*dim*dim)
	return int64(float64(ops) * t.SVRIPMOpsRatio)
}

// Finish runs the interior-point method from the dual's point and leaves
// the dual at its rounded answer (w rebuilt from β) with r.Obj set, or at
// the point at the switch if the answer is worse or r is cancelled. The
// dual's pass is always worth running.
func (f *SVRIPM) Finish(r *solver.Run, _ int) bool {
	f.steps += f.run(r)
	return true
}

func (f *SVRIPM) run(r *solver.Run) int {
	s, t := f.s, f.t
	ip := f.newIPM()
	n, dim, C := s.N, s.NF+1, s.U
	ip.beta = append(ip.beta[:0], s.Beta...)
	ip.w0 = append(ip.w0[:0], s.W...)
	before := s.Objective()
	trace := r.Trace()

	// Start: the dual's β split into a and b, pulled into the box by how
	// far the gradient points out of it, with centred multipliers (as
	// -s 3's finisher starts).
	var gap float64
	for i := range n {
		m := s.Dot(int32(i), s.W, &s.Ops)
		ga, gb := m-s.Label[i]+s.P, s.Label[i]-m+s.P
		a, b := max(s.Beta[i], 0), max(-s.Beta[i], 0)
		gap += float64(a*max(ga, 0)) + float64((C-a)*max(-ga, 0)) + float64(b*max(gb, 0)) + float64((C-b)*max(-gb, 0))
		ip.m[i], ip.ra[i], ip.rb[i] = m, ga, gb
	}
	mu0 := max(t.IPMKappa*gap/float64(4*n), 1e-12*C)
	clear(ip.w)
	for i := range n {
		a := InteriorStart(max(s.Beta[i], 0), ip.ra[i], C, mu0, t.IPMTheta)
		b := InteriorStart(max(-s.Beta[i], 0), ip.rb[i], C, mu0, t.IPMTheta)
		ip.a[i], ip.ua[i], ip.b[i], ip.ub[i] = a, C-a, b, C-b
		ip.sa[i], ip.ta[i], ip.sb[i], ip.tb[i] = mu0/a, mu0/(C-a), mu0/b, mu0/(C-b)
		s.Axpy(a-b, int32(i), ip.w, &s.Ops)
	}
	if trace != nil {
		trace("svr ipm start: gap %.4g mu0 %.4g obj %.10g", gap, mu0, before)
	}

	iters, done, prevComp := 0, false, math.Inf(1)
	for iters < t.IPMMaxIter && !done {
		if r.Poll() {
			break
		}
		var comp float64
		for i := range n {
			comp += float64(ip.a[i]*ip.sa[i]) + float64(ip.ua[i]*ip.ta[i]) + float64(ip.b[i]*ip.sb[i]) + float64(ip.ub[i]*ip.tb[i])
		}
		mu := comp / float64(4*n)
		fval := 0.5 * ipmDot(ip.w, ip.w)
		for i := range n {
			fval += float64((s.P-s.Label[i])*ip.a[i]) + float64((s.P+s.Label[i])*ip.b[i])
		}
		if trace != nil {
			trace("svr ipm %d: f=%.12g comp=%.4g ops=%d", iters, fval, comp, s.Ops)
		}
		if comp <= t.IPMRoundRel*math.Abs(fval) {
			sum := f.ipmRound(ip)
			if trace != nil {
				trace("svr ipm %d: rounded, violations sum %.4g (tol %.4g)", iters, sum, s.Tol)
			}
			// Stop where the point certifies and β is exact enough that
			// f(β) with w = Σ β_i x_i summed afresh bounds the primal (x of
			// 10⁶ amplify β's rounding), or where the complementarity no
			// longer halves.
			if sum <= s.Tol && (comp <= t.SVRIPMStopRel*math.Abs(fval) || comp > 0.5*prevComp) {
				done = true
				break
			}
		}
		prevComp = comp

		// Predictor: the form pass (margins, D, H and v), r = −gradient.
		clear(ip.h)
		clear(ip.v)
		for i := range n {
			i32 := int32(i)
			m := s.Dot(i32, ip.w, &s.Ops)
			ip.m[i] = m
			ea := 1 / (ip.sa[i]/ip.a[i] + ip.ta[i]/ip.ua[i])
			eb := 1 / (ip.sb[i]/ip.b[i] + ip.tb[i]/ip.ub[i])
			ip.ea[i], ip.eb[i] = ea, eb
			ip.ra[i], ip.rb[i] = -(m - s.Label[i] + s.P), -(s.Label[i] - m + s.P)
			s.Axpy(float64(ip.ra[i]*ea)-float64(ip.rb[i]*eb), i32, ip.v, &s.Ops)
			addOuter(s.Data, ip.h, dim, ea+eb, i32, ip.sorted, &s.Ops)
		}
		if !f.ipmFactor(ip, r) {
			break
		}
		iters++
		f.ipmDelta(ip)
		for i := range n {
			da, db := ip.da[i], ip.db[i]
			ip.dsa[i] = -ip.sa[i] - float64(ip.sa[i]/ip.a[i]*da)
			ip.dta[i] = -ip.ta[i] + float64(ip.ta[i]/ip.ua[i]*da)
			ip.dsb[i] = -ip.sb[i] - float64(ip.sb[i]/ip.b[i]*db)
			ip.dtb[i] = -ip.tb[i] + float64(ip.tb[i]/ip.ub[i]*db)
		}
		step := ip.maxStep()
		var compAff float64
		for i := range n {
			da, db := float64(step*ip.da[i]), float64(step*ip.db[i])
			compAff += float64((ip.a[i]+da)*(ip.sa[i]+float64(step*ip.dsa[i]))) +
				float64((ip.ua[i]-da)*(ip.ta[i]+float64(step*ip.dta[i]))) +
				float64((ip.b[i]+db)*(ip.sb[i]+float64(step*ip.dsb[i]))) +
				float64((ip.ub[i]-db)*(ip.tb[i]+float64(step*ip.dtb[i])))
		}
		sr := compAff / comp
		sm := float64(sr * sr * sr * mu)

		// Corrector: complementarity targets σμ with the predictor's
		// second-order terms, and its right-hand side.
		clear(ip.v)
		for i := range n {
			da, db := ip.da[i], ip.db[i]
			rsa := sm - float64(ip.a[i]*ip.sa[i]) - float64(da*ip.dsa[i])
			rta := sm - float64(ip.ua[i]*ip.ta[i]) + float64(da*ip.dta[i])
			rsb := sm - float64(ip.b[i]*ip.sb[i]) - float64(db*ip.dsb[i])
			rtb := sm - float64(ip.ub[i]*ip.tb[i]) + float64(db*ip.dtb[i])
			ip.dsa[i], ip.dta[i], ip.dsb[i], ip.dtb[i] = rsa, rta, rsb, rtb
			m := ip.m[i]
			ip.ra[i] = -(m - s.Label[i] + s.P - ip.sa[i] + ip.ta[i]) + rsa/ip.a[i] - rta/ip.ua[i]
			ip.rb[i] = -(s.Label[i] - m + s.P - ip.sb[i] + ip.tb[i]) + rsb/ip.b[i] - rtb/ip.ub[i]
			s.Axpy(float64(ip.ra[i]*ip.ea[i])-float64(ip.rb[i]*ip.eb[i]), int32(i), ip.v, &s.Ops)
		}
		f.ipmDelta(ip)
		for i := range n {
			da, db := ip.da[i], ip.db[i]
			ip.dsa[i] = (ip.dsa[i] - float64(ip.sa[i]*da)) / ip.a[i]
			ip.dta[i] = (ip.dta[i] + float64(ip.ta[i]*da)) / ip.ua[i]
			ip.dsb[i] = (ip.dsb[i] - float64(ip.sb[i]*db)) / ip.b[i]
			ip.dtb[i] = (ip.dtb[i] + float64(ip.tb[i]*db)) / ip.ub[i]
		}
		step = min(1, ipmStepFrac*ip.maxStep())
		for i := range n {
			da, db := float64(step*ip.da[i]), float64(step*ip.db[i])
			ip.a[i] += da
			ip.ua[i] -= da
			ip.b[i] += db
			ip.ub[i] -= db
			ip.sa[i] += float64(step * ip.dsa[i])
			ip.ta[i] += float64(step * ip.dta[i])
			ip.sb[i] += float64(step * ip.dsb[i])
			ip.tb[i] += float64(step * ip.dtb[i])
		}
		for j, d := range ip.z {
			ip.w[j] += float64(step * d)
		}
	}
	if !done && !r.Cancelled() {
		f.ipmRound(ip)
	}
	if after := s.Objective(); r.Cancelled() || !(after <= before) {
		copy(s.Beta, ip.beta)
		copy(s.W, ip.w0)
		r.Obj = before
		return iters
	}
	r.Obj = s.Objective()
	if trace != nil {
		trace("svr ipm: %d iterations, obj %.12g", iters, r.Obj)
	}
	return iters
}

// InteriorStart returns the interior-point methods' start for a variable
// x in [0, c] whose objective's gradient is g, at complementarity mu0: at
// least mu0/g from 0 when g > 0 (its multiplier g then makes x·s = mu0),
// likewise from c when g < 0, at most theta·c from x, and at least
// 10⁻¹⁴·c from both bounds (interior even at mu0 = 0).
func InteriorStart(x, g, c, mu0, theta float64) float64 {
	cap := theta * c
	lo := max(min(cap, mu0/max(g, mu0/cap)), 1e-14*c)
	hi := max(min(cap, mu0/max(-g, mu0/cap)), 1e-14*c)
	return min(max(x, lo), c-hi)
}

// ipmStepFrac is the fraction of the distance to the boundary a step
// takes.
const ipmStepFrac = 0.99

// addOuter adds c·x_i x_iᵀ (bias feature included) to the lower triangle
// of h; on sorted rows four rows of h at a time (dense.AddOuter, -s 3's:
// the formation is most of an iteration's work on dense rows).
func addOuter(s *dcd.Data, h []float64, dim int, c float64, i int32, sorted bool, ops *int64) {
	a, b := s.RP[i], s.RP[i+1]
	if sorted {
		if s.Val32 == nil {
			dense.AddOuter(h, dim, c, s.Idx[a:b], s.Val[a:b])
		} else {
			dense.AddOuter(h, dim, c, s.Idx[a:b], s.Val32[a:b])
		}
		if s.Bias != 0 {
			hb := h[s.NF*dim : s.NF*dim+s.NF+1]
			for p := a; p < b; p++ {
				hb[s.Idx[p]] += float64(float64(c*s.Value(p)) * s.Bias)
			}
			hb[s.NF] += float64(float64(c*s.Bias) * s.Bias)
		}
		k := b - a
		*ops += k * (k + 1) / 2
		return
	}
	for p := a; p < b; p++ {
		jp := int(s.Idx[p])
		vp := float64(c * s.Value(p))
		for q := a; q <= p; q++ {
			jq := int(s.Idx[q])
			r, col := max(jp, jq), min(jp, jq)
			h[r*dim+col] += float64(vp * s.Value(q))
		}
		if s.Bias != 0 {
			h[s.NF*dim+jp] += float64(vp * s.Bias)
		}
	}
	if s.Bias != 0 {
		h[s.NF*dim+s.NF] += float64(float64(c*s.Bias) * s.Bias)
	}
	k := b - a
	*ops += k * (k + 1) / 2
}

// ipmFactor adds I to H and factors it after scaling its rows and
// columns to a unit diagonal (ip.sc keeps the scales).
func (f *SVRIPM) ipmFactor(ip *svrIPM, r *solver.Run) bool {
	s := f.s
	dim := s.NF + 1
	for j := range dim {
		ip.h[j*dim+j]++
		ip.sc[j] = 1 / math.Sqrt(ip.h[j*dim+j])
	}
	for j := range dim {
		for k := 0; k <= j; k++ {
			ip.h[j*dim+k] *= float64(ip.sc[j] * ip.sc[k])
		}
	}
	s.Ops += int64(dim) * int64(dim) * int64(dim) / 6
	return dense.Cholesky(ip.h, dim, r.Poll, s.Pool, f.pt.HessianParallelOps)
}

// ipmDelta solves H Δw = v (H factored) into ip.z and sets Δa, Δb from
// it in one pass.
func (f *SVRIPM) ipmDelta(ip *svrIPM) {
	s := f.s
	dim := s.NF + 1
	for j := range dim {
		ip.v[j] *= ip.sc[j]
	}
	dense.CholSolve(ip.h, dim, 1, ip.v, ip.z)
	for j := range dim {
		ip.z[j] *= ip.sc[j]
	}
	s.Ops += int64(dim) * int64(dim)
	for i := range s.N {
		q := s.Dot(int32(i), ip.z, &s.Ops)
		ip.da[i], ip.db[i] = float64((ip.ra[i]-q)*ip.ea[i]), float64((ip.rb[i]+q)*ip.eb[i])
	}
}

// maxStep returns the largest step in (0, ∞] that keeps every variable,
// slack and multiplier non-negative.
func (ip *svrIPM) maxStep() float64 {
	step := math.Inf(1)
	lim := func(x, d float64) {
		if d < 0 {
			step = min(step, -x/d)
		}
	}
	for i, da := range ip.da {
		db := ip.db[i]
		lim(ip.a[i], da)
		lim(ip.ua[i], -da)
		lim(ip.b[i], db)
		lim(ip.ub[i], -db)
		lim(ip.sa[i], ip.dsa[i])
		lim(ip.ta[i], ip.dta[i])
		lim(ip.sb[i], ip.dsb[i])
		lim(ip.tb[i], ip.dtb[i])
	}
	return step
}

// ipmRound sets β to the interior point rounded to the bounds its
// multipliers point at, w = Σ β_i x_i summed with compensation (values of
// 10⁶ lose digits in plain sums), and returns the sum of the violations
// there.
func (f *SVRIPM) ipmRound(ip *svrIPM) float64 {
	s := f.s
	C := s.U
	round := func(x, u, sl, tl float64) float64 {
		switch {
		case x/C < sl:
			return 0
		case u/C < tl:
			return C
		}
		return x
	}
	for i := range s.N {
		s.Beta[i] = round(ip.a[i], ip.ua[i], ip.sa[i], ip.ta[i]) - round(ip.b[i], ip.ub[i], ip.sb[i], ip.tb[i])
	}
	copy(s.W, ip.w)
	var sum float64
	for i := range s.N {
		sum += s.Violation(int32(i), s.Dot(int32(i), s.W, &s.Ops))
	}
	return sum
}

func ipmDot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}
