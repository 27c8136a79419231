package lasso

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// DefaultMaxEpochs caps the epochs of a fit: scikit-learn's default
// max_iter times 100, since p ≫ n problems such as arcene need thousands
// of epochs; the cap should only catch a run that cannot converge.
const DefaultMaxEpochs = 100000

// Spec is what Train fits: min ½‖y − Xw − b‖² + λ(α‖w‖₁ + ½(1−α)‖w‖²).
// Of the common fields C, Bias and Weights do not apply; Eps > 0 stops on
// the largest KKT violation.
type Spec struct {
	fit.Spec
	Lambda float64 // λ ≥ 0
	Alpha  float64 // glmnet's mixing, in (0, 1]
	// Intercept adds the unpenalised b (y and the columns centred
	// implicitly); Standardize is glmnet's (the penalty on the weights of
	// columns scaled to unit variance).
	Intercept, Standardize bool
	// GapTol > 0 stops at an absolute duality gap; Thresh > 0 by glmnet's
	// rule instead (see Data.rule). With neither and no Eps, the gap at
	// most DefaultGap(F(w), F(0)).
	GapTol, Thresh float64
}

// Path is the LASSO of one Spec on one dataset, moved from λ to λ, each
// fit warm-started from the last.
type Path struct {
	prob *Problem
	s    Spec
	rule stopRule // the Spec's
	drv  *solver.Tuning
	tune *Tuning

	point fit.Progress // FitAll's point, for the progress of its fits
}

// NewPath checks d for the LASSO and returns its problem at w = 0, under
// the tuning ctx carries.
func NewPath(ctx context.Context, d *dataio.Dataset, s Spec) (*Path, error) {
	data, err := newData(d, &s)
	if err != nil {
		return nil, err
	}
	p := &Path{s: s, rule: data.rule(s.Eps, s.GapTol, s.Thresh), drv: tune.Get(ctx, solver.DefaultTuning), tune: tune.Get(ctx, DefaultTuning)}
	p.prob = New(data, s.Alpha, p.drv, p.tune)
	p.prob.SetPool(s.Pool)
	return p, nil
}

// LambdaMax returns λ_max of s on d, the smallest λ whose solution is
// w = 0 (see Data.LambdaMax), checking d as NewPath does.
func LambdaMax(d *dataio.Dataset, s Spec) (float64, error) {
	data, err := newData(d, &s)
	if err != nil {
		return 0, err
	}
	return data.LambdaMax(s.Alpha), nil
}

// newData checks d for the LASSO and returns its data.
func newData(d *dataio.Dataset, s *Spec) (*Data, error) {
	if err := fit.CheckData(d); err != nil {
		return nil, err
	}
	for i, y := range d.Label {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, fmt.Errorf("LASSO: label %g of example %d is not finite", y, i+1)
		}
	}
	if err := checkInput(d, s.Intercept); err != nil {
		return nil, err
	}
	return NewData(d, s.Intercept, s.Standardize)
}

// checkInput applies the memory guard to the LASSO's per-feature arrays
// (the CSC column pointers, ‖x_j‖², w and the model, and with an
// intercept the column means and sums), and rejects targets whose squares
// overflow: ½‖y‖² is the objective at w = 0, and every gap and step
// derives from it.
func checkInput(d *dataio.Dataset, intercept bool) error {
	per := uint64(32)
	if intercept {
		per += 16
	}
	if err := fit.CheckDense(d, per, "the LASSO", 0); err != nil {
		return err
	}
	if err := fit.CheckSquares(d, 0); err != nil {
		return err
	}
	var sq float64
	for i, y := range d.Label {
		// Centring (with an intercept) can double a label: keep 4‖y‖² finite.
		if sq += float64(y * y); !(sq <= math.MaxFloat64/4) {
			return fmt.Errorf("%s: label %g: the squares of the labels overflow (½‖y‖² is the LASSO's objective at w = 0); scale the targets down",
				d.Where(i), y)
		}
	}
	return nil
}

// Train fits the LASSO at s.Lambda from w = 0. The model has no labels,
// NrW 1 and predicts w·x (+ b): without an intercept Bias is −1; with
// one, Bias is 1 and the intercept b is the bias weight W[NumFeature].
func Train(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	start := time.Now()
	p, err := NewPath(ctx, d, s)
	if err != nil {
		return nil, nil, err
	}
	steps, epochs, ops := p.continuation(ctx)
	m, res := p.Fit(ctx, s.Lambda, s.Seed)
	res.Iterations += steps
	res.Epochs += epochs
	res.Operations += ops
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}

