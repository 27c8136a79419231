// Command selections measures acfcd's coordinate selections on data files:
// for every file × problem (-s) × C (or the LASSO's alpha) × eps × seed ×
// sweep kind it trains with each selection through the public API and
// prints one line per run: steps, epochs, operations, wall and CPU
// seconds, the objective, primal, duality gap and KKT violation at the
// returned model, and whether it converged.
//
//	go run ./bench/selections -data /tmp/d/debian-desc.binary -s 3 -c 100 -e 0.01
//	go run ./bench/selections -data train.svm -test test.svm -s ww -c 0.1 -B 1 -cross
//	go run ./bench/selections -data cpusmall.svm -s lasso -alpha 0.1,0.01 -gap-tol 1e-6
//	go run ./bench/selections -data kdd1m.acf -select acf+shrink -e 0.1 -sweeps whole,streamed -seeds 1,2,3
//
// -target OBJ adds the CPU seconds each run took to first reach an
// objective of at most OBJ; -cross, when each selection first reached the
// final objective of each other (both from the objective reported once
// per epoch; for one-vs-rest problems, the first class's). -test FILE adds
// the accuracy (or the LASSO's MSE) on held-out data. -sweeps streamed
// streams every sweep in shuffled chunks of rows/-chunk-div steps, as
// sweeps above Tuning.SweepStreamMin examples are: does streaming cost
// convergence? Run it alone on a quiet machine; times are noisy otherwise.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/acf"
	"github.com/acfcd/acfcd/bench/internal/benchkit"
	"github.com/acfcd/acfcd/internal/tune"
	"github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/multiclass"
)

type options struct {
	data       []string
	test       string
	problems   []acfcd.Problem
	cs, alphas []float64
	eps        []float64
	selects    []acfcd.Selection
	seeds      []uint64
	sweeps     []string
	chunkDiv   int
	bias       float64
	maxEpochs  int
	noFallback bool
	noPrefetch bool
	noPush     bool
	acf        acf.Config
	gapTol     float64
	intercept  bool
	target     float64
	cross      bool
	threads    int
}

func main() {
	benchkit.Main("selections", parseOptions, func(o *options) error { return run(o, os.Stdout) })
}

