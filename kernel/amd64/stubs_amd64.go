//go:build !purego

package amd64

// AVX2 + FMA3 kernels.

// DotAVX2 returns ok=false, without reading w out of bounds, if some
// idx[k] is outside [0, len(w)); otherwise it returns
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		s += val[k] * w[idx[k]]
//	}
//
// computed with VGATHERQPD (its mask is the range check, so an
// out-of-range lane is never loaded) and four 4-lane FMA accumulators.
//
//go:noescape
func DotAVX2(idx []int32, val []float64, w []float64) (s float64, ok bool)

// AxpyAVX2 does
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		w[idx[k]] += a * val[k]
//	}
//
// and returns ok=false when it meets an idx[k] outside [0, len(w)),
// having updated w for the indices before it. The products are computed
// four at a time with VMULPD and added one by one, so the result is bit
// for bit the Go loop's, repeated indices included.
//
//go:noescape
func AxpyAVX2(a float64, idx []int32, val []float64, w []float64) (ok bool)

// SqNormAVX2 returns
//
//	for _, v := range val {
//		s += v * v
//	}
//
// with four 4-lane FMA accumulators.
//
//go:noescape
func SqNormAVX2(val []float64) (s float64)

// Dot32AVX2 is DotAVX2 for float32 values:
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		s += float64(val[k]) * w[idx[k]]
//	}
//
//go:noescape
func Dot32AVX2(idx []int32, val []float32, w []float64) (s float64, ok bool)

// Axpy32AVX2 is AxpyAVX2 for float32 values:
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		w[idx[k]] += a * float64(val[k])
//	}
//
// Like AxpyAVX2 it is bit for bit the Go loop.
//
//go:noescape
func Axpy32AVX2(a float64, idx []int32, val []float32, w []float64) (ok bool)

// DotKAVX2 is, for 1 <= K <= len(out) (else it returns ok=false at once),
//
//	n := min(len(idx), len(val))
//	clear(out[:K])
//	for k := 0; k < n; k++ {
//		for c := 0; c < K; c++ {
//			out[c] += val[k] * W[int(idx[k])*K+c]
//		}
//	}
//
// returning ok=false, without touching memory outside the slices, when
// some idx[k] is outside [0, len(W)/K); out[:K] is then undefined. It runs
// over the columns in blocks of 16 kept in registers, with FMA.
//
//go:noescape
func DotKAVX2(idx []int32, val []float64, W []float64, K int, out []float64) (ok bool)

// AxpyKAVX2 is, for 1 <= K <= len(coef) (else it returns ok=false at
// once),
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		for c := 0; c < K; c++ {
//			W[int(idx[k])*K+c] += coef[c] * val[k]
//		}
//	}
//
// returning ok=false when some idx[k] is outside [0, len(W)/K), having
// updated the rows before it in the blocks of columns done so far. It
// runs over the columns in blocks of 16, rounding the products before the
// add as the Go loop does, so the result is bit for bit the same.
//
//go:noescape
func AxpyKAVX2(coef []float64, idx []int32, val []float64, W []float64, K int) (ok bool)

// AVX-512 (F + VL) kernels.

// DotAVX512 is DotAVX2 with an 8-lane VGATHERDPD (masked by an unsigned
// compare of the indices with len(w)), four 8-lane accumulators and a
// masked tail.
//
//go:noescape
func DotAVX512(idx []int32, val []float64, w []float64) (s float64, ok bool)

// Dot32AVX512 is Dot32AVX2 done like DotAVX512.
//
//go:noescape
func Dot32AVX512(idx []int32, val []float32, w []float64) (s float64, ok bool)

// SqNormAVX512 is SqNormAVX2 with 8-lane vectors and a masked tail.
//
//go:noescape
func SqNormAVX512(val []float64) (s float64)
