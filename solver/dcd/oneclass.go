package dcd

import (
	"math"

	"github.com/acfcd/acfcd/internal/procs"
	solver "github.com/acfcd/acfcd/solver"
)

// OneClass is the dual of liblinear's one-class SVM (-s 21, since 2.40;
// solve_oneclass_svm, Chou et al. 2020), the ν-SVM of Schölkopf et al.
// scaled by νl:
//
//	min_α f(α) = ½αᵀQα,  0 ≤ α_i ≤ 1,  Σ_i α_i = νl,  Q_ij = x_iᵀx_j
//
// The equality constraint rules out single-coordinate steps: every step
// moves a pair along e_u − e_d. The driver's selection picks the first
// example i; its partner is the maximal violating one for i: to raise α_i
// the example of largest gradient G_j = wᵀx_j with α_j > 0, to lower it
// the one of smallest gradient with α_j < 1 (the pair of largest
// directional derivative among those that contain i), whichever direction
// violates more. The gradients of examples not touched since w moved are
// cached values, held in two heaps; a partner is evaluated afresh before
// the step, and when it no longer violates the other direction is tried.
//
// The KKT conditions: some ρ has G_i ≥ ρ where α_i = 0, G_i ≤ ρ where
// α_i = 1 and G_i = ρ in between, that is max{G_i : α_i > 0} −
// min{G_i : α_i < 1} ≤ 0; liblinear stops when this difference is below
// eps, and the full pass certifies it for all examples at one point.
type OneClass struct {
	*Data
	W     []float64 // len NF+1 (W[NF] = 0: the one-class SVM has no bias)
	Alpha []float64
	Nu    float64
	Eps   float64
	// Rho is the offset at the point of the last full pass: liblinear's,
	// the mean gradient of the free examples, else the middle of the
	// interval the bounded ones leave.
	Rho float64

	// Ops counts the non-zeros touched by the steps and passes.
	Ops int64
	// PassViol and PassPrimal are the maximal violation and the primal
	// objective ½‖w‖² − νlρ + Σ max(0, ρ − wᵀx_i) at the last full pass.
	PassViol, PassPrimal float64
	// Pool lends spare processors to the full passes.
	Pool *procs.Pool

	g []float64 // cached gradients wᵀx_i
	// cut is the margin below which a pair is not stepped on: violating,
	// or relative to the gradients where those exceed farG (see NewOneClass).
	cut   float64
	stale bool // a pass refreshed g without the heaps
	// clock counts the moves of w; at[i] == clock when g[i] is exact at
	// the current w (set since the last move): a partner that took part in
	// the last pair step needs no product.
	clock   uint64
	at      []uint64
	up, low *gradHeap // α_i < 1 by smallest gradient; α_i > 0 by largest
	tune    *solver.Tuning
	chunks  []solver.Chunk
	parts   []ocPart
}

// ocPart is a chunk's share of a full pass.
type ocPart struct {
	gLow, gUp float64 // max G over α > 0, min G over α < 1
	lb, ub    float64 // max G over α = 1, min G over α = 0
	free      float64 // Σ G over 0 < α < 1
	nFree     int
}

// violating is liblinear's margin below which a pair is not stepped on.
const violating = 1e-12

// farG is the size of the gradients wᵀx_i beyond which liblinear's
// absolute tolerances lie below their rounding (at values of 1e150 the
// violation stayed at 1e266 until the epoch cap): they are then taken
// relative to the gradients, as they hold at gradients of farG.
const farG = 0x1p30

