package solver

// The Weston–Watkins multi-class SVM (Weston & Watkins 1999), trained by
// dual subspace descent over examples as in Glasmachers & Dogan's ACF
// paper: every step optimises the K−1 dual variables of one example.
//
// Primal. K classes, weight vectors w_1..w_K, example i of class y_i with
// cost C_i (C times the -wi weight of its class):
//
//	min_W P(W) = ½ Σ_c ‖w_c‖² + Σ_i C_i Σ_{c≠y_i} max(0, 1 − (w_{y_i} − w_c)ᵀx_i).
//
// Dual. Write the loss with slacks ξ_ic ≥ 0, ξ_ic ≥ 1 − (w_{y_i} − w_c)ᵀx_i,
// with multipliers α_ic ≥ 0 for the margin constraints and μ_ic ≥ 0 for
// ξ_ic ≥ 0 (c ≠ y_i). Stationarity of the Lagrangian in ξ_ic gives
// C_i − α_ic − μ_ic = 0, hence the box 0 ≤ α_ic ≤ C_i; in w_c it gives
//
//	w_c = Σ_i ( [c = y_i]·Σ_{c'≠y_i} α_ic' − [c ≠ y_i]·α_ic ) x_i,
//
// i.e. example i adds A_i x_i (A_i = Σ_c α_ic) to its own class's vector
// and subtracts α_ic x_i from every other class c. Substituting back, the
// dual (in liblinear's minimised form, the sign liblinear prints) is
//
//	min_α f(α) = ½ Σ_c ‖w_c(α)‖² − Σ_i Σ_{c≠y_i} α_ic,  0 ≤ α_ic ≤ C_i,
//
// and P(W(α)) + f(α) ≥ 0 is the duality gap, 0 at the optimum. With the
// K decision values d_c = w_cᵀx_i,
//
//	∂f/∂α_ic = (w_{y_i} − w_c)ᵀx_i − 1 = d_{y_i} − d_c − 1,
//	∂²f/∂α_ic∂α_ic' = q_i (1 + [c = c']),  q_i = ‖x_i‖²,
//
// so the Hessian of block i is q_i (I + 11ᵀ) on its K−1 variables, and
// the KKT violation of α_ic is the projected gradient (the gradient
// clipped to ≤ 0 at α_ic = 0 and to ≥ 0 at α_ic = C_i). With -B the bias
// is an implicit extra feature of value B (regularised, as in liblinear):
// q_i includes B² and row NumFeature of W holds the K bias weights.
//
// Block step. From the gradient g at the current block α (K−1 entries),
// the exact block minimiser solves
//
//	min_δ gᵀδ + ½ q (‖δ‖² + (1ᵀδ)²),  0 ≤ α + δ ≤ C_i.
//
// For a fixed s = 1ᵀδ the problem separates: α_c + δ_c = clip(t_c − s, 0, C_i)
// with t_c = α_c − g_c/q. Consistency s = Σ_c clip(t_c − s, 0, C_i) − Σ_c α_c
// is a strictly monotone piecewise-linear equation in s with breakpoints
// t_c − C_i and t_c; wwTheta finds its root exactly by walking the sorted
// breakpoints (O(K log K), no data access). The result satisfies the
// block's KKT conditions exactly up to rounding, so this replaces the
// iterative inner solver of the paper (≤ 10·K SMO steps) by its limit.
// The step then costs one DotK and one AxpyK over the row, with the
// per-class changes coef_{y_i} = Σ_c δ_c and coef_c = −δ_c.
//
// The gain reported to ACF is the exact decrease of f,
// −(gᵀδ + ½ q (‖δ‖² + (1ᵀδ)²)), from the δ actually applied.

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"
	"unsafe"

	"github.com/acfcd/acfcd/acf"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
)

// wwSolverType is the model's solver_type.
const wwSolverType = "MCSVM_WW"

// wwCheckEvery is the number of block steps between cancellation checks.
// A step costs ≈ 2·K·nnz(x_i), so this is a fraction of cancelEvery.
const wwCheckEvery = 1 << 12

