package dcd

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
)

// CoCoA+ (Ma et al. 2015; Smith et al., JMLR 2018) splits the examples into
// K blocks. In a round, block k starts from the shared w = Σ_i α_i y_i x_i
// and its own α_[k], and approximately solves its local subproblem
//
//	min_Δ  wᵀX_kΔ + (σ'/2)‖X_kΔ‖² + Σ_{i∈k} ℓ*_i(α_i + Δ_i),  X_kΔ = Σ_{i∈k} Δ_i y_i x_i,
//
// (ℓ*_i the loss part of f: −α_i + ½D_ii α_i² for the SVMs, the entropy
// terms for LR) with σ' = K when the K updates are added (γ = 1). This is
// the dual problem of the block with the quadratic term scaled by σ': a
// coordinate step at i sees the gradient y_i x_iᵀ(w + σ'X_kΔ) + ℓ*_i' and
// the curvature σ'Q_ii (+ D_ii), so W holds w + σ'X_kΔ and every step and
// its gain are the plain dual's with Q_ii and the update of W times σ'.

// SetSigma scales the quadratic term of the problem by s (CoCoA+'s σ'; 1
// is the plain dual). W then holds w + s·Σ_i (α_i − α⁰_i) y_i x_i for the
// α⁰ at which W was w.
func (p *Problem) SetSigma(s float64) { p.sigma = s }

// GapParts returns the block's two parts of the duality gap at w (len
// NF+1) and the current α: the weighted primal loss Σ_i C_i loss_i(w) and
// Σ_i ℓ*_i(α_i), the dual objective f less ½‖w‖². For the w = Σ α_i y_i x_i
// of all blocks, P(w) + f(α) = ‖w‖² + Σ_blocks (loss + conj) ≥ 0 is the
// duality gap.
func (p *Problem) GapParts(w []float64) (loss, conj float64) {
	for i := range p.N {
		c := (p.Y[i] + 1) >> 1
		m := float64(float64(p.Y[i]) * p.DotRow(int32(i), w))
		a := p.Alpha[i]
		if p.Loss == Logistic {
			C := p.UB[c]
			loss += float64(C * Log1pExpNeg(m))
			conj += XLogX(a) + XLogX(p.AlphaC[i]) - float64(C*fmath.Log(C))
			continue
		}
		if h := 1 - m; h > 0 {
			if p.Loss == L1SVM {
				loss += float64(p.UB[c] * h)
			} else {
				loss += float64(0.5 / p.Diag[c] * h * h)
			}
		}
		conj += float64(a * (float64(0.5*a*p.Diag[c]) - 1))
	}
	return loss, conj
}

// AddDelta adds Σ_i (α_i − α0_i) y_i x_i to v and calls touched with the
// rows whose α moved.
func (p *Problem) AddDelta(alpha0, v []float64, touched func(i int32)) {
	for i, a := range p.Alpha {
		if d := a - alpha0[i]; d != 0 {
			p.AxpyRow(d*float64(p.Y[i]), int32(i), v)
			if touched != nil {
				touched(int32(i))
			}
		}
	}
}

// LineParts returns the block's parts of the dual objective along the
// round's direction Δ = α − α0 (Lee & Chang 2019: a line search on the
// sum of the blocks' steps): for the SVMs, whose f is quadratic,
// f(α0 + γΔ) − f(α0) = γ(wᵀXΔ + lin) + ½γ²(‖XΔ‖² + quad) with
// lin = Σ_i (D_ii α0_i − 1)Δ_i and quad = Σ_i D_ii Δ_i², the sums over the
// block; top is the largest γ that keeps α0 + γΔ in its box (≥ 1, +Inf if
// none binds). Logistic regression has no such closed form: ok is false.
func (p *Problem) LineParts(alpha0 []float64) (lin, quad, top float64, ok bool) {
	if p.Loss == Logistic {
		return 0, 0, 1, false
	}
	top = math.Inf(1)
	for i, a := range p.Alpha {
		d := a - alpha0[i]
		if d == 0 {
			continue
		}
		c := (p.Y[i] + 1) >> 1
		lin += float64((float64(p.Diag[c]*alpha0[i]) - 1) * d)
		quad += float64(p.Diag[c] * d * d)
		if d < 0 {
			top = min(top, -alpha0[i]/d)
		} else if ub := p.UB[c]; !math.IsInf(ub, 1) {
			top = min(top, (ub-alpha0[i])/d)
		}
	}
	return lin, quad, max(top, 1), true
}

// ScaleStep moves α to α0 + γ(α − α0): the block's share of a line
// search's step (γ = 1 keeps α), clipped to the box against rounding.
func (p *Problem) ScaleStep(alpha0 []float64, gamma float64) {
	if gamma == 1 {
		return
	}
	for i, a := range p.Alpha {
		if d := a - alpha0[i]; d != 0 {
			c := (p.Y[i] + 1) >> 1
			p.Alpha[i] = min(max(alpha0[i]+float64(gamma*d), 0), p.UB[c])
		}
	}
}
