package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// defaultSets are the binary problems of ../shared/data (see its
// SOURCES.md) plus news20bin, which the harness derives from news20.
var defaultSets = []string{
	"heart_scale", "breast-cancer_scale", "diabetes_scale",
	"a1a", "a5a", "a9a", "w8a", "mushrooms",
	"rcv1_small", "url_Instances_1000",
	"golub_leukemia_train", "arcene_train", "dorothea_train",
	"news20bin", "debian-desc.binary",
}

// anchor is a liblinear-compatible train binary run next to acfcd:
// liblinear 2.3.0 (always, as the reference) and any -anchor name=path.
type anchor struct {
	Name string
	Path string
}

// options are the command-line flags.
type options struct {
	DataDir     string
	WorkDir     string // where decompressed/derived files go ("" = a temp dir removed at exit)
	Sets        []string
	Solvers     []int
	Cs          []float64
	Eps         float64
	Bias        float64
	Selects     []string
	Seed        uint64
	MaxEpochs   int
	Threads     int // dataio parser goroutines for acfcd (0 = GOMAXPROCS)
	Liblinear   string
	LLPredict   string
	Anchors     []anchor
	Timeout     time.Duration
	Rounds      int
	Check       bool
	CSV         string
	MD          string
	Quiet       bool
	SplitSeed   uint64
	TestPercent int
}

// anchorFlags collects repeated -anchor name=path flags.
type anchorFlags []anchor

func (a *anchorFlags) String() string {
	parts := make([]string, len(*a))
	for i, x := range *a {
		parts[i] = x.Name + "=" + x.Path
	}
	return strings.Join(parts, ",")
}

func (a *anchorFlags) Set(v string) error {
	name, path, ok := strings.Cut(v, "=")
	if !ok || name == "" || path == "" {
		return fmt.Errorf("want name=/path/to/train, got %q", v)
	}
	*a = append(*a, anchor{Name: name, Path: path})
	return nil
}

