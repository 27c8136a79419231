// Package rows is the row view of a dataset that the problems over
// examples (the duals, the multi-class SVMs) and their finishers share:
// CSR arrays with float64 or float32 values and an implicit bias feature.
package rows

import (
	"unsafe"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
)

// Rows are the examples of a dataset as CSR arrays. Row i holds the
// entries RP[i] ≤ k < RP[i+1]; its values are Val[k], or Val32[k] when
// the dataset stores float32 (Val is nil then). With a bias, every row has
// an extra feature NF of value Bias; Bias is 0 without one (a bias feature
// of value 0 adds nothing).
type Rows struct {
	RP    []int64
	Idx   []int32
	Val   []float64
	Val32 []float32
	N, NF int
	Bias  float64
}

// New returns the rows of d with bias B (B < 0: none).
func New(d *dataio.Dataset, bias float64) Rows {
	r := Rows{RP: d.RowPtr, Idx: d.Index, Val: d.Value, Val32: d.Value32, N: d.Rows, NF: d.Features}
	if d.Value != nil {
		r.Val32 = nil
	}
	if bias >= 0 {
		r.Bias = bias
	}
	return r
}

// Value returns the k-th stored value as float64.
func (r *Rows) Value(k int64) float64 {
	if r.Val32 == nil {
		return r.Val[k]
	}
	return float64(r.Val32[k])
}

// NNZ returns the non-zeros of all rows, the bias feature included.
func (r *Rows) NNZ() int64 {
	nnz := r.RP[r.N]
	if r.Bias != 0 {
		nnz += int64(r.N)
	}
	return nnz
}

// SqNorm returns ‖x_i‖² + B², the same bits however often it is called.
func (r *Rows) SqNorm(i int32) float64 {
	a, b := r.RP[i], r.RP[i+1]
	if r.Val32 == nil {
		return kernel.SqNorm(r.Val[a:b:b]) + float64(r.Bias*r.Bias)
	}
	var q float64
	for _, v := range r.Val32[a:b:b] {
		q += float64(float64(v) * float64(v))
	}
	return q + float64(r.Bias*r.Bias)
}

// Prefetch asks for row i's indices and values ahead of use: rows are
// visited in random order, so without it every step starts with a cache
// miss.
func (r *Rows) Prefetch(i int32) {
	a, b := r.RP[i], r.RP[i+1]
	if b > a {
		if r.Val32 == nil {
			prefetchRow(unsafe.Pointer(&r.Idx[a]), uintptr(b-a)*4, unsafe.Pointer(&r.Val[a]), uintptr(b-a)*8)
		} else {
			prefetchRow(unsafe.Pointer(&r.Idx[a]), uintptr(b-a)*4, unsafe.Pointer(&r.Val32[a]), uintptr(b-a)*4)
		}
	}
}

// PrefetchSpan asks for the first entries of a sparse vector stored as
// idx and val ahead of use (package l1's columns, visited in random
// order); the hardware prefetcher follows a long one on its own.
func PrefetchSpan(idx []int32, val []float64) {
	if n := min(len(idx), len(val), 16); n > 0 {
		prefetchRow(unsafe.Pointer(&idx[0]), uintptr(n)*4, unsafe.Pointer(&val[0]), uintptr(n)*8)
	}
}

// PrefetchBytes asks for the n bytes at p ahead of use.
func PrefetchBytes(p unsafe.Pointer, n uintptr) { prefetchRow(p, n, p, 0) }
