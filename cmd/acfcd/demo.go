package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/synth"
)

func runDemo(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("demo", stdout)
	rows := fs.Int("rows", 20000, "examples in the built-in problem")
	features := fs.Int("features", 50000, "features in the built-in problem")
	c := fs.Float64("c", 100, "cost C")
	eps := fs.Float64("e", 0.01, "stopping tolerance on the largest KKT violation")
	s := fs.Int("s", 3, "solver as liblinear: 1, 3 or 7")
	seed := fs.Uint64("seed", 1, "seed of the problem and of the solvers")
	if err := fs.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fs.args("demo takes no arguments")
	}
	if *rows < 2 || *features < 10 {
		return usagef("demo needs at least 2 rows and 10 features")
	}
	prob, err := acfcd.ParseProblem(fmt.Sprint(*s))
	if err != nil || !(*s == 1 || *s == 3 || *s == 7) {
		return usagef("-s %d: the demo trains -s 1, 3 or 7", *s)
	}
	d := synth.Text(synth.TextConfig{Rows: *rows, Features: *features, MeanNNZ: 60,
		Informative: *features / 20, Noise: 0.05, Seed: *seed})
	fmt.Fprintf(stdout, "Built-in text-like problem: %d examples, %d features, %d non-zeros (power-law term frequencies, unit-norm TF-IDF rows, 5%% label noise).\n",
		d.Rows, d.Features, d.NNZ())
	fmt.Fprintf(stdout, "Training %s with C=%g and -e %g (every selection certified by a full KKT pass):\n\n", prob, *c, *eps)

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	// Steps and epochs are the same bits on every CPU; the seconds of one
	// run move with the machine's load, so the speed-up is given in both.
	fmt.Fprintf(tw, "selection\tcoordinate steps\tepochs\tseconds\tdual objective\tviolation\tfewer steps\tspeed-up (this run)\t\n")
	var base float64
	var baseSteps int64
	for _, sel := range []acfcd.Selection{acfcd.Uniform, acfcd.Shrink, acfcd.ACF, acfcd.ACFShrink} {
		p := acfcd.Params{Problem: prob, C: *c, Eps: *eps, Select: sel, Seed: *seed}
		_, res, err := acfcd.Train(context.Background(), d, p)
		if err != nil {
			return err
		}
		if sel == acfcd.Uniform {
			base, baseSteps = res.Seconds, res.Iterations
		}
		note := ""
		if res.HitEpochCap {
			note = " (epoch cap)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.8g\t%.2g%s\t%.2fx\t%.2fx\t\n", sel, res.Iterations, res.Epochs, res.Seconds,
			res.Objective, res.Violation, note, float64(baseSteps)/float64(res.Iterations), base/res.Seconds)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "\nSteps and epochs are the same on every CPU; the seconds are one run each and move with the machine's load.\n")
	return err
}
