package multiclass

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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

var csSelections = []solver.Selection{solver.ACF, solver.Uniform, solver.ACFShrink, solver.Shrink}

// csEval is an independent evaluation with plain loops: W from α, the
// feasibility of α, the KKT violation, f, P and the support vectors.
type csEval struct {
	wDiff      float64 // max |W_model − W(α)| / (1 + max |W|)
	infeasible string
	violation  float64
	dual       float64
	primal     float64
	sv         int
}

func csEvaluate(d *dataio.Dataset, m *model.Model, du duals) csEval {
	K := m.NrW
	rows := d.Features
	if m.Bias >= 0 {
		rows++
	}
	ref := csRefW(d, du.alpha, K, m.Bias)
	var out csEval
	if len(m.W) != rows*K {
		out.wDiff = math.Inf(1)
		return out
	}
	var wmax, ww float64
	for j, v := range ref[:rows*K] {
		out.wDiff = max(out.wDiff, math.Abs(m.W[j]-v))
		wmax = max(wmax, math.Abs(m.W[j]))
		ww += m.W[j] * m.W[j]
	}
	out.wDiff /= 1 + wmax
	var ay, loss float64
	for i := 0; i < d.Rows; i++ {
		dec := refDec(d, m.W, K, m.Bias, i)
		y := int(du.class[i])
		C := du.ub[y]
		maxG, minG, sum := math.Inf(-1), math.Inf(1), 0.0
		nz := false
		for c := 0; c < K; c++ {
			a := du.alpha[i*K+c]
			u, G := 0.0, dec[c]+1
			if c == y {
				u, G = C, dec[c]
			}
			if a > u || a < u-C*(1+1e-12*float64(K)) {
				out.infeasible = fmt.Sprintf("α_%d^%d = %g outside [%g, %g]", i, c, a, u-C, u)
			}
			sum += a
			nz = nz || a != 0
			maxG = max(maxG, G)
			if a < u {
				minG = min(minG, G)
			}
		}
		if math.Abs(sum) > 1e-12*C*float64(K) {
			out.infeasible = fmt.Sprintf("Σ_m α_%d^m = %g", i, sum)
		}
		if nz {
			out.sv++
		}
		ay += du.alpha[i*K+y]
		out.violation = max(out.violation, maxG-minG)
		loss += C * (maxG - dec[y])
	}
	out.dual = 0.5*ww - ay
	out.primal = 0.5*ww + loss
	return out
}

// csTextProblem is synth's text-like data (heavy-tailed rows, unit norm)
// with six classes: the argmax of six random linear scores of a row, its
// label of ±1 flipping the first two (synth's label noise).
func csTextProblem() trainCase {
	d := synth.Text(synth.TextConfig{Rows: 700, Features: 500, MeanNNZ: 12, Informative: 100, Noise: 0.05, Seed: 17})
	r := rand.New(rand.NewPCG(17, 6))
	score := make([]float64, 6*d.Features)
	for j := range score {
		score[j] = r.NormFloat64()
	}
	for i := range d.Rows {
		best, bestV := 0, math.Inf(-1)
		for c := range 6 {
			var v float64
			for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
				v += d.Value[k] * score[c*d.Features+int(d.Index[k])]
			}
			if v > bestV {
				best, bestV = c, v
			}
		}
		if best < 2 && d.Label[i] < 0 {
			best = 1 - best
		}
		d.Label[i] = float64(best + 1)
	}
	return trainCase{"text-six-class", d, 1, 5, nil}
}

