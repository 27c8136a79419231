// Package acfcd trains sparse linear models by coordinate descent whose
// coordinate frequencies adapt online (ACF: Glasmachers & Dogan,
// "Coordinate Descent with Online Adaptation of Coordinate Frequencies"),
// with liblinear's problems and file format, so liblinear-predict reads
// the models. The problems (Problem, named after liblinear's -s numbers,
// which are their values):
//
//   - -s 0 LogisticPrimal, 2 SquaredHingePrimal, 11 SquaredSVRPrimal: the
//     L2-regularised primal problems to liblinear's primal stopping rule,
//     by Newton's method, or, with no more examples than weights, by dual
//     coordinate descent first (then Newton where the rule needs it);
//   - -s 1 SquaredHingeDual, 3 HingeDual, 7 LogisticDual: the linear SVMs
//     with the squared hinge and the hinge loss and logistic regression,
//     by dual coordinate descent;
//   - -s 12 SquaredSVRDual, 13 SVRDual: support vector regression, and
//     -s 21 OneClassSVM, by dual coordinate descent;
//   - -s 4 CrammerSinger and acfcd's WestonWatkins (-s ww): multi-class
//     SVMs by dual subspace descent over examples;
//   - -s 5 L1SquaredHinge, 6 L1Logistic: L1-regularised classifiers, by
//     primal coordinate descent over features;
//   - acfcd's Lasso (-s lasso): the LASSO and elastic net, by primal
//     coordinate descent over features, also along a path of λ.
//
// This package is the front door; the command acfcd and the benchmarks use
// it too:
//
//	d, err := acfcd.Load("train.svm", acfcd.Options{})
//	if err != nil { ... }
//	p := acfcd.Params{Problem: acfcd.SquaredHingeDual, C: 10} // liblinear-train -s 1 -c 10
//	m, res, err := acfcd.Train(ctx, d, p)
//	if err != nil { ... }
//	label := m.Predict(idx, val)
//	err = m.Save("train.model")
//
// A Problem's value is its -s number, so Problem(3) is -s 3 (HingeDual), as
// a liblinear user expects; acfcd's own, Lasso and WestonWatkins, are 100
// and 101. The zero Params is therefore -s 0 (LogisticPrimal), liblinear's
// numbering, while acfcd train's default is -s 1, liblinear-train's: set
// Problem: SquaredHingeDual to get the command's defaults. Apart from the
// problem, every zero field of Params means the command's default (see
// Params), so that the library and the command give the same model bit for
// bit for the same settings (the same seed always gives the same model).
//
// Cancellation: Train, TrainPath and CrossValidate stop soon after ctx is
// cancelled (the solvers poll it about every million non-zeros they
// touch) and then return what they reached (a model marked Partial, the
// path points done) together with an error that wraps ctx.Err(), so
// errors.Is(err, context.Canceled) tells a cancelled run.
//
// The pieces underneath: package io (readers, imported as dataio), model
// (the Model and liblinear's format), solver (the coordinate-descent
// driver and its problems), acf (the preferences and the scheduler) and
// kernel (sparse dot products).
package acfcd

import (
	"fmt"

	"github.com/acfcd/acfcd/acf"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/l1"
	"github.com/acfcd/acfcd/solver/lasso"
)

// Problem is what Train fits: liblinear's solver types, whose values are
// liblinear's -s numbers (Problem(3) is -s 3, HingeDual), and acfcd's own,
// Lasso and WestonWatkins, numbered 100 and 101, beyond liblinear's range
// (0 to 21 so far) so that a later liblinear number cannot collide with
// them. The zero value is -s 0, LogisticPrimal, as in liblinear's
// numbering; acfcd train's default is -s 1 (SquaredHingeDual). A value
// that names no problem is refused by Params.Check and Train.
type Problem uint8

