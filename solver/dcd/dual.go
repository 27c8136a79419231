// Package dcd is dual coordinate descent (Hsieh et al. 2008) on the
// L2-regularised linear models: the problems of liblinear's -s 1, 3 and 7
// (Problem, one binary subproblem at a time), 12 and 13 (SVR) and 21
// (OneClass), their steps and full passes. Package dual trains them;
// package finish takes over where they crawl; package cocoa solves blocks
// of them.
//
// SVM (Hsieh et al. 2008; liblinear's solve_l2r_l1l2_svc):
//
//	min_α f(α) = ½αᵀ(Q+D)α − eᵀα,  0 ≤ α_i ≤ U_i,  Q_ij = y_i y_j x_iᵀx_j
//
// with U_i = C_i, D_ii = 0 for the hinge loss (-s 3) and U_i = ∞,
// D_ii = 1/(2C_i) for the squared hinge (-s 1).
//
// Logistic regression (Yu, Huang & Lin 2011; liblinear's solve_l2r_lr_dual):
//
//	min_α f(α) = ½αᵀQα + Σ_i [α_i log α_i + (C_i−α_i) log(C_i−α_i)],  0 < α_i < C_i.
//
// w = Σ α_i y_i x_i is kept up to date. The exported state (α, w, the
// costs) is what the finishers of package finish work on.
package dcd

import (
	"math"

	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/rows"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
	solver "github.com/acfcd/acfcd/solver"
)

// Loss is the loss of the primal problem.
type Loss uint8

const (
	L2SVM    Loss = iota // squared hinge, -s 1
	L1SVM                // hinge, -s 3
	Logistic             // -s 7
)

const (
	pgZero      = 1e-12 // liblinear steps only when |PG| exceeds this
	lrMaxInner  = 100   // liblinear's max_inner_iter
	lrInnerEps0 = 1e-2  // liblinear's initial innereps
	// Floor is the smallest α_i/C_i (and 1 − α_i/C_i) the logistic dual
	// keeps: the optimum of an example with margin above ~690 is below
	// what float64 holds.
	Floor = 1e-300
)

// farStart is the margin α_i·Q_ii of liblinear's logistic start beyond
// which α_i starts at 1/Q_ii instead: the optimal α_i are about 1/Q_ii,
// and w = Σ α_i y_i x_i summed from the far larger start kept its
// rounding (values of 1e150 ended at 22% training accuracy).
const farStart = 0x1p30

// Data is what the subproblems of one training call share, read-only.
type Data struct {
	rows.Rows
	Label []float64 // the examples' labels
	xsq   []float64 // ‖x_i‖² + B²; nil above Tuning.XsqStoreMax examples (see Qii)
}

// NewData returns the shared data of d with bias B (B < 0: none). The
// caller has rejected examples whose ‖x‖² + B² overflows (acfcd's
// checkSquares, for every solver): their steps would be 0 or NaN.
func NewData(d *dataio.Dataset, bias float64, t *Tuning) *Data {
	sh := &Data{Rows: rows.New(d, bias), Label: d.Label}
	// Stored, Q_ii saves a pass over the row on small data; beyond the
	// bound the row just read is in cache and memory counts more
	// (measurements: docs/tuning.md).
	if sh.N <= t.XsqStoreMax {
		sh.xsq = make([]float64, sh.N)
		for i := range sh.xsq {
			sh.xsq[i] = sh.SqNorm(int32(i))
		}
	}
	return sh
}

// Qii returns Q_ii without the loss's diagonal term: ‖x_i‖² + B².
func (sh *Data) Qii(i int32) float64 {
	if sh.xsq != nil {
		return sh.xsq[i]
	}
	return sh.SqNorm(i)
}

