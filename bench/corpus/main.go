// Command corpus runs acfcd at its defaults and the anchors on a corpus of
// data shapes (shapes.go: generated here, by acfcd gen, and the real sets of
// the data directory) and prints one table of time ratios, anchor ÷ acfcd,
// at equal or better accuracy:
//
//	go run ./bench/corpus [flags]                  # the whole corpus (≈30 min on two cores)
//	go run ./bench/corpus -half B -out DIR         # the held-out half only, with files
//	go run ./bench/corpus -list                    # the shapes and their halves
//	go run ./bench/corpus -constants               # the solvers' measured constants
//
// Classification and the SVRs: every tool runs as a whole process (parse,
// train, write the model) on the same plain-text file, and the harness
// computes each model's primal objective from the model file
// (benchkit.Primal). A cell is one shape × acfcd -s × C; its anchor is the
// fastest of the anchor runs that solve the same problem (liblinear 2.50's
// dual and primal Newton, multi-core liblinear 2.50 at -m 1, Shark for
// Weston–Watkins). The LASSO runs through bench/glmnet (a single λ at 10⁻²
// and 10⁻³·λ_max, a 30-λ path to 10⁻³·λ_max, the default path), each
// tool's default stop against glmnet's default, excess against the best
// objective of any run (glmnet at thresh 1e-10 among them).
//
// Halves: constants may be chosen on half A only; half B is reported
// apart (held out).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

type options struct {
	DataDir, Dir                    string
	Half                            string
	Shapes                          *regexp.Regexp
	Problems                        []string
	Cs                              []float64
	ACFCD, LL250, LLMC, Shark       string
	Old, oldACFCD                   string
	Rscript                         string
	Timeout                         time.Duration
	Rounds                          int
	AccTol                          float64
	Out                             string
	GenOnly, List, Quiet, Constants bool
}

func main() { benchkit.Main("corpus", parse, run) }

func parse(args []string) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("corpus", flag.ContinueOnError)
	benchkit.SetUsage(fs, "go run ./bench/corpus", "Runs acfcd's defaults and the anchors on a corpus of data shapes; prints anchor ÷ acfcd time ratios at equal or better accuracy.")
	var shapesRE, problems, cs string
	fs.StringVar(&o.DataDir, "data", benchkit.DataDir(), "folder of the real data sets (../shared/data or $ACFCD_DATA)")
	fs.StringVar(&o.Dir, "dir", filepath.Join(os.TempDir(), "acfcd-corpus"), "folder of the generated and decompressed files, kept between runs")
	fs.StringVar(&o.Half, "half", "all", "A, B or all")
	fs.StringVar(&shapesRE, "shapes", "", "only shapes whose name matches this regular expression")
	fs.StringVar(&problems, "problems", strings.Join(problemNames(), ","), "problems (acfcd -s values, ww, lasso)")
	fs.StringVar(&cs, "c", "1,100", "values of C")
	fs.StringVar(&o.ACFCD, "acfcd", "", "acfcd binary (default: built from this module into -dir)")
	fs.StringVar(&o.Old, "old", "", "a checkout of the code to compare with (a git worktree): its acfcd runs beside this one's in every cell (\"before\")")
	fs.StringVar(&o.LL250, "liblinear", "/tmp/liblinear-2.50/train", "liblinear 2.50's train (\"\" to leave it out)")
	fs.StringVar(&o.LLMC, "multicore", "/tmp/anchors/llmc/train", "multi-core liblinear 2.50's train, run at -m 1 (\"\" to leave it out)")
	fs.StringVar(&o.Shark, "shark", "/tmp/anchors/shark-ww/ww", "Shark's Weston–Watkins CLI (\"\" to leave it out)")
	fs.StringVar(&o.Rscript, "rscript", "Rscript", "Rscript with glmnet, for the LASSO (\"\" to leave it out)")
	fs.DurationVar(&o.Timeout, "timeout", 60*time.Second, "limit of one run")
	fs.IntVar(&o.Rounds, "rounds", 1, "runs of every tool; times are medians")
	fs.Float64Var(&o.AccTol, "acc-tol", 1e-3, "acfcd's primal may exceed its anchor's by this relative amount and count as equal")
	fs.StringVar(&o.Out, "out", "", "folder for corpus.md, corpus.csv and bench.txt (benchstat input)")
	fs.BoolVar(&o.GenOnly, "gen-only", false, "only write the corpus files")
	fs.BoolVar(&o.List, "list", false, "list the shapes and exit")
	fs.BoolVar(&o.Constants, "constants", false, "list the solvers' measured constants (each family's Tuning) and exit")
	fs.BoolVar(&o.Quiet, "q", false, "no progress on stderr")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	switch o.Half {
	case "A", "B", "all":
	default:
		return nil, fmt.Errorf("-half %q: want A, B or all", o.Half)
	}
	var err error
	if o.Shapes, err = regexp.Compile(shapesRE); err != nil {
		return nil, fmt.Errorf("-shapes: %v", err)
	}
	o.Problems = benchkit.SplitList(problems)
	for _, p := range o.Problems {
		if problemByName(p) == nil {
			return nil, fmt.Errorf("-problems: unknown problem %q (have %s)", p, strings.Join(problemNames(), ","))
		}
	}
	if o.Cs, err = benchkit.ParseList(cs, func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }); err != nil {
		return nil, fmt.Errorf("-c: %v", err)
	}
	if o.Rounds < 1 {
		return nil, errors.New("-rounds must be at least 1")
	}
	return o, nil
}

