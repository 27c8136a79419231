// Command paper runs the evaluation grid of Glasmachers & Dogan's ACF
// paper with acfcd in one command: problem (linear SVM with hinge and
// squared hinge loss, logistic regression, LASSO, Weston–Watkins SVM) ×
// data set × C or λ × coordinate selection × tolerance, next to
// liblinear-train and scikit-learn where they are installed, with a time
// limit per run, and writes Markdown tables shaped like the paper's, a CSV
// of every run, a Go benchmark file for benchstat and SVG plots.
//
//	go run ./bench/paper -quick                 # a small grid, about a minute
//	go run ./bench/paper -dry-run               # the default grid and its estimated duration
//	go run ./bench/paper -out results/paper     # the default grid (an hour or more)
//
// See README.md in this directory.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// options are the command-line flags.
type options struct {
	DataDir   string
	WorkDir   string
	Out       string
	Problems  []string
	Sets      []string
	Cs        []float64
	Fracs     []float64
	Eps       []float64
	Selects   []string
	Timeout   time.Duration
	Rounds    int
	Seed      uint64
	Liblinear string
	Python    string
	SkTol     float64
	SkMaxIter int
	Quick     bool
	DryRun    bool
	Quiet     bool

	grids []problemGrid
}

func parseOptions(args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("paper", flag.ContinueOnError)
	fs.SetOutput(stderr)
	benchkit.SetUsage(fs, "go run ./bench/paper",
		"Runs the ACF paper's evaluation grid (svm, lr, lasso, ww) with acfcd's coordinate\n"+
			"selections, liblinear-train and scikit-learn, and writes Markdown, CSV, Go benchmark\n"+
			"format and SVG plots to -out. -dry-run prints the grid's size and estimated duration.")
	o := &options{}
	var problems, sets, cs, fracs, eps, selects string
	fs.StringVar(&o.DataDir, "data", benchkit.DataDir(), "directory of the data sets (default $ACFCD_DATA, else ../shared/data)")
	fs.StringVar(&o.WorkDir, "workdir", filepath.Join(os.TempDir(), "acfcd-paper-work"), "decompressed sets, splits and binary caches, kept and reused across runs")
	fs.StringVar(&o.Out, "out", "paper-results", "output directory: paper.md, runs.csv, bench.txt, plots/")
	fs.StringVar(&problems, "problems", "svm,lr,lasso,ww", "problems: svm (-s 3 and -s 1; svm3 or svm1 for one), lr (-s 7), lasso, ww")
	fs.StringVar(&sets, "sets", "", "only these data sets (short or file names); a set no grid lists joins the problems its labels fit (default: the paper grid)")
	fs.StringVar(&cs, "c", "", "values of C for svm, lr and ww, replacing each set's default list")
	fs.StringVar(&fracs, "lambda", "", "values of λ/λ_max for the LASSO, replacing each set's default list")
	fs.StringVar(&eps, "eps", "0.01,0.001", "tolerances (-e; for the LASSO the KKT violation relative to λ)")
	fs.StringVar(&selects, "select", "", "only these acfcd selections (uniform, shrink, cyclic, acf, acf+shrink; default: all that apply)")
	fs.DurationVar(&o.Timeout, "timeout", 60*time.Second, "time limit of one run's training; a run over it is reported as \"timeout\"")
	fs.IntVar(&o.Rounds, "rounds", 1, "runs per tool and configuration; tables show median times")
	fs.Uint64Var(&o.Seed, "seed", 0, "acfcd's random seed")
	fs.StringVar(&o.Liblinear, "liblinear", "liblinear-train", "liblinear-train binary (\"\" to skip)")
	fs.StringVar(&o.Python, "python", "/usr/bin/python3", "python3 with scikit-learn (\"\" to skip)")
	fs.Float64Var(&o.SkTol, "sk-tol", 1e-8, "scikit-learn Lasso tol (its duality gap ≤ tol·‖y‖²)")
	fs.IntVar(&o.SkMaxIter, "sk-max-iter", 1000000, "scikit-learn Lasso max_iter (the time limit applies too)")
	fs.BoolVar(&o.Quick, "quick", false, "small preset for CI and development: sets "+strings.Join(quickSets, ",")+", C 0.1,1,10, time limit 10s (explicit flags win)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the configurations and the estimated duration, run nothing")
	fs.BoolVar(&o.Quiet, "q", false, "no progress lines on stderr")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if o.Quick {
		if !set["sets"] {
			sets = strings.Join(quickSets, ",")
		}
		if !set["c"] {
			cs = "0.1,1,10"
		}
		if !set["timeout"] {
			o.Timeout = 10 * time.Second
		}
	}
	var err error
	o.Problems = benchkit.SplitList(problems)
	for _, p := range o.Problems {
		if _, _, err := problemOf(p); err != nil {
			return nil, fmt.Errorf("-problems: %w", err)
		}
	}
	o.Sets = benchkit.SplitList(sets)
	if o.Cs, err = parseFloats(cs); err != nil {
		return nil, fmt.Errorf("-c: %w", err)
	}
	if o.Fracs, err = parseFloats(fracs); err != nil {
		return nil, fmt.Errorf("-lambda: %w", err)
	}
	for _, f := range o.Fracs {
		if f > 1 {
			return nil, fmt.Errorf("-lambda %g: a fraction of λ_max must be ≤ 1 (w = 0 above)", f)
		}
	}
	if o.Eps, err = parseFloats(eps); err != nil || len(o.Eps) == 0 {
		return nil, fmt.Errorf("-eps: %v", err)
	}
	o.Selects = benchkit.SplitList(selects)
	for _, s := range o.Selects {
		if !slices.Contains([]string{"uniform", "shrink", "cyclic", "acf", "acf+shrink"}, s) {
			return nil, fmt.Errorf("-select %q: want uniform, shrink, cyclic, acf or acf+shrink", s)
		}
	}
	if o.Rounds < 1 {
		return nil, errors.New("-rounds must be ≥ 1")
	}
	if o.Timeout <= 0 {
		return nil, errors.New("-timeout must be > 0")
	}
	if !(o.SkTol > 0) {
		return nil, errors.New("-sk-tol must be > 0")
	}
	o.grids = defaultGrid()
	return o, nil
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-worker" {
		runWorker()
		return
	}
	benchkit.Main("paper", func(args []string) (*options, error) { return parseOptions(args, os.Stderr) },
		func(o *options) error { return run(o, os.Stdout) })
}

