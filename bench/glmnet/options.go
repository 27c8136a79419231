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

// defaultSets are the regression problems of the comparison: gen is the
// generated text-like set (see genSet).
var defaultSets = []string{"debian-desc.regression", "arcene_train", "rcv1_small", "news20", "gen"}

// cell is one column of the comparison: a single λ = Frac·λ_max, or a
// path of N values (N = 0: each tool's default path, glmnet's 100 with
// its early stop).
type cell struct {
	Name  string
	Frac  float64 // single λ: fraction of λ_max
	N     int     // path: number of λ (0: the default path)
	Ratio float64 // path: λ_min/λ_max of an explicit path
}

func (c cell) path() bool { return c.Frac == 0 }

// parseCell reads "0.01" (single λ), "path30" (30 λ down to -path-ratio) or
// "path" (the default path).
func parseCell(s string, ratio float64) (cell, error) {
	if rest, ok := strings.CutPrefix(s, "path"); ok {
		if rest == "" {
			return cell{Name: "default path", N: 0}, nil
		}
		n, err := strconv.Atoi(rest)
		if err != nil || n < 2 {
			return cell{}, fmt.Errorf("cell %q: want pathN with N >= 2", s)
		}
		return cell{Name: fmt.Sprintf("%d-λ path to %g", n, ratio), N: n, Ratio: ratio}, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return cell{}, fmt.Errorf("cell %q: want a fraction of λ_max in (0, 1], pathN or path", s)
	}
	return cell{Name: fmt.Sprintf("λ = %g·λmax", f), Frac: f}, nil
}

// level is a pair of stopping rules compared with each other.
type level struct {
	Name         string
	GlmnetThresh float64
	SklearnTol   float64
	SklearnIter  int
	ACFCDRel     float64 // 0: acfcd's default; else eps = ACFCDRel·λ (the smallest λ of a path)
}

type options struct {
	DataDir, WorkDir string
	Sets             []string
	Cells            []cell
	Levels           []level
	PathRatio        float64
	Rounds           int
	Timeout          time.Duration
	LoadTimeout      time.Duration
	RefTimeout       time.Duration
	CVTimeout        time.Duration
	Rscript, Python  string
	RefRel           float64
	CVSets           []string
	Folds            int
	Seed             uint64
	GenRows          int
	GenFeatures      int
	GenNNZ           float64
	Out              string
	DryRun           bool
	KeepCSC          bool      // acfcd's column view built once per set, untimed
	Matched          bool      // also acfcd stopped at glmnet's distance to F*
	MatchFloor       float64   // that distance at least MatchFloor·F*
	SameRule         bool      // also acfcd stopped by glmnet's rule at each level's thresh
	RuleScales       []float64 // -same-rule: at thresh times each of these (nil without)
	Quiet            bool
}

