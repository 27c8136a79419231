//go:build purego || !(amd64 || arm64)

package kernel

// Either the purego tag asked for pure Go or there is no assembly for this
// architecture: generic is the only implementation.

func archImpls() []impl { return nil }

func dot(idx []int32, val []float64, w []float64) float64 { return dotGeneric(idx, val, w) }

func axpy(a float64, idx []int32, val []float64, w []float64) { axpyGeneric(a, idx, val, w) }

func sqNorm(val []float64) float64 { return sqNormGeneric(val) }

func dot32(idx []int32, val []float32, w []float64) float64 { return dot32Generic(idx, val, w) }

func axpy32(a float64, idx []int32, val []float32, w []float64) { axpy32Generic(a, idx, val, w) }

func dotK(idx []int32, val []float64, W []float64, K int, out []float64) {
	dotKGeneric(idx, val, W, K, out)
}

func axpyK(coef []float64, idx []int32, val []float64, W []float64, K int) {
	axpyKGeneric(coef, idx, val, W, K)
}
