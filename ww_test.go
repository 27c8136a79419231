package acfcd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/acfcd/acfcd/acf"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

var wwSelections = []Selection{Uniform, ACF}

// wwDuals are the final duals of a Weston–Watkins training, with each
// example's class index and each class's C, derived from the model's
// labels and the parameters.
type wwDuals struct {
	alpha []float64
	class []int32
	ub    []float64
}

// wwTrain trains d with p as the Weston–Watkins SVM, as Train does, and
// returns the final duals besides the model and result.
func wwTrain(t testing.TB, d *dataio.Dataset, p Params) (*Model, *Result, wwDuals) {
	t.Helper()
	p.Problem = WestonWatkins
	if err := p.resolve(); err != nil {
		t.Fatalf("Params %+v: %v", p, err)
	}
	wt, err := newWWTraining(context.Background(), d, p, procs.NewPool(runtime.GOMAXPROCS(0)-1))
	if err != nil {
		t.Fatalf("Train(%+v): %v", p, err)
	}
	m := wt.solve()
	du := wwDuals{alpha: slices.Clone(wt.prob.Alpha), class: make([]int32, d.Rows), ub: make([]float64, len(m.Labels))}
	for i, y := range d.Label {
		c := slices.Index(m.Labels, y)
		if c < 0 {
			t.Fatalf("label %g of example %d is not among the model's %v", y, i, m.Labels)
		}
		du.class[i] = int32(c)
	}
	for c, lab := range m.Labels {
		du.ub[c] = p.C
		if w, ok := p.Weights[lab]; ok {
			du.ub[c] *= w
		}
	}
	return m, wt.res, du
}

// wwEval is an independent evaluation with plain loops (no kernel
// package, no solver code): W from α, the KKT violation, f and P.
type wwEval struct {
	wDiff     float64 // max |W_model − W(α)| / (1 + max |W|)
	violation float64
	dual      float64
	primal    float64
}

// wwRefW computes W(α) from the dual formula, feature-major with a bias
// row when bias ≥ 0.
func wwRefW(d *dataio.Dataset, K int, bias float64, du wwDuals) []float64 {
	rows := d.Features
	if bias >= 0 {
		rows++
	}
	ref := make([]float64, rows*K)
	for i := 0; i < d.Rows; i++ {
		y := int(du.class[i])
		for c := 0; c < K; c++ {
			var coef float64
			if c == y {
				for c2 := 0; c2 < K; c2++ {
					if c2 != y {
						coef += du.alpha[i*K+c2]
					}
				}
			} else {
				coef = -du.alpha[i*K+c]
			}
			for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
				ref[int(d.Index[k])*K+c] += coef * wwValue(d, k)
			}
			if bias >= 0 {
				ref[d.Features*K+c] += coef * bias
			}
		}
	}
	return ref
}

func wwValue(d *dataio.Dataset, k int64) float64 {
	if d.Value != nil {
		return d.Value[k]
	}
	return float64(d.Value32[k])
}

