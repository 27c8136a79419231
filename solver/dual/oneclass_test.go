package dual

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// liblinear250 returns the folder of liblinear 2.50's train and predict
// (ACFCD_LIBLINEAR250, or where the benchmarks keep them), the first
// release with -s 21 in reach; "" when absent.
func liblinear250() string {
	dir := os.Getenv("ACFCD_LIBLINEAR250")
	if dir == "" {
		dir = "/work/anchors/liblinear-2.50"
	}
	if _, err := os.Stat(filepath.Join(dir, "train")); err != nil {
		return ""
	}
	return dir
}

// oneClassPrimal recomputes the primal objective of the one-class SVM at
// the model's w and ρ with plain loops: ½‖w‖² − νlρ + Σ max(0, ρ − wᵀx_i).
func oneClassPrimal(d *dataio.Dataset, m *model.Model, nu float64) float64 {
	var ww float64
	for _, v := range m.W {
		ww += v * v
	}
	P := ww/2 - nu*float64(d.Rows)*m.Rho
	for i := range d.Rows {
		var wx float64
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			wx += m.W[d.Index[k]] * d.Value[k]
		}
		P += max(0, m.Rho-wx)
	}
	return P
}

// TestOneClassConverges: every selection converges; the primal at the
// model's w and ρ, recomputed, is the reported one, and the duality gap
// P(w, ρ) + ½‖w‖² (non-negative at any dual point) closes at a tight eps;
// predictions are the sign of wᵀx − ρ.
func TestOneClassConverges(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 31, Rows: 300, Feats: 20, Density: 0.3, Labels: []float64{1, -1}})
	for _, nu := range []float64{0.05, 0.5, 1} {
		for _, sel := range []solver.Selection{solver.ACFShrink, solver.ACF, solver.Uniform, solver.Shrink} {
			for _, eps := range []float64{0, 1e-9} {
				s := Spec{Spec: fit.Spec{Eps: eps, Select: sel}, Kind: OneClass, Nu: nu}
				m, res, err := train(context.Background(), d, s)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("ν %g %v eps %g", nu, sel, eps)
				P := oneClassPrimal(d, m, nu)
				scale := 1 + math.Abs(res.Objective)
				if !res.Converged || math.Abs(P-res.Primal) > 1e-9*scale || res.Gap < -1e-9*scale || (eps != 0 && res.Gap > 1e-7*scale) {
					t.Fatalf("%s: converged %v, primal %g (recomputed %g), dual %g, gap %g", name, res.Converged, res.Primal, P, -res.Objective, res.Gap)
				}
				if res.SupportVectors < int(nu*float64(d.Rows)) || m.Labels != nil || m.Bias != -1 || res.NNZW != m.NNZ() {
					t.Fatalf("%s: %d support vectors (νl = %g), labels %v, bias %g", name, res.SupportVectors, nu*float64(d.Rows), m.Labels, m.Bias)
				}
				m.SolverType = solverType(OneClass) // what Predict goes by
				out := make([]float64, 1)
				for i := range d.Rows {
					idx, val := d.Row(i)
					m.Decision(idx, val, out)
					if want := map[bool]float64{true: 1, false: -1}[out[0] > 0]; m.Predict(idx, val) != want {
						t.Fatalf("%s: example %d predicted %g, decision value %g", name, i, m.Predict(idx, val), out[0])
					}
				}
			}
		}
	}
}

var rhoRE = regexp.MustCompile(`rho = (\S+)`)

