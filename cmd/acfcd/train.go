package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/atomicfile"
)

// parseSolver reads -s: liblinear's numbers, or "lasso" and "ww".
func parseSolver(s string) (acfcd.Problem, error) {
	p, err := acfcd.ParseProblem(s)
	if err != nil || p.Flag() != s {
		return 0, usagef("-s %s: unknown solver (acfcd implements -s 0 to 7, 11, 12, 13, 21, lasso and ww)", s)
	}
	return p, nil
}

// splitWeightFlags removes liblinear's -wLABEL WEIGHT pairs from args, which
// the flag package cannot express, and returns them as a label → weight map.
func splitWeightFlags(args []string) ([]string, map[float64]float64, error) {
	var rest []string
	var weights map[float64]float64
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-w") || len(a) == 2 || !isNumberStart(a[2]) {
			rest = append(rest, a)
			continue
		}
		label, err := strconv.ParseFloat(a[2:], 64)
		if err != nil || label != math.Trunc(label) {
			return nil, nil, usagef("%s: class label in -wi must be an integer", a)
		}
		if i+1 >= len(args) {
			return nil, nil, usagef("%s needs a weight", a)
		}
		w, err := strconv.ParseFloat(args[i+1], 64)
		if err != nil || !(w > 0) || math.IsInf(w, 0) {
			return nil, nil, usagef("%s %s: the weight must be a positive number", a, args[i+1])
		}
		if weights == nil {
			weights = map[float64]float64{}
		}
		weights[label] = w
		i++
	}
	return rest, weights, nil
}

func isNumberStart(c byte) bool { return c == '-' || c == '+' || (c >= '0' && c <= '9') }

type trainFlags struct {
	solver    acfcd.Problem
	c         float64
	eps       float64
	bias      float64
	folds     int
	quiet     bool
	sel       string
	seed      uint64
	report    string
	maxEpochs int
	fallback  string
	// LASSO
	lambda      float64
	intercept   bool
	gap         float64
	lambdaPath  int
	lambdaRatio float64
	p, nu       float64 // -s 12, 13: the loss's ε; -s 21: ν
	data        dataFlags

	savePartial bool // --save-partial: an interrupted run saves its unconverged model
}

func (t *trainFlags) params(weights map[float64]float64, sel acfcd.Selection) acfcd.Params {
	return acfcd.Params{Problem: t.solver, C: t.c, Eps: t.eps, Bias: t.bias, Weights: weights,
		Select: sel, Seed: t.seed, MaxEpochs: t.maxEpochs, Lambda: t.lambda, Intercept: t.intercept,
		GapTol: t.gap, NoFallback: t.fallback == "none", P: t.p, Nu: t.nu}
}

