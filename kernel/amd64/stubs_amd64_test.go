//go:build !purego

package amd64

import (
	"math"
	"testing"

	"github.com/klauspost/cpuid/v2"
)

// These tests call the assembly directly, for the cases package kernel's
// wrappers never pass on (they check lengths first): the functions must
// still stay in bounds. Package kernel's tests check the results.

var (
	haveAVX2   = cpuid.CPU.Supports(cpuid.AVX2, cpuid.FMA3)
	haveAVX512 = haveAVX2 && cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512VL)
)

type dotFunc struct {
	name string
	ok   bool
	f    func(idx []int32, val []float64, w []float64) (float64, bool)
}

func dots() []dotFunc {
	return []dotFunc{
		{"DotAVX2", haveAVX2, DotAVX2},
		{"DotAVX512", haveAVX512, DotAVX512},
		{"Dot32AVX2", haveAVX2, func(idx []int32, val, w []float64) (float64, bool) { return Dot32AVX2(idx, to32(val), w) }},
		{"Dot32AVX512", haveAVX512, func(idx []int32, val, w []float64) (float64, bool) { return Dot32AVX512(idx, to32(val), w) }},
	}
}

func to32(v []float64) []float32 {
	out := make([]float32, len(v), cap(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

func TestShortVal(t *testing.T) {
	for n := 0; n < 40; n++ {
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		w := make([]float64, n)
		for i := range w {
			w[i] = 1
		}
		for m := 0; m <= n; m++ {
			back := make([]float64, n)
			for i := range back {
				back[i] = math.NaN() // beyond len(val): must not be read
			}
			val := back[:m]
			for i := range val {
				val[i] = 1
			}
			for _, d := range dots() {
				if !d.ok {
					continue
				}
				if s, ok := d.f(idx, val, w); !ok || s != float64(m) {
					t.Fatalf("%s n=%d len(val)=%d: %v %v, want %d", d.name, n, m, s, ok, m)
				}
			}
			if haveAVX2 {
				w2 := make([]float64, n)
				if !AxpyAVX2(1, idx, val, w2) {
					t.Fatal("AxpyAVX2 reported a bad index")
				}
				for i, x := range w2 {
					if want := float64(b2i(i < m)); x != want {
						t.Fatalf("AxpyAVX2 n=%d len(val)=%d: w[%d] = %v", n, m, i, x)
					}
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestBadIndexNoPanic(t *testing.T) {
	for _, d := range dots() {
		if !d.ok {
			continue
		}
		for _, w := range [][]float64{nil, {1, 2, 3}} {
			for n := 1; n < 40; n++ {
				idx := make([]int32, n)
				val := make([]float64, n)
				idx[n/2] = -1
				if _, ok := d.f(idx, val, w); ok {
					t.Fatalf("%s: idx %v with len(w) %d reported ok", d.name, idx, len(w))
				}
				idx[n/2] = int32(len(w))
				if _, ok := d.f(idx, val, w); ok {
					t.Fatalf("%s: idx %v with len(w) %d reported ok", d.name, idx, len(w))
				}
			}
		}
	}
}

func TestBadK(t *testing.T) {
	if !haveAVX2 {
		t.Skip("no AVX2")
	}
	idx := []int32{0}
	val := []float64{1}
	W := make([]float64, 8)
	for _, K := range []int{0, -1, math.MinInt} {
		if DotKAVX2(idx, val, W, K, make([]float64, 4)) || AxpyKAVX2(make([]float64, 4), idx, val, W, K) {
			t.Errorf("K=%d accepted", K)
		}
	}
	if DotKAVX2(idx, val, W, 4, make([]float64, 3)) {
		t.Error("DotK with len(out) < K accepted")
	}
	if AxpyKAVX2(make([]float64, 3), idx, val, W, 4) {
		t.Error("AxpyK with len(coef) < K accepted")
	}
	// Row 1 of K=5 would end at 10 > len(W) = 8.
	if DotKAVX2([]int32{1}, val, W, 5, make([]float64, 5)) {
		t.Error("DotK with a partial row accepted")
	}
}
