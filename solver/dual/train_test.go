package dual

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
)

// namedProblem is a dataset with the settings the training tests use on it.
type namedProblem struct {
	name    string
	d       *dataio.Dataset
	bias    float64
	weights map[float64]float64
	c       float64
}

func testProblems() []namedProblem {
	return []namedProblem{
		{"noisy-binary", synth.Classes(synth.ClassesConfig{Seed: 1, Rows: 300, Feats: 40, Density: 0.2, Labels: []float64{-1, 1}, Noise: 0.15}), -1, nil, 1},
		{"separable-binary-bias", synth.Classes(synth.ClassesConfig{Seed: 2, Rows: 250, Feats: 30, Density: 0.3, Labels: []float64{1, -1}}), 1, nil, 10},
		{"weighted-labels-2-5", synth.Classes(synth.ClassesConfig{Seed: 3, Rows: 200, Feats: 25, Density: 0.25, Labels: []float64{2, 5}, Noise: 0.05, Empty: 3}), 0.5, map[float64]float64{5: 3, 2: 0.5}, 2},
		{"four-class", synth.Classes(synth.ClassesConfig{Seed: 4, Rows: 400, Feats: 50, Density: 0.15, Labels: []float64{3, 1, 4, 2}, Noise: 0.1}), 1, map[float64]float64{4: 2}, 1},
	}
}

// TestSolutions checks every classifier Kind × selection on every problem
// against an independent recomputation: w = Σ α_i y_i x_i, the largest KKT
// violation ≤ eps at the returned model, the reported objective and gap.
func TestSolutions(t *testing.T) {
	for _, pr := range testProblems() {
		for _, k := range classifierKinds {
			for _, sel := range dualSelections {
				t.Run(fmt.Sprintf("%s/s=%s/%s", pr.name, flag(k), sel), func(t *testing.T) {
					const eps = 1e-3
					s := Spec{Spec: fit.Spec{C: pr.c, Eps: eps, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 7, MaxEpochs: 100000}, Kind: k}
					m, res, duals := mustTrain(t, pr.d, s)
					if !res.Converged || res.HitEpochCap || m.Partial {
						t.Fatalf("not converged: %+v", res)
					}
					if len(duals) != m.NrW {
						t.Fatalf("%d subproblems reported, model has %d", len(duals), m.NrW)
					}
					var dualSum float64
					for c := 0; c < m.NrW; c++ {
						ind := evalIndependent(pr.d, m, c, duals[c], k)
						if ind.wDiff > 1e-10 {
							t.Errorf("class %d: w differs from Σ α y x by %g", c, ind.wDiff)
						}
						if ind.violation > eps*(1+1e-9)+1e-12 {
							t.Errorf("class %d: independent max violation %g > eps %g", c, ind.violation, eps)
						}
						r := res
						if m.NrW > 1 {
							r = &res.Classes[c]
						}
						if testkit.RelDiff(ind.dual, r.Objective) > 1e-9 {
							t.Errorf("class %d: objective %v, independent %v", c, r.Objective, ind.dual)
						}
						if testkit.RelDiff(ind.primal, r.Primal) > 1e-9 {
							t.Errorf("class %d: primal %v, independent %v", c, r.Primal, ind.primal)
						}
						if math.Abs(r.Violation-ind.violation) > 1e-9*(1+ind.violation) {
							t.Errorf("class %d: reported violation %g, independent %g", c, r.Violation, ind.violation)
						}
						if r.Gap < -1e-9*math.Abs(r.Primal) {
							t.Errorf("class %d: negative duality gap %g", c, r.Gap)
						}
						dualSum += ind.dual
					}
					if testkit.RelDiff(dualSum, res.Objective) > 1e-9 {
						t.Errorf("total objective %v, independent %v", res.Objective, dualSum)
					}
				})
			}
		}
	}
}

// TestSelectionsAgree: at a tight eps every selection reaches the same
// dual objective, and the duality gap is small.
func TestSelectionsAgree(t *testing.T) {
	for _, pr := range testProblems() {
		for _, k := range classifierKinds {
			t.Run(fmt.Sprintf("%s/s=%s", pr.name, flag(k)), func(t *testing.T) {
				const eps = 1e-6
				var objs []float64
				for _, sel := range dualSelections {
					s := Spec{Spec: fit.Spec{C: pr.c, Eps: eps, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 3, MaxEpochs: 100000}, Kind: k}
					_, res, _ := mustTrain(t, pr.d, s)
					if !res.Converged {
						t.Fatalf("%s: not converged: violation %g after %d epochs", sel, res.Violation, res.Epochs)
					}
					if res.Gap > 1e-4*math.Max(1, math.Abs(res.Primal)) {
						t.Errorf("%s: duality gap %g (primal %g, dual %g)", sel, res.Gap, res.Primal, res.Objective)
					}
					objs = append(objs, res.Objective)
					t.Logf("%-10s objective %.12g primal %.12g gap %.3g (rel %.2g) violation %.2g steps %d", sel, res.Objective, res.Primal, res.Gap, res.Gap/math.Abs(res.Primal), res.Violation, res.Iterations)
				}
				for j := 1; j < len(objs); j++ {
					if testkit.RelDiff(objs[j], objs[0]) > 1e-7 {
						t.Errorf("%s objective %.12g vs %s %.12g", dualSelections[j], objs[j], dualSelections[0], objs[0])
					}
				}
			})
		}
	}
}

