package acfcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/crand"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// smallKKTChunks is a context whose trainings cut the full KKT passes into
// chunks of 37 rows, run on helpers whatever the size of the data.
func smallKKTChunks() context.Context {
	t := solver.DefaultTuning()
	t.KKTChunkRows, t.KKTParallelNNZ = 37, 0
	return tune.With(context.Background(), &t)
}

// sameResult compares two Results to the bit, but for the wall times.
func sameResult(a, b *Result) string {
	x, y := *a, *b
	x.Seconds, y.Seconds = 0, 0
	x.Classes, y.Classes = nil, nil
	fa := []float64{x.Objective, x.Primal, x.Gap, x.Violation, x.C, x.Eps}
	fb := []float64{y.Objective, y.Primal, y.Gap, y.Violation, y.C, y.Eps}
	if !testkit.SameBits(fa, fb) {
		return fmt.Sprintf("objective, primal, gap, violation %v vs %v", fa, fb)
	}
	x.Objective, x.Primal, x.Gap, x.Violation = 0, 0, 0, 0
	y.Objective, y.Primal, y.Gap, y.Violation = 0, 0, 0, 0
	if fmt.Sprintf("%+v", x) != fmt.Sprintf("%+v", y) {
		return fmt.Sprintf("%+v vs %+v", x, y)
	}
	if len(a.Classes) != len(b.Classes) {
		return "different class counts"
	}
	for k := range a.Classes {
		if s := sameResult(&a.Classes[k], &b.Classes[k]); s != "" {
			return fmt.Sprintf("class %d: %s", k, s)
		}
	}
	return ""
}

// TestTrainSameAtAnyProcs: the same seed gives the same model and Result,
// to the bit, at GOMAXPROCS 1 and 2, with the KKT passes in many chunks
// on helpers (binary problems, one-vs-rest, the Newton fallback's
// certifying pass and the Weston–Watkins SVM). (That helpers do scan
// chunks, and that a pass in chunks takes the steps of the sequential
// loop, is TestKKTPassChunked in solver/dual.)
func TestTrainSameAtAnyProcs(t *testing.T) {
	chunked := smallKKTChunks()
	binary := synth.Classes(synth.ClassesConfig{Seed: 62, Rows: 2000, Feats: 150, Density: 0.05, Labels: []float64{-1, 1}, Noise: 0.1})
	multi := synth.Classes(synth.ClassesConfig{Seed: 63, Rows: 1500, Feats: 80, Density: 0.08, Labels: []float64{1, 2, 3}, Noise: 0.1})
	type tc struct {
		name string
		d    *dataio.Dataset
		p    Params
	}
	var cases []tc
	for _, s := range dualProblems {
		for _, sel := range dualSelections {
			cases = append(cases, tc{fmt.Sprintf("binary/s=%s/%s", s.Flag(), sel), binary, Params{Problem: s, C: 1, Eps: 1e-3, Select: sel, Seed: 9}})
		}
		cases = append(cases, tc{fmt.Sprintf("3-class/s=%s", s.Flag()), multi, Params{Problem: s, C: 1, Eps: 1e-2, Bias: 1, Seed: 9}})
	}
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		cases = append(cases, tc{fmt.Sprintf("newton/s=%s", s.Flag()), synth.LowDim(), Params{Problem: s, C: 1000, Eps: 1e-3, Bias: 1, Seed: 5}})
	}
	for _, sel := range []Selection{ACF, Uniform} {
		cases = append(cases, tc{fmt.Sprintf("binary/ww/%s", sel), binary, Params{Problem: WestonWatkins, C: 1, Eps: 1e-3, Select: sel, Seed: 9}},
			tc{fmt.Sprintf("3-class/ww/%s", sel), multi, Params{Problem: WestonWatkins, C: 1, Eps: 1e-3, Bias: 1, Select: sel, Seed: 9}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ms [2]*Model
			var rs [2]*Result
			for k, procs := range []int{1, 2} {
				testkit.WithProcs(procs, func() {
					m, res, err := Train(chunked, c.d, c.p)
					if err != nil {
						t.Fatal(err)
					}
					ms[k], rs[k] = m, res
				})
			}
			if !testkit.SameBits(ms[0].W, ms[1].W) {
				t.Error("the models differ")
			}
			if s := sameResult(rs[0], rs[1]); s != "" {
				t.Errorf("the results differ: %s", s)
			}
			if !rs[0].Converged {
				t.Errorf("not converged: %+v", rs[0])
			}
		})
	}
}

