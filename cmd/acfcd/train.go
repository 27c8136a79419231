package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
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
	"github.com/acfcd/acfcd/model"
)

// parseSolver reads -s: liblinear's numbers, or "lasso" and "ww".
func parseSolver(s string) (acfcd.Problem, error) {
	p, err := acfcd.ParseProblem(s)
	if err != nil || p.Flag() != s {
		return 0, usagef("-s %s: unknown solver (acfcd help train lists them: 0 to 7, 11, 12, 13, 21, lasso, ww)", s)
	}
	return p, nil
}

// splitWeightFlags removes liblinear's -wLABEL WEIGHT pairs from args, which
// the flag package cannot express, and returns them as a label → weight map.
// A label given twice gets the product of its weights, as liblinear's
// train() multiplies C by each -wi of the label in turn.
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
		if old, ok := weights[label]; ok {
			w *= old
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
	p         float64
	nu        float64
	bias      float64
	noRegBias bool
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
	thresh      float64
	lambdaPath  int
	lambdaRatio float64
	alpha       float64
	standardize bool
	choice      string // --lambda-choice
	data        dataFlags

	savePartial bool       // --save-partial: an interrupted run saves its unconverged model
	fc          findCFlags // -C and --cold (findc.go)
	set         map[string]bool
}

func (t *trainFlags) params(weights map[float64]float64, sel acfcd.Selection) acfcd.Params {
	p := acfcd.Params{Problem: t.solver, C: t.c, Eps: t.eps, Bias: t.bias, ZeroBias: t.bias == 0, Weights: weights,
		Select: sel, Seed: t.seed, MaxEpochs: t.maxEpochs, Lambda: t.lambda, Intercept: t.intercept,
		GapTol: t.gap, Thresh: t.thresh, NoFallback: t.fallback == "none", Nu: t.nu, UnregularizedBias: t.noRegBias,
		Alpha: t.alpha, Standardize: t.standardize}
	p.P = t.p
	if t.set["p"] && t.p == 0 {
		p.P = -1 // Params: 0 is the default 0.1, a negative P is ε = 0
	}
	return p
}

// The flags liblinear-train has; the usage describes them in its words.
var liblinearFlags = map[string]bool{"s": true, "c": true, "p": true, "n": true, "e": true, "B": true, "R": true, "v": true, "q": true, "C": true}

