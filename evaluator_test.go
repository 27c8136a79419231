package acfcd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
)

// TestEvaluatorBlocks: an Evaluator fed a dataset in blocks of
// consecutive rows, of any sizes, gives Evaluate's predictions and its
// accuracy, MSE and R² bit for bit, for a classifier and a regression.
func TestEvaluatorBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, p := range []Params{{Problem: SquaredHingeDual}, {Problem: SquaredSVRDual}} {
		d := synth.Classes(synth.ClassesConfig{Seed: 9, Rows: 500, Feats: 12, Density: 0.5, Labels: []float64{1, -1}, Noise: 0.3, Scale: 1.3})
		m, _, err := Train(context.Background(), d, p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Evaluate(m, d)
		if err != nil {
			t.Fatal(err)
		}
		v := NewEvaluator(m)
		var pred []float64
		for a := 0; a < d.Rows; {
			b := min(d.Rows, a+1+r.IntN(60))
			rows := make([]int, 0, b-a)
			for i := a; i < b; i++ {
				rows = append(rows, i)
			}
			if pred, err = v.Add(d.Subset(rows), pred); err != nil {
				t.Fatal(err)
			}
			a = b
		}
		got := v.Evaluation()
		same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
		if !testkit.SameBits(pred, want.Predicted) || got.Rows != want.Rows || got.Correct != want.Correct ||
			!same(got.Accuracy, want.Accuracy) || !same(got.MSE, want.MSE) || !same(got.R2, want.R2) || got.Predicted != nil {
			t.Errorf("%v: blocks give %+v, Evaluate %+v", p.Problem, got, want)
		}
	}
	if _, err := NewEvaluator(nil).Add(nil, nil); err == nil {
		t.Error("nil model accepted")
	}
}
