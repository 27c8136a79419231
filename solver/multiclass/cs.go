// The Crammer–Singer multi-class SVM (Crammer & Singer 2001), liblinear's
// -s 4 (MCSVM_CS), by dual subspace descent over examples: every step
// optimises the K dual variables of one example exactly, as in Keerthi et
// al.'s sequential dual method (liblinear's Solver_MCSVM_CS).
//
// Primal. K classes, weight vectors w_1..w_K, example i of class y_i with
// cost C_i (C times the -wi weight of its class), e_i^m = [m ≠ y_i]:
//
//	min_W P(W) = ½ Σ_m ‖w_m‖² + Σ_i C_i max_m (e_i^m + w_mᵀx_i − w_{y_i}ᵀx_i).
//
// Dual, in liblinear's minimised form (the sign it prints):
//
//	min_α f(α) = ½ Σ_m ‖w_m(α)‖² + Σ_i Σ_m e_i^m α_i^m,  w_m(α) = Σ_i α_i^m x_i,
//	α_i^m ≤ u_i^m = C_i·[m = y_i],  Σ_m α_i^m = 0 for every i,
//
// so α_i^{y_i} ∈ [0, C_i], the others lie in [−C_i, 0], and
// f = ½‖W‖² − Σ_i α_i^{y_i}. P(W(α)) + f(α) ≥ 0 is the duality gap. With
// the K decision values d_m = w_mᵀx_i the gradient is G_m = ∂f/∂α_i^m =
// d_m + e_i^m and the Hessian of block i is q_i·I, q_i = ‖x_i‖² (+ B²
// with -B, whose bias is an extra feature of value B, regularised as in
// liblinear). Example i's loss in P is max_m G_m − G_{y_i}.
//
// KKT. The block is optimal iff some λ_i has G_m = λ_i for α_i^m < u_i^m
// and G_m ≤ λ_i at α_i^m = u_i^m, i.e. iff max_m G_m ≤ min_{α_i^m < u_i^m} G_m.
// The difference (≥ 0) is the block's violation, liblinear's stopping
// quantity; -e bounds its maximum over all examples.
//
// Block step. With t_m = α_m − G_m/q, the exact minimiser of
// Σ_m G_m δ_m + ½ q Σ_m δ_m² subject to Σ_m δ_m = 0 and α + δ ≤ u is
// α_m + δ_m = min(u_m, t_m − θ), where θ solves Σ_m min(0, v_m − θ) = −C_i
// for v_m = t_m − u_m (the sum of the new α is 0 and that of u is C_i).
// The classes below their bound are the k smallest v_m, and
// θ = (C_i + Σ_{j<k} v_(j))/k for the largest k with v_(k−1) < θ: one
// sort of K values, no data access. The step then reads the row once (the
// decision values) and writes it once, for the classes whose α changed
// only (mostly y_i and one or two others).
//
// Shrinking (the shrink selections, as liblinear): a class at its bound
// whose gradient is below the smallest one among the classes off their
// bounds stays at its bound in the block's optimum; it leaves the
// example's active classes, whose decision values alone the next steps
// read, and an example left with one active class leaves the driver's
// active set. The full pass reads every class of every example: it sets
// each example's active classes anew by the same rule, and a repaired
// example gets all its classes back.

package multiclass

