package acfcd

import (
	"context"
	"math"
	"testing"
)

// TestCrossValidateRegression: -v for a regression (the LASSO here; the
// SVRs go the same way) reports liblinear's mean squared error and
// squared correlation coefficient of the held-out predictions, recomputed
// here from the sequential loop's predictions by the textbook formulas.
func TestCrossValidateRegression(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 41, rows: 300, feats: 40, density: 0.2, k: 8, noise: 0.3, offset: 2})
	p := Params{Problem: Lasso, Lambda: 1, Intercept: true}
	res, err := CrossValidate(context.Background(), d, p, 5)
	if err != nil {
		t.Fatal(err)
	}
	_, pred, err := cvSequential(d, p, 5)
	if err != nil {
		t.Fatal(err)
	}
	var mse, my, mp float64
	n := float64(d.Rows)
	for i, v := range pred {
		if res.Predicted[i] != v {
			t.Fatalf("row %d: predicted %v, the sequential loop %v", i, res.Predicted[i], v)
		}
		mse += (v - d.Label[i]) * (v - d.Label[i]) / n
		my += d.Label[i] / n
		mp += v / n
	}
	var cov, vy, vp float64
	for i, v := range pred {
		cov += (v - mp) * (d.Label[i] - my)
		vp += (v - mp) * (v - mp)
		vy += (d.Label[i] - my) * (d.Label[i] - my)
	}
	r2 := cov * cov / (vp * vy)
	if math.Abs(res.MSE-mse) > 1e-9*mse || math.Abs(res.R2-r2) > 1e-9 {
		t.Errorf("MSE %v, R2 %v; recomputed %v, %v", res.MSE, res.R2, mse, r2)
	}
	if !(r2 > 0.5) {
		t.Errorf("r² %v: the LASSO should predict this data", r2)
	}
}