func runTrain(stdout, stderr io.Writer, args []string) error {
	args, weights, err := splitWeightFlags(args)
	if err != nil {
		return err
	}
	fs, t, solverFlag := newTrainFlags(stdout)
	fc := &t.fc
	if err := fs.parse(args); err != nil {
		return err
	}
	t.set = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { t.set[f.Name] = true })
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return fs.args("train takes DATA and an optional MODEL")
	}
	if t.solver, err = parseSolver(*solverFlag); err != nil {
		return err
	}
	if err := t.check(); err != nil {
		return err
	}
	sel, err := acfcd.ParseSelection(t.sel)
	if err != nil {
		return usagef("--select %s: %v", t.sel, err)
	}
	p := t.params(weights, sel)
	if err := p.Check(); err != nil {
		return usageError{cliError(err).Error()}
	}
	if t.noRegBias && t.bias != 1 { // liblinear's rule; Params takes any positive bias
		return usagef("-R needs -B 1: it leaves the weight of that bias feature out of the regulariser")
	}
	dataPath := fs.Arg(0)
	modelPath := filepath.Base(dataPath) + ".model"
	if fs.NArg() == 2 {
		modelPath = fs.Arg(1)
	} else if dataPath == "-" && (t.folds == 0 || t.pathCV()) {
		return fs.args("train - reads DATA from standard input and then needs MODEL (- for standard output)")
	}

	// The model on standard output keeps stdout for the model alone: the
	// summary and report go to stderr.
	info := stdout
	saves := (t.folds == 0 || t.pathCV()) && !fc.on
	if saves && (modelPath == "-" || atomicfile.IsStdout(modelPath)) {
		info = stderr
	}
	if saves && modelPath != "-" {
		// An unwritable MODEL is reported now, not after the training.
		if err := atomicfile.Check(modelPath, dataPath); err != nil {
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
	if isTerminal(stderr) && !t.quiet {
		p.Progress = func(pr acfcd.Progress) {
			fmt.Fprintf(stderr, "\r%s   ", progressLine(pr, t.folds))
		}
	}

	if fc.on {
		return fc.run(ctx, stdout, stderr, fs.FlagSet, d, p, t.folds, t.quiet, t.report == "json")
	}
	if t.pathCV() {
		return t.lassoCV(ctx, stdout, info, stderr, d, p, modelPath)
	}
	if t.folds > 0 {
		return crossValidate(ctx, stdout, stderr, d, p, t.folds, t.quiet, t.report == "json")
	}

	var m *acfcd.Model
	var res *acfcd.Result
	if t.solver == acfcd.Lasso && t.lambdaPath > 0 {
		m, res, err = lassoPath(ctx, info, d, p, t.lambdaPath, t.lambdaRatio, t.quiet)
	} else {
		m, res, err = acfcd.Train(ctx, d, p)
	}
	if p.Progress != nil {
		fmt.Fprintln(stderr)
	}
	if res != nil && res.Cancelled {
		return interrupted(stdout, m, res, modelPath, t.savePartial)
	}
	if err != nil {
		return err
	}
	for _, w := range res.Warnings {
		printWarning(stderr, w) // e.g. a -wi label that does not occur
	}
	if !t.quiet {
		printBlocks(info, t.solver, m, res)
		printTotals(info, t.solver, res)
	}
	if res.HitEpochCap {
		fmt.Fprintf(stderr, "acfcd: warning: reached the cap of %d epochs before converging (violation %g, gap %g); the model is not converged (raise --max-epochs)\n", res.Epochs, res.Violation, res.Gap)
	} else if !res.Converged {
		// A stall, a failed line search or Cholesky: no cap to raise.
		fmt.Fprintf(stderr, "acfcd: warning: the solver stopped short of its tolerance (violation %g, gap %g, eps %g); the model is not converged\n", res.Violation, res.Gap, res.Eps)
	}
	if err := saveModel(ctx, stdout, m, modelPath); err != nil {
		return err
	}
	if t.report == "json" {
		return writeReport(info, res)
	}
	return nil
}

// newTrainFlags returns train's flag set and the values it sets.
func newTrainFlags(stdout io.Writer) (*flagSet, *trainFlags, *string) {
	fs := newFlagSet("train", stdout)
	t := &trainFlags{}
	solverFlag := fs.String("s", "1", "type of solver")
	fs.Float64Var(&t.c, "c", 1, "cost C")
	fs.Float64Var(&t.p, "p", acfcd.DefaultP, "epsilon of the SVR loss")
	fs.Float64Var(&t.nu, "n", acfcd.DefaultNu, "nu of the one-class SVM")
	fs.Float64Var(&t.eps, "e", 0, "tolerance of the termination criterion")
	fs.Float64Var(&t.bias, "B", -1, "bias")
	fs.BoolVar(&t.noRegBias, "R", false, "do not regularise the bias")
	fs.IntVar(&t.folds, "v", 0, "n-fold cross validation")
	fs.BoolVar(&t.quiet, "q", false, "quiet")
	fs.StringVar(&t.sel, "select", "", "coordinate selection, by solver (its default first; the LASSO's default\nsweeps a working set of short columns in cyclic order instead of acf):\n"+selectionTable())
	fs.Uint64Var(&t.seed, "seed", 1, "random seed: the same seed gives the same model, bit for bit, on every CPU")
	fs.StringVar(&t.report, "report", "", "json: print the training report as one JSON object on the last line of stdout")
	fs.IntVar(&t.maxEpochs, "max-epochs", 0, "cap on epochs (default 1000 as liblinear 2.3; lasso 100000)")
	fs.BoolVar(&t.savePartial, "save-partial", false, "when SIGINT or SIGTERM interrupts training, save the unconverged model to MODEL\n(the exit status is still 1; without this flag nothing is written)")
	fs.StringVar(&t.fallback, "fallback", "newton", "-s 1, 3, 7, 12, 13: newton (a stalling dual hands over to primal Newton, for -s 3\nand 13 to an interior-point method on the dual, then the dual KKT check certifies the answer;\nliblinear 2.50 switches -s 1 and 7 after 300 epochs; also moves identical rows with\nopposite labels together) or none (pure dual CD)")
	fs.Float64Var(&t.lambda, "lambda", 0, "lasso: the L1 penalty λ of ½‖Xw − y‖² + λ‖w‖₁ (scikit-learn's alpha = λ/rows)")
	fs.BoolVar(&t.intercept, "intercept", false, "lasso: fit an unpenalised intercept")
	fs.Float64Var(&t.gap, "gap", 0, "lasso: stop when the duality gap is below this instead of the KKT tolerance -e")
	fs.Float64Var(&t.thresh, "thresh", 0, "lasso: stop by glmnet's rule with its thresh instead (a cycle over the working set moving no\n\tweight by more than thresh times the null deviance in ‖x_j‖²·δ², then its KKT check); the duality\n\tgap reached is still reported")
	fs.IntVar(&t.lambdaPath, "lambda-path", 0, "lasso: fit this many λ from λ_max down (geometric, warm starts, glmnet's early stop when the\nexplained deviance saturates); saves the last model. With -v K: the path cross-validated (default 100)")
	fs.Float64Var(&t.lambdaRatio, "lambda-ratio", 0, "lasso: smallest λ of the path as a fraction of λ_max (default glmnet's: 1e-4 with more rows\nthan features, else 1e-2)")
	fs.Float64Var(&t.alpha, "alpha", 1, "lasso: glmnet's elastic-net mixing α in (0, 1]: ½‖Xw − y‖² + λ(α‖w‖₁ + ½(1 − α)‖w‖²)")
	fs.BoolVar(&t.standardize, "standardize", false, "lasso: glmnet's standardize: penalise the weights of columns scaled to unit variance\n(weights reported on the original scale)")
	fs.StringVar(&t.choice, "lambda-choice", "1se", "lasso -v K without --lambda (λ by cross-validation, as cv.glmnet): min or 1se, the λ whose\nmodel on all of DATA is saved to MODEL (1se, the largest λ within one standard error of the\nleast mean error, is what glmnet's coef() and predict() of a cv.glmnet fit use)")
	t.data.register(fs)
	t.fc.register(fs.FlagSet) // -C (findc.go)
	fs.help = func(w io.Writer) { trainUsage(w, fs.FlagSet) }
	return fs, t, solverFlag
}

// check refuses, before any data is read, what the flags mean beyond the
// library's parameters: values that liblinear refuses but that Params
// reads as "the default" (-c 0, -e 0, -n 0, …), the command line's own
// flags and their combinations. Params.Check does the rest.
func (t *trainFlags) check() error {
	s := t.solver
	if t.c == 0 {
		return usagef("-c 0: C must be a positive number")
	}
	if t.set["e"] && t.eps == 0 {
		return usagef("-e 0: the tolerance must be a positive number (without -e each solver has its default)")
	}
	if t.set["p"] && t.p < 0 {
		return usagef("-p %g: the epsilon of the SVR loss must be a number >= 0", t.p)
	}
	if t.set["n"] && t.nu == 0 {
		return usagef("-n 0: nu must be in (0, 1]")
	}
	if t.set["max-epochs"] && t.maxEpochs == 0 {
		return usagef("--max-epochs 0: the cap must be at least 1 (without --max-epochs each solver has its default)")
	}
	if t.fc.on && (s == acfcd.Lasso || s == acfcd.OneClassSVM) {
		return usagef("-C searches C: -s lasso has λ instead (--lambda-path, or -v K for λ by cross-validation), -s 21 has no C")
	}
	if t.fallback != "newton" && t.fallback != "none" {
		return usagef("--fallback %q: want newton or none", t.fallback)
	}
	if t.report != "" && t.report != "json" {
		return usagef("--report %q: the only report format is json", t.report)
	}
	if t.set["v"] && t.folds < 2 {
		return usagef("-v %d: n-fold cross validation needs n >= 2", t.folds)
	}
	if s == acfcd.Lasso {
		if t.set["lambda"] && t.lambda == 0 {
			return usagef("--lambda 0: λ must be a positive number")
		}
		if t.set["lambda-path"] && t.lambdaPath < 1 {
			return usagef("--lambda-path %d: the path needs N >= 1 λ", t.lambdaPath)
		}
		if t.set["lambda"] && t.lambdaPath > 0 && t.folds == 0 {
			return usagef("--lambda %g and --lambda-path %d: a path chooses its own λ from λ_max down; give one of them", t.lambda, t.lambdaPath)
		}
		if t.set["c"] {
			return usagef("-c %g: the LASSO has no C; its penalty is --lambda", t.c)
		}
		if !t.set["lambda"] && t.lambdaPath == 0 && t.folds == 0 {
			return usagef("-s lasso needs --lambda L > 0, --lambda-path N or -v K (λ by cross-validation)")
		}
		if !(t.lambdaRatio >= 0 && t.lambdaRatio <= 1) { // not a field of Params: Check cannot see it
			return usagef("--lambda-ratio %g: want 0 < ratio <= 1 (0: glmnet's default)", t.lambdaRatio)
		}
		if t.set["alpha"] && t.alpha == 0 {
			// The zero α of Params means the LASSO; ridge regression is a
			// liblinear problem of its own.
			return usagef("--alpha 0: ridge regression (glmnet's alpha = 0) is -s 11 -p 0, the L2-regularised squared loss, with C = 1/λ; the elastic-net mixing of -s lasso must be in (0, 1]")
		}
		if t.folds > 0 && t.set["lambda"] && t.lambdaPath > 0 {
			return usagef("-v with --lambda cross-validates that one λ; without --lambda, the --lambda-path: give one of them")
		}
		if t.choice != "min" && t.choice != "1se" {
			return usagef("--lambda-choice %q: want min or 1se", t.choice)
		}
		if t.set["lambda-choice"] && !t.pathCV() {
			return usagef("--lambda-choice is for λ by cross-validation: -s lasso -v K without --lambda")
		}
		if t.set["lambda-ratio"] && t.lambdaPath == 0 && !t.pathCV() {
			return usagef("--lambda-ratio is for a path: --lambda-path N or -v K without --lambda")
		}
	} else if t.lambda != 0 || t.intercept || t.gap != 0 || t.thresh != 0 || t.lambdaPath != 0 || t.set["alpha"] || t.standardize ||
		t.set["lambda-choice"] || t.set["lambda-ratio"] {
		return usagef("--lambda, --intercept, --gap, --thresh, --alpha, --standardize, --lambda-path, --lambda-ratio and --lambda-choice are for -s lasso")
	}
	return nil
}

// pathCV reports λ by cross-validation: -s lasso -v K without --lambda.
func (t *trainFlags) pathCV() bool {
	return t.solver == acfcd.Lasso && t.folds > 0 && !t.set["lambda"]
}

// selectionTable lists the selections each solver takes, solvers with
// the same list on one line.
func selectionTable() string {
	var order []string
	groups := map[string][]string{}
	for _, st := range model.SolverTypes() {
		p, err := acfcd.ParseProblem(st.Flag)
		if err != nil {
			continue
		}
		var names []string
		for _, s := range p.Selections() {
			names = append(names, s.String())
		}
		key := strings.Join(names, ", ")
		if groups[key] == nil {
			order = append(order, key)
		}
		groups[key] = append(groups[key], st.Flag)
	}
	var b strings.Builder
	for k, key := range order {
		if k > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "  -s %s: %s", strings.Join(groups[key], ", "), key)
	}
	return b.String()
}

