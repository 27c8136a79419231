package kernel

import "math"

// The generic loops are the definitions the other implementations are
// tested against, bit for bit, and they run whenever no other is selected.
// Their order of operations is the one every implementation follows, so
// that a model's bits do not depend on the CPU (see the package comment):
//
//   - Dot, Dot32 and SqNorm add the k-th product into lane k mod 8 of eight
//     partial sums with a fused multiply-add, then combine the lanes as
//     ((s0+s4) + (s2+s6)) + ((s1+s5) + (s3+s7)): the order in which an
//     8-lane vector, or two 4-lane ones, or four 2-lane ones, reduce.
//   - Axpy and Axpy32 update w[idx[k]] = fma(a, val[k], w[idx[k]]) in order
//     of k.
//   - DotK adds row k into partial sum k mod 2 of each column with a fused
//     multiply-add and returns the two partial sums' sum; AxpyK updates
//     each element with one fused multiply-add.
//
// math.FMA is a single instruction on arm64 and on amd64 CPUs with FMA3.

// lanes is the number of partial sums of Dot, Dot32 and SqNorm.
const lanes = 8

// tree combines the eight partial sums in the fixed order.
func tree(s0, s1, s2, s3, s4, s5, s6, s7 float64) float64 {
	return ((s0 + s4) + (s2 + s6)) + ((s1 + s5) + (s3 + s7))
}

// dotGeneric returns Σ val[k]·w[idx[k]].
func dotGeneric(idx []int32, val []float64, w []float64) float64 { return dotOf("Dot", idx, val, w) }

// dot32Generic returns Σ float64(val[k])·w[idx[k]].
func dot32Generic(idx []int32, val []float32, w []float64) float64 {
	return dotOf("Dot32", idx, val, w)
}

// dotOf is the loop of Dot and Dot32 (op names the function in panics).
func dotOf[V float32 | float64](op string, idx []int32, val []V, w []float64) float64 {
	if len(val) < len(idx) {
		panic(valError(op, len(idx), len(val)))
	}
	val = val[:len(idx)]
	// Eight scalars, not an array, so that the compiler keeps them in
	// registers; the explicit range checks replace the compiler's.
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	n, k := uint(len(w)), 0
	for ; k+lanes <= len(idx); k += lanes {
		i, v := idx[k:k+lanes:k+lanes], val[k:k+lanes:k+lanes]
		j0, j1, j2, j3 := uint(int(i[0])), uint(int(i[1])), uint(int(i[2])), uint(int(i[3]))
		j4, j5, j6, j7 := uint(int(i[4])), uint(int(i[5])), uint(int(i[6])), uint(int(i[7]))
		if j0 >= n || j1 >= n || j2 >= n || j3 >= n || j4 >= n || j5 >= n || j6 >= n || j7 >= n {
			break // the loop below finds the bad index
		}
		s0 = math.FMA(float64(v[0]), w[j0], s0)
		s1 = math.FMA(float64(v[1]), w[j1], s1)
		s2 = math.FMA(float64(v[2]), w[j2], s2)
		s3 = math.FMA(float64(v[3]), w[j3], s3)
		s4 = math.FMA(float64(v[4]), w[j4], s4)
		s5 = math.FMA(float64(v[5]), w[j5], s5)
		s6 = math.FMA(float64(v[6]), w[j6], s6)
		s7 = math.FMA(float64(v[7]), w[j7], s7)
	}
	// The last 0..7 elements; after a break, the group with the bad index,
	// which panics before l reaches lanes.
	s := [lanes]float64{s0, s1, s2, s3, s4, s5, s6, s7}
	for l, j := range idx[k:] {
		if uint(int(j)) >= n {
			panic(indexErrorAt(op, idx, k+l, len(w)))
		}
		s[l] = math.FMA(float64(val[k+l]), w[j], s[l])
	}
	return tree(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
}

// axpyGeneric does w[idx[k]] = fma(a, val[k], w[idx[k]]).
func axpyGeneric(a float64, idx []int32, val []float64, w []float64) {
	axpyOf("Axpy", a, idx, val, w)
}

// axpy32Generic does w[idx[k]] = fma(a, float64(val[k]), w[idx[k]]).
func axpy32Generic(a float64, idx []int32, val []float32, w []float64) {
	axpyOf("Axpy32", a, idx, val, w)
}

// axpyOf is the loop of Axpy and Axpy32 (op names the function in panics).
func axpyOf[V float32 | float64](op string, a float64, idx []int32, val []V, w []float64) {
	if len(val) < len(idx) {
		panic(valError(op, len(idx), len(val)))
	}
	val = val[:len(idx)]
	for k, j := range idx {
		if uint(int(j)) >= uint(len(w)) {
			panic(indexErrorAt(op, idx, k, len(w)))
		}
		w[j] = math.FMA(a, float64(val[k]), w[j])
	}
}

// sqNormGeneric returns Σ val[k]².
func sqNormGeneric(val []float64) float64 {
	var s0, s1, s2, s3, s4, s5, s6, s7 float64
	k := 0
	for ; k+lanes <= len(val); k += lanes {
		v := val[k : k+lanes : k+lanes]
		s0 = math.FMA(v[0], v[0], s0)
		s1 = math.FMA(v[1], v[1], s1)
		s2 = math.FMA(v[2], v[2], s2)
		s3 = math.FMA(v[3], v[3], s3)
		s4 = math.FMA(v[4], v[4], s4)
		s5 = math.FMA(v[5], v[5], s5)
		s6 = math.FMA(v[6], v[6], s6)
		s7 = math.FMA(v[7], v[7], s7)
	}
	s := [lanes]float64{s0, s1, s2, s3, s4, s5, s6, s7}
	for l, v := range val[k:] {
		s[l] = math.FMA(v, v, s[l])
	}
	return tree(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
}

// dotKBlock is the number of columns dotKGeneric sums at a time, in two
// partial sums each kept on the stack.
const dotKBlock = 16

// dotKGeneric sets out[c] = Σ_k val[k]·W[idx[k]*K+c] for c < K.
func dotKGeneric(idx []int32, val []float64, W []float64, K int, out []float64) {
	if uint(K) > uint(len(out)) {
		panic(kError("DotK", "out", K, len(out)))
	}
	if len(val) < len(idx) {
		panic(valError("DotK", len(idx), len(val)))
	}
	out = out[:K]
	if K == 0 {
		return
	}
	rows := len(W) / K
	val = val[:len(idx)]
	for k, j := range idx {
		if uint(int(j)) >= uint(rows) {
			panic(indexErrorAt("DotK", idx, k, rows))
		}
	}
	for c0 := 0; c0 < K; c0 += dotKBlock {
		nb := min(dotKBlock, K-c0)
		var p [2][dotKBlock]float64
		for k, j := range idx {
			row := W[int(j)*K+c0 : int(j)*K+c0+nb]
			v, s := val[k], &p[k&1]
			for c, x := range row {
				s[c] = math.FMA(v, x, s[c])
			}
		}
		for c := range nb {
			out[c0+c] = p[0][c] + p[1][c]
		}
	}
}

// axpyKGeneric does W[idx[k]*K+c] = fma(coef[c], val[k], W[idx[k]*K+c]).
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
			row[c] = math.FMA(x, v, row[c])
		}
	}
}