// TestTrainCSSolutions checks every selection on every problem against an
// independent recomputation: α feasible, W = W(α), max violation ≤ eps at
// the model, the reported objective, primal, gap and support vectors.
func TestTrainCSSolutions(t *testing.T) {
	for _, pr := range append(trainCases(), csTextProblem()) {
		for _, sel := range csSelections {
			t.Run(pr.name+"/"+sel.String(), func(t *testing.T) {
				const eps = 1e-3
				s := Spec{Spec: fit.Spec{C: pr.c, Eps: eps, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 3}, Crammer: true}
				m, res, du := trainDuals(t, pr.d, s)
				if !res.Converged || res.HitEpochCap || res.Cancelled || m.Partial {
					t.Fatalf("not converged: %+v", res)
				}
				if m.NrW != len(m.Labels) || res.Select != sel.String() {
					t.Fatalf("model NrW %d labels %v, result %s", m.NrW, m.Labels, res.Select)
				}
				ev := csEvaluate(pr.d, m, du)
				if ev.infeasible != "" {
					t.Fatal(ev.infeasible)
				}
				if ev.wDiff > 1e-10 {
					t.Errorf("W differs from W(α) by %g", ev.wDiff)
				}
				if cert := eps * DefaultTuning().CSCertify; ev.violation > cert*(1+1e-9)+1e-12 {
					t.Errorf("independent max violation %g > %g (eps %g)", ev.violation, cert, eps)
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
				if ev.sv != res.SupportVectors || res.SupportVectors == 0 {
					t.Errorf("support vectors %d, independent %d", res.SupportVectors, ev.sv)
				}
				if pr.weights != nil && len(res.Warnings) != 1 {
					t.Errorf("warnings %q, want one for label 42", res.Warnings)
				}
				if res.NNZW != m.NNZ() || res.Iterations < int64(pr.d.Rows) || res.Operations <= 0 || res.Epochs < 1 {
					t.Errorf("accounting: %+v", res)
				}
				t.Logf("iters %d epochs %d ops %d obj %.10g gap %.3g viol %.3g", res.Iterations, res.Epochs, res.Operations, res.Objective, res.Gap, res.Violation)
			})
		}
	}
}

// TestTrainCSTwoClasses: with K = 2, α_i^{y_i} = a_i = −α_i^{other},
// w_1 = −w_0 (to rounding), and u = 2w_0 is the binary hinge-loss SVM
// (-s 3, package dual) with cost 2C and duals β_i = 2a_i: the CS primal
// ¼‖u‖² + C Σ max(0, 1 − y_i uᵀx_i) is half the binary one, and so is the
// dual objective. The binary duals β are those of package dcd's -s 3
// problem (hingeDuals), whose run is package dual's to the bit.
func TestTrainCSTwoClasses(t *testing.T) {
	for _, bias := range []float64{-1, 1} {
		for _, sel := range []solver.Selection{solver.ACF, solver.Shrink} {
			d := synth.Classes(synth.ClassesConfig{Seed: 21, Rows: 300, Feats: 30, Density: 0.2, Labels: []float64{-1, 1}, Noise: 0.1})
			const C, eps = 0.7, 1e-9
			m, res, du := trainDuals(t, d, Spec{Spec: fit.Spec{C: C, Eps: eps, Bias: bias, Select: sel, Seed: 1}, Crammer: true})
			bin := resolved(Spec{Spec: fit.Spec{C: 2 * C, Eps: eps, Bias: bias, Select: solver.Uniform, Seed: 1, MaxEpochs: 1000000, NoFallback: true}}).Spec
			mb, resb, err := dual.Train(context.Background(), d, dual.Spec{Spec: bin, Kind: dual.L1LossSVC})
			if err != nil {
				t.Fatal(err)
			}
			beta, wb := hingeDuals(t, d, bin)
			if !testkit.SameBits(wb[:len(mb.W)], mb.W) {
				t.Fatalf("bias %g %s: the -s 3 run of the binary duals is not package dual's", bias, sel)
			}
			if !res.Converged || !resb.Converged {
				t.Fatalf("not converged: %+v %+v", res, resb)
			}
			if m.NrW != 2 || mb.NrW != 1 || !slices.Equal(m.Labels, mb.Labels) {
				t.Fatalf("layout: %v/%d vs %v/%d", m.Labels, m.NrW, mb.Labels, mb.NrW)
			}
			for j := range mb.W {
				w0, w1 := m.W[2*j], m.W[2*j+1]
				if math.Abs(w1+w0) > 1e-12*(1+math.Abs(w0)) {
					t.Fatalf("bias %g %s: w_1[%d] = %v, −w_0 = %v", bias, sel, j, w1, -w0)
				}
				if math.Abs(2*w0-mb.W[j]) > 1e-6*(1+math.Abs(mb.W[j])) {
					t.Errorf("bias %g %s: 2w_0[%d] = %v, binary w = %v", bias, sel, j, 2*w0, mb.W[j])
				}
			}
			for i := 0; i < d.Rows; i++ {
				a := du.alpha[2*i+int(du.class[i])]
				if math.Abs(2*a-beta[i]) > 1e-5*C {
					t.Errorf("bias %g %s: 2α_%d = %v, binary β = %v", bias, sel, i, 2*a, beta[i])
					break
				}
			}
			if testkit.RelDiff(2*res.Objective, resb.Objective) > 1e-9 || testkit.RelDiff(2*res.Primal, resb.Primal) > 1e-9 {
				t.Errorf("bias %g %s: 2·f_CS %.12g vs binary %.12g; 2·P_CS %.12g vs %.12g", bias, sel,
					2*res.Objective, resb.Objective, 2*res.Primal, resb.Primal)
			}
		}
	}
}

// TestTrainCSWeights: -wi multiplies the C of a class. Weighting every
// class by w is C·w exactly (the same run to the bit); weighting one class
// moves the solution, whose KKT conditions hold with the weighted C.
func TestTrainCSWeights(t *testing.T) {
	d := trainCases()[0].d
	ctx := context.Background()
	m1, r1 := mustTrain(t, ctx, d, Spec{Spec: fit.Spec{C: 0.5, Weights: map[float64]float64{1: 4, 2: 4, 3: 4}, Seed: 2}, Crammer: true})
	m2, r2 := mustTrain(t, ctx, d, Spec{Spec: fit.Spec{C: 2, Seed: 2}, Crammer: true})
	if !testkit.SameBits(m1.W, m2.W) || r1.Iterations != r2.Iterations || r1.Objective != r2.Objective {
		t.Fatalf("weights 4 × C 0.5: %+v; C 2: %+v", r1, r2)
	}
	s := Spec{Spec: fit.Spec{C: 2, Eps: 1e-4, Weights: map[float64]float64{2: 0.1}, Seed: 2}, Crammer: true}
	m3, r3, du := trainDuals(t, d, s)
	ev := csEvaluate(d, m3, du)
	if ev.infeasible != "" || ev.violation > 1e-4*(1+1e-9) || testkit.RelDiff(ev.dual, r3.Objective) > 1e-9 {
		t.Fatalf("weighted: %+v, result %+v", ev, r3)
	}
	two := int32(slices.Index(m3.Labels, 2))
	if du.ub[two] != 0.2 || testkit.RelDiff(r3.Objective, r2.Objective) < 1e-3 {
		t.Fatalf("class 2 C %g; objective %g, unweighted %g", du.ub[two], r3.Objective, r2.Objective)
	}
	for i, c := range du.class {
		if a := du.alpha[i*3+int(two)]; c == two && a > 0.2 {
			t.Fatalf("example %d of class 2: α_y %g above its C 0.2", i, a)
		}
	}
}

// TestTrainCSDeterminism: the same seed gives a bit-identical model and
// result.
func TestTrainCSDeterminism(t *testing.T) {
	d := trainCases()[0].d
	ctx := context.Background()
	for _, sel := range csSelections {
		s := Spec{Spec: fit.Spec{C: 1, Eps: 1e-3, Bias: 1, Select: sel, Seed: 99}, Crammer: true}
		m1, r1 := mustTrain(t, ctx, d, s)
		m2, r2 := mustTrain(t, ctx, d, s)
		if !testkit.SameBits(m1.W, m2.W) || r1.Iterations != r2.Iterations || r1.Operations != r2.Operations ||
			math.Float64bits(r1.Objective) != math.Float64bits(r2.Objective) {
			t.Fatalf("%s: results differ: %+v vs %+v", sel, r1, r2)
		}
		s.Seed = 100
		_, r3 := mustTrain(t, ctx, d, s)
		if r3.Iterations == r1.Iterations && r3.Objective == r1.Objective {
			t.Errorf("%s: another seed gave the same run", sel)
		}
	}
}

// TestTrainCSCancelCapProgress: cancellation during training returns a
// partial model with Result.Cancelled set, and no error (acfcd.Train
// turns it into one that wraps ctx.Err()); the epoch cap stops a run
// after exactly MaxEpochs·n block steps (ACF, Uniform) with Progress once
// per epoch and a decreasing objective.
func TestTrainCSCancelCapProgress(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 31, Rows: 8000, Feats: 200, Density: 0.05, Labels: []float64{1, 2, 3, 4}, Noise: 0.3})
	for _, sel := range csSelections {
		ctx, cancel := context.WithCancel(context.Background())
		var calls atomic.Int32
		s := Spec{Spec: fit.Spec{C: 100, Eps: 1e-9, Select: sel, Progress: func(fit.Progress) {
			if calls.Add(1) == 2 {
				cancel()
			}
		}}, Crammer: true}
		m, res := mustTrain(t, ctx, d, s)
		cancel()
		if !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap {
			t.Fatalf("%s: cancelled: res %+v", sel, res)
		}
		if res.Epochs > 3 || !math.IsNaN(res.Primal) || !math.IsNaN(res.Gap) || len(m.W) != d.Features*4 {
			t.Errorf("%s: cancelled at epoch 2: %+v", sel, res)
		}
	}
	small := trainCases()[0].d
	for _, sel := range []solver.Selection{solver.ACF, solver.Uniform} {
		var epochs []int
		var objs []float64
		s := Spec{Spec: fit.Spec{C: 1000, Eps: 1e-12, Select: sel, MaxEpochs: 3, Progress: func(pr fit.Progress) {
			epochs = append(epochs, pr.Epoch)
			objs = append(objs, pr.Objective)
		}}, Crammer: true}
		m, res := mustTrain(t, context.Background(), small, s)
		if !res.HitEpochCap || res.Converged || !m.Partial || res.Epochs != 3 || res.Iterations != int64(3*small.Rows) {
			t.Fatalf("%s: %+v", sel, res)
		}
		if !slices.Equal(epochs, []int{1, 2, 3}) || objs[1] > objs[0] || objs[2] > objs[1] {
			t.Fatalf("%s: progress epochs %v objectives %v", sel, epochs, objs)
		}
	}
}