const (
	// LogisticPrimal is -s 0 (L2R_LR): L2-regularised logistic regression
	// to the primal solver's rule (Newton's method, or the dual first
	// where examples are no more than weights).
	LogisticPrimal Problem = 0
	// SquaredHingeDual is -s 1 (L2R_L2LOSS_SVC_DUAL): the L2-regularised
	// SVM with the squared hinge loss, by dual coordinate descent.
	SquaredHingeDual Problem = 1
	// SquaredHingePrimal is -s 2 (L2R_L2LOSS_SVC): the squared-hinge SVM
	// to the primal solver's rule, as LogisticPrimal.
	SquaredHingePrimal Problem = 2
	// HingeDual is -s 3 (L2R_L1LOSS_SVC_DUAL): the SVM with the hinge loss.
	HingeDual Problem = 3
	// CrammerSinger is -s 4 (MCSVM_CS): the Crammer–Singer multi-class
	// SVM by dual subspace descent over examples.
	CrammerSinger Problem = 4
	// L1SquaredHinge is -s 5 (L1R_L2LOSS_SVC): the L1-regularised
	// squared-hinge SVM, by primal coordinate descent over features.
	L1SquaredHinge Problem = 5
	// L1Logistic is -s 6 (L1R_LR): L1-regularised logistic regression, by
	// primal coordinate descent over features (newGLMNET).
	L1Logistic Problem = 6
	// LogisticDual is -s 7 (L2R_LR_DUAL): logistic regression.
	LogisticDual Problem = 7
	// SquaredSVRPrimal is -s 11 (L2R_L2LOSS_SVR): support vector
	// regression with the squared ε-insensitive loss, in the primal.
	SquaredSVRPrimal Problem = 11
	// SquaredSVRDual is -s 12 (L2R_L2LOSS_SVR_DUAL): the same by dual
	// coordinate descent.
	SquaredSVRDual Problem = 12
	// SVRDual is -s 13 (L2R_L1LOSS_SVR_DUAL): support vector regression
	// with the ε-insensitive loss, by dual coordinate descent.
	SVRDual Problem = 13
	// OneClassSVM is -s 21 (ONECLASS_SVM): the one-class SVM of
	// liblinear 2.40 (Params.Nu), by dual coordinate descent.
	OneClassSVM Problem = 21
	// Lasso is -s lasso, acfcd's own (value 100): min ½‖Xw − y‖² + λ‖w‖₁
	// by primal coordinate descent over features (Params.Lambda, which
	// Train needs > 0; Params.Intercept).
	Lasso Problem = 100
	// WestonWatkins is -s ww (MCSVM_WW), acfcd's own (value 101): the
	// Weston–Watkins multi-class SVM by dual subspace descent over
	// examples.
	WestonWatkins Problem = 101
)

// known reports whether p names a problem (the families table has holes
// between liblinear's numbers).
func (p Problem) known() bool { return int(p) < len(families) && families[p].train != nil }

// problems lists the problems in increasing order of their values.
func problems() []Problem {
	var ps []Problem
	for p := range Problem(len(families)) {
		if p.known() {
			ps = append(ps, p)
		}
	}
	return ps
}

func (p Problem) solverType() (model.SolverType, bool) {
	if !p.known() {
		return model.SolverType{}, false
	}
	return model.SolverTypeByFlag(families[p].flag)
}

// String returns the problem's solver_type name, e.g. "L2R_L2LOSS_SVC_DUAL".
func (p Problem) String() string {
	if st, ok := p.solverType(); ok {
		return st.Name
	}
	return fmt.Sprintf("Problem(%d)", uint8(p))
}

// Flag returns the problem's value of acfcd train -s, e.g. "1" or "lasso".
func (p Problem) Flag() string {
	if st, ok := p.solverType(); ok {
		return st.Flag
	}
	return fmt.Sprintf("Problem(%d)", uint8(p))
}

// ParseProblem returns the problem named s: a value of -s ("1", "3", "7",
// "lasso", "ww") or a solver_type name ("L2R_LR_DUAL").
func ParseProblem(s string) (Problem, error) {
	for _, p := range problems() {
		st, _ := p.solverType()
		if s == st.Flag || s == st.Name {
			return p, nil
		}
	}
	return 0, fmt.Errorf("unknown solver %q (acfcd implements -s 0 to 7, 11, 12, 13, 21, lasso and ww)", s)
}

