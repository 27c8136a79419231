package lasso

import (
	"cmp"
	"math"
	"slices"

	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/kernel"
)

// The support Newton step. On the orthant of the current signs s, with
// the zero weights held at zero, F is the quadratic
//
//	q(v) = ½‖y_c − X̃_S v‖² + λα·sᵀv + ½λ(1−α)‖v‖²
//
// over the support S. Coordinate descent converges on it at a rate set by
// the conditioning of X̃_SᵀX̃_S, which near interpolation (small λ, rows ≈
// |S|) takes it tens of thousands of sweeps; conjugate gradients need
// about √κ iterations, each two passes over S's columns. The step solves
// (X̃_SᵀX̃_S + λ(1−α)I)·d = g_S − λα·s_S (g the smooth part's −∇, as the
// pass measured it) by CG preconditioned with the diagonal, then moves
// along d up to the first weight that would change sign, which it sets to
// zero: every CG iterate minimises q along its own direction at t = 1, so
// F decreases all along the segment. The steps that follow (CD, the
// passes) put back whatever the orthant left out.

// supportSig hashes the working set's support and signs.
func (s *Problem) supportSig() (uint64, int) {
	var h uint64
	n := 0
	for k, j := range s.ws {
		w := s.w[j]
		if w == 0 {
			continue
		}
		v := uint64(k) << 1
		if w < 0 {
			v |= 1
		}
		h = mix.Finalize(h ^ v)
		n++
	}
	return h, n
}

// failedPass records the support and signs of a failed pass and returns
// the operations the Newton step may spend there (0: none): LassoNewton
// times the work since the last step, where they are unchanged since the
// last failed pass and the support holds at least LassoNewtonRows times
// the rows (X̃_S is then close to singular and CD slow; on smaller
// supports CD converged in fewer operations, docs/tuning.md).
func (s *Problem) failedPass() int64 {
	if s.tune.LassoNewton <= 0 {
		return 0
	}
	sig, n := s.supportSig()
	same := n > 0 && sig == s.nSig && n == s.nSupp
	s.nSig, s.nSupp = sig, n
	// In covariance mode a CG iteration costs what a sweep of Gram steps
	// does, on any support: only the budget limits it.
	if !same || (!s.g.on && float64(n) < s.tune.LassoNewtonRows*float64(s.rows)) {
		return 0
	}
	return int64(float64(s.Ops-s.newtonAt) * s.tune.LassoNewton)
}

// newton does support Newton steps (CG, then the exact minimisation of F
// along the direction) until one ends inside its orthant or the budget of
// operations is spent; g holds g_j for the working set's positions at the
// current point. It returns whether the point moved.
func (s *Problem) newton(g []float64, budget int64) bool {
	s.newtonAt = s.Ops
	end := s.Ops + budget
	moved := false
	for round := 0; s.Ops < end; round++ {
		if round > 0 {
			// g over the new support at the new point.
			for k, j := range s.ws {
				if s.w[j] == 0 {
					continue
				}
				var rho float64
				if s.g.on {
					rho = s.g.gr[k] // newtonStep's gramRho
				} else {
					rho, _, _ = s.rhoCol(&s.wsc[k])
				}
				g[k] = rho - float64(s.l2p*s.w[j])
			}
		}
		done, ok := s.newtonStep(g, end)
		moved = moved || ok
		if done || !ok {
			break
		}
	}
	s.newtonAt = s.Ops
	return moved
}