// wwState is one Weston–Watkins training run. It is not safe for
// concurrent use; nothing is allocated after newWW.
type wwState struct {
	// data, read-only
	rp    []int64
	idx   []int32
	val   []float64
	val32 []float32 // instead of val for float32 storage
	xsq   []float64 // q_i = ‖x_i‖² + B²
	n, nf int
	K     int
	bias  float64   // B, or 0 without a bias
	class []int32   // y_i as a class index
	ub    []float64 // C of each class (C × its -wi weight)

	// the point
	W     []float64 // (nf+1)·K, feature-major; row nf holds the bias weights
	alpha []float64 // n·K: alpha[i*K+c] = α_ic; the slot c = y_i stays 0

	// per-step scratch: the decision values, gradients, AxpyK
	// coefficients, t_c of the block solve and their sorted copy
	dec, grad, coef, t, srt []float64

	// selection and stopping
	acfMode    bool
	sched      *acf.Scheduler
	prefs      *acf.Prefs
	warm       bool // next acf batch is the uniform warm-up sweep
	eps        float64
	maxEpochs  int
	done       <-chan struct{}
	progress   func(Progress)
	noPrefetch bool

	// accounting
	steps, ops int64
	epochs     int
	epochAt    int64 // acf: steps at which the current epoch ends
	slowAt     int64 // steps at which slow() runs next
	obj        float64
	passViol   float64
	passPrimal float64
	chunks     []kktChunk // kktPass's per-chunk results
	pool       *procPool  // spare processors, for the chunks of kktPass
	cancelled  bool
	capped     bool
}

// wwHook, when set by a test, sees the final dual variables of a
// Weston–Watkins run (slices owned by the solver: copy them).
var wwHook func(alpha []float64, class []int32, ub []float64)

// trainWW fits the Weston–Watkins multi-class SVM (see the comment at the
// top of this file) by dual block coordinate descent over examples with
// uniform or ACF selection of the examples.
//
// Params: C, Eps (default 0.1; the largest projected-gradient violation
// over all α_ic), Bias, Weights (C_i = C × weight of class y_i), Select
// ("acf" default, or "uniform"), Seed, MaxEpochs (default 1000), ACF and
// Progress (Class is always 0). Lambda and Intercept are ignored.
//
// Result: Iterations counts block steps (one per example visited, also
// the repairs of the final KKT pass); Epochs counts sweeps for uniform and
// ⌈steps/n⌉ for acf; Operations counts multiply-adds with the weights, K
// per stored non-zero for each DotK and each AxpyK, the KKT passes
// included (bias feature not counted); Objective is f(α) above, Primal is
// P(W), Gap = Primal + Objective, Violation the largest KKT violation
// from a full pass at the returned model. The model has NrW = K weight
// vectors, also for K = 2, and predicts the argmax.
func trainWW(ctx context.Context, d *dataio.Dataset, p Params, pool *procPool) (*Model, *Result, error) {
	start := time.Now()
	if !(p.C > 0) || math.IsInf(p.C, 0) {
		return nil, nil, fmt.Errorf("solver: C must be a positive finite number, got %g", p.C)
	}
	eps := p.Eps
	if eps < 0 || math.IsNaN(eps) || math.IsInf(eps, 0) {
		return nil, nil, fmt.Errorf("solver: eps must be >= 0 and finite, got %g", p.Eps)
	}
	if eps == 0 {
		eps = 0.1
	}
	if math.IsNaN(p.Bias) || math.IsInf(p.Bias, 0) {
		return nil, nil, fmt.Errorf("solver: bias must be finite, got %g", p.Bias)
	}
	selName := p.Select
	if selName == "" {
		selName = "acf"
	}
	if selName != "acf" && selName != "uniform" {
		return nil, nil, fmt.Errorf("solver: coordinate selection %q is not available for the Weston–Watkins SVM (want acf or uniform)", p.Select)
	}
	maxEpochs, labels, class, err := checkClassification(d, p, true)
	if err != nil {
		return nil, nil, err
	}
	K := len(labels)
	if uint64(d.Features+1)*uint64(K) > math.MaxInt || uint64(d.Rows)*uint64(K) > math.MaxInt {
		return nil, nil, fmt.Errorf("solver: %d examples and %d features × %d classes are too many for this platform", d.Rows, d.Features, K)
	}

	res := &Result{Solver: wwSolverType, Select: selName, C: p.C, Eps: eps}
	ub := make([]float64, K)
	for c := range ub {
		ub[c] = p.C
	}
	wlabels := make([]float64, 0, len(p.Weights))
	for lab := range p.Weights {
		wlabels = append(wlabels, lab)
	}
	sort.Float64s(wlabels)
	for _, lab := range wlabels {
		c := indexOf(labels, lab)
		if c < 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("class label %g specified in weight is not found", lab))
			continue
		}
		ub[c] *= p.Weights[lab]
	}

	s := newWW(d, class, ub, p.Bias, selName == "acf", mixSeed(p.Seed, 0), p.ACF)
	s.eps, s.maxEpochs, s.done = eps, maxEpochs, ctx.Done()
	s.pool = pool
	s.progress = p.Progress
	converged := s.run()
	if !converged {
		s.kktPass(false) // measure where we stopped, without steps
		converged = s.passViol <= eps
	}
	if wwHook != nil {
		wwHook(s.alpha, s.class, s.ub)
	}

	rows := d.Features
	bias := p.Bias
	if bias >= 0 {
		rows++
	} else {
		bias = -1
	}
	model := &Model{SolverType: wwSolverType, Labels: labels, NumFeature: d.Features, Bias: bias, NrW: K,
		W: s.W[: rows*K : rows*K]}

	res.Iterations = s.steps
	res.Epochs = s.epochs
	if s.acfMode {
		res.Epochs = int((s.steps + int64(s.n) - 1) / int64(s.n))
	}
	res.Operations = s.ops
	res.Objective = s.dualObjective()
	res.Primal = s.passPrimal
	res.Gap = res.Primal + res.Objective
	res.Violation = s.passViol
	res.Converged = converged && !s.cancelled
	res.Cancelled = s.cancelled
	res.HitEpochCap = s.capped && !converged
	res.NNZW = model.NNZ()
	model.Partial = !res.Converged || res.Cancelled
	res.Seconds = time.Since(start).Seconds()
	return model, res, nil
}

