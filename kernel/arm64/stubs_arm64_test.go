//go:build !purego

package arm64

import (
	"math"
	"testing"
)

// These tests call the assembly directly, for the cases package kernel's
// wrappers never pass on (they check lengths first): the functions must
// still stay in bounds. Package kernel's tests check the results.

func TestShortValAndBadIndex(t *testing.T) {
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
			if s, ok := DotNEON(idx, val, w); !ok || s != float64(m) {
				t.Fatalf("DotNEON n=%d len(val)=%d: %v %v", n, m, s, ok)
			}
			val32 := make([]float32, m, n)
			for i := range val32 {
				val32[i] = 1
			}
			if s, ok := Dot32NEON(idx, val32, w); !ok || s != float64(m) {
				t.Fatalf("Dot32NEON n=%d len(val)=%d: %v %v", n, m, s, ok)
			}
			w2 := make([]float64, n)
			if !AxpyNEON(1, idx, val, w2) || !Axpy32NEON(1, idx, val32, w2) {
				t.Fatal("Axpy reported a bad index")
			}
			for i, x := range w2 {
				if want := 2 * float64(b2i(i < m)); x != want {
					t.Fatalf("Axpy n=%d len(val)=%d: w[%d] = %v", n, m, i, x)
				}
			}
		}
		if n > 0 {
			val := make([]float64, n)
			for _, bad := range []int32{-1, int32(n), math.MinInt32} {
				idx[n/2] = bad
				if _, ok := DotNEON(idx, val, w); ok {
					t.Fatalf("DotNEON accepted idx %d with len(w) %d", bad, n)
				}
				if AxpyNEON(1, idx, val, w) {
					t.Fatalf("AxpyNEON accepted idx %d with len(w) %d", bad, n)
				}
			}
			idx[n/2] = int32(n / 2)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