// trainUsage prints train's usage: liblinear-train's options in its words,
// then acfcd's.
func trainUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprint(w, `usage: acfcd train [options] DATA [MODEL]

Trains a linear model on DATA (libsvm text, .gz/.bz2, NDJSON or a binary cache;
- for standard input) and writes it in liblinear's model format to MODEL
(default: DATA's base name + ".model"; - for standard output).

options (liblinear-train's):
-s type : set type of solver (default 1)
  for multi-class classification
	 0 -- L2-regularized logistic regression (primal)
	 1 -- L2-regularized L2-loss support vector classification (dual)
	 2 -- L2-regularized L2-loss support vector classification (primal)
	 3 -- L2-regularized L1-loss support vector classification (dual)
	 4 -- support vector classification by Crammer and Singer
	 5 -- L1-regularized L2-loss support vector classification
	 6 -- L1-regularized logistic regression
	 7 -- L2-regularized logistic regression (dual)
  for regression
	11 -- L2-regularized L2-loss support vector regression (primal)
	12 -- L2-regularized L2-loss support vector regression (dual)
	13 -- L2-regularized L1-loss support vector regression (dual)
  for outlier detection
	21 -- one-class support vector machine (dual)
  acfcd's own
	ww -- Weston-Watkins multi-class support vector classification (dual)
	lasso -- L1-regularized least squares regression, min 1/2 |Xw - y|^2 + lambda |w|_1
	         (primal; --lambda, a path with --lambda-path, lambda by cross-validation with -v)
-c cost : set the parameter C (default 1)
-p epsilon : set the epsilon in loss function of SVR (default 0.1)
-n nu : set the parameter nu of one-class SVM (default 0.5)
-e epsilon : set tolerance of termination criterion (must be > 0)
	-s 0 and 2
		|f'(w)|_2 <= eps*min(pos,neg)/l*|f'(w0)|_2,
		where f is the primal function and pos/neg are # of
		positive/negative data (default 0.01)
	-s 11
		|f'(w)|_2 <= eps*|f'(w0)|_2 (default 0.0001)
	-s 1, 3, 4, 7, 21 and ww
		Dual maximal violation <= eps; similar to libsvm (default 0.1 except 0.01 for -s 21);
		for -s 1, 3, 7 and ww acfcd certifies it with a full pass over all examples
	-s 5 and 6
		|f'(w)|_1 <= eps*min(pos,neg)/l*|f'(w0)|_1,
		where f is the primal function (default 0.01)
	-s 12 and 13
		|f'(alpha)|_1 <= eps |f'(alpha0)|,
		where f is the dual function (default 0.1)
	-s lasso
		with -e: largest KKT violation <= eps; without -e (or --gap, --thresh): duality gap <= 1e-4*max(F(w), F(0)-F(w))
-B bias : if bias >= 0, instance x becomes [x; bias]; if < 0, no bias term added (default -1)
-R : not regularize the bias; must with -B 1 to have the bias (for -s 0, 2, 5, 6, 11)
-wi weight : weights adjust the parameter C of different classes: C of class i is weight*C
	(e.g. -w1 5 -w-1 0.5; a label given twice gets the product of its weights)
-v n : n-fold cross validation mode (accuracy; mean squared error and squared
	correlation coefficient for -s 11, 12, 13 and lasso with --lambda); -s lasso without
	--lambda: lambda by cross-validation as cv.glmnet (the mean error and its standard error
	at each lambda of the path, lambda.min and lambda.1se; saves MODEL at --lambda-choice)
`)
	if fs.Lookup("C") != nil {
		fmt.Fprint(w, "-C : find parameters (C for -s 0, 2 and C, p for -s 11)\n")
	}
	fmt.Fprint(w, "-q : quiet mode (no outputs)\n\noptions (acfcd's):\n")
	printFlags(w, fs, liblinearFlags)
}

