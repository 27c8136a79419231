package dual

import (
	"context"
	"math"
	"runtime"
	"strconv"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
)

// classifierKinds are the models trained by one-vs-rest dual coordinate
// descent, and dualSelections the selections every Kind takes.
var (
	classifierKinds = []Kind{L2LossSVC, L1LossSVC, LR}
	dualSelections  = []solver.Selection{solver.Uniform, solver.Shrink, solver.ACF, solver.ACFShrink}
)

// flag returns liblinear's -s of k.
func flag(k Kind) string {
	return [...]string{L2LossSVC: "1", L1LossSVC: "3", LR: "7", L2LossSVR: "12", L1LossSVR: "13", OneClass: "21"}[k]
}

// solverType returns the model file's solver_type of k (the name acfcd
// gives the models Train returns).
func solverType(k Kind) string {
	st, ok := model.SolverTypeByFlag(flag(k))
	if !ok {
		panic("no solver type for -s " + flag(k))
	}
	return st.Name
}

// resolved returns s with acfcd's defaults in its zero fields, as
// acfcd.Train passes a Spec to Train: C 1, seed 1 (acfcd.DefaultSeed),
// the selection acf+shrink, P 0.1 (acfcd.DefaultP), ν 0.5 (acfcd.DefaultNu),
// and a bias only where Bias > 0 (else −1, the model file's "none").
func resolved(s Spec) Spec {
	if s.C == 0 {
		s.C = 1
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Select == solver.Auto {
		s.Select = solver.ACFShrink
	}
	if s.P == 0 {
		s.P = 0.1
	}
	if s.Nu == 0 {
		s.Nu = 0.5
	}
	if !(s.Bias > 0) {
		s.Bias = -1
	}
	return s
}

// train is Train on s resolved, with the spare processors that
// acfcd.Train lends (GOMAXPROCS − 1) unless s has a pool.
func train(ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, error) {
	s = resolved(s)
	if s.Pool == nil {
		s.Pool = procs.NewPool(runtime.GOMAXPROCS(0) - 1)
	}
	return Train(ctx, d, s)
}

// duals are the final dual variables of one subproblem (slices copied).
type duals struct {
	class         int
	alpha, alphaC []float64 // alphaC: C_i − α_i, logistic only
	y             []int8
	ub, diag      [2]float64 // indexed by (y+1)/2
}

// mustTrain trains -s 1, 3 or 7 on d under s (resolved) as Train does
// (the same subproblems, seeds and model; one class after another,
// without spare processors) and returns, besides the model and result,
// each subproblem's final dual variables.
func mustTrain(t *testing.T, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, map[int]duals) {
	t.Helper()
	return mustTrainCtx(t, context.Background(), d, s)
}

// mustTrainCtx is mustTrain under ctx (and the tunings it carries): a
// cancelled run returns its partial model and duals (Result.Cancelled
// set).
func mustTrainCtx(t testing.TB, ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result, map[int]duals) {
	t.Helper()
	s = resolved(s)
	c, res, err := newClassifiers(ctx, d, &s)
	if err != nil {
		t.Fatalf("Train(-s %s, %+v): %v", flag(s.Kind), s.Spec, err)
	}
	mdl := fit.OneVsRest(c.labels, c.sh.NF, s.Bias, len(c.subs), nil)
	got := map[int]duals{}
	for k := range c.subs {
		dp, fin := c.worker(nil, nil)
		c.solve(k, dp, fin)
		fit.CopyOut(mdl, k, dp.W)
		got[k] = duals{class: k, alpha: append([]float64(nil), dp.Alpha...), alphaC: append([]float64(nil), dp.AlphaC...),
			y: append([]int8(nil), dp.Y...), ub: dp.UB, diag: dp.Diag}
		res.SupportVectors += c.subs[k].Res.SupportVectors
	}
	fit.Total(res, c.subs, mdl)
	return mdl, res, got
}

// wColumn returns model weights of subproblem c (bias last when present).
func wColumn(m *model.Model, c int) []float64 {
	rows := len(m.W) / m.NrW
	w := make([]float64, rows)
	for j := range w {
		w[j] = m.W[j*m.NrW+c]
	}
	return w
}

// independent is a from-scratch evaluation of one subproblem with plain
// loops (no kernel package): w from α, the largest KKT violation and the
// dual objective, both at the model's w.
type independent struct {
	wDiff     float64 // max_j |w_model − Σ α_i y_i x_i|_j / (1 + Σ_i |α_i x_ij|): rounding of the sum aside, 0
	violation float64
	dual      float64
	primal    float64
}

func evalIndependent(d *dataio.Dataset, m *model.Model, c int, h duals, k Kind) independent {
	w := wColumn(m, c)
	nf := d.Features
	bias := m.Bias
	ref, size := make([]float64, len(w)), make([]float64, len(w))
	for i := 0; i < d.Rows; i++ {
		coef := h.alpha[i] * float64(h.y[i])
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			ref[d.Index[k]] += coef * d.Value[k]
			size[d.Index[k]] += math.Abs(coef * d.Value[k])
		}
		if bias >= 0 {
			ref[nf] += coef * bias
			size[nf] += math.Abs(coef * bias)
		}
	}
	var out independent
	var ww float64
	for j := range w {
		out.wDiff = max(out.wDiff, math.Abs(w[j]-ref[j])/(1+size[j]))
		ww += w[j] * w[j]
	}
	dual, loss := 0.5*ww, 0.0
	for i := 0; i < d.Rows; i++ {
		var wx float64
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			wx += d.Value[k] * w[d.Index[k]]
		}
		if bias >= 0 {
			wx += bias * w[nf]
		}
		cls := (h.y[i] + 1) >> 1
		mgn := float64(h.y[i]) * wx
		a := h.alpha[i]
		var v float64
		switch k {
		case LR:
			C := h.ub[cls]
			v = math.Abs(mgn + math.Log(a/h.alphaC[i]))
			dual += a*math.Log(a) + h.alphaC[i]*math.Log(h.alphaC[i]) - C*math.Log(C)
			loss += C * math.Log(1+math.Exp(-mgn))
		default:
			D := h.diag[cls]
			G := mgn - 1 + a*D
			switch {
			case a == 0:
				v = math.Max(0, -G)
			case a == h.ub[cls]:
				v = math.Max(0, G)
			default:
				v = math.Abs(G)
			}
			dual += 0.5*a*a*D - a
			if hl := 1 - mgn; hl > 0 {
				if k == L1LossSVC {
					loss += h.ub[cls] * hl
				} else {
					loss += hl * hl / (2 * D)
				}
			}
		}
		out.violation = max(out.violation, v)
	}
	out.dual = dual
	out.primal = 0.5*ww + loss
	return out
}

