package acfcd

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// oneFeature is a LASSO problem with a single feature, whose solution
// has a closed form: with x and y centred, w = S(xᵀy, λ)/‖x‖², b = ȳ − x̄w.
func oneFeature() (*dataio.Dataset, []float64, []float64) {
	x := []float64{1.5, -0.5, 2, 0, 3.25, -1, 0.75, 1, -2, 2.5, 0.5}
	y := []float64{-1.8, -2.9, 2.0, 0.8, 0.9, -0.5, -2.0, -0.4, -2.0, 0.7, 1.3}
	d := &dataio.Dataset{Rows: len(x), Features: 1, RowPtr: make([]int64, 1, len(x)+1), Label: y}
	for _, v := range x {
		if v != 0 { // a zero is not stored, as in a sparse file
			d.Index = append(d.Index, 0)
			d.Value = append(d.Value, v)
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d, x, y
}

// closedForm is the one-feature LASSO with an intercept on rows.
func closedForm(x, y []float64, rows []int, lam float64) (w, b float64) {
	var mx, my float64
	for _, i := range rows {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(rows))
	my /= float64(len(rows))
	var sxy, sxx float64
	for _, i := range rows {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	w = math.Copysign(math.Max(math.Abs(sxy)-lam, 0), sxy) / sxx
	return w, my - mx*w
}

// TestCrossValidatePathByHand recomputes every fold's error, the mean
// error, its standard error, λ.min and λ.1se from the closed-form
// solution on each fold (folds of unequal size, fitted at λ·ℓ_fold/ℓ as
// cv.glmnet does).
func TestCrossValidatePathByHand(t *testing.T) {
	d, x, y := oneFeature()
	ids := []int{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2} // sizes 4, 4, 3
	lams := []float64{9, 6, 4, 2, 1, 0.25}
	p := Params{Problem: Lasso, Intercept: true, Eps: 1e-13}
	res, err := CrossValidatePath(context.Background(), d, p, CVPathOptions{FoldID: ids, Lambdas: lams})
	if err != nil {
		t.Fatal(err)
	}
	if res.Folds != 3 || len(res.Lambda) != len(lams) {
		t.Fatalf("folds %d, λ %v", res.Folds, res.Lambda)
	}
	n := float64(d.Rows)
	var wantMean, wantSE []float64
	for j, lam := range lams {
		errs := make([]float64, 3)
		sizes := make([]float64, 3)
		for f := 1; f <= 3; f++ {
			var train, held []int
			for i, g := range ids {
				if g == f {
					held = append(held, i)
				} else {
					train = append(train, i)
				}
			}
			w, b := closedForm(x, y, train, lam*float64(len(train))/n)
			var s float64
			for _, i := range held {
				r := y[i] - b - w*x[i]
				s += r * r
			}
			errs[f-1], sizes[f-1] = s/float64(len(held)), float64(len(held))
			if got := res.FoldError[f-1][j]; math.Abs(got-errs[f-1]) > 1e-9*errs[f-1] {
				t.Errorf("λ %g, fold %d: error %.12g, by hand %.12g", lam, f, got, errs[f-1])
			}
		}
		m := (sizes[0]*errs[0] + sizes[1]*errs[1] + sizes[2]*errs[2]) / n
		v := (sizes[0]*(errs[0]-m)*(errs[0]-m) + sizes[1]*(errs[1]-m)*(errs[1]-m) + sizes[2]*(errs[2]-m)*(errs[2]-m)) / n
		wantMean, wantSE = append(wantMean, m), append(wantSE, math.Sqrt(v/2))
		if math.Abs(res.MeanError[j]-m) > 1e-9*m || math.Abs(res.SE[j]-wantSE[j]) > 1e-8*wantSE[j] {
			t.Errorf("λ %g: mean error %.12g ± %.12g, by hand %.12g ± %.12g", lam, res.MeanError[j], res.SE[j], m, wantSE[j])
		}
		// The whole data's fit, at λ itself.
		all := make([]int, d.Rows)
		for i := range all {
			all[i] = i
		}
		w, _ := closedForm(x, y, all, lam)
		if nz := res.NNZ[j]; nz != map[bool]int{true: 1, false: 0}[w != 0] {
			t.Errorf("λ %g: nnz %d, closed-form w %g", lam, nz, w)
		}
	}
	iMin, i1SE := 0, 0
	for j := range wantMean {
		if wantMean[j] < wantMean[iMin] {
			iMin = j
		}
	}
	for i1SE = 0; wantMean[i1SE] > wantMean[iMin]+wantSE[iMin]; i1SE++ {
	}
	if res.IndexMin != iMin || res.Index1SE != i1SE || res.LambdaMin != lams[iMin] || res.Lambda1SE != lams[i1SE] {
		t.Errorf("λ.min %g (index %d), λ.1se %g (%d); by hand indices %d and %d (means %v)", res.LambdaMin, res.IndexMin, res.Lambda1SE, res.Index1SE, iMin, i1SE, wantMean)
	}
	if iMin == 0 || i1SE == iMin {
		t.Errorf("the data should give λ.min inside the grid and λ.1se above it: %d, %d (%v ± %v)", iMin, i1SE, wantMean, wantSE)
	}
}

// TestCVChoose: cv.glmnet's rules — λ.min is the largest λ among equal
// least errors, λ.1se the largest λ within one standard error of it.
func TestCVChoose(t *testing.T) {
	for _, c := range []struct {
		mean, se   []float64
		iMin, i1SE int
	}{
		{[]float64{5, 2.4, 2, 2, 2.5}, []float64{1, 1, 0.5, 0.1, 1}, 2, 1},
		{[]float64{5, 4, 3, 2}, []float64{1, 1, 1, 0}, 3, 3},
		{[]float64{1, 2, 3}, []float64{0, 0, 0}, 0, 0},
		{[]float64{3, 2.9, 1, 2}, []float64{0, 0, 2, 0}, 2, 0},
	} {
		if i, j := cvChoose(c.mean, c.se); i != c.iMin || j != c.i1SE {
			t.Errorf("cvChoose(%v, %v) = %d, %d, want %d, %d", c.mean, c.se, i, j, c.iMin, c.i1SE)
		}
	}
	// cvm and cvsd of folds of sizes 1 and 3 with errors 1 and 3:
	// (1 + 9)/4 = 2.5, sqrt((1·2.25 + 3·0.25)/4/1).
	m, s := cvStats([][]float64{{1}, {3}}, []float64{1, 3})
	if m[0] != 2.5 || math.Abs(s[0]-math.Sqrt(0.75)) > 1e-15 {
		t.Errorf("cvStats = %v, %v", m, s)
	}
}

func TestFoldIDs(t *testing.T) {
	a := FoldIDs(103, 10, 7)
	count := map[int]int{}
	for _, f := range a {
		count[f]++
	}
	for f := 1; f <= 10; f++ {
		if c := count[f]; c != 10 && c != 11 {
			t.Errorf("fold %d has %d rows of 103", f, c)
		}
	}
	b, c := FoldIDs(103, 10, 7), FoldIDs(103, 10, 8)
	same, other := true, true
	for i := range a {
		same = same && a[i] == b[i]
		other = other && a[i] == c[i]
	}
	if !same || other {
		t.Errorf("FoldIDs: the same seed must give the same folds (%v), another seed others (%v)", same, !other)
	}
}

// TestCrossValidatePathDeterministic: the default sequence is the whole
// data's path (a prefix of LambdaSequence), and the result is the same
// bits at GOMAXPROCS 1 and 2.
func TestCrossValidatePathDeterministic(t *testing.T) {
	d := genData(genSpec{seed: 5, rows: 150, feats: 40, density: 0.2, labels: []float64{1, -1, 2}, noise: 0.1})
	p := Params{Problem: Lasso, Intercept: true, Seed: 3}
	var runs [2]*CVPathResult
	for k, procs := range []int{1, 2} {
		withProcs(procs, func() {
			r, err := CrossValidatePath(context.Background(), d, p, CVPathOptions{Folds: 5, N: 20})
			if err != nil {
				t.Fatal(err)
			}
			runs[k] = r
		})
	}
	seq, err := LambdaSequence(d, p, 20, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, b := runs[0], runs[1]
	if len(a.Lambda) < PathMinPoints || len(a.Lambda) > len(seq) {
		t.Fatalf("%d λ of %d", len(a.Lambda), len(seq))
	}
	for j := range a.Lambda {
		if a.Lambda[j] != seq[j] || a.MeanError[j] != b.MeanError[j] || a.SE[j] != b.SE[j] {
			t.Fatalf("λ %d: %v %v %v vs %v %v %v", j, a.Lambda[j], a.MeanError[j], a.SE[j], seq[j], b.MeanError[j], b.SE[j])
		}
	}
	if a.Path[a.IndexMin].Model == nil || a.Path[a.IndexMin].Lambda != a.LambdaMin {
		t.Error("no model at λ.min")
	}
}

func TestCrossValidatePathErrors(t *testing.T) {
	d, _, _ := oneFeature()
	p := Params{Problem: Lasso}
	for _, c := range []struct {
		o    CVPathOptions
		want string
	}{
		{CVPathOptions{Folds: 1}, "need at least 2 folds"},
		{CVPathOptions{Folds: 12}, "more folds than the 11 examples"},
		{CVPathOptions{FoldID: []int{1, 2}}, "fold ids: 2 for 11 examples"},
		{CVPathOptions{FoldID: []int{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 0}}, "fold id 0 of example 11"},
		{CVPathOptions{FoldID: []int{1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1}}, "fold 2 of 3 has no example"},
		{CVPathOptions{FoldID: []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}, "need at least 2 folds"},
		{CVPathOptions{Folds: 3, Lambdas: []float64{1, 2}}, "must not increase"},
	} {
		_, err := CrossValidatePath(context.Background(), d, p, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.o, err, c.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CrossValidatePath(ctx, d, p, CVPathOptions{Folds: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
