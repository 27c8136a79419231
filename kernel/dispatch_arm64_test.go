//go:build !purego

package kernel

import "github.com/acfcd/acfcd/kernel/arm64"

// codeTable is the code each function runs under each arm64
// implementation, as the package doc's table states it.
func codeTable(in *tableInput) map[string]map[string]func() []float64 {
	generic := in.generic()
	return map[string]map[string]func() []float64{"neon": {
		"Dot":    in.dot(arm64.DotNEON),
		"Axpy":   in.axpy(arm64.AxpyNEON),
		"SqNorm": in.sqNorm(arm64.SqNormNEON),
		"Dot32":  in.dot32(arm64.Dot32NEON),
		"Axpy32": in.axpy32(arm64.Axpy32NEON),
		"DotK":   generic["DotK"],
		"AxpyK":  generic["AxpyK"],
	}}
}