// TestDeterminism: the same seed gives a bit-identical model and run (four
// classes: the one-vs-rest classes train in parallel), another seed
// another model (dual CD first: the up-front Newton start, which these few
// features get, uses no seed).
func TestDeterminism(t *testing.T) {
	pr := testProblems()[3]
	ctx := dualFirstCtx()
	for _, k := range classifierKinds {
		for _, sel := range dualSelections {
			s := Spec{Spec: fit.Spec{C: 4, Eps: 1e-4, Bias: 1, Select: sel, Seed: 99}, Kind: k}
			m1, r1, err1 := train(ctx, pr.d, s)
			m2, r2, err2 := train(ctx, pr.d, s)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for j := range m1.W {
				if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
					t.Fatalf("s=%s %s: W[%d] differs: %v vs %v", flag(k), sel, j, m1.W[j], m2.W[j])
				}
			}
			if r1.Iterations != r2.Iterations || r1.Objective != r2.Objective {
				t.Fatalf("s=%s %s: runs differ: %d/%v vs %d/%v", flag(k), sel, r1.Iterations, r1.Objective, r2.Iterations, r2.Objective)
			}
			s.Seed = 100
			m3, _, err := train(ctx, pr.d, s)
			if err != nil {
				t.Fatal(err)
			}
			same := true
			for j := range m1.W {
				same = same && m1.W[j] == m3.W[j]
			}
			if same {
				t.Errorf("s=%s %s: another seed gave a bit-identical model", flag(k), sel)
			}
		}
	}
}

func TestSingleClass(t *testing.T) {
	// liblinear 2.3.0 trains one subproblem with every example positive.
	d := synth.Classes(synth.ClassesConfig{Seed: 6, Rows: 30, Feats: 5, Density: 0.6, Labels: []float64{4}})
	for _, k := range classifierKinds {
		m, res, duals := mustTrain(t, d, Spec{Spec: fit.Spec{C: 1, Eps: 1e-4, Bias: 1, Seed: 1}, Kind: k})
		if m.NrW != 1 || len(m.Labels) != 1 || m.Labels[0] != 4 || !res.Converged {
			t.Fatalf("s=%s: NrW %d labels %v converged %v", flag(k), m.NrW, m.Labels, res.Converged)
		}
		for _, y := range duals[0].y {
			if y != 1 {
				t.Fatalf("s=%s: a negative example in a one-class problem", flag(k))
			}
		}
	}
}

// TestEpochCap: a dual that hits the epoch cap says so (dual CD first: on
// these 60 features -s 1 and 7 would otherwise start with Newton).
func TestEpochCap(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 8, Rows: 500, Feats: 60, Density: 0.2, Labels: []float64{1, -1}, Noise: 0.2})
	for _, k := range classifierKinds {
		for _, sel := range dualSelections {
			m, res, _ := mustTrainCtx(t, dualFirstCtx(), d, Spec{Spec: fit.Spec{C: 100, Eps: 1e-9, Select: sel, MaxEpochs: 3, Seed: 1}, Kind: k})
			if !res.HitEpochCap || res.Converged || !m.Partial || res.Cancelled {
				t.Errorf("s=%s %s: cap not reported: %+v", flag(k), sel, res)
			}
			if res.Epochs > 4 || res.Violation <= 1e-9 {
				t.Errorf("s=%s %s: epochs %d violation %g", flag(k), sel, res.Epochs, res.Violation)
			}
		}
	}
}

