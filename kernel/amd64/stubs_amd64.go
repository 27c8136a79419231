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
// in package kernel's order (lane k mod 8 of eight FMA partial sums, two
// 4-lane accumulators, then a fixed tree), computed with VGATHERQPD (its
// mask is the range check, so an out-of-range lane is never loaded); the
// result is bit for bit package kernel's generic one.
//
//go:noescape
func DotAVX2(idx []int32, val []float64, w []float64) (s float64, ok bool)

// AxpyAVX2 does
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		w[idx[k]] = math.FMA(a, val[k], w[idx[k]])
//	}
//
// and returns ok=false when it meets an idx[k] outside [0, len(w)),
// having updated w for the indices before it. One VFMADD231SD per
// element, in order, repeated indices included.
//
//go:noescape
func AxpyAVX2(a float64, idx []int32, val []float64, w []float64) (ok bool)

// SqNormAVX2 returns
//
//	for _, v := range val {
//		s += v * v
//	}
//
// in package kernel's order (lane k mod 8 of eight FMA partial sums, then
// a fixed tree).
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
//		w[idx[k]] = math.FMA(a, float64(val[k]), w[idx[k]])
//	}
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
// over the columns in blocks of 16 kept in registers, with FMA, adding the
// even and the odd k into two partial sums per column as package kernel's
// generic code does.
//
//go:noescape
func DotKAVX2(idx []int32, val []float64, W []float64, K int, out []float64) (ok bool)

// AxpyKAVX2 is, for 1 <= K <= len(coef) (else it returns ok=false at
// once),
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		for c := 0; c < K; c++ {
//			W[int(idx[k])*K+c] = math.FMA(coef[c], val[k], W[int(idx[k])*K+c])
//		}
//	}
//
// returning ok=false when some idx[k] is outside [0, len(W)/K), having
// updated the rows before it in the blocks of columns done so far. It
// runs over the columns in blocks of 16.
//
//go:noescape
func AxpyKAVX2(coef []float64, idx []int32, val []float64, W []float64, K int) (ok bool)

// AVX-512 (F + VL) kernels.

// DotAVX512 is DotAVX2 with an 8-lane VGATHERDPD (masked by an unsigned
// compare of the indices with len(w)), one 8-lane accumulator and a
// merge-masked last group: the same bits.
//
//go:noescape
func DotAVX512(idx []int32, val []float64, w []float64) (s float64, ok bool)

// Dot32AVX512 is Dot32AVX2 done like DotAVX512.
//
//go:noescape
func Dot32AVX512(idx []int32, val []float32, w []float64) (s float64, ok bool)

// SqNormAVX512 is SqNormAVX2 with one 8-lane accumulator: the same bits.
//
//go:noescape
func SqNormAVX512(val []float64) (s float64)
