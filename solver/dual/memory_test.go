package dual

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestQiiRecomputed: above dcd.Tuning.XsqStoreMax examples Q_ii is
// recomputed at each step instead of stored; the two must give
// bit-identical models and runs, for every loss and selection, with and
// without a bias, and for float32 value storage.
func TestQiiRecomputed(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 300, Feats: 40, Density: 0.2, Labels: []float64{1, -1, 2}, Noise: 0.1, Empty: 3})
	d32 := *d
	d32.Value32 = make([]float32, len(d.Value))
	for k, v := range d.Value {
		d32.Value32[k] = float32(v) + 0.1 // values not exactly representable products
	}
	d32.Value = nil
	stored, recomputed := dcd.DefaultTuning(), dcd.DefaultTuning()
	stored.XsqStoreMax, recomputed.XsqStoreMax = 1<<22, 0
	for _, data := range []*dataio.Dataset{d, &d32} {
		for _, k := range classifierKinds {
			for _, sel := range dualSelections {
				for _, bias := range []float64{-1, 1} {
					s := Spec{Spec: fit.Spec{C: 10, Eps: 1e-3, Bias: bias, Select: sel, Seed: 7}, Kind: k}
					name := fmt.Sprintf("s=%s/select=%s/bias=%g/float32=%v", flag(k), sel, bias, data.Value == nil)
					m1, r1, err := train(tune.With(context.Background(), &stored), data, s)
					if err != nil {
						t.Fatal(name, err)
					}
					m2, r2, err := train(tune.With(context.Background(), &recomputed), data, s)
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
