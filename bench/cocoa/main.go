// Command cocoa measures distributed training by CoCoA+ with acfcd's dual
// coordinate descent as the local solver, simulated with K in-process
// blocks (package cocoa): for every data file × K × local budget × local
// selection, the rounds and total local steps to a duality gap of -gap
// (absolute, in liblinear's objective units), and to -gap-rel times the
// primal, against single-machine acfcd (acfcd.Train with -e). One line per
// run, key=value:
//
//	go run ./bench/cocoa -data /tmp/d/debian-desc.binary -s 1 -c 1 -k 1,2,4,8,16 -epochs 0.5,1,4
//
// -trace N adds a line every N rounds (gap, primal, dual, steps).
// -textbook S runs, instead of package cocoa, CoCoA+ as Ma et al. (2015)
// state it, written out plainly (-s 1 and 3; S sweeps in random order over
// each block's local subproblem per round): the rounds of the method itself, to
// compare with the blocks' at a large local budget.
// -modes R prints, after R rounds, where the K blocks' errors against the
// optimum lie: whether they cancel in w, and on which features.
//
// Rounds and steps are deterministic; seconds are medians of -reps runs,
// with the process CPU seconds of the same runs (the blocks of a round run
// on -procs goroutines).
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/bench/internal/benchkit"
	"github.com/acfcd/acfcd/cocoa"
)

type options struct {
	data      []string
	problem   acfcd.Problem
	c, eps    float64
	ks        []int
	epochs    []float64
	selects   []acfcd.Selection
	gap, rel  float64
	maxRounds int
	stopRel   bool
	reps      int
	procs     int
	eval      []string
	trace     int
	textbook  int
	modes     int
	steps     []string
	kappa     string
	outer     int
}

// stepSpec sets the outer step of -step's name (cocoa.ParseStep).
func stepSpec(name string, spec *cocoa.Spec, opt *cocoa.Options) error {
	st, err := cocoa.ParseStep(name)
	if err != nil {
		return fmt.Errorf("-step: %v", err)
	}
	opt.LineSearch, spec.Sigma = st.LineSearch(), st.Sigma()
	return nil
}

func main() { benchkit.Main("cocoa", parse, run) }

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("cocoa", flag.ContinueOnError)
	data := fs.String("data", "", "comma-separated data files (libsvm text or .acf caches)")
	s := fs.String("s", "1", "problem: 1, 3 or 7")
	fs.Float64Var(&o.c, "c", 1, "C")
	fs.Float64Var(&o.eps, "e", 0.001, "single-machine acfcd's tolerance -e")
	ks := fs.String("k", "1,2,4,8,16", "blocks K (σ' = K)")
	ep := fs.String("epochs", "0.5,1,4", "local budgets in epochs of a block")
	sel := fs.String("select", "acf,uniform", "local selections")
	fs.StringVar(&o.kappa, "kappa", "0", "Catalyst's κ: a number, or auto (cocoa.DefaultKappa); 0: none")
	fs.IntVar(&o.outer, "outer", cocoa.DefaultOuterRounds, "rounds per Catalyst step")
	st := fs.String("step", "add", "outer steps: add (σ' = K, γ = 1), line (and a line search on the sum), line1 (σ' = 1 and the line search)")
	fs.Float64Var(&o.gap, "gap", 1e-3, "absolute duality gap to reach")
	fs.Float64Var(&o.rel, "gap-rel", 1e-3, "also report the rounds to a gap of this times the primal")
	fs.BoolVar(&o.stopRel, "stop-rel", false, "stop at the relative gap -gap-rel rather than at -gap")
	fs.IntVar(&o.maxRounds, "max-rounds", 500, "cap on the rounds")
	fs.IntVar(&o.reps, "reps", 1, "runs per configuration for the median seconds")
	fs.IntVar(&o.procs, "procs", 0, "goroutines running the blocks (0: GOMAXPROCS)")
	fs.IntVar(&o.trace, "trace", 0, "print a line every this many rounds (0: none)")
	fs.IntVar(&o.textbook, "textbook", 0, "run plain CoCoA+ with this many local sweeps per round instead (-s 1, 3)")
	fs.IntVar(&o.modes, "modes", 0, "after this many rounds, print where the blocks' errors against one block's optimum lie (K ≥ 2; first -epochs and -select)")
	ev := fs.String("eval", "", "comma-separated model files: print the primal objective of each on -data (-s, -c) and stop")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.data = benchkit.SplitList(*data)
	o.eval = benchkit.SplitList(*ev)
	o.steps = benchkit.SplitList(*st)
	for _, name := range o.steps {
		if err := stepSpec(name, &cocoa.Spec{}, &cocoa.Options{}); err != nil {
			return o, err
		}
	}
	if len(o.data) == 0 {
		return o, fmt.Errorf("-data is required")
	}
	var err error
	if o.problem, err = parseProblem(*s); err != nil {
		return o, err
	}
	if o.ks, err = benchkit.ParseList(*ks, strconv.Atoi); err != nil {
		return o, err
	}
	if o.epochs, err = benchkit.ParseList(*ep, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }); err != nil {
		return o, err
	}
	if o.selects, err = benchkit.ParseList(*sel, func(s string) (acfcd.Selection, error) {
		var v acfcd.Selection
		return v, v.UnmarshalText([]byte(s))
	}); err != nil {
		return o, err
	}
	return o, nil
}

