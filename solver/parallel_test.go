package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// withProcs runs f at GOMAXPROCS n and restores the previous setting.
func withProcs(n int, f func()) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	f()
}

// smallKKTChunks makes the full KKT pass cut small test data into many
// chunks and run them on helpers, until the returned function is called.
func smallKKTChunks() (restore func()) {
	rows, nnz := kktChunkRows, kktParallelNNZ
	kktChunkRows, kktParallelNNZ = 37, 0
	return func() { kktChunkRows, kktParallelNNZ = rows, nnz }
}

// countHelperChunks counts the KKT chunks scanned by helper goroutines
// until the returned function is called.
func countHelperChunks() (count *atomic.Int64, restore func()) {
	count = new(atomic.Int64)
	testHookKKTChunk = func(_ int, helper bool) {
		if helper {
			count.Add(1)
		}
	}
	return count, func() { testHookKKTChunk = nil }
}

// kktPassSequential is kktPass as it was before it ran in chunks: one loop
// in storage order, stepping on violators on the spot.
func kktPassSequential(wk *worker, fix bool) bool {
	var viol, loss float64
	ok := true
	for i := 0; i < wk.n; i++ {
		i := int32(i)
		wx := wk.dotRow(i, wk.w)
		c := (wk.y[i] + 1) >> 1
		m := float64(wk.y[i]) * wx
		var v float64
		switch wk.kind {
		case logistic:
			v = lrViolation(m+math.Log(wk.alpha[i]/wk.alphaC[i]), wk.alpha[i], wk.alphaC[i], wk.ub[c])
			loss += wk.ub[c] * log1pExpNeg(m)
			if fix && v > wk.eps {
				ok = false
				wk.steps++
				_, gain := wk.lrStep(i, wx)
				wk.obj -= gain
			}
		default:
			G := m - 1 + wk.alpha[i]*wk.diag[c]
			v = math.Abs(wk.svmPG(i, G))
			if h := 1 - m; h > 0 {
				if wk.kind == l1svm {
					loss += wk.ub[c] * h
				} else {
					loss += 0.5 / wk.diag[c] * h * h
				}
			}
			if fix && v > wk.eps {
				ok = false
				wk.steps++
				wk.obj -= wk.svmMove(i, G)
			}
		}
		viol = max(viol, v)
	}
	wk.passViol = viol
	var ww float64
	for _, x := range wk.w {
		ww += x * x
	}
	wk.passPrimal = 0.5*ww + loss
	return ok
}

// cloneWorker copies wk's optimisation state (the shared data is shared).
func cloneWorker(wk *worker) *worker {
	c := *wk
	c.w = slices.Clone(wk.w)
	c.alpha = slices.Clone(wk.alpha)
	c.alphaC = slices.Clone(wk.alphaC)
	c.y = slices.Clone(wk.y)
	c.chunks = nil
	return &c
}

func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// tolerances returns the eps values for the KKT pass tests from the
// sorted violations at the test point: none violates; the largest 1, 2,
// 3, 5, 10 and 30; half of them.
func tolerances(sorted []float64) []float64 {
	n := len(sorted)
	eps := []float64{2 * sorted[n-1]}
	for _, k := range []int{1, 2, 3, 5, 10, 30, n / 2} {
		eps = append(eps, sorted[n-1-k])
	}
	return eps
}

