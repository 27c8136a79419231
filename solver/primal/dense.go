package primal

import (
	"math"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/dense"
)

// The dense Hessian, factored by package dense (which the interior-point
// methods of package finish share: their matrix I + Zᵀ D⁻¹ Z has the same
// form).
//
// H is formed in the lower triangle of a dim×dim row-major matrix: row c
// gets D_i·x_ic·x_ij for every column j ≤ c, one term per example in
// example order, whatever the split of the work. The rows of H are split
// into ranges of about equal work, one per goroutine, each going over all
// examples and adding only the entries of its rows: no partial matrices to
// add up, and the same bits at any number of goroutines. The Cholesky
// factorisation reads and writes only the lower triangle, so nothing is
// mirrored.

// formHessian sets p.h's lower triangle to I + Σ D_i x_i x_iᵀ (the
// bias's diagonal entry without the 1 with FreeBias) and returns false if
// cancelled. The rows of H are split among the caller and the spare
// processors of the pool (see the top of this file).
//
// For the squared losses D_i is 0 or 2C_i: once their active sets settle,
// few examples change from one Newton step to the next, so up to
// Tuning.HessianKeepMax weights the sum is kept and updated by the
// examples whose D_i changed, when they are fewer work than all of them.
func (p *Problem) formHessian() bool {
	dim := p.Dim()
	if p.h == nil {
		p.h = make([]float64, dim*dim)
	}
	p.scanRows()
	keep := p.Loss != Logistic && dim <= p.tune.HessianKeepMax
	target := p.h
	if keep && p.hsum == nil {
		p.hsum = make([]float64, dim*dim)
		p.dprev = make([]float64, p.N)
	}
	if keep {
		target = p.hsum
	}
	// The rows to add and their coefficients: all with D_i ≠ 0, or those
	// whose D_i changed, by the change. The logistic loss's D_i never
	// vanishes, but most are tiny at large C: a row whose D_i‖x_i‖² is
	// below Tuning.HessianDropRel changes H = I + … by less than that, and
	// is left out (not with a free bias weight, whose entry has no 1).
	drop := 0.0
	if p.Loss == Logistic && !p.FreeBias {
		drop = p.tune.HessianDropRel
		p.rowNorms()
	}
	if drop > 0 && p.DropSum > 0 {
		drop = max(drop, p.dropLevel())
	}
	p.hrows, p.hcoef = p.hrows[:0], p.hcoef[:0]
	var full, changed, active int64
	for i, di := range p.dc {
		k := p.RP[i+1] - p.RP[i]
		w := k * (k + 1) / 2
		if di != 0 && drop > 0 && float64(di*p.xsq[i]) <= drop {
			continue
		}
		if di != 0 {
			full += w
			active++
		}
		if keep && p.kept && di != p.dprev[i] {
			changed += w
		}
	}
	incremental := keep && p.kept && changed < full
	for i, di := range p.dc {
		c := di
		if incremental {
			c = di - p.dprev[i]
		} else if drop > 0 && float64(di*p.xsq[i]) <= drop {
			continue
		}
		if c != 0 {
			p.hrows = append(p.hrows, int32(i))
			p.hcoef = append(p.hcoef, c)
		}
	}
	ops := full
	if incremental {
		ops = changed
	} else {
		clear(target)
	}
	if keep {
		copy(p.dprev, p.dc)
	}
	if p.hscale != 0 {
		for n := range p.hcoef {
			p.hcoef[n] *= p.hscale
		}
	}
	p.kept = false // until the sum is complete
	p.Ops += ops

	var abort atomic.Bool
	parts := 1
	helpers := 0
	if p.order == 1 && ops >= p.tune.HessianParallelOps {
		helpers = p.Pool.Take(p.tune.HessianMaxParts - 1)
		parts += helpers
	}
	p.hessianSplit(parts)
	run := func(k int, caller bool) {
		if p.order != 1 {
			p.hessianAny(target, &abort)
		} else if p.Val32 == nil {
			hessianRows(p, p.Val, target, k, caller, &abort)
		} else {
			hessianRows(p, p.Val32, target, k, caller, &abort)
		}
	}
	if helpers == 0 {
		run(0, true)
	} else {
		var next atomic.Int64
		p.Pool.Run(helpers, func(helper bool) {
			if !helper {
				run(0, true) // the caller's range polls
				return
			}
			for {
				k := int(next.Add(1))
				if k >= parts {
					return
				}
				run(k, false)
			}
		}, func() { abort.Store(true) })
	}
	if abort.Load() {
		p.cancelled = true
		return false
	}
	p.kept = keep
	if keep {
		copy(p.h, p.hsum)
	}
	h := p.h
	// The regulariser: 1 on the diagonal, but for a free bias weight,
	// whose row is Σ D_i B x_i: if no example has D_i ≠ 0, that row is 0
	// and so is the gradient's entry, and any value ≠ 0 on the diagonal
	// gives the step 0 there.
	one := p.hessScale()
	for j := 0; j < dim; j++ {
		if j < p.NF || !p.FreeBias {
			h[j*dim+j] += one
		}
	}
	if p.FreeBias && active == 0 {
		clear(h[p.NF*dim : p.NF*dim+dim])
		h[p.NF*dim+p.NF] = 1
	}
	if p.hscale == 0 && p.overflowed() {
		// Values near 1e153 at C ≥ 1: Σ D_i x_i x_iᵀ overflows. H/2^k has the
		// same Newton step, solved with ∇f/2^k (hessScale).
		p.hscale = p.hessianScale()
		p.kept = false
		return p.formHessian()
	}
	return true
}

