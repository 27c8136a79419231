// Package csrtest holds what the tests of the readers under io share:
// comparing matrices bit for bit, bounding what a small input may
// allocate, and the process's CPU time for benchmarks.
package csrtest

import (
	"fmt"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/io/internal/csr"
)

// Diff describes the first difference between two matrices, comparing
// floats bit for bit; "" when they are identical (InputBytes is ignored).
func Diff(a, b *csr.Matrix) string {
	if a.Rows != b.Rows || a.Features != b.Features {
		return fmt.Sprintf("shape %dx%d vs %dx%d", a.Rows, a.Features, b.Rows, b.Features)
	}
	if d := diffSlice("RowPtr", a.RowPtr, b.RowPtr, func(x int64) uint64 { return uint64(x) }); d != "" {
		return d
	}
	if d := diffSlice("Index", a.Index, b.Index, func(x int32) uint64 { return uint64(x) }); d != "" {
		return d
	}
	if (a.Value == nil) != (b.Value == nil) || (a.Value32 == nil) != (b.Value32 == nil) {
		return fmt.Sprintf("value storage: Value nil %v/%v, Value32 nil %v/%v", a.Value == nil, b.Value == nil, a.Value32 == nil, b.Value32 == nil)
	}
	if d := diffSlice("Value", a.Value, b.Value, math.Float64bits); d != "" {
		return d
	}
	if d := diffSlice("Value32", a.Value32, b.Value32, func(x float32) uint64 { return uint64(math.Float32bits(x)) }); d != "" {
		return d
	}
	if d := diffSlice("Label", a.Label, b.Label, math.Float64bits); d != "" {
		return d
	}
	if (a.QID == nil) != (b.QID == nil) {
		return fmt.Sprintf("QID nil %v vs %v", a.QID == nil, b.QID == nil)
	}
	return diffSlice("QID", a.QID, b.QID, func(x int64) uint64 { return uint64(x) })
}

func diffSlice[T any](name string, a, b []T, bits func(T) uint64) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%s: length %d vs %d", name, len(a), len(b))
	}
	for i := range a {
		if bits(a[i]) != bits(b[i]) {
			return fmt.Sprintf("%s[%d]: %v vs %v", name, i, a[i], b[i])
		}
	}
	return ""
}

// CheckAllocBound fails t if f, reading an input of n bytes, allocates
// more than 1 MiB + 512 bytes per input byte: a small file must not make
// the readers allocate by what it claims.
func CheckAllocBound(t testing.TB, n int, f func()) {
	t.Helper()
	if a, limit := testkit.Allocated(f), uint64(1<<20+512*n); a > limit {
		t.Fatalf("a %d-byte input allocated %d bytes (limit %d)", n, a, limit)
	}
}
