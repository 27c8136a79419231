package solver

import (
	"fmt"
	"math"
	"testing"
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
