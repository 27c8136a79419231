package solver

import (
	"context"
	"fmt"
	"math"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// TestQiiRecomputed: above xsqStoreMax examples Q_ii is recomputed at each
// step instead of stored; the two must give bit-identical models and runs,
// for every loss and selection, with and without a bias, and for float32
// value storage.
func TestQiiRecomputed(t *testing.T) {
	d := genData(genSpec{seed: 5, rows: 300, feats: 40, density: 0.2, labels: []float64{1, -1, 2}, noise: 0.1, empty: 3})
	d32 := *d
	d32.Value32 = make([]float32, len(d.Value))
	for k, v := range d.Value {
		d32.Value32[k] = float32(v) + 0.1 // values not exactly representable products
	}
	d32.Value = nil
	defer func(v int) { xsqStoreMax = v }(xsqStoreMax)
	for _, data := range []*dataio.Dataset{d, &d32} {
		for _, s := range allSolvers {
			for _, sel := range allSelections {
				for _, bias := range []float64{-1, 1} {
					p := Params{Solver: s, C: 10, Eps: 1e-3, Bias: bias, Select: sel, Seed: 7}
					name := fmt.Sprintf("s=%d/select=%s/bias=%g/float32=%v", s, sel, bias, data.Value == nil)
					xsqStoreMax = 1 << 22
					m1, r1, err := Train(context.Background(), data, p)
					if err != nil {
						t.Fatal(name, err)
					}
					xsqStoreMax = 0
					m2, r2, err := Train(context.Background(), data, p)
					if err != nil {
						t.Fatal(name, err)
					}
					if r1.Iterations != r2.Iterations || r1.Objective != r2.Objective || r1.Violation != r2.Violation {
						t.Errorf("%s: stored Q_ii: %d steps, objective %v, violation %v; recomputed: %d, %v, %v",
							name, r1.Iterations, r1.Objective, r1.Violation, r2.Iterations, r2.Objective, r2.Violation)
					}
					for j := range m1.W {
						if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
							t.Errorf("%s: w[%d] = %v stored, %v recomputed", name, j, m1.W[j], m2.W[j])
							break
						}
					}
				}
			}
		}
	}
}

// TestNormOverflow: an example whose squared norm overflows is an error
// naming its line, not a model silently wrong at that coordinate.
func TestNormOverflow(t *testing.T) {
	d := loadText(t, "big.svm", "1 1:1\n-1 2:1\n1 1:1e200 2:1\n", dataio.Options{})
	for _, s := range allSolvers {
		_, _, err := Train(context.Background(), d, Params{Solver: s, C: 1})
		want := d.Source + ":3: the example's squared norm ‖x‖² overflows a float64; scale the features down"
		if err == nil || err.Error() != want {
			t.Errorf("-s %d: got %v, want %s", s, err, want)
		}
	}
}