// TestTrainCSEdges: an empty dataset is an error, one class, empty rows,
// float32 storage.
func TestTrainCSEdges(t *testing.T) {
	ctx := context.Background()
	if _, _, err := Train(ctx, &dataio.Dataset{}, resolved(Spec{Crammer: true})); err == nil {
		t.Error("empty dataset: no error")
	}
	// one class: nothing to optimise, the model predicts that class
	one := synth.Classes(synth.ClassesConfig{Seed: 1, Rows: 30, Feats: 5, Density: 0.5, Labels: []float64{7}})
	for _, sel := range csSelections {
		m, res := mustTrain(t, ctx, one, Spec{Spec: fit.Spec{C: 1, Bias: 1, Select: sel}, Crammer: true})
		if !res.Converged || m.NrW != 1 || res.Objective != 0 || res.SupportVectors != 0 || m.Predict([]int32{0}, []float64{1}) != 7 {
			t.Fatalf("one class %s: %+v", sel, res)
		}
	}
	// float32 storage gives the solution of float64 of the rounded values
	d32, dr := synth.Float32Copies(trainCases()[1].d)
	s := Spec{Spec: fit.Spec{C: 2, Eps: 1e-6, Bias: 1, Seed: 4}, Crammer: true}
	m32, r32, du := trainDuals(t, d32, s)
	_, rr := mustTrain(t, ctx, dr, s)
	if !r32.Converged || testkit.RelDiff(r32.Objective, rr.Objective) > 1e-9 {
		t.Fatalf("float32 objective %v, float64 %v", r32.Objective, rr.Objective)
	}
	if ev := csEvaluate(d32, m32, du); ev.wDiff > 1e-10 || ev.violation > 1e-6*(1+1e-9) || ev.infeasible != "" {
		t.Fatalf("float32: %+v", ev)
	}
}