func parseOptions(args []string) (*options, error) {
	fs := flag.NewFlagSet("glmnet-bench", flag.ContinueOnError)
	benchkit.SetUsage(fs, "go run ./bench/glmnet", "Runs acfcd (in process), glmnet (Rscript) and scikit-learn (python) on the same\nLASSO problems and compares times and objectives; with -cv-sets, also λ by\ncross-validation against cv.glmnet on the same folds. See README.md.")
	o := &options{}
	fs.StringVar(&o.DataDir, "data", benchkit.DataDir(), "folder of the data sets")
	fs.StringVar(&o.WorkDir, "workdir", "", "folder for decompressed and generated files, kept between runs (default: a temporary folder)")
	sets := fs.String("sets", strings.Join(defaultSets, ","), "data sets (gen: the generated text-like set)")
	cells := fs.String("cells", "0.1,0.01,0.001,path30,path", "cells: fractions of λ_max, pathN (N λ down to -path-ratio), path (the default 100-λ path)")
	levels := fs.String("levels", "default,tight", "stopping rules: default (each tool's), tight")
	fs.Float64Var(&o.PathRatio, "path-ratio", 1e-3, "λ_min/λ_max of the pathN cells")
	fs.IntVar(&o.Rounds, "rounds", 3, "timed rounds (tools interleaved); times are medians")
	fs.DurationVar(&o.Timeout, "timeout", 120*time.Second, "limit of one fit of one tool")
	fs.DurationVar(&o.RefTimeout, "ref-timeout", 5*time.Minute, "limit of one cell's reference solve (cut short, F* is the best any run reached)")
	fs.DurationVar(&o.CVTimeout, "cv-timeout", 20*time.Minute, "limit of each tool's whole cross-validation")
	fs.DurationVar(&o.LoadTimeout, "load-timeout", 15*time.Minute, "limit of R's and python's reading of a data set")
	fs.StringVar(&o.Rscript, "rscript", "Rscript", "Rscript with glmnet (\"\" leaves glmnet out)")
	fs.StringVar(&o.Python, "python", "/usr/bin/python3", "python3 with scikit-learn (\"\" leaves scikit-learn out)")
	fs.Float64Var(&o.RefRel, "ref-rel", 1e-9, "the reference solve: acfcd with KKT tolerance ref-rel·λ")
	tightRel := fs.Float64("tight-rel", 1e-6, "acfcd's tight level: KKT tolerance tight-rel·λ")
	tightThresh := fs.Float64("tight-thresh", 1e-10, "glmnet's thresh at the tight level (default level: glmnet's 1e-7)")
	tightTol := fs.Float64("tight-tol", 1e-8, "scikit-learn's tol at the tight level (default level: its 1e-4)")
	cvSets := fs.String("cv-sets", "arcene_train,rcv1_small,gen", "sets on which λ by cross-validation is compared with cv.glmnet (\"\" for none)")
	fs.IntVar(&o.Folds, "folds", 10, "folds of the cross-validation (cv.glmnet's default 10)")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the folds and of acfcd")
	fs.IntVar(&o.GenRows, "gen-rows", 20000, "gen: rows")
	fs.IntVar(&o.GenFeatures, "gen-features", 100000, "gen: features")
	fs.Float64Var(&o.GenNNZ, "gen-nnz", 60, "gen: mean non-zeros per row")
	fs.StringVar(&o.Out, "out", "", "folder for glmnet.md, glmnet.csv and cv.md (default: Markdown on stdout only)")
	fs.BoolVar(&o.KeepCSC, "keep-csc", true, "build acfcd's column view once per set, untimed (as the other tools get their column-major matrix); false: each fit builds it")
	fs.BoolVar(&o.Matched, "matched", true, "also run acfcd stopped at a duality gap no larger than glmnet's largest (F − F*)/F* times the smallest F* (at least glmnet's accuracy in the table's excess, certified)")
	fs.Float64Var(&o.MatchFloor, "match-floor", 1e-10, "-matched: glmnet's (F − F*)/F* taken as at least match-floor")
	fs.BoolVar(&o.SameRule, "same-rule", true, "also run acfcd stopped by glmnet's own rule (Params.Thresh) at each level's glmnet thresh: the two tools under one stopping rule, each objective's excess reported")
	ruleScales := fs.String("rule-scales", "1,0.5,0.1", "-same-rule: acfcd runs under glmnet's rule at the level's thresh times each of these (below 1: a stricter rule than glmnet's own run)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "a tiny generated set, one round, two cells, 3 folds: checks that every tool runs")
	fs.BoolVar(&o.Quiet, "q", false, "no progress lines on stderr")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, errors.New("no arguments, only flags")
	}
	var err error
	o.Sets = benchkit.SplitList(*sets)
	o.CVSets = benchkit.SplitList(*cvSets)
	if !(o.PathRatio > 0 && o.PathRatio < 1) {
		return nil, fmt.Errorf("-path-ratio %g: want (0, 1)", o.PathRatio)
	}
	if o.Cells, err = benchkit.ParseList(*cells, func(s string) (cell, error) { return parseCell(s, o.PathRatio) }); err != nil {
		return nil, err
	}
	if o.RuleScales, err = benchkit.ParseList(*ruleScales, func(s string) (float64, error) {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || !(f > 0 && f <= 1e6) {
			return 0, fmt.Errorf("-rule-scales: %q is not a positive factor", s)
		}
		return f, nil
	}); err != nil {
		return nil, err
	}
	if !o.SameRule {
		o.RuleScales = nil
	}
	for _, name := range benchkit.SplitList(*levels) {
		switch name {
		case "default":
			o.Levels = append(o.Levels, level{Name: "default", GlmnetThresh: 1e-7, SklearnTol: 1e-4, SklearnIter: 1000})
		case "tight":
			o.Levels = append(o.Levels, level{Name: "tight", GlmnetThresh: *tightThresh, SklearnTol: *tightTol, SklearnIter: 100000, ACFCDRel: *tightRel})
		default:
			return nil, fmt.Errorf("-levels: unknown level %q (default, tight)", name)
		}
	}
	if o.Rounds < 1 || o.Folds < 2 || len(o.Sets)+len(o.CVSets) == 0 {
		return nil, errors.New("need -rounds >= 1, -folds >= 2 and a set")
	}
	if o.DryRun {
		o.Sets, o.CVSets, o.Rounds, o.Folds = []string{"gen"}, []string{"gen"}, 1, 3
		o.GenRows, o.GenFeatures, o.GenNNZ = 120, 400, 8
		o.Cells = []cell{{Name: "λ = 0.1·λmax", Frac: 0.1}, {Name: "5-λ path to 0.1", N: 5, Ratio: 0.1}}
	}
	return o, nil
}
