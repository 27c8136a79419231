package acfcd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

// decisions returns the decision values of row i of d under m, from the
// model's weights by plain loops: features beyond the model's ignored,
// the bias feature last.
func decisions(m *Model, d *dataio.Dataset, i int) []float64 {
	rows := len(m.W) / m.NrW
	dec := make([]float64, m.NrW)
	for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
		if j := int(d.Index[k]); j < m.NumFeature {
			for c := range dec {
				dec[c] += m.W[j*m.NrW+c] * d.Value[k]
			}
		}
	}
	if m.Bias > 0 && rows > m.NumFeature {
		for c := range dec {
			dec[c] += m.W[m.NumFeature*m.NrW+c] * m.Bias
		}
	}
	return dec
}

// TestEvaluateClassifier: Evaluate predicts each row (in row order) as the
// model's decision values say, and counts the rows whose label it hit;
// features the model does not know are ignored and labels it does not
// know are errors.
func TestEvaluateClassifier(t *testing.T) {
	for _, c := range []struct {
		name   string
		labels []float64
		p      Params
	}{
		{"binary", []float64{-1, 1}, Params{Problem: SquaredHingeDual, C: 0.5}},
		{"3-class-bias", []float64{2, 7, 5}, Params{Problem: LogisticDual, Bias: 1}},
	} {
		train := synth.Classes(synth.ClassesConfig{Seed: 71, Rows: 300, Feats: 20, Density: 0.3, Labels: c.labels, Noise: 0.1})
		test := synth.Classes(synth.ClassesConfig{Seed: 72, Rows: 200, Feats: 25, Density: 0.3, Labels: append(c.labels, 9), Noise: 0.2})
		m, _, err := Train(context.Background(), train, c.p)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Evaluate(m, test)
		if err != nil {
			t.Fatal(err)
		}
		if e.Rows != test.Rows || len(e.Predicted) != test.Rows {
			t.Fatalf("%s: %d rows, %d predictions for %d rows", c.name, e.Rows, len(e.Predicted), test.Rows)
		}
		correct, unknown := 0, 0
		for i := range test.Rows {
			dec := decisions(m, test, i)
			var want float64
			if m.NrW == 1 {
				want = m.Labels[1]
				if dec[0] > 0 {
					want = m.Labels[0]
				}
			} else {
				best := 0
				for k := range dec {
					if dec[k] > dec[best] {
						best = k
					}
				}
				want = m.Labels[best]
			}
			if e.Predicted[i] != want {
				t.Errorf("%s: row %d predicted %v, want %v (decision values %v)", c.name, i, e.Predicted[i], want, dec)
			}
			if want == test.Label[i] {
				correct++
			}
			if test.Label[i] == 9 {
				unknown++
			}
		}
		if unknown == 0 || correct == 0 || correct == test.Rows {
			t.Fatalf("%s: %d correct, %d unknown labels: the test needs some of each", c.name, correct, unknown)
		}
		if e.Correct != correct || e.Accuracy != 100*float64(correct)/float64(test.Rows) {
			t.Errorf("%s: %d correct (%v%%), want %d (%v%%)", c.name, e.Correct, e.Accuracy, correct, 100*float64(correct)/float64(test.Rows))
		}
	}
}

// TestEvaluateRegression: for the LASSO Evaluate predicts w·x + b and
// reports the mean squared error and the squared correlation coefficient,
// here recomputed from centred sums.
func TestEvaluateRegression(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	d := &dataio.Dataset{Rows: 150, Features: 6, RowPtr: []int64{0}}
	for range d.Rows {
		y := 5.0
		for j, beta := range []float64{2, 0, -1, 0.5, 0, 3} {
			if r.Float64() < 0.6 {
				x := r.NormFloat64()
				d.Index = append(d.Index, int32(j))
				d.Value = append(d.Value, x)
				y += beta * x
			}
		}
		d.Label = append(d.Label, y+r.NormFloat64())
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	m, _, err := Train(context.Background(), d, Params{Problem: Lasso, Lambda: 5, Intercept: true})
	if err != nil {
		t.Fatal(err)
	}
	e, err := Evaluate(m, d)
	if err != nil {
		t.Fatal(err)
	}
	n := float64(d.Rows)
	pred := make([]float64, d.Rows)
	var mse, mp, my float64
	for i := range d.Rows {
		pred[i] = decisions(m, d, i)[0]
		if math.Abs(e.Predicted[i]-pred[i]) > 1e-12*(1+math.Abs(pred[i])) {
			t.Errorf("row %d: predicted %v, want %v", i, e.Predicted[i], pred[i])
		}
		mse += (pred[i] - d.Label[i]) * (pred[i] - d.Label[i]) / n
		mp += pred[i] / n
		my += d.Label[i] / n
	}
	var spy, spp, syy float64
	for i, y := range d.Label {
		spy += (pred[i] - mp) * (y - my)
		spp += (pred[i] - mp) * (pred[i] - mp)
		syy += (y - my) * (y - my)
	}
	r2 := spy * spy / (spp * syy)
	if testkit.RelDiff(e.MSE, mse) > 1e-9 || testkit.RelDiff(e.R2, r2) > 1e-9 {
		t.Errorf("MSE %v, R² %v; recomputed %v, %v", e.MSE, e.R2, mse, r2)
	}
	if !(r2 > 0.5 && r2 < 1) || !(mse > 0) {
		t.Errorf("MSE %v, R² %v: not a fit of this data", mse, r2)
	}
}

// TestEvaluateFloat32: a model trained on data read with Options.Float32
// evaluates that data as loaded, with exactly the predictions, accuracy
// and MSE of its float64 copy (float32 → float64 is exact), for a
// classifier, a multi-class model and a regression.
func TestEvaluateFloat32(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		labels []float64
		p      Params
	}{
		{"binary", []float64{1, -1}, Params{Problem: SquaredHingeDual}},
		{"3 classes", []float64{1, 2, 3}, Params{Problem: LogisticDual, Bias: 1}},
		{"regression", []float64{1, -1}, Params{Problem: SquaredSVRDual}},
	} {
		d := synth.Classes(synth.ClassesConfig{Seed: 73, Rows: 200, Feats: 15, Density: 0.4, Labels: c.labels, Noise: 0.2, Scale: 1.7})
		d32, d64 := synth.Float32Copies(d)
		m, _, err := Train(ctx, d32, c.p)
		if err != nil {
			t.Fatal(err)
		}
		e32, err := Evaluate(m, d32)
		if err != nil {
			t.Fatalf("%s: float32 values: %v", c.name, err)
		}
		e64, err := Evaluate(m, d64)
		if err != nil {
			t.Fatal(err)
		}
		if !testkit.SameBits(e32.Predicted, e64.Predicted) || e32.Correct != e64.Correct ||
			math.Float64bits(e32.MSE) != math.Float64bits(e64.MSE) || e32.Rows != 200 {
			t.Errorf("%s: float32 %+v\nfloat64 %+v", c.name, e32, e64)
		}
	}
	d := synth.HandRows(true)
	m, _, err := Train(ctx, d, Params{Problem: SquaredHingeDual})
	if err != nil {
		t.Fatal(err)
	}
	if e, err := Evaluate(m, d); err != nil || e.Rows != 4 {
		t.Errorf("hand rows, float32: %+v, %v", e, err)
	}
}