// checkBox checks that every α of a -s 3 subproblem is within [0, C_i].
func checkBox(t *testing.T, h duals) {
	t.Helper()
	for i, a := range h.alpha {
		if c := h.ub[(h.y[i]+1)>>1]; !(a >= 0 && a <= c) {
			t.Fatalf("α[%d] = %v outside [0, %v]", i, a, c)
		}
	}
}

// checkDual checks a converged -s 1, 3 or 7 result independently: w is
// Σ α_i y_i x_i, α feasible, the largest violation within what eps
// certifies, and the reported objectives the recomputed ones.
func checkDual(t *testing.T, d *dataio.Dataset, m *model.Model, h duals, res *fit.Result, k Kind, eps float64) independent {
	t.Helper()
	ind := evalIndependent(d, m, 0, h, k)
	if ind.wDiff > 1e-10 {
		t.Errorf("w differs from Σ α y x by %g", ind.wDiff)
	}
	limit := eps
	if k == L2LossSVC {
		limit = eps / 2 // -e certifies max|PG| ≤ eps/2 for -s 1 (classifiers.go)
	}
	if ind.violation > limit*(1+1e-9) {
		t.Errorf("independent max violation %g > %g", ind.violation, limit)
	}
	if testkit.RelDiff(ind.dual, res.Objective) > 1e-9 || testkit.RelDiff(ind.primal, res.Primal) > 1e-9 {
		t.Errorf("reported dual %v primal %v, independent %v %v", res.Objective, res.Primal, ind.dual, ind.primal)
	}
	if k == L1LossSVC {
		checkBox(t, h)
		return ind
	}
	for i, a := range h.alpha {
		if k == LR {
			c := h.ub[(h.y[i]+1)>>1]
			if !(a > 0 && h.alphaC[i] > 0 && math.Abs(a+h.alphaC[i]-c) <= 1e-12*c) {
				t.Fatalf("α[%d] = %v, C−α = %v, C = %v", i, a, h.alphaC[i], c)
			}
		} else if !(a >= 0) {
			t.Fatalf("α[%d] = %v", i, a)
		}
	}
	return ind
}

