package kernel

// The generic loops are the definitions the other implementations are
// tested against, and they run whenever no other is selected.

// dotGeneric returns Σ val[k]·w[idx[k]].
func dotGeneric(idx []int32, val []float64, w []float64) float64 {
	if len(val) < len(idx) {
		panic(valError("Dot", len(idx), len(val)))
	}
	val = val[:len(idx)]
	var s float64
	for k, j := range idx {
		if uint(int(j)) >= uint(len(w)) {
			panic(indexErrorAt("Dot", idx, k, len(w)))
		}
		s += val[k] * w[j]
	}
	return s
}

// axpyGeneric does w[idx[k]] += a·val[k].
func axpyGeneric(a float64, idx []int32, val []float64, w []float64) {
	if len(val) < len(idx) {
		panic(valError("Axpy", len(idx), len(val)))
	}
	val = val[:len(idx)]
	for k, j := range idx {
		if uint(int(j)) >= uint(len(w)) {
			panic(indexErrorAt("Axpy", idx, k, len(w)))
		}
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

// dot32Generic returns Σ float64(val[k])·w[idx[k]].
func dot32Generic(idx []int32, val []float32, w []float64) float64 {
	if len(val) < len(idx) {
		panic(valError("Dot32", len(idx), len(val)))
	}
	val = val[:len(idx)]
	var s float64
	for k, j := range idx {
		if uint(int(j)) >= uint(len(w)) {
			panic(indexErrorAt("Dot32", idx, k, len(w)))
		}
		s += float64(val[k]) * w[j]
	}
	return s
}

// axpy32Generic does w[idx[k]] += a·float64(val[k]).
func axpy32Generic(a float64, idx []int32, val []float32, w []float64) {
	if len(val) < len(idx) {
		panic(valError("Axpy32", len(idx), len(val)))
	}
	val = val[:len(idx)]
	for k, j := range idx {
		if uint(int(j)) >= uint(len(w)) {
			panic(indexErrorAt("Axpy32", idx, k, len(w)))
		}
		w[j] += a * float64(val[k])
	}
}

// dotKGeneric sets out[c] = Σ_k val[k]·W[idx[k]*K+c] for c < K.
func dotKGeneric(idx []int32, val []float64, W []float64, K int, out []float64) {
	if uint(K) > uint(len(out)) {
		panic(kError("DotK", "out", K, len(out)))
	}
	if len(val) < len(idx) {
		panic(valError("DotK", len(idx), len(val)))
	}
	out = out[:K]
	clear(out)
	if K == 0 {
		return
	}
	rows := len(W) / K
	val = val[:len(idx)]
	for k, j := range idx {
		if uint(int(j)) >= uint(rows) {
			panic(indexErrorAt("DotK", idx, k, rows))
		}
		row := W[int(j)*K : int(j)*K+K]
		v := val[k]
		for c, x := range row {
			out[c] += v * x
		}
	}
}

// axpyKGeneric does W[idx[k]*K+c] += coef[c]·val[k].
func axpyKGeneric(coef []float64, idx []int32, val []float64, W []float64, K int) {
	if uint(K) > uint(len(coef)) {
		panic(kError("AxpyK", "coef", K, len(coef)))
	}
	if len(val) < len(idx) {
		panic(valError("AxpyK", len(idx), len(val)))
	}
	if K == 0 {
		return
	}
	coef = coef[:K]
	rows := len(W) / K
	val = val[:len(idx)]
	for k, j := range idx {
		if uint(int(j)) >= uint(rows) {
			panic(indexErrorAt("AxpyK", idx, k, rows))
		}
		row := W[int(j)*K : int(j)*K+K]
		v := val[k]
		for c, x := range coef {
			row[c] += x * v
		}
	}
}
