package solver

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// BenchmarkEpoch times one epoch (one batch of the selection: a sweep for
// uniform/shrink, an ACF batch of ≈ n steps for acf) of each solver on a
// generated sparse problem, from a state already several epochs into the
// optimisation. It reports allocations (there must be none) and the cost
// per coordinate step.
func BenchmarkEpoch(b *testing.B) {
	d := genData(genSpec{seed: 42, rows: 20000, feats: 20000, density: 0.004, labels: []float64{1, -1}, noise: 0.1})
	labels, _, err := groupClasses(d.Label)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range allSolvers {
		for _, sel := range allSelections {
			b.Run(fmt.Sprintf("solver=%d/select=%s", s, sel), func(b *testing.B) {
				kind := solverTypes[s].kind
				sh := newShared(d, kind, selections[sel], 1e-300, 1, math.MaxInt32, Params{}.ACF)
				wk := newWorker(sh, nil)
				sub := &subproblem{cp: 10, cn: 10, seed: 1}
				m := wk.newMode(wk.prepare(sub, labels[0]), sub.seed)
				for k := 0; k < 5; k++ { // past the warm-up and first shrinking
					m.batch()
				}
				steps0 := wk.steps
				b.ReportAllocs()
				b.ResetTimer()
				for k := 0; k < b.N; k++ {
					if _, stop := m.batch(); stop {
						b.Fatal("stopped")
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(wk.steps-steps0), "ns/step")
				b.ReportMetric(float64(wk.steps-steps0)/float64(b.N), "steps/op")
			})
		}
	}
}

// benchText is a text-like binary problem big enough for the parallel
// parts to matter: 200k rows, about 20 non-zeros each.
var benchText = sync.OnceValue(func() *dataio.Dataset {
	return synth.Text(synth.TextConfig{Rows: 200000, Features: 100000, MeanNNZ: 20, Informative: 2000, Noise: 0.05, Seed: 1})
})

// BenchmarkCrossValidate times 5-fold cross-validation (-s 1, C = 1) at
// GOMAXPROCS 1 and 2: the folds run concurrently on two.
func BenchmarkCrossValidate(b *testing.B) {
	d := benchText()
	for _, s := range []int{1, 7} {
		for _, procs := range []int{1, 2} {
			b.Run(fmt.Sprintf("solver=%d/folds=5/procs=%d", s, procs), func(b *testing.B) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				b.ReportAllocs()
				var r *CVResult
				for b.Loop() {
					var err error
					if r, err = CrossValidate(context.Background(), d, Params{Solver: s, C: 1}, 5); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(r.Accuracy, "accuracy_%")
				b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/5, "s/fold")
			})
		}
	}
}

// BenchmarkKKTPass times the certifying full KKT pass (fix, at a
// converged point, so that it takes no step) of a binary problem at
// GOMAXPROCS 1 and 2, and (impl=loop) the single loop it replaced.
func BenchmarkKKTPass(b *testing.B) {
	d := benchText()
	labels, _, err := groupClasses(d.Label)
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range []int{1, 7} {
		kind := solverTypes[s].kind
		sh := newShared(d, kind, selACFShrink, 0.05, -1, DefaultMaxEpochs, Params{}.ACF)
		sh.done = make(chan struct{})
		wk := newWorker(sh, nil)
		wk.solve(&subproblem{cp: 1, cn: 1, seed: 1}, labels[0])
		for _, impl := range []string{"loop", "chunks"} {
			for _, procs := range []int{1, 2} {
				if impl == "loop" && procs > 1 {
					continue
				}
				b.Run(fmt.Sprintf("solver=%d/impl=%s/procs=%d", s, impl, procs), func(b *testing.B) {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					sh.pool = newProcPool(procs - 1)
					pass := wk.kktPass
					if impl == "loop" {
						pass = func(fix bool) bool { return kktPassSequential(wk, fix) }
					}
					ops0 := wk.ops
					b.ReportAllocs()
					for b.Loop() {
						if !pass(true) {
							b.Fatal("the pass found violators at a converged point")
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(wk.ops-ops0), "ns/nnz")
				})
			}
		}
	}
}