// newWW sets up a run at α = 0, W = 0.
func newWW(d *dataio.Dataset, class []int32, ub []float64, bias float64, acfMode bool, seed uint64, cfg acf.Config) *wwState {
	K := len(ub)
	s := &wwState{rp: d.RowPtr, idx: d.Index, val: d.Value, val32: d.Value32, n: d.Rows, nf: d.Features,
		K: K, class: class, ub: ub, acfMode: acfMode, warm: acfMode}
	if d.Value != nil {
		s.val32 = nil
	}
	if bias >= 0 {
		s.bias = bias
	}
	s.xsq = make([]float64, s.n)
	b2 := s.bias * s.bias
	for i := range s.xsq {
		a, b := s.rp[i], s.rp[i+1]
		var q float64
		if s.val32 == nil {
			q = kernel.SqNorm(s.val[a:b:b])
		} else {
			for _, v := range s.val32[a:b:b] {
				q += float64(v) * float64(v)
			}
		}
		s.xsq[i] = q + b2
	}
	s.W = make([]float64, (s.nf+1)*K)
	s.alpha = make([]float64, s.n*K)
	s.dec = make([]float64, K)
	s.grad = make([]float64, K)
	s.coef = make([]float64, K)
	s.t = make([]float64, K)
	s.srt = make([]float64, K)
	s.sched = acf.NewScheduler(s.n, seed)
	if acfMode {
		s.prefs = acf.NewPrefs(s.n, cfg)
	}
	s.maxEpochs = math.MaxInt
	s.epochAt = int64(s.n)
	s.slowAt = wwCheckEvery
	if acfMode {
		s.slowAt = min(s.slowAt, s.epochAt)
	}
	return s
}

// decision sets s.dec to the K decision values of x_i, bias included,
// counting K multiply-adds per non-zero.
func (s *wwState) decision(i int32) {
	a, b := s.rp[i], s.rp[i+1]
	K := s.K
	s.ops += (b - a) * int64(K)
	dec := s.dec[:K]
	if s.val32 == nil {
		kernel.DotK(s.idx[a:b:b], s.val[a:b:b], s.W, K, dec)
	} else {
		wwDotK32(s.idx[a:b:b], s.val32[a:b:b], s.W, K, dec)
	}
	if B := s.bias; B != 0 {
		row := s.W[s.nf*K : s.nf*K+K]
		for c := range dec {
			dec[c] += B * row[c]
		}
	}
}

// update does w_c += coef_c·x_i for every class, bias included.
func (s *wwState) update(i int32) {
	a, b := s.rp[i], s.rp[i+1]
	K := s.K
	s.ops += (b - a) * int64(K)
	coef := s.coef[:K]
	if s.val32 == nil {
		kernel.AxpyK(coef, s.idx[a:b:b], s.val[a:b:b], s.W, K)
	} else {
		wwAxpyK32(coef, s.idx[a:b:b], s.val32[a:b:b], s.W, K)
	}
	if B := s.bias; B != 0 {
		row := s.W[s.nf*K : s.nf*K+K]
		for c := range row {
			row[c] += coef[c] * B
		}
	}
}

