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

package multiclass

import (
	"math"
	"slices"

	"github.com/acfcd/acfcd/internal/procs"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// pgZero: a block is stepped on only when its violation exceeds this.
const pgZero = 1e-12

// WW is one Weston–Watkins training run (solver.Problem). It is not
// safe for concurrent use; nothing is allocated after New.
type WW struct {
	// examples holds the point: W, and Alpha[i*K+c] = α_ic, whose slot
	// c = y_i stays 0.
	examples

	// per-step scratch: the gradients, t_c of the block solve and their
	// sorted copy
	grad, t, srt []float64
}

// NewWW sets up a run at α = 0, W = 0 on the examples of d, with class the
// class index of each example, ub the C of each class and bias B (< 0:
// none); eps is the tolerance on the largest violation.
func NewWW(d *dataio.Dataset, class []int32, ub []float64, bias, eps float64, pool *procs.Pool, t *solver.Tuning) *WW {
	K := len(ub)
	s := &WW{examples: newExamples(d, class, ub, bias, eps, pool, t)}
	s.grad = make([]float64, K)
	s.t = make([]float64, K)
	s.srt = make([]float64, K)
	return s
}

// gradients sets s.grad[c] = ∂f/∂α_ic from s.dec (0 at c = y_i) and
// returns the block's KKT violation, max_c |projected gradient|.
func (s *WW) gradients(i int32) float64 {
	K := s.K
	y := int(s.class[i])
	C := s.ub[y]
	a := s.Alpha[int(i)*K : int(i)*K+K]
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
func (s *WW) blockStep(i int32, viol float64) float64 {
	if viol <= pgZero {
		return 0
	}
	K := s.K
	y := int(s.class[i])
	C := s.ub[y]
	q := s.xsq[i]
	a := s.Alpha[int(i)*K : int(i)*K+K]
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
		theta := theta(t, s.srt, y, C, A)
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
	moved := false
	for c, dl := range coef {
		gd += float64(g[c] * dl)
		dd += float64(dl * dl)
		sum += dl
		moved = moved || dl != 0
		coef[c] = -dl
	}
	// Not dd == 0: steps of about 1/q_i square to 0 from values of 1e77
	// on, and α moved while W did not.
	if !moved {
		return 0
	}
	coef[y] = sum
	s.update(i)
	if q > farBound {
		// q·δ² as (q·δ)·δ, which does not underflow.
		var qdd float64
		for _, dl := range coef {
			qdd += float64(float64(q*dl) * dl)
		}
		return -(gd + float64(0.5*qdd))
	}
	return -(gd + float64(0.5*q*(dd+float64(sum*sum))))
}

// theta returns the root θ of
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
func theta(t, srt []float64, y int, C, A float64) float64 {
	m := len(t) - 1
	lo, hi := -A, float64(float64(m)*C)-A
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
		if float64(float64(nUp)*C)+sumT-float64(float64(nFree+1)*b)-A <= 0 {
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
	theta := (float64(float64(nUp)*C) + sumT - A) / float64(nFree+1)
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
	return (float64(float64(nUp)*C) + sumT - A) / float64(nFree+1)
}

// Step visits example i (solver.Problem): decision values, gradients, the
// exact block step.
func (s *WW) Step(i, ahead int32, _ solver.Thresholds) (viol, gain float64, shrink bool) {
	if ahead >= 0 {
		s.Prefetch(ahead)
	}
	s.decision(i)
	viol = s.gradients(i)
	return viol, s.blockStep(i, viol), false
}

// Pass goes over every example in storage order at the current point
// (solver.Problem; see examples.pass): with repair, an example whose
// violation exceeds eps gets an exact block step on the spot.
func (s *WW) Pass(r *solver.Run, repair bool) bool { return s.pass(s, r, repair) }

// helper returns a copy of s with scratch of its own (evaluator).
func (s *WW) helper() evaluator {
	h := *s
	h.dec, h.grad = make([]float64, s.K), make([]float64, s.K)
	return &h
}

func (s *WW) base() *examples { return &s.examples }

// repair is the block step of a full pass (evaluator).
func (s *WW) repair(i int32, viol float64) float64 { return s.blockStep(i, viol) }

// eval sets s.dec and s.grad for example i and returns its weighted loss
// C_i Σ_{c≠y_i} max(0, 1 − (w_y − w_c)ᵀx_i) and KKT violation.
func (s *WW) eval(i int32) (loss, viol float64) {
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

// Objective is f(α) = ½ Σ_c ‖w_c‖² − Σ α, recomputed from W and α.
func (s *WW) Objective() float64 {
	var ww, sa float64
	for _, x := range s.W {
		ww += float64(x * x)
	}
	for _, a := range s.Alpha {
		sa += a
	}
	return float64(0.5*ww) - sa
}
