//go:build !purego

package arm64

// DotNEON returns ok=false, without reading w out of bounds, if some
// idx[k] is outside [0, len(w)); otherwise it returns
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		s += val[k] * w[idx[k]]
//	}
//
// in package kernel's order (lane k mod 8 of eight FMADDD partial sums,
// then a fixed tree): bit for bit the generic result.
//
//go:noescape
func DotNEON(idx []int32, val []float64, w []float64) (s float64, ok bool)

// AxpyNEON does
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		w[idx[k]] = math.FMA(a, val[k], w[idx[k]])
//	}
//
// with one FMADDD per element, and returns ok=false when it meets an
// idx[k] outside [0, len(w)), having updated w for the indices before it.
//
//go:noescape
func AxpyNEON(a float64, idx []int32, val []float64, w []float64) (ok bool)

// SqNormNEON returns
//
//	for _, v := range val {
//		s += v * v
//	}
//
// with four 2-lane VFMLA accumulators holding the eight partial sums of
// package kernel's order: bit for bit the generic result.
//
//go:noescape
func SqNormNEON(val []float64) (s float64)

// Dot32NEON is DotNEON for float32 values:
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		s += float64(val[k]) * w[idx[k]]
//	}
//
//go:noescape
func Dot32NEON(idx []int32, val []float32, w []float64) (s float64, ok bool)

// Axpy32NEON is AxpyNEON for float32 values:
//
//	n := min(len(idx), len(val))
//	for k := 0; k < n; k++ {
//		w[idx[k]] = math.FMA(a, float64(val[k]), w[idx[k]])
//	}
//
//go:noescape
func Axpy32NEON(a float64, idx []int32, val []float32, w []float64) (ok bool)