// wwDotK32 is kernel.DotK for float32 values.
func wwDotK32(idx []int32, val []float32, W []float64, K int, out []float64) {
	out = out[:K]
	clear(out)
	val = val[:len(idx)]
	for k, j := range idx {
		row := W[int(j)*K : int(j)*K+K]
		v := float64(val[k])
		for c, x := range row {
			out[c] += v * x
		}
	}
}

// wwAxpyK32 is kernel.AxpyK for float32 values.
func wwAxpyK32(coef []float64, idx []int32, val []float32, W []float64, K int) {
	coef = coef[:K]
	val = val[:len(idx)]
	for k, j := range idx {
		row := W[int(j)*K : int(j)*K+K]
		v := float64(val[k])
		for c, x := range coef {
			row[c] += x * v
		}
	}
}

// gradients sets s.grad[c] = ∂f/∂α_ic from s.dec (0 at c = y_i) and
// returns the block's KKT violation, max_c |projected gradient|.
func (s *wwState) gradients(i int32) float64 {
	K := s.K
	y := int(s.class[i])
	C := s.ub[y]
	a := s.alpha[int(i)*K : int(i)*K+K]
	g := s.grad[:K]
	dec := s.dec[:K]
	dy := dec[y]
	var viol float64
	for c := range g {
		if c == y {
			g[c] = 0
			continue
		}
		G := dy - dec[c] - 1
		g[c] = G
		if a[c] <= 0 {
			G = min(G, 0)
		} else if a[c] >= C {
			G = max(G, 0)
		}
		viol = max(viol, math.Abs(G))
	}
	return viol
}

// blockStep minimises f exactly over the block of example i, given its
// gradients in s.grad and violation viol, applies the change to α and W
// and returns the exact decrease of f.
func (s *wwState) blockStep(i int32, viol float64) float64 {
	if viol <= pgZero {
		return 0
	}
	K := s.K
	y := int(s.class[i])
	C := s.ub[y]
	q := s.xsq[i]
	a := s.alpha[int(i)*K : int(i)*K+K]
	g := s.grad[:K]
	coef := s.coef[:K]
	t := s.t[:K]

	var A float64 // Σ_c α_ic
	finite := q > 0
	for c := range t {
		if c == y {
			t[c] = 0
			continue
		}
		A += a[c]
		if q > 0 {
			v := a[c] - g[c]/q
			t[c] = v
			if math.IsInf(v, 0) {
				finite = false
			}
		}
	}
	if finite {
		theta := wwTheta(t, s.srt, y, C, A)
		for c := range t {
			if c == y {
				coef[c] = 0
				continue
			}
			v := t[c] - theta
			if !(v > 0) {
				v = 0
			} else if v >= C {
				v = C
			}
			coef[c] = v - a[c] // δ_c for now
			a[c] = v
		}
	} else {
		// q = 0 (an empty row without bias: f is linear in the block,
		// g_c = −1) or q so tiny that g/q overflows: move every variable to
		// the bound its gradient points at.
		for c := range coef {
			v := a[c]
			if c == y {
				coef[c] = 0
				continue
			}
			if g[c] < 0 {
				v = C
			} else if g[c] > 0 {
				v = 0
			}
			coef[c] = v - a[c]
			a[c] = v
		}
	}
	// gain = −(gᵀδ + ½ q (‖δ‖² + (1ᵀδ)²)); then turn δ into the AxpyK
	// coefficients: −δ_c for c ≠ y_i, Σδ for y_i.
	var gd, dd, sum float64
	for c, dl := range coef {
		gd += g[c] * dl
		dd += dl * dl
		sum += dl
		coef[c] = -dl
	}
	if dd == 0 {
		return 0
	}
	coef[y] = sum
	s.update(i)
	return -(gd + 0.5*q*(dd+sum*sum))
}