// TestKKTPassChunked: the chunked KKT pass, with or without helpers,
// takes the same steps as the sequential loop it replaces (same α, w,
// objective, step and operation counts, violation and answer, to the
// bit) from states with no violator, a few scattered ones, and many, and
// its primal value does not depend on the helpers.
func TestKKTPassChunked(t *testing.T) {
	defer smallKKTChunks()()
	helperChunks, restore := countHelperChunks()
	defer restore()
	d := genData(genSpec{seed: 61, rows: 3000, feats: 300, density: 0.03, labels: []float64{1, -1}, noise: 0.1, empty: 2})
	labels, _, err := groupClasses(d.Label)
	if err != nil {
		t.Fatal(err)
	}
	firstInLaterChunk := false
	withProcs(2, func() {
		for _, s := range allSolvers {
			kind := solverTypes[s].kind
			sh := newShared(d, kind, selACFShrink, 0, 1, math.MaxInt32, Params{}.ACF)
			wk := newWorker(sh, nil)
			sub := &subproblem{cp: 2, cn: 1, seed: 3}
			m := wk.newMode(wk.prepare(sub, labels[0]), sub.seed)
			for range 3 {
				m.batch()
			}
			viols := make([]float64, d.Rows)
			for i := range viols {
				viols[i], _, _ = wk.kktEval(int32(i), wk.dotRow(int32(i), wk.w))
			}
			sorted := slices.Clone(viols)
			slices.Sort(sorted)
			for _, eps := range tolerances(sorted) {
				for _, fix := range []bool{false, true} {
					name := fmt.Sprintf("s=%d/eps=%.3g/fix=%v", s, eps, fix)
					sh.eps = eps
					if fix {
						first := slices.IndexFunc(viols, func(v float64) bool { return v > eps })
						firstInLaterChunk = firstInLaterChunk || first >= 2*kktChunkRows
					}
					ref := cloneWorker(wk)
					okRef := kktPassSequential(ref, fix)
					var primal []float64
					for _, helpers := range []int{0, 1, 3} {
						sh.pool = newProcPool(helpers)
						got := cloneWorker(wk)
						ok := got.kktPass(fix)
						sh.pool = nil
						if ok != okRef || !sameBits(got.w, ref.w) || !sameBits(got.alpha, ref.alpha) || !sameBits(got.alphaC, ref.alphaC) ||
							math.Float64bits(got.obj) != math.Float64bits(ref.obj) || got.steps != ref.steps || got.ops != ref.ops ||
							math.Float64bits(got.passViol) != math.Float64bits(ref.passViol) {
							t.Errorf("%s, %d helpers: ok %v steps %d ops %d obj %v viol %v; sequential loop: ok %v steps %d ops %d obj %v viol %v",
								name, helpers, ok, got.steps, got.ops, got.obj, got.passViol, okRef, ref.steps, ref.ops, ref.obj, ref.passViol)
						}
						if relDiff(got.passPrimal, ref.passPrimal) > 1e-12 {
							t.Errorf("%s, %d helpers: primal %v, sequential loop %v", name, helpers, got.passPrimal, ref.passPrimal)
						}
						primal = append(primal, got.passPrimal)
					}
					if !sameBits(primal, []float64{primal[0], primal[0], primal[0]}) {
						t.Errorf("%s: primal values %v depend on the helpers", name, primal)
					}
				}
			}
		}
	})
	if helperChunks.Load() == 0 {
		t.Error("no chunk ran on a helper")
	}
	if !firstInLaterChunk {
		t.Error("no case had its first violator past the first chunks")
	}
}

// wwKKTPassSequential is the Weston–Watkins kktPass as it was before it
// ran in chunks.
func wwKKTPassSequential(s *wwState, fix bool) bool {
	K := s.K
	var viol, loss float64
	ok := true
	for i := 0; i < s.n; i++ {
		i := int32(i)
		s.decision(i)
		y := s.class[i]
		dy := s.dec[y]
		var l float64
		for c, dc := range s.dec[:K] {
			if h := 1 - dy + dc; h > 0 && c != int(y) {
				l += h
			}
		}
		loss += s.ub[y] * l
		v := s.gradients(i)
		viol = max(viol, v)
		if fix && v > s.eps {
			ok = false
			s.steps++
			s.obj -= s.blockStep(i, v)
		}
	}
	s.passViol = viol
	var ww float64
	for _, x := range s.W {
		ww += x * x
	}
	s.passPrimal = 0.5*ww + loss
	return ok
}

func cloneWW(s *wwState) *wwState {
	c := *s
	c.W, c.alpha = slices.Clone(s.W), slices.Clone(s.alpha)
	K := s.K
	c.dec, c.grad, c.coef, c.t, c.srt = make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	c.chunks = nil
	return &c
}

// TestWWKKTPassChunked is TestKKTPassChunked for the Weston–Watkins SVM.
func TestWWKKTPassChunked(t *testing.T) {
	defer smallKKTChunks()()
	helperChunks, restore := countHelperChunks()
	defer restore()
	d := genData(genSpec{seed: 67, rows: 2500, feats: 200, density: 0.04, labels: []float64{1, 2, 3, 4}, noise: 0.1})
	labels, class, err := groupClasses(d.Label)
	if err != nil {
		t.Fatal(err)
	}
	ub := []float64{1, 2, 1, 0.5}[:len(labels)]
	withProcs(2, func() {
		s := newWW(d, class, ub, 1, true, 5, Params{}.ACF)
		s.eps = 0
		for range 3 {
			s.batch()
		}
		viols := make([]float64, d.Rows)
		for i := range viols {
			_, viols[i] = s.kktEval(int32(i))
		}
		sorted := slices.Clone(viols)
		slices.Sort(sorted)
		for _, eps := range tolerances(sorted) {
			for _, fix := range []bool{false, true} {
				name := fmt.Sprintf("eps=%.3g/fix=%v", eps, fix)
				s.eps = eps
				ref := cloneWW(s)
				okRef := wwKKTPassSequential(ref, fix)
				var primal []float64
				for _, helpers := range []int{0, 1, 3} {
					got := cloneWW(s)
					got.pool = newProcPool(helpers)
					ok := got.kktPass(fix)
					if ok != okRef || !sameBits(got.W, ref.W) || !sameBits(got.alpha, ref.alpha) ||
						math.Float64bits(got.obj) != math.Float64bits(ref.obj) || got.steps != ref.steps || got.ops != ref.ops ||
						math.Float64bits(got.passViol) != math.Float64bits(ref.passViol) {
						t.Errorf("%s, %d helpers: ok %v steps %d ops %d obj %v viol %v; sequential loop: ok %v steps %d ops %d obj %v viol %v",
							name, helpers, ok, got.steps, got.ops, got.obj, got.passViol, okRef, ref.steps, ref.ops, ref.obj, ref.passViol)
					}
					if relDiff(got.passPrimal, ref.passPrimal) > 1e-12 {
						t.Errorf("%s, %d helpers: primal %v, sequential loop %v", name, helpers, got.passPrimal, ref.passPrimal)
					}
					primal = append(primal, got.passPrimal)
				}
				if !sameBits(primal, []float64{primal[0], primal[0], primal[0]}) {
					t.Errorf("%s: primal values %v depend on the helpers", name, primal)
				}
			}
		}
	})
	if helperChunks.Load() == 0 {
		t.Error("no chunk ran on a helper")
	}
}