func runTrain(stdout, stderr io.Writer, args []string) error {
	args, weights, err := splitWeightFlags(args)
	if err != nil {
		return err
	}
	fs := newFlagSet("train", stderr)
	var t trainFlags
	solverFlag := fs.String("s", "1", "solver: as liblinear 1 L2-loss SVM (dual), 3 L1-loss SVM (dual), 7 logistic regression (dual);\nlasso (L1 least squares, primal CD), ww (Weston-Watkins multi-class SVM)")
	fs.Float64Var(&t.c, "c", 1, "cost C")
	fs.Float64Var(&t.eps, "e", 0, "stop when the largest KKT violation is below this (default 0.1 as liblinear for -s 1, 3, 7, ww;\nlasso: 1e-3·max(λ, 1e-3·λ_max))")
	fs.Float64Var(&t.p, "p", 0.1, "-s 12, 13: the epsilon of the epsilon-insensitive loss")
	fs.Float64Var(&t.nu, "n", 0.5, "-s 21: nu of the one-class SVM, in (0, 1]")
	fs.Float64Var(&t.bias, "B", -1, "bias: if >= 0, every example gets an extra feature of this value")
	fs.IntVar(&t.folds, "v", 0, "n-fold cross validation: report accuracy instead of writing a model")
	fs.BoolVar(&t.quiet, "q", false, "quiet: no training summary")
	fs.StringVar(&t.sel, "select", "", "coordinate selection: acf+shrink (default for -s 1, 3, 7), acf (default for lasso, ww),\nuniform, shrink (-s 1, 3) or cyclic (lasso)")
	fs.Uint64Var(&t.seed, "seed", 1, "random seed (same seed, same model)")
	fs.StringVar(&t.report, "report", "", "json: print the training report as one JSON object on the last line of stdout")
	fs.IntVar(&t.maxEpochs, "max-epochs", 0, "cap on epochs (default 1000 as liblinear 2.3; lasso 100000)")
	fs.BoolVar(&t.savePartial, "save-partial", false, "when SIGINT or SIGTERM interrupts training, save the unconverged model to MODEL\n(the exit status is still 1; without this flag nothing is written)")
	fs.StringVar(&t.fallback, "fallback", "newton", "-s 1, 3, 7: newton (a stalling dual hands over to primal Newton, for -s 3 to an\ninterior-point method on the dual, then the dual KKT check certifies the answer;\nliblinear 2.50 switches -s 1 and 7 after 300 epochs; also moves identical rows with\nopposite labels together) or none (pure dual CD)")
	fs.Float64Var(&t.lambda, "lambda", 0, "lasso: the L1 penalty λ of ½‖Xw − y‖² + λ‖w‖₁ (scikit-learn's alpha = λ/rows)")
	fs.BoolVar(&t.intercept, "intercept", false, "lasso: fit an unpenalised intercept")
	fs.Float64Var(&t.gap, "gap", 0, "lasso: stop when the duality gap is below this instead of the KKT tolerance -e")
	fs.IntVar(&t.lambdaPath, "lambda-path", 0, "lasso: fit this many λ from λ_max down (geometric, warm starts); saves the last model")
	fs.Float64Var(&t.lambdaRatio, "lambda-ratio", 1e-3, "lasso: smallest λ of --lambda-path as a fraction of λ_max")
	t.data.register(fs)
	fs.Usage = trainUsage(fs, stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		fs.Usage()
		return usagef("train takes DATA and an optional MODEL")
	}
	if t.solver, err = parseSolver(*solverFlag); err != nil {
		return err
	}
	if !(t.c > 0) || math.IsInf(t.c, 0) {
		return usagef("-c %g: C must be a positive number", t.c)
	}
	if t.p == 0 {
		t.p = -1 // liblinear's -p 0; Params.P = 0 would mean the default
	}
	if math.IsNaN(t.p) || math.IsInf(t.p, 0) {
		return usagef("-p %g: must be a finite number", t.p)
	}
	if !(t.nu > 0 && t.nu <= 1) {
		return usagef("-n %g: nu must be in (0, 1]", t.nu)
	}
	if t.solver == acfcd.OneClassSVM && t.bias >= 0 {
		return usagef("-B %g: the one-class SVM (-s 21) has no bias term", t.bias)
	}
	if t.eps < 0 || math.IsNaN(t.eps) {
		return usagef("-e %g: eps must be a positive number", t.eps)
	}
	sel, err := acfcd.ParseSelection(t.sel)
	if err != nil {
		return usagef("--select %s: %v", t.sel, err)
	}
	if t.fallback != "newton" && t.fallback != "none" {
		return usagef("--fallback %q: want newton or none", t.fallback)
	}
	if t.report != "" && t.report != "json" {
		return usagef("--report %q: the only report format is json", t.report)
	}
	if t.solver == acfcd.Lasso {
		if t.lambdaPath == 0 && !(t.lambda > 0) {
			return usagef("-s lasso needs --lambda L > 0 (or --lambda-path N)")
		}
		if t.lambdaPath < 0 || !(t.lambdaRatio > 0 && t.lambdaRatio <= 1) {
			return usagef("--lambda-path needs N >= 1 and 0 < --lambda-ratio <= 1")
		}
		if t.gap < 0 {
			return usagef("--gap %g: must be >= 0", t.gap)
		}
		if t.folds > 0 {
			return usagef("-v is for classifiers; the lasso reports its error with acfcd predict")
		}
	} else if t.lambda != 0 || t.intercept || t.gap != 0 || t.lambdaPath != 0 {
		return usagef("--lambda, --intercept, --gap and --lambda-path are for -s lasso")
	}
	if t.folds == 1 || t.folds < 0 {
		return usagef("-v %d: n-fold cross validation needs n >= 2", t.folds)
	}
	dataPath := fs.Arg(0)
	modelPath := filepath.Base(dataPath) + ".model"
	if fs.NArg() == 2 {
		modelPath = fs.Arg(1)
	}

	if t.folds == 0 {
		// An unwritable MODEL is reported now, not after the training.
		if err := atomicfile.Check(modelPath); err != nil {
			return err
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); stop() }() // a second signal ends the process (see interrupt.go)
	d, err := loadInterruptible(ctx, stderr, dataPath, t.data.options())
	if err != nil {
		return err
	}
	defer d.Close()
	p := t.params(weights, sel)
	if isTerminal(stderr) && !t.quiet {
		p.Progress = func(pr acfcd.Progress) {
			fold := ""
			if pr.Fold > 0 {
				fold = fmt.Sprintf("fold %d ", pr.Fold)
			}
			fmt.Fprintf(stderr, "\r%sclass %d epoch %d violation %.3g objective %.10g   ", fold, pr.Class, pr.Epoch, pr.Violation, pr.Objective)
		}
	}

	if t.folds > 0 {
		return crossValidate(ctx, stdout, stderr, d, p, t.folds)
	}

	var m *acfcd.Model
	var res *acfcd.Result
	if t.solver == acfcd.Lasso && t.lambdaPath > 0 {
		m, res, err = lassoPath(ctx, stdout, d, p, t.lambdaPath, t.lambdaRatio, t.quiet)
	} else {
		m, res, err = acfcd.Train(ctx, d, p)
	}
	if p.Progress != nil {
		fmt.Fprintln(stderr)
	}
	if m != nil && t.bias == 0 && (t.solver.Classifier() || t.solver.Regression() && t.solver != acfcd.Lasso) {
		m = zeroBias(m)
	}
	if res != nil && res.Cancelled {
		return interrupted(m, res, modelPath, t.savePartial)
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(stderr, "acfcd: warning: %s\n", w) // e.g. a -wi label that does not occur
	}
	if !t.quiet {
		printSummary(stdout, res)
		if t.solver == acfcd.OneClassSVM {
			fmt.Fprintf(stdout, "rho = %f\n", m.Rho)
		}
	}
	if res.HitEpochCap {
		fmt.Fprintf(stderr, "acfcd: warning: reached the cap of %d epochs before converging (violation %g, gap %g); the model is not converged (raise --max-epochs)\n", res.Epochs, res.Violation, res.Gap)
	}
	if err := m.Save(modelPath); err != nil {
		return err
	}
	if t.report == "json" {
		return writeReport(stdout, res)
	}
	return nil
}

