package acfcd

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/acfcd/acfcd/internal/procs"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

// trainOneClass trains -s 21, liblinear's one-class SVM: pair steps on the
// dual, the first example of each pair chosen by the selection, its
// partner the maximal violating one (dual.OneClass).
//
// Params: Nu, Eps (default 0.01, liblinear's: the maximal violation
// max{G_i : α_i > 0} − min{G_i : α_i < 1}), Select, Seed, MaxEpochs, ACF
// and Progress. The labels are not used; Bias must be 0 (liblinear
// refuses a bias for the one-class SVM) and Weights do not apply.
//
// Result: Objective is ½‖w‖² as liblinear prints it, Primal
// ½‖w‖² − νlρ + Σ max(0, ρ − wᵀx_i) at the model's ρ, SupportVectors the
// α_i > 0. The model predicts +1 where wᵀx − ρ > 0, else −1.
func trainOneClass(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	if p.Bias > 0 {
		return nil, nil, fmt.Errorf("bias %g: the one-class SVM has no bias term (liblinear refuses -B for -s 21)", p.Bias)
	}
	if err := checkData(d); err != nil {
		return nil, nil, err
	}
	if err := checkSquares(d, 0); err != nil {
		return nil, nil, err
	}
	if err := checkDense(d, 8*denseVectors(1), "training", 0); err != nil {
		return nil, nil, err
	}
	eps := p.Eps
	if eps == 0 {
		eps = 0.01 // liblinear's default for -s 21
	}
	res := &Result{Solver: p.Problem.String(), Select: p.Select.String(), C: p.C, Eps: eps}
	if len(p.Weights) > 0 {
		res.Warnings = append(res.Warnings, "class weights (-wi) do not apply to the one-class SVM; ignored")
	}
	sh := dual.NewData(d, -1, p.Tuning)
	inner := smallEps(d, &p, eps)
	prob := dual.NewOneClass(sh, p.Nu, inner, nil, pool, p.Tuning)
	cfg := dualConfig(ctx, p, inner, 4*sh.NNZ(), solver.RepairMax, false)
	r := solver.NewRun(prob, cfg)
	r.Obj = prob.Objective()
	converged, measured := r.Settle(prob, r.Solve(cfg.Seed))
	viol, primal := r.LastViol, math.NaN()
	if measured {
		viol, primal = prob.PassViol, prob.PassPrimal
	} else {
		// Cancelled: ρ still needs every gradient at the final point.
		prob.Pass(r, false)
	}
	m := &Model{SolverType: res.Solver, NumFeature: d.Features, Bias: -1, NrW: 1, W: prob.W[:sh.NF:sh.NF], Rho: prob.Rho}
	res.Objective = prob.Objective()
	res.SupportVectors = prob.SupportVectors()
	settle(res, m, r, prob.Ops, converged, viol, primal)
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}