// hessScale is the factor of p.h: H·hessScale is what it holds.
func (p *Problem) hessScale() float64 {
	if p.hscale == 0 {
		return 1
	}
	return p.hscale
}

// overflowed reports whether a diagonal entry of p.h is beyond 2¹⁰²⁰ or
// NaN: the off-diagonal ones are bounded by the diagonal's.
func (p *Problem) overflowed() bool {
	dim := p.Dim()
	for j := 0; j < dim; j++ {
		if !(p.h[j*dim+j] <= 0x1p1020) {
			return true
		}
	}
	return false
}

// hessianScale returns the power of two 2^−k that brings H's trace bound
// Σ |D_i|·‖x_i‖² + 1 below 2¹⁰⁰⁰, summed at 2⁻⁶⁰⁰ (each ‖x_i‖² is finite,
// fit.CheckSquares) so that the bound itself does not overflow.
func (p *Problem) hessianScale() float64 {
	const pre = 0x1p-600
	t := pre
	for i, di := range p.dc {
		if di != 0 {
			t += float64(math.Abs(di) * float64(p.SqNorm(int32(i))*pre))
		}
	}
	_, e := math.Frexp(t) // t < 2^e
	return math.Ldexp(1, min(0, 1000-600-e))
}

// dropLevel returns the largest power of two δ such that the rows with
// D_i‖x_i‖² < δ sum to at most p.DropSum: leaving them out of H changes
// it by at most DropSum in norm (their trace), and H ≥ I.
func (p *Problem) dropLevel() float64 {
	p.rowNorms()
	var sums [2048]float64 // by biased exponent: v in [2^(b−1023), 2^(b−1022))
	for i, di := range p.dc {
		if v := float64(di * p.xsq[i]); v > 0 {
			sums[math.Float64bits(v)>>52&0x7ff] += v
		}
	}
	var acc float64
	for b, v := range sums {
		if acc+v > p.DropSum {
			return math.Ldexp(1, b-1023)
		}
		acc += v
	}
	return math.Inf(1)
}

// rowNorms sets p.xsq to every example's ‖x_i‖² (bias included), once.
func (p *Problem) rowNorms() {
	if p.xsq != nil {
		return
	}
	p.xsq = make([]float64, p.N)
	for i := range p.xsq {
		p.xsq[i] = p.SqNorm(int32(i))
	}
}

// scanRows finds out once whether every row's indices strictly increase
// (the formation's fast path) and whether every value is 1.
func (p *Problem) scanRows() {
	if p.order != 0 {
		return
	}
	p.order = 1
	for i := 0; i < p.N && p.order == 1; i++ {
		idx := p.Idx[p.RP[i]:p.RP[i+1]]
		for q := 1; q < len(idx); q++ {
			if idx[q] <= idx[q-1] {
				p.order = -1
				break
			}
		}
	}
	p.binary = -1
	if p.tune.BinaryRows && p.Val32 == nil {
		p.binary = 1
		for _, v := range p.Val[p.RP[0]:p.RP[p.N]] {
			if v != 1 {
				p.binary = -1
				break
			}
		}
	}
}