// trainUsage prints the flags with liblinear's -wi, which the flag package
// does not list because it is parsed separately.
func trainUsage(fs interface{ PrintDefaults() }, stderr io.Writer) func() {
	return func() {
		fmt.Fprintf(stderr, "usage: acfcd train [flags] DATA [MODEL]\n\n")
		fmt.Fprintf(stderr, "Train a linear model on DATA (libsvm text, .gz/.bz2, NDJSON or a binary cache) and\n")
		fmt.Fprintf(stderr, "write it in liblinear's model format to MODEL (default: DATA's base name + \".model\").\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "  -wi weight\n    \tweight of class i: C of class i is weight*C (e.g. -w1 5 -w-1 0.5)\n")
	}
}

// zeroBias gives m liblinear's layout for -B 0: a bias feature of value 0,
// which changes no weight, only the file (a "bias 0" line and a row of
// zero weights).
func zeroBias(m *acfcd.Model) *acfcd.Model {
	z := *m
	z.Bias = 0
	z.W = append(append(make([]float64, 0, len(m.W)+m.NrW), m.W...), make([]float64, m.NrW)...)
	return &z
}

// printSummary prints what liblinear prints after training.
func printSummary(w io.Writer, r *acfcd.Result) {
	// liblinear's #iter counts sweeps; acfcd's epochs are the same unit.
	fmt.Fprintf(w, "optimization finished, #iter = %d (%d coordinate steps, %s selection)\n", r.Epochs, r.Iterations, r.Select)
	if r.NewtonSteps > 0 {
		if r.Solver == "L2R_L1LOSS_SVC_DUAL" {
			fmt.Fprintf(w, "the dual stalled: %d interior-point iterations took over, then the full dual KKT check\n", r.NewtonSteps)
		} else {
			fmt.Fprintf(w, "the dual stalled: %d primal Newton steps took over, then the full dual KKT check\n", r.NewtonSteps)
		}
	}
	fmt.Fprintf(w, "Objective value = %f\n", r.Objective)
	if r.Solver == "L2R_L2LOSS_SVR_DUAL" || r.Solver == "L2R_L1LOSS_SVR_DUAL" || r.Solver == "ONECLASS_SVM" {
		fmt.Fprintf(w, "nSV = %d\n", r.SupportVectors)
	}
	fmt.Fprintf(w, "max violation = %g, duality gap = %g, nnz(w) = %d, %.3f s\n", r.Violation, r.Gap, r.NNZW, r.Seconds)
}

// report is the --report json object.
type report struct {
	Solver     string  `json:"solver"`
	Select     string  `json:"select"`
	C          float64 `json:"C"`
	Eps        float64 `json:"eps"`
	Iterations int64   `json:"iterations"`
	Epochs     int     `json:"epochs"`
	Operations int64   `json:"operations"`
	Seconds    float64 `json:"seconds"`
	Objective  float64 `json:"objective"`
	Primal     jsonNum `json:"primal"`
	Gap        jsonNum `json:"gap"`
	Violation  jsonNum `json:"violation"`
	NNZW       int     `json:"nnz_w"`
	Converged  bool    `json:"converged"`
	EpochCap   bool    `json:"hit_epoch_cap"`
	Newton     int     `json:"newton_steps"`
}

// jsonNum is a number that is null in JSON when it is NaN (the primal
// objective of a cancelled run, which skips the full pass).
type jsonNum float64

func (x jsonNum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(x))
}

