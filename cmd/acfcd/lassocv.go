package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/acfcd/acfcd"
)

// lassoCV is -s lasso -v K without --lambda: λ by cross-validation as
// cv.glmnet (acfcd.CrossValidatePath): the path on all of DATA (N λ of
// --lambda-path, default 100, to --lambda-ratio, glmnet's early stop), the
// same λ on each fold's complement, one line per λ with the mean squared
// error of the held-out rows and its standard error, then λ.min and
// λ.1se; the model on all of DATA at --lambda-choice is saved to
// modelPath. A cancelled run saves nothing. --report json reports the
// saved model's point and the whole cross-validation's seconds.
func (t *trainFlags) lassoCV(ctx context.Context, stdout, info, stderr io.Writer, d *acfcd.Dataset, p acfcd.Params, modelPath string) error {
	if t.folds > d.Rows {
		return usagef("-v %d: more folds than the %d examples", t.folds, d.Rows)
	}
	p.Progress = nil // the folds run in parallel: no single progress line
	start := time.Now()
	cv, err := acfcd.CrossValidatePath(ctx, d, p, acfcd.CVPathOptions{Folds: t.folds, N: t.lambdaPath, Ratio: t.lambdaRatio})
	if err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	if !t.quiet {
		fmt.Fprintf(info, "%4s %14s %14s %14s %8s\n", "k", "lambda", "mean error", "SE", "nnz")
		for j, lam := range cv.Lambda {
			fmt.Fprintf(info, "%4d %14.6g %14.6g %14.6g %8d\n", j+1, lam, cv.MeanError[j], cv.SE[j], cv.NNZ[j])
		}
	}
	fmt.Fprintf(info, "lambda.min = %s (k = %d, mean error %s, nnz %d)\n", cG(cv.LambdaMin), cv.IndexMin+1, cG(cv.MeanError[cv.IndexMin]), cv.NNZ[cv.IndexMin])
	fmt.Fprintf(info, "lambda.1se = %s (k = %d, mean error %s, nnz %d)\n", cG(cv.Lambda1SE), cv.Index1SE+1, cG(cv.MeanError[cv.Index1SE]), cv.NNZ[cv.Index1SE])
	k := cv.Index1SE
	if t.choice == "min" {
		k = cv.IndexMin
	}
	pt := cv.Path[k]
	if !pt.Converged {
		fmt.Fprintf(stderr, "acfcd: warning: the model at lambda.%s did not converge (violation %g, gap %g; raise --max-epochs)\n", t.choice, pt.Violation, pt.Gap)
	}
	if !t.quiet {
		fmt.Fprintf(info, "saving the model at lambda.%s = %s to %s\n", t.choice, cG(pt.Lambda), modelPath)
	}
	if err := saveModel(ctx, stdout, pt.Model, modelPath); err != nil {
		return err
	}
	if t.report == "json" {
		sel := p.Select
		r := newReport(&acfcd.Result{Solver: "LASSO", Select: sel.String(), Eps: p.Eps, Iterations: pt.Iterations,
			Epochs: pt.Epochs, Seconds: secs, Objective: pt.Objective, Primal: pt.Objective, Gap: pt.Gap,
			Violation: pt.Violation, NNZW: pt.NNZ, SupportVectors: -1, Converged: pt.Converged})
		kMin, k1SE := cv.IndexMin+1, cv.Index1SE+1
		r.LambdaMin, r.KMin, r.Lambda1SE, r.K1SE = ptrNum(cv.LambdaMin), &kMin, ptrNum(cv.Lambda1SE), &k1SE
		return writeJSON(info, r)
	}
	return nil
}
