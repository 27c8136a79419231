package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"

	"github.com/acfcd/acfcd"
)

// findCFlags are train's flags of the parameter search (liblinear's -C).
type findCFlags struct {
	on   bool // -C
	cold bool // --cold
}

func (fc *findCFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&fc.on, "C", false, "find parameters: cross-validate (-v, default 5 folds) C from a small value (or -c) doubling up to 1024,\nand for -s 11, 12, 13 also ε (-p); print the best C (default solver with -C: -s 2, as liblinear)")
	fs.BoolVar(&fc.cold, "cold", false, "with -C: train every C from scratch instead of from the previous C's solution (-s 0, 1, 2, 3, 7, 11)")
}

// run is train -C: liblinear's parameter search (acfcd.FindC) with its
// output. The per-epoch progress line is off: the line printed after
// each C is the progress.
func (fc *findCFlags) run(ctx context.Context, stdout, stderr io.Writer, fs *flag.FlagSet, d *acfcd.Dataset, p acfcd.Params, folds int, quiet, report bool) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["s"] {
		fmt.Fprintln(stderr, "Solver not specified. Using -s 2")
		p.Problem = acfcd.SquaredHingePrimal
	}
	if folds == 0 {
		folds = 5
	}
	var opt acfcd.SearchOptions
	opt.Cold = fc.cold
	if set["c"] {
		opt.StartC = p.C
	}
	if set["p"] {
		opt.StartP = max(p.P, 0) // -p 0 is P = -1 (ε = 0) in Params
	}
	p.Progress = nil
	regression := p.Problem.Regression()
	if !quiet {
		opt.Point = func(pt acfcd.CPoint) {
			printPoint(stdout, pt, regression)
		}
	}
	fmt.Fprintf(stdout, "Doing parameter search with %d-fold cross validation.\n", folds) // before the clamp, as liblinear
	cs, err := acfcd.FindC(ctx, d, p, clampFolds(stderr, d, folds), opt)
	if err != nil {
		return err
	}
	rep := searchReport{Folds: cs.Folds, Points: len(cs.Points), BestC: cs.BestC}
	if regression {
		fmt.Fprintf(stdout, "Best C = %.6g Best p = %.6g  CV MSE = %.6g\n", cs.BestC, cs.BestP, cs.MSE)
		rep.BestP, rep.MSE = ptrNum(cs.BestP), ptrNum(cs.MSE)
	} else {
		fmt.Fprintf(stdout, "Best C = %.6g  CV accuracy = %.6g%%\n", cs.BestC, cs.Accuracy)
		rep.Accuracy = ptrNum(cs.Accuracy)
	}
	if report {
		return writeJSON(stdout, rep)
	}
	return nil
}

// searchReport is the --report json object of -C.
type searchReport struct {
	Folds    int      `json:"folds"`
	Points   int      `json:"points"` // the C (and ε) tried
	BestC    float64  `json:"best_C"`
	BestP    *jsonNum `json:"best_p,omitempty"`
	Accuracy *jsonNum `json:"accuracy,omitempty"`
	MSE      *jsonNum `json:"mse,omitempty"`
}

// printPoint prints liblinear's line for one C (%.6g is C's %g).
func printPoint(w io.Writer, pt acfcd.CPoint, regression bool) {
	log2c := math.Log(pt.C) / math.Log(2)
	if regression {
		fmt.Fprintf(w, "log2c=%7.2f\tp=%7.2f\tMean squared error=%.6g\n", log2c, pt.P, pt.MSE)
	} else {
		fmt.Fprintf(w, "log2c=%7.2f\trate=%.6g\n", log2c, pt.Accuracy)
	}
	if pt.MaxCReached {
		fmt.Fprintln(w, "WARNING: maximum C reached.")
	}
}
