// Package dense is the dense linear algebra of the Newton solvers
// (package primal) and the interior-point methods (package finish): the
// lower triangle of a symmetric matrix formed from sparse rows, its
// Cholesky factor and the solve. Every entry has a fixed order of terms,
// whatever the split of the work: the same bits at any number of
// goroutines.
package dense

import (
	"math"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/procs"
)

// Matrices are dim×dim, row-major, with only the lower triangle used:
// row c holds the entries j ≤ c.

// FloatV is a stored value type, float32 or float64.
type FloatV interface{ ~float32 | ~float64 }

// AddOuter adds di·x xᵀ to the lower triangle of the dim×dim row-major h
// for a row x with strictly increasing indices idx. Four rows of h are
// filled together, so that each index and value loaded serves four
// updates; every entry still gets one term, (di·x_j)·x_c.
func AddOuter[V FloatV](h []float64, dim int, di float64, idx []int32, x []V) {
	AddOuterRows(h, dim, di, idx, x, 0, len(idx))
}

// AddOuterRows is AddOuter for the rows of h named by idx[qlo:qhi]: the
// terms (di·x_p)·x_q for p ≤ q, qlo ≤ q < qhi.
func AddOuterRows[V FloatV](h []float64, dim int, di float64, idx []int32, x []V, qlo, qhi int) {
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
	AddOuterOnesRows(h, dim, di, idx, 0, len(idx))
}

// AddOuterOnesRows is AddOuterOnes for the rows of h named by idx[qlo:qhi].
func AddOuterOnesRows(h []float64, dim int, di float64, idx []int32, qlo, qhi int) {
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
// after every block of rows once about 2²² operations have passed, when
// not nil) reports cancellation.
//
// The rows are computed in blocks of cholBlock: for each earlier row j,
// the block's rows take their dot products with row j while it is in
// cache, so the factor is read from memory once per block rather than
// once per row (at dim = 4096 the matrix is 128 MiB). Every entry is
// computed as by the plain row-by-row method, L_kj = (H_kj − Σ_{i<j} L_ki
// L_ji)/L_jj with the same four-way sums: the same bits. The block's
// entries left of it, most of the work, are independent from row to row:
// with pool (and at least parallel operations) its rows are shared with
// the spare processors.
func Cholesky(h []float64, dim int, poll func() bool, pool *procs.Pool, parallel int64) bool {
	var work int64
	par := pool != nil && int64(dim)*int64(dim)*int64(dim)/6 >= parallel
	for k0 := 0; k0 < dim; k0 += cholBlock {
		k1 := min(k0+cholBlock, dim)
		if k0 > 0 {
			// Left of the block: rows [k0, k1) against the finished rows
			// [0, k0).
			helpers := 0
			if par {
				helpers = pool.Take(cholParts - 1)
			}
			if helpers == 0 {
				cholRows(h, dim, k0, k0, k1)
			} else {
				parts := helpers + 1
				var next atomic.Int64
				pool.Run(helpers, func(bool) {
					for {
						q := int(next.Add(1) - 1)
						if q >= parts {
							return
						}
						cholRows(h, dim, k0, k0+(k1-k0)*q/parts, k0+(k1-k0)*(q+1)/parts)
					}
				}, func() { next.Store(int64(parts)) })
			}
			work += int64(k1-k0) * int64(k0) * int64(k0) / 2
		}
		// The block's own triangle.
		for j := k0; j < k1; j++ {
			rj := h[j*dim : j*dim+j+1]
			d := rj[j] - Dot4(rj[:j], rj[:j])
			if !(d > 0) {
				return false
			}
			rj[j] = math.Sqrt(d)
			inv := 1 / rj[j]
			for k := j + 1; k < k1; k++ {
				rk := h[k*dim : k*dim+j+1]
				rk[j] = (rk[j] - Dot4(rk[:j], rj[:j])) * inv
			}
			work += int64(k1-j) * int64(j+1)
		}
		if work >= cholPollWork && poll != nil {
			work = 0
			if poll() {
				return false
			}
		}
	}
	return true
}

// cholRows computes L_kj for the rows k0 ≤ k < k1 and the columns j < jmax
// of the finished rows.
func cholRows(h []float64, dim, jmax, k0, k1 int) {
	for j := 0; j < jmax; j++ {
		rj := h[j*dim : j*dim+j+1]
		inv := 1 / rj[j]
		for k := k0; k < k1; k++ {
			rk := h[k*dim : k*dim+j+1]
			rk[j] = (rk[j] - Dot4(rk[:j], rj[:j])) * inv
		}
	}
}

const (
	cholBlock    = 16
	cholParts    = 2
	cholPollWork = 1 << 22 // about a millisecond of the factorisation
)

// CholSolve solves H x = sign·b with the factor of Cholesky in h's lower
// triangle: L u = sign·b, then Lᵀ x = u. x must not alias b.
func CholSolve(h []float64, dim int, sign float64, b, x []float64) {
	for j := 0; j < dim; j++ {
		rj := h[j*dim : j*dim+j+1]
		x[j] = (float64(sign*b[j]) - Dot(rj[:j], x[:j])) / rj[j]
	}
	for j := dim - 1; j >= 0; j-- {
		v := x[j]
		for k := j + 1; k < dim; k++ {
			v -= float64(h[k*dim+j] * x[k])
		}
		x[j] = v / h[j*dim+j]
	}
}

// Dot4 returns aᵀb with four running sums (b at least as long as a),
// element k in sum k mod 4.
func Dot4(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	n := len(a) &^ 3
	i := 0
	// Eight at a time, each sum still taking its elements in order: the
	// bits of the four-at-a-time loop at half its loop overhead.
	for ; i+8 <= n; i += 8 {
		x, y := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += float64(x[0] * y[0])
		s1 += float64(x[1] * y[1])
		s2 += float64(x[2] * y[2])
		s3 += float64(x[3] * y[3])
		s0 += float64(x[4] * y[4])
		s1 += float64(x[5] * y[5])
		s2 += float64(x[6] * y[6])
		s3 += float64(x[7] * y[7])
	}
	for ; i < n; i += 4 {
		x, y := a[i:i+4:i+4], b[i:i+4:i+4]
		s0 += float64(x[0] * y[0])
		s1 += float64(x[1] * y[1])
		s2 += float64(x[2] * y[2])
		s3 += float64(x[3] * y[3])
	}
	for i := n; i < len(a); i++ {
		s0 += float64(a[i] * b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// Dot returns aᵀb in index order.
func Dot(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i := range a {
		s += float64(a[i] * b[i])
	}
	return s
}