// selected returns the shapes of the chosen half that match -shapes.
func (o *options) selected() []shape {
	var out []shape
	for _, s := range shapes() {
		if (o.Half == "all" || s.half == o.Half) && o.Shapes.MatchString(s.name) {
			out = append(out, s)
		}
	}
	return out
}

func run(o *options) error {
	if o.Constants {
		writeConstants(os.Stdout)
		return nil
	}
	if o.List {
		for _, s := range o.selected() {
			fmt.Printf("%-24s %s  %-10s %s\n", s.name, s.half, kindName(s.kind), s.about)
		}
		return nil
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	// Binaries and model files are this run's own: runs may share -dir.
	tmp, err := os.MkdirTemp("", "acfcd-corpus-run-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if o.ACFCD == "" {
		o.ACFCD = filepath.Join(tmp, "acfcd")
		if err := goBuild(o.ACFCD, "", "./cmd/acfcd"); err != nil {
			return err
		}
	}
	if o.Old != "" {
		o.oldACFCD = filepath.Join(tmp, "acfcd-old")
		if err := goBuild(o.oldACFCD, o.Old, "./cmd/acfcd"); err != nil {
			return err
		}
	}
	ws, err := benchkit.NewWorkspace(o.DataDir, o.Dir, o.Quiet)
	if err != nil {
		return err
	}
	r := &runner{o: o, ws: ws, tmp: tmp}
	for _, t := range []*string{&o.LL250, &o.LLMC, &o.Shark} {
		if *t != "" {
			if _, err := os.Stat(*t); err != nil {
				r.logf("left out: %v", err)
				*t = ""
			}
		}
	}
	ctx := context.Background()
	start := time.Now()
	var cells []*cell
	for _, s := range o.selected() {
		path, err := r.file(ctx, s)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		if o.GenOnly {
			continue
		}
		cs, err := r.shapeCells(ctx, s, path)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		cells = append(cells, cs...)
	}
	if o.GenOnly {
		return nil
	}
	rep := newReport(o, cells, time.Since(start))
	rep.markdown(os.Stdout)
	if o.Out != "" {
		if err := rep.files(o.Out); err != nil {
			return err
		}
	}
	return nil
}

// goBuild builds pkg of the module in dir ("": this one) into out.
func goBuild(out, dir, pkg string) error {
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}
