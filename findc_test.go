package acfcd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/fit"
)

// findCData is a small noisy binary problem whose CV accuracy varies
// with C.
func findCData() *dataio.Dataset {
	return synth.Classes(synth.ClassesConfig{Seed: 7, Rows: 150, Feats: 12, Density: 0.5, Labels: []float64{1, -1}, Noise: 0.15})
}

// TestFindCMatchesCrossValidate: every point of a search is the
// CrossValidate of its C (the same folds), and the best is the first of
// the highest accuracy. Cold, the trainings are CrossValidate's, so the
// predictions are the same bits; warm, with a tight tolerance, the
// trainings reach the same optima and the same accuracies. The
// Weston–Watkins SVM takes the path of the solvers without warm starts.
func TestFindCMatchesCrossValidate(t *testing.T) {
	d := findCData()
	d3 := synth.Classes(synth.ClassesConfig{Seed: 8, Rows: 120, Feats: 10, Density: 0.5, Labels: []float64{1, 2, 3}, Noise: 0.1})
	for _, tc := range []struct {
		d      *dataio.Dataset
		p      Params
		cold   bool
		startC float64
	}{
		{d, Params{Problem: SquaredHingeDual}, true, 0},
		{d, Params{Problem: HingeDual, Bias: 1}, true, 0},
		{d, Params{Problem: LogisticDual}, true, 0},
		{d3, Params{Problem: WestonWatkins, MaxEpochs: 20}, false, 16}, // slow at large C: a few points, capped
		{d, Params{Problem: SquaredHingeDual, Eps: 1e-9}, false, 0},
		{d, Params{Problem: HingeDual, Bias: 1, Eps: 1e-9}, false, 0},
		{d, Params{Problem: LogisticDual, Eps: 1e-9}, false, 0},
		{d3, Params{Problem: HingeDual, Eps: 1e-9}, false, 0}, // one-vs-rest
	} {
		cs, err := FindC(context.Background(), tc.d, tc.p, 4, SearchOptions{Cold: tc.cold, StartC: tc.startC})
		if err != nil {
			t.Fatal(err)
		}
		name := tc.p.Problem.Flag()
		start := tc.startC
		if start == 0 {
			start, _ = families[tc.p.Problem].start(tc.d, &tc.p)
		}
		if len(cs.Points) == 0 || cs.Points[0].C != start {
			t.Fatalf("-s %s: the search starts at %v, want %g", name, cs.Points, start)
		}
		best := -1
		for k, pt := range cs.Points {
			if k > 0 && pt.C != 2*cs.Points[k-1].C {
				t.Fatalf("-s %s: C %g after %g, want it doubled", name, pt.C, cs.Points[k-1].C)
			}
			if pt.Last != (k == len(cs.Points)-1) {
				t.Errorf("-s %s: point %d (C = %g): Last = %v", name, k, pt.C, pt.Last)
			}
			p := tc.p
			p.C = pt.C
			cv, err := CrossValidate(context.Background(), tc.d, p, 4)
			if err != nil {
				t.Fatal(err)
			}
			if pt.Correct != cv.Correct || pt.Accuracy != cv.Accuracy {
				t.Errorf("-s %s cold=%v C = %g: search %d correct (%g%%), CrossValidate %d (%g%%)",
					name, tc.cold, pt.C, pt.Correct, pt.Accuracy, cv.Correct, cv.Accuracy)
			}
			if best < 0 || cv.Accuracy > cs.Points[best].Accuracy {
				best = k
			}
		}
		last := cs.Points[len(cs.Points)-1]
		if !last.MaxCReached || last.C != searchMaxC {
			t.Errorf("-s %s: the search ended at C = %g (max reached %v), want at %d", name, last.C, last.MaxCReached, searchMaxC)
		}
		if cs.Best != best || cs.BestC != cs.Points[best].C || cs.Accuracy != cs.Points[best].Accuracy {
			t.Errorf("-s %s: best C %g (%g%%, point %d), want %g (point %d)", name, cs.BestC, cs.Accuracy, cs.Best, cs.Points[best].C, best)
		}
	}
}

