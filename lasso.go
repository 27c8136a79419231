package acfcd

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/kernel"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/lasso"
)

// lassoProblem checks d for the LASSO and returns its problem at w = 0.
func lassoProblem(d *Dataset, p *Params) (*lasso.Problem, error) {
	if !(p.Lambda >= 0) || math.IsInf(p.Lambda, 0) {
		return nil, fmt.Errorf("LASSO: lambda must be a finite number >= 0, got %g", p.Lambda)
	}
	if !(p.GapTol >= 0) || math.IsInf(p.GapTol, 0) {
		return nil, fmt.Errorf("LASSO: gap tolerance must be a finite number >= 0, got %g", p.GapTol)
	}
	if err := checkData(d); err != nil {
		return nil, err
	}
	for i, y := range d.Label {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, fmt.Errorf("LASSO: label %g of example %d is not finite", y, i+1)
		}
	}
	if err := checkLassoInput(d, p.Intercept); err != nil {
		return nil, err
	}
	data, err := lasso.NewData(d, p.Intercept)
	if err != nil {
		return nil, err
	}
	return lasso.New(data, p.Tuning), nil
}

// trainLasso is Train for the LASSO (package lasso). The model has
// SolverType "LASSO", no labels, NrW 1 and predicts w·x (+ b): without an
// intercept Bias is −1; with one, Bias is 1 and the intercept b is the
// bias weight W[NumFeature]. C, Bias and Weights are not used.
func trainLasso(ctx context.Context, d *Dataset, p Params) (*Model, *Result, error) {
	start := time.Now()
	prob, err := lassoProblem(d, &p)
	if err != nil {
		return nil, nil, err
	}
	m, res := fitLasso(ctx, prob, p, p.Lambda, p.Seed)
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}

// fitLasso solves at λ = lam from the problem's current point and returns
// the model and the result (Seconds not set).
func fitLasso(ctx context.Context, prob *lasso.Problem, p Params, lam float64, seed uint64) (*Model, *Result) {
	eps := prob.SetLambda(lam, p.Eps, p.GapTol)
	maxEpochs := p.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultLassoMaxEpochs
	}
	ops0 := prob.Ops
	cfg := solver.Config{Selection: p.Select, Seed: seed, Eps: eps, MaxEpochs: maxEpochs, ACF: p.ACF,
		Repair: solver.RepairObserve, Work: prob.Work(), Done: ctx.Done(), Tuning: p.Tuning, Trace: p.trace}
	if f := p.Progress; f != nil {
		cfg.Progress = func(epoch int, viol, obj float64) { f(Progress{Epoch: epoch, Violation: viol, Objective: obj}) }
	}
	r := solver.NewRun(prob, cfg)
	r.Obj = prob.Objective()
	converged, measured := r.Settle(prob, r.Solve(seed))
	res := &Result{Solver: p.Problem.String(), Select: p.Select.String(), Eps: eps}
	if measured {
		res.Objective, res.Primal = prob.PassObj, prob.PassObj
		res.Gap, res.Violation = prob.PassGap, prob.PassViol
	} else {
		res.Objective, res.Primal = prob.Objective(), prob.Objective()
		res.Gap, res.Violation = math.NaN(), r.LastViol
	}
	res.Iterations = r.Steps
	res.Operations = prob.Ops - ops0
	res.Epochs = r.Epochs()
	res.Cancelled = r.Cancelled()
	res.Converged = converged && !r.Cancelled()
	res.HitEpochCap = r.Capped() && !res.Converged && !r.Cancelled()
	if p.Bias > 0 || len(p.Weights) > 0 {
		res.Warnings = append(res.Warnings, "the LASSO ignores -B and -wi (use Params.Intercept for an intercept)")
	}
	m := prob.Model()
	m.Partial = !res.Converged
	res.NNZW = m.NNZ()
	return m, res
}

// PathPoint is one solution of a LASSO path.
type PathPoint struct {
	Lambda     float64
	NNZ        int     // non-zero feature weights (the intercept not counted)
	Objective  float64 // F(w) = ½‖y − Xw − b‖² + λ‖w‖₁
	Gap        float64 // duality gap at w
	Violation  float64 // largest KKT violation at w
	Converged  bool
	Iterations int64   // coordinate steps at this λ
	Epochs     int     // epochs at this λ
	Seconds    float64 // wall time at this λ
	Model      *Model
}

// TrainPath fits the LASSO (whatever p.Problem says) at n values of λ,
// from λ_max = ‖X_cᵀy_c‖_∞ (where w = 0) geometrically down to
// ratio·λ_max, each warm-started from the previous solution, as glmnet and
// scikit-learn's lasso_path do. p is used as by Train except for Lambda
// (an Eps of 0 means the default eps at each λ). Each λ gets a fresh ACF
// state (warm-up sweep included) whose seed is derived from p.Seed and
// the point's index. n must be ≥ 1 and 0 < ratio ≤ 1 (n = 1 gives λ_max
// only).
//
// When ctx is cancelled, TrainPath returns the points done so far, the
// interrupted one last with Model.Partial set, and an error wrapping
// ctx.Err().
func TrainPath(ctx context.Context, d *Dataset, p Params, n int, ratio float64) (pts []PathPoint, err error) {
	if err := kernel.EnvError(); err != nil {
		return nil, err
	}
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	if n < 1 {
		return nil, fmt.Errorf("LASSO path: need at least 1 point, got %d", n)
	}
	if !(ratio > 0 && ratio <= 1) {
		return nil, fmt.Errorf("LASSO path: ratio must be in (0, 1], got %g", ratio)
	}
	p.Problem = Lasso
	p.GapTol = 0
	if err := p.resolve(); err != nil {
		return nil, err
	}
	prob, err := lassoProblem(d, &p)
	if err != nil {
		return nil, err
	}
	lamMax := prob.LambdaMax()
	pts = make([]PathPoint, 0, n)
	for k := 0; k < n; k++ {
		start := time.Now()
		lam := lamMax
		if n > 1 {
			// ratio^(k/(n−1)) as exp(t·log ratio), fmath's: the same bits on
			// every architecture, which math.Pow does not give.
			lam = lamMax * fmath.Exp(float64(k)/float64(n-1)*fmath.Log(ratio))
		}
		m, res := fitLasso(ctx, prob, p, lam, mix.Seed(p.Seed, uint64(k)))
		nnz := 0
		for _, v := range m.W[:m.NumFeature] {
			if v != 0 {
				nnz++
			}
		}
		pts = append(pts, PathPoint{Lambda: lam, NNZ: nnz, Objective: res.Objective, Gap: res.Gap,
			Violation: res.Violation, Converged: res.Converged, Iterations: res.Iterations,
			Epochs: res.Epochs, Seconds: time.Since(start).Seconds(), Model: m})
		if res.Cancelled {
			return pts, interrupted(ctx, res)
		}
	}
	return pts, nil
}