// MarshalText implements encoding.TextMarshaler (the -s value).
func (p Problem) MarshalText() ([]byte, error) { return []byte(p.Flag()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (p *Problem) UnmarshalText(b []byte) error {
	v, err := ParseProblem(string(b))
	if err == nil {
		*p = v
	}
	return err
}

// Classifier reports whether the problem's labels are classes (false for
// the regressions and the one-class SVM).
func (p Problem) Classifier() bool { return p.kind() == model.Classifier }

// Regression reports whether the problem's labels are real targets (the
// SVRs and the LASSO).
func (p Problem) Regression() bool { return p.kind() == model.Regression }

func (p Problem) kind() model.Kind {
	st, _ := p.solverType()
	return st.Kind
}

// Selection is a coordinate-selection rule; the zero value, AutoSelection,
// is the problem's default (acf+shrink for -s 1, 3, 5 and 6, acf otherwise).
type Selection = solver.Selection

// The selections. Which a problem takes: -s 1 and 3 all but Cyclic; -s 7
// the same, where Shrink runs as Uniform and ACFShrink as ACF (its α is
// never at a bound, so liblinear never shrinks it); the LASSO ACF, Uniform
// and Cyclic; -s 5 and 6 all five (their Shrink is liblinear's shrinking of
// weights at 0); the Weston–Watkins SVM ACF and Uniform.
const (
	AutoSelection = solver.Auto
	ACFShrink     = solver.ACFShrink // ACF over liblinear's shrinking active set
	ACF           = solver.ACF       // the paper's method as published
	Uniform       = solver.Uniform   // a fresh random permutation each sweep
	Shrink        = solver.Shrink    // liblinear's selection
	Cyclic        = solver.Cyclic    // index order (glmnet, scikit-learn)
)

// ParseSelection returns the selection named s (as --select takes it; ""
// is AutoSelection).
func ParseSelection(s string) (Selection, error) { return solver.ParseSelection(s) }

// Defaults.
const (
	// DefaultMaxEpochs is liblinear 2.3.0's max_iter for the dual solvers
	// (and the Weston–Watkins SVM's cap).
	DefaultMaxEpochs = 1000
	// DefaultLassoMaxEpochs caps LASSO epochs (see lasso.DefaultMaxEpochs).
	DefaultLassoMaxEpochs = lasso.DefaultMaxEpochs
	// DefaultSeed is the seed that Params.Seed = 0 stands for (and the
	// default of acfcd train --seed).
	DefaultSeed = 1
	// DefaultP is the SVRs' ε (liblinear's -p default).
	DefaultP = 0.1
	// DefaultNu is the one-class SVM's ν (liblinear's -n default).
	DefaultNu = 0.5
	// DefaultL1Eps is liblinear's default -e for -s 5 and 6.
	DefaultL1Eps = l1.DefaultEps
)

// Params are the training options, named after liblinear-train's flags.
// The zero value is valid. What a zero field means, for every field:
//
//   - Problem: -s 0, LogisticPrimal (Problem's values are liblinear's -s
//     numbers); acfcd train's default is -s 1, SquaredHingeDual.
//   - C: 1. Eps: the problem's default tolerance (see Eps).
//   - Bias: no bias feature (as any negative Bias). liblinear's -B 0, a
//     bias feature of value 0 that writes "bias 0" to the model file, is
//     ZeroBias.
//   - Weights: every class weighs 1.
//   - Select: AutoSelection, the problem's default. Seed: DefaultSeed.
//   - MaxEpochs: DefaultMaxEpochs (DefaultLassoMaxEpochs for the LASSO).
//   - ACF: the paper's defaults.
//   - Lambda: none; Train and CrossValidate refuse the LASSO without a
//     Lambda > 0 (TrainPath, TrainPathLambdas and CrossValidatePath choose
//     λ, and Check takes it for them).
//   - Alpha: 1, the LASSO without a ridge part.
//   - P: DefaultP = 0.1, not ε = 0 (a negative P means ε = 0), as
//     liblinear's -p. Nu: DefaultNu.
//   - GapTol and Thresh: the LASSO's default stopping rule (see GapTol).
//   - ZeroBias, Intercept, Standardize, UnregularizedBias, NoFallback:
//     off. Progress and PathProgress: no calls.
type Params struct {
	// Problem is liblinear's -s: the zero value is -s 0 (LogisticPrimal),
	// not acfcd train's default -s 1 (SquaredHingeDual).
	Problem Problem
	// C is the cost; 0 means 1, as liblinear's default.
	C float64
	// Eps is the stopping tolerance on the largest KKT violation; 0 means
	// the problem's default: 0.1 for -s 1, 3, 7 and the Weston–Watkins SVM
	// (liblinear's); for the LASSO a positive Eps stops on the largest KKT
	// violation, and 0 means its duality-gap rule (GapTol). As in
	// liblinear, -s 12 and 13 take it relative to the first sweep's summed
	// violations (default 0.1), -s 21 on the maximal violating pair
	// (default 0.01); for -s 0, 2 and 11 it is the relative gradient norm
	// (default 0.01; 1e-4 for -s 11), for -s 5 and 6 the relative norm of
	// the minimum-norm subgradient (default 0.01).
	Eps float64
	// Bias > 0 gives every example an extra feature of this value
	// (liblinear's -B; its weight is regularised, as in liblinear); 0 and
	// negative values give none. For liblinear's -B 0 set ZeroBias.
	Bias float64
	// ZeroBias, with no positive Bias, gives the model liblinear's layout
	// for -B 0: a bias feature of value 0, which changes no weight, only
	// the model file (a "bias 0" line and a row of zero weights). The
	// LASSO ignores it.
	ZeroBias bool
	// Weights is liblinear's -wi: the C of class label is C·Weights[label].
	// A label that does not occur is ignored with a warning in Result.
	// (liblinear multiplies the weights of a label given twice, as
	// acfcd train does before it fills this map.)
	Weights map[float64]float64
	// Select is the coordinate selection (zero: the problem's default).
	// The LASSO's default is ACF on each working set whose columns are
	// long enough (lasso.Tuning.LassoACFMinNNZ non-zeros on average),
	// cyclic order on the others; its Result.Select is then "auto".
	Select Selection
	// Seed seeds every random choice; the same seed gives a bit-identical
	// model. 0 means DefaultSeed.
	Seed uint64
	// MaxEpochs caps the epochs of each subproblem (0: DefaultMaxEpochs,
	// for the LASSO DefaultLassoMaxEpochs). For Uniform, Shrink and
	// Cyclic an epoch is one sweep over the (active) coordinates,
	// liblinear's #iter; for the ACF selections it is n coordinate steps.
	// For -s 6 it caps the epochs of the inner coordinate descent summed
	// over newGLMNET's outer iterations (at most 100, liblinear's).
	MaxEpochs int
	// ACF configures the adaptation of coordinate frequencies; the zero
	// value is the paper's defaults.
	ACF acf.Config
	// Lambda is the LASSO's L1 penalty λ ≥ 0: min_w ½‖Xw − y‖² + λ‖w‖₁.
	// scikit-learn's alpha and glmnet's lambda are λ/ℓ for ℓ examples.
	Lambda float64
	// Intercept adds an unpenalised intercept to the LASSO (y and the
	// columns are centred implicitly, without densifying X).
	Intercept bool
	// Alpha is glmnet's elastic-net mixing in (0, 1]: the LASSO's
	// objective becomes ½‖y − Xw − b‖² + λ(α‖w‖₁ + ½(1−α)‖w‖²). 0 means
	// 1, the LASSO.
	Alpha float64
	// Standardize is glmnet's standardize for the LASSO: each column is
	// scaled to unit variance (1/ℓ, centred), implicitly without
	// densifying X; the penalty applies to the scaled weights, and the
	// model's weights are reported on the original scale.
	Standardize bool
	// P is the ε of the SVRs' ε-insensitive loss (liblinear's -p): 0 means
	// DefaultP (0.1), not ε = 0; a negative P means ε = 0.
	P float64
	// Nu is the one-class SVM's ν in (0, 1] (liblinear's -n): 0 means
	// DefaultNu.
	Nu float64
	// UnregularizedBias leaves the bias weight out of the regulariser
	// (liblinear's -R, for -s 0, 2, 5, 6 and 11; needs Bias > 0).
	UnregularizedBias bool
	// GapTol > 0 stops the LASSO at the first full pass whose duality gap
	// F(w) − D(θ) is at most GapTol, in the units of
	// F = ½‖y − Xw‖² + λ(α‖w‖₁ + ½(1−α)‖w‖²); the KKT tolerance then stops
	// it too only if Eps > 0 was given. With neither, the LASSO stops at a
	// gap of at most lasso.DefaultGapRel·max(F(w), F(0) − F(w)), F(0) the
	// objective at w = 0 (lasso.DefaultGap). scikit-learn's tol
	// corresponds to GapTol = tol·‖y‖² (tol·‖y − ȳ‖² with an intercept).
	GapTol float64
	// Thresh > 0 stops the LASSO by glmnet's rule instead, with glmnet's
	// meaning of its thresh: a cycle over the working set in which no
	// weight moved by δ with ‖x_j‖²·δ² above Thresh·‖y − ȳ‖² (the null
	// deviance; ‖y‖² without an intercept), and no feature outside it
	// violating its KKT condition. It is cheaper than a certificate at
	// small λ and as loose as glmnet's there (1e-7 leaves glmnet 1e-4 to
	// 6e-2 above the optimum on data with more features than examples);
	// Result.Gap still reports the duality gap reached. It excludes Eps
	// and GapTol.
	Thresh float64
	// NoFallback turns off what takes over from a stalling dual (-s 1 and
	// 7: primal Newton; -s 3: an interior-point method) and the push of
	// identical rows with opposite labels. Comparisons of the coordinate
	// selections themselves turn it off.
	NoFallback bool
	// Progress, if set, is called about once per epoch. One-vs-rest
	// classes and cross-validation folds train in parallel, so calls may
	// come from several goroutines, but never two at once. On a LASSO path
	// Progress.Point and Lambda say which λ is being fitted.
	Progress func(Progress)
	// PathProgress, if set, is called by TrainPath, TrainPathLambdas and
	// CrossValidatePath (for the path on the whole data) with each point
	// as soon as it is done, in order, from the calling goroutine.
	PathProgress func(PathPoint)

	trace func(format string, args ...any) // tests: a line per pass and finisher step
	warm  any                              // FindC: a fold's solutions at the previous C (the family's type)
}

// Progress reports the state of one subproblem at the end of an epoch.
type Progress = fit.Progress

// DataError is a dataset that training or prediction refuses, with the
// option of Options that would change that in its Hint.
type DataError = fit.DataError

// Result describes a training run (see fit.Result for its fields). Its
// Iterations count coordinate steps, not liblinear's #iter: that is
// Epochs, the sweeps over the coordinates (for the ACF selections,
// steps/n rounded up).
type Result = fit.Result
