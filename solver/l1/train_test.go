package l1

import (
	"bytes"
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
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestL1Optimality checks, by an independent recomputation from the model,
// the objective each subproblem reports and the minimum-norm subgradient
// at the returned w: liblinear's stopping rule ‖∇^S F(w)‖₁ ≤
// eps·max(min(pos, neg), 1)/ℓ·‖∇^S F(0)‖₁ for -s 6 (whose ‖∇^S F(0)‖₁ is
// exact), and near-optimality at a tight eps for both, with every
// selection, class weights, a bias, and an unregularised bias.
func TestL1Optimality(t *testing.T) {
	for name, d := range l1Data() {
		for _, logistic := range problems {
			for _, sel := range selections {
				for _, pc := range []struct {
					c, bias float64
					unreg   bool
					weights map[float64]float64
				}{{1, 0, false, nil}, {10, 1, false, map[float64]float64{1: 2}}, {0.5, 1, true, nil}} {
					p := params{logistic: logistic, c: pc.c, bias: pc.bias, free: pc.unreg, weights: pc.weights, sel: sel}
					t.Run(fmt.Sprintf("%s/s=%s/%v/C=%g/B=%g/R=%v", name, flag(logistic), sel, pc.c, pc.bias, pc.unreg), func(t *testing.T) {
						m, res, err := train(context.Background(), d, p)
						if err != nil {
							t.Fatal(err)
						}
						if !res.Converged || res.SupportVectors != -1 {
							t.Fatalf("converged %v, support vectors %d", res.Converged, res.SupportVectors)
						}
						subs := []fit.Result{*res}
						if len(res.Classes) > 0 {
							subs = res.Classes
						}
						for k, r := range subs {
							f, gn, gn0 := l1Eval(d, m, k, p)
							if math.Abs(f-r.Objective) > 1e-9*math.Abs(f) || r.Primal != r.Objective {
								t.Errorf("class %d: objective %.12g, recomputed %.12g (primal %.12g)", k, r.Objective, f, r.Primal)
							}
							if !(r.Violation <= DefaultEps) {
								t.Errorf("class %d: violation %g above eps", k, r.Violation)
							}
							if logistic {
								if tol := DefaultEps * tolScale(d, m, k) * gn0; gn > tol*(1+1e-9) {
									t.Errorf("class %d: ‖∇^S F(w)‖₁ = %g above the tolerance %g", k, gn, tol)
								}
								if rel := gn / (gn0 * tolScale(d, m, k)); math.Abs(rel-r.Violation) > 1e-9*rel+1e-15 {
									t.Errorf("class %d: violation %g, recomputed %g", k, r.Violation, rel)
								}
							}
						}
						// At eps = 1e-7 w is optimal to about that much.
						p.eps = 1e-7
						m, res, err = train(context.Background(), d, p)
						if err != nil {
							t.Fatal(err)
						}
						for k := range max(1, len(res.Classes)) {
							if _, gn, gn0 := l1Eval(d, m, k, p); gn > 1e-5*gn0 {
								t.Errorf("eps 1e-7, class %d: ‖∇^S F(w)‖₁ = %g, at 0 %g", k, gn, gn0)
							}
						}
					})
				}
			}
		}
	}
}

// TestL1AgainstLiblinear compares the objective values, the label order
// and the model file with Debian's liblinear-train (2.3.0), when
// installed: at liblinear's default eps ours is not above liblinear's by
// more than the rule allows, and at a tight eps both are the same.
func TestL1AgainstLiblinear(t *testing.T) {
	testkit.NeedLiblinear(t)
	for name, d := range l1Data() {
		data := filepath.Join(t.TempDir(), "data")
		testkit.WriteLibSVM(t, d.Label, d.Row, data)
		for _, logistic := range problems {
			for _, bias := range []float64{0, 1} {
				t.Run(fmt.Sprintf("%s/s=%s/B=%g", name, flag(logistic), bias), func(t *testing.T) {
					p := params{logistic: logistic, c: 2, bias: bias, weights: map[float64]float64{1: 1.5}, eps: 1e-5}
					lib, labels, capped := runLiblinear(t, data, p)
					if capped {
						t.Skip("liblinear stopped at its iteration cap")
					}
					m, res, err := train(context.Background(), d, p)
					if err != nil {
						t.Fatal(err)
					}
					if fmt.Sprint(labels) != fmt.Sprint(m.Labels) {
						t.Fatalf("labels: liblinear %v, ours %v", labels, m.Labels)
					}
					ours := []float64{res.Objective}
					if len(res.Classes) > 0 {
						ours = ours[:0]
						for _, r := range res.Classes {
							ours = append(ours, r.Objective)
						}
					}
					if len(ours) != len(lib) {
						t.Fatalf("%d objectives from liblinear, %d from us", len(lib), len(ours))
					}
					for k := range lib {
						// liblinear prints 6 decimals.
						if math.Abs(ours[k]-lib[k]) > 1e-5*math.Abs(lib[k])+1e-6 {
							t.Errorf("class %d: objective %.9g, liblinear %.6f", k, ours[k], lib[k])
						}
					}
				})
			}
		}
	}
}

// TestL1UnregularizedBias: with FreeBias (-R) the bias weight has no
// |w_b| term, so the model predicts the same whatever the bias value B
// (w_b·B is free), and the objective has no |w_b| (TestL1Optimality
// recomputes it); with liblinear 2.50 installed at ACFCD_LIBLINEAR_250,
// the objective is liblinear's.
func TestL1UnregularizedBias(t *testing.T) {
	d := l1Data()["binary"]
	for _, logistic := range problems {
		dec := map[float64][]float64{}
		for _, b := range []float64{1, 8} {
			m, _, err := train(context.Background(), d, params{logistic: logistic, c: 1, bias: b, free: true, eps: 1e-8})
			if err != nil {
				t.Fatal(err)
			}
			out := make([]float64, 1)
			for i := 0; i < d.Rows; i++ {
				a, e := d.RowPtr[i], d.RowPtr[i+1]
				m.Decision(d.Index[a:e], d.Value[a:e], out)
				dec[b] = append(dec[b], out[0])
			}
		}
		for i := range dec[1] {
			if math.Abs(dec[1][i]-dec[8][i]) > 1e-4*(1+math.Abs(dec[1][i])) {
				t.Fatalf("-s %s -R: decision value %d is %g with B = 1 and %g with B = 8", flag(logistic), i, dec[1][i], dec[8][i])
			}
		}
		// With the bias regularised, B changes the model.
		m, _, err := train(context.Background(), d, params{logistic: logistic, c: 1, bias: 8, eps: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, 1)
		differ := false
		for i := 0; i < d.Rows && !differ; i++ {
			a, e := d.RowPtr[i], d.RowPtr[i+1]
			m.Decision(d.Index[a:e], d.Value[a:e], out)
			differ = math.Abs(out[0]-dec[8][i]) > 1e-3
		}
		if !differ {
			t.Errorf("-s %s: the regularised bias gives the model of -R", flag(logistic))
		}
	}
	lib := os.Getenv("ACFCD_LIBLINEAR_250")
	if lib == "" {
		return
	}
	data := filepath.Join(t.TempDir(), "data")
	testkit.WriteLibSVM(t, d.Label, d.Row, data)
	for _, logistic := range problems {
		out, err := exec.Command(lib, "-s", flag(logistic), "-c", "1", "-e", "1e-6", "-B", "1", "-R", data, filepath.Join(t.TempDir(), "m")).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", lib, err, out)
		}
		mm := testkit.LiblinearObjective.FindStringSubmatch(string(out))
		want, _ := strconv.ParseFloat(mm[1], 64)
		_, res, err := train(context.Background(), d, params{logistic: logistic, c: 1, bias: 1, free: true, eps: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Objective-want) > 1e-5*want+1e-6 {
			t.Errorf("-s %s -R: objective %.9g, liblinear 2.50 %.6f", flag(logistic), res.Objective, want)
		}
	}
}

// TestL1ModelFile: a multi-class model is liblinear's file, one column of
// weights per class in label order, the bias row last, with solver_type
// L1R_L2LOSS_SVC or L1R_LR; it reads back the same, and liblinear-predict
// (if installed) predicts with it what we predict; and liblinear-train's
// -s 5 and 6 models load and predict as liblinear-predict does.
func TestL1ModelFile(t *testing.T) {
	d := l1Data()["multiclass"]
	for _, logistic := range problems {
		m, res, err := train(context.Background(), d, params{logistic: logistic, c: 1, bias: 1})
		if err != nil {
			t.Fatal(err)
		}
		m.SolverType = solverType(logistic)
		if len(res.Classes) != 3 || m.NrW != 3 || len(m.W) != 3*(d.Features+1) {
			t.Fatalf("-s %s: %d classes, nr_w %d, %d weights", flag(logistic), len(res.Classes), m.NrW, len(m.W))
		}
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		head := fmt.Sprintf("solver_type %s\nnr_class 3\nlabel 3 1 2\nnr_feature %d\nbias 1\nw\n", solverType(logistic), d.Features)
		if !strings.HasPrefix(buf.String(), head) {
			t.Fatalf("-s %s: model file starts\n%s\nwant\n%s", flag(logistic), buf.String()[:min(len(buf.String()), 120)], head)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if rows := len(lines) - 6; rows != d.Features+1 {
			t.Fatalf("-s %s: %d weight rows, want %d", flag(logistic), rows, d.Features+1)
		}
		for j, line := range lines[6:] {
			f := strings.Fields(line)
			for c := range 3 {
				v, err := strconv.ParseFloat(f[c], 64)
				if err != nil || v != m.W[j*3+c] {
					t.Fatalf("-s %s: row %d: %q, want weights %v", flag(logistic), j, line, m.W[j*3:j*3+3])
				}
			}
		}
		back, err := model.ReadModel(&buf, "model")
		if err != nil {
			t.Fatal(err)
		}
		if back.SolverType != solverType(logistic) || fmt.Sprint(back.W) != fmt.Sprint(m.W) {
			t.Fatalf("-s %s: the model does not read back", flag(logistic))
		}
		predictWithLiblinear(t, d, m)
	}
	// liblinear's own -s 5 and 6 model files read as ours.
	if _, ok := testkit.Runs(testkit.LiblinearTrain); !ok {
		return
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	testkit.WriteLibSVM(t, d.Label, d.Row, data)
	for _, logistic := range problems {
		file := filepath.Join(dir, "model"+flag(logistic))
		if out, err := exec.Command(testkit.LiblinearTrain, "-s", flag(logistic), "-B", "1", data, file).CombinedOutput(); err != nil {
			t.Fatalf("liblinear-train: %v\n%s", err, out)
		}
		m, err := model.LoadModel(file)
		if err != nil {
			t.Fatalf("-s %s: liblinear's model: %v", flag(logistic), err)
		}
		if m.SolverType != solverType(logistic) || m.NrW != 3 || fmt.Sprint(m.Labels) != "[3 1 2]" {
			t.Fatalf("-s %s: liblinear's model reads as %s, nr_w %d, labels %v", flag(logistic), m.SolverType, m.NrW, m.Labels)
		}
		predictWithLiblinear(t, d, m)
	}
}

// TestL1BadInput: clear errors for data -s 5 and 6 cannot train, and a
// single class trained as liblinear does (one subproblem, every example
// positive).
func TestL1BadInput(t *testing.T) {
	for _, logistic := range problems {
		frac := &dataio.Dataset{Rows: 2, Features: 1, RowPtr: []int64{0, 1, 2}, Index: []int32{0, 0}, Value: []float64{1, 2},
			Label: []float64{1, 0.5}, Source: "frac.svm"}
		if _, _, err := train(context.Background(), frac, params{logistic: logistic}); err == nil || !strings.Contains(err.Error(), "not an integer") {
			t.Errorf("-s %s, label 0.5: error %v", flag(logistic), err)
		}
		if _, _, err := train(context.Background(), &dataio.Dataset{RowPtr: []int64{0}}, params{logistic: logistic}); err == nil || !strings.Contains(err.Error(), "no training examples") {
			t.Errorf("-s %s, no examples: error %v", flag(logistic), err)
		}
		one := synth.Classes(synth.ClassesConfig{Seed: 23, Rows: 50, Feats: 8, Density: 0.5, Labels: []float64{4}})
		m, res, err := train(context.Background(), one, params{logistic: logistic})
		if err != nil || len(m.Labels) != 1 || m.NrW != 1 || !res.Converged {
			t.Errorf("-s %s, one class: %v, labels %v", flag(logistic), err, m.Labels)
		}
	}
}

// TestL1Selections: every selection reaches the same optimum (their
// operations are compared on real data in docs/tuning.md).
func TestL1Selections(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 24, Rows: 400, Feats: 60, Density: 0.15, Labels: []float64{1, -1}, Noise: 0.05})
	for _, logistic := range problems {
		var ref float64
		for k, sel := range selections {
			_, res, err := train(context.Background(), d, params{logistic: logistic, c: 4, eps: 1e-6, sel: sel})
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				ref = res.Objective
			} else if math.Abs(res.Objective-ref) > 1e-6*ref {
				t.Errorf("-s %s --select %v: objective %.10g, %v's %.10g", flag(logistic), sel, res.Objective, selections[0], ref)
			}
		}
	}
}

// TestL1CancelAndProgress: Progress reports every epoch, and a cancelled
// run returns a partial model, its result marked cancelled (and no error:
// the caller wraps ctx's).
func TestL1CancelAndProgress(t *testing.T) {
	d := l1Data()["multiclass"]
	for _, logistic := range problems {
		calls := 0
		_, res, err := train(context.Background(), d, params{logistic: logistic, eps: 1e-4, progress: func(p fit.Progress) {
			calls++
			if !(p.Objective > 0) || p.Class < 0 || p.Class > 2 {
				t.Errorf("-s %s: progress %+v", flag(logistic), p)
			}
		}})
		if err != nil || calls == 0 {
			t.Fatalf("-s %s: %v, %d progress calls for %d epochs", flag(logistic), err, calls, res.Epochs)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m, res, err := train(ctx, d, params{logistic: logistic})
		if err != nil || !m.Partial || !res.Cancelled {
			t.Errorf("-s %s cancelled: %v, partial %v", flag(logistic), err, m.Partial)
		}
	}
}