func parseProblem(s string) (acfcd.Problem, error) {
	switch s {
	case "1":
		return acfcd.SquaredHingeDual, nil
	case "3":
		return acfcd.HingeDual, nil
	case "7":
		return acfcd.LogisticDual, nil
	}
	return 0, fmt.Errorf("-s %s: want 1, 3 or 7", s)
}

func median(x []float64) float64 {
	y := slices.Clone(x)
	slices.Sort(y)
	return y[len(y)/2]
}

func run(o options) error {
	if len(o.eval) > 0 {
		return evaluate(o)
	}
	if o.textbook > 0 {
		return runTextbook(o)
	}
	if o.modes > 0 {
		return runModes(o)
	}
	ctx := context.Background()
	for _, path := range o.data {
		d, err := acfcd.Load(path, acfcd.Options{})
		if err != nil {
			return err
		}
		name := filepath.Base(path)
		// Single machine: acfcd train's defaults at -e.
		var secs, cpus []float64
		var res *acfcd.Result
		for range o.reps {
			c0, t0 := benchkit.ProcessCPU(), time.Now()
			_, r, err := acfcd.Train(ctx, d, acfcd.Params{Problem: o.problem, C: o.c, Eps: o.eps})
			if err != nil {
				return err
			}
			secs, cpus = append(secs, time.Since(t0).Seconds()), append(cpus, benchkit.ProcessCPU()-c0)
			res = r
		}
		fmt.Printf("data=%s s=%s c=%g run=single select=%s e=%g steps=%d epochs_of_work=%.2f primal=%.10g gap=%.3g seconds=%.3f cpu_seconds=%.3f\n",
			name, o.problem.Flag(), o.c, res.Select, o.eps, res.Iterations, float64(res.Iterations)/float64(d.Rows), res.Primal, res.Gap, median(secs), median(cpus))
		relStop := 0.0
		if o.stopRel {
			relStop = o.rel
		}
		meanSq := cocoa.MeanSq(d, 0)
		labels, err := cocoa.Labels(nil, d.Label)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		for _, k := range o.ks {
			for _, ep := range o.epochs {
				for _, sel := range o.selects {
					for _, step := range o.steps {
						spec := cocoa.Spec{Problem: o.problem, C: o.c, K: k, Features: d.Features, Labels: labels, Select: sel}
						sopt := cocoa.Options{Epochs: ep, Gap: o.gap, RelGap: relStop, MaxRounds: o.maxRounds, Procs: o.procs, OuterRounds: o.outer}
						if o.kappa == "auto" {
							spec.Kappa = cocoa.DefaultKappa(o.problem, o.c, meanSq, k)
						} else if spec.Kappa, err = strconv.ParseFloat(o.kappa, 64); err != nil || spec.Kappa < 0 {
							return fmt.Errorf("-kappa %s: want auto or a number ≥ 0", o.kappa)
						}
						if err := stepSpec(step, &spec, &sopt); err != nil {
							return err
						}
						var secs, cpus []float64
						var sim *cocoa.Result
						relRound, relSteps := -1, int64(-1)
						for range o.reps {
							relRound, relSteps = -1, -1
							c0, t0 := benchkit.ProcessCPU(), time.Now()
							sopt.Progress = func(r cocoa.Round) {
								if relRound < 0 && r.Gap <= o.rel*math.Abs(r.Primal) {
									relRound, relSteps = r.Round, r.Steps
								}
								if o.trace > 0 && r.Round%o.trace == 0 {
									traceLine(name, k, ep, sel.String()+" step="+step, r.Round, r.Gap, r.Primal, r.Dual, r.Steps)
									fmt.Printf("data=%s K=%d round=%d gamma=%.4g\n", name, k, r.Round, r.Gamma)
								}
							}
							sim, err = cocoa.Simulate(ctx, d, spec, sopt)
							if err != nil {
								return err
							}
							secs, cpus = append(secs, time.Since(t0).Seconds()), append(cpus, benchkit.ProcessCPU()-c0)
						}
						last := sim.Rounds[len(sim.Rounds)-1]
						var bytes int64
						for _, r := range sim.Rounds {
							bytes += r.Bytes
						}
						fmt.Printf("data=%s s=%s c=%g run=cocoa K=%d epochs=%g select=%s step=%s kappa=%.4g outer=%d rounds=%d steps=%d epochs_of_work=%.2f converged=%v gap=%.3g primal=%.10g rounds_rel=%d steps_rel=%d bytes_per_round=%d seconds=%.3f cpu_seconds=%.3f\n",
							name, o.problem.Flag(), o.c, k, ep, sel, step, spec.Kappa, o.outer, last.Round, last.Steps, float64(last.Steps)/float64(d.Rows), sim.Converged, last.Gap, last.Primal,
							relRound, relSteps, bytes/int64(len(sim.Rounds)), median(secs), median(cpus))
					}
				}
			}
		}
		d.Close()
	}
	return nil
}

