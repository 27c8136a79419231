// Command acfcd-beam trains acfcd's dual linear SVMs and logistic
// regression (-s 1, 3, 7; two classes) on Apache Beam by CoCoA+ with ACF
// coordinate descent as the local solver (package
// github.com/acfcd/acfcd/beam/pipeline), and writes the model in
// liblinear's format, as acfcd train does:
//
//	acfcd-beam train [options] --runner prism|flink|spark|dataflow --workers K [--rounds R] DATA MODEL
//
// DATA is a libsvm file or a glob of shards (quoted), read through Beam's
// filesystems. Options are liblinear's -s, -c, -e, -B and -q, and:
//
//	--workers K   blocks of examples, one local solver each (σ' = K)
//	--rounds R    the most rounds (default 100)
//	--epochs E    local coordinate steps per round, in epochs of a block (default 1)
//	--gap G       stop at an absolute duality gap G as well
//	--select S    local selection: acf (default), uniform, acf+shrink, shrink, cyclic
//	--seed N      seed of the local selections
//	--workdir DIR blocks, states and updates between rounds (default: a
//	              temporary directory; on a cluster, storage every worker reaches)
//
// -e eps stops at a duality gap of at most eps times the primal objective
// (default 0.001): the primal objective is then within that fraction of
// the optimum. Every round prints to standard error the duality gap, the
// primal and dual objectives, the bytes communicated and the seconds.
// Beam's own pipeline options (--endpoint, --environment_type,
// --project, --region, --temp_location, …) are taken as well.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/beam/pipeline"
	"github.com/acfcd/acfcd/cocoa"
	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/core/runtime/exec/optimized"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/gcs"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"
)

const usage = "usage: acfcd-beam train [-s 1|3|7] [-c C] [-e eps] [-B bias] [-q] --runner prism|flink|spark|dataflow --workers K [--rounds R] [--step add|line|line1] DATA MODEL\n"

var (
	s       = flag.String("s", "1", "solver: 1 (L2-loss SVC dual), 3 (L1-loss SVC dual), 7 (logistic regression dual)")
	c       = flag.Float64("c", 1, "cost C")
	eps     = flag.Float64("e", 0.001, "stop at a duality gap of at most eps times the primal objective")
	bias    = flag.Float64("B", -1, "if > 0, every example gets a bias feature of this value")
	quiet   = flag.Bool("q", false, "quiet: no line per round")
	workers = flag.Int("workers", 0, "number of blocks K (local solvers)")
	rounds  = flag.Int("rounds", 100, "the most rounds")
	epochs  = flag.Float64("epochs", 1, "local steps per round, in epochs of a block")
	gap     = flag.Float64("gap", 0, "stop at this absolute duality gap as well")
	sel     = flag.String("select", "acf", "local coordinate selection")
	seed    = flag.Uint64("seed", 0, "seed of the local selections (0: acfcd's default)")
	workdir = flag.String("workdir", "", "directory for the state between rounds (default: temporary)")
	kappa   = flag.String("kappa", "auto", "Catalyst's κ: the rounds solve P(w) + κ/2‖w − z‖² and z moves every --outer rounds;\nauto: 2C·mean‖x_i‖² (C/4·… for -s 7) for 2 or more workers; 0: none")
	outer   = flag.Int("outer", 3, "rounds per Catalyst step")
	step    = flag.String("step", "", "how the driver combines the blocks' updates: add (CoCoA+: σ' = K, added),\nline (σ' = K and a line search on their sum), line1 (σ' = 1 and the line search);\ndefault line1 for -s 1 and 3, add for -s 7")
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "train" {
		os.Exit(train(os.Args[2:], os.Stderr))
	}
	// A Beam worker is started with --worker and Beam's flags.
	flag.Parse()
	beam.Init()
	fmt.Fprint(os.Stderr, usage)
	os.Exit(2)
}