// NewOneClass returns the one-class dual on sh at liblinear's start:
// α_i = 1 for the first ⌊νl⌋ examples, the fraction left over on the
// next, 0 on the others. w, if not nil, is the weight vector to train in
// (len NF+1). eps is liblinear's tolerance on the maximal violation.
func NewOneClass(sh *Data, nu, eps float64, w []float64, pool *procs.Pool, t *solver.Tuning) *OneClass {
	n := sh.N
	o := &OneClass{Data: sh, Nu: nu, Eps: eps, Pool: pool, tune: t}
	if w == nil {
		w = make([]float64, sh.NF+1)
	}
	clear(w)
	o.W = w
	o.Alpha = make([]float64, n)
	nl := float64(nu * float64(n)) // νl, rounded (liblinear's nu*l)
	full := int(nl)
	for i := range full {
		o.Alpha[i] = 1
	}
	if full < n {
		o.Alpha[full] = nl - float64(full)
	}
	for i, a := range o.Alpha {
		if a != 0 {
			o.Axpy(a, int32(i), o.W, &o.Ops)
		}
	}
	o.g = make([]float64, n)
	o.at = make([]uint64, n)
	gmax := 0.0
	for i := range n {
		o.g[i] = o.Dot(int32(i), o.W, &o.Ops)
		gmax = max(gmax, math.Abs(o.g[i]))
	}
	o.cut = violating
	if gmax > farG {
		o.Eps = float64(eps*gmax) / farG
		o.cut = float64(violating*gmax) / farG
	}
	o.up = newGradHeap(n, o.g, false)
	o.low = newGradHeap(n, o.g, true)
	o.rebuild()
	return o
}

// Len is the number of examples.
func (o *OneClass) Len() int { return o.N }

// Due says when the certifying pass is worth running (solver.Trigger):
// the driver's rule, a batch's violation at most Eps, with Eps as
// NewOneClass scaled it.
func (o *OneClass) Due(viol float64) bool { return viol <= o.Eps }

func (o *OneClass) rebuild() {
	o.stale = false
	o.up.rebuild(func(i int) bool { return o.Alpha[i] < 1 })
	o.low.rebuild(func(i int) bool { return o.Alpha[i] > 0 })
}

// fix puts i where its α and cached gradient place it in the heaps.
func (o *OneClass) fix(i int32) {
	a := o.Alpha[i]
	o.up.set(i, a < 1)
	o.low.set(i, a > 0)
}

// Step does one pair step with i as the first example (solver.Problem).
// The signed violation is negative when α_i should grow, and the gain is
// the exact decrease of f by the pair step. When the selection shrinks,
// an example at a bound that does not violate leaves the active set, as in
// liblinear's one-class solver: α_i = 0 with a gradient above the largest
// of Ilow, α_i = 1 with one below the smallest of Iup (as cached). The
// thresholds of the dual SVMs (a margin of the last batch's largest
// violation) kept 15-25% more operations on a9a, w8a and news20.
func (o *OneClass) Step(i, ahead int32, th solver.Thresholds) (pg, gain float64, shrink bool) {
	if ahead >= 0 {
		o.Prefetch(ahead)
	}
	if o.stale {
		o.rebuild()
	}
	gi := o.Dot(i, o.W, &o.Ops)
	a := o.Alpha[i]
	// vr: violation of raising α_i against jr; vl: of lowering it against
	// jl. A cached gradient changes only together with its place in the
	// heaps (fix), one example at a time, so that the heaps stay heaps.
	jr, jl := int32(-1), int32(-1)
	vr, vl := math.Inf(-1), math.Inf(-1)
	if a < 1 {
		if jr = o.low.top(i); jr >= 0 {
			vr = o.g[jr] - gi
		}
	}
	if a > 0 {
		if jl = o.up.top(i); jl >= 0 {
			vl = gi - o.g[jl]
		}
	}
	shrinking := !math.IsInf(th.Max, 1) || !math.IsInf(th.Min, -1)
	if shrinking && ((a == 0 && vr < 0) || (a == 1 && vl < 0)) {
		o.touch(i, gi)
		return 0, 0, true
	}
	for range 2 {
		raise := vr >= vl
		j, v := jr, vr
		if !raise {
			j, v = jl, vl
		}
		if j < 0 || v <= o.cut {
			break
		}
		gj := o.g[j]
		if o.at[j] != o.clock {
			gj = o.Dot(j, o.W, &o.Ops)
		}
		if raise {
			if v = gj - gi; v > o.cut {
				return -v, o.pair(i, j, gi, gj), false
			}
			vr, jr = v, -1
		} else {
			if v = gi - gj; v > o.cut {
				return v, o.pair(j, i, gj, gi), false
			}
			vl, jl = v, -1
		}
		o.setG(j, gj)
	}
	o.touch(i, gi)
	if vr >= vl {
		return -max(vr, 0), 0, false
	}
	return max(vl, 0), 0, false
}