// parseOptions reads the flags in args (without the program name).
func parseOptions(args []string) (*options, error) {
	fs := flag.NewFlagSet("liblinear-bench", flag.ContinueOnError)
	benchkit.SetUsage(fs, "go run ./bench/liblinear",
		"Runs acfcd (several coordinate selections) and liblinear-train (2.3.0 and any\n"+
			"-anchor binaries) on the same files and settings; prints a Markdown table.\n"+
			"With -check, compares acfcd with liblinear 2.3.0 for correctness instead.")
	o := &options{}
	var sets, solvers, cs, selects string
	var anchors anchorFlags
	fs.StringVar(&o.DataDir, "data", benchkit.DataDir(), "directory of the data files (default $ACFCD_DATA or ../shared/data)")
	fs.StringVar(&o.WorkDir, "workdir", "", "keep decompressed and derived files here and reuse them across runs (default: a temp dir, removed at exit)")
	fs.StringVar(&sets, "sets", strings.Join(defaultSets, ","), "comma-separated data sets (file names in -data without .bz2/.svm; news20bin is derived from news20)")
	fs.StringVar(&solvers, "s", "1,3,7", "comma-separated liblinear solvers: 1 (squared hinge), 3 (hinge), 7 (logistic), all dual")
	fs.StringVar(&cs, "c", "0.01,0.1,1,10,100,1000", "comma-separated costs C")
	fs.Float64Var(&o.Eps, "e", 0.001, "stopping tolerance -e, the same for every tool")
	fs.Float64Var(&o.Bias, "B", -1, "liblinear's -B bias (-1: none); the bias weight is regularised, as in liblinear")
	fs.StringVar(&selects, "select", "uniform,shrink,acf,acf+shrink,default", "comma-separated acfcd coordinate selections (uniform, shrink, acf, acf+shrink: pure dual CD,\nwithout the Newton/interior-point fallbacks) and default (acfcd's default: acf+shrink with them)")
	fs.Uint64Var(&o.Seed, "seed", 0, "acfcd's random seed")
	fs.IntVar(&o.MaxEpochs, "max-epochs", 0, "acfcd's epoch cap per subproblem (0: its default, 1000 = liblinear 2.3.0's max_iter)")
	fs.IntVar(&o.Threads, "parse-threads", 0, "acfcd parser goroutines (0: GOMAXPROCS; liblinear always parses with one thread)")
	fs.StringVar(&o.Liblinear, "liblinear", "liblinear-train", "liblinear 2.3.0's train binary")
	fs.StringVar(&o.LLPredict, "liblinear-predict", "liblinear-predict", "liblinear 2.3.0's predict binary (used by -check)")
	fs.Var(&anchors, "anchor", "extra liblinear-compatible train binary as name=/path/to/train (repeatable)")
	fs.DurationVar(&o.Timeout, "timeout", 120*time.Second, "time limit of one run (load + train); a run over it is reported as \"timeout\"")
	fs.IntVar(&o.Rounds, "rounds", 1, "repeat every timed run N times and report median times")
	fs.BoolVar(&o.Check, "check", false, "correctness mode: acfcd (acf) vs liblinear 2.3.0 objectives, held-out predictions, KKT")
	fs.StringVar(&o.CSV, "csv", "", "also write the results as CSV to this file")
	fs.StringVar(&o.MD, "md", "", "also write the Markdown output to this file")
	fs.BoolVar(&o.Quiet, "q", false, "no progress lines on stderr")
	fs.Uint64Var(&o.SplitSeed, "split-seed", 1, "seed of the deterministic 80/20 split used by -check")
	fs.IntVar(&o.TestPercent, "test-percent", 20, "held-out share of the -check split, in percent")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if o.Sets = benchkit.SplitList(sets); len(o.Sets) == 0 {
		return nil, errors.New("-sets is empty")
	}
	if o.Solvers, err = parseInts(solvers); err != nil {
		return nil, fmt.Errorf("-s: %w", err)
	}
	for _, s := range o.Solvers {
		if s != 1 && s != 3 && s != 7 {
			return nil, fmt.Errorf("-s %d: only the dual solvers 1, 3 and 7 are benchmarked", s)
		}
	}
	if o.Cs, err = parseFloats(cs); err != nil {
		return nil, fmt.Errorf("-c: %w", err)
	}
	for _, c := range o.Cs {
		if !(c > 0) {
			return nil, fmt.Errorf("-c %g: C must be > 0", c)
		}
	}
	if !(o.Eps > 0) {
		return nil, fmt.Errorf("-e %g: must be > 0", o.Eps)
	}
	o.Selects = benchkit.SplitList(selects)
	for _, s := range o.Selects {
		switch s {
		case "uniform", "shrink", "acf", "acf+shrink", "default":
		default:
			return nil, fmt.Errorf("-select %q: want uniform, shrink, acf, acf+shrink or default", s)
		}
	}
	if o.Check {
		// Correctness is checked for one selection: acfcd's default unless
		// -select names one.
		explicit := false
		fs.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "select" })
		if !explicit {
			o.Selects = []string{"default"}
		}
		o.Selects = o.Selects[:1]
	}
	o.Anchors = anchors
	for _, a := range o.Anchors {
		if a.Name == refName {
			return nil, fmt.Errorf("-anchor %s: that name is reserved for -liblinear", a.Name)
		}
	}
	if o.Rounds < 1 {
		return nil, errors.New("-rounds must be >= 1")
	}
	if o.Timeout <= 0 {
		return nil, errors.New("-timeout must be > 0")
	}
	if o.TestPercent < 1 || o.TestPercent > 99 {
		return nil, errors.New("-test-percent must be in 1..99")
	}
	return o, nil
}

// parseInts and parseFloats parse a comma-separated list of at least one
// number.
func parseInts(s string) ([]int, error) { return nonEmpty(benchkit.ParseList(s, strconv.Atoi)) }

func parseFloats(s string) ([]float64, error) {
	return nonEmpty(benchkit.ParseList(s, func(p string) (float64, error) { return strconv.ParseFloat(p, 64) }))
}

func nonEmpty[T any](v []T, err error) ([]T, error) {
	if err == nil && len(v) == 0 {
		return nil, errors.New("empty list")
	}
	return v, err
}
