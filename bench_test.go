package acfcd

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

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
				testkit.WithProcs(n, func() {
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