func train(args []string, stderr io.Writer) int {
	for _, a := range args {
		if len(a) > 2 && strings.HasPrefix(a, "-w") && strings.IndexAny(a[2:3], "-0123456789") == 0 {
			fmt.Fprintf(stderr, "acfcd-beam: %s: class weights are not supported by distributed training\n", a)
			return 2
		}
	}
	fs := flag.CommandLine
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage); fs.PrintDefaults() }
	// Every call starts from the defaults (tests call train repeatedly).
	for _, name := range []string{"s", "c", "e", "B", "q", "workers", "rounds", "epochs", "gap", "select", "seed", "workdir", "step", "kappa", "outer", "runner"} {
		f := fs.Lookup(name)
		f.Value.Set(f.DefValue)
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	beam.Init()
	// Prism logs every job at level INFO: only its warnings and errors
	// are kept beside the line per round.
	slog.SetDefault(slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if fs.NArg() != 2 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	data, modelPath := fs.Arg(0), fs.Arg(1)
	fail := func(err error) int {
		fmt.Fprintf(stderr, "acfcd-beam: %v\n", err)
		return 1
	}
	var problem acfcd.Problem
	switch *s {
	case "1":
		problem = acfcd.SquaredHingeDual
	case "3":
		problem = acfcd.HingeDual
	case "7":
		problem = acfcd.LogisticDual
	default:
		fmt.Fprintf(stderr, "acfcd-beam: -s %s: distributed training takes -s 1, 3 or 7\n", *s)
		return 2
	}
	var selection acfcd.Selection
	if err := selection.UnmarshalText([]byte(*sel)); err != nil {
		fmt.Fprintf(stderr, "acfcd-beam: --select: %v\n", err)
		return 2
	}
	st := cocoa.Line1
	if problem == acfcd.LogisticDual {
		st = cocoa.Add
	}
	if *step != "" {
		var err error
		if st, err = cocoa.ParseStep(*step); err != nil {
			fmt.Fprintf(stderr, "acfcd-beam: --step: %v\n", err)
			return 2
		}
		if st.LineSearch() && problem == acfcd.LogisticDual {
			fmt.Fprintf(stderr, "acfcd-beam: --step %s: the line search needs -s 1 or 3 (use --step add with -s 7)\n", st)
			return 2
		}
	}
	kap := -1.0 // auto
	if *kappa != "auto" {
		v, err := strconv.ParseFloat(*kappa, 64)
		if err != nil || !(v >= 0) || math.IsInf(v, 0) {
			fmt.Fprintf(stderr, "acfcd-beam: --kappa %s: want auto or a number ≥ 0\n", *kappa)
			return 2
		}
		kap = v
	}
	if *outer < 1 {
		fmt.Fprintf(stderr, "acfcd-beam: --outer %d: want at least 1\n", *outer)
		return 2
	}
	if *workers < 1 {
		fmt.Fprintf(stderr, "acfcd-beam: --workers %d: want at least 1\n", *workers)
		return 2
	}
	if !(*eps > 0) {
		fmt.Fprintf(stderr, "acfcd-beam: -e %g: want > 0\n", *eps)
		return 2
	}
	if *runners.Runner == "" {
		*runners.Runner = "prism"
	}
	dir := *workdir
	if dir == "" {
		d, err := os.MkdirTemp("", "acfcd-beam-")
		if err != nil {
			return fail(err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	cfg := pipeline.Config{
		Spec: cocoa.Spec{Problem: problem, C: *c, Bias: *bias, Select: selection, Seed: *seed},
		Data: data, WorkDir: dir, Runner: *runners.Runner, Workers: *workers,
		Epochs: *epochs, MaxRounds: *rounds, Gap: *gap, RelGap: *eps, Step: st,
		Kappa: kap, OuterRounds: *outer,
	}
	if !*quiet {
		cfg.Log = stderr
	}
	res, err := pipeline.Train(context.Background(), cfg)
	if err != nil {
		return fail(err)
	}
	m := res.Spec.Model(res.W)
	if err := m.Save(modelPath); err != nil {
		return fail(err)
	}
	last := res.Rounds[len(res.Rounds)-1]
	if !*quiet {
		fmt.Fprintf(stderr, "%d rounds, %d examples in %d blocks, duality gap %.6g, primal %.10g, %.3f s\n",
			len(res.Rounds), res.Rows, res.Spec.K, last.Gap, last.Primal, last.Seconds)
	}
	if !res.Converged {
		return fail(errors.New("the duality gap did not reach -e or --gap within --rounds: the model is written but not converged"))
	}
	return 0
}
