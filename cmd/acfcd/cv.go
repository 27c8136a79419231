package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver"
)

// crossValidate trains on folds-1 parts and predicts the held-out part, as
// liblinear's -v: the rows are shuffled once (from the seed) and cut into
// folds of near-equal size.
func crossValidate(ctx context.Context, stdout io.Writer, d *dataio.Dataset, p solver.Params, folds int) error {
	if folds > d.Rows {
		return usagef("-v %d: more folds than the %d examples", folds, d.Rows)
	}
	perm := rand.New(rand.NewPCG(p.Seed, 0x6376)).Perm(d.Rows)
	correct := 0
	for f := 0; f < folds; f++ {
		lo, hi := f*d.Rows/folds, (f+1)*d.Rows/folds
		train := append(append([]int(nil), perm[:lo]...), perm[hi:]...)
		m, res, err := solver.Train(ctx, d.Subset(train), p)
		if err != nil {
			return fmt.Errorf("fold %d: %w", f+1, err)
		}
		if res.Cancelled {
			return fmt.Errorf("cross validation interrupted in fold %d", f+1)
		}
		for _, i := range perm[lo:hi] {
			idx, val := d.Row(i)
			if m.Predict(idx, val) == d.Label[i] {
				correct++
			}
		}
	}
	fmt.Fprintf(stdout, "Cross Validation Accuracy = %.6g%%\n", 100*float64(correct)/float64(d.Rows))
	return nil
}