// evaluate prints the primal objective ½‖w‖² + C Σ_i loss(y_i wᵀx_i) of
// each model on each data file, from the model file and the data alone.
func evaluate(o options) error {
	for _, path := range o.data {
		d, err := acfcd.Load(path, acfcd.Options{})
		if err != nil {
			return err
		}
		for _, mp := range o.eval {
			m, err := acfcd.LoadModel(mp)
			if err != nil {
				return err
			}
			if m.NrW != 1 {
				return fmt.Errorf("%s: %d weight vectors, want a binary model", mp, m.NrW)
			}
			var ww, loss float64
			for _, v := range m.W {
				ww += v * v
			}
			out := []float64{0}
			for i := range d.Rows {
				idx, val := d.Row(i)
				m.Decision(idx, val, out)
				y := -1.0
				if d.Label[i] == m.Labels[0] {
					y = 1
				}
				mg := y * out[0]
				switch o.problem {
				case acfcd.SquaredHingeDual:
					if h := 1 - mg; h > 0 {
						loss += h * h
					}
				case acfcd.HingeDual:
					loss += max(0, 1-mg)
				case acfcd.LogisticDual:
					if mg > 0 {
						loss += math.Log1p(math.Exp(-mg))
					} else {
						loss += -mg + math.Log1p(math.Exp(mg))
					}
				}
			}
			fmt.Printf("data=%s model=%s s=%s c=%g primal=%.10g\n", filepath.Base(path), mp, o.problem.Flag(), o.c, ww/2+o.c*loss)
		}
		d.Close()
	}
	return nil
}
