// Package fit is what the problem families share above the driver: the
// Spec every family's Train takes, the Result it returns, the checks of
// the data before any work, liblinear's one-vs-rest subproblems and the
// runner that trains them in parallel.
//
// A family (package dual, primal, l1, lasso, multiclass) owns its setup,
// its subproblems and its finishers; the root package acfcd turns the
// user's Params into a Spec, picks the family from its table and
// assembles what the family returns.
package fit

import (
	"context"
	"math"

	"github.com/acfcd/acfcd/acf"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/tune"
	solver "github.com/acfcd/acfcd/solver"
)

// Spec is what every family is told: the user's parameters, resolved, and
// the run's plumbing. A family's own Spec embeds it and adds the
// parameters only it has.
type Spec struct {
	C   float64 // the cost, > 0
	Eps float64 // the user's tolerance; 0: the family's default
	// Bias is the bias feature's value, or −1 for none (the model file's
	// convention).
	Bias float64
	// Weights is liblinear's -wi: the C of class label is C·Weights[label].
	Weights map[float64]float64
	// Select is the coordinate selection, resolved (Auto only for the
	// LASSO, whose default is chosen per working set).
	Select    solver.Selection
	Seed      uint64
	MaxEpochs int // 0: the family's default
	ACF       acf.Config
	// NoFallback turns off the finishers and the push of identical rows.
	NoFallback bool
	// Progress, if set, is called about once per epoch, never twice at once.
	Progress func(Progress)
	// Pool lends the processors beyond the caller's to the subproblems and
	// their passes.
	Pool *procs.Pool
	// Warm carries a fold's solutions from one C of a parameter search to
	// the next (the family's own type; nil: every training from scratch).
	Warm any
	// Trace, if set, receives a line per full pass and finisher step.
	Trace func(format string, args ...any)
}

// Progress reports the state of one subproblem at the end of an epoch.
type Progress struct {
	Fold      int     // cross-validation fold, from 1 (0 outside CrossValidate)
	Class     int     // one-vs-rest subproblem (0 for a binary problem)
	Epoch     int     // epochs done
	Violation float64 // largest KKT violation seen in the last sweep
	Objective float64 // current objective (for the duals liblinear's dual)

	// Label is the class label of Class, the positive class of its
	// subproblem, and Subproblems the number of subproblems in all (1 for
	// a binary problem; 0 where the solver does not report them).
	Label       float64
	Subproblems int

	// Point is the λ of a LASSO path being fitted, from 1, of Points, and
	// Lambda its value (all 0 outside a path).
	Point, Points int
	Lambda        float64
}

// Result describes a training run. For a multi-class problem trained one
// vs rest the counts are sums over the subproblems in Classes, Objective,
// Primal and Gap are sums, Violation is the largest, and Converged holds
// when every subproblem converged.
type Result struct {
	Solver     string // the solver_type name, e.g. "L2R_L1LOSS_SVC_DUAL"
	Select     string
	C, Eps     float64
	Iterations int64   // coordinate steps (gradient evaluations while optimising), not liblinear's #iter
	Epochs     int     // sweeps, liblinear's #iter (ACF selections: steps/n, rounded up)
	Operations int64   // non-zeros touched: steps, passes and finishers
	Seconds    float64 // wall time of training
	// Objective is the objective as liblinear prints it ("Objective
	// value"), minimised: for -s 1/3, ½αᵀ(Q+D)α − Σα; for -s 7,
	// ½αᵀQα + Σ[α log α + (C−α) log(C−α) − C log C]; for the
	// Weston–Watkins SVM its dual likewise; for the LASSO F(w).
	Objective float64
	// Primal is the primal objective at the returned model (for the duals
	// ½‖w‖² + Σ C_i·loss_i, the function liblinear's primal solvers print).
	Primal float64
	// Gap is the duality gap at the returned model (Primal + Objective for
	// the duals, whose printed objective is minus the dual function).
	Gap float64
	// Violation is the largest KKT violation over all coordinates, from a
	// full pass at the returned model (-s 1/3: |projected gradient|, at
	// most Eps/2 when converged, so that PGmax − PGmin ≤ Eps as in
	// liblinear's criterion; -s 7: |∂f/∂α_i|, at most Eps). A cancelled run
	// skips that pass to stop at once: Violation is then the largest seen
	// in the last sweep, and Gap is NaN, and so is Primal but for the
	// LASSO (whose objective is its primal, computed without the pass).
	// For -s 5 and 6 it is liblinear's stopping quantity, ‖∇^S F(w)‖₁
	// divided by ‖∇^S F(0)‖₁·max(min(pos, neg), 1)/ℓ, at most Eps when
	// converged (NaN when cancelled).
	Violation float64
	NNZW      int // non-zero weights in the model (bias included)
	// SupportVectors counts the examples with α_i ≠ 0 (the dual solvers;
	// liblinear's "nSV"), or −1 where it does not apply.
	SupportVectors int
	// NewtonSteps are the steps of the finishers (primal Newton steps,
	// Newton-CG iterations, for -s 3 and 13 interior-point iterations); 0 when
	// coordinate descent alone converged (and for -s 5 and 6, which have
	// none).
	NewtonSteps int
	// NewtonFirst: the finisher's first Newton steps were chosen up front
	// from the data's shape (few features: -s 1 and 7 start with primal
	// Newton, or take it after one dual epoch), not by a stalling dual.
	NewtonFirst bool
	Converged   bool
	HitEpochCap bool
	Cancelled   bool
	// Warnings are non-fatal remarks, e.g. a -wi label that does not occur.
	Warnings []string
	Classes  []Result // per one-vs-rest subproblem (empty for binary)
}