func writeReport(w io.Writer, r *acfcd.Result) error {
	b, err := json.Marshal(report{r.Solver, r.Select, r.C, r.Eps, r.Iterations, r.Epochs, r.Operations,
		r.Seconds, r.Objective, jsonNum(r.Primal), jsonNum(r.Gap), jsonNum(r.Violation), r.NNZW, r.Converged, r.HitEpochCap, r.NewtonSteps})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// lassoPath fits the LASSO path, prints one line per λ as glmnet users
// expect, and returns the last (smallest λ) model with its result.
func lassoPath(ctx context.Context, stdout io.Writer, d *acfcd.Dataset, p acfcd.Params, n int, ratio float64, quiet bool) (*acfcd.Model, *acfcd.Result, error) {
	pts, err := acfcd.TrainPath(ctx, d, p, n, ratio)
	if err != nil && len(pts) == 0 {
		return nil, nil, err
	}
	if !quiet {
		fmt.Fprintf(stdout, "%4s %14s %8s %16s %10s %10s %8s %9s\n", "k", "lambda", "nnz", "objective", "gap", "violation", "epochs", "seconds")
		for k, pt := range pts {
			fmt.Fprintf(stdout, "%4d %14.6g %8d %16.10g %10.3g %10.3g %8d %9.3f\n", k, pt.Lambda, pt.NNZ, pt.Objective, pt.Gap, pt.Violation, pt.Epochs, pt.Seconds)
		}
	}
	last := pts[len(pts)-1]
	sel := p.Select
	if sel == acfcd.AutoSelection {
		sel = acfcd.ACF
	}
	res := &acfcd.Result{Solver: "LASSO", Select: sel.String(), Eps: p.Eps, Objective: last.Objective, Primal: last.Objective,
		Gap: last.Gap, Violation: last.Violation, Converged: last.Converged, Cancelled: err != nil,
		NNZW: last.Model.NNZ()}
	for _, pt := range pts {
		res.Iterations += pt.Iterations
		res.Epochs += pt.Epochs
		res.Seconds += pt.Seconds
	}
	return last.Model, res, nil
}
