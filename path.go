package acfcd

import (
	"context"
	"math"
	"runtime"
	"time"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
	"github.com/acfcd/acfcd/solver/lasso"
)

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
	lamMax, err := lasso.LambdaMax(d, p.lassoSpec(p.spec(nil)))
	if err != nil {
		return nil, err
	}
	return lambdaSeq(lamMax, n, ratio), nil
}

// pathDefaults resolves and checks LambdaSequence's n and ratio.
func pathDefaults(d *Dataset, n int, ratio float64) (int, float64, error) {
	if n == 0 {
		n = DefaultPathLength
	}
	if n < 1 {
		return 0, 0, paramError("n", n, "a path needs at least 1 point")
	}
	if ratio == 0 {
		ratio = 1e-2
		if d.Rows > d.Features {
			ratio = 1e-4
		}
	}
	if !(ratio > 0 && ratio <= 1) {
		return 0, 0, paramError("ratio", ratio, "λ_min/λ_max must be in (0, 1] (0: glmnet's default)")
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
	path, p, err := newPath(ctx, d, p, procs.NewPool(runtime.GOMAXPROCS(0)-1))
	if err != nil {
		return nil, err
	}
	return lassoPath(ctx, path, p, lambdaSeq(path.LambdaMax(), n, ratio), true)
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
		return nil, paramError("lambdas", lambdas, "a path needs at least 1 λ")
	}
	for k, lam := range lambdas {
		if !(lam >= 0) || math.IsInf(lam, 0) {
			return nil, paramError("lambdas", lambdas, "λ %d is %g, not a finite number >= 0", k+1, lam)
		}
		if k > 0 && lam > lambdas[k-1] {
			return nil, paramError("lambdas", lambdas, "λ %d (%g) is larger than λ %d (%g); the sequence must not increase", k+1, lam, k, lambdas[k-1])
		}
	}
	path, p, err := newPath(ctx, d, p, pool)
	if err != nil {
		return nil, err
	}
	return lassoPath(ctx, path, p, lambdas, false)
}

// newPath resolves p for a path and returns the problem at w = 0.
func newPath(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*lasso.Path, Params, error) {
	p.Problem = Lasso
	if err := p.resolve(); err != nil {
		return nil, p, err
	}
	path, err := lasso.NewPath(ctx, d, p.lassoSpec(p.spec(pool)))
	return path, p, err
}

// lassoPath fits lambdas in order; earlyStop applies glmnet's early stop.
func lassoPath(ctx context.Context, path *lasso.Path, p Params, lambdas []float64, earlyStop bool) ([]PathPoint, error) {
	pts := make([]PathPoint, 0, len(lambdas))
	for k, lam := range lambdas {
		start := time.Now()
		m, res := path.Fit(ctx, lam, mix.Seed(p.Seed, uint64(k)))
		nnz := 0
		for _, v := range m.W[:m.NumFeature] {
			if v != 0 {
				nnz++
			}
		}
		pts = append(pts, PathPoint{Lambda: lam, NNZ: nnz, Objective: res.Objective, Gap: res.Gap,
			Violation: res.Violation, DevRatio: path.DevRatio(), Converged: res.Converged, Iterations: res.Iterations,
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
