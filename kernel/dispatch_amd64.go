//go:build !purego

package kernel

import (
	"github.com/acfcd/acfcd/kernel/amd64"
	"github.com/klauspost/cpuid/v2"
)

// Dispatch flags, set by selectImpl: "avx2" sets useAVX2, "avx512" sets
// both, since it keeps the AVX2 code for the functions that have no
// AVX-512 version (measurements: docs/tuning.md). With neither set the
// generic loops run.
var useAVX2, useAVX512 bool

// archImpls returns the amd64 implementations, worst first, and whether
// the CPU runs them. cpuid reports the AVX features only if the OS saves
// the YMM / ZMM / opmask state (XGETBV).
func archImpls() []impl {
	avx2 := cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3)
	avx512 := avx2 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL)
	return []impl{
		{name: "avx2", supported: avx2, flags: []*bool{&useAVX2}},
		{name: "avx512", supported: avx512, flags: []*bool{&useAVX2, &useAVX512}},
	}
}

// Each function below dispatches one kernel. Before calling the assembly
// it checks the lengths that the assembly does not report, and it turns
// the assembly's ok=false into the same panic as the generic code.

func dot(idx []int32, val []float64, w []float64) float64 {
	if !useAVX2 {
		return dotGeneric(idx, val, w)
	}
	if len(val) < len(idx) {
		panic(valError("Dot", len(idx), len(val)))
	}
	var s float64
	var ok bool
	if useAVX512 {
		s, ok = amd64.DotAVX512(idx, val, w)
	} else {
		s, ok = amd64.DotAVX2(idx, val, w)
	}
	if !ok {
		panic(indexError("Dot", idx, len(w)))
	}
	return s
}

func axpy(a float64, idx []int32, val []float64, w []float64) {
	if !useAVX2 {
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

func sqNorm(val []float64) float64 {
	if useAVX512 {
		return amd64.SqNormAVX512(val)
	}
	if useAVX2 {
		return amd64.SqNormAVX2(val)
	}
	return sqNormGeneric(val)
}

func dot32(idx []int32, val []float32, w []float64) float64 {
	if !useAVX2 {
		return dot32Generic(idx, val, w)
	}
	if len(val) < len(idx) {
		panic(valError("Dot32", len(idx), len(val)))
	}
	var s float64
	var ok bool
	if useAVX512 {
		s, ok = amd64.Dot32AVX512(idx, val, w)
	} else {
		s, ok = amd64.Dot32AVX2(idx, val, w)
	}
	if !ok {
		panic(indexError("Dot32", idx, len(w)))
	}
	return s
}

func axpy32(a float64, idx []int32, val []float32, w []float64) {
	if !useAVX2 {
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

func dotK(idx []int32, val []float64, W []float64, K int, out []float64) {
	if !useAVX2 {
		dotKGeneric(idx, val, W, K, out)
		return
	}
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

func axpyK(coef []float64, idx []int32, val []float64, W []float64, K int) {
	if !useAVX2 {
		axpyKGeneric(coef, idx, val, W, K)
		return
	}
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
