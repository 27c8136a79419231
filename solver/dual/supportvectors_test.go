package dual

import (
	"context"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestSupportVectors: Result.SupportVectors of -s 1, 3 and 7 is the number
// of examples with α_i > 0, per one-vs-rest class and summed, counted here
// from the duals of the same training (and Train, the classes in
// parallel, reports the same sum); on this data -s 3 has examples at
// α = 0 and -s 7 none (its α lies inside (0, C)).
func TestSupportVectors(t *testing.T) {
	for _, labels := range [][]float64{{-1, 1}, {1, 2, 3}} {
		d := synth.Classes(synth.ClassesConfig{Seed: 17, Rows: 300, Feats: 20, Density: 0.3, Labels: labels, Noise: 0.05})
		for _, k := range classifierKinds {
			s := Spec{Spec: fit.Spec{C: 1, Eps: 0.01}, Kind: k}
			_, res, duals := mustTrain(t, d, s)
			total := 0
			for c, h := range duals {
				n := 0
				for _, a := range h.alpha {
					if a > 0 {
						n++
					}
				}
				total += n
				if len(duals) > 1 && res.Classes[c].SupportVectors != n {
					t.Errorf("%v -s %s class %d: SupportVectors %d, want %d", labels, flag(k), c, res.Classes[c].SupportVectors, n)
				}
				if k == LR && n != d.Rows {
					t.Errorf("%v -s 7 class %d: %d of %d α > 0", labels, c, n, d.Rows)
				}
				if k == L1LossSVC && n == d.Rows {
					t.Errorf("%v -s 3 class %d: every α > 0", labels, c)
				}
			}
			if res.SupportVectors != total {
				t.Errorf("%v -s %s: SupportVectors %d, want %d", labels, flag(k), res.SupportVectors, total)
			}
			_, tr, err := train(context.Background(), d, s)
			if err != nil {
				t.Fatal(err)
			}
			if tr.SupportVectors != total {
				t.Errorf("%v -s %s: Train reports %d support vectors, want %d", labels, flag(k), tr.SupportVectors, total)
			}
		}
	}
}
