package acfcd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

var primalProblems = []Problem{LogisticPrimal, SquaredHingePrimal, SquaredSVRPrimal}

// regressionData returns d with real targets: a random linear function
// of each row plus noise.
func regressionData(seed uint64, rows, feats int, density float64) *dataio.Dataset {
	d := genData(genSpec{seed: seed, rows: rows, feats: feats, density: density, labels: []float64{1, -1}})
	r := rand.New(rand.NewPCG(seed, 3))
	truth := make([]float64, feats)
	for j := range truth {
		truth[j] = 2 * r.NormFloat64()
	}
	for i := range d.Rows {
		y := 0.5
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			y += d.Value[k] * truth[d.Index[k]]
		}
		d.Label[i] = y + 0.2*r.NormFloat64()
	}
	return d
}

// primalSub is one subproblem of a primal training, as liblinear's
// train() sets it up: the ±1 labels (nil for regression) and the costs.
type primalSub struct {
	y      []float64
	cn, cp float64
}

// primalSubs returns the subproblems of p on d with the model's labels.
func primalSubs(d *dataio.Dataset, p Params, labels []float64) []primalSub {
	c := p.C
	if c == 0 {
		c = 1
	}
	if p.Problem == SquaredSVRPrimal {
		return []primalSub{{cn: c, cp: c}}
	}
	weighted := make([]float64, len(labels))
	for k, l := range labels {
		weighted[k] = c
		if w, ok := p.Weights[l]; ok {
			weighted[k] *= w
		}
	}
	var subs []primalSub
	for k := range labels {
		if len(labels) == 2 && k == 1 {
			break
		}
		s := primalSub{y: make([]float64, d.Rows), cn: c, cp: weighted[k]}
		if len(labels) == 2 {
			s.cn = weighted[1]
		}
		for i, l := range d.Label {
			s.y[i] = -1
			if l == labels[k] {
				s.y[i] = 1
			}
		}
		subs = append(subs, s)
	}
	return subs
}

// primalEval recomputes, with plain loops, the primal objective and its
// gradient at w for subproblem s of problem p on d (bias < 0: none; free:
// the bias weight not regularised; eps the SVR's ε).
func primalEval(d *dataio.Dataset, prob Problem, s primalSub, bias float64, free bool, svrEps float64, w []float64) (f float64, g []float64) {
	nf := d.Features
	g = make([]float64, len(w))
	for j, v := range w {
		if j < nf || !free {
			f += v * v / 2
			g[j] = v
		}
	}
	for i := range d.Rows {
		wx := 0.0
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			wx += d.Value[k] * w[d.Index[k]]
		}
		if bias > 0 {
			wx += bias * w[nf]
		}
		var coef float64
		switch prob {
		case LogisticPrimal, SquaredHingePrimal:
			c := s.cn
			if s.y[i] > 0 {
				c = s.cp
			}
			z := s.y[i] * wx
			if prob == LogisticPrimal {
				f += c * math.Log1p(math.Exp(-z))
				coef = -c * s.y[i] / (1 + math.Exp(z))
			} else if z < 1 {
				f += c * (1 - z) * (1 - z)
				coef = -2 * c * s.y[i] * (1 - z)
			}
		case SquaredSVRPrimal:
			r := wx - d.Label[i]
			if e := math.Abs(r) - svrEps; e > 0 {
				f += s.cp * e * e
				coef = 2 * s.cp * e * math.Copysign(1, r)
			}
		}
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			g[d.Index[k]] += coef * d.Value[k]
		}
		if bias > 0 {
			g[nf] += coef * bias
		}
	}
	return f, g
}

func l2(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x * x
	}
	return math.Sqrt(s)
}

// primalCases are the problems of the primal tests: binary with a bias,
// class weights and labels other than ±1, four classes, and regression.
type primalCase struct {
	name    string
	d       *dataio.Dataset
	bias    float64
	weights map[float64]float64
	c       float64
}

