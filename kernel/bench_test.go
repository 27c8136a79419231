package kernel

import (
	"fmt"
	"runtime"
	"slices"
	"testing"
)

// Benchmarks: go test ./kernel -run '^$' -bench 'Dot|Axpy'
//
// Sub-benchmarks are named impl=NAME/dim=D/nnz=N. Each one cycles through
// a set of distinct sparse vectors with sorted random indices, so that at
// large D the rows of w touched are not the same few cache lines every
// call: the set holds benchBudget non-zeros in all (768 KiB of idx+val,
// which fits in L2), e.g. 4096 vectors at nnz=16. All sub-benchmarks share
// one dense w of the largest dimension (16M float64 = 128 MiB).
//
// Besides nnz/s (wall clock) they report cpu-nnz/s, the same count over
// the thread's CPU time (Linux only), which is steadier on a shared
// machine.
//
// bench/kernelref/kernelref.c generates the same vectors (same splitmix64
// stream, same method) for the C reference and prints the same metrics.

var (
	benchDims = []int{4096, 65536, 1 << 20, 1 << 24}
	benchNNZ  = []int{16, 256, 4096}
)

const benchBudget = 1 << 16

// splitmix64 is the generator shared with the C reference.
type splitmix64 uint64

func (s *splitmix64) next() uint64 {
	*s += 0x9e3779b97f4a7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// below returns a number in [0, d) for d < 2^32.
func (s *splitmix64) below(d int) int { return int((s.next() >> 32) * uint64(d) >> 32) }

// unit returns a number in [0, 1).
func (s *splitmix64) unit() float64 { return float64(s.next()>>11) * 0x1p-53 }

// benchIndices returns n distinct sorted indices in [0, d): by selection
// sampling when n > d/2, else by drawing, sorting and deduplicating until
// there are n.
func benchIndices(s *splitmix64, n, d int) []int32 {
	idx := make([]int32, 0, n)
	if 2*n > d {
		for j := 0; j < d && len(idx) < n; j++ {
			if s.below(d-j) < n-len(idx) {
				idx = append(idx, int32(j))
			}
		}
		return idx
	}
	for len(idx) < n {
		for len(idx) < cap(idx) {
			idx = append(idx, int32(s.below(d)))
		}
		slices.Sort(idx)
		idx = slices.Compact(idx)
	}
	return idx
}

type benchSet struct {
	idx [][]int32
	val [][]float64
}

var (
	benchSets = map[[2]int]*benchSet{}
	benchW    []float64
	benchSink float64
)

// getBench returns the vector set for (d, n) and w[:d].
func getBench(d, n int) (*benchSet, []float64) {
	if benchW == nil {
		maxD := slices.Max(benchDims)
		benchW = make([]float64, maxD)
		s := splitmix64(12345)
		for i := range benchW {
			benchW[i] = s.unit()
		}
	}
	key := [2]int{d, n}
	if set := benchSets[key]; set != nil {
		return set, benchW[:d]
	}
	s := splitmix64(uint64(d)*1000003 + uint64(n))
	set := &benchSet{}
	for range max(4, benchBudget/n) {
		set.idx = append(set.idx, benchIndices(&s, n, d))
		val := make([]float64, n)
		for i := range val {
			val[i] = 2*s.unit() - 1
		}
		set.val = append(set.val, val)
	}
	benchSets[key] = set
	return set, benchW[:d]
}

// measure runs body, which does b.N operations of nnz non-zeros each, and
// reports nnz/s and cpu-nnz/s.
func measure(b *testing.B, nnz int, body func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	c0, ok0 := threadCPU()
	body()
	c1, ok1 := threadCPU()
	b.StopTimer()
	total := float64(nnz) * float64(b.N)
	b.ReportMetric(total/b.Elapsed().Seconds(), "nnz/s")
	if ok0 && ok1 && c1 > c0 {
		b.ReportMetric(total/(c1-c0), "cpu-nnz/s")
	}
}

// benchShapes runs body for every impl × dim × nnz.
func benchShapes(b *testing.B, body func(b *testing.B, set *benchSet, w []float64)) {
	defer selectImpl(Name())
	for _, name := range Available() {
		for _, d := range benchDims {
			for _, n := range benchNNZ {
				b.Run(fmt.Sprintf("impl=%s/dim=%d/nnz=%d", name, d, n), func(b *testing.B) {
					set, w := getBench(d, n)
					selectImpl(name)
					b.ReportAllocs()
					measure(b, n, func() { body(b, set, w) })
				})
			}
		}
	}
}

func BenchmarkDot(b *testing.B) {
	benchShapes(b, func(b *testing.B, set *benchSet, w []float64) {
		var s float64
		r := 0
		for i := 0; i < b.N; i++ {
			s += Dot(set.idx[r], set.val[r], w)
			if r++; r == len(set.idx) {
				r = 0
			}
		}
		benchSink = s
	})
}

func BenchmarkAxpy(b *testing.B) {
	benchShapes(b, func(b *testing.B, set *benchSet, w []float64) {
		a := 1e-3
		r := 0
		for i := 0; i < b.N; i++ {
			Axpy(a, set.idx[r], set.val[r], w)
			a = -a
			if r++; r == len(set.idx) {
				r = 0
			}
		}
	})
}

func BenchmarkSqNorm(b *testing.B) {
	defer selectImpl(Name())
	for _, name := range Available() {
		for _, n := range benchNNZ {
			b.Run(fmt.Sprintf("impl=%s/nnz=%d", name, n), func(b *testing.B) {
				set, _ := getBench(1<<20, n)
				selectImpl(name)
				b.ReportAllocs()
				measure(b, n, func() {
					var s float64
					r := 0
					for i := 0; i < b.N; i++ {
						s += SqNorm(set.val[r])
						if r++; r == len(set.val) {
							r = 0
						}
					}
					benchSink = s
				})
			})
		}
	}
}

// BenchmarkExtra covers the float32 and multi-class forms at dim=65536.
// (Its name does not match -bench 'Dot|Axpy'.)
func BenchmarkExtra(b *testing.B) {
	defer selectImpl(Name())
	const d = 65536
	for _, kname := range Available() {
		for _, n := range benchNNZ {
			set, w := getBench(d, n)
			val32 := make([][]float32, len(set.val))
			for i, v := range set.val {
				val32[i] = to32(v)
			}
			run := func(op string, nnz int, f func(r int)) {
				b.Run(fmt.Sprintf("op=%s/impl=%s/dim=%d/nnz=%d", op, kname, d, n), func(b *testing.B) {
					selectImpl(kname)
					b.ReportAllocs()
					measure(b, nnz, func() {
						r := 0
						for i := 0; i < b.N; i++ {
							f(r)
							if r++; r == len(set.idx) {
								r = 0
							}
						}
					})
				})
			}
			run("Dot32", n, func(r int) { benchSink += Dot32(set.idx[r], val32[r], w) })
			run("Axpy32", n, func(r int) { Axpy32(1e-3, set.idx[r], val32[r], w) })
			for _, K := range []int{3, 10, 32} {
				W := make([]float64, d*K)
				out := make([]float64, K)
				coef := make([]float64, K)
				for i := range coef {
					coef[i] = 1e-3 * float64(i+1)
				}
				run(fmt.Sprintf("DotK%d", K), n*K, func(r int) { DotK(set.idx[r], set.val[r], W, K, out) })
				run(fmt.Sprintf("AxpyK%d", K), n*K, func(r int) { AxpyK(coef, set.idx[r], set.val[r], W, K) })
			}
		}
	}
}
