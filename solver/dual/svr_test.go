package dual

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// liblinearPredict is Debian's liblinear-predict (2.3.0).
const liblinearPredict = "/usr/bin/liblinear-predict"

// regData draws a regression problem: rows with random sparse features in
// (−1, 1), targets a random linear score plus noise and an offset (which
// only a bias can fit).
func regData(seed uint64, rows, feats int, density, noise, offset float64) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 0x5e))
	truth := make([]float64, feats)
	for j := range truth {
		truth[j] = 2 * r.NormFloat64()
	}
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, 1, rows+1), Value: []float64{}}
	for range rows {
		y := offset + noise*r.NormFloat64()
		for j := range feats {
			if r.Float64() >= density {
				continue
			}
			v := math.Round((2*r.Float64()-1)*1e4) / 1e4 // short decimals: the same values in any text
			if v == 0 {
				continue
			}
			d.Index = append(d.Index, int32(j))
			d.Value = append(d.Value, v)
			y += v * truth[j]
		}
		d.Label = append(d.Label, math.Round(y*1e6)/1e6)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

// svrPrimal recomputes the primal objective of -s 12/13 at the model's w
// with plain loops: ½‖w‖² + C·Σ loss(wᵀx_i − y_i).
func svrPrimal(d *dataio.Dataset, m *model.Model, s Spec) float64 {
	s = resolved(s)
	var ww float64
	for _, v := range m.W {
		ww += v * v
	}
	eps := max(s.P, 0)
	var loss float64
	for i := range d.Rows {
		var wx float64
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			wx += m.W[d.Index[k]] * d.Value[k]
		}
		if m.Bias >= 0 {
			wx += m.Bias * m.W[d.Features]
		}
		if e := math.Abs(wx-d.Label[i]) - eps; e > 0 {
			if s.Kind == L2LossSVR {
				loss += s.C * e * e
			} else {
				loss += s.C * e
			}
		}
	}
	return ww/2 + loss
}

// TestSVRConverges: every selection converges; the primal objective
// recomputed from the model is the reported one, the duality gap is
// non-negative, and at a tight eps closed; the support vectors are counted.
func TestSVRConverges(t *testing.T) {
	d := regData(3, 200, 15, 0.3, 0.3, 1.5)
	for _, k := range []Kind{L2LossSVR, L1LossSVR} {
		for _, sel := range []solver.Selection{solver.ACFShrink, solver.ACF, solver.Uniform, solver.Shrink} {
			for _, eps := range []float64{0, 1e-8} {
				s := Spec{Spec: fit.Spec{C: 2, Bias: 1, Eps: eps, Select: sel, MaxEpochs: 10000}, Kind: k, P: 0.2}
				if sel == solver.Shrink && k == L1LossSVR && eps != 0 {
					s.Eps = 1e-4 // liblinear's shrinking alone stalls here, as liblinear does
				}
				m, res, err := train(context.Background(), d, s)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("-s %s %v eps %g", flag(k), sel, s.Eps)
				primal := svrPrimal(d, m, s)
				if !res.Converged || math.Abs(primal-res.Primal) > 1e-9*primal || res.Gap < -1e-9*primal || math.Abs(res.Gap-(res.Primal+res.Objective)) > 1e-9*primal {
					t.Fatalf("%s: converged %v, primal %g (recomputed %g), dual %g, gap %g", name, res.Converged, res.Primal, primal, -res.Objective, res.Gap)
				}
				if s.Eps != 0 && s.Eps < 1e-5 && res.Gap > 1e-6*primal {
					t.Fatalf("%s: gap %g of primal %g", name, res.Gap, primal)
				}
				if res.SupportVectors <= 0 || res.SupportVectors > d.Rows || res.NNZW != m.NNZ() || m.Labels != nil || m.NrW != 1 {
					t.Fatalf("%s: %d support vectors, nnz %d (model %d), labels %v, NrW %d", name, res.SupportVectors, res.NNZW, m.NNZ(), m.Labels, m.NrW)
				}
			}
		}
	}
}