// saveModel writes m to path, or to stdout for "-"; ctx ends a wait on a
// named pipe that nobody reads.
func saveModel(ctx context.Context, stdout io.Writer, m *acfcd.Model, path string) error {
	if path != "-" {
		return m.SaveContext(ctx, path)
	}
	if err := stdoutOpen(stdout); err != nil {
		return fmt.Errorf("write model to standard output: %w", err)
	}
	bw := bufio.NewWriter(stdout)
	if _, err := m.WriteTo(bw); err != nil {
		return fmt.Errorf("write model to standard output: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write model to standard output: %w", err)
	}
	return nil
}

// printBlocks prints what liblinear prints after training each
// subproblem: one block per one-vs-rest class, in class order.
func printBlocks(w io.Writer, p acfcd.Problem, m *acfcd.Model, r *acfcd.Result) {
	blocks := r.Classes
	if len(blocks) == 0 {
		blocks = []acfcd.Result{*r}
	}
	for k := range blocks {
		printBlock(w, p, m, &blocks[k])
	}
}

// printBlock prints one subproblem's lines as liblinear's solver prints
// them: "#iter", "Objective value" and, by solver, "nSV" (the dual
// solvers but -s 7), "#nonzeros/#features" (-s 5, 6) and "rho" (-s 21).
func printBlock(w io.Writer, p acfcd.Problem, m *acfcd.Model, b *acfcd.Result) {
	fmt.Fprintf(w, "optimization finished, #iter = %d\n", b.Epochs)
	if b.HitEpochCap {
		fmt.Fprintln(w, "WARNING: reaching max number of iterations") // liblinear's line, which scripts look for
	}
	if b.NewtonSteps > 0 && p != acfcd.LogisticPrimal && p != acfcd.SquaredHingePrimal && p != acfcd.SquaredSVRPrimal {
		// The switch is the dual's cost rule at work, not a failure.
		switch {
		case p == acfcd.HingeDual || p == acfcd.SVRDual:
			fmt.Fprintf(w, "finished by %d interior-point iterations on the dual, then the full dual KKT check\n", b.NewtonSteps)
		case b.NewtonFirst:
			fmt.Fprintf(w, "few features: %d primal Newton steps chosen up front, then the full dual KKT check\n", b.NewtonSteps)
		default:
			fmt.Fprintf(w, "finished by %d primal Newton steps, then the full dual KKT check\n", b.NewtonSteps)
		}
	}
	fmt.Fprintf(w, "Objective value = %s\n", cFloat(b.Objective))
	switch p {
	case acfcd.SquaredHingeDual, acfcd.HingeDual, acfcd.CrammerSinger, acfcd.SquaredSVRDual, acfcd.SVRDual, acfcd.OneClassSVM:
		if b.SupportVectors >= 0 {
			fmt.Fprintf(w, "nSV = %d\n", b.SupportVectors)
		}
	case acfcd.L1SquaredHinge, acfcd.L1Logistic:
		if m != nil {
			size := m.NumFeature
			if m.Bias >= 0 {
				size++
			}
			fmt.Fprintf(w, "#nonzeros/#features = %d/%d\n", b.NNZW, size)
		}
	}
	if p == acfcd.OneClassSVM && m != nil {
		fmt.Fprintf(w, "rho = %s\n", cFloat(m.Rho))
	}
}