func parseOptions(args []string) (*options, error) {
	fs := flag.NewFlagSet("selections", flag.ContinueOnError)
	benchkit.SetUsage(fs, "go run ./bench/selections -data FILE[,FILE...]",
		"Trains each file with each coordinate selection and prints one line per run.")
	data := fs.String("data", "", "comma-separated data files (any format acfcd reads)")
	test := fs.String("test", "", "held-out file: report accuracy (LASSO: MSE) on it")
	s := fs.String("s", "1", "problems: liblinear -s numbers, ww, lasso")
	c := fs.String("c", "1", "C values (not the LASSO)")
	alpha := fs.String("alpha", "0.01", "LASSO: scikit-learn's alpha values, λ = alpha·rows")
	e := fs.String("e", "0", "stopping tolerances (0: the problem's default)")
	sel := fs.String("select", "uniform,shrink,acf,acf+shrink", "selections (auto: the problem's default)")
	seeds := fs.String("seeds", "1", "seeds")
	sweeps := fs.String("sweeps", "whole", "whole, streamed or both: how sweeps are built")
	o := &options{}
	fs.IntVar(&o.chunkDiv, "chunk-div", 5, "streamed sweeps: chunks of rows/chunk-div steps")
	fs.Float64Var(&o.bias, "B", -1, "bias (liblinear's -B; ≤ 0: none)")
	fs.IntVar(&o.maxEpochs, "max-epochs", 0, "epoch cap (0: the default)")
	fs.BoolVar(&o.noFallback, "no-fallback", false, "pure coordinate descent: no Newton or interior-point finisher, no push of duplicate rows")
	fs.BoolVar(&o.noPrefetch, "no-prefetch", false, "no prefetching of coordinates' data (Tuning.PrefetchAhead = 0)")
	fs.BoolVar(&o.noPush, "no-push", false, "no push of identical rows with opposite labels (Tuning.PushDups = false)")
	acfFlag := fs.String("acf", "", "ACF constants c,pmin,pmax (empty: the paper's defaults)")
	fs.Float64Var(&o.gapTol, "gap-tol", 0, "LASSO: stop at duality gap ≤ gap-tol·‖y‖² (scikit-learn's tol); 0: the KKT tolerance")
	fs.BoolVar(&o.intercept, "intercept", false, "LASSO: fit an unpenalised intercept")
	fs.Float64Var(&o.target, "target", math.Inf(-1), "report the CPU seconds to first reach an objective ≤ this")
	fs.BoolVar(&o.cross, "cross", false, "report when each selection first reached each other's final objective")
	fs.IntVar(&o.threads, "threads", 0, "parser goroutines (0: GOMAXPROCS)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.data = benchkit.SplitList(*data); len(o.data) == 0 {
		return nil, errors.New("-data: no files given")
	}
	o.test = *test
	float := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	var err error
	if o.problems, err = benchkit.ParseList(*s, acfcd.ParseProblem); err != nil {
		return nil, fmt.Errorf("-s: %w", err)
	}
	if o.cs, err = benchkit.ParseList(*c, float); err != nil {
		return nil, fmt.Errorf("-c: %w", err)
	}
	if o.alphas, err = benchkit.ParseList(*alpha, float); err != nil {
		return nil, fmt.Errorf("-alpha: %w", err)
	}
	if o.eps, err = benchkit.ParseList(*e, float); err != nil {
		return nil, fmt.Errorf("-e: %w", err)
	}
	if o.selects, err = benchkit.ParseList(*sel, acfcd.ParseSelection); err != nil {
		return nil, fmt.Errorf("-select: %w", err)
	}
	if o.seeds, err = benchkit.ParseList(*seeds, func(s string) (uint64, error) { return strconv.ParseUint(s, 10, 64) }); err != nil {
		return nil, fmt.Errorf("-seeds: %w", err)
	}
	for _, w := range benchkit.SplitList(*sweeps) {
		if w != "whole" && w != "streamed" {
			return nil, fmt.Errorf("-sweeps: %q is neither whole nor streamed", w)
		}
		o.sweeps = append(o.sweeps, w)
	}
	if len(o.problems) == 0 || len(o.cs) == 0 || len(o.alphas) == 0 || len(o.eps) == 0 || len(o.selects) == 0 || len(o.seeds) == 0 || len(o.sweeps) == 0 {
		return nil, errors.New("-s, -c, -alpha, -e, -select, -seeds and -sweeps need at least one value each")
	}
	if o.chunkDiv < 1 {
		return nil, errors.New("-chunk-div must be at least 1")
	}
	if *acfFlag != "" {
		v, err := benchkit.ParseList(*acfFlag, float)
		if err != nil || len(v) != 3 {
			return nil, fmt.Errorf("-acf %q: want c,pmin,pmax", *acfFlag)
		}
		o.acf = acf.Config{C: v[0], PMin: v[1], PMax: v[2]}
		if err := o.acf.Validate(); err != nil {
			return nil, fmt.Errorf("-acf: %w", err)
		}
	}
	return o, nil
}

// point is the objective a run had reached after cpu seconds.
type point struct{ cpu, obj float64 }

func run(o *options, w io.Writer) error {
	var test *acfcd.Dataset
	if o.test != "" {
		var err error
		if test, err = acfcd.Load(o.test, acfcd.Options{Threads: o.threads}); err != nil {
			return err
		}
		defer test.Close()
	}
	for _, path := range o.data {
		d, err := acfcd.Load(path, acfcd.Options{Threads: o.threads})
		if err != nil {
			return err
		}
		name := filepath.Base(path)
		fmt.Fprintf(w, "# %s: %d rows, %d features, %d nnz\n", name, d.Rows, d.Features, d.NNZ())
		for _, prob := range o.problems {
			if err := runProblem(o, w, name, d, test, prob); err != nil {
				d.Close()
				return err
			}
		}
		d.Close()
	}
	return nil
}