// Problem is one binary subproblem. Its buffers are reused by Reset for
// the next subproblem.
type Problem struct {
	*Data
	Loss Loss
	Eps  float64 // the certified violation: eps/2 for the SVMs (see Train)
	eps0 float64 // Eps before the hinge loss's gap rule lowered it (gap.go)

	W      []float64 // len NF+1; W[NF] is the bias weight (0 without a bias)
	Alpha  []float64
	AlphaC []float64 // logistic: C_i − α_i, kept separately as liblinear does
	Y      []int8    // ±1
	UB     [2]float64
	Diag   [2]float64 // indexed by (y+1)/2: 0 negative, 1 positive

	// Ops counts the non-zeros touched by the steps, passes and finishers.
	Ops int64
	// PassViol and PassPrimal are the largest violation and the primal
	// objective at the point of the last full pass.
	PassViol, PassPrimal float64
	// Pool lends spare processors to the full passes and finishers.
	Pool *procs.Pool

	drv                   *solver.Tuning // the driver's, for the full pass
	tune                  *Tuning
	chunks                []solver.Chunk
	innerEps, innerEpsMin float64 // logistic: liblinear's adapted inner tolerance
	tightened             int     // times the hinge loss's gap rule or the primal rule lowered Eps
	gap                   gapRule // the hinge loss's gap rule (gap.go)
	// Rule, where on, is the primal solver's rule the certified point
	// must meet too (primalrule.go).
	Rule        PrimalRule
	newtonIters int64
	sigma       float64 // the scale of the quadratic term: 1, or CoCoA+'s σ' (local.go)
}

// New returns a problem on sh with its own buffers. w, if not nil, is the
// weight vector (len NF+1): a binary problem trains straight into the
// model's slice, so that at kdd scale the weights are not held twice.
func New(sh *Data, loss Loss, eps float64, w []float64, pool *procs.Pool, drv *solver.Tuning, t *Tuning) *Problem {
	p := &Problem{Data: sh, Loss: loss, Eps: eps, Pool: pool, drv: drv, tune: t, sigma: 1}
	if w == nil {
		w = make([]float64, sh.NF+1)
	}
	p.W = w
	p.Alpha = make([]float64, sh.N)
	p.Y = make([]int8, sh.N)
	if loss == Logistic {
		p.AlphaC = make([]float64, sh.N)
	}
	return p
}

// Reset sets up the subproblem with the examples labelled pos positive
// (cost cp) and the others negative (cost cn) at liblinear's starting
// point, and returns the objective there.
func (p *Problem) Reset(pos, cp, cn float64) float64 {
	for i, v := range p.Label {
		if v == pos { // labels are validated integers: no NaN, and −0 == +0
			p.Y[i] = 1
		} else {
			p.Y[i] = -1
		}
	}
	p.UB = [2]float64{cn, cp}
	switch p.Loss {
	case L1SVM, Logistic:
		p.Diag = [2]float64{0, 0}
	case L2SVM:
		p.UB = [2]float64{math.Inf(1), math.Inf(1)}
		p.Diag = [2]float64{0.5 / cn, 0.5 / cp}
	}
	clear(p.W)
	p.Ops, p.newtonIters, p.gap = 0, 0, gapRule{}
	if p.tightened > 0 {
		p.Eps, p.tightened = p.eps0, 0
	}
	if p.Loss != Logistic {
		clear(p.Alpha)
		return 0
	}
	// liblinear's start: α_i = min(0.001 C_i, 1e-8).
	p.innerEps = lrInnerEps0
	p.innerEpsMin = min(1e-8, p.Eps)
	for i := range p.Alpha {
		c := p.UB[(p.Y[i]+1)>>1]
		a := min(0.001*c, 1e-8)
		if q := p.Qii(int32(i)); float64(a*q) > farStart {
			a = max(Floor*c, 1/q)
		}
		p.Alpha[i] = a
		p.AlphaC[i] = c - a
		p.AxpyRow(a*float64(p.Y[i]), int32(i), p.W)
	}
	return p.Objective()
}

// Len is the number of examples.
func (p *Problem) Len() int { return p.N }

// DotRow returns vᵀx_i, the bias feature included, counting the non-zeros.
// (It calls the kernel itself rather than through Rows: a call less in
// every step.)
func (p *Problem) DotRow(i int32, v []float64) float64 {
	a, b := p.RP[i], p.RP[i+1]
	p.Ops += b - a
	var s float64
	if p.Val32 == nil {
		s = kernel.Dot(p.Idx[a:b:b], p.Val[a:b:b], v)
	} else {
		s = kernel.Dot32(p.Idx[a:b:b], p.Val32[a:b:b], v)
	}
	return s + float64(p.Bias*v[p.NF])
}

// AxpyRow does v += c·x_i, the bias feature included, counting the non-zeros.
func (p *Problem) AxpyRow(c float64, i int32, v []float64) {
	a, b := p.RP[i], p.RP[i+1]
	p.Ops += b - a
	if p.Val32 == nil {
		kernel.Axpy(c, p.Idx[a:b:b], p.Val[a:b:b], v)
	} else {
		kernel.Axpy32(c, p.Idx[a:b:b], p.Val32[a:b:b], v)
	}
	v[p.NF] += float64(c * p.Bias)
}

