package acfcd

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

// BenchmarkEpoch times the epochs of dual coordinate descent (a sweep for
// uniform and shrink, n steps for the acf selections) of each dual problem
// on a generated sparse problem, from a state five epochs into the
// optimisation (past the warm-up and the first shrinking). It reports
// allocations (there must be none) and the cost per coordinate step.
func BenchmarkEpoch(b *testing.B) {
	d := genData(genSpec{seed: 42, rows: 20000, feats: 20000, density: 0.004, labels: []float64{1, -1}, noise: 0.1})
	tune := DefaultTuning()
	sh := dual.NewData(d, 1, &tune)
	losses := map[Problem]dual.Loss{SquaredHingeDual: dual.L2SVM, HingeDual: dual.L1SVM, LogisticDual: dual.Logistic}
	for _, s := range dualProblems {
		for _, sel := range dualSelections {
			if s == LogisticDual && (sel == Shrink || sel == ACFShrink) {
				continue // they run as uniform and acf
			}
			b.Run(fmt.Sprintf("problem=%s/select=%s", s.Flag(), sel), func(b *testing.B) {
				const warm = 5
				p := dual.New(sh, losses[s], 1e-300, nil, nil, &tune)
				obj := p.Reset(1, 10, 10)
				var r *solver.Run
				var steps0 int64
				r = solver.NewRun(p, solver.Config{Selection: sel, Seed: 1, Eps: 1e-300, MaxEpochs: warm + b.N, Tuning: &tune,
					Progress: func(epoch int, _, _ float64) {
						if epoch == warm {
							steps0 = r.Steps
							b.ReportAllocs()
							b.ResetTimer()
						}
					}})
				r.Obj = obj
				if r.Solve(1) || !r.Capped() {
					b.Fatal("the run stopped before its cap")
				}
				b.StopTimer()
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(r.Steps-steps0), "ns/step")
				b.ReportMetric(float64(r.Steps-steps0)/float64(b.N), "steps/op")
			})
		}
	}
}

// benchText is a text-like binary problem big enough for the parallel
// parts to matter: 200k rows, about 20 non-zeros each.
var benchText = sync.OnceValue(func() *dataio.Dataset {
	return synth.Text(synth.TextConfig{Rows: 200000, Features: 100000, MeanNNZ: 20, Informative: 2000, Noise: 0.05, Seed: 1})
})

// BenchmarkCrossValidate times 5-fold cross-validation (C = 1) at
// GOMAXPROCS 1 and 2: the folds run concurrently on two.
func BenchmarkCrossValidate(b *testing.B) {
	d := benchText()
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		for _, n := range []int{1, 2} {
			b.Run(fmt.Sprintf("problem=%s/folds=5/procs=%d", s.Flag(), n), func(b *testing.B) {
				withProcs(n, func() {
					b.ReportAllocs()
					var r *CVResult
					for b.Loop() {
						var err error
						if r, err = CrossValidate(context.Background(), d, Params{Problem: s, C: 1}, 5); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(r.Accuracy, "accuracy_%")
					b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/5, "s/fold")
				})
			})
		}
	}
}

// BenchmarkKKTPass times the certifying full KKT pass (with repair, at a
// converged point, so that it takes no step) of a binary problem in
// chunks at GOMAXPROCS 1 and 2, and (chunks=1) as one sequential loop.
func BenchmarkKKTPass(b *testing.B) {
	d := benchText()
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		tune := DefaultTuning()
		p := Params{Problem: s, C: 1, Eps: 0.1, Bias: -1, Seed: 1, Tuning: &tune}
		if err := p.resolve(); err != nil {
			b.Fatal(err)
		}
		dt, _, err := newDualTraining(context.Background(), d, p)
		if err != nil {
			b.Fatal(err)
		}
		dp, fin := dt.worker(nil, nil)
		dt.solve(0, dp, fin)
		if !dt.subs[0].res.Converged {
			b.Fatalf("-s %s did not converge", s.Flag())
		}
		r := solver.NewRun(dp, solver.Config{Selection: ACF, Tuning: &tune})
		for _, chunks := range []string{"default", "1"} {
			for _, n := range []int{1, 2} {
				if chunks == "1" && n > 1 {
					continue
				}
				b.Run(fmt.Sprintf("problem=%s/chunks=%s/procs=%d", s.Flag(), chunks, n), func(b *testing.B) {
					tune.KKTChunkRows = DefaultTuning().KKTChunkRows
					if chunks == "1" {
						tune.KKTChunkRows = math.MaxInt32
					}
					withProcs(n, func() {
						dp.Pool = procs.NewPool(n - 1)
						ops0 := dp.Ops
						b.ReportAllocs()
						for b.Loop() {
							if !dp.Pass(r, true) {
								b.Fatal("the pass found violators at a converged point")
							}
						}
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(dp.Ops-ops0), "ns/nnz")
					})
				})
			}
		}
	}
}