// printTotals prints acfcd's own line after liblinear's: what the run
// cost and how well it converged. The primal Newton solvers have neither
// a duality gap nor a selection; a gap above the objective means the
// objective printed is not known to one digit.
func printTotals(w io.Writer, p acfcd.Problem, r *acfcd.Result) {
	var b strings.Builder
	fmt.Fprintf(&b, "max violation = %g", r.Violation)
	if !math.IsNaN(r.Gap) {
		fmt.Fprintf(&b, ", duality gap = %g", r.Gap)
		if math.Abs(r.Gap) > math.Abs(r.Objective) {
			b.WriteString(" (above |objective|: a smaller -e tightens it)")
		}
	}
	fmt.Fprintf(&b, ", nnz(w) = %d", r.NNZW)
	switch {
	case r.Select == "newton":
		fmt.Fprintf(&b, ", %d Newton steps", r.Iterations)
	case p == acfcd.LogisticPrimal || p == acfcd.SquaredHingePrimal || p == acfcd.SquaredSVRPrimal:
		// Through the dual first (examples ≤ weights), then Newton.
		fmt.Fprintf(&b, ", %d coordinate steps on the dual (%s selection), then %d Newton steps", r.Iterations, strings.TrimPrefix(r.Select, "dual "), r.NewtonSteps)
	default:
		fmt.Fprintf(&b, ", %d coordinate steps (%s selection)", r.Iterations, r.Select)
	}
	fmt.Fprintf(w, "%s, %.3f s\n", b.String(), r.Seconds)
}

