package primal

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestPrimalOptimal: -s 0, 2 and 11 stop where liblinear 2.50 would, by
// its rule recomputed independently: at the returned w of every
// subproblem ‖∇f(w)‖ ≤ eps·max(min(pos,neg),1)/l·‖∇f(0)‖ (‖∇f(w)‖ ≤
// eps·‖∇f(0)‖ for -s 11), with the dense Newton method from the start,
// with Newton-CG alone and with the default (Newton-CG, dense steps once
// CG costs more), and the reported objective is f(w). The model's labels
// and shape are liblinear's.
func TestPrimalOptimal(t *testing.T) {
	for _, loss := range losses {
		for _, pc := range primalCases(loss) {
			for _, method := range []string{"dense", "default", "cg"} {
				t.Run(fmt.Sprintf("s=%s/%s/%s", flags[loss], pc.name, method), func(t *testing.T) {
					p := params{loss: loss, c: pc.c, bias: pc.bias, weights: pc.weights, p: 0.2}
					ctx := methodCtx(method)
					m, res := mustTrain(t, ctx, pc.d, p)
					if !res.Converged || m.Partial || res.SupportVectors != -1 {
						t.Fatalf("%+v", res)
					}
					labels, _, _ := fit.Classes(pc.d.Label)
					if loss == SquaredTube {
						labels = nil
					}
					st, _ := model.SolverTypeByFlag(flags[loss])
					if fmt.Sprint(m.Labels) != fmt.Sprint(labels) || m.NrW != st.WeightVectors(len(labels)) {
						t.Fatalf("model with labels %v and %d weight vectors, want labels %v and the %d of %s", m.Labels, m.NrW, labels, st.WeightVectors(len(labels)), st.Name)
					}
					subs := primalSubs(pc.d, p, labels)
					if m.NrW != len(subs) {
						t.Fatalf("%d weight vectors, %d subproblems", m.NrW, len(subs))
					}
					var ftotal float64
					for k, s := range subs {
						eps := 0.01
						scale := 1.0
						if loss == SquaredTube {
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
						_, g0 := primalEval(pc.d, loss, s, pc.bias, false, 0.2, make([]float64, len(w)))
						f, g := primalEval(pc.d, loss, s, pc.bias, false, 0.2, w)
						if gn, tol := norm(g), eps*scale*norm(g0); !(gn <= tol) {
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
	testkit.NeedLiblinear(t)
	predict := testkit.NeedTool(t, "liblinear-predict")
	for _, loss := range losses {
		for _, pc := range primalCases(loss) {
			t.Run(fmt.Sprintf("s=%s/%s", flags[loss], pc.name), func(t *testing.T) {
				dir := t.TempDir()
				data := filepath.Join(dir, "data")
				testkit.WriteLibSVM(t, pc.d.Label, pc.d.Row, data)
				p := params{loss: loss, c: pc.c, bias: pc.bias, weights: pc.weights, eps: 1e-7, p: 0.2}
				args := []string{"-p", "0.2"}
				if loss == SquaredTube {
					p.eps = 1e-9
				}
				lw := runLiblinear(t, data, p, args...)
				m, _ := mustTrain(t, context.Background(), pc.d, p)
				m.SolverType = solverType(loss)
				if len(lw) != len(m.W) {
					t.Fatalf("liblinear has %d weights, we have %d", len(lw), len(m.W))
				}
				labels := m.Labels
				ll := &model.Model{NrW: m.NrW, W: lw}
				for k, s := range primalSubs(pc.d, p, labels) {
					w, wl := wColumn(m, k), wColumn(ll, k)
					if pc.bias < 0 {
						w, wl = append(w, 0), append(wl, 0)
					}
					f, _ := primalEval(pc.d, loss, s, pc.bias, false, 0.2, w)
					fl, _ := primalEval(pc.d, loss, s, pc.bias, false, 0.2, wl)
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

// TestUnregularizedBias: with FreeBias (-R) the bias weight is left out
// of ½‖w‖²: at the returned model the bias weight's gradient is zero
// without the ½b² term (and not with it, on data where the bias
// matters), and the whole gradient meets the stopping rule.
func TestUnregularizedBias(t *testing.T) {
	cls := synth.Classes(synth.ClassesConfig{Seed: 8, Rows: 300, Feats: 10, Density: 0.5, Labels: []float64{1, -1}, Noise: 0.1})
	for i := range cls.Label {
		if i%3 == 0 {
			cls.Label[i] = 1 // shifted classes: the bias matters
		}
	}
	reg := regressionData(9, 300, 10, 0.5)
	for i := range reg.Label {
		reg.Label[i] += 20
	}
	for _, loss := range losses {
		d := cls
		if loss == SquaredTube {
			d = reg
		}
		for _, free := range []bool{false, true} {
			p := params{loss: loss, c: 0.05, bias: 1, free: free, eps: 1e-6, p: 0.2}
			m, res := mustTrain(t, context.Background(), d, p)
			if !res.Converged {
				t.Fatalf("-s %s -R=%v: %+v", flags[loss], free, res)
			}
			var labels []float64
			if loss != SquaredTube {
				labels = m.Labels
			}
			s := primalSubs(d, p, labels)[0]
			w := wColumn(m, 0)
			fFree, gFree := primalEval(d, loss, s, 1, true, 0.2, w)
			_, gReg := primalEval(d, loss, s, 1, false, 0.2, w)
			_, g0 := primalEval(d, loss, s, 1, free, 0.2, make([]float64, len(w)))
			b := d.Features
			g := gReg
			if free {
				g = gFree
				if math.Abs(res.Objective-fFree) > 1e-9*fFree {
					t.Errorf("-s %s -R: objective %.12g, recomputed without ½b² %.12g", flags[loss], res.Objective, fFree)
				}
				if math.Abs(gReg[b]) < 1e-3*norm(g0) {
					t.Errorf("-s %s -R: the bias weight's gradient with ½b² is %.3g: the bias does not matter here", flags[loss], gReg[b])
				}
			}
			if gn := norm(g); gn > 1e-6*norm(g0) || math.Abs(g[b]) > 1e-6*norm(g0) {
				t.Errorf("-s %s -R=%v: ‖∇f‖ = %.3g, bias weight's gradient %.3g, ‖∇f(0)‖ = %.3g", flags[loss], free, gn, g[b], norm(g0))
			}
		}
	}
}

// TestPrimalCancel: a cancelled -s 0 run returns its partial model, its
// result marked cancelled (and no error: the caller wraps ctx's).
func TestPrimalCancel(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 1, Rows: 300, Feats: 40, Density: 0.2, Labels: []float64{-1, 1}, Noise: 0.15})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, res, err := Train(ctx, d, params{loss: Logistic}.spec())
	if err != nil || m == nil || !m.Partial || !res.Cancelled || res.Converged {
		t.Fatalf("model %v, result %+v, error %v", m != nil, res, err)
	}
}

// TestPrimalProgress: one progress report per Newton iteration, the
// first at iteration 0, the objective decreasing.
func TestPrimalProgress(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 1, Rows: 300, Feats: 40, Density: 0.2, Labels: []float64{-1, 1}, Noise: 0.15})
	var got []fit.Progress
	_, res, err := Train(context.Background(), d, params{loss: SquaredHinge, c: 10, progress: func(p fit.Progress) { got = append(got, p) }}.spec())
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

// methodCtx returns a context whose tuning makes the primal Newton
// method take dense steps from the start ("dense"), Newton-CG alone
// ("cg"), or its default.
func methodCtx(method string) context.Context {
	tu := DefaultTuning()
	switch method {
	case "dense":
		tu.DenseOpCost = 0
	case "cg":
		tu.NewtonDenseMax = 2
	}
	return tune.With(context.Background(), &tu)
}

// TestCGFirst: where dense Newton steps are possible, the default starts
// with Newton-CG and takes dense steps once an iteration costs more than
// half a dense step would (Tuning.CGDearer): on well-conditioned dense
// rows of 200 features it never does, and touches fewer operations than
// dense steps from the start; on badly conditioned rows (running sums at
// C = 100) it does, and touches fewer than Newton-CG alone. All three end
// at the same optimum.
func TestCGFirst(t *testing.T) {
	wide := overlapping(2, 1500, 200, 1, 0.1, 1)
	// Dense rows of running sums (x_ij = u_i1 + … + u_ij): correlated
	// features whose Hessian's spectrum spreads over three orders of
	// magnitude, which a diagonal preconditioner leaves as it is.
	raw := overlapping(7, 400, 30, 1, 0.1, 1)
	for i := range raw.Rows {
		var sum float64
		for k := raw.RowPtr[i]; k < raw.RowPtr[i+1]; k++ {
			sum += raw.Value[k]
			raw.Value[k] = sum
		}
	}
	for _, tc := range []struct {
		name  string
		d     *dataio.Dataset
		c     float64
		dense bool // the default takes dense steps
	}{{"wide", wide, 1, false}, {"raw", raw, 100, true}} {
		for _, loss := range []Loss{Logistic, SquaredHinge} {
			t.Run(fmt.Sprintf("s=%s/%s", flags[loss], tc.name), func(t *testing.T) {
				ops := map[string]int64{}
				prim := map[string]float64{}
				dense := false
				for _, method := range []string{"dense", "default", "cg"} {
					ctx := methodCtx(method)
					spec := params{loss: loss, c: tc.c, bias: -1}.spec()
					if method == "default" {
						spec.Trace = func(format string, _ ...any) { dense = dense || strings.HasPrefix(format, "newton: dense") }
					}
					_, res, err := Train(ctx, tc.d, spec)
					if err != nil || !res.Converged {
						t.Fatalf("%s: %+v, %v", method, res, err)
					}
					ops[method] = res.Operations
					// The optimum, to a tight rule.
					_, res = mustTrain(t, ctx, tc.d, params{loss: loss, c: tc.c, bias: -1, eps: 1e-8})
					prim[method] = res.Primal
				}
				t.Logf("operations %v, primal %v", ops, prim)
				if dense != tc.dense {
					t.Errorf("the default took dense steps: %v, want %v", dense, tc.dense)
				}
				if other := map[bool]string{true: "cg", false: "dense"}[tc.dense]; !(ops["default"] < ops[other]) {
					t.Errorf("the default touched %d operations, %s %d", ops["default"], other, ops[other])
				}
				if testkit.RelDiff(prim["default"], prim["dense"]) > 1e-9 || testkit.RelDiff(prim["cg"], prim["dense"]) > 1e-9 {
					t.Errorf("primal objectives %v", prim)
				}
			})
		}
	}
}
