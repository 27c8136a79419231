package acfcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/lasso"
)

// lassoData checks d and p for the LASSO and returns its data.
func lassoData(d *Dataset, p *Params) (*lasso.Data, error) {
	if p.Alpha == 0 {
		p.Alpha = 1
	}
	if !(p.Alpha > 0 && p.Alpha <= 1) {
		return nil, fmt.Errorf("LASSO: alpha (the elastic-net mixing) must be in (0, 1], got %g", p.Alpha)
	}
	if !(p.Lambda >= 0) || math.IsInf(p.Lambda, 0) {
		return nil, fmt.Errorf("LASSO: lambda must be a finite number >= 0, got %g", p.Lambda)
	}
	if !(p.GapTol >= 0) || math.IsInf(p.GapTol, 0) {
		return nil, fmt.Errorf("LASSO: gap tolerance must be a finite number >= 0, got %g", p.GapTol)
	}
	if !(p.Thresh >= 0) || math.IsInf(p.Thresh, 0) {
		return nil, fmt.Errorf("LASSO: thresh must be a finite number >= 0, got %g", p.Thresh)
	}
	if p.Thresh > 0 && (p.Eps > 0 || p.GapTol > 0) {
		return nil, errors.New("LASSO: thresh (glmnet's stopping rule) cannot be combined with eps or a gap tolerance")
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
	return lasso.NewData(d, p.Intercept, p.Standardize)
}

// lassoProblem checks d and p for the LASSO and returns its problem at
// w = 0.
func lassoProblem(d *Dataset, p *Params) (*lasso.Problem, error) {
	data, err := lassoData(d, p)
	if err != nil {
		return nil, err
	}
	return lasso.New(data, p.Alpha, p.Tuning), nil
}

// trainLasso is Train for the LASSO (package lasso). The model has
// SolverType "LASSO", no labels, NrW 1 and predicts w·x (+ b): without an
// intercept Bias is −1; with one, Bias is 1 and the intercept b is the
// bias weight W[NumFeature]. C, Bias and Weights are not used.
func trainLasso(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	prob, err := lassoProblem(d, &p)
	if err != nil {
		return nil, nil, err
	}
	prob.SetPool(pool)
	steps, epochs, ops := continueLasso(ctx, prob, p)
	m, res := fitLasso(ctx, prob, p, p.Lambda, p.Seed)
	res.Iterations += steps
	res.Epochs += epochs
	res.Operations += ops
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}

// continueLasso brings the problem from w = 0 near the solution at a λ
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
func continueLasso(ctx context.Context, prob *lasso.Problem, p Params) (steps int64, epochs int, ops int64) {
	ops0 := prob.Ops
	t := p.Tuning
	lm := prob.LambdaMax()
	if t.LassoContinue <= 0 || p.Eps > 0 || p.GapTol > 0 || !(p.Lambda > 0) || !(p.Lambda < t.LassoContinue*lm) ||
		float64(prob.Rows()) >= t.LassoContinueRows*float64(prob.Features()) {
		return 0, 0, 0
	}
	// LassoContinueSteps λ per decade, the last one p.Lambda itself.
	k := int(math.Ceil(float64(t.LassoContinueSteps) * math.Log10(lm/p.Lambda)))
	for i := 1; i < k; i++ {
		lam := lm * math.Pow(p.Lambda/lm, float64(i)/float64(k))
		prob.SetLambda(lam, 0, 0)
		if p.Thresh > 0 {
			prob.SetThresh(p.Thresh)
		} else {
			prob.SetGapRel(t.LassoContinueGap)
		}
		f := prob.Fit(lassoConfig(ctx, p, p.Seed, DefaultLassoMaxEpochs), mix.Seed(p.Seed, uint64(1000+i)))
		steps += f.Steps
		epochs += f.Epochs
		if f.Cancelled {
			break
		}
	}
	return steps, epochs, prob.Ops - ops0
}

// lassoConfig is the driver's configuration of a LASSO fit (the
// stopping rule is the problem's, set by SetLambda).
func lassoConfig(ctx context.Context, p Params, seed uint64, maxEpochs int) solver.Config {
	return solver.Config{Selection: p.Select, Seed: seed, MaxEpochs: maxEpochs, ACF: p.ACF,
		Repair: solver.RepairObserve, Done: ctx.Done(), Tuning: p.Tuning}
}

// fitLasso solves at λ = lam from the problem's current point and returns
// the model and the result (Seconds not set).
func fitLasso(ctx context.Context, prob *lasso.Problem, p Params, lam float64, seed uint64) (*Model, *Result) {
	eps := prob.SetLambda(lam, p.Eps, p.GapTol)
	if p.Thresh > 0 {
		prob.SetThresh(p.Thresh)
	}
	maxEpochs := p.MaxEpochs
	if maxEpochs == 0 {
		maxEpochs = DefaultLassoMaxEpochs
	}
	ops0 := prob.Ops
	cfg := lassoConfig(ctx, p, seed, maxEpochs)
	cfg.Eps, cfg.Trace = eps, p.trace
	if f := p.Progress; f != nil {
		cfg.Progress = func(epoch int, viol, obj float64) { f(Progress{Epoch: epoch, Violation: viol, Objective: obj}) }
	}
	fit := prob.Fit(cfg, seed)
	res := &Result{Solver: p.Problem.String(), Select: p.Select.String(), Eps: eps}
	if !fit.Cancelled {
		res.Objective, res.Primal = prob.PassObj, prob.PassObj
		res.Gap, res.Violation = prob.PassGap, prob.PassViol
	} else {
		res.Objective, res.Primal = prob.Objective(), prob.Objective()
		res.Gap, res.Violation = math.NaN(), fit.LastViol
	}
	res.Iterations = fit.Steps
	res.Operations = prob.Ops - ops0
	res.Epochs = fit.Epochs
	res.Cancelled = fit.Cancelled
	res.Converged = fit.Converged
	res.HitEpochCap = fit.Capped && !fit.Converged
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
	Lambda    float64
	NNZ       int     // non-zero feature weights (the intercept not counted)
	Objective float64 // F(w) = ½‖y − Xw − b‖² + λ(α‖w‖₁ + ½(1−α)‖w‖²)
	Gap       float64 // duality gap at w
	Violation float64 // largest KKT violation at w
	// DevRatio is the fraction of the null deviance explained, glmnet's
	// dev.ratio: 1 − ‖y − Xw − b‖²/‖y − ȳ‖² (‖y‖² without an intercept).
	DevRatio   float64
	Converged  bool
	Iterations int64   // coordinate steps at this λ
	Epochs     int     // epochs at this λ
	Seconds    float64 // wall time at this λ
	Model      *Model
}

// Path defaults, glmnet's.
const (
	// DefaultPathLength is glmnet's nlambda.
	DefaultPathLength = 100
	// PathMinPoints, PathDevChange and PathDevMax are glmnet's early stop
	// of a generated path (its mnlam, fdev and devmax): from the
	// PathMinPoints-th point on, the path ends after the first point whose
	// DevRatio grew by less than PathDevChange·DevRatio over the previous
	// point's, or exceeds PathDevMax.
	PathMinPoints = 5
	PathDevChange = 1e-5
	PathDevMax    = 0.999
)

// LambdaSequence returns glmnet's λ sequence for the LASSO (or elastic
// net) of p on d: n values (0: DefaultPathLength) from λ_max, the
// smallest λ whose solution is w = 0, geometrically down to ratio·λ_max
// (0: glmnet's lambda.min.ratio, 1e-4 when d has more rows than features,
// else 1e-2). λ_max = max_j |x_jᵀ(y − ȳ)|/α over the columns (centred
// with an intercept, scaled with Standardize; ȳ = 0 without an
// intercept). The values are the same bits on every architecture.
func LambdaSequence(d *Dataset, p Params, n int, ratio float64) ([]float64, error) {
	if err := kernel.EnvError(); err != nil {
		return nil, err
	}
	n, ratio, err := pathDefaults(d, n, ratio)
	if err != nil {
		return nil, err
	}
	p.Problem = Lasso
	if err := p.resolve(); err != nil {
		return nil, err
	}
	data, err := lassoData(d, &p)
	if err != nil {
		return nil, err
	}
	return lambdaSeq(data.LambdaMax(p.Alpha), n, ratio), nil
}

// pathDefaults resolves and checks LambdaSequence's n and ratio.
func pathDefaults(d *Dataset, n int, ratio float64) (int, float64, error) {
	if n == 0 {
		n = DefaultPathLength
	}
	if n < 1 {
		return 0, 0, fmt.Errorf("LASSO path: need at least 1 point, got %d", n)
	}
	if ratio == 0 {
		ratio = 1e-2
		if d.Rows > d.Features {
			ratio = 1e-4
		}
	}
	if !(ratio > 0 && ratio <= 1) {
		return 0, 0, fmt.Errorf("LASSO path: ratio must be in (0, 1], got %g", ratio)
	}
	return n, ratio, nil
}

// lambdaSeq is λ_max·ratio^(k/(n−1)), k = 0 … n−1.
func lambdaSeq(lamMax float64, n int, ratio float64) []float64 {
	lams := make([]float64, n)
	for k := range lams {
		lams[k] = lamMax
		if n > 1 {
			// ratio^(k/(n−1)) as exp(t·log ratio), fmath's: the same bits on
			// every architecture, which math.Pow does not give.
			lams[k] = lamMax * fmath.Exp(float64(k)/float64(n-1)*fmath.Log(ratio))
		}
	}
	return lams
}

// TrainPath fits the LASSO (whatever p.Problem says; the elastic net with
// p.Alpha) at LambdaSequence(d, p, n, ratio), each λ warm-started from the
// previous solution, as glmnet does: it is LambdaSequence then
// TrainPathLambdas, except that the path ends early as glmnet's generated
// paths do (PathMinPoints, PathDevChange, PathDevMax), so that it may
// return fewer than n points.
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
	n, ratio, err = pathDefaults(d, n, ratio)
	if err != nil {
		return nil, err
	}
	prob, p, err := lassoPathProblem(d, p)
	if err != nil {
		return nil, err
	}
	prob.SetPool(procs.NewPool(runtime.GOMAXPROCS(0) - 1))
	return lassoPath(ctx, prob, p, lambdaSeq(prob.LambdaMax(), n, ratio), true)
}