// touch caches i's fresh gradient g after a step that left α_i as it was,
// where it matters: when i heads a heap, or g would put it at the head.
// Most such steps are on examples far from either head (α_i = 0 and a
// gradient well above ρ), whose stale place costs nothing: a stale
// gradient is corrected when the example is picked as a partner.
func (o *OneClass) touch(i int32, g float64) {
	up, low := o.up, o.low
	if (up.pos[i] == 0 || up.pos[i] > 0 && g < o.g[up.h[0]]) || (low.pos[i] == 0 || low.pos[i] > 0 && g > o.g[low.h[0]]) {
		o.setG(i, g)
	}
}

// setG caches g, exact at the current w, as i's gradient and moves i to
// its place in the heaps.
func (o *OneClass) setG(i int32, g float64) {
	o.g[i] = g
	o.at[i] = o.clock
	o.fix(i)
}

// pair minimises f exactly along e_u − e_d from the current α, given the
// gradients gu < gd of the two examples, updates w, the cached gradients
// and the heaps, and returns the decrease of f.
func (o *OneClass) pair(u, d int32, gu, gd float64) float64 {
	au, ad := o.Alpha[u], o.Alpha[d]
	qu, qd := o.Qii(u), o.Qii(d)
	qud := o.rowDot(u, d, &o.Ops)
	quad := qu + qd - float64(2*qud)
	hi := min(1-au, ad)
	t := hi
	if quad > 0 {
		t = min((gd-gu)/quad, hi)
	}
	var nu, nd float64
	switch {
	case t < hi:
		nu, nd = au+t, ad-t
	case 1-au <= ad: // α_u reaches 1
		nu, nd = 1, max(au+ad-1, 0)
	default: // α_d reaches 0
		nu, nd = min(au+ad, 1), 0
	}
	du, dd := nu-au, nd-ad
	if du == 0 && dd == 0 {
		o.setG(u, gu)
		o.setG(d, gd)
		return 0
	}
	o.Alpha[u], o.Alpha[d] = nu, nd
	o.Axpy(du, u, o.W, &o.Ops)
	o.Axpy(dd, d, o.W, &o.Ops)
	o.clock++
	cross := float64(qud * du * dd)
	gain := -(float64(gu*du) + float64(gd*dd) + float64(0.5*(float64(qu*du*du)+float64(qd*dd*dd)+2*cross)))
	o.setG(u, gu+float64(du*qu)+float64(dd*qud))
	o.setG(d, gd+float64(du*qud)+float64(dd*qd))
	return gain
}

