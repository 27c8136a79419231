package acfcd

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/lasso"
)

// lassoSelects are the selections the LASSO takes.
var lassoSelects = []Selection{Cyclic, Uniform, ACF}

// modelWB splits a LASSO model into its feature weights and intercept.
func modelWB(m *Model) ([]float64, float64) {
	if m.Bias >= 0 {
		return m.W[:m.NumFeature], m.W[m.NumFeature] * m.Bias
	}
	return m.W, 0
}

// lassoTrain trains d with p as the LASSO.
func lassoTrain(t *testing.T, d *dataio.Dataset, p Params) (*Model, *Result) {
	t.Helper()
	p.Problem = Lasso
	return mustTrain(t, d, p)
}

// lassoLamMax is ‖X_cᵀy_c‖_∞, the smallest λ whose solution is w = 0.
func lassoLamMax(t *testing.T, d *dataio.Dataset, intercept bool) float64 {
	t.Helper()
	data, err := lasso.NewData(d, intercept, false)
	if err != nil {
		t.Fatal(err)
	}
	return data.LambdaMax(1)
}

func TestPath(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 8, Rows: 100, Feats: 200, Density: 0.08, K: 15, Noise: 0.3, Offset: 1, Shift: 0.2})
	for _, icpt := range []bool{false, true} {
		for _, sel := range lassoSelects {
			p := Params{Select: sel, Intercept: icpt, Seed: 3}
			lams, err := LambdaSequence(d, p, 25, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			pts, err := TrainPathLambdas(context.Background(), d, p, lams)
			if err != nil {
				t.Fatal(err)
			}
			// TrainPath is the same path, ended early where glmnet would.
			early, err := TrainPath(context.Background(), d, p, 25, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			stop := len(pts)
			for k := PathMinPoints - 1; k < len(pts); k++ {
				if dr := pts[k].DevRatio; dr-pts[k-1].DevRatio < PathDevChange*dr || dr > PathDevMax {
					stop = k + 1
					break
				}
			}
			if len(early) != stop {
				t.Errorf("TrainPath: %d points, want %d", len(early), stop)
			}
			for k := range early {
				if early[k].Lambda != pts[k].Lambda || early[k].Objective != pts[k].Objective {
					t.Errorf("TrainPath point %d: λ %g objective %g, want %g %g", k, early[k].Lambda, early[k].Objective, pts[k].Lambda, pts[k].Objective)
				}
			}
			if len(pts) != 25 {
				t.Fatalf("%d points", len(pts))
			}
			lamMax := lassoLamMax(t, d, icpt)
			if pts[0].Lambda != lamMax || pts[0].NNZ != 0 || math.Abs(pts[24].Lambda-0.01*lamMax) > 1e-12*lamMax {
				t.Errorf("ends: λ %g (λmax %g) nnz %d; last λ %g", pts[0].Lambda, lamMax, pts[0].NNZ, pts[24].Lambda)
			}
			drops := 0
			for k, pt := range pts {
				if !pt.Converged || pt.Model == nil || pt.Model.Partial {
					t.Fatalf("%s point %d not converged", sel, k)
				}
				if k > 0 {
					if r := pt.Lambda / pts[k-1].Lambda; math.Abs(r-math.Pow(0.01, 1.0/24)) > 1e-12 {
						t.Errorf("λ ratio %g", r)
					}
					if pt.NNZ < pts[k-1].NNZ {
						drops += pts[k-1].NNZ - pt.NNZ
					}
				}
				// Warm-started point = cold start at the same λ.
				if k%6 == 3 {
					_, res := lassoTrain(t, d, Params{Lambda: pt.Lambda, Select: sel, Intercept: icpt, Eps: 1e-10 * lamMax})
					if pt.Objective < res.Objective*(1-1e-12) || pt.Objective-res.Objective > pt.Gap+1e-12*res.Objective {
						t.Errorf("%s point %d: objective %.12g, cold start %.12g (gap %g)", sel, k, pt.Objective, res.Objective, pt.Gap)
					}
				}
			}
			if pts[24].NNZ < 15 || drops > pts[24].NNZ/5 {
				t.Errorf("intercept=%v %s: NNZ along the path not increasing: last %d, total drops %d", icpt, sel, pts[24].NNZ, drops)
			}
		}
	}
	if _, err := TrainPath(context.Background(), d, Params{}, -1, 0.1); err == nil {
		t.Error("n = -1 accepted")
	}
	if _, err := TrainPath(context.Background(), d, Params{}, 3, 1.5); err == nil {
		t.Error("ratio 1.5 accepted")
	}
}

// TestLassoCancel: a cancelled fit or path returns what it reached, the
// model marked partial, and an error wrapping context.Canceled (the
// family's own test covers what a cancelled fit measures).
func TestLassoCancel(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 9, Rows: 300, Feats: 2000, Density: 0.02, K: 30, Noise: 0.1})
	lamMax := lassoLamMax(t, d, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, sel := range lassoSelects {
		m, res, err := Train(ctx, d, Params{Problem: Lasso, Lambda: 0.01 * lamMax, Select: sel})
		if !errors.Is(err, context.Canceled) || res == nil || !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap || res.Iterations != 0 {
			t.Fatalf("%s: pre-cancelled: err %v result %+v", sel, err, res)
		}
	}
	pts, err := TrainPath(ctx, d, Params{}, 5, 0.1)
	if !errors.Is(err, context.Canceled) || len(pts) != 1 || !pts[0].Model.Partial {
		t.Errorf("cancelled path: %d points, err %v", len(pts), err)
	}
}

