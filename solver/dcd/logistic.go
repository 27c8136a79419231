package dcd

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
)

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
func (p *Problem) lrStep(i int32, wx float64) (viol, gain float64) {
	yf := float64(p.Y[i])
	C := p.UB[(p.Y[i]+1)>>1]
	a := float64(p.sigma * p.Qii(i))
	b := float64(yf * wx)
	al, ac := p.Alpha[i], p.AlphaC[i]
	g0 := b + fmath.Log(al/ac) // ∂f/∂α_i
	viol = Violation(g0, al, ac, C)

	z0, u0, sign := al, ac, 1.0
	if float64(0.5*a*(ac-al))+b < 0 {
		z0, u0, sign = ac, al, -1.0
	}
	// g'(z₀) = log(z₀/u₀) + s·b is ±g0: no second logarithm, and from the
	// stored pair α, C − α rather than C − z₀.
	z, gp := z0, sign*g0
	if C-z < 0.5*C {
		z = float64(0.1 * z)
		gp = float64(a*(z-z0)) + float64(sign*b) + fmath.Log(z/(C-z))
	}
	inner := 0
	for inner <= lrMaxInner {
		if math.Abs(gp) < p.innerEps {
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
		// needs hundreds of visits to walk down.
		tz := z - gp/gpp
		if a*z < 1 || tz <= 0 {
			tz = z * fmath.Exp(-gp/(z*gpp))
		}
		z = min(tz, 0.5*C)
		if z < Floor*C {
			z = Floor * C // the optimum is below what float64 keeps (margin > 690)
		}
		gp = float64(a*(z-z0)) + float64(sign*b) + fmath.Log(z/(C-z))
		inner++
		if z == Floor*C && gp > 0 {
			break
		}
	}
	p.newtonIters += int64(inner)
	// liblinear updates only after a Newton iteration; a moved starting
	// point (z₀ > C/2 replaced by 0.1 z₀) that already met the inner
	// tolerance is kept too, else such a coordinate could never move.
	if inner == 0 && z == z0 {
		return viol, 0
	}
	d := z - z0
	if sign > 0 {
		p.Alpha[i], p.AlphaC[i] = z, C-z
	} else {
		p.AlphaC[i], p.Alpha[i] = z, C-z
	}
	p.AxpyRow(p.sigma*sign*d*yf, i, p.W)
	return viol, -lrDelta(d, z0, u0, a, sign*g0)
}

// Violation is the KKT violation of the logistic dual at α_i = al
// (C_i − α_i = ac) with gradient g: |g|, except that a side held at the
// floor Floor·C_i while g pushes it further down counts as at a bound.
// Its optimum there is below what float64 represents (C·e^{−m} for a
// margin m > 690), and no step can change the objective by more than
// 1e-300·C.
func Violation(g, al, ac, C float64) float64 {
	if (g > 0 && al <= Floor*C) || (g < 0 && ac <= Floor*C) {
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
	return float64(d*gp0) + float64(0.5*a*d*d) + float64(z0*bregLog(d/z0)) + float64(u0*bregLog(-d/u0))
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
		return float64((1+x)*fmath.Log1p(x)) - x
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
	p = float64(p*x) + c13
	p = float64(p*x) + c12
	p = float64(p*x) + c11
	p = float64(p*x) + c10
	p = float64(p*x) + c9
	p = float64(p*x) + c8
	p = float64(p*x) + c7
	p = float64(p*x) + c6
	p = float64(p*x) + c5
	p = float64(p*x) + c4
	p = float64(p*x) + c3
	p = float64(p*x) + c2
	return p * x * x
}

// Log1pExpNeg returns log(1 + e^{−m}) without overflow.
func Log1pExpNeg(m float64) float64 {
	if m >= 0 {
		return fmath.Log1p(fmath.Exp(-m))
	}
	return -m + fmath.Log1p(fmath.Exp(m))
}
