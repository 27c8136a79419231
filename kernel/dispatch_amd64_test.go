//go:build !purego

package kernel

import "github.com/acfcd/acfcd/kernel/amd64"

// codeTable is the code each function runs under each amd64
// implementation, as the package doc's table states it.
func codeTable(in *tableInput) map[string]map[string]func() []float64 {
	avx2 := map[string]func() []float64{
		"Dot":    in.dot(amd64.DotAVX2),
		"Axpy":   in.axpy(amd64.AxpyAVX2),
		"SqNorm": in.sqNorm(amd64.SqNormAVX2),
		"Dot32":  in.dot32(amd64.Dot32AVX2),
		"Axpy32": in.axpy32(amd64.Axpy32AVX2),
		"DotK":   in.dotK(amd64.DotKAVX2),
		"AxpyK":  in.axpyK(amd64.AxpyKAVX2),
	}
	avx512 := map[string]func() []float64{
		"Dot":    in.dot(amd64.DotAVX512),
		"Axpy":   avx2["Axpy"],
		"SqNorm": in.sqNorm(amd64.SqNormAVX512),
		"Dot32":  in.dot32(amd64.Dot32AVX512),
		"Axpy32": avx2["Axpy32"],
		"DotK":   avx2["DotK"],
		"AxpyK":  avx2["AxpyK"],
	}
	return map[string]map[string]func() []float64{"avx2": avx2, "avx512": avx512}
}
