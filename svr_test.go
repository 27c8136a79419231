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
func svrPrimal(d *dataio.Dataset, m *Model, p Params) float64 {
	var ww float64
	for _, v := range m.W {
		ww += v * v
	}
	eps := max(p.P, 0)
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
			if p.Problem == SquaredSVRDual {
				loss += p.C * e * e
			} else {
				loss += p.C * e
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
	for _, s := range []Problem{SquaredSVRDual, SVRDual} {
		for _, sel := range []Selection{ACFShrink, ACF, Uniform, Shrink} {
			for _, eps := range []float64{0, 1e-8} {
				p := Params{Problem: s, C: 2, P: 0.2, Bias: 1, Eps: eps, Select: sel, MaxEpochs: 10000}
				if sel == Shrink && s == SVRDual && eps != 0 {
					p.Eps = 1e-4 // liblinear's shrinking alone stalls here, as liblinear does
				}
				m, res, err := Train(context.Background(), d, p)
				if err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("-s %s %v eps %g", s.Flag(), sel, p.Eps)
				primal := svrPrimal(d, m, p)
				if !res.Converged || math.Abs(primal-res.Primal) > 1e-9*primal || res.Gap < -1e-9*primal || math.Abs(res.Gap-(res.Primal+res.Objective)) > 1e-9*primal {
					t.Fatalf("%s: converged %v, primal %g (recomputed %g), dual %g, gap %g", name, res.Converged, res.Primal, primal, -res.Objective, res.Gap)
				}
				if p.Eps != 0 && p.Eps < 1e-5 && res.Gap > 1e-6*primal {
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
	if _, err := os.Stat(liblinearTrain); err != nil {
		t.Skip("liblinear-train not installed (apt-get install liblinear-tools)")
	}
	d := regData(4, 150, 10, 0.4, 0.5, 2)
	data := filepath.Join(t.TempDir(), "data")
	writeLibSVM(t, d, data)
	for _, s := range []Problem{SquaredSVRDual, SVRDual} {
		for _, c := range []float64{0.5, 8} {
			for _, pe := range []float64{0.05, 0.6} {
				for _, bias := range []float64{-1, 1} {
					t.Run(fmt.Sprintf("s=%s/C=%g/p=%g/B=%g", s.Flag(), c, pe, bias), func(t *testing.T) {
						args := []string{"-s", s.Flag(), "-c", fmt.Sprint(c), "-p", fmt.Sprint(pe), "-e", "1e-6", "-B", fmt.Sprint(bias), data, filepath.Join(t.TempDir(), "m")}
						out, err := exec.Command(liblinearTrain, args...).CombinedOutput()
						if err != nil {
							t.Fatalf("liblinear-train %v: %v\n%s", args, err, out)
						}
						if strings.Contains(string(out), "reaching max number of iterations") {
							t.Skip("liblinear stopped at its iteration cap: not comparable")
						}
						obj := objectiveRE.FindStringSubmatch(string(out))
						want, _ := strconv.ParseFloat(obj[1], 64)
						_, res, err := Train(context.Background(), d, Params{Problem: s, C: c, P: pe, Eps: 1e-8, Bias: bias})
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
	m, _, err := Train(context.Background(), d, Params{Problem: SVRDual, C: 10, P: 0.1, Bias: 1, Eps: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
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
	back, err := LoadModel(path)
	if err != nil || back.SolverType != m.SolverType || fmt.Sprint(back.W) != fmt.Sprint(m.W) {
		t.Fatalf("read back: %v, %+v", err, back)
	}
	if _, err := os.Stat(liblinearPredict); err != nil {
		t.Skip("liblinear-predict not installed")
	}
	data := filepath.Join(dir, "data")
	writeLibSVM(t, d, data)
	checkPredictions(t, d, data, path)
	libModel := filepath.Join(dir, "lib")
	if out, err := exec.Command(liblinearTrain, "-s", "13", "-c", "10", "-B", "1", data, libModel).CombinedOutput(); err != nil {
		t.Fatalf("liblinear-train: %v\n%s", err, out)
	}
	checkPredictions(t, d, data, libModel)
}

// checkPredictions compares liblinear-predict's output for the model file
// with ours, printed as liblinear prints them (%.17g).
func checkPredictions(t *testing.T, d *dataio.Dataset, data, model string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	if b, err := exec.Command(liblinearPredict, data, model, out).CombinedOutput(); err != nil {
		t.Fatalf("liblinear-predict: %v\n%s", err, b)
	}
	b, _ := os.ReadFile(out)
	m, err := LoadModel(model)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := Evaluate(m, d)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	for _, y := range ev.Predicted {
		want.WriteString(strconv.FormatFloat(y, 'g', 17, 64) + "\n")
	}
	if string(b) != want.String() {
		t.Fatalf("liblinear-predict on %s:\n%s\nours:\n%s", filepath.Base(model), b, want.String())
	}
}

// TestSVRBadInput: targets that are not finite are refused naming the
// line; weights are ignored with a warning; a zero P is liblinear's
// default, a negative one means ε = 0.
func TestSVRBadInput(t *testing.T) {
	d := regData(6, 30, 4, 0.5, 0.1, 0)
	d.Source = "reg.svm"
	d.Label[7] = math.Inf(1)
	_, _, err := Train(context.Background(), d, Params{Problem: SVRDual})
	if err == nil || !strings.Contains(err.Error(), "reg.svm") || !strings.Contains(err.Error(), "+Inf is not a finite regression target") {
		t.Fatalf("error %v", err)
	}
	d.Label[7] = 1
	_, res, err := Train(context.Background(), d, Params{Problem: SquaredSVRDual, Weights: map[float64]float64{1: 2}})
	if err != nil || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "-wi") {
		t.Fatalf("error %v, warnings %q", err, res.Warnings)
	}
	train := func(pe float64) string {
		m, _, err := Train(context.Background(), d, Params{Problem: SVRDual, P: pe, Eps: 1e-6})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(m.W)
	}
	if train(0) != train(DefaultP) || train(-1) != train(-5) || train(-1) == train(DefaultP) {
		t.Fatal("P = 0 is not the default, or a negative P is not ε = 0")
	}
}

// TestSVRCancelled: a cancelled run returns its partial model and an
// error wrapping context.Canceled.
func TestSVRCancelled(t *testing.T) {
	d := regData(8, 100, 6, 0.5, 0.1, 0)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m, res, err := Train(ctx, d, Params{Problem: SquaredSVRDual})
	if !errors.Is(err, context.Canceled) || m == nil || !m.Partial || !res.Cancelled || res.Converged {
		t.Fatalf("err %v, model %v, result %+v", err, m != nil, res)
	}
}

// TestSVRNewtonSwitch: -s 12 at large C hands over to primal Newton
// (forced at once here), which ends converged at the primal optimum: the
// primal gradient, recomputed with plain loops from the model, vanishes,
// and the gap is closed.
func TestSVRNewtonSwitch(t *testing.T) {
	d := regData(10, 300, 8, 0.5, 0.5, 3)
	p := Params{Problem: SquaredSVRDual, C: 1000, P: 0.1, Bias: 1, Tuning: forcedSwitch(1)}
	m, res, err := Train(context.Background(), d, p)
	if err != nil {
		t.Fatal(err)
	}
	primal := svrPrimal(d, m, p)
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
			if e := math.Abs(r) - p.P; e > 0 {
				c := 2 * p.C * math.Copysign(e, r)
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
	for _, p := range []Params{{Problem: SVRDual, Eps: 1e-4, Select: Uniform, NoFallback: true}, {Problem: OneClassSVM, Eps: 1e-6, Select: Uniform}} {
		d := regData(11, 120, 6, 0.5, 0.2, 1)
		var calls []Progress
		p.Progress = func(pr Progress) { calls = append(calls, pr) }
		_, res, err := Train(context.Background(), d, p)
		if err != nil {
			t.Fatal(err)
		}
		last := calls[len(calls)-1]
		if len(calls) != res.Epochs || last.Epoch != res.Epochs || math.Abs(last.Objective-res.Objective) > 1e-9*(1+math.Abs(res.Objective)) {
			t.Fatalf("-s %s: %d calls for %d epochs, last %+v, objective %g", p.Problem.Flag(), len(calls), res.Epochs, last, res.Objective)
		}
	}
}
