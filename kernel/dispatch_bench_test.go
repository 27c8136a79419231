package kernel

import (
	"fmt"
	"testing"
)

// BenchmarkDispatch measures the package-level functions as a caller sees
// them, dispatch included, with w in the L1 cache (dim=4096) so that the
// cost of the call shows as much as it can; BenchmarkDot and the others
// select each implementation in turn and measure the kernels themselves.
//
//	go test ./kernel -run '^$' -bench Dispatch
//
// Sub-benchmarks are named op=OP/nnz=N and report nnz/s (for the K forms,
// nnz·K per call). Each loop calls the function directly, as a solver
// does. op=dotk passes a local array as out: it stays on the stack only
// if escape analysis can see that DotK does not keep it.
func BenchmarkDispatch(b *testing.B) {
	const d, K = 4096, 4
	for _, op := range []string{"dot", "axpy", "sqnorm", "dot32", "axpy32", "dotk", "axpyk"} {
		for _, n := range benchNNZ {
			b.Run(fmt.Sprintf("op=%s/nnz=%d", op, n), func(b *testing.B) {
				set, w := getBench(d, n)
				mask := len(set.idx) - 1
				if len(set.idx)&mask != 0 {
					b.Fatalf("%d vectors: want a power of two", len(set.idx))
				}
				idx, val := set.idx, set.val
				val32 := make([][]float32, len(val))
				for i, v := range val {
					val32[i] = to32(v)
				}
				W := make([]float64, d*K)
				coef := []float64{1e-3, -2e-3, 3e-3, -4e-3}
				b.ReportAllocs()
				switch op {
				case "dot":
					measure(b, n, func() {
						var s float64
						for i := range b.N {
							s += Dot(idx[i&mask], val[i&mask], w)
						}
						benchSink = s
					})
				case "axpy":
					measure(b, n, func() {
						for i := range b.N {
							Axpy(1e-3, idx[i&mask], val[i&mask], w)
						}
					})
				case "sqnorm":
					measure(b, n, func() {
						var s float64
						for i := range b.N {
							s += SqNorm(val[i&mask])
						}
						benchSink = s
					})
				case "dot32":
					measure(b, n, func() {
						var s float64
						for i := range b.N {
							s += Dot32(idx[i&mask], val32[i&mask], w)
						}
						benchSink = s
					})
				case "axpy32":
					measure(b, n, func() {
						for i := range b.N {
							Axpy32(1e-3, idx[i&mask], val32[i&mask], w)
						}
					})
				case "dotk":
					measure(b, n*K, func() {
						var s float64
						for i := range b.N {
							var out [K]float64
							DotK(idx[i&mask], val[i&mask], W, K, out[:])
							s += out[0]
						}
						benchSink = s
					})
				case "axpyk":
					measure(b, n*K, func() {
						for i := range b.N {
							AxpyK(coef, idx[i&mask], val[i&mask], W, K)
						}
					})
				}
			})
		}
	}
}
