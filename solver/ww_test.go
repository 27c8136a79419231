package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/acfcd/acfcd/acf"
	dataio "github.com/acfcd/acfcd/io"
)

func wwBadACF() acf.Config { return acf.Config{C: -1} }

var wwSelections = []string{"uniform", "acf"}

// wwDuals is what wwHook reports, copied.
type wwDuals struct {
	alpha []float64
	class []int32
	ub    []float64
}

// wwTrain trains with p.Solver = WestonWatkins and captures the duals.
func wwTrain(t testing.TB, d *dataio.Dataset, p Params) (*Model, *Result, wwDuals) {
	t.Helper()
	var got wwDuals
	wwHook = func(alpha []float64, class []int32, ub []float64) {
		got = wwDuals{append([]float64(nil), alpha...), append([]int32(nil), class...), append([]float64(nil), ub...)}
	}
	defer func() { wwHook = nil }()
	p.Solver = WestonWatkins
	m, res, err := Train(context.Background(), d, p)
	if err != nil {
		t.Fatalf("Train(%+v): %v", p, err)
	}
	return m, res, got
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
			t.Run(pr.name+"/"+sel, func(t *testing.T) {
				const eps = 1e-3
				p := Params{C: pr.c, Eps: eps, Bias: pr.bias, Weights: pr.weights, Select: sel, Seed: 3, MaxEpochs: 100000}
				m, res, du := wwTrain(t, pr.d, p)
				if !res.Converged || res.HitEpochCap || res.Cancelled || m.Partial {
					t.Fatalf("not converged: %+v", res)
				}
				if m.SolverType != "MCSVM_WW" || m.NrW != len(m.Labels) || res.Solver != "MCSVM_WW" || res.Select != sel {
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
				if relDiff(ev.dual, res.Objective) > 1e-9 {
					t.Errorf("objective %v, independent %v", res.Objective, ev.dual)
				}
				if relDiff(ev.primal, res.Primal) > 1e-9 {
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
			if relDiff(objs[0], objs[1]) > 1e-8 {
				t.Errorf("uniform objective %.15g, acf %.15g", objs[0], objs[1])
			}
		})
	}
}

// TestWWBlockStep checks the exact block solver: the gain it reports is
// the change of f recomputed from scratch, and after the step the block's
// own KKT conditions hold (the gradient of the block subproblem at the new
// point, from scratch, vanishes up to rounding on free variables and has
// the right sign at bounds). It also compares with a brute-force
// iterative solution of the block QP.
func TestWWBlockStep(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for _, pr := range wwProblems() {
		for _, bias := range []float64{-1, 0, 1.5} {
			t.Run(fmt.Sprintf("%s/bias=%g", pr.name, bias), func(t *testing.T) {
				d := pr.d
				labels, class, err := groupClasses(d.Label)
				if err != nil {
					t.Fatal(err)
				}
				K := len(labels)
				ub := make([]float64, K)
				for c := range ub {
					ub[c] = pr.c * (0.5 + r.Float64())
				}
				s := newWW(d, class, ub, bias, false, 1, Params{}.ACF)
				// Start from a random feasible point with many α at bounds.
				for i := 0; i < d.Rows; i++ {
					for c := 0; c < K; c++ {
						if c == int(class[i]) {
							continue
						}
						switch r.IntN(3) {
						case 0:
						case 1:
							s.alpha[i*K+c] = ub[class[i]]
						default:
							s.alpha[i*K+c] = ub[class[i]] * r.Float64()
						}
					}
				}
				du := wwDuals{s.alpha, class, ub}
				copy(s.W, wwRefW(d, K, bias, du))
				m := &Model{NrW: K, Bias: bias, NumFeature: d.Features}
				f := func() float64 {
					m.W = wwRefW(d, K, bias, du)
					return wwEvaluate(d, m, du).dual
				}
				for trial := 0; trial < 200; trial++ {
					i := int32(r.IntN(d.Rows))
					if trial%4 == 3 {
						// a second step on the same block: nothing left to gain
						i = int32(trial % d.Rows)
						s.step(i)
					}
					before := append([]float64(nil), s.alpha[int(i)*K:int(i)*K+K]...)
					f0 := f()
					q := s.xsq[i]
					y := int(class[i])
					g0 := make([]float64, K)
					m.W = wwRefW(d, K, bias, du)
					dec := wwRefDec(d, m, int(i))
					for c := range g0 {
						g0[c] = dec[y] - dec[c] - 1
					}
					_, gain := s.step(i)
					f1 := f()
					if math.Abs((f0-f1)-gain) > 1e-9*math.Max(1, math.Abs(f0)) {
						t.Fatalf("trial %d block %d: gain %.15g, recomputed %.15g", trial, i, gain, f0-f1)
					}
					if gain < -1e-12*math.Max(1, math.Abs(f0)) {
						t.Fatalf("negative gain %g", gain)
					}
					// block KKT at the new point, from scratch
					after := s.alpha[int(i)*K : int(i)*K+K]
					m.W = wwRefW(d, K, bias, du)
					dec = wwRefDec(d, m, int(i))
					C := ub[y]
					scale := 1e-9 * (1 + q*C*float64(K))
					for c := 0; c < K; c++ {
						if c == y {
							continue
						}
						G := dec[y] - dec[c] - 1
						if a := after[c]; a < 0 || a > C || (a > 0 && a < C && math.Abs(G) > scale) || (a == 0 && G < -scale) || (a == C && G > scale) {
							t.Fatalf("trial %d block %d class %d: α %g (C %g), gradient %g after the step", trial, i, c, a, C, G)
						}
					}
					// brute force on the block QP from the old point
					ref := wwBruteBlock(g0, before, y, C, q)
					for c := range ref {
						if math.Abs(ref[c]-after[c]) > 1e-6*(1+C) {
							t.Fatalf("trial %d block %d: exact %v, brute force %v", trial, i, after, ref)
						}
					}
				}
			})
		}
	}
}

// wwRefDec is the K decision values of row i with plain loops.
func wwRefDec(d *dataio.Dataset, m *Model, i int) []float64 {
	K := m.NrW
	dec := make([]float64, K)
	for c := range dec {
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			dec[c] += wwValue(d, k) * m.W[int(d.Index[k])*K+c]
		}
		if m.Bias >= 0 {
			dec[c] += m.Bias * m.W[d.Features*K+c]
		}
	}
	return dec
}