func primalCases(prob Problem) []primalCase {
	if prob == SquaredSVRPrimal {
		return []primalCase{
			{"regression", regressionData(5, 300, 20, 0.3), -1, nil, 1},
			{"regression-bias", regressionData(6, 250, 15, 0.4), 1, nil, 10},
		}
	}
	return []primalCase{
		{"noisy-binary", genData(genSpec{seed: 1, rows: 300, feats: 40, density: 0.2, labels: []float64{-1, 1}, noise: 0.15}), -1, nil, 1},
		{"weighted-labels-2-5", genData(genSpec{seed: 3, rows: 200, feats: 25, density: 0.25, labels: []float64{2, 5}, noise: 0.05, empty: 3}), 0.5, map[float64]float64{5: 3, 2: 0.5}, 2},
		{"four-class", genData(genSpec{seed: 4, rows: 400, feats: 50, density: 0.15, labels: []float64{3, 1, 4, 2}, noise: 0.1}), 1, map[float64]float64{4: 2}, 10},
	}
}

// TestPrimalOptimal: -s 0, 2 and 11 stop where liblinear 2.50 would, by
// its rule recomputed independently: at the returned w of every
// subproblem ‖∇f(w)‖ ≤ eps·max(min(pos,neg),1)/l·‖∇f(0)‖ (‖∇f(w)‖ ≤
// eps·‖∇f(0)‖ for -s 11), with the dense Newton method and with
// Newton-CG, and the reported objective is f(w). The model's labels and
// shape are liblinear's.
func TestPrimalOptimal(t *testing.T) {
	for _, prob := range primalProblems {
		for _, pc := range primalCases(prob) {
			for _, cg := range []bool{false, true} {
				t.Run(fmt.Sprintf("s=%s/%s/cg=%v", prob.Flag(), pc.name, cg), func(t *testing.T) {
					p := Params{Problem: prob, C: pc.c, Bias: pc.bias, Weights: pc.weights, P: 0.2}
					if cg {
						tune := DefaultTuning()
						tune.NewtonDenseMax = 2
						p.Tuning = &tune
					}
					m, res, _ := mustTrain(t, pc.d, p)
					if !res.Converged || m.Partial || res.SupportVectors != -1 {
						t.Fatalf("%+v", res)
					}
					labels, _, _ := groupClasses(pc.d.Label)
					if prob == SquaredSVRPrimal {
						labels = nil
					}
					if fmt.Sprint(m.Labels) != fmt.Sprint(labels) || m.SolverType != prob.String() {
						t.Fatalf("model %s with labels %v, want %v", m.SolverType, m.Labels, labels)
					}
					subs := primalSubs(pc.d, p, labels)
					if m.NrW != len(subs) {
						t.Fatalf("%d weight vectors, %d subproblems", m.NrW, len(subs))
					}
					var ftotal float64
					for k, s := range subs {
						eps := 0.01
						scale := 1.0
						if prob == SquaredSVRPrimal {
							eps = 1e-4
						} else {
							pos := 0
							for _, y := range s.y {
								if y > 0 {
									pos++
								}
							}
							scale = float64(max(min(pos, len(s.y)-pos), 1)) / float64(len(s.y))
						}
						w := wColumn(m, k)
						if pc.bias < 0 {
							w = append(w, 0)
						}
						_, g0 := primalEval(pc.d, prob, s, pc.bias, false, 0.2, make([]float64, len(w)))
						f, g := primalEval(pc.d, prob, s, pc.bias, false, 0.2, w)
						if gn, tol := l2(g), eps*scale*l2(g0); !(gn <= tol) {
							t.Errorf("subproblem %d: ‖∇f(w)‖ = %.4g > %.4g", k, gn, tol)
						}
						ftotal += f
					}
					if math.Abs(res.Objective-ftotal) > 1e-9*ftotal || res.Primal != res.Objective {
						t.Errorf("objective %.12g (primal %.12g), recomputed %.12g", res.Objective, res.Primal, ftotal)
					}
				})
			}
		}
	}
}

