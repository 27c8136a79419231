package multiclass

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/fit"
)

var wwSelections = []solver.Selection{solver.Uniform, solver.ACF}

// wwEval is an independent evaluation with plain loops (no kernel
// package, no solver code): W from α, the KKT violation, f and P.
type wwEval struct {
	wDiff     float64 // max |W_model − W(α)| / (1 + max |W|)
	violation float64
	dual      float64
	primal    float64
}

func wwEvaluate(d *dataio.Dataset, m *model.Model, du duals) wwEval {
	K := m.NrW
	ref := refW(d, du.class, du.alpha, K, m.Bias)
	var out wwEval
	var wmax, ww float64
	rows := d.Features
	if m.Bias >= 0 {
		rows++
	}
	if len(m.W) != rows*K {
		out.wDiff = math.Inf(1)
		return out
	}
	for j, v := range ref[:rows*K] {
		out.wDiff = max(out.wDiff, math.Abs(m.W[j]-v))
		wmax = max(wmax, math.Abs(m.W[j]))
		ww += m.W[j] * m.W[j]
	}
	out.wDiff /= 1 + wmax
	var sa, loss float64
	for i := 0; i < d.Rows; i++ {
		dec := refDec(d, m.W, K, m.Bias, i)
		y := int(du.class[i])
		C := du.ub[y]
		for c := 0; c < K; c++ {
			if c == y {
				if du.alpha[i*K+c] != 0 {
					out.violation = math.Inf(1) // the y slot must stay 0
				}
				continue
			}
			a := du.alpha[i*K+c]
			if a < 0 || a > C {
				out.violation = math.Inf(1)
			}
			sa += a
			G := dec[y] - dec[c] - 1
			switch {
			case a == 0:
				G = math.Min(G, 0)
			case a == C:
				G = math.Max(G, 0)
			}
			out.violation = max(out.violation, math.Abs(G))
			loss += C * math.Max(0, 1-dec[y]+dec[c])
		}
	}
	out.dual = 0.5*ww - sa
	out.primal = 0.5*ww + loss
	return out
}

// TestTrainWWSolutions checks both selections on every problem against
// an independent recomputation: W = W(α), max violation ≤ eps at the
// model, reported objective, primal and gap.
func TestTrainWWSolutions(t *testing.T) {
	for _, pr := range trainCases() {
		for _, sel := range wwSelections {
			t.Run(pr.name+"/"+sel.String(), func(t *testing.T) {
				const eps = 1e-3
				s := Spec{Spec: fit.Spec{C: pr.c, Eps: eps, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 3, MaxEpochs: 100000}}
				m, res, du := trainDuals(t, pr.d, s)
				if !res.Converged || res.HitEpochCap || res.Cancelled || m.Partial {
					t.Fatalf("not converged: %+v", res)
				}
				if m.NrW != len(m.Labels) || res.Select != sel.String() {
					t.Fatalf("model NrW %d labels %v, result %s", m.NrW, m.Labels, res.Select)
				}
				ev := wwEvaluate(pr.d, m, du)
				if ev.wDiff > 1e-10 {
					t.Errorf("W differs from W(α) by %g", ev.wDiff)
				}
				if ev.violation > eps*(1+1e-9)+1e-12 {
					t.Errorf("independent max violation %g > eps %g", ev.violation, eps)
				}
				if math.Abs(ev.violation-res.Violation) > 1e-9*(1+ev.violation) {
					t.Errorf("reported violation %g, independent %g", res.Violation, ev.violation)
				}
				if testkit.RelDiff(ev.dual, res.Objective) > 1e-9 {
					t.Errorf("objective %v, independent %v", res.Objective, ev.dual)
				}
				if testkit.RelDiff(ev.primal, res.Primal) > 1e-9 {
					t.Errorf("primal %v, independent %v", res.Primal, ev.primal)
				}
				if res.Gap < -1e-9*math.Abs(res.Primal) || res.Gap > 0.05*math.Abs(res.Primal) {
					t.Errorf("gap %g (primal %g)", res.Gap, res.Primal)
				}
				if pr.weights != nil && len(res.Warnings) != 1 {
					t.Errorf("warnings %q, want one for label 42", res.Warnings)
				}
				if res.NNZW != m.NNZ() || res.Iterations < int64(pr.d.Rows) || res.Operations <= 0 || res.Epochs < 1 {
					t.Errorf("accounting: %+v", res)
				}
				t.Logf("iters %d epochs %d obj %.10g gap %.3g viol %.3g", res.Iterations, res.Epochs, res.Objective, res.Gap, res.Violation)
			})
		}
	}
}

