package primal

import (
	"math"
	"sync/atomic"
)

// The dense Hessian and its Cholesky factor, shared with the
// interior-point method of package finish (whose matrix I + Zᵀ D⁻¹ Z has
// the same form).
//
// H is formed in the lower triangle of a dim×dim row-major matrix: row c
// gets D_i·x_ic·x_ij for every column j ≤ c, one term per example in
// example order, whatever the split of the work. The rows of H are split
// into ranges of about equal work, one per goroutine, each going over all
// examples and adding only the entries of its rows: no partial matrices to
// add up, and the same bits at any number of goroutines. The Cholesky
// factorisation reads and writes only the lower triangle, so nothing is
// mirrored.

// FloatV is a stored value type, float32 or float64.
type FloatV interface{ ~float32 | ~float64 }

// AddOuter adds di·x xᵀ to the lower triangle of the dim×dim row-major h
// for a row x with strictly increasing indices idx. Four rows of h are
// filled together, so that each index and value loaded serves four
// updates; every entry still gets one term, (di·x_j)·x_c.
func AddOuter[V FloatV](h []float64, dim int, di float64, idx []int32, x []V) {
	addOuterRows(h, dim, di, idx, x, 0, len(idx))
}

// addOuterRows is AddOuter for the rows of h named by idx[qlo:qhi]: the
// terms (di·x_p)·x_q for p ≤ q, qlo ≤ q < qhi.
func addOuterRows[V FloatV](h []float64, dim int, di float64, idx []int32, x []V, qlo, qhi int) {
	x = x[:len(idx)]
	q := qlo
	for ; q+3 < qhi; q += 4 {
		c0, c1, c2, c3 := int(idx[q]), int(idx[q+1]), int(idx[q+2]), int(idx[q+3])
		x0, x1, x2, x3 := float64(x[q]), float64(x[q+1]), float64(x[q+2]), float64(x[q+3])
		h0 := h[c0*dim : c0*dim+c0+1]
		h1 := h[c1*dim : c1*dim+c1+1]
		h2 := h[c2*dim : c2*dim+c2+1]
		h3 := h[c3*dim : c3*dim+c3+1]
		ip, xp := idx[:q+1], x[:q+1]
		xp = xp[:len(ip)]
		for k, j := range ip {
			v := di * float64(xp[k])
			h0[j] += float64(v * x0)
			h1[j] += float64(v * x1)
			h2[j] += float64(v * x2)
			h3[j] += float64(v * x3)
		}
		v1, v2, v3 := di*x1, di*x2, di*x3
		h1[c1] += float64(v1 * x1)
		h2[c1] += float64(v1 * x2)
		h3[c1] += float64(v1 * x3)
		h2[c2] += float64(v2 * x2)
		h3[c2] += float64(v2 * x3)
		h3[c3] += float64(v3 * x3)
	}
	for ; q < qhi; q++ {
		c := int(idx[q])
		xq := float64(x[q])
		hr := h[c*dim : c*dim+c+1]
		ip, xp := idx[:q+1], x[:q+1]
		xp = xp[:len(ip)]
		for k, j := range ip {
			hr[j] += float64(di * float64(xp[k]) * xq)
		}
	}
}

// AddOuterOnes is AddOuter for a row whose values are all 1 (the same
// bits: every term is di).
func AddOuterOnes(h []float64, dim int, di float64, idx []int32) {
	addOuterOnesRows(h, dim, di, idx, 0, len(idx))
}

func addOuterOnesRows(h []float64, dim int, di float64, idx []int32, qlo, qhi int) {
	q := qlo
	for ; q+3 < qhi; q += 4 {
		c0, c1, c2, c3 := int(idx[q]), int(idx[q+1]), int(idx[q+2]), int(idx[q+3])
		h0 := h[c0*dim : c0*dim+c0+1]
		h1 := h[c1*dim : c1*dim+c1+1]
		h2 := h[c2*dim : c2*dim+c2+1]
		h3 := h[c3*dim : c3*dim+c3+1]
		for _, j := range idx[:q+1] {
			h0[j] += di
			h1[j] += di
			h2[j] += di
			h3[j] += di
		}
		h1[c1] += di
		h2[c1] += di
		h3[c1] += di
		h2[c2] += di
		h3[c2] += di
		h3[c3] += di
	}
	for ; q < qhi; q++ {
		c := int(idx[q])
		hr := h[c*dim : c*dim+c+1]
		for _, j := range idx[:q+1] {
			hr[j] += di
		}
	}
}

