package amd64

// AVX2 + FMA3 kernels.

// DotAVX2 returns ok=false at once, without reading w out of bounds, if
// some idx[k] is outside [0, len(w)); otherwise it returns
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		s += val[k] * w[idx[k]]
//	}
//
// computed with VGATHERQPD and four 4-lane FMA accumulators.
//
//go:noescape
func DotAVX2(idx []int32, val []float64, w []float64) (s float64, ok bool)

// dotScalarAVX2 is DotAVX2 with scalar loads and four scalar FMA chains.
//
//go:noescape
func dotScalarAVX2(idx []int32, val []float64, w []float64) (s float64, ok bool)

// AxpyAVX2 does
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		w[idx[k]] += a * val[k]
//	}
//
// with one scalar FMA per element, and returns ok=false when it meets an
// idx[k] outside [0, len(w)), having updated w for the indices before it.
//
//go:noescape
func AxpyAVX2(a float64, idx []int32, val []float64, w []float64) (ok bool)

// axpyGatherAVX2 is AxpyAVX2 with a 4-lane gather, a vector FMA and four
// scalar stores per group of four.
//
//go:noescape
func axpyGatherAVX2(a float64, idx []int32, val []float64, w []float64) (ok bool)

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