// forcedSwitch returns the finishers' default tuning with the switch due
// once the dual has spent ops, and without the refinements of the switch
// rule (the -s 3 probe and deferral, the Newton-CG deferral, a second
// interior-point round), so that every run with a finisher switches at
// the same point.
func forcedSwitch(ops int64) *finish.Tuning {
	t := finish.DefaultTuning()
	t.SwitchOps = ops
	t.IPMProbeAt = math.Inf(1)
	t.TronDeferPasses = 0
	t.IPMMaxDefer = 0
	t.IPMMaxRounds = 1
	return &t
}

// againstPureDual trains s on d twice: with the fallbacks off, to a
// reference that must converge, and with the switch to a finisher forced
// after the first epoch. It returns the reference and the forced run.
func againstPureDual(t *testing.T, d *dataio.Dataset, s Spec) (ref *fit.Result, m *model.Model, res *fit.Result, h duals) {
	t.Helper()
	s.NoFallback = true
	_, ref, _ = mustTrain(t, d, s)
	if !ref.Converged {
		t.Fatalf("pure dual did not converge: %+v", ref)
	}
	s.NoFallback = false
	m, res, hs := mustTrainCtx(t, withSwitch(1), d, s)
	return ref, m, res, hs[0]
}

// withSwitch is a background context carrying forcedSwitch(ops).
func withSwitch(ops int64) context.Context {
	return tune.With(context.Background(), forcedSwitch(ops))
}

// checkPureDual fails t unless dual, the forced run's dual objective
// recomputed independently, is within 1e-9 relative of the pure dual's.
func checkPureDual(t *testing.T, dual, pure float64) {
	t.Helper()
	if rd := math.Abs(dual-pure) / math.Max(1e-300, math.Abs(pure)); rd > 1e-9 {
		t.Errorf("dual objective %.15g, pure dual %.15g (relative %.2g)", dual, pure, rd)
	}
}

// checkDeterministic trains s on d twice under ctx and fails t unless the
// fallback ran and both models are the same to the bit.
func checkDeterministic(t *testing.T, ctx context.Context, d *dataio.Dataset, s Spec) {
	t.Helper()
	m1, r1, _ := mustTrainCtx(t, ctx, d, s)
	m2, _, _ := mustTrainCtx(t, ctx, d, s)
	if r1.NewtonSteps == 0 {
		t.Fatalf("-s %s: the fallback did not run", flag(s.Kind))
	}
	if !testkit.SameBits(m1.W, m2.W) {
		t.Fatalf("-s %s: w %v, then %v", flag(s.Kind), m1.W, m2.W)
	}
}

// predictions returns m's prediction of every example of d, one a line
// as liblinear-predict prints them (%.17g).
func predictions(m *model.Model, d *dataio.Dataset) string {
	var b []byte
	for i := range d.Rows {
		idx, val := d.Row(i)
		b = strconv.AppendFloat(b, m.Predict(idx, val), 'g', 17, 64)
		b = append(b, '\n')
	}
	return string(b)
}
