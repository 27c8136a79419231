package acfcd

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

// dualProblems are the problems trained by dual coordinate descent, and
// dualSelections the selections they all take.
var (
	dualProblems   = []Problem{SquaredHingeDual, HingeDual, LogisticDual}
	dualSelections = []Selection{Uniform, Shrink, ACF, ACFShrink}
)

// genSpec describes a generated sparse classification problem.
type genSpec struct {
	seed    uint64
	rows    int
	feats   int
	density float64   // expected fraction of non-zeros per row
	labels  []float64 // class labels; which one is met first is random
	noise   float64   // probability of a random label
	scale   float64   // feature scale (default 1)
	empty   int       // rows forced to have no features
}

// genData draws rows with random sparse features and labels from random
// linear scores (argmax over classes), then flips a fraction to noise.
func genData(s genSpec) *dataio.Dataset {
	r := rand.New(rand.NewPCG(s.seed, 77))
	k := len(s.labels)
	if s.scale == 0 {
		s.scale = 1
	}
	truth := make([][]float64, k)
	for c := range truth {
		truth[c] = make([]float64, s.feats)
		for j := range truth[c] {
			truth[c][j] = r.NormFloat64()
		}
	}
	d := &dataio.Dataset{Rows: s.rows, Features: s.feats, RowPtr: make([]int64, 1, s.rows+1)}
	for i := 0; i < s.rows; i++ {
		score := make([]float64, k)
		if i >= s.empty {
			for j := 0; j < s.feats; j++ {
				if r.Float64() >= s.density {
					continue
				}
				v := s.scale * (r.Float64()*2 - 1)
				if v == 0 {
					continue
				}
				d.Index = append(d.Index, int32(j))
				d.Value = append(d.Value, v)
				for c := range score {
					score[c] += v * truth[c][j]
				}
			}
		}
		best := 0
		for c := range score {
			if score[c] > score[best] {
				best = c
			}
		}
		if r.Float64() < s.noise {
			best = r.IntN(k)
		}
		d.Label = append(d.Label, s.labels[best])
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	if d.Value == nil {
		d.Value = []float64{}
	}
	return d
}

// duals are the final dual variables of one subproblem (slices copied).
type duals struct {
	class         int
	alpha, alphaC []float64 // alphaC: C_i − α_i, logistic only
	y             []int8
	ub, diag      [2]float64 // indexed by (y+1)/2
}

// mustTrain trains d with p as Train does for -s 1, 3 and 7 (the same
// subproblems, seeds and model; one class after another) and returns,
// besides the model and result, each subproblem's final dual variables.
// For other problems it calls Train and returns no duals.
func mustTrain(t *testing.T, d *dataio.Dataset, p Params) (*Model, *Result, map[int]duals) {
	t.Helper()
	return mustTrainCtx(t, context.Background(), d, p)
}

// mustTrainCtx is mustTrain under ctx: a cancelled dual run returns its
// partial model and duals (Result.Cancelled set) without an error.
func mustTrainCtx(t *testing.T, ctx context.Context, d *dataio.Dataset, p Params) (*Model, *Result, map[int]duals) {
	t.Helper()
	if !p.Problem.dual() {
		m, res, err := Train(ctx, d, p)
		if err != nil {
			t.Fatalf("Train(%+v): %v", p, err)
		}
		return m, res, nil
	}
	if err := p.resolve(); err != nil {
		t.Fatalf("Params %+v: %v", p, err)
	}
	dt, res, err := newDualTraining(ctx, d, p)
	if err != nil {
		t.Fatalf("Train(%+v): %v", p, err)
	}
	mdl, _ := dt.newModel(res)
	got := map[int]duals{}
	for k := range dt.subs {
		dp, fin := dt.worker(nil, nil)
		dt.solve(k, dp, fin)
		dt.copyOut(mdl, k, dp.W)
		got[k] = duals{class: k, alpha: append([]float64(nil), dp.Alpha...), alphaC: append([]float64(nil), dp.AlphaC...),
			y: append([]int8(nil), dp.Y...), ub: dp.UB, diag: dp.Diag}
	}
	dt.total(res, mdl)
	return mdl, res, got
}

// wColumn returns model weights of subproblem c (bias last when present).
func wColumn(m *Model, c int) []float64 {
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

func evalIndependent(d *dataio.Dataset, m *Model, c int, h duals, p Problem) independent {
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
		switch p {
		case LogisticDual:
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
				if p == HingeDual {
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

// float32Copies returns d with its values stored as float32, and d with
// float64 values rounded to the same float32s (the exact problem d32 holds).
func float32Copies(d *dataio.Dataset) (d32, rounded *dataio.Dataset) {
	c32, cr := *d, *d
	c32.Value, c32.Value32 = nil, make([]float32, len(d.Value))
	cr.Value = make([]float64, len(d.Value))
	for k, v := range d.Value {
		c32.Value32[k] = float32(v)
		cr.Value[k] = float64(float32(v))
	}
	return &c32, &cr
}

// handRows is a small problem with an unsorted row, a repeated index and an
// empty row, as a Dataset built by hand may have; with f32 its values are
// stored as float32.
func handRows(f32 bool) *dataio.Dataset {
	d := &dataio.Dataset{Rows: 4, Features: 5, RowPtr: []int64{0, 3, 5, 5, 9},
		Index: []int32{3, 1, 4, 2, 2, 0, 4, 0, 1}, Value: []float64{1.5, -2, 0.5, 1, 3, 2, -1, 0.25, 1},
		Label: []float64{1, -1, 1, -1}}
	if f32 {
		d, _ = float32Copies(d)
	}
	return d
}

// lowDim is the case the fallback exists for: many overlapping examples,
// few features, large C (the dual is badly conditioned and stalls).
func lowDim() *dataio.Dataset {
	return genData(genSpec{seed: 21, rows: 4000, feats: 12, density: 0.7, labels: []float64{1, -1}, noise: 0.25, scale: 3})
}

// withProcs runs f at GOMAXPROCS n and restores the previous setting (so
// tests that use it do not run in parallel).
func withProcs(n int, f func()) {
	old := runtime.GOMAXPROCS(n)
	defer runtime.GOMAXPROCS(old)
	f()
}

// forcedSwitch returns the default tuning with the switch to a finisher
// due once the dual has spent ops, and without the refinements of the
// switch rule (the -s 3 probe and deferral, the Newton-CG deferral, a
// second interior-point round), so that every run with a finisher
// switches at the same point.
func forcedSwitch(ops int64) *Tuning {
	t := DefaultTuning()
	t.SwitchOps = ops
	t.IPMProbeAt = math.Inf(1)
	t.TronDeferPasses = 0
	t.IPMMaxDefer = 0
	t.IPMMaxRounds = 1
	return &t
}

// againstPureDual trains p on d twice: with the fallbacks off, to a
// reference that must converge, and with the switch to a finisher forced
// after the first epoch. It returns the reference and the forced run.
func againstPureDual(t *testing.T, d *dataio.Dataset, p Params) (ref *Result, m *Model, res *Result, h duals) {
	t.Helper()
	p.NoFallback = true
	_, ref, _ = mustTrain(t, d, p)
	if !ref.Converged {
		t.Fatalf("pure dual did not converge: %+v", ref)
	}
	p.NoFallback = false
	p.Tuning = forcedSwitch(1)
	m, res, hs := mustTrain(t, d, p)
	return ref, m, res, hs[0]
}

// checkPureDual fails t unless dual, the forced run's dual objective
// recomputed independently, is within 1e-9 relative of the pure dual's.
func checkPureDual(t *testing.T, dual, pure float64) {
	t.Helper()
	if rd := math.Abs(dual-pure) / math.Max(1e-300, math.Abs(pure)); rd > 1e-9 {
		t.Errorf("dual objective %.15g, pure dual %.15g (relative %.2g)", dual, pure, rd)
	}
}

// checkDual checks a converged -s 1, 3 or 7 result independently: w is
// Σ α_i y_i x_i, α feasible, the largest violation within what eps
// certifies, and the reported objectives the recomputed ones.
func checkDual(t *testing.T, d *dataio.Dataset, m *Model, h duals, res *Result, s Problem, eps float64) independent {
	t.Helper()
	ind := evalIndependent(d, m, 0, h, s)
	if ind.wDiff > 1e-10 {
		t.Errorf("w differs from Σ α y x by %g", ind.wDiff)
	}
	limit := eps
	if s == SquaredHingeDual {
		limit = eps / 2 // -e certifies max|PG| ≤ eps/2 for -s 1 (Train)
	}
	if ind.violation > limit*(1+1e-9) {
		t.Errorf("independent max violation %g > %g", ind.violation, limit)
	}
	if testkit.RelDiff(ind.dual, res.Objective) > 1e-9 || testkit.RelDiff(ind.primal, res.Primal) > 1e-9 {
		t.Errorf("reported dual %v primal %v, independent %v %v", res.Objective, res.Primal, ind.dual, ind.primal)
	}
	if s == HingeDual {
		checkBox(t, h)
		return ind
	}
	for i, a := range h.alpha {
		if s == LogisticDual {
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

// checkDeterministic trains p on d twice and fails t unless the fallback
// ran and both models are the same to the bit.
func checkDeterministic(t *testing.T, d *dataio.Dataset, p Params) {
	t.Helper()
	m1, r1, _ := mustTrain(t, d, p)
	m2, _, _ := mustTrain(t, d, p)
	if r1.NewtonSteps == 0 {
		t.Fatalf("-s %s: the fallback did not run", p.Problem.Flag())
	}
	if !testkit.SameBits(m1.W, m2.W) {
		t.Fatalf("-s %s: w %v, then %v", p.Problem.Flag(), m1.W, m2.W)
	}
}
