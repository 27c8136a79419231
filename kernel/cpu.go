package kernel

import (
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// relevantFeatures are the cpuid features the kernels (or their absence)
// depend on, in the order CPUFeatures prints them.
var relevantFeatures = []cpuid.FeatureID{
	cpuid.SSE2, cpuid.AVX, cpuid.AVX2, cpuid.FMA3,
	cpuid.AVX512F, cpuid.AVX512VL, cpuid.AVX512DQ, cpuid.AVX512BW, cpuid.AVX512CD,
	cpuid.ASIMD, cpuid.FP, cpuid.SVE,
}

// CPUFeatures describes the CPU as the kernels see it: the relevant
// features that cpuid reports (e.g. "SSE2 AVX AVX2 FMA3 AVX512F ...")
// followed by the brand string in parentheses, for `acfcd version`.
func CPUFeatures() string {
	var f []string
	for _, id := range relevantFeatures {
		if cpuid.CPU.Supports(id) {
			f = append(f, id.String())
		}
	}
	s := strings.Join(f, " ")
	if s == "" {
		s = "no SIMD features detected"
	}
	brand := strings.TrimSpace(cpuid.CPU.BrandName)
	if brand == "" {
		brand = "unknown CPU"
	}
	return s + " (" + brand + ")"
}
