package solver

import (
	"context"
	"testing"
)

// A cancelled one-vs-rest run starts no further class: each would cost a
// start-up pass, a few thousand steps and a KKT pass over the data, which
// with hundreds of classes kept an interrupted `acfcd train` busy for
// seconds.
func TestCancelSkipsClasses(t *testing.T) {
	labels := make([]float64, 40)
	for i := range labels {
		labels[i] = float64(i + 1)
	}
	d := genData(genSpec{seed: 11, rows: 800, feats: 40, density: 0.2, labels: labels, noise: 0.2})
	for _, s := range []int{1, 3, 7} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m, res, err := Train(ctx, d, Params{Solver: s, C: 1})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Cancelled || !m.Partial || res.Iterations != 0 || len(res.Classes) != len(labels) {
			t.Fatalf("-s %d: %+v", s, res)
		}
		for k, r := range res.Classes {
			if !r.Cancelled || r.Iterations != 0 {
				t.Errorf("-s %d class %d: %+v", s, k, r)
			}
		}
		for _, w := range m.W {
			if w != 0 {
				t.Fatalf("-s %d: a weight moved in a run cancelled before it started", s)
			}
		}
	}
}