// run expands the grid, prints the plan and (unless -dry-run) runs it and
// writes the outputs.
func run(o *options, stdout io.Writer) error {
	start := time.Now()
	mach := machineInfo()
	ws, err := benchkit.NewWorkspace(o.DataDir, o.WorkDir, o.Quiet)
	if err != nil {
		return err
	}
	defer ws.Close()
	cfgs, err := expand(o.grids, gridOptions{Problems: o.Problems, Sets: o.Sets, Cs: o.Cs, Fracs: o.Fracs,
		Eps: o.Eps, Selects: o.Selects}, func(file string) setKind { return peekKind(ws, file) })
	if err != nil {
		return err
	}
	if len(cfgs) == 0 {
		return errors.New("the grid is empty")
	}

	r := &runner{o: o, prep: newPreparer(ws, o.Quiet)}
	llText, skText := "not run", "not run"
	if needs(cfgs, o.grids, anchorLiblinear) && o.Liblinear != "" {
		if p, err := exec.LookPath(o.Liblinear); err != nil {
			llText = "not found (" + err.Error() + "); Debian: apt-get install liblinear-tools"
		} else {
			r.ll = p
			llText = p + liblinearVersion()
		}
	}
	if needs(cfgs, o.grids, anchorSklearn) && o.Python != "" {
		if v, err := sklearnVersion(o.Python); err != nil {
			skText = "not usable (" + err.Error() + "); Debian: apt-get install python3-sklearn"
		} else {
			r.python = o.Python
			skText = fmt.Sprintf("%s via %s (Lasso, fit_intercept=False, selection=cyclic, alpha=λ/ℓ, tol=%s)", v, o.Python, fmtNum(o.SkTol))
		}
	}
	toolsOf := func(c config) []string { return r.tools(c, true) }
	plan := planRuns(cfgs, r.tools, func(f string) setInfo { return infoOf(ws, f) }, o.Timeout.Seconds())
	r.est = newEstimator(plan, o.Rounds)
	r.total = len(plan) * o.Rounds

	if o.DryRun {
		writePlan(stdout, cfgs, toolsOf, plan, o.Rounds)
		fmt.Fprintf(stdout, "\nliblinear-train: %s\nscikit-learn: %s\n\n", llText, skText)
		printEstimate(stdout, plan, o.Rounds, o.Timeout)
		return nil
	}
	if !o.Quiet {
		printEstimate(os.Stderr, plan, o.Rounds, o.Timeout)
	}
	if err := os.MkdirAll(filepath.Join(ws.Dir(), "models"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	if r.exe, err = os.Executable(); err != nil {
		return err
	}

	// Ctrl-C or SIGTERM kills the current run and still writes the outputs.
	var stop atomic.Bool
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		stop.Store(true)
		close(interrupted)
		fmt.Fprintln(os.Stderr, "paper: interrupted; writing the results so far")
	}()
	r.stop = &stop
	r.onConfig = func() {
		r.finish()
		writeFileWith(filepath.Join(o.Out, "runs.csv"), func(w io.Writer) error { return writeCSV(w, r.runs) })
	}
	runErr := r.runAll(cfgs)
	signal.Stop(sig)
	done := cfgs
	if stop.Load() {
		done = distinctConfigs(r.runs)
	}

	// Outputs.
	if err := writeFileWith(filepath.Join(o.Out, "runs.csv"), func(w io.Writer) error { return writeCSV(w, r.runs) }); err != nil {
		return err
	}
	if err := writeFileWith(filepath.Join(o.Out, "bench.txt"), func(w io.Writer) error { return writeBenchfmt(w, r.runs, mach, o.SkTol) }); err != nil {
		return err
	}
	charts := buildCharts(done, cells(r.runs), toolsOf, o.SkTol)
	plots, err := writePlots(o.Out, done, charts)
	if err != nil {
		return err
	}
	rp := &report{Machine: mach, Command: commandLine(), Started: start, Elapsed: time.Since(start), Opts: o,
		Liblinear: llText, Sklearn: skText, Cfgs: done, Runs: r.runs, Plots: plots, ToolsOf: toolsOf,
		SetUse: map[string][]string{}}
	seen := map[*setData]bool{}
	for _, c := range done {
		sd, err := r.prep.prepare(c.Set, c.File, c.Problem == probWW)
		if err != nil {
			continue
		}
		if !seen[sd] {
			seen[sd] = true
			rp.Sets = append(rp.Sets, sd)
		}
		k := sd.File + "|" + strconv.FormatBool(sd.TestCache != "")
		if !slices.Contains(rp.SetUse[k], c.Variant()) {
			rp.SetUse[k] = append(rp.SetUse[k], c.Variant())
		}
	}
	if err := writeFileWith(filepath.Join(o.Out, "paper.md"), func(w io.Writer) error { writeMarkdown(w, rp); return nil }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s/paper.md, runs.csv (%d runs), bench.txt and %d plots in %s\n",
		o.Out, len(r.runs), len(plots), time.Since(start).Round(time.Second))
	if stop.Load() {
		return errors.New("interrupted: the outputs hold the runs done so far")
	}
	return runErr
}

// needs reports whether any configuration's problem has the anchor.
func needs(cfgs []config, grids []problemGrid, anchor string) bool {
	for _, c := range cfgs {
		if gridOf(grids, c.Problem).Anchor == anchor {
			return true
		}
	}
	return false
}

// liblinearVersion returns " (Debian liblinear-tools VERSION)" when dpkg
// knows it.
func liblinearVersion() string {
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "liblinear-tools").Output()
	if err != nil || len(out) == 0 {
		return ""
	}
	return " (Debian liblinear-tools " + strings.TrimSpace(string(out)) + ")"
}

