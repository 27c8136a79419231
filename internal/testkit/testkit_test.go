package testkit

import (
	"math"
	"testing"
)

func TestSameBits(t *testing.T) {
	if !SameBits([]float64{1, math.NaN()}, []float64{1, math.NaN()}) {
		t.Error("equal NaNs differ")
	}
	if SameBits([]float64{0}, []float64{math.Copysign(0, -1)}) || SameBits([]float64{1}, []float64{1, 2}) {
		t.Error("−0 and 0, or different lengths, the same")
	}
}

func TestTolerances(t *testing.T) {
	v := make([]float64, 100)
	for i := range v {
		v[i] = float64(i)
	}
	want := []float64{198, 98, 97, 96, 94, 89, 69, 49}
	if got := Tolerances(v); !SameBits(got, want) {
		t.Errorf("Tolerances = %v, want %v", got, want)
	}
}

func TestAllocated(t *testing.T) {
	var keep []byte
	if n := Allocated(func() { keep = make([]byte, 1<<20) }); n < 1<<20 {
		t.Errorf("a 1 MiB allocation counted as %d bytes", n)
	}
	_ = keep
}