// Add adds a subproblem's result r to the total.
func (res *Result) Add(r *Result) {
	res.Iterations += r.Iterations
	res.Epochs += r.Epochs
	res.NewtonSteps += r.NewtonSteps
	res.NewtonFirst = res.NewtonFirst || r.NewtonFirst
	res.Operations += r.Operations
	res.Objective += r.Objective
	res.Primal += r.Primal
	res.Gap += r.Gap
	res.Violation = max(res.Violation, r.Violation)
	res.Converged = res.Converged && r.Converged
	res.HitEpochCap = res.HitEpochCap || r.HitEpochCap
	res.Cancelled = res.Cancelled || r.Cancelled
}

// SetRun fills in the counts and the convergence of res from the
// driver's run r, settled with converged (Objective already set), with
// ops operations and the violation and primal objective measured at its
// end (see Measured).
func (res *Result) SetRun(r *solver.Run, ops int64, converged bool, viol, primal float64) {
	res.Iterations = r.Steps
	res.Epochs = r.Epochs()
	res.Operations = ops
	res.Primal = primal
	res.Gap = primal + res.Objective
	res.Violation = viol
	res.Converged = converged && !r.Cancelled()
	res.Cancelled = r.Cancelled()
	res.HitEpochCap = r.Capped() && !converged
}

// Measured returns the violation and primal objective of a run that
// Run.Settle left with ok: its last full pass's, or, unmeasured
// (cancelled), the last sweep's violation and NaN.
func Measured(r *solver.Run, ok bool, passViol, passPrimal float64) (viol, primal float64) {
	if ok {
		return passViol, passPrimal
	}
	return r.LastViol, math.NaN()
}

// SetSolver names the solver in res and its subproblems' results.
func (res *Result) SetSolver(name string) {
	res.Solver = name
	for k := range res.Classes {
		res.Classes[k].Solver = name
	}
}

// Config is the driver's configuration of a run under s and ctx: its
// selection, seed, tolerance, cap, adaptation, cancellation, the driver's
// tuning and the trace (Progress is the family's to set, in its own
// terms).
func (s *Spec) Config(ctx context.Context, seed uint64, eps float64, maxEpochs int, repair solver.Repair, work int64) solver.Config {
	return solver.Config{Selection: s.Select, Seed: seed, Eps: eps, MaxEpochs: maxEpochs, ACF: s.ACF,
		Repair: repair, Work: work, Done: ctx.Done(), Tuning: tune.Get(ctx, solver.DefaultTuning), Trace: s.Trace}
}

// Small returns the factor by which a coordinate-descent solver tightens
// its tolerance on data of nnz non-zeros: Tuning.SmallTighten on a small
// problem, else 1. At liblinear's loose default -e the point at which a
// stopping rule first holds depends on the order of the steps, and a
// tighter target puts acfcd's point at or below liblinear's objective for
// a few more epochs over a set that takes milliseconds (docs/tuning.md).
// Small means a cost model below Tuning.SmallNNZ: the non-zeros times
// max(1, C), C standing for the growth of the epochs with it. Result.Eps
// stays the user's.
func (s *Spec) Small(ctx context.Context, nnz int64) float64 {
	t := tune.Get(ctx, DefaultTuning)
	if t.SmallTighten <= 0 || t.SmallTighten >= 1 || float64(nnz)*max(1, s.C) > float64(t.SmallNNZ) {
		return 1
	}
	return t.SmallTighten
}