// TestOneClassAgainstLiblinear250: objective, ρ and the predictions of
// liblinear 2.50 (the first release in reach with -s 21; Debian's 2.3.0
// has none), when present; its predict reads our model and we read its.
func TestOneClassAgainstLiblinear250(t *testing.T) {
	dir := liblinear250()
	if dir == "" {
		t.Skip("liblinear 2.50 not found (ACFCD_LIBLINEAR250)")
	}
	d := synth.Classes(synth.ClassesConfig{Seed: 32, Rows: 250, Feats: 12, Density: 0.5, Labels: []float64{1, -1}})
	tmp := t.TempDir()
	data := filepath.Join(tmp, "data")
	testkit.WriteLibSVM(t, d.Label, d.Row, data)
	for _, nu := range []float64{0.1, 0.5} {
		lib := filepath.Join(tmp, "lib")
		out, err := exec.Command(filepath.Join(dir, "train"), "-s", "21", "-n", fmt.Sprint(nu), "-e", "1e-6", data, lib).CombinedOutput()
		if err != nil {
			t.Fatalf("liblinear train: %v\n%s", err, out)
		}
		obj, _ := strconv.ParseFloat(testkit.LiblinearObjective.FindStringSubmatch(string(out))[1], 64)
		rho, _ := strconv.ParseFloat(rhoRE.FindStringSubmatch(string(out))[1], 64)
		m, res, err := train(context.Background(), d, Spec{Spec: fit.Spec{Eps: 1e-9}, Kind: OneClass, Nu: nu})
		if err != nil {
			t.Fatal(err)
		}
		m.SolverType = solverType(OneClass)
		if math.Abs(res.Objective-obj) > 2e-6+1e-6*obj || math.Abs(m.Rho-rho) > 1e-5*(1+math.Abs(rho)) {
			t.Fatalf("ν %g: objective %.9f, ρ %.9f; liblinear %.6f, %.6f", nu, res.Objective, m.Rho, obj, rho)
		}
		ours := filepath.Join(tmp, "ours")
		if err := m.Save(ours); err != nil {
			t.Fatal(err)
		}
		for _, file := range []string{ours, lib} {
			pred := filepath.Join(tmp, "pred")
			if out, err := exec.Command(filepath.Join(dir, "predict"), data, file, pred).CombinedOutput(); err != nil {
				t.Fatalf("liblinear predict: %v\n%s", err, out)
			}
			b, _ := os.ReadFile(pred)
			mm, err := model.LoadModel(file)
			if err != nil {
				t.Fatal(err)
			}
			if want := predictions(mm, d); string(b) != want {
				t.Fatalf("ν %g, %s: liblinear predicts\n%s\nwe predict\n%s", nu, filepath.Base(file), b, want)
			}
		}
	}
}

// TestOneClassModelFile: liblinear's layout, with a rho line and no label
// line, read back exactly.
func TestOneClassModelFile(t *testing.T) {
	d := &dataio.Dataset{Rows: 5, Features: 2, RowPtr: []int64{0, 2, 3, 5, 6, 7}, Index: []int32{0, 1, 0, 0, 1, 1, 0},
		Value: []float64{1, 1, 2, 0.5, 0.5, -1, 3}, Label: []float64{1, 1, 1, 1, 1}}
	m, _, err := train(context.Background(), d, Spec{Spec: fit.Spec{Eps: 1e-9}, Kind: OneClass, Nu: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	m.SolverType = solverType(OneClass)
	path := filepath.Join(t.TempDir(), "m")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	want := "solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 2\nbias -1\nrho " + strconv.FormatFloat(m.Rho, 'g', 17, 64) +
		"\nw\n" + strconv.FormatFloat(m.W[0], 'g', 17, 64) + " \n" + strconv.FormatFloat(m.W[1], 'g', 17, 64) + " \n"
	if string(b) != want {
		t.Fatalf("model file:\n%s\nwant\n%s", b, want)
	}
	back, err := model.LoadModel(path)
	if err != nil || back.Rho != m.Rho || fmt.Sprint(back.W) != fmt.Sprint(m.W) {
		t.Fatalf("read back: %v %+v", err, back)
	}
}

// TestOneClassWeights: weights are ignored with a warning.
func TestOneClassWeights(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 33, Rows: 20, Feats: 3, Density: 0.6, Labels: []float64{1}})
	_, res, err := train(context.Background(), d, Spec{Spec: fit.Spec{Weights: map[float64]float64{1: 3}}, Kind: OneClass})
	if err != nil || len(res.Warnings) != 1 {
		t.Fatalf("weights: %v, %q", err, res.Warnings)
	}
}

// TestOneClassCancelled: a cancelled run returns a partial model with its
// ρ and its result marked cancelled.
func TestOneClassCancelled(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 34, Rows: 100, Feats: 5, Density: 0.5, Labels: []float64{1}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, res, err := train(ctx, d, Spec{Kind: OneClass, Nu: 0.3})
	if err != nil || m == nil || !m.Partial || !res.Cancelled || m.Rho == 0 {
		t.Fatalf("err %v, model %+v, result %+v", err, m, res)
	}
}
