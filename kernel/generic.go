package kernel

func init() {
	register(&Impl{Name: "generic", Dot: dotGeneric, Axpy: axpyGeneric, SqNorm: sqNormGeneric})
}

// dotGeneric returns Σ val[k]·w[idx[k]].
func dotGeneric(idx []int32, val []float64, w []float64) float64 {
	val = val[:len(idx)]
	var s float64
	for k, j := range idx {
		s += val[k] * w[j]
	}
	return s
}

// axpyGeneric does w[idx[k]] += a·val[k].
func axpyGeneric(a float64, idx []int32, val []float64, w []float64) {
	val = val[:len(idx)]
	for k, j := range idx {
		w[j] += a * val[k]
	}
}

// sqNormGeneric returns Σ val[k]².
func sqNormGeneric(val []float64) float64 {
	var s float64
	for _, v := range val {
		s += v * v
	}
	return s
}
