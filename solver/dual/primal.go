package dual

import (
	"context"
	"math"
	"time"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/primal"
)

// The primal solvers -s 0, 2 and 11 through their duals.
//
// -s 2 and -s 1, -s 0 and -s 7, -s 11 and -s 12 minimise the same primal
// P(w); they differ in the method and in the rule that ends it. Where the
// data has no more examples than weights, the dual has the fewer
// coordinates, its Gram matrix XXᵀ can have full rank, and dual CD
// reaches the primal's accuracy in a few epochs while each Newton-CG
// iteration costs several passes over the data: text and p ≫ n data
// (pgn-binary, dorothea, kdd-like, debian-desc's regression) trained
// 2–7× faster through the dual (docs/tuning.md). With more examples than
// weights XXᵀ is singular, and on raw scales (large C‖x_i‖²) dual CD
// crawls along its null space where Newton does not (bench/corpus's
// counts). So where examples ≤ weights the dual runs first, to its own
// rule at its default -e, and the primal Newton method then goes on from
// its w until the primal solver's own rule holds, relative to ‖∇P(0)‖
// as always: the answer meets both rules, so it is at least as accurate
// as either liblinear solver at its defaults. Where the dual's w meets the
// primal rule already, Newton costs one gradient.

// PrimalByDual reports whether TrainPrimal trains s on d through the dual
// first: examples no more than weights (bias included), no free bias
// weight (the duals have none) and no warm start of a parameter search
// (which carries primal weights from one C to the next).
func PrimalByDual(d *dataio.Dataset, s *primal.Spec) bool {
	weights := d.Features
	if s.Bias > 0 {
		weights++
	}
	return d.Rows <= weights && !s.FreeBias && s.Warm == nil
}

// TrainPrimal trains liblinear's -s 0, 2 or 11 (s.Loss) to its primal
// solver's stopping rule: through the dual first where PrimalByDual
// holds, else by primal.Train alone.
func TrainPrimal(ctx context.Context, d *dataio.Dataset, s primal.Spec) (*model.Model, *fit.Result, error) {
	if !PrimalByDual(d, &s) {
		return primal.Train(ctx, d, s)
	}
	start := time.Now()
	ds := Spec{Spec: s.Spec, Kind: [...]Kind{primal.Logistic: LR, primal.SquaredHinge: L2LossSVC, primal.SquaredTube: L2LossSVR}[s.Loss], P: s.P}
	ds.Eps, ds.MaxEpochs, ds.Select, ds.Warm = 0, 0, solver.ACFShrink, nil
	ds.PrimalEps = s.Eps
	if ds.PrimalEps == 0 {
		ds.PrimalEps = primal.DefaultEps
		if s.Loss == primal.SquaredTube {
			ds.PrimalEps = primal.DefaultSVREps
		}
	}
	dm, dr, err := Train(ctx, d, ds)
	if err != nil {
		return dm, dr, err
	}
	if dr.Cancelled {
		// The dual's point, reported as the primal solver reports one.
		asPrimal(dr)
		for k := range dr.Classes {
			asPrimal(&dr.Classes[k])
		}
		dr.Select = "dual " + dr.Select
		return dm, dr, nil
	}
	warm := primal.NewWarm(false)
	for k := range dm.NrW {
		w := make([]float64, fit.Rows(dm))
		for j := range w {
			w[j] = dm.W[j*dm.NrW+k]
		}
		warm.Seed(k, w)
	}
	s.Warm = warm
	m, res, err := primal.Train(ctx, d, s)
	if err != nil {
		return m, res, err
	}
	viaDual(res, dr)
	for k := range res.Classes {
		viaDual(&res.Classes[k], &dr.Classes[k])
	}
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}

// viaDual folds the dual's result d into the primal's res: the dual's
// coordinate steps and selection, the Newton iterations of both (the
// dual's are its finisher's) as NewtonSteps, the epochs and operations
// of both.
func viaDual(res, d *fit.Result) {
	res.NewtonSteps = int(res.Iterations) + d.NewtonSteps
	res.Iterations = d.Iterations
	res.Epochs += d.Epochs
	res.Operations += d.Operations
	res.Select = "dual " + d.Select
}

// asPrimal makes the dual's result r one of the primal solver: the
// primal objective, no gap or support vectors, the coordinate steps kept.
func asPrimal(r *fit.Result) {
	r.Objective, r.Gap, r.SupportVectors = r.Primal, math.NaN(), -1
}