import (
	"math"
	"slices"
	"unsafe"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/rows"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// CS is one Crammer–Singer training run (solver.Problem). It is not safe
// for concurrent use; nothing is allocated after NewCS.
type CS struct {
	// examples holds the point: W, and Alpha[i*K+m] = α_i^m.
	examples

	// perm[i*K : i*K+K] is a permutation of example i's classes whose
	// first nact[i] are active; both nil when nothing shrinks.
	perm []uint16
	nact []uint16
	// epsShrink is liblinear's tolerance for bringing the shrunk classes
	// back, here for the certifying pass that does so (Due).
	epsShrink float64
	// dups are the groups of identical rows of different classes (nil:
	// none, or not searched).
	dups *dups

	// per-step scratch, by position among the active classes: the class,
	// the gradient, t_m, and v_m sorted; the classes whose α changed and
	// by how much.
	pos    []int32
	g, t   []float64
	srt    []float64
	nzc    []int32
	nzd    []float64
	gather int // the most active classes whose decision values are read class by class
	// far: some C_i·q_i exceeds farBound, and the steps find θ by
	// csThetaFar.
	far bool
	// gapTol is Tuning.CSGap: the relative duality gap a certifying pass
	// needs besides the violation (0: none).
	gapTol float64
	// sumC is Σ_i C_i, by which the largest violation bounds the gap.
	sumC float64
}

// csGapRound is the violation at the rounding level of gradients of the
// margin's scale 1: the gap test allows the csGapRound·Σ_i C_i such a
// violation everywhere allows, and no longer applies once the tolerance
// has come down to it (data of huge values, whose P is far below it).
const csGapRound = 1e-12

// farBound is the C_i·q_i beyond which α_i^{y_i}, about 1/q_i, lies so far
// below C_i that t_y − C_i loses more than half its bits: values of 1e10
// at C = 1 reached 15% training accuracy where 1e5 reached 100%.
const farBound = 0x1p30

// maxShrinkClasses is the most classes whose active sets fit perm's uint16.
const maxShrinkClasses = math.MaxUint16

// NewCS sets up a run at α = 0, W = 0 on the examples of d, with class the
// class index of each example, ub the C of each class and bias B (< 0:
// none); eps is the tolerance on the largest violation. With shrink the
// steps shrink classes and examples as liblinear does (the driver's
// Shrink and ACFShrink selections).
func NewCS(d *dataio.Dataset, class []int32, ub []float64, bias, eps float64, shrink bool, pool *procs.Pool, drv *solver.Tuning, t *Tuning) *CS {
	if t == nil {
		def := DefaultTuning()
		t = &def
	}
	K := len(ub)
	s := &CS{examples: newExamples(d, class, ub, bias, eps, pool, drv), gapTol: t.CSGap}
	if shrink && K <= maxShrinkClasses {
		s.perm = make([]uint16, s.N*K)
		s.nact = make([]uint16, s.N)
		for i := range s.N {
			p := s.perm[i*K : i*K+K]
			for m := range p {
				p[m] = uint16(m)
			}
			s.nact[i] = uint16(K)
		}
		s.epsShrink = max(10*eps, 1)
	}
	s.pos = make([]int32, K)
	s.g = make([]float64, K)
	s.t = make([]float64, K)
	s.srt = make([]float64, K)
	s.nzc = make([]int32, K)
	s.nzd = make([]float64, K)
	if t.CSGatherDiv > 0 {
		s.gather = K / t.CSGatherDiv
	}
	for i, q := range s.xsq {
		if !(float64(ub[class[i]]*q) <= farBound) {
			s.far = true
		}
		s.sumC += ub[class[i]]
	}
	return s
}

// bound returns u_i^c for an example of class y with cost C.
func bound(c, y int32, C float64) float64 {
	if c == y {
		return C
	}
	return 0
}

// active fills s.pos with example i's first a classes in perm's order
// (identity without shrinking) and returns it.
func (s *CS) active(i int32, a int) []int32 {
	pos := s.pos[:a]
	if s.perm == nil {
		for m := range pos {
			pos[m] = int32(m)
		}
		return pos
	}
	p := s.perm[int(i)*s.K : int(i)*s.K+a]
	for m, c := range p {
		pos[m] = int32(c)
	}
	return pos
}

// gradient sets s.g[m] = G of class pos[m] for example i: all K decision
// values by DotK, or with few active classes (Tuning.CSGatherDiv) only
// theirs.
func (s *CS) gradient(i int32, pos []int32) {
	y := s.class[i]
	g := s.g[:len(pos)]
	if len(pos) > s.gather {
		s.decision(i)
		for m, c := range pos {
			g[m] = s.dec[c]
			if c != y {
				g[m]++
			}
		}
		return
	}
	a, b := s.RP[i], s.RP[i+1]
	K := s.K
	s.Ops += (b - a) * int64(len(pos))
	clear(g)
	if s.Val32 == nil {
		gatherDot(s.Idx[a:b:b], s.Val[a:b:b], s.W, K, pos, g)
	} else {
		gatherDot(s.Idx[a:b:b], s.Val32[a:b:b], s.W, K, pos, g)
	}
	B := s.Bias
	row := s.W[s.NF*K : s.NF*K+K]
	for m, c := range pos {
		if B != 0 {
			g[m] += float64(B * row[c])
		}
		if c != y {
			g[m]++
		}
	}
}

// gatherDot adds Σ_k val[k]·W[idx[k]*K+pos[m]] to g[m].
func gatherDot[V float32 | float64](idx []int32, val []V, W []float64, K int, pos []int32, g []float64) {
	val = val[:len(idx)]
	g = g[:len(pos)]
	for k, j := range idx {
		row := W[int(j)*K : int(j)*K+K]
		v := float64(val[k])
		for m, c := range pos {
			g[m] += float64(v * row[c])
		}
	}
}

// axpyClasses adds d[m]·val[k] to W[idx[k]*K+cls[m]].
func axpyClasses[V float32 | float64](cls []int32, d []float64, idx []int32, val []V, W []float64, K int) {
	val = val[:len(idx)]
	d = d[:len(cls)]
	if len(cls) == 2 {
		c0, c1 := cls[0], cls[1]
		d0, d1 := d[0], d[1]
		for k, j := range idx {
			row := W[int(j)*K : int(j)*K+K]
			v := float64(val[k])
			row[c0] += float64(d0 * v)
			row[c1] += float64(d1 * v)
		}
		return
	}
	for k, j := range idx {
		row := W[int(j)*K : int(j)*K+K]
		v := float64(val[k])
		for m, c := range cls {
			row[c] += float64(d[m] * v)
		}
	}
}

// violation returns the block's violation max_m G_m − min_{α_m < u_m} G_m
// over the classes pos (gradients in s.g) and that minimum.
func (s *CS) violation(i int32, pos []int32) (viol, minG float64) {
	K := s.K
	y := s.class[i]
	C := s.ub[y]
	al := s.Alpha[int(i)*K : int(i)*K+K]
	maxG, minG := math.Inf(-1), math.Inf(1)
	for m, c := range pos {
		G := s.g[m]
		maxG = max(maxG, G)
		if al[c] < bound(c, y, C) {
			minG = min(minG, G)
		}
	}
	return max(maxG-minG, 0), minG
}

// shrinkClasses moves the classes of example i that are at their bound
// with a gradient below minG behind its active ones (liblinear's rule),
// keeping s.pos and s.g in step, and returns the new number of active
// classes of the first a.
func (s *CS) shrinkClasses(i int32, minG float64, a int) int {
	K := s.K
	y := s.class[i]
	C := s.ub[y]
	al := s.Alpha[int(i)*K : int(i)*K+K]
	perm := s.perm[int(i)*K : int(i)*K+K]
	pos, g := s.pos, s.g
	out := func(m int) bool {
		c := pos[m]
		return al[c] == bound(c, y, C) && g[m] < minG
	}
	for m := 0; m < a; m++ {
		if !out(m) {
			continue
		}
		// Fill slot m with the last active class that stays, if any.
		a--
		for a > m && out(a) {
			a--
		}
		if a > m {
			pos[m], pos[a] = pos[a], pos[m]
			g[m], g[a] = g[a], g[m]
			perm[m], perm[a] = perm[a], perm[m]
		}
	}
	s.nact[i] = uint16(a)
	return a
}

// Step visits example i (solver.Problem): the gradients of its active
// classes, its violation, liblinear's shrinking when on, and the exact
// block step. An example with at most one active class is shrunk.
func (s *CS) Step(i, ahead int32, _ solver.Thresholds) (viol, gain float64, shrink bool) {
	a := s.K
	if s.nact != nil {
		a = int(s.nact[i])
	}
	if a <= 1 {
		// One class left: Σ_m α_m = 0 fixes its α.
		return 0, 0, s.nact != nil
	}
	if ahead >= 0 {
		s.Prefetch(ahead)
		s.prefetchDuals(ahead)
	}
	pos := s.active(i, a)
	s.gradient(i, pos)
	viol, minG := s.violation(i, pos)
	if s.nact != nil {
		if a = s.shrinkClasses(i, minG, a); a <= 1 {
			return 0, 0, true
		}
		pos = s.pos[:a]
	}
	if viol <= pgZero {
		return viol, 0, false
	}
	return viol, s.blockStep(i, pos), false
}

// prefetchDuals asks for example i's α and active classes ahead of its
// step: examples come in random order, so these are cache misses too.
func (s *CS) prefetchDuals(i int32) {
	K := uintptr(s.K)
	if s.perm == nil {
		rows.PrefetchRanges(unsafe.Pointer(&s.Alpha[int(i)*s.K]), 8*K, nil, 0)
		return
	}
	rows.PrefetchRanges(unsafe.Pointer(&s.Alpha[int(i)*s.K]), 8*K, unsafe.Pointer(&s.perm[int(i)*s.K]), 2*K)
}

// blockStep minimises f exactly over the classes pos of example i (the
// others at their bounds), given their gradients in s.g, applies the
// change to α and W and returns the exact decrease of f.
func (s *CS) blockStep(i int32, pos []int32) float64 {
	K := s.K
	n := len(pos)
	y := s.class[i]
	C := s.ub[y]
	q := s.xsq[i]
	al := s.Alpha[int(i)*K : int(i)*K+K]
	g, t, v := s.g[:n], s.t[:n], s.srt[:n]

	finite := q > 0
	vy, ty, hasY := 0.0, 0.0, false
	if finite {
		for m, c := range pos {
			t[m] = al[c] - g[m]/q
			v[m] = t[m] - bound(c, y, C)
			if math.IsInf(v[m], 0) {
				finite = false
			}
			if c == y {
				vy, ty, hasY = v[m], t[m], true
			}
		}
	}
	if finite {
		var theta float64
		if s.far && hasY {
			theta = csThetaFar(v, vy, ty, C)
		} else {
			theta = csTheta(v, C)
		}
		for m, c := range pos {
			t[m] = min(bound(c, y, C), t[m]-theta) // the new α
		}
	} else {
		// q = 0 (an empty row without bias: f is linear in the block) or q
		// so tiny that G/q overflows: the linear program's vertex, every
		// class at its bound but the one of the largest gradient, which
		// takes −C_i.
		top := 0
		for m := range g {
			if g[m] > g[top] {
				top = m
			}
		}
		for m, c := range pos {
			t[m] = bound(c, y, C)
			if m == top {
				t[m] -= C
			}
		}
	}

	// gain = −(gᵀδ + ½ q ‖δ‖²); the classes with δ ≠ 0 update W.
	var gd, dd float64
	nz := 0
	for m, c := range pos {
		dl := t[m] - al[c]
		if dl == 0 {
			continue
		}
		al[c] = t[m]
		gd += float64(g[m] * dl)
		dd += float64(dl * dl)
		s.nzc[nz], s.nzd[nz] = c, dl
		nz++
	}
	if nz == 0 {
		return 0
	}
	s.updateClasses(i, nz)
	return -(gd + float64(0.5*q*dd))
}

// updateClasses does w_c += δ_c·x_i for the nz classes in s.nzc, bias
// included.
func (s *CS) updateClasses(i int32, nz int) {
	a, b := s.RP[i], s.RP[i+1]
	K := s.K
	cls, d := s.nzc[:nz], s.nzd[:nz]
	s.Ops += (b - a) * int64(nz)
	if s.Val32 == nil {
		axpyClasses(cls, d, s.Idx[a:b:b], s.Val[a:b:b], s.W, K)
	} else {
		axpyClasses(cls, d, s.Idx[a:b:b], s.Val32[a:b:b], s.W, K)
	}
	if B := s.Bias; B != 0 {
		row := s.W[s.NF*K : s.NF*K+K]
		for m, c := range cls {
			row[c] += float64(d[m] * B)
		}
	}
}

// csTheta returns θ with Σ_m min(0, v_m − θ) = −C for C > 0, sorting v.
// The classes below their bound are the k smallest v_m, and θ =
// (C + Σ_{j<k} v_(j))/k for the largest k with v_(k−1) < θ; θ_k > v_(k)
// says that the next class is below its bound too.
func csTheta(v []float64, C float64) float64 {
	slices.Sort(v)
	sum := C + v[0]
	k := 1
	for k < len(v) && sum > float64(float64(k)*v[k]) {
		sum += v[k]
		k++
	}
	return sum / float64(k)
}

// csThetaFar is csTheta where v holds vy = t_y − C for the example's own
// class: once y is among the k smallest, the sum C + Σ_{j<k} v_(j) is
// t_y plus the others' v, added without C, which would cancel t_y's bits
// when t_y ≪ C.
func csThetaFar(v []float64, vy, ty, C float64) float64 {
	slices.Sort(v)
	rest, yin := 0.0, false // the others' v among the first k; whether y is
	add := func(x float64) {
		if !yin && x == vy {
			yin = true
		} else {
			rest += x
		}
	}
	sum := func() float64 {
		if yin {
			return rest + ty
		}
		return C + rest
	}
	add(v[0])
	k := 1
	for k < len(v) && sum() > float64(float64(k)*v[k]) {
		add(v[k])
		k++
	}
	return sum() / float64(k)
}

// Pass goes over every example in storage order at the current point
// (solver.Problem; see examples.pass): with repair, an example whose
// violation exceeds eps gets all its classes back and an exact block step
// on the spot.
//
// The violation alone does not bound the duality gap tightly: each
// example's share of it, (C_i − α_i^{y_i})(max_m G_m − G_{y_i}) +
// Σ_{m≠y_i} (−α_i^m)(max G − G_m), is at most C_i times its violation, so
// the gap may reach Σ_i C_i·eps, many times P at a large C (usps at C =
// 100: P = 893 against f = −152 at a violation of 0.05). A pass that
// certifies the violation therefore also needs P + f ≤ Tuning.CSGap·P;
// when that fails the tolerance tightens (tighten) and the descent goes
// on from the point, liblinear's rule unchanged wherever the gap is small.
func (s *CS) Pass(r *solver.Run, repair bool) bool {
	ok := s.pass(s, r, repair)
	if !ok || s.gapTol <= 0 || r.Cancelled() {
		return ok
	}
	if s.gapOK() {
		return true
	}
	if repair {
		s.tighten(s.Gap())
	}
	return false
}

// Gap is the duality gap P(W) + f(α) at the last full pass's point
// (exact where that pass took no step).
func (s *CS) Gap() float64 { return s.PassPrimal + s.Objective() }

// gapOK reports whether the last full pass's point meets Tuning.CSGap:
// a gap of at most CSGap·P, up to rounding (csGapRound).
func (s *CS) gapOK() bool {
	return s.gapTol <= 0 || s.eps <= csGapRound || s.Gap() <= float64(s.gapTol*s.PassPrimal)+float64(csGapRound*s.sumC)
}

// tighten lowers the violation the passes certify after one whose point
// had duality gap gap above gapTol·P: the gap shrinks about in proportion
// to the violation that bounds it, so eps scales by the ratio of the
// target to the gap, by a factor of 2 to 10 per pass, down to csGapRound.
// (A violation of gapTol·P/Σ_i C_i everywhere certifies the gap.)
func (s *CS) tighten(gap float64) {
	f := min(0.5, max(0.1, math.Sqrt(s.gapTol*s.PassPrimal/gap)))
	s.eps = max(s.eps*f, csGapRound)
	if s.perm != nil {
		s.epsShrink = max(s.epsShrink*f, s.eps)
	}
}

// helper returns a copy of s with scratch of its own (evaluator).
func (s *CS) helper() evaluator {
	h := *s
	h.dec = make([]float64, s.K)
	return &h
}

func (s *CS) base() *examples { return &s.examples }

// eval sets s.dec to example i's decision values and returns its weighted
// loss C_i (max_m G_m − G_{y_i}) and violation over all K classes. With
// shrinking it sets the example's active classes anew: all but those at
// their bound with a gradient below the smallest off its bound. Only
// example i's entries of perm and nact are written, so helpers scanning
// other rows do not interfere.
func (s *CS) eval(i int32) (loss, viol float64) {
	s.decision(i)
	K := s.K
	y := s.class[i]
	C := s.ub[y]
	al := s.Alpha[int(i)*K : int(i)*K+K]
	dec := s.dec[:K]
	maxG, minG := math.Inf(-1), math.Inf(1)
	for c, d := range dec {
		c := int32(c)
		if c != y {
			d++
		}
		maxG = max(maxG, d)
		if al[c] < bound(c, y, C) {
			minG = min(minG, d)
		}
	}
	if s.perm != nil {
		perm := s.perm[int(i)*K : int(i)*K+K]
		a, b := 0, K
		for c, d := range dec {
			c := int32(c)
			if c != y {
				d++
			}
			if al[c] == bound(c, y, C) && d < minG {
				b--
				perm[b] = uint16(c)
			} else {
				perm[a] = uint16(c)
				a++
			}
		}
		s.nact[i] = uint16(a)
	}
	return float64(C * (maxG - dec[y])), max(maxG-minG, 0)
}

// repair steps on example i over all its classes after eval(i) (evaluator).
func (s *CS) repair(i int32, _ float64) float64 {
	K := s.K
	if s.nact != nil {
		s.nact[i] = uint16(K)
	}
	pos := s.active(i, K)
	y := s.class[i]
	for m, c := range pos {
		s.g[m] = s.dec[c]
		if c != y {
			s.g[m]++
		}
	}
	return s.blockStep(i, pos)
}

// Due decides when a sweep's violation makes the certifying pass
// worthwhile (solver.Trigger). Without shrinking: at eps. With shrinking,
// liblinear brings the shrunk classes back whenever a sweep's violation
// falls below eps_shrink = max(10·eps, 1), halving it (down to eps) each
// time; here that is the pass, which sets every example's classes anew.
func (s *CS) Due(viol float64) bool {
	if s.perm == nil {
		return viol <= s.eps
	}
	if viol <= s.eps || viol < s.epsShrink {
		s.epsShrink = max(s.epsShrink/2, s.eps)
		return true
	}
	return false
}

// FindDups looks for groups of identical rows of different classes,
// which Push then moves along the directions that keep W, and returns the
// number of rows in such groups.
func (s *CS) FindDups() int {
	s.dups = findDups(&s.Rows, s.class)
	return s.dups.Len()
}

// Push moves the groups that FindDups found along the directions that
// keep W, each pair exactly to its first bound (solver.Config.AfterBatch),
// and returns the decrease of f.
func (s *CS) Push() float64 {
	if s.dups == nil {
		return 0
	}
	return s.push()
}

// Objective is f(α) = ½‖W‖² + Σ_i Σ_m α_i^m − Σ_i α_i^{y_i}, summed as
// liblinear sums it.
func (s *CS) Objective() float64 {
	var ww float64
	for _, x := range s.W {
		ww += float64(x * x)
	}
	v := float64(0.5 * ww)
	for _, a := range s.Alpha {
		v += a
	}
	for i, y := range s.class {
		v -= s.Alpha[i*s.K+int(y)]
	}
	return v
}

// SupportVectors counts the examples with some α_i^m ≠ 0. With quick it
// reads α_i^{y_i} alone, one value per example rather than K: the others
// are ≤ 0 and sum to −α_i^{y_i}, so they are all 0 when it is (up to
// rounding).
func (s *CS) SupportVectors(quick bool) int {
	n := 0
	if quick {
		for i, y := range s.class {
			if s.Alpha[i*s.K+int(y)] != 0 {
				n++
			}
		}
		return n
	}
	for i := range s.N {
		for _, a := range s.Alpha[i*s.K : i*s.K+s.K] {
			if a != 0 {
				n++
				break
			}
		}
	}
	return n
}