// AddOuterAny is AddOuter for a row in any order, repeated indices
// allowed (a Dataset built by hand may have them): each pair is put in
// the lower triangle, and a repeated index counts for both of its orders.
func AddOuterAny[V FloatV](h []float64, dim int, di float64, idx []int32, x []V) {
	x = x[:len(idx)]
	for p, jp := range idx {
		vp := di * float64(x[p])
		h[int(jp)*dim+int(jp)] += float64(vp * float64(x[p]))
		for q := p + 1; q < len(idx); q++ {
			r, c := int(idx[q]), int(jp)
			v := float64(vp * float64(x[q]))
			if r < c {
				r, c = c, r
			} else if r == c {
				v *= 2
			}
			h[r*dim+c] += v
		}
	}
}

// Cholesky factors the symmetric positive definite dim×dim matrix whose
// lower triangle h holds, H = LLᵀ, into that lower triangle. It returns
// false if H is not numerically positive definite, or if poll (asked
// every few columns, when not nil) reports cancellation.
//
// The rows are computed in blocks of cholBlock: for each earlier row j,
// the block's rows take their dot products with row j while it is in
// cache, so the factor is read from memory once per block rather than
// once per row (at dim = 4096 the matrix is 128 MiB). Every entry is
// computed as by the plain row-by-row method, L_kj = (H_kj − Σ_{i<j} L_ki
// L_ji)/L_jj with the same four-way sums: the same bits.
func Cholesky(h []float64, dim int, poll func() bool) bool {
	var work int64
	for k0 := 0; k0 < dim; k0 += cholBlock {
		k1 := min(k0+cholBlock, dim)
		for j := 0; j < k1; j++ {
			rj := h[j*dim : j*dim+j+1]
			kk := max(j, k0)
			if kk == j {
				d := rj[j] - dot4(rj[:j], rj[:j])
				if !(d > 0) {
					return false
				}
				rj[j] = math.Sqrt(d)
				kk++
			}
			inv := 1 / rj[j]
			for k := kk; k < k1; k++ {
				rk := h[k*dim : k*dim+j+1]
				rk[j] = (rk[j] - dot4(rk[:j], rj[:j])) * inv
			}
			work += int64(k1-kk) * int64(j+1)
			if work >= cholPollWork && poll != nil {
				work = 0
				if poll() {
					return false
				}
			}
		}
	}
	return true
}

const (
	cholBlock    = 16
	cholPollWork = 1 << 22 // about a millisecond of the factorisation
)

// CholSolve solves H x = sign·b with the factor of Cholesky in h's lower
// triangle: L u = sign·b, then Lᵀ x = u. x must not alias b.
func CholSolve(h []float64, dim int, sign float64, b, x []float64) {
	for j := 0; j < dim; j++ {
		rj := h[j*dim : j*dim+j+1]
		x[j] = (float64(sign*b[j]) - dot(rj[:j], x[:j])) / rj[j]
	}
	for j := dim - 1; j >= 0; j-- {
		v := x[j]
		for k := j + 1; k < dim; k++ {
			v -= float64(h[k*dim+j] * x[k])
		}
		x[j] = v / h[j*dim+j]
	}
}