func wwEvaluate(d *dataio.Dataset, m *Model, du wwDuals) wwEval {
	K := m.NrW
	ref := wwRefW(d, K, m.Bias, du)
	var out wwEval
	var wmax, ww float64
	if len(m.W) != len(ref) {
		out.wDiff = math.Inf(1)
		return out
	}
	for j := range ref {
		out.wDiff = max(out.wDiff, math.Abs(m.W[j]-ref[j]))
		wmax = max(wmax, math.Abs(m.W[j]))
		ww += m.W[j] * m.W[j]
	}
	out.wDiff /= 1 + wmax
	var sa, loss float64
	dec := make([]float64, K)
	for i := 0; i < d.Rows; i++ {
		for c := range dec {
			dec[c] = 0
			for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
				dec[c] += wwValue(d, k) * m.W[int(d.Index[k])*K+c]
			}
			if m.Bias >= 0 {
				dec[c] += m.Bias * m.W[d.Features*K+c]
			}
		}
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

type wwProblem struct {
	name    string
	d       *dataio.Dataset
	bias    float64
	c       float64
	weights map[float64]float64
}

func wwProblems() []wwProblem {
	return []wwProblem{
		{"three-class", genData(genSpec{seed: 11, rows: 300, feats: 40, density: 0.2, labels: []float64{1, 2, 3}, noise: 0.1}), -1, 1, nil},
		{"four-class-bias", genData(genSpec{seed: 12, rows: 350, feats: 30, density: 0.25, labels: []float64{4, 3, 2, 1}, noise: 0.05, empty: 4}), 1, 10, nil},
		{"five-class-weighted", genData(genSpec{seed: 13, rows: 400, feats: 60, density: 0.1, labels: []float64{-2, 0, 5, 7, 9}, noise: 0.15}), 0.5, 0.3, map[float64]float64{5: 3, 9: 0.5, 42: 2}},
		{"five-class-empty-rows-nobias", genData(genSpec{seed: 14, rows: 250, feats: 20, density: 0.3, labels: []float64{1, 2, 3, 4, 5}, noise: 0.2, empty: 5}), -1, 2, nil},
	}
}

// TestWWSolutions checks both selections on every problem against an
// independent recomputation: W = W(α), max violation ≤ eps at the model,
// reported objective, primal and gap.
func TestWWSolutions(t *testing.T) {
	for _, pr := range wwProblems() {
		for _, sel := range wwSelections {
			t.Run(pr.name+"/"+sel.String(), func(t *testing.T) {
				const eps = 1e-3
				p := Params{C: pr.c, Eps: eps, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 3, MaxEpochs: 100000}
				m, res, du := wwTrain(t, pr.d, p)
				if !res.Converged || res.HitEpochCap || res.Cancelled || m.Partial {
					t.Fatalf("not converged: %+v", res)
				}
				if m.SolverType != "MCSVM_WW" || m.NrW != len(m.Labels) || res.Solver != "MCSVM_WW" || res.Select != sel.String() {
					t.Fatalf("model %s NrW %d labels %v, result %s/%s", m.SolverType, m.NrW, m.Labels, res.Solver, res.Select)
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

// TestWWTightGap: at a tight eps the duality gap is tiny, and both
// selections reach the same dual objective.
func TestWWTightGap(t *testing.T) {
	if testing.Short() {
		t.Skip("long (seconds natively, minutes emulated); go test without -short runs it")
	}
	for _, pr := range wwProblems() {
		t.Run(pr.name, func(t *testing.T) {
			var objs []float64
			for _, sel := range wwSelections {
				_, res, _ := wwTrain(t, pr.d, Params{C: pr.c, Eps: 1e-7, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 5, MaxEpochs: 1000000})
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

// TestWWTwoClasses: with K = 2, α_i is a single variable, w_1 = −w_0
// exactly, and u = 2w_0 is the binary hinge-loss SVM (-s 3) with cost 2C:
// the WW primal is ½(‖w_0‖² + ‖w_1‖²) + C Σ max(0, 1 − y_i(w_0 − w_1)ᵀx_i)
// = ½[½‖u‖² + 2C Σ max(0, 1 − y_i uᵀx_i)], the duals are β = 2α, the
// binary dual objective is twice the WW one, and the gradients (hence the
// KKT violations) coincide: ∂f_WW/∂α_i = y_i uᵀx_i − 1.
func TestWWTwoClasses(t *testing.T) {
	for _, bias := range []float64{-1, 1} {
		for _, sel := range wwSelections {
			d := genData(genSpec{seed: 21, rows: 300, feats: 30, density: 0.2, labels: []float64{-1, 1}, noise: 0.1})
			const C, eps = 0.7, 1e-9
			m, res, du := wwTrain(t, d, Params{C: C, Eps: eps, Bias: bias, Select: sel, Seed: 1, MaxEpochs: 1000000})
			mb, resb, duals := mustTrain(t, d, Params{Problem: HingeDual, C: 2 * C, Eps: eps, Bias: bias, Select: Uniform, Seed: 1, MaxEpochs: 1000000})
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
				if math.Abs(2*a-duals[0].alpha[i]) > 1e-5*C {
					t.Errorf("bias %g %s: 2α_%d = %v, binary β = %v", bias, sel, i, 2*a, duals[0].alpha[i])
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

// TestWWDeterminism: the same seed gives a bit-identical model and result.
func TestWWDeterminism(t *testing.T) {
	d := wwProblems()[2].d
	for _, sel := range wwSelections {
		p := Params{C: 3, Eps: 1e-3, Bias: 1, Select: sel, Seed: 99}
		m1, r1, _ := wwTrain(t, d, p)
		m2, r2, _ := wwTrain(t, d, p)
		for j := range m1.W {
			if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
				t.Fatalf("%s: W[%d] %v vs %v", sel, j, m1.W[j], m2.W[j])
			}
		}
		if r1.Iterations != r2.Iterations || r1.Operations != r2.Operations || math.Float64bits(r1.Objective) != math.Float64bits(r2.Objective) {
			t.Fatalf("%s: results differ: %+v vs %+v", sel, r1, r2)
		}
		p.Seed = 100
		_, r3, _ := wwTrain(t, d, p)
		if r3.Iterations == r1.Iterations && r3.Objective == r1.Objective {
			t.Errorf("%s: another seed gave the same run", sel)
		}
	}
}

// TestWWCancel: cancellation before and during training returns a
// partial model and an error wrapping context.Canceled. A cancelled run
// skips the measuring pass: its violation is the last epoch's, its primal
// and gap are NaN.
func TestWWCancel(t *testing.T) {
	d := genData(genSpec{seed: 31, rows: 20000, feats: 200, density: 0.05, labels: []float64{1, 2, 3, 4}, noise: 0.3})
	// The driver checks for cancellation at every epoch's end and about
	// every Tuning.PollWork multiply-adds, K per non-zero of a step.
	poll := DefaultTuning().PollWork * int64(d.Rows) / (2 * d.NNZ() * 4)
	for _, sel := range wwSelections {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m, res, err := Train(ctx, d, Params{Problem: WestonWatkins, C: 100, Eps: 1e-9, Select: sel})
		if !errors.Is(err, context.Canceled) || res == nil || !res.Cancelled || res.Converged || !m.Partial || res.Iterations != 0 {
			t.Fatalf("%s: pre-cancelled: err %v res %+v", sel, err, res)
		}
		ctx, cancel = context.WithCancel(context.Background())
		var calls atomic.Int32
		p := Params{Problem: WestonWatkins, C: 100, Eps: 1e-9, Select: sel, Progress: func(pr Progress) {
			if calls.Add(1) == 2 {
				cancel()
			}
		}}
		m, res, err = Train(ctx, d, p)
		cancel()
		if !errors.Is(err, context.Canceled) || !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap {
			t.Fatalf("%s: cancelled: err %v res %+v", sel, err, res)
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

// TestWWEpochCapProgress: the epoch cap stops a run that cannot meet eps
// after exactly MaxEpochs·n block steps, and Progress is called once per
// epoch with a decreasing objective.
func TestWWEpochCapProgress(t *testing.T) {
	d := wwProblems()[0].d
	for _, sel := range wwSelections {
		var epochs []int
		var objs []float64
		p := Params{C: 1000, Eps: 1e-12, Select: sel, MaxEpochs: 3, Progress: func(pr Progress) {
			epochs = append(epochs, pr.Epoch)
			objs = append(objs, pr.Objective)
		}}
		m, res, _ := wwTrain(t, d, p)
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

// TestWWErrorsAndEdges: parameter errors, one class, float32 storage.
func TestWWErrorsAndEdges(t *testing.T) {
	d := wwProblems()[0].d
	for _, p := range []Params{
		{C: 1, Select: Shrink}, {C: 1, Select: ACFShrink}, {C: 1, Select: Cyclic},
		{C: -1}, {C: math.Inf(1)}, {C: 1, Eps: -1}, {C: 1, Bias: math.NaN()}, {C: 1, MaxEpochs: -1},
		{C: 1, Weights: map[float64]float64{1: 0}}, {C: 1, ACF: acf.Config{C: -1}},
	} {
		p.Problem = WestonWatkins
		if _, _, err := Train(context.Background(), d, p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	if _, _, err := Train(context.Background(), &dataio.Dataset{}, Params{Problem: WestonWatkins, C: 1}); err == nil {
		t.Error("empty dataset: no error")
	}
	// one class: nothing to optimise, the model predicts that class
	one := genData(genSpec{seed: 1, rows: 30, feats: 5, density: 0.5, labels: []float64{7}})
	m, res, _ := wwTrain(t, one, Params{C: 1, Bias: 1})
	if !res.Converged || m.NrW != 1 || res.Objective != 0 || m.Predict([]int32{0}, []float64{1}) != 7 {
		t.Fatalf("one class: %+v", res)
	}
	if err := m.Save(filepath.Join(t.TempDir(), "one.model")); err != nil {
		t.Fatal(err)
	}
	// float32 storage gives the same solution as float64 of the rounded values
	d64 := wwProblems()[1].d
	d32, dr := float32Copies(d64)
	p := Params{C: 2, Eps: 1e-8, Bias: 1, Select: ACF, Seed: 4, MaxEpochs: 100000}
	m32, r32, du := wwTrain(t, d32, p)
	mr, rr, _ := wwTrain(t, dr, p)
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

// TestWWPredictSaveLoad: on linearly separable multi-class data the argmax
// model classifies well, also out of sample, and survives Save/LoadModel.
func TestWWPredictSaveLoad(t *testing.T) {
	all := genData(genSpec{seed: 41, rows: 3000, feats: 20, density: 0.6, labels: []float64{10, 20, 30, 40, 50}})
	train, test := wwSplit(all, 0.8, 1)
	for _, sel := range wwSelections {
		m, res, _ := wwTrain(t, train, Params{C: 1, Eps: 0.01, Bias: 1, Select: sel, Seed: 2})
		if !res.Converged {
			t.Fatalf("%s: %+v", sel, res)
		}
		trAcc, teAcc := wwAccuracy(m, train), wwAccuracy(m, test)
		t.Logf("%s: train accuracy %.4f, test %.4f (%d iterations)", sel, trAcc, teAcc, res.Iterations)
		if trAcc < 0.97 || teAcc < 0.9 {
			t.Errorf("%s: accuracy train %.4f, test %.4f", sel, trAcc, teAcc)
		}
		path := filepath.Join(t.TempDir(), "ww.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		m2, err := LoadModel(path)
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

func wwAccuracy(m *Model, d *dataio.Dataset) float64 {
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
func wwSplit(d *dataio.Dataset, frac float64, seed uint64) (train, test *dataio.Dataset) {
	perm := rand.New(rand.NewPCG(seed, 5)).Perm(d.Rows)
	k := int(frac * float64(d.Rows))
	return d.Subset(perm[:k]), d.Subset(perm[k:])
}