// LambdaSequence is glmnet's: 100 values by default, λ_max = ‖X_cᵀy_c‖_∞/α
// down to 1e-4·λ_max when rows > features and 1e-2·λ_max otherwise.
func TestLambdaSequence(t *testing.T) {
	tall := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 21, Rows: 80, Feats: 30, Density: 0.3, K: 5, Noise: 0.1, Offset: 2, Shift: 0.3})
	wide := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 22, Rows: 30, Feats: 80, Density: 0.3, K: 5, Noise: 0.1})
	for _, c := range []struct {
		d     *dataio.Dataset
		icpt  bool
		ratio float64
	}{{tall, true, 1e-4}, {tall, false, 1e-4}, {wide, true, 1e-2}} {
		X := testkit.DenseRows(c.d.Rows, c.d.Features, c.d.Row)
		y := append([]float64(nil), c.d.Label...)
		if c.icpt {
			lassoCentre(X, y)
		}
		lamMax := 0.0
		for j := range X[0] {
			s := 0.0
			for i := range X {
				s += X[i][j] * y[i]
			}
			lamMax = max(lamMax, math.Abs(s))
		}
		lams, err := LambdaSequence(c.d, Params{Intercept: c.icpt}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(lams) != DefaultPathLength || math.Abs(lams[0]-lamMax) > 1e-12*lamMax ||
			math.Abs(lams[99]-c.ratio*lamMax) > 1e-12*lamMax {
			t.Errorf("%d λ from %g to %g, want 100 from %g to %g", len(lams), lams[0], lams[len(lams)-1], lamMax, c.ratio*lamMax)
		}
		for k := 1; k < len(lams); k++ {
			if r := lams[k] / lams[k-1]; math.Abs(r-math.Pow(c.ratio, 1.0/99)) > 1e-12 {
				t.Fatalf("λ ratio %g at %d", r, k)
			}
		}
		// At λ_max the solution is 0, just below it is not.
		pts, err := TrainPathLambdas(context.Background(), c.d, Params{Intercept: c.icpt}, []float64{lamMax * (1 + 1e-9), lamMax * 0.99})
		if err != nil {
			t.Fatal(err)
		}
		if pts[0].NNZ != 0 || pts[1].NNZ == 0 || pts[0].DevRatio != 0 {
			t.Errorf("at λ_max: nnz %d (dev ratio %g), just below: %d", pts[0].NNZ, pts[0].DevRatio, pts[1].NNZ)
		}
	}
}

// lassoCentre centres the columns of X and y in place.
func lassoCentre(X [][]float64, y []float64) {
	ybar := 0.0
	for _, v := range y {
		ybar += v / float64(len(y))
	}
	for i := range y {
		y[i] -= ybar
	}
	for j := range X[0] {
		m := 0.0
		for i := range X {
			m += X[i][j] / float64(len(X))
		}
		for i := range X {
			X[i][j] -= m
		}
	}
}

