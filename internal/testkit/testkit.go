// Package testkit holds the small checks that the tests of several
// packages share. It imports nothing of acfcd, so any package's tests may
// use it.
package testkit

import (
	"math"
	"runtime"
	"slices"
)

// SameBits reports whether a and b hold the same float64s, bit for bit.
func SameBits(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// RelDiff returns |a − b| relative to the larger of |a|, |b| and 1.
func RelDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// Allocated returns the bytes the Go heap handed out while f ran.
func Allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// Tolerances returns the eps values for tests of a full pass, from the
// sorted violations at the test point: none violates; the largest 1, 2,
// 3, 5, 10 and 30; half of them.
func Tolerances(sorted []float64) []float64 {
	n := len(sorted)
	eps := []float64{2 * sorted[n-1]}
	for _, k := range []int{1, 2, 3, 5, 10, 30, n / 2} {
		eps = append(eps, sorted[n-1-k])
	}
	return eps
}
