//go:build !purego

package kernel

import (
	"github.com/acfcd/acfcd/kernel/amd64"
	"github.com/klauspost/cpuid/v2"
)

// CPU capabilities, read once from cpuid at start-up. cpuid reports the
// AVX features only if the OS saves the YMM / ZMM / opmask state (XGETBV).
var (
	useAVX2   = cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3)
	useAVX512 = useAVX2 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL)
)

// archImpls returns the amd64 implementations this CPU can run, worst
// first.
func archImpls() []*Impl {
	var out []*Impl
	if useAVX2 {
		out = append(out, avx2Impl)
	}
	if useAVX512 {
		out = append(out, avx512Impl)
	}
	return out
}

var avx2Impl = &Impl{
	Name:   "avx2",
	Dot:    dotAVX2,
	Axpy:   axpyAVX2,
	SqNorm: amd64.SqNormAVX2,
	Dot32:  dot32AVX2,
	Axpy32: axpy32AVX2,
	DotK:   dotKAVX2,
	AxpyK:  axpyKAVX2,
}

// avx512Impl differs from avx2Impl only where AVX-512 measured faster:
// the gathers of Dot and Dot32 (8 lanes) and SqNorm. Axpy stays AVX2: an
// 8-lane gather/FMA/VSCATTERDPD version was no faster.
var avx512Impl = &Impl{
	Name:   "avx512",
	Dot:    dotAVX512,
	Axpy:   axpyAVX2,
	SqNorm: amd64.SqNormAVX512,
	Dot32:  dot32AVX512,
	Axpy32: axpy32AVX2,
	DotK:   dotKAVX2,
	AxpyK:  axpyKAVX2,
}

// The wrappers check the lengths the assembly does not report, and turn
// its ok=false into the same panic as the generic code.
//
// When w is longer than vectorMaxLen (1<<20 elements, 8 MiB) they call the
// generic loop instead. Beyond that size w outgrows the L2 and the reach
// of the second-level TLB, the accesses wait on L3 and DRAM, and there
// the plain in-order loop measured 15-30% faster than the gathers (and
// than the batched Axpy) at 2M, 4M, 8M and 16M elements, with 4 KiB and
// 2 MiB pages alike; at 1<<20 elements the vector code still wins by about
// 15%.

func dotAVX2(idx []int32, val []float64, w []float64) float64 {
	if len(w) > vectorMaxLen {
		return dotGeneric(idx, val, w)
	}
	if len(val) < len(idx) {
		panic(valError("Dot", len(idx), len(val)))
	}
	s, ok := amd64.DotAVX2(idx, val, w)
	if !ok {
		panic(indexError("Dot", idx, len(w)))
	}
	return s
}

func axpyAVX2(a float64, idx []int32, val []float64, w []float64) {
	if len(w) > vectorMaxLen {
		axpyGeneric(a, idx, val, w)
		return
	}
	if len(val) < len(idx) {
		panic(valError("Axpy", len(idx), len(val)))
	}
	if !amd64.AxpyAVX2(a, idx, val, w) {
		panic(indexError("Axpy", idx, len(w)))
	}
}

func dot32AVX2(idx []int32, val []float32, w []float64) float64 {
	if len(w) > vectorMaxLen {
		return dot32Generic(idx, val, w)
	}
	if len(val) < len(idx) {
		panic(valError("Dot32", len(idx), len(val)))
	}
	s, ok := amd64.Dot32AVX2(idx, val, w)
	if !ok {
		panic(indexError("Dot32", idx, len(w)))
	}
	return s
}

func axpy32AVX2(a float64, idx []int32, val []float32, w []float64) {
	if len(w) > vectorMaxLen {
		axpy32Generic(a, idx, val, w)
		return
	}
	if len(val) < len(idx) {
		panic(valError("Axpy32", len(idx), len(val)))
	}
	if !amd64.Axpy32AVX2(a, idx, val, w) {
		panic(indexError("Axpy32", idx, len(w)))
	}
}

func dotAVX512(idx []int32, val []float64, w []float64) float64 {
	if len(w) > vectorMaxLen {
		return dotGeneric(idx, val, w)
	}
	if len(val) < len(idx) {
		panic(valError("Dot", len(idx), len(val)))
	}
	s, ok := amd64.DotAVX512(idx, val, w)
	if !ok {
		panic(indexError("Dot", idx, len(w)))
	}
	return s
}

func dot32AVX512(idx []int32, val []float32, w []float64) float64 {
	if len(w) > vectorMaxLen {
		return dot32Generic(idx, val, w)
	}
	if len(val) < len(idx) {
		panic(valError("Dot32", len(idx), len(val)))
	}
	s, ok := amd64.Dot32AVX512(idx, val, w)
	if !ok {
		panic(indexError("Dot32", idx, len(w)))
	}
	return s
}

func dotKAVX2(idx []int32, val []float64, W []float64, K int, out []float64) {
	if uint(K) > uint(len(out)) {
		panic(kError("DotK", "out", K, len(out)))
	}
	if len(val) < len(idx) {
		panic(valError("DotK", len(idx), len(val)))
	}
	if K == 0 {
		return
	}
	if !amd64.DotKAVX2(idx, val, W, K, out) {
		panic(indexError("DotK", idx, len(W)/K))
	}
}

func axpyKAVX2(coef []float64, idx []int32, val []float64, W []float64, K int) {
	if uint(K) > uint(len(coef)) {
		panic(kError("AxpyK", "coef", K, len(coef)))
	}
	if len(val) < len(idx) {
		panic(valError("AxpyK", len(idx), len(val)))
	}
	if K == 0 {
		return
	}
	if !amd64.AxpyKAVX2(coef, idx, val, W, K) {
		panic(indexError("AxpyK", idx, len(W)/K))
	}
}