// DevRatio is 1 − RSS/null deviance, recomputed from the model; a
// noise-free problem saturates the deviance, and TrainPath stops there as
// glmnet does (TrainPathLambdas fits every λ).
func TestPathEarlyStop(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 23, Rows: 120, Feats: 20, Density: 0.5, K: 6, Noise: 0, Offset: 1})
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
	ybar := 0.0
	for _, v := range d.Label {
		ybar += v / float64(d.Rows)
	}
	null := 0.0
	for _, v := range d.Label {
		null += (v - ybar) * (v - ybar)
	}
	pts, err := TrainPath(context.Background(), d, Params{Intercept: true}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	lams, _ := LambdaSequence(d, Params{Intercept: true}, 0, 0)
	all, err := TrainPathLambdas(context.Background(), d, Params{Intercept: true}, lams)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 100 || len(pts) >= 100 || len(pts) < PathMinPoints {
		t.Fatalf("TrainPath %d points, TrainPathLambdas %d", len(pts), len(all))
	}
	last := pts[len(pts)-1]
	prev := pts[len(pts)-2]
	if !(last.DevRatio > PathDevMax || last.DevRatio-prev.DevRatio < PathDevChange*last.DevRatio) {
		t.Errorf("stopped at point %d with dev ratio %g after %g", len(pts), last.DevRatio, prev.DevRatio)
	}
	for k, pt := range pts {
		w, b := modelWB(pt.Model)
		r := testkit.Residual(X, d.Label, w, b)
		rss := 0.0
		for _, v := range r {
			rss += v * v
		}
		if want := 1 - rss/null; math.Abs(pt.DevRatio-want) > 1e-9 {
			t.Errorf("point %d: dev ratio %.12g, recomputed %.12g", k, pt.DevRatio, want)
		}
		if k+1 < len(pts) && k+1 >= PathMinPoints && (pt.DevRatio > PathDevMax || pt.DevRatio-pts[k-1].DevRatio < PathDevChange*pt.DevRatio) {
			t.Errorf("point %d should have ended the path", k)
		}
	}
}

func TestPathErrors(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 24, Rows: 20, Feats: 10, Density: 0.5, K: 3, Noise: 0.1})
	ctx := context.Background()
	for _, c := range []struct {
		p    Params
		lams []float64
		want string
	}{
		{Params{}, nil, "a path needs at least 1 λ"},
		{Params{}, []float64{1, 2}, "must not increase"},
		{Params{}, []float64{1, math.NaN()}, "λ 2 is NaN"},
		{Params{}, []float64{-1}, "λ 1 is -1"},
		{Params{Alpha: 1.5}, []float64{1}, "Params.Alpha = 1.5: the elastic-net mixing must be in (0, 1]"},
		{Params{Alpha: -0.5}, []float64{1}, "Params.Alpha"},
		{Params{Alpha: math.NaN()}, []float64{1}, "Params.Alpha"},
	} {
		if _, err := TrainPathLambdas(ctx, d, c.p, c.lams); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %v: error %v, want %q", c.p.Alpha, c.lams, err, c.want)
		}
	}
	if _, _, err := Train(ctx, d, Params{Problem: Lasso, Lambda: 1, Alpha: 2}); err == nil || !strings.Contains(err.Error(), "Params.Alpha") {
		t.Errorf("Train alpha 2: %v", err)
	}
	if _, err := LambdaSequence(d, Params{}, -3, 0); err == nil {
		t.Error("LambdaSequence n = -3 accepted")
	}
}

// A path honours an absolute gap tolerance at every λ, as a single fit
// does: each point's duality gap is at most GapTol, tighter than the
// default rule gives.
func TestPathGapTol(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 8, Rows: 100, Feats: 200, Density: 0.08, K: 15, Noise: 0.3, Offset: 1, Shift: 0.2})
	p := Params{Intercept: true, Seed: 3}
	lams, err := LambdaSequence(d, p, 10, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	p.GapTol = 1e-9
	pts, err := TrainPathLambdas(context.Background(), d, p, lams)
	if err != nil {
		t.Fatal(err)
	}
	for k, pt := range pts {
		if !pt.Converged || !(pt.Gap <= p.GapTol) {
			t.Errorf("point %d (λ %g): converged %v, gap %g, want at most %g", k, pt.Lambda, pt.Converged, pt.Gap, p.GapTol)
		}
	}
}