// randPerm is the shuffle of CrossValidate: liblinear's, with glibc's
// rand() after srand(seed).
func randPerm(seed uint64, n int) []int {
	return crand.Perm(n, uint32(seed))
}

// cvSequential is cross-validation as one loop over the folds, each
// trained by Train.
func cvSequential(d *dataio.Dataset, p Params, folds int) (correct int, pred []float64, err error) {
	seed := p.Seed
	if seed == 0 {
		seed = DefaultSeed
	}
	perm := randPerm(seed, d.Rows)
	pred = make([]float64, d.Rows)
	for f := 0; f < folds; f++ {
		lo, hi := f*d.Rows/folds, (f+1)*d.Rows/folds
		train := append(append([]int(nil), perm[:lo]...), perm[hi:]...)
		m, _, err := Train(context.Background(), d.Subset(train), p)
		if err != nil {
			return 0, nil, fmt.Errorf("fold %d: %w", f+1, err)
		}
		for _, i := range perm[lo:hi] {
			idx, val := d.Row(i)
			pred[i] = m.Predict(idx, val)
			if pred[i] == d.Label[i] {
				correct++
			}
		}
	}
	return correct, pred, nil
}

// TestCrossValidate: CrossValidate gives the sequential loop's
// predictions and accuracy, to the bit, at GOMAXPROCS 1 and 2, for
// binary, one-vs-rest and Weston–Watkins problems.
func TestCrossValidate(t *testing.T) {
	text := synth.Text(synth.TextConfig{Rows: 3000, Features: 2000, MeanNNZ: 15, Informative: 100, Noise: 0.05, Seed: 5})
	multi := synth.Classes(synth.ClassesConfig{Seed: 65, Rows: 900, Feats: 60, Density: 0.1, Labels: []float64{1, 2, 3}, Noise: 0.1})
	type tc struct {
		name  string
		d     *dataio.Dataset
		p     Params
		folds int
	}
	cases := []tc{
		{"text/s=1", text, Params{Problem: SquaredHingeDual, C: 1, Seed: 3}, 5},
		{"text/s=3/v=3", text, Params{Problem: HingeDual, C: 0.5, Seed: 4}, 3},
		{"text/s=7/v=10", text, Params{Problem: LogisticDual, C: 2, Bias: 1, Seed: 5}, 10},
		{"3-class/s=1", multi, Params{Problem: SquaredHingeDual, C: 1, Seed: 6}, 4},
		{"3-class/ww", multi, Params{Problem: WestonWatkins, C: 1, Seed: 7}, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			correct, pred, err := cvSequential(c.d, c.p, c.folds)
			if err != nil {
				t.Fatal(err)
			}
			for _, procs := range []int{1, 2} {
				testkit.WithProcs(procs, func() {
					r, err := CrossValidate(context.Background(), c.d, c.p, c.folds)
					if err != nil {
						t.Fatal(err)
					}
					want := 100 * float64(correct) / float64(c.d.Rows)
					if r.Correct != correct || math.Float64bits(r.Accuracy) != math.Float64bits(want) || !testkit.SameBits(r.Predicted, pred) {
						t.Errorf("procs %d: %d correct (%v%%), sequential %d (%v%%); predictions equal: %v",
							procs, r.Correct, r.Accuracy, correct, want, testkit.SameBits(r.Predicted, pred))
					}
					if len(r.Results) != c.folds || r.Folds != c.folds || r.Rows != c.d.Rows {
						t.Errorf("procs %d: %+v", procs, r)
					}
				})
			}
		})
	}
	// The binary problems do run their folds concurrently on two cores.
	if got := cvConcurrency(text, Params{Problem: SquaredHingeDual}, 5, 2); got != 2 {
		t.Errorf("cvConcurrency: %d folds at once on 2 processors, want 2", got)
	}
	if got := cvConcurrency(multi, Params{Problem: SquaredHingeDual}, 5, 2); got != 1 {
		t.Errorf("cvConcurrency: %d folds at once for 3 classes on 2 processors, want 1 (the classes share them)", got)
	}
	if got := cvConcurrency(multi, Params{Problem: WestonWatkins}, 5, 2); got != 2 {
		t.Errorf("cvConcurrency: %d Weston–Watkins folds at once on 2 processors, want 2", got)
	}
}

