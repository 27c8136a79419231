package dcd

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
)

// PrimalRule is the stopping rule of the primal solver of the same
// problem, ‖∇P(w)‖ ≤ Tol·‖∇P(0)‖ (liblinear's -s 2 and 0 for the squared
// hinge and the logistic dual, -s 11 for the squared-loss SVR), for a dual
// trained in their place (package dual's TrainPrimal). A point the full
// pass certifies must meet it too; where it does not, the dual's own
// tolerance is lowered by the ratio of the two sides and coordinate
// descent goes on, as the hinge loss's gap rule does (gap.go): ∇P(w(α))
// shrinks about in proportion to the dual's violations.
type PrimalRule struct {
	Tol float64 // the factor of ‖∇P(0)‖; 0: no rule
	g0  float64 // ‖∇P(0)‖, computed at the first check (0 before)
	g   []float64
	// Rel is ‖∇P(w)‖/(Tol·‖∇P(0)‖) at the last check (1 or less: met).
	Rel float64
}

// Reset readies the rule for a new subproblem.
func (pr *PrimalRule) Reset() { pr.g0, pr.Rel = 0, math.NaN() }

// check returns the ratio Tol·‖∇P(0)‖/‖∇P(w)‖ at w, where ∇P(w) = w +
// Σ_i coef(i, wᵀx_i)·x_i, and whether the rule fails there (two passes
// over the rows; ‖∇P(0)‖ one more, once).
func (pr *PrimalRule) check(sh *Data, w []float64, ops *int64, coef func(i int32, wx float64) float64) (ratio float64, fails bool) {
	if pr.g0 == 0 {
		pr.g0 = pr.norm(sh, nil, len(w), ops, coef)
	}
	gn := pr.norm(sh, w, len(w), ops, coef)
	target := pr.Tol * pr.g0
	pr.Rel = gn / target
	if !(gn > target) {
		return 1, false
	}
	return target / gn, true
}

// norm returns ‖∇P(w)‖ (w nil: at w = 0) for weights of length n.
func (pr *PrimalRule) norm(sh *Data, w []float64, n int, ops *int64, coef func(i int32, wx float64) float64) float64 {
	if len(pr.g) != n {
		pr.g = make([]float64, n)
	}
	g := pr.g
	if w == nil {
		clear(g)
	} else {
		copy(g, w)
	}
	for i := range int32(sh.N) {
		var wx float64
		if w != nil {
			wx = sh.Dot(i, w, ops)
		}
		if c := coef(i, wx); c != 0 {
			sh.Axpy(c, i, g, ops)
		}
	}
	var s float64
	for _, v := range g {
		s += float64(v * v)
	}
	return math.Sqrt(s)
}

// primalRefuses applies the primal rule at a point the full pass
// certified: it reports whether the rule fails, and then lowers Eps.
// Where the point's duality gap exceeds the dual objective itself, the
// certificate certifies nothing and a lower Eps would not make it mean
// more (arcene: 87 epochs to a gap 140 times the objective, 62 more to
// the primal rule): the point is passed on as certified, and the dual's
// Newton finisher (finish.Newton.Refuses) or the primal solver after it
// meets the primal rule from there, as -s 1 and 7 do with such a point.
func (p *Problem) primalRefuses() bool {
	if p.Rule.Tol <= 0 || p.CertifiesNothing() {
		return false
	}
	ratio, fails := p.Rule.check(p.Data, p.W, &p.Ops, func(i int32, wx float64) float64 {
		y := float64(p.Y[i])
		z, c := float64(y*wx), p.Cost(int(i))
		if p.Loss == Logistic {
			// ∂/∂z of C log(1 + e^{−z}) is −C/(1 + e^z).
			return -float64(c*y) / (1 + fmath.Exp(z))
		}
		if z < 1 {
			return -float64(2*c*(1-z)) * y
		}
		return 0
	})
	if fails {
		if p.tightened == 0 {
			p.eps0 = p.Eps // Reset restores it, and the final measure is at it
		}
		p.Eps *= ratio
		p.tightened++
	}
	return fails
}

// primalRefuses is Problem.primalRefuses for the squared-loss SVR, whose
// primal is ½‖w‖² + C·Σ max(0, |wᵀx_i − y_i| − p)²: it lowers Tol.
func (s *SVR) primalRefuses() bool {
	if s.Rule.Tol <= 0 || s.Lambda == 0 {
		return false
	}
	ratio, fails := s.Rule.check(s.Data, s.W, &s.Ops, func(i int32, wx float64) float64 {
		d := wx - s.Label[i]
		e := math.Abs(d) - s.P
		if e <= 0 {
			return 0
		}
		return math.Copysign(float64(2*s.C*e), d)
	})
	if fails {
		s.Tol *= ratio
	}
	return fails
}