// TrainPathLambdas fits the LASSO (whatever p.Problem says; the elastic
// net with p.Alpha) at each λ of lambdas, which must be finite, ≥ 0 and
// non-increasing, each warm-started from the previous solution. p is used
// as by Train except for Lambda (an Eps of 0 means the default stopping
// rule at each λ). Each λ gets a fresh ACF state whose seed is derived
// from p.Seed and the point's index. Every λ is fitted: as glmnet with a
// lambda given, there is no early stop (cv.glmnet fits its folds so, at
// the whole data's sequence).
//
// When ctx is cancelled, TrainPathLambdas returns the points done so far,
// the interrupted one last with Model.Partial set, and an error wrapping
// ctx.Err().
func TrainPathLambdas(ctx context.Context, d *Dataset, p Params, lambdas []float64) (pts []PathPoint, err error) {
	if err := kernel.EnvError(); err != nil {
		return nil, err
	}
	defer fault.Guard()()
	defer fault.Recover(source(d), &err)
	return trainPathLambdas(ctx, d, p, lambdas, procs.NewPool(runtime.GOMAXPROCS(0)-1))
}

// trainPathLambdas is TrainPathLambdas taking the passes' helpers from
// pool (cross-validation shares one among its folds).
func trainPathLambdas(ctx context.Context, d *Dataset, p Params, lambdas []float64, pool *procs.Pool) ([]PathPoint, error) {
	if len(lambdas) == 0 {
		return nil, errors.New("LASSO path: no λ given")
	}
	for k, lam := range lambdas {
		if !(lam >= 0) || math.IsInf(lam, 0) {
			return nil, fmt.Errorf("LASSO path: λ %d is %g, not a finite number >= 0", k+1, lam)
		}
		if k > 0 && lam > lambdas[k-1] {
			return nil, fmt.Errorf("LASSO path: λ %d (%g) is larger than λ %d (%g); the sequence must not increase", k+1, lam, k, lambdas[k-1])
		}
	}
	prob, p, err := lassoPathProblem(d, p)
	if err != nil {
		return nil, err
	}
	prob.SetPool(pool)
	return lassoPath(ctx, prob, p, lambdas, false)
}