// TestTrainWWTightGap: at a tight eps the duality gap is tiny, and both
// selections reach the same dual objective.
func TestTrainWWTightGap(t *testing.T) {
	if testing.Short() {
		t.Skip("long (seconds natively, minutes emulated); go test without -short runs it")
	}
	for _, pr := range trainCases() {
		t.Run(pr.name, func(t *testing.T) {
			var objs []float64
			for _, sel := range wwSelections {
				_, res := mustTrain(t, context.Background(), pr.d, Spec{Spec: fit.Spec{C: pr.c, Eps: 1e-7, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 5, MaxEpochs: 1000000}})
				if !res.Converged {
					t.Fatalf("%s: not converged: %+v", sel, res)
				}
				if res.Gap < -1e-12*math.Abs(res.Primal) || res.Gap > 1e-6*math.Max(1, math.Abs(res.Primal)) {
					t.Errorf("%s: gap %g (primal %g)", sel, res.Gap, res.Primal)
				}
				objs = append(objs, res.Objective)
			}
			if testkit.RelDiff(objs[0], objs[1]) > 1e-8 {
				t.Errorf("uniform objective %.15g, acf %.15g", objs[0], objs[1])
			}
		})
	}
}

// TestTrainWWTwoClasses: with K = 2, α_i is a single variable, w_1 = −w_0
// exactly, and u = 2w_0 is the binary hinge-loss SVM (-s 3, package
// dual) with cost 2C: the WW primal is ½(‖w_0‖² + ‖w_1‖²) + C Σ max(0,
// 1 − y_i(w_0 − w_1)ᵀx_i) = ½[½‖u‖² + 2C Σ max(0, 1 − y_i uᵀx_i)], the
// duals are β = 2α, the binary dual objective is twice the WW one, and
// the gradients (hence the KKT violations) coincide: ∂f_WW/∂α_i =
// y_i uᵀx_i − 1. The binary duals β are those of package dcd's -s 3
// problem (hingeDuals).
func TestTrainWWTwoClasses(t *testing.T) {
	for _, bias := range []float64{-1, 1} {
		for _, sel := range wwSelections {
			d := synth.Classes(synth.ClassesConfig{Seed: 21, Rows: 300, Feats: 30, Density: 0.2, Labels: []float64{-1, 1}, Noise: 0.1})
			const C, eps = 0.7, 1e-9
			m, res, du := trainDuals(t, d, Spec{Spec: fit.Spec{C: C, Eps: eps, Bias: bias, Select: sel, Seed: 1, MaxEpochs: 1000000}})
			bin := resolved(Spec{Spec: fit.Spec{C: 2 * C, Eps: eps, Bias: bias, Select: solver.Uniform, Seed: 1, MaxEpochs: 1000000}}).Spec
			mb, resb, err := dual.Train(context.Background(), d, dual.Spec{Spec: bin, Kind: dual.L1LossSVC})
			if err != nil {
				t.Fatal(err)
			}
			beta, _ := hingeDuals(t, d, bin)
			if !res.Converged || !resb.Converged {
				t.Fatalf("not converged: %+v %+v", res, resb)
			}
			if m.NrW != 2 || mb.NrW != 1 || m.Labels[0] != mb.Labels[0] {
				t.Fatalf("layout: %v/%d vs %v/%d", m.Labels, m.NrW, mb.Labels, mb.NrW)
			}
			rows := len(mb.W)
			for j := 0; j < rows; j++ {
				w0, w1 := m.W[2*j], m.W[2*j+1]
				if w1 != -w0 {
					t.Fatalf("bias %g %s: w_1[%d] = %v, −w_0 = %v", bias, sel, j, w1, -w0)
				}
				if math.Abs(2*w0-mb.W[j]) > 1e-6*(1+math.Abs(mb.W[j])) {
					t.Errorf("bias %g %s: 2w_0[%d] = %v, binary w = %v", bias, sel, j, 2*w0, mb.W[j])
				}
			}
			for i := 0; i < d.Rows; i++ {
				a := du.alpha[2*i+1-int(du.class[i])]
				if math.Abs(2*a-beta[i]) > 1e-5*C {
					t.Errorf("bias %g %s: 2α_%d = %v, binary β = %v", bias, sel, i, 2*a, beta[i])
					break
				}
			}
			if testkit.RelDiff(2*res.Objective, resb.Objective) > 1e-9 || testkit.RelDiff(2*res.Primal, resb.Primal) > 1e-9 {
				t.Errorf("bias %g %s: 2·f_WW %.12g vs binary %.12g; 2·P_WW %.12g vs %.12g", bias, sel,
					2*res.Objective, resb.Objective, 2*res.Primal, resb.Primal)
			}
		}
	}
}