// wwTheta returns the root θ of
//
//	h(θ) = Σ_{c≠y} clip(t_c − θ, 0, C) − A − θ,
//
// strictly decreasing and piecewise linear, for the K−1 values t_c, c ≠ y
// (srt is scratch of length ≥ K−1). Since 0 ≤ Σ clip ≤ mC for m = K−1,
// h(−A) ≥ 0 ≥ h(mC − A), so θ ∈ [−A, mC − A]: a t_c ≤ −A is at 0 and a
// t_c − C ≥ mC − A at C all over that interval, and only the others need
// sorting. Their breakpoints t_c − C (α_c leaves the upper bound) come in
// the same order as t_c, so one sorted array serves both kinds. On the
// segment containing the root, h(θ) = nUp·C + Σ_free t_c − (nFree+1)θ − A;
// the sums are recomputed from t once the segment is known, so that the
// incremental ones' cancellation does not reach θ.
func wwTheta(t, srt []float64, y int, C, A float64) float64 {
	m := len(t) - 1
	lo, hi := -A, float64(m)*C-A
	nUp, nFree := 0, 0
	k := 0
	for c, tc := range t {
		switch {
		case c == y || tc <= lo:
		case tc-C >= hi:
			nUp++
		default:
			srt[k] = tc
			k++
		}
	}
	srt = srt[:k]
	slices.Sort(srt)
	nUp += k
	var sumT float64
	l, u := 0, 0
	for u < k {
		lower := l < k && srt[l]-C <= srt[u]
		b := srt[u]
		if lower {
			b = srt[l] - C
		}
		if float64(nUp)*C+sumT-float64(nFree+1)*b-A <= 0 {
			break
		}
		if lower {
			nUp--
			nFree++
			sumT += srt[l]
			l++
		} else {
			nFree--
			sumT -= srt[u]
			u++
		}
	}
	theta := (float64(nUp)*C + sumT - A) / float64(nFree+1)
	// Refine: the same formula with the sets taken at θ and exact sums.
	nUp, nFree, sumT = 0, 0, 0
	for c, tc := range t {
		if c == y {
			continue
		}
		v := tc - theta
		switch {
		case v >= C:
			nUp++
		case v > 0:
			nFree++
			sumT += tc
		}
	}
	return (float64(nUp)*C + sumT - A) / float64(nFree+1)
}

// step visits example i: decision values, gradients, the exact block step.
func (s *wwState) step(i int32) (viol, gain float64) {
	s.decision(i)
	viol = s.gradients(i)
	return viol, s.blockStep(i, viol)
}

// prefetch asks for row i's indices and values ahead of use.
func (s *wwState) prefetch(i int32) {
	a, b := s.rp[i], s.rp[i+1]
	if b > a && !s.noPrefetch && usePrefetch {
		if s.val32 == nil {
			prefetchRow(unsafe.Pointer(&s.idx[a]), uintptr(b-a)*4, unsafe.Pointer(&s.val[a]), uintptr(b-a)*8)
		} else {
			prefetchRow(unsafe.Pointer(&s.idx[a]), uintptr(b-a)*4, unsafe.Pointer(&s.val32[a]), uintptr(b-a)*4)
		}
	}
}

// batch does one sweep: a uniform permutation (uniform selection and the
// acf warm-up) or one ACF scheduler batch. It returns the largest block
// violation seen before the steps, and stop when cancellation or the epoch
// cap ended the run mid-batch.
func (s *wwState) batch() (viol float64, stop bool) {
	var order []int32
	if !s.acfMode || s.warm {
		order = s.sched.Uniform()
	} else {
		order = s.sched.Next(s.prefs)
	}
	for k, i := range order {
		if k+prefetchAhead < len(order) {
			s.prefetch(order[k+prefetchAhead])
		}
		v, gain := s.step(i)
		if s.acfMode {
			s.prefs.Observe(int(i), gain)
		}
		s.obj -= gain
		viol = max(viol, v)
		s.steps++
		if s.steps >= s.slowAt && s.slow(viol) {
			return viol, true
		}
	}
	if s.warm {
		s.prefs.EndWarmup()
		s.warm = false
	}
	return viol, false
}

// slow runs the rare checks: cancellation, and for acf the epoch boundary
// (progress report, epoch cap). It returns true to stop.
func (s *wwState) slow(viol float64) bool {
	select {
	case <-s.done:
		s.cancelled = true
		return true
	default:
	}
	s.slowAt = s.steps + wwCheckEvery
	if s.acfMode {
		for s.steps >= s.epochAt {
			s.epochAt += int64(s.n)
			s.epochs++
			if s.endEpoch(viol) {
				return true
			}
		}
		s.slowAt = min(s.slowAt, s.epochAt)
	}
	return false
}