// TestCrossValidateMemoryBound: the fold copies run at once add at most
// about the data's size (above the floor).
func TestCrossValidateMemoryBound(t *testing.T) {
	// A dataset claiming 200M non-zeros (the arrays are not read).
	rows := 1000
	d := &dataio.Dataset{Rows: rows, Features: 10, RowPtr: make([]int64, rows+1), Label: make([]float64, rows)}
	for i := range d.Label {
		d.Label[i] = float64(1 - 2*(i%2))
	}
	d.RowPtr[rows] = 200 << 20
	for _, c := range []struct{ folds, procs, want int }{{5, 2, 2}, {5, 8, 2}, {2, 8, 2}, {10, 16, 2}, {5, 1, 1}} {
		if got := cvConcurrency(d, Params{Problem: SquaredHingeDual}, c.folds, c.procs); got != c.want {
			t.Errorf("%d folds on %d processors: %d at once, want %d", c.folds, c.procs, got, c.want)
		}
	}
	d.RowPtr[rows] = 1 << 20 // small: bounded by the processors
	if got := cvConcurrency(d, Params{Problem: SquaredHingeDual}, 5, 8); got != 5 {
		t.Errorf("small data, 5 folds on 8 processors: %d at once, want 5", got)
	}
}

// TestCrossValidateCancel: cancelling stops cross-validation with an error
// naming the folds that were training, which wraps context.Canceled; a
// context cancelled before the start interrupts fold 1.
func TestCrossValidateCancel(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 4000, Features: 3000, MeanNNZ: 20, Informative: 200, Noise: 0.1, Seed: 8})
	for _, procs := range []int{1, 2} {
		testkit.WithProcs(procs, func() {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := CrossValidate(ctx, d, Params{Problem: SquaredHingeDual, C: 1}, 5)
			if err == nil || err.Error() != "cross validation interrupted in fold 1: context canceled" || !errors.Is(err, context.Canceled) {
				t.Errorf("procs %d, cancelled before: %v", procs, err)
			}

			// Cancel from the first progress report of fold 2: fold 2 (and
			// with two processors maybe fold 1 or 3) is cut short.
			ctx, cancel = context.WithCancel(context.Background())
			defer cancel()
			p := Params{Problem: SquaredHingeDual, C: 1, Eps: 1e-6, Select: Uniform, NoFallback: true}
			p.Progress = func(pr Progress) {
				if pr.Fold == 2 {
					cancel()
				}
			}
			res, err := CrossValidate(ctx, d, p, 5)
			var ie *CVInterruptedError
			if !errors.As(err, &ie) || res != nil || !errors.Is(err, context.Canceled) || !slices.Contains(ie.Folds, 2) ||
				(procs == 1 && !slices.Equal(ie.Folds, []int{2})) {
				t.Fatalf("procs %d: result %v, error %v", procs, res, err)
			}
			if procs == 1 && err.Error() != "cross validation interrupted in fold 2: context canceled" {
				t.Errorf("message %q", err)
			}
			t.Logf("procs %d: %v", procs, err)
		})
	}
	e := &CVInterruptedError{Folds: []int{1, 2, 4}}
	if e.Error() != "cross validation interrupted in folds 1, 2 and 4" {
		t.Errorf("message %q", e)
	}
	e.Err = context.DeadlineExceeded
	if e.Error() != "cross validation interrupted in folds 1, 2 and 4: context deadline exceeded" {
		t.Errorf("message %q", e)
	}
}