// TestTrainWWDeterminism: the same seed gives a bit-identical model and
// result.
func TestTrainWWDeterminism(t *testing.T) {
	d := trainCases()[2].d
	ctx := context.Background()
	for _, sel := range wwSelections {
		s := Spec{Spec: fit.Spec{C: 3, Eps: 1e-3, Bias: 1, Select: sel, Seed: 99}}
		m1, r1 := mustTrain(t, ctx, d, s)
		m2, r2 := mustTrain(t, ctx, d, s)
		for j := range m1.W {
			if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
				t.Fatalf("%s: W[%d] %v vs %v", sel, j, m1.W[j], m2.W[j])
			}
		}
		if r1.Iterations != r2.Iterations || r1.Operations != r2.Operations || math.Float64bits(r1.Objective) != math.Float64bits(r2.Objective) {
			t.Fatalf("%s: results differ: %+v vs %+v", sel, r1, r2)
		}
		s.Seed = 100
		_, r3 := mustTrain(t, ctx, d, s)
		if r3.Iterations == r1.Iterations && r3.Objective == r1.Objective {
			t.Errorf("%s: another seed gave the same run", sel)
		}
	}
}

// TestTrainWWCancel: cancellation before and during training returns a
// partial model with Result.Cancelled set, and no error (acfcd.Train
// turns it into one that wraps ctx.Err()). A cancelled run skips the
// measuring pass: its violation is the last epoch's, its primal and gap
// are NaN.
func TestTrainWWCancel(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 31, Rows: 20000, Feats: 200, Density: 0.05, Labels: []float64{1, 2, 3, 4}, Noise: 0.3})
	// The driver checks for cancellation at every epoch's end and about
	// every solver.Tuning.PollWork multiply-adds, K per non-zero of a step.
	poll := solver.DefaultTuning().PollWork * int64(d.Rows) / (2 * d.NNZ() * 4)
	for _, sel := range wwSelections {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m, res := mustTrain(t, ctx, d, Spec{Spec: fit.Spec{C: 100, Eps: 1e-9, Select: sel}})
		if res == nil || !res.Cancelled || res.Converged || !m.Partial || res.Iterations != 0 {
			t.Fatalf("%s: pre-cancelled: res %+v", sel, res)
		}
		ctx, cancel = context.WithCancel(context.Background())
		var calls atomic.Int32
		s := Spec{Spec: fit.Spec{C: 100, Eps: 1e-9, Select: sel, Progress: func(fit.Progress) {
			if calls.Add(1) == 2 {
				cancel()
			}
		}}}
		m, res = mustTrain(t, ctx, d, s)
		cancel()
		if !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap {
			t.Fatalf("%s: cancelled: res %+v", sel, res)
		}
		// it stopped within an epoch and a check interval of the cancel
		if res.Iterations > int64(3*d.Rows)+poll || len(m.W) != d.Features*4 {
			t.Fatalf("%s: ran %d steps after cancel at epoch 2", sel, res.Iterations)
		}
		if math.IsNaN(res.Violation) || math.IsInf(res.Violation, 0) || res.Violation == 0 {
			t.Errorf("%s: violation %g of a partial model", sel, res.Violation)
		}
		if !math.IsNaN(res.Primal) || !math.IsNaN(res.Gap) {
			t.Errorf("%s: cancelled run measured primal %g gap %g", sel, res.Primal, res.Gap)
		}
	}
}

