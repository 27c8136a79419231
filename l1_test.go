package acfcd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

var l1Problems = []Problem{L1SquaredHinge, L1Logistic}

// l1Eval recomputes, independently of package l1, F(w) and the
// minimum-norm subgradient's 1-norm at the model's weights of subproblem
// k, and that 1-norm at w = 0, for the costs of Params p as liblinear's
// train() sets them.
func l1Eval(d *dataio.Dataset, m *Model, k int, p Params) (f, gnorm, gnorm0 float64) {
	nrw := m.NrW
	rows := m.NumFeature
	if m.Bias > 0 {
		rows++
	}
	w := make([]float64, rows)
	for j := range w {
		w[j] = m.W[j*nrw+k]
	}
	pos := m.Labels[k]
	cp, cn := p.C, p.C
	if len(m.Labels) == 2 {
		cp, cn = p.C*weightOf(p, m.Labels[0]), p.C*weightOf(p, m.Labels[1])
	} else {
		cp = p.C * weightOf(p, pos)
	}
	eval := func(w []float64) (f float64, g []float64) {
		g = make([]float64, len(w))
		for i := 0; i < d.Rows; i++ {
			y, c := -1.0, cn
			if d.Label[i] == pos {
				y, c = 1, cp
			}
			a, b := d.RowPtr[i], d.RowPtr[i+1]
			var z float64
			for q := a; q < b; q++ {
				z += w[d.Index[q]] * d.Value[q]
			}
			if m.Bias > 0 {
				z += w[rows-1] * m.Bias
			}
			z *= y
			var dl float64 // dℓ/dz
			if p.Problem == L1SquaredHinge {
				t := math.Max(0, 1-z)
				f += c * t * t
				dl = -2 * t
			} else {
				f += c * math.Log1p(math.Exp(-z))
				dl = -1 / (1 + math.Exp(z))
			}
			for q := a; q < b; q++ {
				g[d.Index[q]] += c * y * dl * d.Value[q]
			}
			if m.Bias > 0 {
				g[rows-1] += c * y * dl * m.Bias
			}
		}
		return f, g
	}
	norm := func(w, g []float64) (l1, gn float64) {
		for j := range w {
			free := p.UnregularizedBias && m.Bias > 0 && j == rows-1
			var v float64
			switch {
			case free:
				v = math.Abs(g[j])
			case w[j] > 0:
				v = math.Abs(g[j] + 1)
			case w[j] < 0:
				v = math.Abs(g[j] - 1)
			default:
				v = math.Max(0, math.Abs(g[j])-1)
			}
			gn += v
			if !free {
				l1 += math.Abs(w[j])
			}
		}
		return l1, gn
	}
	loss, g := eval(w)
	l1, gnorm := norm(w, g)
	_, g0 := eval(make([]float64, rows))
	_, gnorm0 = norm(make([]float64, rows), g0)
	return loss + l1, gnorm, gnorm0
}

func weightOf(p Params, label float64) float64 {
	if w, ok := p.Weights[label]; ok {
		return w
	}
	return 1
}

// tolScale is liblinear's max(min(pos, neg), 1)/ℓ of subproblem k.
func tolScale(d *dataio.Dataset, m *Model, k int) float64 {
	pos := 0
	for _, y := range d.Label {
		if y == m.Labels[k] {
			pos++
		}
	}
	return float64(max(min(pos, d.Rows-pos), 1)) / float64(d.Rows)
}

func l1Data() map[string]*dataio.Dataset {
	return map[string]*dataio.Dataset{
		"binary":     genData(genSpec{seed: 21, rows: 300, feats: 40, density: 0.2, labels: []float64{1, -1}, noise: 0.1}),
		"multiclass": genData(genSpec{seed: 22, rows: 240, feats: 25, density: 0.3, labels: []float64{3, 1, 2}, noise: 0.05, scale: 3}),
	}
}

