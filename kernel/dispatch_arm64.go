//go:build !purego

package kernel

import (
	"github.com/acfcd/acfcd/kernel/arm64"
	"github.com/klauspost/cpuid/v2"
)

// useNEON is the dispatch flag of "neon", set by selectImpl; when it is
// clear the generic loops run.
var useNEON bool

// archImpls returns the arm64 implementation and whether the CPU runs it.
// AdvSIMD is part of the ARMv8-A base that Go requires, so it is
// unsupported only if detection fails.
func archImpls() []impl {
	neon := cpuid.CPU.Supports(cpuid.ASIMD, cpuid.FP)
	return []impl{{name: "neon", supported: neon, flags: []*bool{&useNEON}}}
}

// Each function below dispatches one kernel. Before calling the assembly
// it checks the lengths that the assembly does not report, and it turns
// the assembly's ok=false into the same panic as the generic code.

func dot(idx []int32, val []float64, w []float64) float64 {
	if !useNEON {
		return dotGeneric(idx, val, w)
	}
	if len(val) < len(idx) {
		panic(valError("Dot", len(idx), len(val)))
	}
	s, ok := arm64.DotNEON(idx, val, w)
	if !ok {
		panic(indexError("Dot", idx, len(w)))
	}
	return s
}

func axpy(a float64, idx []int32, val []float64, w []float64) {
	if !useNEON {
		axpyGeneric(a, idx, val, w)
		return
	}
	if len(val) < len(idx) {
		panic(valError("Axpy", len(idx), len(val)))
	}
	if !arm64.AxpyNEON(a, idx, val, w) {
		panic(indexError("Axpy", idx, len(w)))
	}
}

func sqNorm(val []float64) float64 {
	if !useNEON {
		return sqNormGeneric(val)
	}
	return arm64.SqNormNEON(val)
}

func dot32(idx []int32, val []float32, w []float64) float64 {
	if !useNEON {
		return dot32Generic(idx, val, w)
	}
	if len(val) < len(idx) {
		panic(valError("Dot32", len(idx), len(val)))
	}
	s, ok := arm64.Dot32NEON(idx, val, w)
	if !ok {
		panic(indexError("Dot32", idx, len(w)))
	}
	return s
}

func axpy32(a float64, idx []int32, val []float32, w []float64) {
	if !useNEON {
		axpy32Generic(a, idx, val, w)
		return
	}
	if len(val) < len(idx) {
		panic(valError("Axpy32", len(idx), len(val)))
	}
	if !arm64.Axpy32NEON(a, idx, val, w) {
		panic(indexError("Axpy32", idx, len(w)))
	}
}

// The multi-class forms stay generic on arm64: their inner loop over K is
// already a dense, unit-stride loop.

func dotK(idx []int32, val []float64, W []float64, K int, out []float64) {
	dotKGeneric(idx, val, W, K, out)
}

func axpyK(coef []float64, idx []int32, val []float64, W []float64, K int) {
	axpyKGeneric(coef, idx, val, W, K)
}