// formHessian sets p.h's lower triangle to I + Σ D_i x_i x_iᵀ (the
// bias's diagonal entry without the 1 with FreeBias) and returns false if
// cancelled. The rows of H are split among the caller and the spare
// processors of the pool (see the top of this file).
func (p *Problem) formHessian() bool {
	dim := p.Dim()
	if p.h == nil {
		p.h = make([]float64, dim*dim)
	}
	h := p.h
	clear(h)
	if p.order == 0 {
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
	var ops int64
	for i, di := range p.dc {
		if di != 0 {
			k := p.RP[i+1] - p.RP[i]
			ops += k * (k + 1) / 2
		}
	}
	p.Ops += ops
	var abort atomic.Bool
	parts := 1
	helpers := 0
	if p.order == 1 && ops >= p.tune.HessianParallelOps {
		helpers = p.Pool.Take(p.tune.HessianMaxParts - 1)
		parts += helpers
	}
	split := p.hessianSplit(parts)
	run := func(k int, caller bool) {
		lo, hi := split[k], split[k+1]
		if p.order != 1 {
			p.hessianAny(&abort)
			return
		}
		if p.Val32 == nil {
			hessianRows(p, p.Val, lo, hi, caller, &abort)
		} else {
			hessianRows(p, p.Val32, lo, hi, caller, &abort)
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
	// The regulariser: 1 on the diagonal, but for a free bias weight,
	// whose entry is Σ D_i B² (if that is 0, so is its whole row and the
	// gradient's entry: any value ≠ 0 gives the step 0 there).
	for j := 0; j < dim; j++ {
		if j < p.NF || !p.FreeBias {
			h[j*dim+j]++
		}
	}
	if p.FreeBias && h[p.NF*dim+p.NF] == 0 {
		h[p.NF*dim+p.NF] = 1
	}
	return true
}

// hessianSplit returns parts+1 boundaries of the rows of H with about
// equal work each, from the work of every row over all examples (counted
// once per problem: it does not change with D).
func (p *Problem) hessianSplit(parts int) []int {
	dim := p.Dim()
	split := make([]int, parts+1)
	split[parts] = dim
	if parts == 1 {
		return split
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
		split[k] = c
	}
	return split
}

// hessianRows adds the entries of H's rows [lo, hi) over every example
// with D_i ≠ 0 (rows in increasing order of index), the bias row
// included if it is in the range. Every Tuning.PollWork operations the
// caller polls p.Poll and a helper checks p.Done; either sets abort on
// cancellation, and stops when abort is set.
func hessianRows[V FloatV](p *Problem, val []V, lo, hi int, caller bool, abort *atomic.Bool) {
	dim, nf := p.Dim(), p.NF
	h := p.h
	binary := p.binary == 1
	bias := p.Bias
	hasBias := bias != 0 && nf >= lo && nf < hi
	var work int64
	for i, di := range p.dc {
		if di == 0 {
			continue
		}
		a, b := p.RP[i], p.RP[i+1]
		idx, x := p.Idx[a:b:b], val[a:b:b]
		qlo, qhi := 0, len(idx)
		if lo > 0 || hi < nf {
			qlo = lowerBound(idx, int32(lo))
			qhi = qlo + lowerBound(idx[qlo:], int32(hi))
		}
		if qhi > qlo {
			if binary {
				addOuterOnesRows(h, dim, di, idx, qlo, qhi)
			} else {
				addOuterRows(h, dim, di, idx, x, qlo, qhi)
			}
			work += int64(qhi-qlo) * int64(qhi+qlo+1) / 2
		}
		if hasBias {
			bv := di * bias
			hr := h[nf*dim : nf*dim+nf+1]
			x = x[:len(idx)]
			for k, j := range idx {
				hr[j] += float64(bv * float64(x[k]))
			}
			hr[nf] += float64(bv * bias)
			work += int64(len(idx))
		}
		if work >= p.tune.PollWork {
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
func (p *Problem) hessianAny(abort *atomic.Bool) {
	dim, nf := p.Dim(), p.NF
	h := p.h
	var work int64
	for i, di := range p.dc {
		if di == 0 {
			continue
		}
		a, b := p.RP[i], p.RP[i+1]
		if p.Val32 == nil {
			AddOuterAny(h, dim, di, p.Idx[a:b], p.Val[a:b])
		} else {
			AddOuterAny(h, dim, di, p.Idx[a:b], p.Val32[a:b])
		}
		if p.Bias != 0 {
			bv := di * p.Bias
			for k := a; k < b; k++ {
				h[nf*dim+int(p.Idx[k])] += float64(bv * p.Value(k))
			}
			h[nf*dim+nf] += float64(bv * p.Bias)
		}
		work += (b - a) * (b - a + 1) / 2
		if work >= p.tune.PollWork {
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
	ok := Cholesky(p.h, dim, func() bool { return p.poll(true) })
	p.Ops += int64(dim) * int64(dim) * int64(dim) / 6
	return ok
}