// newtonStep is one support Newton step within the operation count end.
// It returns ok if F decreased, done if the step ended inside the orthant
// (no weight reached zero on the way: nothing more to gain from another).
func (s *Problem) newtonStep(g []float64, end int64) (done, ok bool) {
	sup := s.nIdx[:0]
	var nnz int64
	for k, j := range s.ws {
		if s.w[j] != 0 {
			sup = append(sup, int32(k))
			nnz += s.wsc[k].b - s.wsc[k].a
		}
	}
	s.nIdx = sup
	n := len(sup)
	per := 2*nnz + int64(s.rows) + 6*int64(n)
	if s.g.on {
		per = 2*int64(n)*int64(n) + 6*int64(n)
	}
	maxIt := min((end-s.Ops)/per, int64(2*n+10))
	if maxIt < 2 {
		return true, false
	}
	grow := func(x []float64, n int) []float64 {
		if cap(x) < n {
			return make([]float64, n)
		}
		return x[:n]
	}
	d := grow(s.nD, n)
	res := grow(s.nRes, n)
	z := grow(s.nZ, n)
	p := grow(s.nP, n)
	ap := grow(s.nAp, n)
	bb := grow(s.nB, n)
	u := grow(s.nU, s.rows)
	s.nD, s.nRes, s.nZ, s.nP, s.nAp, s.nU, s.nB = d, res, z, p, ap, u, bb
	var rz, b0 float64
	for i, k := range sup {
		j := s.ws[k]
		b := g[k] - s.l1p
		if s.w[j] < 0 {
			b = g[k] + s.l1p
		}
		bb[i] = b
		d[i], res[i] = 0, b
		z[i] = b / (s.wsc[k].q + s.l2p)
		p[i] = z[i]
		rz += float64(b * z[i])
		b0 = max(b0, math.Abs(b))
	}
	if !(b0 > 0) {
		return true, false
	}
	tol := 1e-12 * b0
	it := 0
	for ; int64(it) < maxIt; it++ {
		if s.polled() {
			return true, false // cancelled: w has not moved
		}
		pap := s.hess(sup, p, ap, u)
		if !(pap > 0) || math.IsInf(pap, 0) {
			break
		}
		a := rz / pap
		var rmax, rz2 float64
		for i := range sup {
			d[i] += float64(a * p[i])
			res[i] -= float64(a * ap[i])
			rmax = max(rmax, math.Abs(res[i]))
		}
		if rmax <= tol {
			it++
			break
		}
		for i, k := range sup {
			z[i] = res[i] / (s.wsc[k].q + s.l2p)
			rz2 += float64(res[i] * z[i])
		}
		beta := rz2 / rz
		rz = rz2
		for i := range sup {
			p[i] = z[i] + float64(beta*p[i])
		}
	}
	if it == 0 {
		return true, false
	}
	// F along w + t·d, t ≥ 0: ½A·t² − B·t + λα·Σ|w_j + t·d_j|, A = dᵀHd
	// = dᵀ(b − res), B = dᵀg; its slope A·t + c rises by 2λα|d_j| where
	// w_j + t·d_j crosses zero.
	var aa, bq, c float64
	bp := s.nBreak[:0]
	for i, k := range sup {
		w := s.w[s.ws[k]]
		aa += float64(d[i] * (bb[i] - res[i]))
		bq += float64(d[i] * g[k])
		if w > 0 {
			c += d[i]
		} else {
			c -= d[i]
		}
		if (w > 0 && d[i] < 0) || (w < 0 && d[i] > 0) {
			bp = append(bp, brk{-w / d[i], int32(i)})
		}
	}
	s.nBreak = bp
	c = float64(s.l1p*c) - bq
	if !(aa > 0) {
		return true, false
	}
	slices.SortFunc(bp, func(x, y brk) int { return cmp.Compare(x.t, y.t) })
	t, kink := -c/aa, -1
	for q, e := range bp {
		if t <= e.t {
			break
		}
		// The slope just before e.t is negative (t* beyond it).
		if float64(aa*e.t)+c+float64(2*s.l1p*math.Abs(d[e.i])) >= 0 {
			t, kink = e.t, q
			break
		}
		c += float64(2 * s.l1p * math.Abs(d[e.i]))
		t = -c / aa
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return true, false
	}
	old := s.objective(s.rr, s.n1, s.n2)
	keep := grow(s.nKeep, n)
	s.nKeep = keep
	for i, k := range sup {
		j := s.ws[k]
		keep[i] = s.w[j]
		s.w[j] += float64(t * d[i])
	}
	if kink >= 0 {
		// Every weight whose zero is at t lands on it exactly.
		for q := kink; q < len(bp) && bp[q].t == t; q++ {
			s.w[s.ws[sup[bp[q].i]]] = 0
		}
	}
	s.Snap, s.fresh = false, false
	s.newtonSync()
	nf := s.objective(s.rr, s.n1, s.n2)
	if !(nf < old) {
		// Rounding on a singular system: undo.
		for i, k := range sup {
			s.w[s.ws[k]] = keep[i]
		}
		s.newtonSync()
		return true, false
	}
	return kink < 0, true
}

type brk struct {
	t float64
	i int32
}

// hess sets ap = (X̃_SᵀX̃_S + λ(1−α)I)·p over the support positions sup
// (u is scratch of one value per row) and returns pᵀ·ap.
func (s *Problem) hess(sup []int32, p, ap, u []float64) float64 {
	if s.g.on {
		return s.gramHess(sup, p, ap)
	}
	clear(u)
	var uo float64
	for i, k := range sup {
		c := &s.wsc[k]
		idx, val := s.csc.RowIndex[c.a:c.b:c.b], s.csc.Value[c.a:c.b:c.b]
		pk := float64(p[i] * c.sc)
		kernel.Axpy(pk, idx, val, u)
		if s.intercept {
			uo -= float64(pk * c.mu)
		}
		s.Ops += int64(len(idx))
	}
	var pap float64
	for i, k := range sup {
		c := &s.wsc[k]
		idx, val := s.csc.RowIndex[c.a:c.b:c.b], s.csc.Value[c.a:c.b:c.b]
		r := kernel.Dot(idx, val, u)
		if s.intercept {
			r += float64(uo * c.cs)
		}
		s.Ops += int64(len(idx))
		ap[i] = float64(c.sc*r) + float64(s.l2p*p[i])
		pap += float64(p[i] * ap[i])
	}
	return pap
}

// newtonSync brings the residual, or in covariance mode the working
// set's ρ, and the tracked sums to the moved w.
func (s *Problem) newtonSync() {
	if s.g.on {
		s.g.stale = true
		s.gramRho()
		return
	}
	s.resetResidual()
}

// gramHess is hess from the working set's Gram rows.
func (s *Problem) gramHess(sup []int32, p, ap []float64) float64 {
	n := len(s.ws)
	var pap float64
	for i, k := range sup {
		row := s.g.gw[int(k)*n : (int(k)+1)*n]
		var r float64
		for i2, k2 := range sup {
			r += float64(row[k2] * p[i2])
		}
		ap[i] = r + float64(s.l2p*p[i])
		pap += float64(p[i] * ap[i])
	}
	m := int64(len(sup)) * int64(len(sup))
	s.Ops += m
	s.g.gops += m
	return pap
}
