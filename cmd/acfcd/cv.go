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
// liblinear prints it, fold after fold; then liblinear's result lines,
// and with report the --report json object. More folds than examples
// are leave-one-out, as liblinear's.
func crossValidate(ctx context.Context, stdout, stderr io.Writer, d *acfcd.Dataset, p acfcd.Params, folds int, quiet, report bool) error {
	folds = clampFolds(stderr, d, folds)
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
				printWarning(stderr, w)
			}
		}
	}
	if !quiet {
		for _, fr := range r.Results {
			printBlocks(stdout, p.Problem, nil, fr)
		}
	}
	rep := cvReport{Folds: r.Folds, Rows: r.Rows}
	if p.Problem.Regression() {
		fmt.Fprintf(stdout, "Cross Validation Mean squared error = %s\n", cG(r.MSE))
		fmt.Fprintf(stdout, "Cross Validation Squared correlation coefficient = %s\n", cG(r.R2))
		rep.MSE, rep.R2 = ptrNum(r.MSE), ptrNum(r.R2)
	} else {
		fmt.Fprintf(stdout, "Cross Validation Accuracy = %s%%\n", cG(r.Accuracy))
		rep.Accuracy, rep.Correct = ptrNum(r.Accuracy), &r.Correct
	}
	if report {
		return writeJSON(stdout, rep)
	}
	return nil
}

// clampFolds returns folds, or for more folds than rows the rows, with
// liblinear's warning: leave-one-out.
func clampFolds(stderr io.Writer, d *acfcd.Dataset, folds int) int {
	if folds <= d.Rows || d.Rows == 0 {
		return folds
	}
	fmt.Fprintln(stderr, "WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out cross validation)")
	return d.Rows
}

// cvReport is the --report json object of -v: the accuracy (and the
// examples predicted right) of a classifier, the MSE and r² of a
// regression.
type cvReport struct {
	Folds    int      `json:"folds"`
	Rows     int      `json:"rows"`
	Accuracy *jsonNum `json:"accuracy,omitempty"`
	Correct  *int     `json:"correct,omitempty"`
	MSE      *jsonNum `json:"mse,omitempty"`
	R2       *jsonNum `json:"r2,omitempty"`
}
