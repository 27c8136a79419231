package acfcd

import (
	"context"
	"errors"
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
	for _, s := range dualProblems {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m, res, err := Train(ctx, d, Params{Problem: s, C: 1})
		if !errors.Is(err, context.Canceled) || m == nil || res == nil {
			t.Fatalf("-s %s: model %v, result %v, error %v; want a model, a result and context.Canceled", s.Flag(), m != nil, res != nil, err)
		}
		if !res.Cancelled || !m.Partial || res.Iterations != 0 || len(res.Classes) != len(labels) {
			t.Fatalf("-s %s: %+v", s.Flag(), res)
		}
		for k, r := range res.Classes {
			if !r.Cancelled || r.Iterations != 0 {
				t.Errorf("-s %s class %d: %+v", s.Flag(), k, r)
			}
		}
		for _, w := range m.W {
			if w != 0 {
				t.Fatalf("-s %s: a weight moved in a run cancelled before it started", s.Flag())
			}
		}
	}
}