// TestTrainWWEpochCapProgress: the epoch cap stops a run that cannot
// meet eps after exactly MaxEpochs·n block steps, and Progress is called
// once per epoch with a decreasing objective.
func TestTrainWWEpochCapProgress(t *testing.T) {
	d := trainCases()[0].d
	for _, sel := range wwSelections {
		var epochs []int
		var objs []float64
		s := Spec{Spec: fit.Spec{C: 1000, Eps: 1e-12, Select: sel, MaxEpochs: 3, Progress: func(pr fit.Progress) {
			epochs = append(epochs, pr.Epoch)
			objs = append(objs, pr.Objective)
		}}}
		m, res := mustTrain(t, context.Background(), d, s)
		if !res.HitEpochCap || res.Converged || !m.Partial || res.Epochs != 3 || res.Iterations != int64(3*d.Rows) {
			t.Fatalf("%s: %+v", sel, res)
		}
		if len(epochs) != 3 || epochs[0] != 1 || epochs[2] != 3 {
			t.Fatalf("%s: progress epochs %v", sel, epochs)
		}
		for k := 1; k < len(objs); k++ {
			if objs[k] > objs[k-1] {
				t.Fatalf("%s: objective went up: %v", sel, objs)
			}
		}
	}
}

// TestTrainWWEdges: an empty dataset is an error, one class, float32
// storage.
func TestTrainWWEdges(t *testing.T) {
	ctx := context.Background()
	if _, _, err := Train(ctx, &dataio.Dataset{}, resolved(Spec{Spec: fit.Spec{C: 1}})); err == nil {
		t.Error("empty dataset: no error")
	}
	// one class: nothing to optimise, the model predicts that class
	one := synth.Classes(synth.ClassesConfig{Seed: 1, Rows: 30, Feats: 5, Density: 0.5, Labels: []float64{7}})
	m, res := mustTrain(t, ctx, one, Spec{Spec: fit.Spec{C: 1, Bias: 1}})
	if !res.Converged || m.NrW != 1 || res.Objective != 0 || m.Predict([]int32{0}, []float64{1}) != 7 {
		t.Fatalf("one class: %+v", res)
	}
	m.SolverType = "MCSVM_WW"
	if err := m.Save(filepath.Join(t.TempDir(), "one.model")); err != nil {
		t.Fatal(err)
	}
	// float32 storage gives the same solution as float64 of the rounded values
	d64 := trainCases()[1].d
	d32, dr := synth.Float32Copies(d64)
	s := Spec{Spec: fit.Spec{C: 2, Eps: 1e-8, Bias: 1, Select: solver.ACF, Seed: 4, MaxEpochs: 100000}}
	m32, r32, du := trainDuals(t, d32, s)
	mr, rr := mustTrain(t, ctx, dr, s)
	if !r32.Converged || testkit.RelDiff(r32.Objective, rr.Objective) > 1e-9 {
		t.Fatalf("float32 objective %v, float64 %v", r32.Objective, rr.Objective)
	}
	if ev := wwEvaluate(d32, m32, du); ev.wDiff > 1e-10 || ev.violation > 1e-8*(1+1e-9) {
		t.Fatalf("float32: %+v", ev)
	}
	for j := range mr.W {
		if math.Abs(mr.W[j]-m32.W[j]) > 1e-5*(1+math.Abs(mr.W[j])) {
			t.Fatalf("float32 W[%d] %v, float64 %v", j, m32.W[j], mr.W[j])
		}
	}
}