// TestCancel: a run cancelled from its progress callback stops soon and
// returns its partial model and its result, marked cancelled, without an
// error; so does a run cancelled before it starts.
func TestCancel(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 9, Rows: 2000, Feats: 80, Density: 0.2, Labels: []float64{1, 2, 3}, Noise: 0.2})
	for _, sel := range dualSelections {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		s := Spec{Spec: fit.Spec{C: 1000, Eps: 1e-12, Select: sel, Seed: 1, Progress: func(pr fit.Progress) {
			calls++
			if pr.Epoch >= 2 {
				cancel()
			}
		}}, Kind: L1LossSVC}
		m, res, err := train(ctx, d, s)
		cancel()
		if err != nil || m == nil || res == nil {
			t.Fatalf("%s: model %v, result %v, error %v; want a model, a result and no error", sel, m != nil, res != nil, err)
		}
		if !res.Cancelled || !m.Partial || res.Converged {
			t.Errorf("%s: cancellation not reported: %+v", sel, res)
		}
		// A cancelled run skips the full KKT pass (seconds at kdd scale):
		// the primal and gap are unknown, the violation is the last sweep's.
		if !math.IsNaN(res.Primal) || !math.IsNaN(res.Gap) || !(res.Violation > 1e-12) {
			t.Errorf("%s: cancelled run reports primal %v gap %v violation %v", sel, res.Primal, res.Gap, res.Violation)
		}
		if res.Epochs > 3*20 || calls == 0 {
			t.Errorf("%s: %d epochs, %d progress calls", sel, res.Epochs, calls)
		}
		// Cancelled before starting: still a model.
		ctx, cancel = context.WithCancel(context.Background())
		cancel()
		m, res, err = train(ctx, d, Spec{Spec: fit.Spec{C: 1, Select: sel}, Kind: LR})
		if err != nil || m == nil || !res.Cancelled || !m.Partial {
			t.Errorf("%s: pre-cancelled: %v %+v", sel, err, res)
		}
	}
}

func TestProgress(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 10, Rows: 300, Feats: 30, Density: 0.3, Labels: []float64{1, -1}, Noise: 0.1})
	for _, sel := range dualSelections {
		var last fit.Progress
		n := 0
		// Pure dual CD: the -s 3 finisher would end the run without a
		// further progress report.
		_, res, _ := mustTrain(t, d, Spec{Spec: fit.Spec{C: 10, Eps: 1e-4, Select: sel, Seed: 2, NoFallback: true, Progress: func(p fit.Progress) {
			n++
			last = p
		}}, Kind: L1LossSVC})
		if n == 0 || n > res.Epochs+1 {
			t.Errorf("%s: %d progress calls for %d epochs", sel, n, res.Epochs)
		}
		// The tracked objective (f minus the exact gains) matches the final one.
		if testkit.RelDiff(last.Objective, res.Objective) > 1e-3 {
			t.Errorf("%s: last progress objective %v, final %v", sel, last.Objective, res.Objective)
		}
	}
}

// TestTrackedObjectiveFinite: at large C the logistic dual's steps reach
// the ends of (0, C); the objective tracked from the exact gains (which ACF
// learns from and progress prints) stays finite and equal to the one
// recomputed from α.
func TestTrackedObjectiveFinite(t *testing.T) {
	d := synth.LowDim()
	for _, sel := range dualSelections {
		var last fit.Progress
		s := Spec{Spec: fit.Spec{C: 1000, Eps: 1e-3, Bias: 1, Select: sel, Seed: 5, MaxEpochs: 20, NoFallback: true,
			Progress: func(pr fit.Progress) {
				if math.IsNaN(pr.Objective) || math.IsInf(pr.Objective, 0) {
					t.Fatalf("%s: epoch %d: objective %v", sel, pr.Epoch, pr.Objective)
				}
				last = pr
			}}, Kind: LR}
		_, res, _ := mustTrain(t, d, s)
		if testkit.RelDiff(last.Objective, res.Objective) > 1e-6 {
			t.Errorf("%s: tracked objective %v, recomputed %v", sel, last.Objective, res.Objective)
		}
	}
}

// TestFloat32 trains on float32 storage (kernel.Dot32/Axpy32) and compares
// with float64 storage holding the same (float32-rounded) values.
func TestFloat32(t *testing.T) {
	for _, pr := range testProblems() {
		d32, d64 := synth.Float32Copies(pr.d)
		for _, k := range classifierKinds {
			for _, sel := range []solver.Selection{solver.ACF, solver.ACFShrink} {
				s := Spec{Spec: fit.Spec{C: pr.c, Eps: 1e-4, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 5, MaxEpochs: 100000}, Kind: k}
				_, r64, _ := mustTrain(t, d64, s)
				m32, r32, duals := mustTrain(t, d32, s)
				if !r32.Converged || testkit.RelDiff(r32.Objective, r64.Objective) > 1e-6 {
					t.Errorf("%s s=%s %s: float32 objective %v (converged %v), float64 %v", pr.name, flag(k), sel, r32.Objective, r32.Converged, r64.Objective)
				}
				for c := 0; c < m32.NrW; c++ {
					if ind := evalIndependent(d64, m32, c, duals[c], k); ind.wDiff > 1e-6 || ind.violation > 1e-4*(1+1e-6) {
						t.Errorf("%s s=%s %s class %d: w mismatch %g, violation %g", pr.name, flag(k), sel, c, ind.wDiff, ind.violation)
					}
				}
			}
		}
	}
}

// dualFirstCtx returns a context whose trainings of -s 1 and 7 start with
// dual CD whatever the data's shape (the up-front Newton start off; the
// switch rule as by default).
func dualFirstCtx() context.Context {
	fin := finish.DefaultTuning()
	fin.PrimalFirstStep = 0
	return tune.With(context.Background(), &fin)
}
