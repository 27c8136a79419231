package main

import (
	"context"
	"fmt"
	"io"

	"github.com/acfcd/acfcd"
)

// crossValidate is liblinear's -v: acfcd.CrossValidate shuffles the rows
// once (from the seed), cuts them into folds of near-equal size, trains on
// folds-1 parts and predicts the held-out part; the folds train
// concurrently on the available processors, with the same result as one
// after another.
func crossValidate(ctx context.Context, stdout, stderr io.Writer, d *acfcd.Dataset, p acfcd.Params, folds int) error {
	if folds > d.Rows {
		return usagef("-v %d: more folds than the %d examples", folds, d.Rows)
	}
	r, err := acfcd.CrossValidate(ctx, d, p, folds)
	if p.Progress != nil {
		fmt.Fprintln(stderr) // end the progress line
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Cross Validation Accuracy = %.6g%%\n", r.Accuracy)
	return nil
}