// liblinearCS returns liblinear-train (2.3.0, Debian) and
// liblinear-predict, skipping the test when they are not installed.
func liblinearCS(t *testing.T) (trainer, predict string) {
	t.Helper()
	return testkit.NeedTool(t, "liblinear-train"), testkit.NeedTool(t, "liblinear-predict")
}

// runLiblinearCS trains the data file data with liblinear-train -s 4
// (the program trainer) under s's C, eps, bias and -wi weights, and
// returns the printed objective values, the model's label line and
// weights, and whether liblinear stopped at its iteration cap.
func runLiblinearCS(t *testing.T, trainer, data string, s fit.Spec) (objs []float64, labels []float64, w []float64, capped bool) {
	t.Helper()
	r := testkit.RunLiblinear(t, trainer, data, testkit.LiblinearArgs("4", s.C, s.Eps, s.Bias, s.Weights)...)
	return r.Objectives, r.Labels, r.W, r.Capped
}

// TestTrainCSAgainstLiblinear compares with liblinear-train -s 4: the
// label order, the printed objective (liblinear at eps 1e-4, ours at
// 1e-6) and the weights.
func TestTrainCSAgainstLiblinear(t *testing.T) {
	trainer, _ := liblinearCS(t)
	for _, pr := range trainCases() {
		t.Run(pr.name, func(t *testing.T) {
			data := filepath.Join(t.TempDir(), "data")
			testkit.WriteLibSVM(t, pr.d.Label, pr.d.Row, data)
			s := resolved(Spec{Spec: fit.Spec{C: pr.c, Eps: 1e-4, Bias: pr.bias, Weights: pr.weights}, Crammer: true})
			objs, labels, lw, capped := runLiblinearCS(t, trainer, data, s.Spec)
			if capped || len(objs) != 1 {
				t.Fatalf("liblinear: objectives %v, capped %v", objs, capped)
			}
			s.Eps = 1e-6
			m, res := mustTrain(t, context.Background(), pr.d, s)
			if !slices.Equal(labels, m.Labels) {
				t.Fatalf("labels: liblinear %v, ours %v", labels, m.Labels)
			}
			// liblinear never steps on an example with x_i = 0 (no bias),
			// whose optimum is α_i^{y_i} = C_i, −C_i on another class: each
			// such example is C_i lower in ours.
			want := objs[0]
			for i := range pr.d.Rows {
				if pr.d.RowPtr[i] == pr.d.RowPtr[i+1] && pr.bias < 0 {
					want -= csClassC(s.Spec, pr.d.Label[i])
				}
			}
			if d := math.Abs(want - res.Objective); d > 1e-6*math.Abs(want)+5e-7 {
				t.Errorf("liblinear objective %.6f (%.6f for the empty rows at their optimum), ours %.9f", objs[0], want, res.Objective)
			}
			if len(lw) != len(m.W) {
				t.Fatalf("liblinear has %d weights, we have %d", len(lw), len(m.W))
			}
			var wmax, dmax float64
			for j := range lw {
				wmax = max(wmax, math.Abs(lw[j]))
				dmax = max(dmax, math.Abs(lw[j]-m.W[j]))
			}
			if dmax > 1e-3*(1+wmax) {
				t.Errorf("weights differ by %g (max |w| %g)", dmax, wmax)
			}
		})
	}
}