// TestFindCWarmStarts: warm and cold searches give the same best C and,
// at a tight tolerance, the same accuracy at every C (they converge to
// the same optima: at most one held-out example of 150 may fall
// differently, when its margin is within the tolerance of 0), while the
// warm one takes fewer operations in all (at most 90%: without warm starts
// the ratio is exactly 1; with them 0.70 to 0.82 on this data), for the
// duals and the primal Newton solvers.
func TestFindCWarmStarts(t *testing.T) {
	d := findCData()
	for _, s := range append(dualProblems, LogisticPrimal, SquaredHingePrimal) {
		p := Params{Problem: s, Eps: 1e-4, Bias: 1}
		warm, err := FindC(context.Background(), d, p, 3, SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cold, err := FindC(context.Background(), d, p, 3, SearchOptions{Cold: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(warm.Points) != len(cold.Points) {
			t.Fatalf("-s %s: %d points warm, %d cold", s.Flag(), len(warm.Points), len(cold.Points))
		}
		for k := range warm.Points {
			if dc := warm.Points[k].Correct - cold.Points[k].Correct; dc < -1 || dc > 1 {
				t.Errorf("-s %s C = %g: %d correct warm, %d cold", s.Flag(), warm.Points[k].C, warm.Points[k].Correct, cold.Points[k].Correct)
			}
		}
		if warm.BestC != cold.BestC {
			t.Errorf("-s %s: best C %g warm, %g cold", s.Flag(), warm.BestC, cold.BestC)
		}
		if !(float64(warm.Operations) < 0.9*float64(cold.Operations)) {
			t.Errorf("-s %s: %d operations warm, %d cold: want at most 90%%", s.Flag(), warm.Operations, cold.Operations)
		}
		t.Logf("-s %s: operations warm %d, cold %d (%.2f)", s.Flag(), warm.Operations, cold.Operations, float64(warm.Operations)/float64(cold.Operations))
	}
}

// TestFindCSameAtAnyGOMAXPROCS: the folds of every C train concurrently
// in an order that depends on timing, but each training depends only on
// its fold and its previous C: the same points, bit for bit.
func TestFindCSameAtAnyGOMAXPROCS(t *testing.T) {
	d := findCData()
	var runs [2]*CSearch
	for k, n := range []int{1, 3} {
		testkit.WithProcs(n, func() {
			cs, err := FindC(context.Background(), d, Params{Problem: LogisticDual}, 5, SearchOptions{})
			if err != nil {
				t.Fatal(err)
			}
			runs[k] = cs
		})
	}
	a, b := runs[0], runs[1]
	if len(a.Points) != len(b.Points) || a.Operations != b.Operations || a.BestC != b.BestC {
		t.Fatalf("GOMAXPROCS 1: %d points, %d operations, best C %g; 3: %d, %d, %g",
			len(a.Points), a.Operations, a.BestC, len(b.Points), b.Operations, b.BestC)
	}
	for k := range a.Points {
		for f, r := range a.Points[k].Results {
			if r2 := b.Points[k].Results[f]; r.Objective != r2.Objective || r.Operations != r2.Operations {
				t.Errorf("C = %g fold %d: objective %v, %d operations at GOMAXPROCS 1; %v, %d at 3",
					a.Points[k].C, f+1, r.Objective, r.Operations, r2.Objective, r2.Operations)
			}
		}
	}
}

func maxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

// TestFindCStopsWhenWStops: liblinear's rule ends the search once no
// fold's w has moved for 5 C: with no features every w is 0, so the
// search stops after 5 points, not at the largest C; from C = 512 it
// reaches 1024 and says so.
func TestFindCStopsWhenWStops(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 3, Rows: 40, Feats: 3, Density: 0.5, Labels: []float64{1, -1}, Empty: 40})
	cs, err := FindC(context.Background(), d, Params{Problem: HingeDual}, 4, SearchOptions{StartC: 1.0 / 64})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cs.Points); n != 5 || !cs.Points[4].Last || cs.Points[4].MaxCReached || cs.Points[4].C != 0.25 {
		t.Fatalf("%d points, last %+v; want 5, the last at C = 0.25 without reaching the largest C", n, cs.Points[n-1])
	}
	cs, err = FindC(context.Background(), d, Params{Problem: HingeDual}, 4, SearchOptions{StartC: 512})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cs.Points); n != 2 || !cs.Points[1].MaxCReached {
		t.Fatalf("from C = 512: %d points, want 2 ending at the largest C", n)
	}
}