// TestPrimalAgainstLiblinear: the same problems with Debian's
// liblinear-train (2.3.0, whose -s 0, 2 and 11 minimise the same
// functions) at a tight tolerance give the same minimum: the objective
// at liblinear's model and at ours, both recomputed independently, agree
// to 1e-7; and liblinear-predict reads our model files and predicts what
// Model.Predict does.
func TestPrimalAgainstLiblinear(t *testing.T) {
	if _, err := os.Stat(liblinearTrain); err != nil {
		t.Skip("liblinear-train not installed (apt-get install liblinear-tools)")
	}
	predict, err := exec.LookPath("liblinear-predict")
	if err != nil {
		t.Skip("liblinear-predict not installed (apt-get install liblinear-tools)")
	}
	for _, prob := range primalProblems {
		for _, pc := range primalCases(prob) {
			t.Run(fmt.Sprintf("s=%s/%s", prob.Flag(), pc.name), func(t *testing.T) {
				dir := t.TempDir()
				data := filepath.Join(dir, "data")
				writeLibSVM(t, pc.d, data)
				p := Params{Problem: prob, C: pc.c, Bias: pc.bias, Weights: pc.weights, Eps: 1e-7, P: 0.2}
				args := []string{"-p", "0.2"}
				if prob == SquaredSVRPrimal {
					p.Eps = 1e-9
				}
				_, _, lw, _ := runLiblinear(t, data, p, args...)
				m, _, _ := mustTrain(t, pc.d, p)
				if len(lw) != len(m.W) {
					t.Fatalf("liblinear has %d weights, we have %d", len(lw), len(m.W))
				}
				labels := m.Labels
				ll := &Model{NrW: m.NrW, W: lw}
				for k, s := range primalSubs(pc.d, p, labels) {
					w, wl := wColumn(m, k), wColumn(ll, k)
					if pc.bias < 0 {
						w, wl = append(w, 0), append(wl, 0)
					}
					f, _ := primalEval(pc.d, prob, s, pc.bias, false, 0.2, w)
					fl, _ := primalEval(pc.d, prob, s, pc.bias, false, 0.2, wl)
					if math.Abs(f-fl) > 1e-7*fl {
						t.Errorf("subproblem %d: f = %.12g at our model, %.12g at liblinear's", k, f, fl)
					}
				}

				// liblinear-predict reads our model file.
				mf := filepath.Join(dir, "ours.model")
				if err := m.Save(mf); err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, "out")
				if b, err := exec.Command(predict, data, mf, out).CombinedOutput(); err != nil {
					t.Fatalf("liblinear-predict: %v\n%s", err, b)
				}
				b, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				lines := strings.Fields(string(b))
				if len(lines) != pc.d.Rows {
					t.Fatalf("%d predictions for %d rows", len(lines), pc.d.Rows)
				}
				for i, s := range lines {
					v, err := strconv.ParseFloat(s, 64)
					if err != nil {
						t.Fatal(err)
					}
					idx, val := pc.d.Row(i)
					if got := m.Predict(idx, val); math.Abs(got-v) > 1e-5*(1+math.Abs(v)) {
						t.Fatalf("row %d: Predict %v, liblinear-predict %v", i, got, v)
					}
				}
			})
		}
	}
}

