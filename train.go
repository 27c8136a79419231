package acfcd

import (
	"context"
	"fmt"
	"runtime"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/l1"
	"github.com/acfcd/acfcd/solver/lasso"
	"github.com/acfcd/acfcd/solver/multiclass"
	"github.com/acfcd/acfcd/solver/primal"
)

// family says how one Problem is trained: by which family package, with
// which selections, and how a parameter search treats it.
type family struct {
	flag  string      // its -s value, the key of model's table of solver types
	sel   []Selection // the selections it takes, its default first
	train func(ctx context.Context, d *Dataset, p *Params, s fit.Spec) (*Model, *Result, error)
	// start returns liblinear's first C of a parameter search (calc_start_C).
	start func(d *Dataset, p *Params) (float64, error)
	// warm returns the warm start of one fold of a parameter search
	// (nil: every C from scratch).
	warm func(cold bool) any
}

var (
	dualSel    = []Selection{ACFShrink, ACF, Uniform, Shrink}
	newtonSel  = []Selection{ACF} // no coordinate descent: the value is ignored
	l1Sel      = []Selection{ACFShrink, ACF, Uniform, Shrink, Cyclic}
	dualWarm   = func(cold bool) any { return dual.NewWarm(cold) }
	primalWarm = func(cold bool) any { return primal.NewWarm(cold) }
)

// families is the table from Problem to the family that trains it, indexed
// by the Problem's value (liblinear's -s number): the numbers liblinear
// leaves out are holes with a nil train (Problem.known).
var families = [...]family{
	SquaredHingeDual:   {"1", dualSel, duals(dual.L2LossSVC), startWith(fit.StartSquaredHinge), dualWarm},
	HingeDual:          {"3", dualSel, duals(dual.L1LossSVC), startWith(fit.StartHinge), dualWarm},
	LogisticDual:       {"7", dualSel, duals(dual.LR), startWith(fit.StartHinge), dualWarm},
	Lasso:              {"lasso", []Selection{ACF, Uniform, Cyclic}, trainLasso, startWith(fit.StartNone), nil},
	WestonWatkins:      {"ww", []Selection{ACF, Uniform}, multiclasses(false), startWith(fit.StartHinge), nil},
	LogisticPrimal:     {"0", newtonSel, primals(primal.Logistic), startWith(fit.StartHinge), primalWarm},
	SquaredHingePrimal: {"2", newtonSel, primals(primal.SquaredHinge), startWith(fit.StartSquaredHinge), primalWarm},
	CrammerSinger:      {"4", dualSel, multiclasses(true), startWith(fit.StartHinge), nil},
	L1SquaredHinge:     {"5", l1Sel, l1s(false), l1Start(false), nil},
	L1Logistic:         {"6", l1Sel, l1s(true), l1Start(true), nil},
	SquaredSVRPrimal:   {"11", newtonSel, primals(primal.SquaredTube), startWith(fit.StartSVR), primalWarm},
	SquaredSVRDual:     {"12", dualSel, duals(dual.L2LossSVR), startWith(fit.StartSVR), nil},
	SVRDual:            {"13", dualSel, duals(dual.L1LossSVR), startWith(fit.StartSVR), nil},
	OneClassSVM:        {"21", dualSel, duals(dual.OneClass), startWith(fit.StartNone), nil},
}

func startWith(rule fit.StartRule) func(*Dataset, *Params) (float64, error) {
	return func(d *Dataset, p *Params) (float64, error) { return fit.StartC(d, rule, p.Bias, p.epsilon()), nil }
}

func l1Start(logistic bool) func(*Dataset, *Params) (float64, error) {
	return func(d *Dataset, p *Params) (float64, error) {
		bias := p.Bias
		if p.UnregularizedBias {
			bias = 0 // its weight has no |w_b| term
		}
		return l1.StartC(d, logistic, bias)
	}
}