// TestTrainCSModelFile: the model file of 2 and 3 classes (solver type
// MCSVM_CS), byte for byte: liblinear's header (2 classes keep two weight
// vectors, the labels in liblinear's order) and one row per feature (and
// the bias) of K weights in %.17g, each followed by a space.
// liblinear-predict reads it and predicts as Predict; model.LoadModel
// reads liblinear's own -s 4 model, which has the same header and shape,
// and predicts as liblinear-predict.
func TestTrainCSModelFile(t *testing.T) {
	for _, tc := range []struct {
		labels []float64
		header string
		bias   float64
	}{
		{[]float64{-1, 1}, "solver_type MCSVM_CS\nnr_class 2\nlabel 1 -1\nnr_feature 6\nbias 1\nw\n", 1},
		{[]float64{3, 1, 2}, "solver_type MCSVM_CS\nnr_class 3\nlabel 3 1 2\nnr_feature 6\nbias -1\nw\n", -1},
	} {
		d := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 60, Feats: 6, Density: 0.6, Labels: tc.labels, Noise: 0.1})
		// A row of each label in tc's order first: the order of first
		// appearance is liblinear's class order (but for -1 before +1).
		var order []int
		for _, l := range tc.labels {
			order = append(order, slices.Index(d.Label, l))
		}
		for i := range d.Rows {
			if !slices.Contains(order, i) {
				order = append(order, i)
			}
		}
		d = d.Subset(order)
		m, _ := mustTrain(t, context.Background(), d, Spec{Spec: fit.Spec{C: 1, Bias: tc.bias}, Crammer: true})
		m.SolverType = "MCSVM_CS"
		var want strings.Builder
		want.WriteString(tc.header)
		for j := 0; j < len(m.W)/m.NrW; j++ {
			for c := 0; c < m.NrW; c++ {
				want.WriteString(strconv.FormatFloat(m.W[j*m.NrW+c], 'g', 17, 64) + " ")
			}
			want.WriteString("\n")
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "cs.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want.String() {
			t.Fatalf("model file:\n%s\nwant:\n%s", got, want.String())
		}
		if lines := strings.Count(string(got), "\n"); lines != 6+6+max(0, int(tc.bias)) {
			t.Fatalf("%d lines", lines)
		}

		if _, ok := testkit.Runs("liblinear-predict"); !ok {
			continue
		}
		trainer, predict := liblinearCS(t)
		data := filepath.Join(dir, "data")
		testkit.WriteLibSVM(t, d.Label, d.Row, data)
		out := filepath.Join(dir, "out")
		csRunTool(t, predict, data, path, out)
		for i, label := range csPredictions(t, out) {
			idx, val := d.Row(i)
			if label != m.Predict(idx, val) {
				t.Fatalf("row %d: liblinear-predict %g, Predict %g", i, label, m.Predict(idx, val))
			}
		}
		theirs := filepath.Join(dir, "theirs.model")
		csRunTool(t, trainer, "-s", "4", "-B", strconv.FormatFloat(tc.bias, 'g', -1, 64), "-q", data, theirs)
		tb, err := os.ReadFile(theirs)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(tb), tc.header) || strings.Count(string(tb), "\n") != strings.Count(string(got), "\n") {
			t.Fatalf("liblinear's model:\n%s", tb)
		}
		lm, err := model.LoadModel(theirs)
		if err != nil {
			t.Fatal(err)
		}
		csRunTool(t, predict, data, theirs, out)
		for i, label := range csPredictions(t, out) {
			idx, val := d.Row(i)
			if label != lm.Predict(idx, val) {
				t.Fatalf("row %d: liblinear-predict %g with its model, Predict %g", i, label, lm.Predict(idx, val))
			}
		}
	}
}

