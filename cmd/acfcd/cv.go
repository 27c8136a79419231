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
// after another. Unless quiet, each fold's training is printed as
// liblinear prints it, fold after fold; then liblinear's result lines.
func crossValidate(ctx context.Context, stdout, stderr io.Writer, d *acfcd.Dataset, p acfcd.Params, folds int, quiet bool) error {
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
	seen := map[string]bool{}
	for _, fr := range r.Results {
		for _, w := range fr.Warnings {
			if !seen[w] { // the same remark from every fold: once
				seen[w] = true
				fmt.Fprintf(stderr, "acfcd: warning: %s\n", w)
			}
		}
	}
	if !quiet {
		for _, fr := range r.Results {
			printBlocks(stdout, p.Problem, nil, fr)
		}
	}
	if p.Problem.Regression() {
		fmt.Fprintf(stdout, "Cross Validation Mean squared error = %s\n", cG(r.MSE))
		fmt.Fprintf(stdout, "Cross Validation Squared correlation coefficient = %s\n", cG(r.R2))
		return nil
	}
	fmt.Fprintf(stdout, "Cross Validation Accuracy = %s%%\n", cG(r.Accuracy))
	return nil
}