func duals(k dual.Kind) func(context.Context, *Dataset, *Params, fit.Spec) (*Model, *Result, error) {
	return func(ctx context.Context, d *Dataset, p *Params, s fit.Spec) (*Model, *Result, error) {
		return dual.Train(ctx, d, dual.Spec{Spec: s, Kind: k, P: p.P, Nu: p.Nu})
	}
}

func primals(loss primal.Loss) func(context.Context, *Dataset, *Params, fit.Spec) (*Model, *Result, error) {
	return func(ctx context.Context, d *Dataset, p *Params, s fit.Spec) (*Model, *Result, error) {
		return dual.TrainPrimal(ctx, d, primal.Spec{Spec: s, Loss: loss, P: p.P, FreeBias: p.UnregularizedBias})
	}
}

func l1s(logistic bool) func(context.Context, *Dataset, *Params, fit.Spec) (*Model, *Result, error) {
	return func(ctx context.Context, d *Dataset, p *Params, s fit.Spec) (*Model, *Result, error) {
		return l1.Train(ctx, d, l1.Spec{Spec: s, Logistic: logistic, FreeBias: p.UnregularizedBias})
	}
}

func multiclasses(crammer bool) func(context.Context, *Dataset, *Params, fit.Spec) (*Model, *Result, error) {
	return func(ctx context.Context, d *Dataset, p *Params, s fit.Spec) (*Model, *Result, error) {
		return multiclass.Train(ctx, d, multiclass.Spec{Spec: s, Crammer: crammer})
	}
}

func trainLasso(ctx context.Context, d *Dataset, p *Params, s fit.Spec) (*Model, *Result, error) {
	return lasso.Train(ctx, d, p.lassoSpec(s))
}

// Train fits a model to d as liblinear-train would with the same -s, -c,
// -e, -B and -wi. Classes are ordered as liblinear does (first appearance,
// with -1/+1 swapped to +1/-1); more than two are trained one-vs-rest, in
// parallel (the Weston–Watkins SVM trains all at once). A single class is
// trained as liblinear 2.3.0 does: one subproblem with every example
// positive.
//
// When ctx is cancelled, Train returns the model reached so far (Partial
// set) and its Result (Cancelled set) with an error wrapping ctx.Err().
func Train(ctx context.Context, d *Dataset, p Params) (*Model, *Result, error) {
	if err := checkArgs(ctx, d); err != nil {
		return nil, nil, err
	}
	return trainWith(ctx, d, p, procs.NewPool(runtime.GOMAXPROCS(0)-1))
}

// trainWith is Train taking the goroutines beyond the caller's from pool.
func trainWith(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (m *Model, res *Result, err error) {
	if err := kernel.EnvError(); err != nil {
		return nil, nil, err
	}
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	if err := p.resolveOne(); err != nil {
		return nil, nil, err
	}
	m, res, err = families[p.Problem].train(ctx, d, &p, p.spec(pool))
	if err != nil {
		return nil, nil, err
	}
	name := p.Problem.String()
	res.SetSolver(name)
	m.SolverType = name
	if p.ZeroBias && p.Problem != Lasso {
		m = zeroBias(m)
	}
	if res.Cancelled {
		err = interrupted(ctx, res)
	}
	return m, res, err
}

// interrupted is the error of a cancelled run: it wraps ctx.Err().
func interrupted(ctx context.Context, res *Result) error {
	cause := ctx.Err()
	if cause == nil {
		cause = context.Canceled
	}
	return fmt.Errorf("training interrupted after %d epochs (largest KKT violation %.3g, eps %g): %w", res.Epochs, res.Violation, res.Eps, cause)
}

func source(d *Dataset) string {
	if d == nil {
		return ""
	}
	return d.Source
}

// zeroBias gives m liblinear's layout for -B 0 (Params.ZeroBias).
func zeroBias(m *Model) *Model {
	if m.Bias >= 0 {
		return m
	}
	z := *m
	z.Bias = 0
	z.W = append(append(make([]float64, 0, len(m.W)+m.NrW), m.W...), make([]float64, m.NrW)...)
	return &z
}
