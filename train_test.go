package acfcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
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
		{"noisy-binary", genData(genSpec{seed: 1, rows: 300, feats: 40, density: 0.2, labels: []float64{-1, 1}, noise: 0.15}), -1, nil, 1},
		{"separable-binary-bias", genData(genSpec{seed: 2, rows: 250, feats: 30, density: 0.3, labels: []float64{1, -1}}), 1, nil, 10},
		{"weighted-labels-2-5", genData(genSpec{seed: 3, rows: 200, feats: 25, density: 0.25, labels: []float64{2, 5}, noise: 0.05, empty: 3}), 0.5, map[float64]float64{5: 3, 2: 0.5}, 2},
		{"four-class", genData(genSpec{seed: 4, rows: 400, feats: 50, density: 0.15, labels: []float64{3, 1, 4, 2}, noise: 0.1}), 1, map[float64]float64{4: 2}, 1},
	}
}

// TestSolutions checks every dual problem × selection on every problem
// against an independent recomputation: w = Σ α_i y_i x_i, the largest KKT
// violation ≤ eps at the returned model, the reported objective and gap.
func TestSolutions(t *testing.T) {
	for _, pr := range testProblems() {
		for _, s := range dualProblems {
			for _, sel := range dualSelections {
				t.Run(fmt.Sprintf("%s/s=%s/%s", pr.name, s.Flag(), sel), func(t *testing.T) {
					const eps = 1e-3
					p := Params{Problem: s, C: pr.c, Eps: eps, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 7, MaxEpochs: 100000}
					m, res, duals := mustTrain(t, pr.d, p)
					if !res.Converged || res.HitEpochCap || m.Partial {
						t.Fatalf("not converged: %+v", res)
					}
					if len(duals) != m.NrW {
						t.Fatalf("%d subproblems reported, model has %d", len(duals), m.NrW)
					}
					var dualSum float64
					for c := 0; c < m.NrW; c++ {
						ind := evalIndependent(pr.d, m, c, duals[c], s)
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
		for _, s := range dualProblems {
			t.Run(fmt.Sprintf("%s/s=%s", pr.name, s.Flag()), func(t *testing.T) {
				const eps = 1e-6
				var objs []float64
				for _, sel := range dualSelections {
					p := Params{Problem: s, C: pr.c, Eps: eps, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 3, MaxEpochs: 100000}
					_, res, _ := mustTrain(t, pr.d, p)
					if !res.Converged {
						t.Fatalf("%s: not converged: violation %g after %d epochs", sel, res.Violation, res.Epochs)
					}
					if res.Gap > 1e-4*math.Max(1, math.Abs(res.Primal)) {
						t.Errorf("%s: duality gap %g (primal %g, dual %g)", sel, res.Gap, res.Primal, res.Objective)
					}
					objs = append(objs, res.Objective)
					t.Logf("%-10s objective %.12g primal %.12g gap %.3g (rel %.2g) violation %.2g steps %d", sel, res.Objective, res.Primal, res.Gap, res.Gap/math.Abs(res.Primal), res.Violation, res.Iterations)
				}
				for k := 1; k < len(objs); k++ {
					if testkit.RelDiff(objs[k], objs[0]) > 1e-7 {
						t.Errorf("%s objective %.12g vs %s %.12g", dualSelections[k], objs[k], dualSelections[0], objs[0])
					}
				}
			})
		}
	}
}

// TestDeterminism: the same seed gives a bit-identical model and run (four
// classes: the one-vs-rest classes train in parallel), another seed
// another model.
func TestDeterminism(t *testing.T) {
	pr := testProblems()[3]
	for _, s := range dualProblems {
		for _, sel := range dualSelections {
			p := Params{Problem: s, C: 4, Eps: 1e-4, Bias: 1, Select: sel, Seed: 99}
			m1, r1, err1 := Train(context.Background(), pr.d, p)
			m2, r2, err2 := Train(context.Background(), pr.d, p)
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			for j := range m1.W {
				if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
					t.Fatalf("s=%s %s: W[%d] differs: %v vs %v", s.Flag(), sel, j, m1.W[j], m2.W[j])
				}
			}
			if r1.Iterations != r2.Iterations || r1.Objective != r2.Objective {
				t.Fatalf("s=%s %s: runs differ: %d/%v vs %d/%v", s.Flag(), sel, r1.Iterations, r1.Objective, r2.Iterations, r2.Objective)
			}
			p.Seed = 100
			m3, _, err := Train(context.Background(), pr.d, p)
			if err != nil {
				t.Fatal(err)
			}
			same := true
			for j := range m1.W {
				same = same && m1.W[j] == m3.W[j]
			}
			if same {
				t.Errorf("s=%s %s: another seed gave a bit-identical model", s.Flag(), sel)
			}
		}
	}
}

func TestLabelsAndLayout(t *testing.T) {
	// liblinear's group_classes: order of first appearance, -1/+1 swapped.
	cases := []struct {
		labels []float64
		want   []float64
	}{
		{[]float64{-1, 1, 1, -1}, []float64{1, -1}},
		{[]float64{1, -1, -1}, []float64{1, -1}},
		{[]float64{0, 1, 0}, []float64{0, 1}},
		{[]float64{2, 1, 1}, []float64{2, 1}},
		{[]float64{-1, 2}, []float64{-1, 2}},
		{[]float64{3, -1, 1, 3}, []float64{3, -1, 1}},
		{[]float64{-1, 1, 2}, []float64{-1, 1, 2}},
	}
	for _, c := range cases {
		got, cls, err := groupClasses(c.labels)
		if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("groupClasses(%v) = %v, %v; want %v", c.labels, got, err, c.want)
			continue
		}
		for i, k := range cls {
			if got[k] != c.labels[i] {
				t.Errorf("groupClasses(%v): example %d in class %v", c.labels, i, got[k])
			}
		}
	}
	d := genData(genSpec{seed: 5, rows: 60, feats: 7, density: 0.5, labels: []float64{3, 1, 2}, noise: 0.1})
	m, res, _ := mustTrain(t, d, Params{Problem: HingeDual, C: 1, Bias: 2, Seed: 1})
	if m.NrW != 3 || len(m.W) != 8*3 || m.NumFeature != 7 || m.Bias != 2 || len(res.Classes) != 3 {
		t.Fatalf("layout: NrW %d len(W) %d NumFeature %d Bias %v classes %d", m.NrW, len(m.W), m.NumFeature, m.Bias, len(res.Classes))
	}
	if m.SolverType != "L2R_L1LOSS_SVC_DUAL" || res.Solver != m.SolverType || res.Select != "acf+shrink" || res.Eps != 0.1 {
		t.Fatalf("names/defaults: %q %q %q eps %v", m.SolverType, res.Solver, res.Select, res.Eps)
	}
	m, _, _ = mustTrain(t, d, Params{Problem: SquaredHingeDual, C: 1, Bias: -1, Seed: 1})
	if len(m.W) != 7*3 || m.Bias != -1 {
		t.Fatalf("no bias: len(W) %d bias %v", len(m.W), m.Bias)
	}
}

func TestSingleClass(t *testing.T) {
	// liblinear 2.3.0 trains one subproblem with every example positive.
	d := genData(genSpec{seed: 6, rows: 30, feats: 5, density: 0.6, labels: []float64{4}})
	for _, s := range dualProblems {
		m, res, duals := mustTrain(t, d, Params{Problem: s, C: 1, Eps: 1e-4, Bias: 1, Seed: 1})
		if m.NrW != 1 || len(m.Labels) != 1 || m.Labels[0] != 4 || !res.Converged {
			t.Fatalf("s=%s: NrW %d labels %v converged %v", s.Flag(), m.NrW, m.Labels, res.Converged)
		}
		for _, y := range duals[0].y {
			if y != 1 {
				t.Fatalf("s=%s: a negative example in a one-class problem", s.Flag())
			}
		}
	}
}

func TestParamErrors(t *testing.T) {
	d := genData(genSpec{seed: 7, rows: 20, feats: 4, density: 0.5, labels: []float64{1, -1}})
	ctx := context.Background()
	bad := []struct {
		p    Params
		want string
	}{
		{Params{Problem: Problem(99), C: 1}, "unknown problem"},
		{Params{Problem: HingeDual, C: -1}, "C must be"},
		{Params{Problem: HingeDual, C: math.NaN()}, "C must be"},
		{Params{Problem: HingeDual, C: math.Inf(1)}, "C must be"},
		{Params{Problem: HingeDual, C: 1, Eps: -1}, "eps must be"},
		{Params{Problem: HingeDual, C: 1, Eps: math.NaN()}, "eps must be"},
		{Params{Problem: HingeDual, C: 1, Select: Selection(99)}, "coordinate selection"},
		{Params{Problem: HingeDual, C: 1, Select: Cyclic}, "coordinate selection cyclic is not available for L2R_L1LOSS_SVC_DUAL"},
		{Params{Problem: HingeDual, C: 1, MaxEpochs: -1}, "MaxEpochs"},
		{Params{Problem: HingeDual, C: 1, Weights: map[float64]float64{1: 0}}, "weight"},
		{Params{Problem: HingeDual, C: 1, Bias: math.NaN()}, "bias"},
	}
	for _, b := range bad {
		_, _, err := Train(ctx, d, b.p)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Train(%+v) error %v, want one containing %q", b.p, err, b.want)
		}
	}
	ok := Params{Problem: HingeDual, C: 1}
	frac := *d
	frac.Label = append([]float64(nil), d.Label...)
	frac.Label[3] = 0.5
	if _, _, err := Train(ctx, &frac, ok); err == nil || !strings.Contains(err.Error(), "integer") {
		t.Errorf("fractional label: %v", err)
	}
	short := *d
	short.Value = d.Value[:len(d.Value)-1]
	if _, _, err := Train(ctx, &short, ok); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("short value array: %v", err)
	}
	if _, _, err := Train(ctx, &dataio.Dataset{RowPtr: []int64{0}}, ok); err == nil {
		t.Error("empty dataset accepted")
	}
	badIdx := *d
	badIdx.Features = 2
	if _, _, err := Train(ctx, &badIdx, ok); err == nil || !strings.Contains(err.Error(), "feature index") {
		t.Errorf("index out of range: %v", err)
	}
	_, res, err := Train(ctx, d, Params{Problem: HingeDual, C: 1, Weights: map[float64]float64{7: 2}})
	if err != nil || len(res.Warnings) != 1 {
		t.Errorf("unknown weight label: err %v warnings %v", err, res.Warnings)
	}
}

func TestEpochCap(t *testing.T) {
	d := genData(genSpec{seed: 8, rows: 500, feats: 60, density: 0.2, labels: []float64{1, -1}, noise: 0.2})
	for _, s := range dualProblems {
		for _, sel := range dualSelections {
			m, res, _ := mustTrain(t, d, Params{Problem: s, C: 100, Eps: 1e-9, Select: sel, MaxEpochs: 3, Seed: 1})
			if !res.HitEpochCap || res.Converged || !m.Partial || res.Cancelled {
				t.Errorf("s=%s %s: cap not reported: %+v", s.Flag(), sel, res)
			}
			if res.Epochs > 4 || res.Violation <= 1e-9 {
				t.Errorf("s=%s %s: epochs %d violation %g", s.Flag(), sel, res.Epochs, res.Violation)
			}
		}
	}
}

// TestCancel: a run cancelled from its progress callback stops soon and
// returns its partial model with an error wrapping context.Canceled; so
// does a run cancelled before it starts.
func TestCancel(t *testing.T) {
	d := genData(genSpec{seed: 9, rows: 2000, feats: 80, density: 0.2, labels: []float64{1, 2, 3}, noise: 0.2})
	for _, sel := range dualSelections {
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		p := Params{Problem: HingeDual, C: 1000, Eps: 1e-12, Select: sel, Seed: 1, Progress: func(pr Progress) {
			calls++
			if pr.Epoch >= 2 {
				cancel()
			}
		}}
		m, res, err := Train(ctx, d, p)
		cancel()
		if !errors.Is(err, context.Canceled) || m == nil || res == nil {
			t.Fatalf("%s: model %v, result %v, error %v; want a model, a result and context.Canceled", sel, m != nil, res != nil, err)
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
		m, res, err = Train(ctx, d, Params{Problem: LogisticDual, C: 1, Select: sel})
		if !errors.Is(err, context.Canceled) || m == nil || !res.Cancelled || !m.Partial {
			t.Errorf("%s: pre-cancelled: %v %+v", sel, err, res)
		}
	}
}

func TestProgress(t *testing.T) {
	d := genData(genSpec{seed: 10, rows: 300, feats: 30, density: 0.3, labels: []float64{1, -1}, noise: 0.1})
	for _, sel := range dualSelections {
		var last Progress
		n := 0
		// Pure dual CD: the -s 3 finisher would end the run without a
		// further progress report.
		_, res, _ := mustTrain(t, d, Params{Problem: HingeDual, C: 10, Eps: 1e-4, Select: sel, Seed: 2, NoFallback: true, Progress: func(p Progress) {
			n++
			last = p
		}})
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
	d := lowDim()
	for _, sel := range dualSelections {
		var last Progress
		p := Params{Problem: LogisticDual, C: 1000, Eps: 1e-3, Bias: 1, Select: sel, Seed: 5, MaxEpochs: 20, NoFallback: true,
			Progress: func(pr Progress) {
				if math.IsNaN(pr.Objective) || math.IsInf(pr.Objective, 0) {
					t.Fatalf("%s: epoch %d: objective %v", sel, pr.Epoch, pr.Objective)
				}
				last = pr
			}}
		_, res, _ := mustTrain(t, d, p)
		if testkit.RelDiff(last.Objective, res.Objective) > 1e-6 {
			t.Errorf("%s: tracked objective %v, recomputed %v", sel, last.Objective, res.Objective)
		}
	}
}

// TestFloat32 trains on float32 storage (kernel.Dot32/Axpy32) and compares
// with float64 storage holding the same (float32-rounded) values.
func TestFloat32(t *testing.T) {
	for _, pr := range testProblems() {
		d32, d64 := float32Copies(pr.d)
		for _, s := range dualProblems {
			for _, sel := range []Selection{ACF, ACFShrink} {
				p := Params{Problem: s, C: pr.c, Eps: 1e-4, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 5, MaxEpochs: 100000}
				_, r64, _ := mustTrain(t, d64, p)
				m32, r32, duals := mustTrain(t, d32, p)
				if !r32.Converged || testkit.RelDiff(r32.Objective, r64.Objective) > 1e-6 {
					t.Errorf("%s s=%s %s: float32 objective %v (converged %v), float64 %v", pr.name, s.Flag(), sel, r32.Objective, r32.Converged, r64.Objective)
				}
				for c := 0; c < m32.NrW; c++ {
					if ind := evalIndependent(d64, m32, c, duals[c], s); ind.wDiff > 1e-6 || ind.violation > 1e-4*(1+1e-6) {
						t.Errorf("%s s=%s %s class %d: w mismatch %g, violation %g", pr.name, s.Flag(), sel, c, ind.wDiff, ind.violation)
					}
				}
			}
		}
	}
}
