package dual

import (
	"context"
	"fmt"
	"math"
	"time"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
)

// trainSVR trains -s 12 and 13: support vector regression by dual
// coordinate descent over examples (dcd.SVR), the labels its targets.
//
// Eps (default 0.1, liblinear's) bounds the violations summed over all
// examples, at one point, by Eps/2 times their sum over the first sweep
// (see dcd.SVR). Weights do not apply (a warning says so).
//
// Result: Objective is liblinear's dual objective, Primal
// ½‖w‖² + C·Σ loss_i, Violation the largest |projected gradient| of the
// last full pass (the pass certifies their sum), SupportVectors the
// β_i ≠ 0, NewtonSteps the primal Newton steps of -s 12 (NoFallback: none;
// after them the dual's pass certifies, or, as liblinear 2.50 stops the
// primal solver it switches to, ‖∇P(w)‖ ≤ 0.001·eps·‖∇P(0)‖, and then w is
// the Newton point) or the interior-point iterations of -s 13 (after them
// the dual's pass certifies). The model has no labels and predicts wᵀx.
func trainSVR(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	start := time.Now()
	if err := checkTargets(d, s.Bias); err != nil {
		return nil, nil, err
	}
	eps := s.Eps
	if eps == 0 {
		eps = DefaultEps
	}
	res := &fit.Result{Select: s.Select.String(), C: s.C, Eps: eps}
	if len(s.Weights) > 0 {
		res.Warnings = append(res.Warnings, "class weights do not apply to regression; ignored")
	}
	t := tuningsOf(ctx)
	sh := dcd.NewData(d, s.Bias, t.dcd)
	inner := eps * s.Small(ctx, d.NNZ())
	l1 := s.Kind == L1LossSVR
	prob := dcd.NewSVR(sh, !l1, s.C, s.P, inner, nil, s.Pool, t.drv)
	if l1 {
		prob.GapRule = t.dcd
	}
	if s.PrimalEps > 0 {
		prob.Rule.Tol = s.PrimalEps
		prob.Rule.Reset()
	}
	cfg := s.config(ctx, inner, 2*sh.NNZ(), solver.RepairObserve) // Eps unused: SVR.Due decides
	// Few features: the dual of -s 12 hands over to primal Newton at
	// large C, that of -s 13 to the interior-point method, once it has cost
	// what they are expected to.
	var fin interface {
		solver.Finisher
		Steps() int
	}
	var nt *finish.SVRNewton
	switch {
	case s.NoFallback:
	case l1:
		fin = finish.NewSVRIPM(prob, t.fin, t.pt)
	default:
		nt = finish.NewSVRNewton(prob, inner, t.fin, t.pt)
		fin = nt
	}
	if fin != nil {
		cfg.Finisher = fin
	}
	r := solver.NewRun(prob, cfg)
	converged := r.Converge(cfg.Seed)
	if fin != nil {
		res.NewtonSteps = fin.Steps()
	}
	converged, ok := r.Settle(prob, converged)
	viol, primal := fit.Measured(r, ok, prob.PassViol, prob.PassPrimal)
	rows := sh.NF
	if s.Bias > 0 {
		rows++
	}
	m := &model.Model{NumFeature: d.Features, Bias: s.Bias, NrW: 1, W: prob.W[:rows:rows]}
	res.Objective = prob.Objective()
	res.SupportVectors = prob.SupportVectors()
	if nt != nil {
		if wN, pN := nt.Point(); ok && pN < primal {
			// The primal Newton point is the better model (the gap,
			// measured against the dual point, still bounds its error).
			m.W, primal = append([]float64(nil), wN[:rows]...), pN
		}
	}
	settle(res, m, r, prob.Ops, converged, viol, primal)
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}

// checkTargets checks the data of the SVRs: finite targets.
func checkTargets(d *dataio.Dataset, bias float64) error {
	if err := fit.CheckData(d); err != nil {
		return err
	}
	var sum float64
	for i, y := range d.Label {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("%s: label %g is not a finite regression target", d.Where(i), y)
		}
		// The stopping rule sums violations of the size of the targets.
		if sum += math.Abs(y); math.IsInf(sum, 0) {
			return fmt.Errorf("%s: label %g: the targets' absolute values sum beyond a float64; scale the labels down", d.Where(i), y)
		}
	}
	if err := fit.CheckSquares(d, bias); err != nil {
		return err
	}
	return fit.CheckDense(d, 8*fit.DenseVectors(1), "training", 0)
}