// Pass computes every gradient at the current point (solver.Problem), in
// chunks on the spare processors, refreshes the cached gradients and
// heaps, ρ and the primal objective, and reports whether the maximal
// violation is at most Eps. With repair, a pass that fails then steps, in
// storage order, on each example whose violation (against the pass's
// extreme gradients) exceeds Eps, and tells r of each.
func (o *OneClass) Pass(r *solver.Run, repair bool) bool {
	size := o.tune.KKTChunkRows
	nch := (o.N + size - 1) / size
	if cap(o.parts) < nch {
		o.parts = make([]ocPart, nch)
	}
	parts := o.parts[:nch]
	_, _, ops, _ := solver.RowPass(o.tune, o.Pool, &o.chunks, o.N, o.RP[o.N],
		func(bool) func(lo, hi int) solver.Chunk {
			return func(lo, hi int) solver.Chunk {
				c := solver.Chunk{Stop: -1}
				p := ocPart{gLow: math.Inf(-1), gUp: math.Inf(1), lb: math.Inf(-1), ub: math.Inf(1)}
				for i := lo; i < hi; i++ {
					g := o.Dot(int32(i), o.W, &c.Ops)
					o.g[i] = g // each chunk writes its own rows
					o.at[i] = o.clock
					a := o.Alpha[i]
					if a > 0 {
						p.gLow = max(p.gLow, g)
					}
					if a < 1 {
						p.gUp = min(p.gUp, g)
					}
					switch a {
					case 1:
						p.lb = max(p.lb, g)
					case 0:
						p.ub = min(p.ub, g)
					default:
						p.free += g
						p.nFree++
					}
				}
				parts[lo/size] = p
				return c
			}
		}, func(int, *float64, *float64) {})
	o.Ops += ops
	t := ocPart{gLow: math.Inf(-1), gUp: math.Inf(1), lb: math.Inf(-1), ub: math.Inf(1)}
	for _, p := range parts {
		t.gLow, t.gUp = max(t.gLow, p.gLow), min(t.gUp, p.gUp)
		t.lb, t.ub = max(t.lb, p.lb), min(t.ub, p.ub)
		t.free += p.free
		t.nFree += p.nFree
	}
	viol := 0.0
	if !math.IsInf(t.gLow, 0) && !math.IsInf(t.gUp, 0) {
		viol = max(t.gLow-t.gUp, 0)
	}
	o.Rho = rho(t)
	var loss, ww float64
	for _, g := range o.g {
		loss += max(o.Rho-g, 0)
	}
	for _, v := range o.W {
		ww += float64(v * v)
	}
	o.PassViol = viol
	o.PassPrimal = float64(0.5*ww) - float64(o.Nu*float64(o.N)*o.Rho) + loss
	ok := viol <= o.Eps
	if ok || !repair {
		o.stale = true // the heaps no longer match the gradients
		return ok
	}
	o.rebuild()
	noShrink := solver.Thresholds{Max: math.Inf(1), Min: math.Inf(-1)}
	for i := range o.N {
		a, g := o.Alpha[i], o.g[i]
		v := 0.0
		if a < 1 {
			v = t.gLow - g
		}
		if a > 0 {
			v = max(v, g-t.gUp)
		}
		if v > o.Eps {
			_, gain, _ := o.Step(int32(i), -1, noShrink)
			r.Repaired(int32(i), gain)
		}
	}
	return false
}

// rho is liblinear's offset from a pass's totals: the mean gradient of the
// free examples, or without any the middle of [lb, ub] (the gradients at
// α = 1 must be ≤ ρ, those at α = 0 ≥ ρ); where one side is empty, the
// other's end (liblinear would give ±Inf).
func rho(t ocPart) float64 {
	switch {
	case t.nFree > 0:
		return t.free / float64(t.nFree)
	case math.IsInf(t.ub, 1) && math.IsInf(t.lb, -1):
		return 0
	case math.IsInf(t.ub, 1):
		return t.lb
	case math.IsInf(t.lb, -1):
		return t.ub
	}
	return (t.ub + t.lb) / 2
}

// Objective is f(α) = ½‖w‖², as liblinear prints it.
func (o *OneClass) Objective() float64 {
	var ww float64
	for _, v := range o.W {
		ww += float64(v * v)
	}
	return 0.5 * ww
}

// SupportVectors counts the α_i > 0 (liblinear's nSV).
func (o *OneClass) SupportVectors() int {
	n := 0
	for _, a := range o.Alpha {
		if a > 0 {
			n++
		}
	}
	return n
}