// TestCrossValidateErrors: bad arguments, and a fold's error reported as
// the sequential loop reports it (the first fold that fails).
func TestCrossValidateErrors(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 66, Rows: 100, Feats: 10, Density: 0.3, Labels: []float64{-1, 1}, Noise: 0.1})
	for _, c := range []struct {
		p     Params
		folds int
		want  string
	}{
		{Params{Problem: SquaredHingeDual, C: 1}, 1, "folds = 1: cross-validation needs at least 2 folds"},
		{Params{Problem: SquaredHingeDual, C: 1}, 101, "more folds than the 100 examples"},
		{Params{Problem: SquaredHingeDual, C: -1}, 5, "Params.C = -1: must be a positive finite number"},
	} {
		if _, err := CrossValidate(context.Background(), d, c.p, c.folds); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v, %d folds: %v, want %q", c.p, c.folds, err, c.want)
		}
	}
	// A label no classifier takes: the first fold training on it fails,
	// whichever fold finishes first.
	perm := randPerm(DefaultSeed, d.Rows)
	for _, at := range []int{perm[0], perm[d.Rows-1]} { // held out by fold 1, by fold 5
		b := *d
		bad := &b
		bad.Label = slices.Clone(d.Label)
		bad.Label[at] = 0.5
		_, _, wantErr := cvSequential(bad, Params{Problem: SquaredHingeDual, C: 1}, 5)
		for _, procs := range []int{1, 2} {
			testkit.WithProcs(procs, func() {
				_, err := CrossValidate(context.Background(), bad, Params{Problem: SquaredHingeDual, C: 1}, 5)
				if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
					t.Errorf("bad label at %d, procs %d: %v, sequential: %v", at, procs, err, wantErr)
				}
			})
		}
	}
}

// TestCrossValidateRegression: -v for a regression (the LASSO here; the
// SVRs go the same way) reports liblinear's mean squared error and
// squared correlation coefficient of the held-out predictions, recomputed
// here from the sequential loop's predictions by the textbook formulas.
func TestCrossValidateRegression(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 41, Rows: 300, Feats: 40, Density: 0.2, K: 8, Noise: 0.3, Offset: 2})
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

func TestFoldIDs(t *testing.T) {
	ids := func(rows, nfolds int, seed uint64) []int {
		t.Helper()
		id, err := FoldIDs(rows, nfolds, seed)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	a := ids(103, 10, 7)
	count := map[int]int{}
	for _, f := range a {
		count[f]++
	}
	for f := 1; f <= 10; f++ {
		if c := count[f]; c != 10 && c != 11 {
			t.Errorf("fold %d has %d rows of 103", f, c)
		}
	}
	b, c := ids(103, 10, 7), ids(103, 10, 8)
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
	d := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 150, Feats: 40, Density: 0.2, Labels: []float64{1, -1, 2}, Noise: 0.1})
	p := Params{Problem: Lasso, Intercept: true, Seed: 3}
	var runs [2]*CVPathResult
	for k, procs := range []int{1, 2} {
		testkit.WithProcs(procs, func() {
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
		{CVPathOptions{Folds: 1}, "CVPathOptions.Folds = 1: cross-validation needs at least 2 folds"},
		{CVPathOptions{Folds: 12}, "more folds than the 11 examples"},
		{CVPathOptions{FoldID: []int{1, 2}}, "CVPathOptions.FoldID = 2: 2 fold ids for 11 examples"},
		{CVPathOptions{FoldID: []int{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 0}}, "the fold of example 11 must be 1 to the number of folds"},
		{CVPathOptions{FoldID: []int{1, 3, 1, 3, 1, 3, 1, 3, 1, 3, 1}}, "fold 2 of 3 has no example"},
		{CVPathOptions{FoldID: []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}}, "cross-validation needs at least 2 folds"},
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
