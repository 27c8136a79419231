package lasso

import (
	"context"
	"time"

	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/model"
	"github.com/acfcd/acfcd/solver/fit"
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
	Model      *model.Model
}

// Path defaults, glmnet's.
const (
	// DefaultPathLength is glmnet's nlambda.
	DefaultPathLength = 100
	// MaxPathLength is the longest generated path: neighbouring λ of a
	// longer one differ by under 0.1% at the default ratio, and its points
	// and models would fill memory before they told anything new.
	MaxPathLength = 100 * DefaultPathLength
	// PathMinPoints, PathDevChange and PathDevMax are glmnet's early stop
	// of a generated path (its mnlam, fdev and devmax): from the
	// PathMinPoints-th point on, the path ends after the first point whose
	// DevRatio grew by less than PathDevChange·DevRatio over the previous
	// point's, or exceeds PathDevMax.
	PathMinPoints = 5
	PathDevChange = 1e-5
	PathDevMax    = 0.999
)

// DefaultRatio is glmnet's lambda.min.ratio for rows examples of features
// features: 1e-4 with more rows than features, else 1e-2.
func DefaultRatio(rows, features int) float64 {
	if rows > features {
		return 1e-4
	}
	return 1e-2
}

// Sequence is glmnet's λ sequence: λ_max·ratio^(k/(n−1)), k = 0 … n−1.
func Sequence(lamMax float64, n int, ratio float64) []float64 {
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

// FitAll fits lambdas in order, each warm-started from the previous
// solution with a fresh ACF state seeded from seed and the point's index;
// earlyStop applies glmnet's early stop. A cancelled fit ends the path:
// its point comes last, and cancelled is its result. each, if not nil, is
// called with every point once it is done (the interrupted one too).
func (p *Path) FitAll(ctx context.Context, lambdas []float64, seed uint64, earlyStop bool, each func(PathPoint)) (pts []PathPoint, cancelled *fit.Result) {
	pts = make([]PathPoint, 0, min(len(lambdas), DefaultPathLength)) // the early stop may end a path long before its last λ
	defer func() { p.point = fit.Progress{}; p.prob.GramFuture(0) }()
	for k, lam := range lambdas {
		start := time.Now()
		p.point = fit.Progress{Point: k + 1, Points: len(lambdas), Lambda: lam}
		p.prob.GramFuture(len(lambdas) - k - 1)
		m, res := p.Fit(ctx, lam, mix.Seed(seed, uint64(k)))
		nnz := 0
		for _, v := range m.W[:m.NumFeature] {
			if v != 0 {
				nnz++
			}
		}
		pts = append(pts, PathPoint{Lambda: lam, NNZ: nnz, Objective: res.Objective, Gap: res.Gap,
			Violation: res.Violation, DevRatio: p.DevRatio(), Converged: res.Converged, Iterations: res.Iterations,
			Epochs: res.Epochs, Seconds: time.Since(start).Seconds(), Model: m})
		if each != nil {
			each(pts[k])
		}
		if res.Cancelled {
			return pts, res
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