// wwBruteBlock minimises gᵀδ + ½q(‖δ‖² + (Σδ)²) over 0 ≤ a0+δ ≤ C by
// many sweeps of one-variable projected Newton steps (curvature 2q).
func wwBruteBlock(g, a0 []float64, y int, C, q float64) []float64 {
	K := len(g)
	a := append([]float64(nil), a0...)
	if q == 0 {
		for c := range a {
			if c != y && g[c] < 0 {
				a[c] = C
			} else if c != y && g[c] > 0 {
				a[c] = 0
			}
		}
		return a
	}
	for sweep := 0; sweep < 20000; sweep++ {
		var s float64
		for c := range a {
			s += a[c] - a0[c]
		}
		for c := 0; c < K; c++ {
			if c == y {
				continue
			}
			gc := g[c] + q*(a[c]-a0[c]) + q*s
			na := math.Min(math.Max(a[c]-gc/(2*q), 0), C)
			s += na - a[c]
			a[c] = na
		}
	}
	return a
}

// TestWWTheta checks the breakpoint walk on random and adversarial blocks
// against bisection on h.
func TestWWTheta(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20000; trial++ {
		m := 1 + r.IntN(12)
		C := math.Exp(r.NormFloat64() * 3)
		t0 := make([]float64, m+1)
		y := r.IntN(m + 1)
		var A float64
		for c := range t0 {
			if c == y {
				t0[c] = math.NaN() // must be ignored
				continue
			}
			a := [3]float64{0, C, C * r.Float64()}[r.IntN(3)]
			A += a
			switch r.IntN(4) {
			case 0:
				t0[c] = a + r.NormFloat64()*C*1e6
			case 1:
				t0[c] = C * float64(r.IntN(3)) // ties with breakpoints
			default:
				t0[c] = a + r.NormFloat64()*C
			}
		}
		srt := make([]float64, m+1)
		theta := wwTheta(t0, srt, y, C, A)
		h := func(th float64) float64 {
			s := -A - th
			for c, v := range t0 {
				if c != y {
					s += math.Min(math.Max(v-th, 0), C)
				}
			}
			return s
		}
		lo, hi := -A-1, 0.0
		for _, v := range t0 {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v-C-1), math.Max(hi, v+1)
			}
		}
		for k := 0; k < 200; k++ {
			mid := 0.5 * (lo + hi)
			if h(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		scale := 1e-12 * (A + C + math.Abs(lo))
		for _, v := range t0 {
			if !math.IsNaN(v) {
				scale = math.Max(scale, 1e-12*math.Abs(v))
			}
		}
		if math.Abs(theta-lo) > scale*float64(m+1) {
			t.Fatalf("trial %d: θ %.17g, bisection %.17g (t %v, C %g, A %g)", trial, theta, lo, t0, C, A)
		}
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
			mb, resb, duals := mustTrain(t, d, Params{Solver: 3, C: 2 * C, Eps: eps, Bias: bias, Select: "uniform", Seed: 1, MaxEpochs: 1000000})
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
			if relDiff(2*res.Objective, resb.Objective) > 1e-9 || relDiff(2*res.Primal, resb.Primal) > 1e-9 {
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
// partial model, no error.
func TestWWCancel(t *testing.T) {
	d := genData(genSpec{seed: 31, rows: 20000, feats: 200, density: 0.05, labels: []float64{1, 2, 3, 4}, noise: 0.3})
	for _, sel := range wwSelections {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m, res, err := Train(ctx, d, Params{Solver: WestonWatkins, C: 100, Eps: 1e-9, Bias: -1, Select: sel})
		if err != nil || !res.Cancelled || res.Converged || !m.Partial || res.Iterations != 0 {
			t.Fatalf("%s: pre-cancelled: err %v res %+v", sel, err, res)
		}
		ctx, cancel = context.WithCancel(context.Background())
		var calls atomic.Int32
		p := Params{Solver: WestonWatkins, C: 100, Eps: 1e-9, Bias: -1, Select: sel, Progress: func(pr Progress) {
			if calls.Add(1) == 2 {
				cancel()
			}
		}}
		m, res, err = Train(ctx, d, p)
		cancel()
		if err != nil || !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap {
			t.Fatalf("%s: cancelled: err %v res %+v", sel, err, res)
		}
		// it stopped within an epoch and a check interval of the cancel
		if res.Iterations > int64(3*d.Rows+wwCheckEvery) || len(m.W) != d.Features*4 {
			t.Fatalf("%s: ran %d steps after cancel at epoch 2", sel, res.Iterations)
		}
		if math.IsNaN(res.Violation) || res.Violation == 0 {
			t.Errorf("%s: violation %g of a partial model", sel, res.Violation)
		}
	}
}

// TestWWEpochCapProgress: the epoch cap stops a run that cannot meet eps,
// and Progress is called once per epoch with a decreasing objective.
func TestWWEpochCapProgress(t *testing.T) {
	d := wwProblems()[0].d
	for _, sel := range wwSelections {
		var epochs []int
		var objs []float64
		p := Params{C: 1000, Eps: 1e-12, Bias: -1, Select: sel, MaxEpochs: 3, Progress: func(pr Progress) {
			epochs = append(epochs, pr.Epoch)
			objs = append(objs, pr.Objective)
		}}
		m, res, _ := wwTrain(t, d, p)
		if !res.HitEpochCap || res.Converged || !m.Partial || res.Epochs != 3 {
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
		{C: 1, Select: "shrink"}, {C: 1, Select: "acf+shrink"}, {C: 1, Select: "cyclic"},
		{C: 0}, {C: math.Inf(1)}, {C: 1, Eps: -1}, {C: 1, Bias: math.NaN()}, {C: 1, MaxEpochs: -1},
		{C: 1, Weights: map[float64]float64{1: 0}}, {C: 1, ACF: wwBadACF()},
	} {
		p.Solver = WestonWatkins
		if _, _, err := Train(context.Background(), d, p); err == nil {
			t.Errorf("%+v: no error", p)
		}
	}
	if _, _, err := Train(context.Background(), &dataio.Dataset{}, Params{Solver: WestonWatkins, C: 1}); err == nil {
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
	p := Params{C: 2, Eps: 1e-8, Bias: 1, Select: "acf", Seed: 4, MaxEpochs: 100000}
	m32, r32, du := wwTrain(t, d32, p)
	mr, rr, _ := wwTrain(t, dr, p)
	if !r32.Converged || relDiff(r32.Objective, rr.Objective) > 1e-9 {
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
		var idx []int32
		var val []float64
		a, b := d.RowPtr[i], d.RowPtr[i+1]
		idx = d.Index[a:b]
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

// TestWWNoAllocs: a batch of steps allocates nothing.
func TestWWNoAllocs(t *testing.T) {
	d := wwProblems()[1].d
	_, class, _ := groupClasses(d.Label)
	for _, acfMode := range []bool{false, true} {
		s := newWW(d, class, []float64{10, 10, 10, 10}, 1, acfMode, 1, Params{}.ACF)
		s.eps = 0
		s.done = make(chan struct{})
		s.batch()
		if n := testing.AllocsPerRun(20, func() { s.batch() }); n != 0 {
			t.Errorf("acf=%v: %v allocations per batch", acfMode, n)
		}
	}
}

// BenchmarkWWEpoch times one batch (a uniform sweep, or an ACF batch of
// ≈ n block steps) on a generated sparse 10-class problem, from a state
// several epochs into the optimisation. There must be no allocations.
func BenchmarkWWEpoch(b *testing.B) {
	labels := make([]float64, 10)
	for c := range labels {
		labels[c] = float64(c + 1)
	}
	d := genData(genSpec{seed: 42, rows: 10000, feats: 20000, density: 0.004, labels: labels, noise: 0.1})
	_, class, err := groupClasses(d.Label)
	if err != nil {
		b.Fatal(err)
	}
	ub := make([]float64, len(labels))
	for c := range ub {
		ub[c] = 10
	}
	for _, sel := range wwSelections {
		b.Run("select="+sel, func(b *testing.B) {
			s := newWW(d, class, ub, 1, sel == "acf", 1, Params{}.ACF)
			s.done = make(chan struct{})
			for k := 0; k < 5; k++ {
				s.batch()
			}
			steps0 := s.steps
			b.ReportAllocs()
			b.ResetTimer()
			for k := 0; k < b.N; k++ {
				if _, stop := s.batch(); stop {
					b.Fatal("stopped")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(s.steps-steps0), "ns/step")
			b.ReportMetric(float64(s.steps-steps0)/float64(b.N), "steps/op")
		})
	}
}

// TestWWRealData measures uniform against acf on real files. It runs only
// with ACFCD_WWDATA set to a comma-separated list of
// train[|test]:C[/C...]:eps entries (without a test file, a fixed 80/20
// split of train), e.g.
//
//	ACFCD_WWDATA='/work/shared/data/dna.scale.bz2|/work/shared/data/dna.scale.t.bz2:0.1/1:0.1' go test -run WWRealData -v ./solver
//
// ACFCD_SELECT restricts the selections, ACFCD_MAXEPOCHS sets the cap,
// ACFCD_BIAS the bias (default -1, none).
func TestWWRealData(t *testing.T) {
	spec := os.Getenv("ACFCD_WWDATA")
	if spec == "" {
		t.Skip("set ACFCD_WWDATA=train[|test]:C[/C...]:eps[,...] to measure on real data")
	}
	sels := wwSelections
	if s := os.Getenv("ACFCD_SELECT"); s != "" {
		sels = strings.Split(s, ",")
	}
	maxEpochs, _ := strconv.Atoi(os.Getenv("ACFCD_MAXEPOCHS"))
	bias := -1.0
	if b := os.Getenv("ACFCD_BIAS"); b != "" {
		bias, _ = strconv.ParseFloat(b, 64)
	}
	for _, e := range strings.Split(spec, ",") {
		f := strings.Split(e, ":")
		if len(f) != 3 {
			t.Fatalf("bad entry %q", e)
		}
		files := strings.Split(f[0], "|")
		train, err := dataio.Load(files[0], dataio.Options{Threads: 1})
		if err != nil {
			t.Fatal(err)
		}
		var test *dataio.Dataset
		if len(files) > 1 {
			if test, err = dataio.Load(files[1], dataio.Options{Threads: 1}); err != nil {
				t.Fatal(err)
			}
		} else {
			train, test = wwSplit(train, 0.8, 1)
		}
		eps, _ := strconv.ParseFloat(f[2], 64)
		name := filepath.Base(files[0])
		fmt.Printf("%s: %d train, %d test rows, %d features, nnz %d\n", name, train.Rows, test.Rows, train.Features, train.NNZ())
		for _, cs := range strings.Split(f[1], "/") {
			c, _ := strconv.ParseFloat(cs, 64)
			type point struct{ sec, obj float64 }
			traces := map[string][]point{}
			final := map[string]float64{}
			for _, sel := range sels {
				var trace []point
				cpu0 := cpuSeconds()
				progress := func(pr Progress) { trace = append(trace, point{cpuSeconds() - cpu0, pr.Objective}) }
				m, res, err := Train(context.Background(), train, Params{Solver: WestonWatkins, C: c, Eps: eps, Bias: bias, Select: sel, Seed: 1, MaxEpochs: maxEpochs, Progress: progress})
				cpu := cpuSeconds() - cpu0
				if err != nil {
					t.Fatal(err)
				}
				traces[sel], final[sel] = trace, res.Objective
				fmt.Printf("%-24s C %-6g eps %-5g %-8s test acc %.4f  iters %10d epochs %6d  %8.3fs wall %8.3fs cpu  obj %.8g gap %.3g viol %.3g conv %v\n",
					name, c, eps, sel, wwAccuracy(m, test), res.Iterations, res.Epochs, res.Seconds, cpu, res.Objective, res.Gap, res.Violation, res.Converged)
			}
			// cross-targets: when did each run first reach the other's final objective
			for a, ta := range traces {
				for b, fb := range final {
					if a == b {
						continue
					}
					hit := "never"
					for _, pt := range ta {
						if pt.obj <= fb {
							hit = fmt.Sprintf("after %.3fs cpu", pt.sec)
							break
						}
					}
					fmt.Printf("    %s reached %s's final objective %.10g %s\n", a, b, fb, hit)
				}
			}
		}
	}
}
