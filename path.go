package acfcd

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"unsafe"

	"github.com/acfcd/acfcd/internal/fault"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/kernel"
	"github.com/acfcd/acfcd/solver/lasso"
)

// PathPoint is one solution of a LASSO path.
type PathPoint = lasso.PathPoint

// Path defaults, glmnet's (see lasso.PathMinPoints for the early stop).
const (
	DefaultPathLength = lasso.DefaultPathLength // glmnet's nlambda
	PathMinPoints     = lasso.PathMinPoints
	PathDevChange     = lasso.PathDevChange
	PathDevMax        = lasso.PathDevMax
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
	if err := checkArgs(context.Background(), d); err != nil {
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
	return lasso.Sequence(lamMax, n, ratio), nil
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
		ratio = lasso.DefaultRatio(d.Rows, d.Features)
	}
	if !(ratio > 0 && ratio <= 1) {
		return 0, 0, paramError("ratio", ratio, "λ_min/λ_max must be in (0, 1] (0: glmnet's default)")
	}
	if n > lasso.MaxPathLength {
		return 0, 0, paramError("n", n, "a path takes at most %d λ (glmnet's default is %d): neighbouring λ of this one would differ by %.3g%% "+
			"and its points need %s of memory; a few hundred cover the range of λ_min/λ_max",
			lasso.MaxPathLength, DefaultPathLength, -100*math.Expm1(math.Log(ratio)/float64(n-1)), pathBytes(d, n))
	}
	return n, ratio, nil
}

// pathBytes describes the memory of a path of n points on d: each keeps
// its λ and a model of d.Features+1 weights.
func pathBytes(d *Dataset, n int) string {
	b := float64(n) * (8 + float64(unsafe.Sizeof(PathPoint{})) + float64(unsafe.Sizeof(Model{})) + float64(8*float64(d.Features+1)))
	if b >= 1<<30 {
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	}
	return fmt.Sprintf("%.1f MiB", b/(1<<20))
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
	if err := checkArgs(ctx, d); err != nil {
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
	return fitPath(ctx, path, p, lasso.Sequence(path.LambdaMax(), n, ratio), true)
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
	if err := checkArgs(ctx, d); err != nil {
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
	return fitPath(ctx, path, p, lambdas, false)
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

// fitPath fits lambdas in order; earlyStop applies glmnet's early stop.
func fitPath(ctx context.Context, path *lasso.Path, p Params, lambdas []float64, earlyStop bool) ([]PathPoint, error) {
	pts, cancelled := path.FitAll(ctx, lambdas, p.Seed, earlyStop, p.PathProgress)
	if cancelled != nil {
		return pts, interrupted(ctx, cancelled)
	}
	return pts, nil
}