// TestSVRAgainstLiblinear compares the dual objective with Debian's
// liblinear-train (2.3.0, which has -s 12 and 13), when installed.
func TestSVRAgainstLiblinear(t *testing.T) {
	testkit.NeedLiblinear(t)
	d := regData(4, 150, 10, 0.4, 0.5, 2)
	data := filepath.Join(t.TempDir(), "data")
	testkit.WriteLibSVM(t, d.Label, d.Row, data)
	for _, k := range []Kind{L2LossSVR, L1LossSVR} {
		for _, c := range []float64{0.5, 8} {
			for _, pe := range []float64{0.05, 0.6} {
				for _, bias := range []float64{-1, 1} {
					t.Run(fmt.Sprintf("s=%s/C=%g/p=%g/B=%g", flag(k), c, pe, bias), func(t *testing.T) {
						lib := testkit.RunLiblinear(t, testkit.LiblinearTrain, data, append(testkit.LiblinearArgs(flag(k), c, 1e-6, bias, nil), "-p", fmt.Sprint(pe))...)
						if lib.Capped {
							t.Skip("liblinear stopped at its iteration cap: not comparable")
						}
						want := lib.Objectives[0]
						_, res, err := train(context.Background(), d, Spec{Spec: fit.Spec{C: c, Eps: 1e-8, Bias: bias}, Kind: k, P: pe})
						if err != nil {
							t.Fatal(err)
						}
						// liblinear prints 6 decimals; at eps 1e-6 its objective
						// is within about 1e-7 relative of the optimum.
						if math.Abs(res.Objective-want) > 2e-6+1e-6*math.Abs(want) {
							t.Fatalf("objective %.9f, liblinear %.6f", res.Objective, want)
						}
					})
				}
			}
		}
	}
}

