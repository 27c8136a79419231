package dual

import (
	"context"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/fit"
)

// BenchmarkEpoch times the epochs of dual coordinate descent (a sweep for
// uniform and shrink, n steps for the acf selections) of each classifier
// Kind on a generated sparse problem, from a state five epochs into the
// optimisation (past the warm-up and the first shrinking). It reports
// allocations (there must be none) and the cost per coordinate step.
func BenchmarkEpoch(b *testing.B) {
	d := synth.Classes(synth.ClassesConfig{Seed: 42, Rows: 20000, Feats: 20000, Density: 0.004, Labels: []float64{1, -1}, Noise: 0.1})
	drv, dt := solver.DefaultTuning(), dcd.DefaultTuning()
	sh := dcd.NewData(d, 1, &dt)
	losses := map[Kind]dcd.Loss{L2LossSVC: dcd.L2SVM, L1LossSVC: dcd.L1SVM, LR: dcd.Logistic}
	for _, k := range classifierKinds {
		for _, sel := range dualSelections {
			if k == LR && (sel == solver.Shrink || sel == solver.ACFShrink) {
				continue // they run as uniform and acf
			}
			b.Run(fmt.Sprintf("problem=%s/select=%s", flag(k), sel), func(b *testing.B) {
				const warm = 5
				p := dcd.New(sh, losses[k], 1e-300, nil, nil, &drv, &dt)
				obj := p.Reset(1, 10, 10)
				var r *solver.Run
				var steps0 int64
				r = solver.NewRun(p, solver.Config{Selection: sel, Seed: 1, Eps: 1e-300, MaxEpochs: warm + b.N, Tuning: &drv,
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

// BenchmarkKKTPass times the certifying full KKT pass (with repair, at a
// converged point, so that it takes no step) of a binary problem in
// chunks at GOMAXPROCS 1 and 2, and (chunks=1) as one sequential loop.
func BenchmarkKKTPass(b *testing.B) {
	d := benchText()
	for _, k := range []Kind{L2LossSVC, LR} {
		drv := solver.DefaultTuning()
		s := resolved(Spec{Spec: fit.Spec{C: 1, Eps: 0.1, Seed: 1}, Kind: k})
		c, _, err := newClassifiers(tune.With(context.Background(), &drv), d, &s)
		if err != nil {
			b.Fatal(err)
		}
		dp, fin := c.worker(nil, nil)
		c.solve(0, dp, fin)
		if !c.subs[0].Res.Converged {
			b.Fatalf("-s %s did not converge", flag(k))
		}
		r := solver.NewRun(dp, solver.Config{Selection: solver.ACF, Tuning: &drv})
		for _, chunks := range []string{"default", "1"} {
			for _, n := range []int{1, 2} {
				if chunks == "1" && n > 1 {
					continue
				}
				b.Run(fmt.Sprintf("problem=%s/chunks=%s/procs=%d", flag(k), chunks, n), func(b *testing.B) {
					drv.KKTChunkRows = solver.DefaultTuning().KKTChunkRows
					if chunks == "1" {
						drv.KKTChunkRows = math.MaxInt32
					}
					testkit.WithProcs(n, func() {
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
