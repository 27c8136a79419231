package acfcd

import "testing"

// TestSupportVectors: Result.SupportVectors of -s 1, 3 and 7 is the number
// of examples with α_i > 0, per one-vs-rest class and summed, counted here
// from the duals of the same training; on this data -s 3 has examples at
// α = 0 and -s 7 none (its α lies inside (0, C)).
func TestSupportVectors(t *testing.T) {
	for _, labels := range [][]float64{{-1, 1}, {1, 2, 3}} {
		d := genData(genSpec{seed: 17, rows: 300, feats: 20, density: 0.3, labels: labels, noise: 0.05})
		for _, pr := range []Problem{SquaredHingeDual, HingeDual, LogisticDual} {
			_, res, duals := mustTrain(t, d, Params{Problem: pr, C: 1, Eps: 0.01})
			total := 0
			for k, h := range duals {
				n := 0
				for _, a := range h.alpha {
					if a > 0 {
						n++
					}
				}
				total += n
				if len(duals) > 1 && res.Classes[k].SupportVectors != n {
					t.Errorf("%v %v class %d: SupportVectors %d, want %d", labels, pr, k, res.Classes[k].SupportVectors, n)
				}
				if pr == LogisticDual && n != d.Rows {
					t.Errorf("%v -s 7 class %d: %d of %d α > 0", labels, k, n, d.Rows)
				}
				if pr == HingeDual && n == d.Rows {
					t.Errorf("%v -s 3 class %d: every α > 0", labels, k)
				}
			}
			if res.SupportVectors != total {
				t.Errorf("%v %v: SupportVectors %d, want %d", labels, pr, res.SupportVectors, total)
			}
		}
	}
}
