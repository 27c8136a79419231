package acfcd

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/acfcd/acfcd/internal/mix"
	"github.com/acfcd/acfcd/internal/procs"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
)

// trainSVR trains -s 12 and 13: support vector regression by dual
// coordinate descent over examples (dual.SVR), the labels its targets.
//
// Params: C, P (the ε of the loss), Eps (default 0.1, liblinear's: the
// violations summed over all examples, at one point, at most Eps/2 times
// their sum over the first sweep; see dual.SVR), Bias, Select, Seed,
// MaxEpochs, ACF, NoFallback and Progress. Weights do not apply (a warning
// says so).
//
// Result: Objective is liblinear's dual objective, Primal
// ½‖w‖² + C·Σ loss_i, Violation the largest |projected gradient| of the
// last full pass (the pass certifies their sum), SupportVectors the
// β_i ≠ 0, NewtonSteps the primal Newton steps of -s 12 (NoFallback: none;
// after them the dual's pass certifies, or, as liblinear 2.50 stops the
// primal solver it switches to, ‖∇P(w)‖ ≤ 0.001·eps·‖∇P(0)‖, and then w is
// the Newton point) or the interior-point iterations of -s 13 (after them
// the dual's pass certifies). The model has no labels and predicts wᵀx.
func trainSVR(ctx context.Context, d *Dataset, p Params, pool *procs.Pool) (*Model, *Result, error) {
	start := time.Now()
	if err := checkRegressionTargets(d, &p); err != nil {
		return nil, nil, err
	}
	eps := p.Eps
	if eps == 0 {
		eps = 0.1 // liblinear's default for -s 12 and 13
	}
	res := &Result{Solver: p.Problem.String(), Select: p.Select.String(), C: p.C, Eps: eps}
	if len(p.Weights) > 0 {
		res.Warnings = append(res.Warnings, "class weights (-wi) do not apply to regression; ignored")
	}
	sh := dual.NewData(d, p.bias(), p.Tuning)
	inner := smallEps(d, &p, eps)
	prob := dual.NewSVR(sh, p.Problem == SquaredSVRDual, p.C, p.P, inner, nil, pool, p.Tuning)
	cfg := dualConfig(ctx, p, inner, 2*sh.NNZ(), solver.RepairObserve, false) // Eps unused: SVR.Due decides
	// -s 12 at large C on few features: the dual hands over to primal
	// Newton once it has cost what Newton is expected to (dual.SVR.Newton);
	// -s 13 on few features likewise to the interior-point method
	// (dual.SVR.IPM).
	var budget int64
	if !p.NoFallback {
		budget = prob.NewtonBudget()
		if p.Problem == SVRDual {
			budget = prob.IPMBudget() // -s 13: the interior-point method
		}
	}
	if step, defers := budget, 0; budget > 0 {
		cfg.Switch = func(r *solver.Run) bool {
			if prob.Ops+p.Tuning.DualStepOps*r.Steps < budget {
				return false
			}
			if p.Problem == SVRDual && defers < p.Tuning.SVRIPMMaxDefer && prob.NearDone() {
				// A dual nearly done goes on for the same budget again.
				defers++
				budget += step
				return false
			}
			budget = math.MaxInt64 // once
			return true
		}
	}
	r := solver.NewRun(prob, cfg)
	converged := r.Solve(cfg.Seed)
	if r.Handover() {
		if p.Problem == SVRDual {
			res.NewtonSteps = prob.IPM(r)
		} else {
			res.NewtonSteps = prob.Newton(r)
		}
		if !r.Cancelled() {
			// The dual's pass certifies Newton's dual point, or liblinear's
			// rule for its primal solver the Newton point itself (then the
			// model, below); else dual CD goes on.
			converged = prob.Pass(r, true) || prob.NewtonConverged() || r.Solve(cfg.Seed^newtonSalt)
		}
	}
	converged, measured := r.Settle(prob, converged)
	viol, primal := r.LastViol, math.NaN()
	if measured {
		viol, primal = prob.PassViol, prob.PassPrimal
	}
	rows := sh.NF
	if p.bias() > 0 {
		rows++
	}
	m := &Model{SolverType: res.Solver, NumFeature: d.Features, Bias: p.bias(), NrW: 1, W: prob.W[:rows:rows]}
	res.Objective = prob.Objective()
	res.SupportVectors = prob.SupportVectors()
	if wN, pN := prob.NewtonPoint(); measured && pN < primal {
		// The primal Newton point is the better model (the gap, measured
		// against the dual point, still bounds its error).
		m.W, primal = append([]float64(nil), wN[:rows]...), pN
	}
	settle(res, m, r, prob.Ops, converged, viol, primal)
	res.Seconds = time.Since(start).Seconds()
	return m, res, nil
}

// checkRegressionTargets checks the data of the SVRs: finite targets.
func checkRegressionTargets(d *Dataset, p *Params) error {
	if err := checkData(d); err != nil {
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
	if err := checkSquares(d, p.Bias); err != nil {
		return err
	}
	return checkDense(d, 8*denseVectors(1), "training", 0)
}

// dualConfig is the driver's configuration of the SVR and one-class
// duals: one problem, seeded as the first subproblem of the classifiers.
func dualConfig(ctx context.Context, p Params, eps float64, work int64, repair solver.Repair, early bool) solver.Config {
	cfg := solver.Config{Selection: p.Select, Seed: mix.Seed(p.Seed, 0), Eps: eps, MaxEpochs: p.MaxEpochs, ACF: p.ACF,
		EarlyCheck: early, Repair: repair, Work: work, Done: ctx.Done(), Tuning: p.Tuning, Trace: p.trace}
	if cfg.MaxEpochs == 0 {
		cfg.MaxEpochs = DefaultMaxEpochs
	}
	if f := p.Progress; f != nil {
		cfg.Progress = func(epoch int, viol, obj float64) { f(Progress{Epoch: epoch, Violation: viol, Objective: obj}) }
	}
	return cfg
}

// settle fills in the result of a single-problem run r that ended with
// converged, at the violation and primal objective measured.
func settle(res *Result, m *Model, r *solver.Run, ops int64, converged bool, viol, primal float64) {
	res.Iterations = r.Steps
	res.Epochs = r.Epochs()
	res.Operations = ops
	res.Primal = primal
	res.Gap = primal + res.Objective
	res.Violation = viol
	res.Converged = converged && !r.Cancelled()
	res.Cancelled = r.Cancelled()
	res.HitEpochCap = r.Capped() && !converged
	res.NNZW = m.NNZ()
	m.Partial = !res.Converged || res.Cancelled
}
