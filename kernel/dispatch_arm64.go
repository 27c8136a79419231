//go:build !purego

package kernel

import (
	"github.com/acfcd/acfcd/kernel/arm64"
	"github.com/klauspost/cpuid/v2"
)

// useNEON is read once from cpuid at start-up. AdvSIMD is part of the
// ARMv8-A base that Go requires, so this fails only if detection does.
var useNEON = cpuid.CPU.Supports(cpuid.ASIMD, cpuid.FP)

// archImpls returns the arm64 implementations this CPU can run.
func archImpls() []*Impl {
	if useNEON {
		return []*Impl{neonImpl}
	}
	return nil
}

// The multi-class forms stay generic on arm64: their inner loop over K is
// already a dense, unit-stride loop.
var neonImpl = &Impl{
	Name:   "neon",
	Dot:    dotNEON,
	Axpy:   axpyNEON,
	SqNorm: arm64.SqNormNEON,
	Dot32:  dot32NEON,
	Axpy32: axpy32NEON,
	DotK:   dotKGeneric,
	AxpyK:  axpyKGeneric,
}

// The wrappers check the lengths the assembly does not report, and turn
// its ok=false into the same panic as the generic code.

func dotNEON(idx []int32, val []float64, w []float64) float64 {
	if len(val) < len(idx) {
		panic(valError("Dot", len(idx), len(val)))
	}
	s, ok := arm64.DotNEON(idx, val, w)
	if !ok {
		panic(indexError("Dot", idx, len(w)))
	}
	return s
}

func axpyNEON(a float64, idx []int32, val []float64, w []float64) {
	if len(val) < len(idx) {
		panic(valError("Axpy", len(idx), len(val)))
	}
	if !arm64.AxpyNEON(a, idx, val, w) {
		panic(indexError("Axpy", idx, len(w)))
	}
}

func dot32NEON(idx []int32, val []float32, w []float64) float64 {
	if len(val) < len(idx) {
		panic(valError("Dot32", len(idx), len(val)))
	}
	s, ok := arm64.Dot32NEON(idx, val, w)
	if !ok {
		panic(indexError("Dot32", idx, len(w)))
	}
	return s
}

func axpy32NEON(a float64, idx []int32, val []float32, w []float64) {
	if len(val) < len(idx) {
		panic(valError("Axpy32", len(idx), len(val)))
	}
	if !arm64.Axpy32NEON(a, idx, val, w) {
		panic(indexError("Axpy32", idx, len(w)))
	}
}
