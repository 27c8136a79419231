package benchkit

import (
	"math"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
)

// TestPrimalWW: the Weston–Watkins objective of a three-class model, by
// hand: ½Σ‖w_m‖² + C Σ_i Σ_{m≠y_i} max(0, 1 − (w_{y_i} − w_m)·x_i).
func TestPrimalWW(t *testing.T) {
	d, err := acfcd.Read(strings.NewReader("1 1:1\n2 2:1\n3 1:1 2:1\n"), "tiny", acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Feature-major weights: w_1 = (1, 0), w_2 = (0, 1), w_3 = (0.5, 0.5).
	m := &acfcd.Model{SolverType: "MCSVM_WW", Labels: []float64{1, 2, 3}, NumFeature: 2, Bias: -1, NrW: 3,
		W: []float64{1, 0, 0.5, 0, 1, 0.5}}
	// Row 1 (x = e1, y = 1): scores 1, 0, 0.5: losses max(0, 1−1) + max(0, 1−0.5) = 0.5.
	// Row 2 (x = e2, y = 2): scores 0, 1, 0.5: 0 + 0.5. Row 3 (x = (1,1), y = 3):
	// scores 1, 1, 1: 1 + 1.
	C := 2.0
	want := 0.5*(1+1+0.5) + C*(0.5+0.5+2)
	if got := Primal(m, d, 101, C, 0, 0); math.Abs(got-want) > 1e-12 {
		t.Errorf("ww primal %v, want %v", got, want)
	}
}