func (s *wwState) endEpoch(viol float64) bool {
	s.report(viol)
	if s.epochs >= s.maxEpochs {
		s.capped = true
		return true
	}
	return false
}

func (s *wwState) report(viol float64) {
	if s.progress != nil {
		s.progress(Progress{Epoch: s.epochs, Violation: viol, Objective: s.obj})
	}
}

// run optimises until a full KKT pass takes no step (converged: true),
// the epoch cap, or cancellation.
func (s *wwState) run() bool {
	for {
		select {
		case <-s.done:
			s.cancelled = true
			return false
		default:
		}
		viol, stop := s.batch()
		if stop {
			return false
		}
		if !s.acfMode {
			s.epochs++
			s.report(viol)
		}
		if viol <= s.eps && s.kktPass(true) {
			return true
		}
		if !s.acfMode && s.epochs >= s.maxEpochs {
			s.capped = true
			return false
		}
	}
}

// kktPass goes over every example in storage order at the current point
// and sets passViol to the largest KKT violation and passPrimal to P(W).
// With fix, a block whose violation exceeds eps is stepped on the spot and
// the pass reports failure; a pass that returns true took no step, so
// passViol ≤ eps holds for all blocks at one point and passPrimal is the
// primal objective there. The pass is not counted as an epoch.
func (s *wwState) kktPass(fix bool) bool {
	// As the dual's kktPass (dual.go): up to the first violator the pass
	// only reads, in chunks on the spare processors, each goroutine with
	// decision and gradient scratch of its own; from there on it goes on
	// sequentially, stepping on violators. The same steps as one loop,
	// with the loss summed per chunk in chunk order.
	nch := (s.n + kktChunkRows - 1) / kktChunkRows
	if cap(s.chunks) < nch {
		s.chunks = make([]kktChunk, nch)
	}
	chunks := s.chunks[:nch]
	done := scanChunks(chunks, s.n, s.rp[s.n], s.pool, func(bool) func(lo, hi int) kktChunk {
		h := *s
		h.dec, h.grad = make([]float64, s.K), make([]float64, s.K)
		return func(lo, hi int) kktChunk { return h.kktScan(lo, hi, fix) }
	})
	var viol, loss float64
	for _, r := range chunks[:done] {
		viol = max(viol, r.viol)
		loss += r.loss
		s.ops += r.ops
	}
	ok := true
	if done > 0 && chunks[done-1].stop >= 0 {
		ok = false
		for i := chunks[done-1].stop; i < s.n; i++ {
			i := int32(i)
			l, v := s.kktEval(i)
			loss += l
			viol = max(viol, v)
			if v > s.eps {
				s.steps++
				s.obj -= s.blockStep(i, v)
			}
		}
	}
	s.passViol = viol
	var ww float64
	for _, x := range s.W {
		ww += x * x
	}
	s.passPrimal = 0.5*ww + loss
	return ok
}

// kktScan evaluates examples [lo, hi) at the current point, writing only
// s's scratch and ops (s is a goroutine's copy). With fix it stops at the
// first example whose violation exceeds eps and leaves it out.
func (s *wwState) kktScan(lo, hi int, fix bool) kktChunk {
	r := kktChunk{stop: -1}
	for i := lo; i < hi; i++ {
		ops := s.ops
		l, v := s.kktEval(int32(i))
		if fix && v > s.eps {
			s.ops = ops
			r.stop = i
			break
		}
		r.viol = max(r.viol, v)
		r.loss += l
		r.ops += s.ops - ops
	}
	return r
}

// kktEval sets s.dec and s.grad for example i and returns its weighted
// loss C_i Σ_{c≠y_i} max(0, 1 − (w_y − w_c)ᵀx_i) and KKT violation.
func (s *wwState) kktEval(i int32) (loss, viol float64) {
	s.decision(i)
	y := s.class[i]
	dy := s.dec[y]
	var l float64
	for c, dc := range s.dec[:s.K] {
		if h := 1 - dy + dc; h > 0 && c != int(y) {
			l += h
		}
	}
	return s.ub[y] * l, s.gradients(i)
}

// dualObjective is f(α) = ½ Σ_c ‖w_c‖² − Σ α, recomputed from W and α.
func (s *wwState) dualObjective() float64 {
	var ww, sa float64
	for _, x := range s.W {
		ww += x * x
	}
	for _, a := range s.alpha {
		sa += a
	}
	return 0.5*ww - sa
}