// hessianSplit sets p.split to parts+1 boundaries of the rows of H with
// about equal work each (from the work of every row over all examples,
// counted once per problem) and p.qsplit to each example's positions of
// the inner boundaries.
func (p *Problem) hessianSplit(parts int) {
	if parts == p.qparts {
		return
	}
	dim := p.Dim()
	p.qparts = parts
	p.split = make([]int, parts+1)
	p.split[parts] = dim
	p.qsplit = nil
	if parts == 1 {
		return
	}
	if p.hw == nil {
		p.hw = make([]int64, dim+1)
		for i := 0; i < p.N; i++ {
			a, b := p.RP[i], p.RP[i+1]
			for q, j := range p.Idx[a:b] {
				p.hw[j+1] += int64(q + 1)
			}
			if p.Bias != 0 {
				p.hw[dim] += b - a + 1
			}
		}
		for j := 1; j <= dim; j++ {
			p.hw[j] += p.hw[j-1]
		}
	}
	total := p.hw[dim]
	c := 0
	for k := 1; k < parts; k++ {
		target := total * int64(k) / int64(parts)
		for c < dim && p.hw[c] < target {
			c++
		}
		p.split[k] = c
	}
	p.qsplit = make([]int32, p.N*(parts-1))
	for i := 0; i < p.N; i++ {
		idx := p.Idx[p.RP[i]:p.RP[i+1]]
		for k := 1; k < parts; k++ {
			p.qsplit[i*(parts-1)+k-1] = int32(lowerBound(idx, int32(p.split[k])))
		}
	}
}

// hessianRows adds to h the entries of its rows in part k of p.split
// over the examples p.hrows with coefficients p.hcoef (rows in increasing
// order of index), the bias row included in the last part. Every
// Tuning.PollWork operations the caller polls p.Poll and a helper checks
// p.Done; either sets abort on cancellation, and stops when abort is set.
func hessianRows[V dense.FloatV](p *Problem, val []V, h []float64, k int, caller bool, abort *atomic.Bool) {
	dim, nf := p.Dim(), p.NF
	parts := p.qparts
	binary := p.binary == 1
	bias := p.Bias
	hasBias := bias != 0 && k == parts-1
	var work int64
	for n, i := range p.hrows {
		di := p.hcoef[n]
		a, b := p.RP[i], p.RP[i+1]
		idx, x := p.Idx[a:b:b], val[a:b:b]
		qlo, qhi := 0, len(idx)
		if k > 0 {
			qlo = int(p.qsplit[int(i)*(parts-1)+k-1])
		}
		if k < parts-1 {
			qhi = int(p.qsplit[int(i)*(parts-1)+k])
		}
		if qhi > qlo {
			if binary {
				dense.AddOuterOnesRows(h, dim, di, idx, qlo, qhi)
			} else {
				dense.AddOuterRows(h, dim, di, idx, x, qlo, qhi)
			}
			work += int64(qhi-qlo) * int64(qhi+qlo+1) / 2
		}
		if hasBias {
			bv := di * bias
			hr := h[nf*dim : nf*dim+nf+1]
			x = x[:len(idx)]
			for q, j := range idx {
				hr[j] += float64(bv * float64(x[q]))
			}
			hr[nf] += float64(bv * bias)
			work += int64(len(idx))
		}
		if work >= p.drv.PollWork {
			work = 0
			if caller {
				if abort.Load() || p.Poll != nil && p.Poll() {
					abort.Store(true)
					return
				}
			} else if abort.Load() || closed(p.Done) {
				abort.Store(true)
				return
			}
		}
	}
}

// hessianAny is the formation for rows in any order, on one goroutine.
func (p *Problem) hessianAny(h []float64, abort *atomic.Bool) {
	dim, nf := p.Dim(), p.NF
	var work int64
	for n, i := range p.hrows {
		di := p.hcoef[n]
		a, b := p.RP[i], p.RP[i+1]
		if p.Val32 == nil {
			dense.AddOuterAny(h, dim, di, p.Idx[a:b], p.Val[a:b])
		} else {
			dense.AddOuterAny(h, dim, di, p.Idx[a:b], p.Val32[a:b])
		}
		if p.Bias != 0 {
			bv := di * p.Bias
			for k := a; k < b; k++ {
				h[nf*dim+int(p.Idx[k])] += float64(bv * p.Value(k))
			}
			h[nf*dim+nf] += float64(bv * p.Bias)
		}
		work += (b - a) * (b - a + 1) / 2
		if work >= p.drv.PollWork {
			work = 0
			if p.Poll != nil && p.Poll() {
				abort.Store(true)
				return
			}
		}
	}
}

// closed reports whether done is closed (false for nil).
func closed(done <-chan struct{}) bool {
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// lowerBound returns the first position in the increasing idx whose
// value is at least v (len(idx) if none).
func lowerBound(idx []int32, v int32) int {
	lo, hi := 0, len(idx)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if idx[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// factor forms H and factors it by Cholesky; it returns false if H is
// not numerically positive definite or if cancelled (Cancelled tells).
func (p *Problem) factor() bool {
	if !p.formHessian() {
		return false
	}
	dim := p.Dim()
	ok := dense.Cholesky(p.h, dim, func() bool { return p.poll(true) }, p.Pool, p.tune.HessianParallelOps)
	p.Ops += int64(dim) * int64(dim) * int64(dim) / 6
	return ok
}