// lassoPathProblem resolves p for a path and returns the problem at w = 0.
func lassoPathProblem(d *Dataset, p Params) (*lasso.Problem, Params, error) {
	p.Problem = Lasso
	if err := p.resolve(); err != nil {
		return nil, p, err
	}
	prob, err := lassoProblem(d, &p)
	return prob, p, err
}

// lassoPath fits lambdas in order; earlyStop applies glmnet's early stop.
func lassoPath(ctx context.Context, prob *lasso.Problem, p Params, lambdas []float64, earlyStop bool) ([]PathPoint, error) {
	pts := make([]PathPoint, 0, len(lambdas))
	for k, lam := range lambdas {
		start := time.Now()
		m, res := fitLasso(ctx, prob, p, lam, mix.Seed(p.Seed, uint64(k)))
		nnz := 0
		for _, v := range m.W[:m.NumFeature] {
			if v != 0 {
				nnz++
			}
		}
		pts = append(pts, PathPoint{Lambda: lam, NNZ: nnz, Objective: res.Objective, Gap: res.Gap,
			Violation: res.Violation, DevRatio: prob.DevRatio(), Converged: res.Converged, Iterations: res.Iterations,
			Epochs: res.Epochs, Seconds: time.Since(start).Seconds(), Model: m})
		if res.Cancelled {
			return pts, interrupted(ctx, res)
		}
		if earlyStop && k+1 >= PathMinPoints {
			dev := pts[k].DevRatio
			if dev-pts[k-1].DevRatio < PathDevChange*dev || dev > PathDevMax {
				break
			}
		}
	}
	return pts, nil
}