// Cost returns C_i (for -s 1 recovered from D_ii = 1/(2C_i): its dual has
// no upper bound).
func (p *Problem) Cost(i int) float64 {
	c := (p.Y[i] + 1) >> 1
	if p.Loss == L2SVM {
		return 0.5 / p.Diag[c]
	}
	return p.UB[c]
}

// Step does one coordinate step (solver.Problem).
func (p *Problem) Step(i, ahead int32, th solver.Thresholds) (pg, gain float64, shrink bool) {
	if ahead >= 0 {
		p.Prefetch(ahead)
	}
	if p.Loss == Logistic {
		viol, gain := p.lrStep(i, p.DotRow(i, p.W))
		return viol, gain, false
	}
	// G = ∂f/∂α_i = y_i wᵀx_i − 1 + D_ii α_i (written out: a call less).
	c := (p.Y[i] + 1) >> 1
	a := p.Alpha[i]
	G := float64(float64(p.Y[i])*p.DotRow(i, p.W)) - 1 + float64(a*p.Diag[c])
	switch {
	case a == 0:
		if G > th.Max {
			return 0, 0, true
		}
		pg = min(G, 0)
	case a == p.UB[c]:
		if G < th.Min {
			return 0, 0, true
		}
		pg = max(G, 0)
	default:
		pg = G
	}
	if math.Abs(pg) > pgZero {
		gain = p.svmMove(i, G)
	}
	return pg, gain, false
}

// EndBatch adapts liblinear's inner Newton tolerance of the logistic dual
// after a sweep of entries steps.
func (p *Problem) EndBatch(entries int, _ bool) float64 {
	if p.Loss == Logistic {
		if p.newtonIters <= int64(entries/10) {
			p.innerEps = max(p.innerEpsMin, 0.1*p.innerEps)
		}
		p.newtonIters = 0
	}
	return 0
}

// Objective is f(α) as liblinear prints it:
// SVM: ½(‖w‖² + Σ α_i(α_i D_ii − 2)) (solve_l2r_l1l2_svc);
// LR:  ½‖w‖² + Σ α_i log α_i + (C_i−α_i) log(C_i−α_i) − C_i log C_i
// (solve_l2r_lr_dual).
func (p *Problem) Objective() float64 {
	var ww float64
	for _, v := range p.W {
		ww += float64(v * v)
	}
	if p.Loss == Logistic {
		v := 0.5 * ww
		for i, a := range p.Alpha {
			c := p.UB[(p.Y[i]+1)>>1]
			v += XLogX(a) + XLogX(p.AlphaC[i]) - float64(c*fmath.Log(c))
		}
		return v
	}
	v := ww
	for i, a := range p.Alpha {
		v += float64(a * (float64(a*p.Diag[(p.Y[i]+1)>>1]) - 2))
	}
	return v / 2
}

// XLogX is x·log x, 0 at x ≤ 0, rounded: inlined into a sum it must not
// fuse with it.
func XLogX(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return float64(x * fmath.Log(x))
}

// PG is the projected gradient of the SVM duals for gradient G at i.
func (p *Problem) PG(i int32, G float64) float64 {
	a := p.Alpha[i]
	if a == 0 {
		return min(G, 0)
	}
	if a == p.UB[(p.Y[i]+1)>>1] {
		return max(G, 0)
	}
	return G
}

// svmMove does the exact one-variable minimisation at coordinate i with
// gradient G and returns the decrease of f, −(G d + ½ Q_ii d²).
func (p *Problem) svmMove(i int32, G float64) float64 {
	c := (p.Y[i] + 1) >> 1
	q := float64(p.sigma*p.Qii(i)) + p.Diag[c]
	a := p.Alpha[i]
	var na float64
	if q > 0 {
		na = min(max(a-G/q, 0), p.UB[c])
	} else if G < 0 { // empty row, hinge loss: f is linear in α_i
		na = p.UB[c]
	}
	d := na - a
	if d == 0 {
		return 0
	}
	p.Alpha[i] = na
	p.AxpyRow(float64(p.sigma*d)*float64(p.Y[i]), i, p.W)
	return -(float64(G*d) + float64(0.5*q*d*d))
}