// TestTrainWWPredictSaveLoad: on linearly separable multi-class data the
// argmax model classifies well, also out of sample, and survives Save and
// model.LoadModel as MCSVM_WW.
func TestTrainWWPredictSaveLoad(t *testing.T) {
	all := synth.Classes(synth.ClassesConfig{Seed: 41, Rows: 3000, Feats: 20, Density: 0.6, Labels: []float64{10, 20, 30, 40, 50}})
	tr, test := wwSplit(all, 0.8, 1)
	for _, sel := range wwSelections {
		m, res := mustTrain(t, context.Background(), tr, Spec{Spec: fit.Spec{C: 1, Eps: 0.01, Bias: 1, Select: sel, Seed: 2}})
		if !res.Converged {
			t.Fatalf("%s: %+v", sel, res)
		}
		trAcc, teAcc := wwAccuracy(m, tr), wwAccuracy(m, test)
		t.Logf("%s: train accuracy %.4f, test %.4f (%d iterations)", sel, trAcc, teAcc, res.Iterations)
		if trAcc < 0.97 || teAcc < 0.9 {
			t.Errorf("%s: accuracy train %.4f, test %.4f", sel, trAcc, teAcc)
		}
		m.SolverType = "MCSVM_WW"
		path := filepath.Join(t.TempDir(), "ww.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		m2, err := model.LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if m2.SolverType != "MCSVM_WW" || m2.NrW != m.NrW || m2.Bias != m.Bias || len(m2.W) != len(m.W) {
			t.Fatalf("loaded %s NrW %d bias %g len %d", m2.SolverType, m2.NrW, m2.Bias, len(m2.W))
		}
		for j := range m.W {
			if math.Float64bits(m.W[j]) != math.Float64bits(m2.W[j]) {
				t.Fatalf("W[%d] %v loaded as %v", j, m.W[j], m2.W[j])
			}
		}
		for i := 0; i < test.Rows; i++ {
			idx, val := test.Row(i)
			if m.Predict(idx, val) != m2.Predict(idx, val) {
				t.Fatalf("prediction %d differs after load", i)
			}
		}
	}
}

func wwAccuracy(m *model.Model, d *dataio.Dataset) float64 {
	ok := 0
	for i := 0; i < d.Rows; i++ {
		a, b := d.RowPtr[i], d.RowPtr[i+1]
		idx := d.Index[a:b]
		var val []float64
		if d.Value != nil {
			val = d.Value[a:b]
		} else {
			val = make([]float64, b-a)
			for k := range val {
				val[k] = float64(d.Value32[a+int64(k)])
			}
		}
		if m.Predict(idx, val) == d.Label[i] {
			ok++
		}
	}
	return float64(ok) / float64(d.Rows)
}

// wwSplit is a fixed random split: a fraction frac of the rows (in a
// seeded random order) for training, the rest for testing.
func wwSplit(d *dataio.Dataset, frac float64, seed uint64) (training, test *dataio.Dataset) {
	perm := rand.New(rand.NewPCG(seed, 5)).Perm(d.Rows)
	k := int(frac * float64(d.Rows))
	return d.Subset(perm[:k]), d.Subset(perm[k:])
}