// TestUnregularizedBias: with -R the bias weight is left out of ½‖w‖²:
// at the returned model the bias weight's gradient is zero without the
// ½b² term (and not with it, on data where the bias matters), and the
// whole gradient meets the stopping rule. -R needs -B and one of the
// solvers that have it.
func TestUnregularizedBias(t *testing.T) {
	cls := genData(genSpec{seed: 8, rows: 300, feats: 10, density: 0.5, labels: []float64{1, -1}, noise: 0.1})
	for i := range cls.Label {
		if i%3 == 0 {
			cls.Label[i] = 1 // shifted classes: the bias matters
		}
	}
	reg := regressionData(9, 300, 10, 0.5)
	for i := range reg.Label {
		reg.Label[i] += 20
	}
	for _, prob := range primalProblems {
		d := cls
		if prob == SquaredSVRPrimal {
			d = reg
		}
		for _, free := range []bool{false, true} {
			p := Params{Problem: prob, C: 0.05, Bias: 1, UnregularizedBias: free, Eps: 1e-6, P: 0.2}
			m, res, _ := mustTrain(t, d, p)
			if !res.Converged {
				t.Fatalf("-s %s -R=%v: %+v", prob.Flag(), free, res)
			}
			var labels []float64
			if prob != SquaredSVRPrimal {
				labels = m.Labels
			}
			s := primalSubs(d, p, labels)[0]
			w := wColumn(m, 0)
			fFree, gFree := primalEval(d, prob, s, 1, true, 0.2, w)
			_, gReg := primalEval(d, prob, s, 1, false, 0.2, w)
			_, g0 := primalEval(d, prob, s, 1, free, 0.2, make([]float64, len(w)))
			b := d.Features
			g := gReg
			if free {
				g = gFree
				if math.Abs(res.Objective-fFree) > 1e-9*fFree {
					t.Errorf("-s %s -R: objective %.12g, recomputed without ½b² %.12g", prob.Flag(), res.Objective, fFree)
				}
				if math.Abs(gReg[b]) < 1e-3*l2(g0) {
					t.Errorf("-s %s -R: the bias weight's gradient with ½b² is %.3g: the bias does not matter here", prob.Flag(), gReg[b])
				}
			}
			if gn := l2(g); gn > 1e-6*l2(g0) || math.Abs(g[b]) > 1e-6*l2(g0) {
				t.Errorf("-s %s -R=%v: ‖∇f‖ = %.3g, bias weight's gradient %.3g, ‖∇f(0)‖ = %.3g", prob.Flag(), free, gn, g[b], l2(g0))
			}
		}
	}
	for _, tc := range []struct {
		p    Params
		want string
	}{
		{Params{Problem: LogisticPrimal, UnregularizedBias: true}, "specify a bias with -B"},
		{Params{Problem: SquaredHingeDual, Bias: 1, UnregularizedBias: true}, "-R (an unregularised bias) is supported only for -s 0, 2, 5, 6 and 11"},
		{Params{Problem: LogisticDual, Bias: 1, UnregularizedBias: true}, "not -s 7 (L2R_LR_DUAL)"},
	} {
		_, _, err := Train(context.Background(), cls, tc.p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.p, err, tc.want)
		}
	}
}

// TestPrimalCancel: a cancelled -s 0 run returns its partial model and
// context.Canceled, its result marked.
func TestPrimalCancel(t *testing.T) {
	d := genData(genSpec{seed: 1, rows: 300, feats: 40, density: 0.2, labels: []float64{-1, 1}, noise: 0.15})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, res, err := Train(ctx, d, Params{Problem: LogisticPrimal})
	if !errors.Is(err, context.Canceled) || m == nil || !m.Partial || !res.Cancelled || res.Converged {
		t.Fatalf("model %v, result %+v, error %v", m != nil, res, err)
	}
}

// TestPrimalProgress: one progress report per Newton iteration, the
// first at iteration 0, the objective decreasing.
func TestPrimalProgress(t *testing.T) {
	d := genData(genSpec{seed: 1, rows: 300, feats: 40, density: 0.2, labels: []float64{-1, 1}, noise: 0.15})
	var got []Progress
	_, res, err := Train(context.Background(), d, Params{Problem: SquaredHingePrimal, C: 10, Progress: func(p Progress) { got = append(got, p) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != int(res.Iterations)+1 {
		t.Fatalf("%d reports for %d iterations", len(got), res.Iterations)
	}
	for k, pr := range got {
		if pr.Epoch != k || k > 0 && !(pr.Objective < got[k-1].Objective) {
			t.Errorf("report %d: %+v after %+v", k, pr, got[max(k-1, 0)])
		}
	}
	if last := got[len(got)-1]; last.Violation > res.Eps || last.Violation != res.Violation {
		t.Errorf("last report %+v, result violation %g, eps %g", last, res.Violation, res.Eps)
	}
}
