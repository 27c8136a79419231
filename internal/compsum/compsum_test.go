package compsum

import "testing"

// TestCancellation: terms that a plain float64 sum loses entirely.
func TestCancellation(t *testing.T) {
	var s Sum
	for _, v := range []float64{1, 1e100, 1, -1e100} {
		s.Add(v)
	}
	if got := s.Value(); got != 2 {
		t.Fatalf("sum %v, want 2", got)
	}
}
