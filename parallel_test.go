package acfcd

import (
	"context"
	"errors"
	"fmt"
	"github.com/acfcd/acfcd/internal/crand"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

// smallKKTChunks is the default tuning with the full KKT passes cut into
// chunks of 37 rows, run on helpers whatever the size of the data.
func smallKKTChunks() *Tuning {
	t := DefaultTuning()
	t.KKTChunkRows, t.KKTParallelNNZ = 37, 0
	return &t
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
	tune := smallKKTChunks()
	binary := genData(genSpec{seed: 62, rows: 2000, feats: 150, density: 0.05, labels: []float64{-1, 1}, noise: 0.1})
	multi := genData(genSpec{seed: 63, rows: 1500, feats: 80, density: 0.08, labels: []float64{1, 2, 3}, noise: 0.1})
	type tc struct {
		name string
		d    *dataio.Dataset
		p    Params
	}
	var cases []tc
	for _, s := range dualProblems {
		for _, sel := range dualSelections {
			cases = append(cases, tc{fmt.Sprintf("binary/s=%s/%s", s.Flag(), sel), binary, Params{Problem: s, C: 1, Eps: 1e-3, Select: sel, Seed: 9, Tuning: tune}})
		}
		cases = append(cases, tc{fmt.Sprintf("3-class/s=%s", s.Flag()), multi, Params{Problem: s, C: 1, Eps: 1e-2, Bias: 1, Seed: 9, Tuning: tune}})
	}
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		cases = append(cases, tc{fmt.Sprintf("newton/s=%s", s.Flag()), lowDim(), Params{Problem: s, C: 1000, Eps: 1e-3, Bias: 1, Seed: 5, Tuning: tune}})
	}
	for _, sel := range []Selection{ACF, Uniform} {
		cases = append(cases, tc{fmt.Sprintf("binary/ww/%s", sel), binary, Params{Problem: WestonWatkins, C: 1, Eps: 1e-3, Select: sel, Seed: 9, Tuning: tune}},
			tc{fmt.Sprintf("3-class/ww/%s", sel), multi, Params{Problem: WestonWatkins, C: 1, Eps: 1e-3, Bias: 1, Select: sel, Seed: 9, Tuning: tune}})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var ms [2]*Model
			var rs [2]*Result
			for k, procs := range []int{1, 2} {
				withProcs(procs, func() {
					m, res, err := Train(context.Background(), c.d, c.p)
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
	multi := genData(genSpec{seed: 65, rows: 900, feats: 60, density: 0.1, labels: []float64{1, 2, 3}, noise: 0.1})
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
				withProcs(procs, func() {
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
		withProcs(procs, func() {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			_, err := CrossValidate(ctx, d, Params{Problem: SquaredHingeDual, C: 1}, 5)
			if err == nil || err.Error() != "cross validation interrupted in fold 1" || !errors.Is(err, context.Canceled) {
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
			if procs == 1 && err.Error() != "cross validation interrupted in fold 2" {
				t.Errorf("message %q", err)
			}
			t.Logf("procs %d: %v", procs, err)
		})
	}
	e := &CVInterruptedError{Folds: []int{1, 2, 4}}
	if e.Error() != "cross validation interrupted in folds 1, 2 and 4" {
		t.Errorf("message %q", e)
	}
}

// TestCrossValidateErrors: bad arguments, and a fold's error reported as
// the sequential loop reports it (the first fold that fails).
func TestCrossValidateErrors(t *testing.T) {
	d := genData(genSpec{seed: 66, rows: 100, feats: 10, density: 0.3, labels: []float64{-1, 1}, noise: 0.1})
	for _, c := range []struct {
		p     Params
		folds int
		want  string
	}{
		{Params{Problem: SquaredHingeDual, C: 1}, 1, "need at least 2 folds"},
		{Params{Problem: SquaredHingeDual, C: 1}, 101, "more folds than the 100 examples"},
		{Params{Problem: SquaredHingeDual, C: -1}, 5, "fold 1: C must be a positive finite number"},
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
			withProcs(procs, func() {
				_, err := CrossValidate(context.Background(), bad, Params{Problem: SquaredHingeDual, C: 1}, 5)
				if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
					t.Errorf("bad label at %d, procs %d: %v, sequential: %v", at, procs, err, wantErr)
				}
			})
		}
	}
}
