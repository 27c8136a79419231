package dual

import (
	"math"
	"sync"

	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/finish"
)

// NewWarm returns the warm start of one fold; cold keeps only what does
// not depend on C (the groups of identical rows).
func NewWarm(cold bool) *Warm { return &Warm{cold: cold} }

// Warm carries one fold's solutions from one C of a parameter search to
// the next: each subproblem of -s 1, 3 and 7 starts from its dual
// solution at the previous C instead of liblinear's starting point
// (start), and keeps its new solution here (keep). The subproblems of one
// training run in parallel, hence the lock around the slice.
type Warm struct {
	cold bool // no warm starts (SearchOptions.Cold): only the fold's dups are kept
	mu   sync.Mutex
	subs []*warmSub
	// dups are the fold's identical rows with opposite labels, the same
	// at every C; found once (finish.FindDups sorts a hash per row).
	dups     *finish.Dups
	dupsDone bool
}

// findDups returns finish.FindDups(sh), found at the fold's first C (on
// a nil ws, every time).
func (ws *Warm) findDups(sh *dcd.Data) *finish.Dups {
	if ws == nil {
		return finish.FindDups(sh)
	}
	if !ws.dupsDone {
		ws.dups, ws.dupsDone = finish.FindDups(sh), true
	}
	return ws.dups
}

// warmSub is one subproblem's solution at the previous C.
type warmSub struct {
	cost         [2]float64 // C of the negative and the positive examples
	alpha, alphC []float64  // alphC: C_i − α_i (logistic)
	w            []float64
}

func (ws *Warm) sub(k int) *warmSub {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for len(ws.subs) <= k {
		ws.subs = append(ws.subs, nil)
	}
	if ws.subs[k] == nil {
		ws.subs[k] = &warmSub{}
	}
	return ws.subs[k]
}

// costs returns the costs C of dp's negative and positive examples.
func costs(dp *dcd.Problem) [2]float64 {
	if dp.Loss == dcd.L2SVM {
		return [2]float64{0.5 / dp.Diag[0], 0.5 / dp.Diag[1]}
	}
	return dp.UB
}

// keep stores dp's solution of subproblem k.
func (ws *Warm) keep(k int, dp *dcd.Problem) {
	if ws.cold {
		return
	}
	s := ws.sub(k)
	s.cost = costs(dp)
	s.alpha = append(s.alpha[:0], dp.Alpha...)
	s.w = append(s.w[:0], dp.W...)
	if dp.AlphaC != nil {
		s.alphC = append(s.alphC[:0], dp.AlphaC...)
	}
}

// start replaces the starting point that dp.Reset set for subproblem k
// (objective obj) by the solution at the previous C, scaled, and returns
// the objective there.
//
// With costs grown by the ratio r (2 from one C to the next), the old α
// is feasible as it is (for -s 3 α ≤ C ≤ rC; for -s 7 0 < α < C < rC, an
// interior point), but the best point along the ray tα is better: for
// small C, where every α sits at its bound and w ∝ C, it is tα with t = r;
// for large C, where the margins have settled, t ≈ 1. The dual objective
// along the ray is a quadratic in t for the SVMs, minimised in closed
// form, and convex for logistic regression (a few Newton steps); w = Σ
// α_i y_i x_i scales with α, so w becomes tw with no pass over the data.
func (ws *Warm) start(k int, dp *dcd.Problem, obj float64) float64 {
	if ws.cold {
		return obj
	}
	s := ws.sub(k)
	if len(s.alpha) != len(dp.Alpha) || len(s.w) != len(dp.W) {
		return obj // the first C: liblinear's start
	}
	now := costs(dp)
	r := [2]float64{now[0] / s.cost[0], now[1] / s.cost[1]}
	var ww float64
	for _, v := range s.w {
		ww += float64(v * v)
	}
	t := 1.0
	switch dp.Loss {
	case dcd.Logistic:
		t = lrRay(dp, s, r, ww)
	default:
		// f(tα) = ½t²(‖w‖² + Σ D_ii α_i²) − tΣα_i.
		var sa, q float64
		tmax := math.Inf(1)
		for i, a := range s.alpha {
			if a == 0 {
				continue
			}
			c := (dp.Y[i] + 1) >> 1
			sa += a
			q += float64(dp.Diag[c] * a * a)
			if dp.Loss == dcd.L1SVM {
				tmax = min(tmax, dp.UB[c]/a)
			}
		}
		if sa > 0 && ww+q > 0 {
			t = min(sa/(ww+q), tmax)
		}
	}
	for i, a := range s.alpha {
		c := (dp.Y[i] + 1) >> 1
		switch dp.Loss {
		case dcd.Logistic:
			C := dp.UB[c]
			// C − tα = r(C_old − α) + (r − t)α: no cancellation near C.
			al := max(float64(t*a), dcd.Floor*C)
			ac := max(float64(r[c]*s.alphC[i])+float64((r[c]-t)*a), dcd.Floor*C)
			dp.Alpha[i], dp.AlphaC[i] = al, ac
		case dcd.L1SVM:
			dp.Alpha[i] = min(float64(t*a), dp.UB[c])
		default:
			dp.Alpha[i] = float64(t * a)
		}
	}
	for j, v := range s.w {
		dp.W[j] = float64(t * v)
	}
	return dp.Objective()
}

// lrRay returns the t in (0, min C_i/α_i) that minimises the logistic dual
// at tα:
//
//	φ(t) = ½t²‖w‖² + Σ_i [tα_i log tα_i + (C_i − tα_i) log(C_i − tα_i)],
//	φ'(t) = t‖w‖² + Σ_i α_i log(tα_i/(C_i − tα_i)),
//	φ''(t) = ‖w‖² + Σ_i α_i C_i/(t(C_i − tα_i)),
//
// by Newton's method safeguarded by bisection on a bracket of the root of
// the increasing φ'. C_i − tα_i is r_i(C_i,old − α_i) + (r_i − t)α_i.
func lrRay(dp *dcd.Problem, s *warmSub, r [2]float64, ww float64) float64 {
	lo, hi := 0.0, math.Inf(1)
	for i, a := range s.alpha {
		c := (dp.Y[i] + 1) >> 1
		if a > 0 {
			hi = min(hi, dp.UB[c]/a)
		}
	}
	if math.IsInf(hi, 1) {
		return 1
	}
	deriv := func(t float64) (d1, d2 float64) {
		d1, d2 = t*ww, ww
		for i, a := range s.alpha {
			c := (dp.Y[i] + 1) >> 1
			rest := float64(r[c]*s.alphC[i]) + float64((r[c]-t)*a)
			if rest <= 0 {
				return math.Inf(1), math.Inf(1)
			}
			d1 += float64(a * fmath.Log(float64(t*a)/rest))
			d2 += a * dp.UB[c] / float64(t*rest)
		}
		return d1, d2
	}
	t := min(1, hi/2)
	for range 50 {
		d1, d2 := deriv(t)
		if d1 > 0 {
			hi = t
		} else {
			lo = t
		}
		if math.Abs(d1) <= 1e-9*d2*t || hi-lo <= 1e-12*hi {
			break
		}
		nt := t - d1/d2
		if !(nt > lo && nt < hi) {
			nt = (lo + hi) / 2
		}
		t = nt
	}
	return t
}