// sameResult compares two Results to the bit, but for the wall times.
func sameResult(a, b *Result) string {
	x, y := *a, *b
	x.Seconds, y.Seconds = 0, 0
	x.Classes, y.Classes = nil, nil
	fa := []float64{x.Objective, x.Primal, x.Gap, x.Violation, x.C, x.Eps}
	fb := []float64{y.Objective, y.Primal, y.Gap, y.Violation, y.C, y.Eps}
	if !sameBits(fa, fb) {
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
// on helpers (binary problems, one-vs-rest, and the Newton fallback's
// certifying pass).
func TestTrainSameAtAnyProcs(t *testing.T) {
	defer smallKKTChunks()()
	helperChunks, restore := countHelperChunks()
	defer restore()
	binary := genData(genSpec{seed: 62, rows: 2000, feats: 150, density: 0.05, labels: []float64{-1, 1}, noise: 0.1})
	multi := genData(genSpec{seed: 63, rows: 1500, feats: 80, density: 0.08, labels: []float64{1, 2, 3}, noise: 0.1})
	type tc struct {
		name string
		d    *dataio.Dataset
		p    Params
	}
	var cases []tc
	for _, s := range allSolvers {
		for _, sel := range allSelections {
			cases = append(cases, tc{fmt.Sprintf("binary/s=%d/%s", s, sel), binary, Params{Solver: s, C: 1, Eps: 1e-3, Select: sel, Seed: 9}})
		}
		cases = append(cases, tc{fmt.Sprintf("3-class/s=%d", s), multi, Params{Solver: s, C: 1, Eps: 1e-2, Bias: 1, Seed: 9}})
	}
	for _, s := range []int{1, 7} {
		cases = append(cases, tc{fmt.Sprintf("newton/s=%d", s), lowDim(), Params{Solver: s, C: 1000, Eps: 1e-3, Bias: 1, Seed: 5}})
	}
	for _, sel := range []string{"acf", "uniform"} {
		cases = append(cases, tc{"binary/ww/" + sel, binary, Params{Solver: WestonWatkins, C: 1, Eps: 1e-3, Select: sel, Seed: 9}},
			tc{"3-class/ww/" + sel, multi, Params{Solver: WestonWatkins, C: 1, Eps: 1e-3, Bias: 1, Select: sel, Seed: 9}})
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
			if !sameBits(ms[0].W, ms[1].W) {
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
	if helperChunks.Load() == 0 {
		t.Error("no chunk ran on a helper")
	}
}

// fakeFault looks like the runtime's memory-fault error to recoverFault.
type fakeFault struct{}

func (fakeFault) Error() string { return "unexpected fault address" }
func (fakeFault) Addr() uintptr { return 0 }

// TestKKTHelperFault: a memory fault in a KKT helper goroutine (a mapped
// file truncated during the pass) is an error of Train, not a crash.
func TestKKTHelperFault(t *testing.T) {
	defer smallKKTChunks()()
	var once sync.Once
	testHookKKTChunk = func(_ int, helper bool) {
		if helper {
			once.Do(func() { panic(fakeFault{}) })
		}
	}
	defer func() { testHookKKTChunk = nil }()
	d := genData(genSpec{seed: 64, rows: 2000, feats: 100, density: 0.05, labels: []float64{-1, 1}, noise: 0.1})
	d.Source = "data.svm"
	faulted := false
	withProcs(2, func() {
		for range 20 { // until a helper gets a chunk
			m, _, err := Train(context.Background(), d, Params{Solver: 3, C: 1})
			if err != nil {
				if m != nil || !strings.Contains(err.Error(), "data.svm: memory fault while training") {
					t.Fatalf("model %v, error %v", m != nil, err)
				}
				faulted = true
				return
			}
		}
	})
	if !faulted {
		t.Skip("no helper ran a chunk (a single processor?)")
	}
}

// randPerm is the shuffle of acfcd's cross-validation.
func randPerm(seed uint64, n int) []int {
	return rand.New(rand.NewPCG(seed, 0x6376)).Perm(n)
}

// cvSequential is acfcd's cross-validation as it was before
// CrossValidate: the folds one after another.
func cvSequential(d *dataio.Dataset, p Params, folds int) (correct int, pred []float64, err error) {
	perm := randPerm(p.Seed, d.Rows)
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

// TestCrossValidate: CrossValidate gives the old sequential loop's
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
		{"text/s=1", text, Params{Solver: 1, C: 1, Seed: 3}, 5},
		{"text/s=3/v=3", text, Params{Solver: 3, C: 0.5, Seed: 4}, 3},
		{"text/s=7/v=10", text, Params{Solver: 7, C: 2, Bias: 1, Seed: 5}, 10},
		{"3-class/s=1", multi, Params{Solver: 1, C: 1, Seed: 6}, 4},
		{"3-class/ww", multi, Params{Solver: WestonWatkins, C: 1, Seed: 7}, 4},
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
					if r.Correct != correct || math.Float64bits(r.Accuracy) != math.Float64bits(want) || !sameBits(r.Predicted, pred) {
						t.Errorf("procs %d: %d correct (%v%%), sequential %d (%v%%); predictions equal: %v",
							procs, r.Correct, r.Accuracy, correct, want, sameBits(r.Predicted, pred))
					}
					if len(r.Results) != c.folds || r.Folds != c.folds || r.Rows != c.d.Rows {
						t.Errorf("procs %d: %+v", procs, r)
					}
				})
			}
		})
	}
	// The binary problems do run their folds concurrently on two cores.
	if got := cvConcurrency(text, Params{Solver: 1}, 5, 2); got != 2 {
		t.Errorf("cvConcurrency: %d folds at once on 2 processors, want 2", got)
	}
	if got := cvConcurrency(multi, Params{Solver: 1}, 5, 2); got != 1 {
		t.Errorf("cvConcurrency: %d folds at once for 3 classes on 2 processors, want 1 (the classes share them)", got)
	}
	if got := cvConcurrency(multi, Params{Solver: WestonWatkins}, 5, 2); got != 2 {
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
		if got := cvConcurrency(d, Params{Solver: 1}, c.folds, c.procs); got != c.want {
			t.Errorf("%d folds on %d processors: %d at once, want %d", c.folds, c.procs, got, c.want)
		}
	}
	d.RowPtr[rows] = 1 << 20 // small: bounded by the processors
	if got := cvConcurrency(d, Params{Solver: 1}, 5, 8); got != 5 {
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
			_, err := CrossValidate(ctx, d, Params{Solver: 1, C: 1}, 5)
			if err == nil || err.Error() != "cross validation interrupted in fold 1" || !errors.Is(err, context.Canceled) {
				t.Errorf("procs %d, cancelled before: %v", procs, err)
			}

			// Cancel from the first progress report of fold 2: fold 2 (and
			// with two processors maybe fold 1 or 3) is cut short.
			ctx, cancel = context.WithCancel(context.Background())
			defer cancel()
			p := Params{Solver: 1, C: 1, Eps: 1e-6, Select: "uniform", NoFallback: true}
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
		{Params{Solver: 1, C: 1}, 1, "need at least 2 folds"},
		{Params{Solver: 1, C: 1}, 101, "more folds than the 100 examples"},
		{Params{Solver: Lasso, Lambda: 1}, 5, "cross-validation is for the classifiers"},
		{Params{Solver: 1, C: -1}, 5, "fold 1: solver: C must be a positive finite number"},
	} {
		if _, err := CrossValidate(context.Background(), d, c.p, c.folds); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v, %d folds: %v, want %q", c.p, c.folds, err, c.want)
		}
	}
	// A label no classifier takes: the first fold training on it fails,
	// whichever fold finishes first.
	perm := randPerm(0, d.Rows)
	for _, at := range []int{perm[0], perm[d.Rows-1]} { // held out by fold 1, by fold 5
		b := *d
		bad := &b
		bad.Label = slices.Clone(d.Label)
		bad.Label[at] = 0.5
		_, _, wantErr := cvSequential(bad, Params{Solver: 1, C: 1}, 5)
		for _, procs := range []int{1, 2} {
			withProcs(procs, func() {
				_, err := CrossValidate(context.Background(), bad, Params{Solver: 1, C: 1}, 5)
				if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
					t.Errorf("bad label at %d, procs %d: %v, sequential: %v", at, procs, err, wantErr)
				}
			})
		}
	}
}