// continuation brings the problem from w = 0 near the solution at a λ
// far below λ_max through a few larger λ, on data with fewer than
// LassoContinueRows examples per feature: there the support nears the
// number of examples, and warm starts cost less than one cold solve (on
// other data the full passes of the extra λ cost more than they save).
// Under the default rule the extra λ stop at the loose relative gap
// Tuning.LassoContinueGap; under glmnet's rule (Thresh) at the same
// thresh, as on glmnet's own path. With eps or a gap tolerance the last
// λ's solve dominates, and the continuation gained on one set and lost
// on another: it is off (docs/tuning.md). It returns the steps, epochs
// and operations spent.
func (p *Path) continuation(ctx context.Context) (steps int64, epochs int, ops int64) {
	prob, s := p.prob, &p.s
	ops0 := prob.Ops
	t := p.tune
	lm := prob.LambdaMax()
	if t.LassoContinue <= 0 || s.Eps > 0 || s.GapTol > 0 || !(s.Lambda > 0) || !(s.Lambda < t.LassoContinue*lm) ||
		float64(prob.Rows()) >= t.LassoContinueRows*float64(prob.Features()) {
		return 0, 0, 0
	}
	// LassoContinueSteps λ per decade, the last one s.Lambda itself.
	k := int(math.Ceil(float64(t.LassoContinueSteps) * math.Log10(lm/s.Lambda)))
	rule := stopRule{gapRel: t.LassoContinueGap}
	if s.Thresh > 0 {
		rule = prob.rule(0, 0, s.Thresh)
	}
	for i := 1; i < k; i++ {
		lam := lm * math.Pow(s.Lambda/lm, float64(i)/float64(k))
		prob.SetLambda(lam, rule)
		f := prob.Fit(p.config(ctx, s.Seed, DefaultMaxEpochs), mix.Seed(s.Seed, uint64(1000+i)))
		steps += f.Steps
		epochs += f.Epochs
		if f.Cancelled {
			break
		}
	}
	return steps, epochs, prob.Ops - ops0
}

// config is the driver's configuration of a fit (the stopping rule is
// the problem's, set by SetLambda).
func (p *Path) config(ctx context.Context, seed uint64, maxEpochs int) solver.Config {
	s := &p.s
	return solver.Config{Selection: s.Select, Seed: seed, MaxEpochs: maxEpochs, ACF: s.ACF,
		Repair: solver.RepairObserve, Done: ctx.Done(), Tuning: p.drv}
}

// Fit solves at λ = lam from the current point and returns the model and
// the result (Seconds not set).
func (p *Path) Fit(ctx context.Context, lam float64, seed uint64) (*model.Model, *fit.Result) {
	prob, s := p.prob, &p.s
	eps := prob.SetLambda(lam, p.rule)
	maxEpochs := s.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultMaxEpochs
	}
	ops0 := prob.Ops
	cfg := p.config(ctx, seed, maxEpochs)
	cfg.Eps, cfg.Trace = eps, s.Trace
	if f := s.Progress; f != nil {
		pt := p.point
		cfg.Progress = func(epoch int, viol, obj float64) {
			pr := pt
			pr.Epoch, pr.Violation, pr.Objective = epoch, viol, obj
			f(pr)
		}
	}
	f := prob.Fit(cfg, seed)
	res := &fit.Result{Select: s.Select.String(), Eps: eps}
	if !f.Cancelled {
		res.Objective, res.Primal = prob.PassObj, prob.PassObj
		res.Gap, res.Violation = prob.PassGap, prob.PassViol
	} else {
		res.Objective, res.Primal = prob.Objective(), prob.Objective()
		res.Gap, res.Violation = math.NaN(), f.LastViol
	}
	res.Iterations = f.Steps
	res.Operations = prob.Ops - ops0
	res.Epochs = f.Epochs
	res.Cancelled = f.Cancelled
	res.Converged = f.Converged
	res.HitEpochCap = f.Capped && !f.Converged
	if s.Bias > 0 || len(s.Weights) > 0 {
		res.Warnings = append(res.Warnings, "the LASSO ignores the bias and the class weights (its intercept is an option of its own)")
	}
	m := prob.Model()
	m.Partial = !res.Converged
	// The features' weights, the intercept not counted, as a path point's
	// NNZ and glmnet's df count them.
	for _, v := range m.W[:m.NumFeature] {
		if v != 0 {
			res.NNZW++
		}
	}
	return m, res
}

// LambdaMax is λ_max of the path's problem.
func (p *Path) LambdaMax() float64 { return p.prob.LambdaMax() }

// DevRatio is the fraction of the null deviance explained at the current
// point (Problem.DevRatio).
func (p *Path) DevRatio() float64 { return p.prob.DevRatio() }
