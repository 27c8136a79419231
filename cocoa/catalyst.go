package cocoa

import (
	"math"
	"slices"
)

// Catalyst is the driver's side of Catalyst (Lin, Mairal & Harchaoui
// 2015) over CoCoA+ rounds: the blocks solve the dual of
// P(w) + κ/2‖w − z‖² (Spec.Kappa divides their σ' by 1 + κ), whose primal
// point is w = κz/(1+κ) + v/(1+κ) with v = Σ α_i y_i x_i; every Rounds
// rounds z moves to w + β(w − w_prev), β = (1 − √q)/(1 + √q), q = 1/(1+κ).
// With inexact inner solves the momentum can run away (the kdd-shaped set
// at K = 16 without it: docs/tuning.md), so a step whose primal objective
// rose since the last one restarts it (β = 0 for that step), as
// O'Donoghue & Candès's adaptive restart.
type Catalyst struct {
	kappa, scale, beta float64
	rounds             int
	v, wPrev           []float64
	lastP              float64
}

// NewCatalyst starts Catalyst at κ > 0 with rounds per step (0:
// DefaultOuterRounds) from w = Σ α_i y_i x_i, which it turns in place into
// the first proximal problem's point (z = 0).
func NewCatalyst(kappa float64, rounds int, w []float64) *Catalyst {
	if rounds <= 0 {
		rounds = DefaultOuterRounds
	}
	c := &Catalyst{kappa: kappa, scale: 1 / (1 + kappa), rounds: rounds, lastP: math.Inf(1)}
	c.beta = (1 - math.Sqrt(c.scale)) / (1 + math.Sqrt(c.scale))
	c.v, c.wPrev = slices.Clone(w), slices.Clone(w)
	for j := range w {
		w[j] *= c.scale
	}
	return c
}

// Scale is 1/(1+κ): w moves by Scale times a round's Σ Δw, and the dual's
// quadratic term is Scale·‖v‖² (LineGammaScaled).
func (c *Catalyst) Scale() float64 { return c.scale }

// VV returns ‖v‖², the dual's quadratic term of the original problem:
// f(α) = ½‖v‖² + Σ ℓ*(α_i).
func (c *Catalyst) VV() float64 {
	var s float64
	for _, x := range c.v {
		s += float64(x * x)
	}
	return s
}

// Add records that w moved by Scale·γ·d: v moves by γ·d.
func (c *Catalyst) Add(gamma float64, d Sparse) {
	for n, j := range d.Index {
		c.v[j] += float64(gamma * d.Value[n])
	}
}

// EndRound ends round r (0-based) at w, whose primal objective measured at
// the round's start was primal: every Rounds rounds it moves z and sets w
// to the new proximal problem's point. It reports whether it restarted.
func (c *Catalyst) EndRound(r int, w []float64, primal float64) (restarted bool) {
	if (r+1)%c.rounds != 0 {
		return false
	}
	beta := c.beta
	if primal > c.lastP {
		beta, restarted = 0, true
	}
	c.lastP = primal
	k := c.kappa * c.scale
	for j := range w {
		z := w[j] + float64(beta*(w[j]-c.wPrev[j]))
		c.wPrev[j] = w[j]
		w[j] = float64(k*z) + float64(c.scale*c.v[j])
	}
	return restarted
}