// writePlan prints the configurations of a dry run, grouped.
func writePlan(w io.Writer, cfgs []config, toolsOf func(config) []string, plan []plannedRun, rounds int) {
	type key struct{ v, set string }
	var keys []key
	vals := map[key][]string{}
	epss := map[key][]string{}
	for _, c := range cfgs {
		k := key{c.Variant(), c.Set}
		if _, ok := vals[k]; !ok {
			keys = append(keys, k)
		}
		if v := fmtNum(c.Value); !slices.Contains(vals[k], v) {
			vals[k] = append(vals[k], v)
		}
		if e := fmtNum(c.Eps); !slices.Contains(epss[k], e) {
			epss[k] = append(epss[k], e)
		}
	}
	est := map[key][2]float64{}
	for _, p := range plan {
		k := key{p.Cfg.Variant(), p.Cfg.Set}
		e := est[k]
		e[0] += p.Est.Typ * float64(rounds)
		e[1] += p.Est.Worst * float64(rounds)
		est[k] = e
	}
	fmt.Fprintf(w, "%d configurations (estimated time: typical / worst case):\n", len(cfgs))
	for _, k := range keys {
		var c config
		for _, x := range cfgs {
			if x.Variant() == k.v && x.Set == k.set {
				c = x
				break
			}
		}
		fmt.Fprintf(w, "  %-7s %-12s %s ∈ {%s} × eps ∈ {%s} × {%s}  ~%s / %s\n", k.v, k.set, c.valueKey(),
			strings.Join(vals[k], ", "), strings.Join(epss[k], ", "), strings.Join(toolsOf(c), ", "),
			fmtDur(est[k][0]), fmtDur(est[k][1]))
	}
}

// commandLine is how this run was started, for the report.
func commandLine() string {
	args := make([]string, 0, len(os.Args))
	for _, a := range os.Args[1:] {
		if strings.ContainsAny(a, " \t'\"") {
			a = strconv.Quote(a)
		}
		args = append(args, a)
	}
	return strings.TrimSpace("go run ./bench/paper " + strings.Join(args, " "))
}

// writeFileWith writes path through fn atomically.
func writeFileWith(path string, fn func(io.Writer) error) error {
	return benchkit.WriteAtomic(path, fn)
}