// TestFindCCancel: a cancelled search returns the points done and an
// error wrapping ctx.Err() that names the C.
func TestFindCCancel(t *testing.T) {
	d := findCData()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	cs, err := FindC(ctx, d, Params{Problem: HingeDual}, 3, SearchOptions{Point: func(CPoint) {
		if n++; n == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want one wrapping context.Canceled", err)
	}
	if cs == nil || len(cs.Points) < 2 || cs.Points[len(cs.Points)-1].Last {
		t.Fatalf("search %+v: want the 2 or more points done before the cancellation", cs)
	}
	var intr *CVInterruptedError
	if !errors.As(err, &intr) || len(intr.Folds) == 0 {
		t.Errorf("error %v: want a *CVInterruptedError naming folds", err)
	}
}

// TestCalcStartC: liblinear's calc_start_C, with the bias feature in
// ‖x‖² as in liblinear's x.
func TestCalcStartC(t *testing.T) {
	// Rows: (3, 4) → 25, (1) → 1; with -B 1: 26.
	d := &dataio.Dataset{Rows: 2, Features: 2, RowPtr: []int64{0, 2, 3}, Index: []int32{0, 1, 0},
		Value: []float64{3, 4, 1}, Label: []float64{1, -1}}
	for _, tc := range []struct {
		p    Params
		want float64
	}{
		{Params{Problem: LogisticPrimal}, 1.0 / 64},        // 1/(2·25) = 0.02
		{Params{Problem: SquaredHingePrimal}, 1.0 / 128},   // 1/(4·25) = 0.01
		{Params{Problem: LogisticDual, Bias: 1}, 1.0 / 64}, // 1/52
		{Params{Problem: HingeDual, Bias: 3}, 1.0 / 128},   // 1/(2·34)
		{Params{Problem: L1Logistic}, 0.5},                 // Xᵀy = (2, 4): 2/4
		{Params{Problem: L1SquaredHinge}, 1.0 / 8},         // 1/(2·4)
		// SVR with ε = 0.5 on y = (1, −1): loss 0.5, Σ|y| = 2:
		// 0.01·0.5/(8·4·25) = 6.25e-6, 2^-18 = 3.8e-6.
		{Params{Problem: SquaredSVRPrimal, P: 0.5}, 1.0 / (1 << 18)},
		{Params{Problem: SquaredSVRPrimal, P: 1}, math.Inf(1)}, // no loss at w = 0
	} {
		got, err := families[tc.p.Problem].start(d, &tc.p)
		if err != nil || got != tc.want {
			t.Errorf("-s %s: start C %g (%v), want %g", tc.p.Problem.Flag(), got, err, tc.want)
		}
	}
	if got := fit.Pow2Floor(0.25); got != 0.25 {
		t.Errorf("Pow2Floor(0.25) = %g", got)
	}
}

// TestFindCErrors: what has no C is refused, and bad options too.
func TestFindCErrors(t *testing.T) {
	d := findCData()
	for _, tc := range []struct {
		p     Params
		folds int
		opt   SearchOptions
	}{
		{Params{Problem: Lasso}, 5, SearchOptions{}},
		{Params{Problem: OneClassSVM}, 5, SearchOptions{}},
		{Params{Problem: SquaredHingeDual}, 1, SearchOptions{}},
		{Params{Problem: SquaredHingeDual}, 151, SearchOptions{}},
		{Params{Problem: SquaredHingeDual}, 5, SearchOptions{StartC: -1}},
		{Params{Problem: SquaredHingeDual}, 5, SearchOptions{StartC: math.Inf(1)}},
		{Params{Problem: SquaredHingeDual, Eps: -1}, 5, SearchOptions{}},
	} {
		if _, err := FindC(context.Background(), d, tc.p, tc.folds, tc.opt); err == nil {
			t.Errorf("-s %s, %d folds, %+v: no error", tc.p.Problem.Flag(), tc.folds, tc.opt)
		}
	}
}

// TestFindCPrimalStopsAsLiblinear: the primal Newton solvers stop each C
// by liblinear's rule from the previous C's w, so at large C w stays
// where it was and the search ends before the largest C, as
// liblinear's; from scratch (Cold) w moves at every C and it runs on.
func TestFindCPrimalStopsAsLiblinear(t *testing.T) {
	d := oneHotData(4000, 12, 6)
	for _, s := range []Problem{SquaredHingePrimal} { // -s 0: cmd/acfcd's TestFindCStopsAsLiblinear
		for _, cold := range []bool{false, true} {
			cs, err := FindC(context.Background(), d, Params{Problem: s, Bias: 1}, 5, SearchOptions{Cold: cold})
			if err != nil {
				t.Fatal(err)
			}
			last := cs.Points[len(cs.Points)-1]
			if last.MaxCReached != cold || !last.Last {
				t.Errorf("-s %s cold %v: the search ended at C = %g, max C reached %v", s.Flag(), cold, last.C, last.MaxCReached)
			}
		}
	}
}

// oneHotData is census-like data (as a9a): rows of groups categorical
// features of levels levels each, one-hot coded, labelled by a random
// linear score with logistic noise. Its columns are collinear within a
// group, and the optimum moves with C more than on genData's.
func oneHotData(rows, groups, levels int) *dataio.Dataset {
	r := rand.New(rand.NewPCG(13, 5))
	truth := make([]float64, groups*levels)
	for j := range truth {
		truth[j] = r.NormFloat64()
	}
	d := &dataio.Dataset{Rows: rows, Features: groups * levels, RowPtr: make([]int64, 1, rows+1)}
	for range rows {
		var score float64
		for g := range groups {
			j := g*levels + r.IntN(levels)
			d.Index = append(d.Index, int32(j))
			d.Value = append(d.Value, 1)
			score += truth[j]
		}
		u := r.Float64()
		if score+math.Log(u/(1-u)) > 0 {
			d.Label = append(d.Label, 1)
		} else {
			d.Label = append(d.Label, -1)
		}
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}