// runProblem runs every setting of one problem on d.
func runProblem(o *options, w io.Writer, name string, d, test *acfcd.Dataset, prob acfcd.Problem) error {
	costs, what := o.cs, "C"
	if prob == acfcd.Lasso {
		costs, what = o.alphas, "alpha"
	}
	for _, cost := range costs {
		for _, eps := range o.eps {
			for _, seed := range o.seeds {
				for _, sweep := range o.sweeps {
					traces := map[string][]point{}
					finals := map[string]float64{}
					var order []string
					for _, sel := range o.selects {
						p := o.params(d, prob, cost, eps, seed, sweep, sel)
						var trace []point
						cpu0 := benchkit.ProcessCPU()
						p.Progress = func(pr acfcd.Progress) {
							if pr.Class <= 1 {
								trace = append(trace, point{benchkit.ProcessCPU() - cpu0, pr.Objective})
							}
						}
						m, res, err := acfcd.Train(o.tuned(d, sweep), d, p)
						cpu := benchkit.ProcessCPU() - cpu0
						if err != nil {
							return fmt.Errorf("%s -s %s %s %g %s: %w", name, prob.Flag(), what, cost, sel, err)
						}
						fmt.Fprintf(w, "%-24s -s %-5s %s %-7g eps %-7g seed %d %-8s %-10s steps %11d epochs %6d ops %13d %8.3fs wall %8.3fs cpu obj %.10g primal %.10g gap %.3g viol %.3g nnzw %d newton %d conv %v",
							name, prob.Flag(), what, cost, res.Eps, seed, sweep, sel, res.Iterations, res.Epochs, res.Operations, res.Seconds, cpu,
							res.Objective, res.Primal, res.Gap, res.Violation, res.NNZW, res.NewtonSteps, res.Converged)
						if test != nil {
							ev, err := acfcd.Evaluate(m, test)
							if err != nil {
								return fmt.Errorf("-test %s: %w", o.test, err)
							}
							if prob == acfcd.Lasso {
								fmt.Fprintf(w, " test-mse %.6g", ev.MSE)
							} else {
								fmt.Fprintf(w, " test-acc %.2f%%", ev.Accuracy)
							}
						}
						fmt.Fprintln(w)
						if !math.IsInf(o.target, -1) {
							fmt.Fprintf(w, "    reached objective %.10g after %s\n", o.target, reached(trace, o.target))
						}
						final := res.Objective
						if len(res.Classes) > 0 {
							final = res.Classes[0].Objective
						}
						key := sel.String()
						traces[key], finals[key] = trace, final
						order = append(order, key)
					}
					if o.cross {
						for _, a := range order {
							for _, b := range order {
								if a != b {
									fmt.Fprintf(w, "    %s reached %s's final objective %.10g after %s\n", a, b, finals[b], reached(traces[a], finals[b]))
								}
							}
						}
					}
				}
			}
		}
	}
	return nil
}

// tuned returns the context of one run: the driver's and the families'
// constants that the flags change (internal/tune).
func (o *options) tuned(d *acfcd.Dataset, sweep string) context.Context {
	drv, dt, mt := solver.DefaultTuning(), dual.DefaultTuning(), multiclass.DefaultTuning()
	if o.noPrefetch {
		drv.PrefetchAhead = 0
	}
	if o.noPush {
		dt.PushDups, mt.PushDups = false, false
	}
	if sweep == "streamed" {
		drv.SweepStreamMin = 0
		drv.SweepChunk = max(1, d.Rows/o.chunkDiv)
	}
	return tune.With(tune.With(tune.With(context.Background(), &drv), &dt), &mt)
}

// params are the training parameters of one run.
func (o *options) params(d *acfcd.Dataset, prob acfcd.Problem, cost, eps float64, seed uint64, sweep string, sel acfcd.Selection) acfcd.Params {
	p := acfcd.Params{Problem: prob, C: cost, Eps: eps, Bias: o.bias, Select: sel, Seed: seed,
		MaxEpochs: o.maxEpochs, NoFallback: o.noFallback, ACF: o.acf}
	if prob == acfcd.Lasso {
		p.C = 0
		p.Lambda = cost * float64(d.Rows)
		p.Intercept = o.intercept
		if o.gapTol > 0 {
			p.GapTol = o.gapTol * sumSquares(d.Label, o.intercept)
		}
	}
	return p
}

// sumSquares is ‖y‖², or ‖y − ȳ‖² with an intercept: scikit-learn's scale
// of tol.
func sumSquares(y []float64, centre bool) float64 {
	var mean float64
	if centre && len(y) > 0 {
		for _, v := range y {
			mean += v
		}
		mean /= float64(len(y))
	}
	var s float64
	for _, v := range y {
		s += (v - mean) * (v - mean)
	}
	return s
}

// reached says when trace first reached an objective ≤ target.
func reached(trace []point, target float64) string {
	for _, pt := range trace {
		if pt.obj <= target {
			return fmt.Sprintf("%.3fs cpu", pt.cpu)
		}
	}
	return "never (of the objectives reported per epoch)"
}
