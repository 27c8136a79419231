package model

import (
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
)

// TestMisuse: a row with fewer values than indices, or a Decision buffer
// too short, panics with a message that names the method and both
// lengths; a nil or zero Model still predicts NaN.
func TestMisuse(t *testing.T) {
	m := &Model{SolverType: "L2R_LR", Labels: []float64{1, 2, 3}, NumFeature: 2, Bias: -1, NrW: 3, W: make([]float64, 6)}
	idx, short := []int32{0, 1}, []float64{1}
	out := make([]float64, 3)
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"Predict", func() { m.Predict(idx, short) }, "model: Model.Predict: 1 values for 2 indices (val must be at least as long as idx)"},
		{"Decision", func() { m.Decision(idx, short, out) }, "model: Model.Decision: 1 values for 2 indices (val must be at least as long as idx)"},
		{"Probability", func() { _ = m.Probability(idx, short, out) }, "model: Model.Probability: 1 values for 2 indices (val must be at least as long as idx)"},
		{"Decision out", func() { m.Decision(idx, []float64{1, 2}, out[:2]) }, "model: Model.Decision: out has room for 2 values, the model has 3 weight vectors"},
		{"Predict ok", func() { m.Predict(idx, []float64{1, 2, 3}) }, ""},
	} {
		if got := testkit.PanicText(c.f); got != c.want {
			t.Errorf("%s: panic %q\nwant %q", c.name, got, c.want)
		}
	}
	var nilModel *Model
	if !math.IsNaN(nilModel.Predict(nil, nil)) || !math.IsNaN((&Model{}).Predict(idx, []float64{1, 2})) {
		t.Error("a nil or zero Model does not predict NaN")
	}
}
