package dual

import (
	"context"
	"fmt"
	"time"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/fit"
)

// trainOneClass trains -s 21, liblinear's one-class SVM: pair steps on the
// dual, the first example of each pair chosen by the selection, its
// partner the maximal violating one (dcd.OneClass).
//
// Eps (default 0.01, liblinear's) bounds the maximal violation
// max{G_i : α_i > 0} − min{G_i : α_i < 1}. The labels are not used; the
// bias is ignored (acfcd refuses one, as liblinear does) and Weights do
// not apply.
//
// Result: Objective is ½‖w‖² as liblinear prints it, Primal
// ½‖w‖² − νlρ + Σ max(0, ρ − wᵀx_i) at the model's ρ, SupportVectors the
// α_i > 0. The model predicts +1 where wᵀx − ρ > 0, else −1.
func trainOneClass(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	start := time.Now()
	if err := fit.CheckData(d); err != nil {
		return nil, nil, err
	}
	if err := fit.CheckSquares(d, 0); err != nil {
		return nil, nil, err
	}
	if err := fit.CheckDense(d, 8*fit.DenseVectors(1), "training", 0); err != nil {
		return nil, nil, err
	}
	eps := s.Eps
	if eps == 0 {
		eps = DefaultOneClassEps
	}
	res := &fit.Result{Select: s.Select.String(), C: s.C, Eps: eps}
	if len(s.Weights) > 0 {
		res.Warnings = append(res.Warnings, "class weights do not apply to the one-class SVM; ignored")
	}
	t := tuningsOf(ctx)
	sh := dcd.NewData(d, -1, t.dcd)
	inner := eps * s.Small(ctx, d.NNZ())
	prob := dcd.NewOneClass(sh, s.Nu, inner, nil, s.Pool, t.drv)
	cfg := s.config(ctx, inner, 4*sh.NNZ(), solver.RepairMax)
	r := solver.NewRun(prob, cfg)
	r.Obj = prob.Objective()
	converged, ok := r.Settle(prob, r.Solve(cfg.Seed))
	viol, primal := fit.Measured(r, ok, prob.PassViol, prob.PassPrimal)
	if !ok {
		// Cancelled: ρ still needs every gradient at the final point.
		prob.Pass(r, false)
	}
	m := &model.Model{NumFeature: d.Features, Bias: -1, NrW: 1, W: prob.W[:sh.NF:sh.NF], Rho: prob.Rho}
	res.Objective = prob.Objective()
	if ok && !fit.Finite(res.Objective, primal) {
		// Rows of about 1e153 can take ½‖w‖² beyond a float64: neither the
		// objective nor the gap can then certify the model.
		what, v := "objective ½‖w‖²", res.Objective
		if fit.Finite(v) {
			what, v = "primal objective", primal
		}
		return nil, nil, fit.OutOfRange(d, fmt.Sprintf("the one-class SVM's %s is %g, outside the float64 range", what, v))
	}
	res.SupportVectors = prob.SupportVectors()
	settle(res, m, r, prob.Ops, converged, viol, primal)
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}