// TestSVRModelFile: the model file has liblinear's layout (no label line,
// nr_class 2), liblinear-predict's predictions on it are ours, and ours on
// liblinear's model are its.
func TestSVRModelFile(t *testing.T) {
	d := &dataio.Dataset{Rows: 4, Features: 3, RowPtr: []int64{0, 2, 3, 5, 6}, Index: []int32{0, 2, 1, 0, 2, 1},
		Value: []float64{1, 0.5, -1, 0.25, 1, 2}, Label: []float64{1.5, -1, 0.75, 3}}
	m, _, err := train(context.Background(), d, Spec{Spec: fit.Spec{C: 10, Bias: 1, Eps: 1e-6}, Kind: L1LossSVR, P: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	m.SolverType = solverType(L1LossSVR)
	dir := t.TempDir()
	path := filepath.Join(dir, "m")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	head := "solver_type L2R_L1LOSS_SVR_DUAL\nnr_class 2\nnr_feature 3\nbias 1\nw\n"
	if !strings.HasPrefix(string(b), head) || strings.Count(string(b), "\n") != 9 {
		t.Fatalf("model file:\n%s\nwant the header\n%s and 4 weight rows", b, head)
	}
	back, err := model.LoadModel(path)
	if err != nil || back.SolverType != m.SolverType || fmt.Sprint(back.W) != fmt.Sprint(m.W) {
		t.Fatalf("read back: %v, %+v", err, back)
	}
	testkit.NeedTool(t, liblinearPredict)
	data := filepath.Join(dir, "data")
	testkit.WriteLibSVM(t, d.Label, d.Row, data)
	checkPredictions(t, d, data, path)
	libModel := filepath.Join(dir, "lib")
	if out, err := exec.Command(testkit.LiblinearTrain, "-s", "13", "-c", "10", "-B", "1", data, libModel).CombinedOutput(); err != nil {
		t.Fatalf("liblinear-train: %v\n%s", err, out)
	}
	checkPredictions(t, d, data, libModel)
}

// checkPredictions compares liblinear-predict's output for the model file
// with ours, printed as liblinear prints them (%.17g).
func checkPredictions(t *testing.T, d *dataio.Dataset, data, file string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if b, err := exec.Command(liblinearPredict, data, file, out).CombinedOutput(); err != nil {
		t.Fatalf("liblinear-predict: %v\n%s", err, b)
	}
	b, _ := os.ReadFile(out)
	m, err := model.LoadModel(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := predictions(m, d); string(b) != want {
		t.Fatalf("liblinear-predict on %s:\n%s\nours:\n%s", filepath.Base(file), b, want)
	}
}

// TestSVRBadInput: targets that are not finite are refused naming the
// line; weights are ignored with a warning; a negative P means ε = 0.
func TestSVRBadInput(t *testing.T) {
	d := regData(6, 30, 4, 0.5, 0.1, 0)
	d.Source = "reg.svm"
	d.Label[7] = math.Inf(1)
	_, _, err := train(context.Background(), d, Spec{Kind: L1LossSVR})
	if err == nil || err.Error() != "reg.svm: example 8: label +Inf is not finite" {
		t.Fatalf("error %v", err)
	}
	d.Label[7] = 1
	_, res, err := train(context.Background(), d, Spec{Spec: fit.Spec{Weights: map[float64]float64{1: 2}}, Kind: L2LossSVR})
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "class weights") {
		t.Fatalf("error %v, warnings %q", err, res.Warnings)
	}
	trainP := func(pe float64) string {
		m, _, err := train(context.Background(), d, Spec{Spec: fit.Spec{Eps: 1e-6}, Kind: L1LossSVR, P: pe})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(m.W)
	}
	if trainP(-1) != trainP(-5) || trainP(-1) == trainP(0.1) {
		t.Fatal("a negative P is not ε = 0")
	}
}

// TestSVRCancelled: a cancelled run returns its partial model and its
// result marked cancelled.
func TestSVRCancelled(t *testing.T) {
	d := regData(8, 100, 6, 0.5, 0.1, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, res, err := train(ctx, d, Spec{Kind: L2LossSVR})
	if err != nil || m == nil || !m.Partial || !res.Cancelled || res.Converged {
		t.Fatalf("err %v, model %v, result %+v", err, m != nil, res)
	}
}

// TestSVRNewtonSwitch: -s 12 at large C hands over to primal Newton
// (forced at once here), which ends converged at the primal optimum: the
// primal gradient, recomputed with plain loops from the model, vanishes,
// and the gap is closed.
func TestSVRNewtonSwitch(t *testing.T) {
	d := regData(10, 300, 8, 0.5, 0.5, 3)
	s := Spec{Spec: fit.Spec{C: 1000, Bias: 1}, Kind: L2LossSVR, P: 0.1}
	m, res, err := train(withSwitch(1), d, s)
	if err != nil {
		t.Fatal(err)
	}
	primal := svrPrimal(d, m, s)
	if res.NewtonSteps == 0 || !res.Converged || math.Abs(primal-res.Primal) > 1e-9*primal || math.Abs(res.Gap) > 1e-9*primal {
		t.Fatalf("%d Newton steps, converged %v, primal %g (recomputed %g), gap %g", res.NewtonSteps, res.Converged, res.Primal, primal, res.Gap)
	}
	// ∇P(w) = w + 2C Σ sign(r_i)(|r_i| − p)₊ x_i, r_i = wᵀx_i − y_i; at w = 0
	// for scale.
	grad := func(w []float64) float64 {
		g := append([]float64(nil), w...)
		for i := range d.Rows {
			wx := w[d.Features]
			for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
				wx += w[d.Index[k]] * d.Value[k]
			}
			r := wx - d.Label[i]
			if e := math.Abs(r) - s.P; e > 0 {
				c := 2 * s.C * math.Copysign(e, r)
				for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
					g[d.Index[k]] += c * d.Value[k]
				}
				g[d.Features] += c
			}
		}
		var n float64
		for _, v := range g {
			n += v * v
		}
		return math.Sqrt(n)
	}
	if g, g0 := grad(m.W), grad(make([]float64, len(m.W))); g > 1e-9*g0 {
		t.Fatalf("‖∇P‖ = %g at the model, %g at 0", g, g0)
	}
}

// TestSVRAndOneClassProgress: Progress is called once per epoch with the
// tracked objective, the last one the result's (without the finisher of
// -s 13, which takes over at this eps and ends after the last epoch).
func TestSVRAndOneClassProgress(t *testing.T) {
	for _, s := range []Spec{{Spec: fit.Spec{Eps: 1e-4, Select: solver.Uniform, NoFallback: true}, Kind: L1LossSVR}, {Spec: fit.Spec{Eps: 1e-6, Select: solver.Uniform}, Kind: OneClass}} {
		d := regData(11, 120, 6, 0.5, 0.2, 1)
		var calls []fit.Progress
		s.Progress = func(pr fit.Progress) { calls = append(calls, pr) }
		_, res, err := train(context.Background(), d, s)
		if err != nil {
			t.Fatal(err)
		}
		last := calls[len(calls)-1]
		if len(calls) != res.Epochs || last.Epoch != res.Epochs || math.Abs(last.Objective-res.Objective) > 1e-9*(1+math.Abs(res.Objective)) {
			t.Fatalf("-s %s: %d calls for %d epochs, last %+v, objective %g", flag(s.Kind), len(calls), res.Epochs, last, res.Objective)
		}
	}
}