// csClassC is the C of label's class under s.
func csClassC(s fit.Spec, label float64) float64 {
	if w, ok := s.Weights[label]; ok {
		return s.C * w
	}
	return s.C
}

func csRunTool(t *testing.T, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}

// csPredictions reads liblinear-predict's output, one label a line.
func csPredictions(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []float64
	for _, line := range strings.Fields(string(b)) {
		v, err := strconv.ParseFloat(line, 64)
		if err != nil {
			t.Fatalf("liblinear-predict output %q: %v", line, err)
		}
		out = append(out, v)
	}
	return out
}

// TestTrainCSDuplicates: text-like data (sparse, separable) with thirty
// rows copied under another label, at C = 10. The push along the
// directions that keep W gives the same solution as the plain block
// steps (NoFallback), certified independently, in less than half the
// steps.
func TestTrainCSDuplicates(t *testing.T) {
	base := synth.Classes(synth.ClassesConfig{Seed: 51, Rows: 600, Feats: 2000, Density: 0.01, Labels: []float64{1, 2, 3, 4}})
	var rows []int
	for i := range base.Rows {
		rows = append(rows, i)
	}
	d := base.Subset(append(rows, rows[:30]...))
	for i := base.Rows; i < d.Rows; i++ {
		d.Label[i] = float64(int(d.Label[i])%4 + 1)
	}
	for _, sel := range []solver.Selection{solver.ACFShrink, solver.Uniform} {
		var iters []int64
		var objs []float64
		for _, noFallback := range []bool{false, true} {
			s := Spec{Spec: fit.Spec{C: 10, Eps: 1e-3, Seed: 3, Select: sel, NoFallback: noFallback}, Crammer: true}
			m, res, du := trainDuals(t, d, s)
			ev := csEvaluate(d, m, du)
			if !res.Converged || ev.infeasible != "" || ev.violation > 1e-3 || testkit.RelDiff(ev.dual, res.Objective) > 1e-9 {
				t.Fatalf("%s NoFallback %v: %+v; independent %+v", sel, noFallback, res, ev)
			}
			iters = append(iters, res.Iterations)
			objs = append(objs, res.Objective)
		}
		t.Logf("%s: steps with the push %d, without %d; objectives %.10g, %.10g", sel, iters[0], iters[1], objs[0], objs[1])
		if testkit.RelDiff(objs[0], objs[1]) > 1e-6 || 2*iters[0] > iters[1] {
			t.Errorf("%s: steps with the push %d, without %d; objectives %.10g, %.10g", sel, iters[0], iters[1], objs[0], objs[1])
		}
	}
}