// printWarning prints a warning of the library: liblinear's own in its
// words (scripts look for them), the others with acfcd's prefix.
func printWarning(w io.Writer, msg string) {
	if strings.HasSuffix(msg, "specified in weight is not found") {
		fmt.Fprintf(w, "WARNING: %s\n", msg)
		return
	}
	fmt.Fprintf(w, "acfcd: warning: %s\n", msg)
}

// cFloat formats x as C's "%f" does (liblinear's "%lf"): six decimals;
// "nan", "inf" and "-inf" as C writes them.
func cFloat(x float64) string {
	if s, ok := cSpecial(x); ok {
		return s
	}
	return strconv.FormatFloat(x, 'f', 6, 64)
}

// cG formats x as C's "%g" does: six significant digits, trailing zeros
// removed.
func cG(x float64) string {
	if s, ok := cSpecial(x); ok {
		return s
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func cSpecial(x float64) (string, bool) {
	switch {
	case math.IsNaN(x):
		return "nan", true
	case math.IsInf(x, 1):
		return "inf", true
	case math.IsInf(x, -1):
		return "-inf", true
	}
	return "", false
}

// progressLine is the progress line of a terminal: where the training is
// (fold, class label, k of K) and how far it got.
func progressLine(pr acfcd.Progress, folds int) string {
	var b strings.Builder
	if pr.Fold > 0 {
		fmt.Fprintf(&b, "fold %d of %d, ", pr.Fold, folds)
	}
	switch {
	case pr.Subproblems > 1:
		fmt.Fprintf(&b, "class %s (%d of %d), ", labelText(pr.Label), pr.Class+1, pr.Subproblems)
	case pr.Subproblems == 0 && pr.Class > 0:
		fmt.Fprintf(&b, "class %d, ", pr.Class+1)
	}
	if pr.Points > 0 {
		fmt.Fprintf(&b, "λ %d of %d (%.4g), ", pr.Point, pr.Points, pr.Lambda)
	}
	fmt.Fprintf(&b, "epoch %d, violation %.3g, objective %.10g", pr.Epoch, pr.Violation, pr.Objective)
	return b.String()
}

// labelText writes a class label in full ("1234567", not "1.23457e+06").
func labelText(l float64) string { return strconv.FormatFloat(l, 'f', -1, 64) }

// report is the --report json object.
type report struct {
	Solver         string  `json:"solver"`
	Select         string  `json:"select"`
	C              float64 `json:"C"`
	Eps            float64 `json:"eps"`
	Iterations     int64   `json:"iterations"`
	Epochs         int     `json:"epochs"`
	Operations     int64   `json:"operations"`
	Seconds        float64 `json:"seconds"`
	Objective      float64 `json:"objective"`
	Primal         jsonNum `json:"primal"`
	Gap            jsonNum `json:"gap"`
	Violation      jsonNum `json:"violation"`
	NNZW           int     `json:"nnz_w"`
	SupportVectors int     `json:"n_sv"`
	Converged      bool    `json:"converged"`
	EpochCap       bool    `json:"hit_epoch_cap"`
	Newton         int     `json:"newton_steps"`
	// λ by cross-validation (-s lasso -v K): cv.glmnet's lambda.min and
	// lambda.1se and their k, 1 for the largest λ, as printed.
	LambdaMin *jsonNum `json:"lambda_min,omitempty"`
	KMin      *int     `json:"lambda_min_k,omitempty"`
	Lambda1SE *jsonNum `json:"lambda_1se,omitempty"`
	K1SE      *int     `json:"lambda_1se_k,omitempty"`
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
	return writeJSON(w, newReport(r))
}

func newReport(r *acfcd.Result) report {
	return report{Solver: r.Solver, Select: r.Select, C: r.C, Eps: r.Eps, Iterations: r.Iterations, Epochs: r.Epochs,
		Operations: r.Operations, Seconds: r.Seconds, Objective: r.Objective, Primal: jsonNum(r.Primal),
		Gap: jsonNum(r.Gap), Violation: jsonNum(r.Violation), NNZW: r.NNZW, SupportVectors: r.SupportVectors,
		Converged: r.Converged, EpochCap: r.HitEpochCap, Newton: r.NewtonSteps}
}

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// ptrNum is x for an omitempty field of a report.
func ptrNum(x float64) *jsonNum {
	n := jsonNum(x)
	return &n
}

// lassoPath fits the LASSO path, prints one line per λ as glmnet users
// expect, and returns the last (smallest λ) model with its result.
func lassoPath(ctx context.Context, stdout io.Writer, d *acfcd.Dataset, p acfcd.Params, n int, ratio float64, quiet bool) (*acfcd.Model, *acfcd.Result, error) {
	if !quiet {
		// Each λ's line as soon as it is done (a long path is not silent),
		// numbered from 1 as the cross-validation table and glmnet number.
		fmt.Fprintf(stdout, "%4s %14s %8s %16s %10s %10s %8s %9s\n", "k", "lambda", "nnz", "objective", "gap", "violation", "epochs", "seconds")
		clear := p.Progress != nil && isTerminal(stdout) // the progress line shares the terminal
		k := 0
		p.PathProgress = func(pt acfcd.PathPoint) {
			k++
			if clear {
				fmt.Fprint(stdout, "\r\033[K")
			}
			fmt.Fprintf(stdout, "%4d %14.6g %8d %16.10g %10.3g %10.3g %8d %9.3f\n", k, pt.Lambda, pt.NNZ, pt.Objective, pt.Gap, pt.Violation, pt.Epochs, pt.Seconds)
		}
	}
	pts, err := acfcd.TrainPath(ctx, d, p, n, ratio)
	if err != nil && len(pts) == 0 {
		return nil, nil, err
	}
	last := pts[len(pts)-1]
	sel := p.Select
	res := &acfcd.Result{Solver: "LASSO", Select: sel.String(), Eps: p.Eps, Objective: last.Objective, Primal: last.Objective,
		Gap: last.Gap, Violation: last.Violation, Converged: last.Converged, Cancelled: err != nil,
		NNZW: last.NNZ, SupportVectors: -1}
	for _, pt := range pts {
		res.Iterations += pt.Iterations
		res.Epochs += pt.Epochs
		res.Seconds += pt.Seconds
	}
	return last.Model, res, nil
}

// kindOf returns what a model predicts.
func kindOf(m *acfcd.Model) model.Kind {
	if st, ok := model.LookupSolverType(m.SolverType); ok {
		return st.Kind
	}
	if len(m.Labels) > 0 {
		return model.Classifier
	}
	return model.Regression
}