// TestL1Optimality checks, by an independent recomputation from the model,
// the objective each subproblem reports and the minimum-norm subgradient
// at the returned w: liblinear's stopping rule ‖∇^S F(w)‖₁ ≤
// eps·max(min(pos, neg), 1)/ℓ·‖∇^S F(0)‖₁ for -s 6 (whose ‖∇^S F(0)‖₁ is
// exact), and near-optimality at a tight eps for both, with every
// selection, class weights, a bias, and an unregularised bias.
func TestL1Optimality(t *testing.T) {
	for name, d := range l1Data() {
		for _, s := range l1Problems {
			for _, sel := range selections(s) {
				for _, pc := range []struct {
					c, bias float64
					unreg   bool
					weights map[float64]float64
				}{{1, 0, false, nil}, {10, 1, false, map[float64]float64{1: 2}}, {0.5, 1, true, nil}} {
					p := Params{Problem: s, C: pc.c, Bias: pc.bias, UnregularizedBias: pc.unreg, Weights: pc.weights, Select: sel}
					t.Run(fmt.Sprintf("%s/s=%s/%v/C=%g/B=%g/R=%v", name, s.Flag(), sel, pc.c, pc.bias, pc.unreg), func(t *testing.T) {
						m, res, err := Train(context.Background(), d, p)
						if err != nil {
							t.Fatal(err)
						}
						if !res.Converged || res.SupportVectors != -1 {
							t.Fatalf("converged %v, support vectors %d", res.Converged, res.SupportVectors)
						}
						subs := []Result{*res}
						if len(res.Classes) > 0 {
							subs = res.Classes
						}
						for k, r := range subs {
							f, gn, gn0 := l1Eval(d, m, k, p)
							if math.Abs(f-r.Objective) > 1e-9*math.Abs(f) || r.Primal != r.Objective {
								t.Errorf("class %d: objective %.12g, recomputed %.12g (primal %.12g)", k, r.Objective, f, r.Primal)
							}
							if !(r.Violation <= DefaultL1Eps) {
								t.Errorf("class %d: violation %g above eps", k, r.Violation)
							}
							if s == L1Logistic {
								if tol := DefaultL1Eps * tolScale(d, m, k) * gn0; gn > tol*(1+1e-9) {
									t.Errorf("class %d: ‖∇^S F(w)‖₁ = %g above the tolerance %g", k, gn, tol)
								}
								if rel := gn / (gn0 * tolScale(d, m, k)); math.Abs(rel-r.Violation) > 1e-9*rel+1e-15 {
									t.Errorf("class %d: violation %g, recomputed %g", k, r.Violation, rel)
								}
							}
						}
						// At eps = 1e-7 w is optimal to about that much.
						p.Eps = 1e-7
						m, res, err = Train(context.Background(), d, p)
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
	if _, err := os.Stat(liblinearTrain); err != nil {
		t.Skip("liblinear-train not installed (apt-get install liblinear-tools)")
	}
	for name, d := range l1Data() {
		data := filepath.Join(t.TempDir(), "data")
		writeLibSVM(t, d, data)
		for _, s := range l1Problems {
			for _, bias := range []float64{0, 1} {
				t.Run(fmt.Sprintf("%s/s=%s/B=%g", name, s.Flag(), bias), func(t *testing.T) {
					p := Params{Problem: s, C: 2, Bias: bias, Weights: map[float64]float64{1: 1.5}, Eps: 1e-5}
					lib, labels, _, capped := runLiblinear(t, data, p)
					if capped {
						t.Skip("liblinear stopped at its iteration cap")
					}
					m, res, err := Train(context.Background(), d, p)
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

// TestL1UnregularizedBias: with -R the bias weight has no |w_b| term, so
// the model predicts the same whatever the bias value B (w_b·B is free),
// and the objective has no |w_b| (TestL1Optimality recomputes it); with
// liblinear 2.50 installed at ACFCD_LIBLINEAR_250, the objective is
// liblinear's.
func TestL1UnregularizedBias(t *testing.T) {
	d := l1Data()["binary"]
	for _, s := range l1Problems {
		dec := map[float64][]float64{}
		for _, b := range []float64{1, 8} {
			p := Params{Problem: s, C: 1, Bias: b, UnregularizedBias: true, Eps: 1e-8}
			m, _, err := Train(context.Background(), d, p)
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
				t.Fatalf("-s %s -R: decision value %d is %g with B = 1 and %g with B = 8", s.Flag(), i, dec[1][i], dec[8][i])
			}
		}
		// With the bias regularised, B changes the model.
		p := Params{Problem: s, C: 1, Bias: 8, Eps: 1e-8}
		m, _, err := Train(context.Background(), d, p)
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
			t.Errorf("-s %s: the regularised bias gives the model of -R", s.Flag())
		}
	}
	lib := os.Getenv("ACFCD_LIBLINEAR_250")
	if lib == "" {
		return
	}
	data := filepath.Join(t.TempDir(), "data")
	writeLibSVM(t, d, data)
	for _, s := range l1Problems {
		out, err := exec.Command(lib, "-s", s.Flag(), "-c", "1", "-e", "1e-6", "-B", "1", "-R", data, filepath.Join(t.TempDir(), "m")).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", lib, err, out)
		}
		mm := objectiveRE.FindStringSubmatch(string(out))
		want, _ := strconv.ParseFloat(mm[1], 64)
		_, res, err := Train(context.Background(), d, Params{Problem: s, C: 1, Bias: 1, UnregularizedBias: true, Eps: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.Objective-want) > 1e-5*want+1e-6 {
			t.Errorf("-s %s -R: objective %.9g, liblinear 2.50 %.6f", s.Flag(), res.Objective, want)
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
	for _, s := range l1Problems {
		m, res, err := Train(context.Background(), d, Params{Problem: s, C: 1, Bias: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Classes) != 3 || m.NrW != 3 || len(m.W) != 3*(d.Features+1) {
			t.Fatalf("-s %s: %d classes, nr_w %d, %d weights", s.Flag(), len(res.Classes), m.NrW, len(m.W))
		}
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		head := fmt.Sprintf("solver_type %s\nnr_class 3\nlabel 3 1 2\nnr_feature %d\nbias 1\nw\n", s, d.Features)
		if !strings.HasPrefix(buf.String(), head) {
			t.Fatalf("-s %s: model file starts\n%s\nwant\n%s", s.Flag(), buf.String()[:min(len(buf.String()), 120)], head)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		if rows := len(lines) - 6; rows != d.Features+1 {
			t.Fatalf("-s %s: %d weight rows, want %d", s.Flag(), rows, d.Features+1)
		}
		for j, line := range lines[6:] {
			f := strings.Fields(line)
			for c := range 3 {
				v, err := strconv.ParseFloat(f[c], 64)
				if err != nil || v != m.W[j*3+c] {
					t.Fatalf("-s %s: row %d: %q, want weights %v", s.Flag(), j, line, m.W[j*3:j*3+3])
				}
			}
		}
		back, err := ReadModel(&buf, "model")
		if err != nil {
			t.Fatal(err)
		}
		if back.SolverType != s.String() || fmt.Sprint(back.W) != fmt.Sprint(m.W) {
			t.Fatalf("-s %s: the model does not read back", s.Flag())
		}
		predictWithLiblinear(t, d, m)
	}
	// liblinear's own -s 5 and 6 model files read as ours.
	if _, err := os.Stat(liblinearTrain); err != nil {
		return
	}
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeLibSVM(t, d, data)
	for _, s := range l1Problems {
		file := filepath.Join(dir, "model"+s.Flag())
		if out, err := exec.Command(liblinearTrain, "-s", s.Flag(), "-B", "1", data, file).CombinedOutput(); err != nil {
			t.Fatalf("liblinear-train: %v\n%s", err, out)
		}
		m, err := LoadModel(file)
		if err != nil {
			t.Fatalf("-s %s: liblinear's model: %v", s.Flag(), err)
		}
		if m.SolverType != s.String() || m.NrW != 3 || fmt.Sprint(m.Labels) != "[3 1 2]" {
			t.Fatalf("-s %s: liblinear's model reads as %s, nr_w %d, labels %v", s.Flag(), m.SolverType, m.NrW, m.Labels)
		}
		predictWithLiblinear(t, d, m)
	}
}

// predictWithLiblinear runs liblinear-predict, when installed, on d with
// m and compares its predictions with m.Predict.
func predictWithLiblinear(t *testing.T, d *dataio.Dataset, m *Model) {
	t.Helper()
	predict := filepath.Join(filepath.Dir(liblinearTrain), "liblinear-predict")
	if _, err := os.Stat(predict); err != nil {
		return
	}
	dir := t.TempDir()
	data, model, out := filepath.Join(dir, "data"), filepath.Join(dir, "model"), filepath.Join(dir, "out")
	writeLibSVM(t, d, data)
	if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(predict, data, model, out).CombinedOutput(); err != nil {
		t.Fatalf("liblinear-predict: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(string(b))
	if len(got) != d.Rows {
		t.Fatalf("liblinear-predict: %d predictions for %d rows", len(got), d.Rows)
	}
	for i := range d.Rows {
		a, e := d.RowPtr[i], d.RowPtr[i+1]
		if want := m.Predict(d.Index[a:e], d.Value[a:e]); got[i] != strconv.FormatFloat(want, 'g', -1, 64) {
			t.Fatalf("row %d: liblinear-predict says %s, we %g", i, got[i], want)
		}
	}
}

// TestL1BadInput: clear errors for what -s 5 and 6 cannot train, and a
// single class trained as liblinear does (one subproblem, every example
// positive).
func TestL1BadInput(t *testing.T) {
	d := l1Data()["binary"]
	for _, s := range l1Problems {
		for _, tc := range []struct {
			p    Params
			want string
		}{
			{Params{Problem: s, UnregularizedBias: true}, "to not regularize the bias, specify a bias with -B"},
			{Params{Problem: s, C: -1}, "C must be a positive finite number"},
			{Params{Problem: s, Eps: math.NaN()}, "eps must be >= 0"},
			{Params{Problem: s, Weights: map[float64]float64{1: -2}}, "weight -2 of class 1"},
			{Params{Problem: s, Select: Selection(99)}, "coordinate selection"},
		} {
			if _, _, err := Train(context.Background(), d, tc.p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("-s %s %+v: error %v, want %q", s.Flag(), tc.p, err, tc.want)
			}
		}
		frac := &dataio.Dataset{Rows: 2, Features: 1, RowPtr: []int64{0, 1, 2}, Index: []int32{0, 0}, Value: []float64{1, 2},
			Label: []float64{1, 0.5}, Source: "frac.svm"}
		if _, _, err := Train(context.Background(), frac, Params{Problem: s}); err == nil || !strings.Contains(err.Error(), "not an integer") {
			t.Errorf("-s %s, label 0.5: error %v", s.Flag(), err)
		}
		if _, _, err := Train(context.Background(), &dataio.Dataset{RowPtr: []int64{0}}, Params{Problem: s}); err == nil || !strings.Contains(err.Error(), "no training examples") {
			t.Errorf("-s %s, no examples: error %v", s.Flag(), err)
		}
		one := genData(genSpec{seed: 23, rows: 50, feats: 8, density: 0.5, labels: []float64{4}})
		m, res, err := Train(context.Background(), one, Params{Problem: s})
		if err != nil || len(m.Labels) != 1 || m.NrW != 1 || !res.Converged {
			t.Errorf("-s %s, one class: %v, labels %v", s.Flag(), err, m.Labels)
		}
	}
}

// TestL1Selections: every selection reaches the same optimum (their
// operations are compared on real data in docs/tuning.md).
func TestL1Selections(t *testing.T) {
	d := genData(genSpec{seed: 24, rows: 400, feats: 60, density: 0.15, labels: []float64{1, -1}, noise: 0.05})
	for _, s := range l1Problems {
		var ref float64
		for k, sel := range selections(s) {
			_, res, err := Train(context.Background(), d, Params{Problem: s, C: 4, Eps: 1e-6, Select: sel})
			if err != nil {
				t.Fatal(err)
			}
			if k == 0 {
				ref = res.Objective
			} else if math.Abs(res.Objective-ref) > 1e-6*ref {
				t.Errorf("-s %s --select %v: objective %.10g, %v's %.10g", s.Flag(), sel, res.Objective, selections(s)[0], ref)
			}
		}
	}
}

// TestL1CancelAndProgress: Progress reports every epoch, and a cancelled
// run returns a partial model and an error wrapping context.Canceled.
func TestL1CancelAndProgress(t *testing.T) {
	d := l1Data()["multiclass"]
	for _, s := range l1Problems {
		calls := 0
		_, res, err := Train(context.Background(), d, Params{Problem: s, Eps: 1e-4, Progress: func(p Progress) {
			calls++
			if !(p.Objective > 0) || p.Class < 0 || p.Class > 2 {
				t.Errorf("-s %s: progress %+v", s.Flag(), p)
			}
		}})
		if err != nil || calls == 0 {
			t.Fatalf("-s %s: %v, %d progress calls for %d epochs", s.Flag(), err, calls, res.Epochs)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m, res, err := Train(ctx, d, Params{Problem: s})
		if !errors.Is(err, context.Canceled) || !m.Partial || !res.Cancelled {
			t.Errorf("-s %s cancelled: %v, partial %v", s.Flag(), err, m.Partial)
		}
	}
}
