package dual

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/primal"
)

// primalGrad returns ‖∇P(w)‖ and ‖∇P(0)‖ of the primal of loss for
// subproblem c of m on d (positive class m.Labels[c]; the regression for
// SquaredTube), recomputed from the model and the data alone.
func primalGrad(d *dataio.Dataset, m *model.Model, c int, loss primal.Loss, C, p float64) (gw, g0 float64, pos int) {
	nf := d.Features
	w := make([]float64, nf+1)
	for j := range fit.Rows(m) {
		w[j] = m.W[j*m.NrW+c]
	}
	gAt := func(w []float64) float64 {
		g := make([]float64, nf+1)
		copy(g, w)
		for i := range d.Rows {
			a, b := d.RowPtr[i], d.RowPtr[i+1]
			wx := 0.0
			for k := a; k < b; k++ {
				wx += w[d.Index[k]] * d.Value[k]
			}
			if m.Bias > 0 {
				wx += m.Bias * w[nf]
			}
			var coef float64
			switch loss {
			case primal.SquaredTube:
				if e := math.Abs(wx-d.Label[i]) - p; e > 0 {
					coef = math.Copysign(2*C*e, wx-d.Label[i])
				}
			default:
				y := -1.0
				if d.Label[i] == m.Labels[c] {
					y = 1
				}
				z := y * wx
				if loss == primal.Logistic {
					coef = -C * y / (1 + math.Exp(z))
				} else if z < 1 {
					coef = -2 * C * (1 - z) * y
				}
			}
			for k := a; k < b; k++ {
				g[d.Index[k]] += coef * d.Value[k]
			}
			if m.Bias > 0 {
				g[nf] += coef * m.Bias
			}
		}
		var s float64
		for _, v := range g {
			s += v * v
		}
		return math.Sqrt(s)
	}
	gw, g0 = gAt(w), gAt(make([]float64, nf+1))
	if m.Labels != nil {
		for _, y := range d.Label {
			if y == m.Labels[c] {
				pos++
			}
		}
	}
	return gw, g0, pos
}

// TestTrainPrimalByDual: with fewer examples than features, -s 2, 0 and
// 11 go through the dual, and the model meets the primal solver's own
// rule, ‖∇P(w)‖ ≤ eps·max(min(pos, neg), 1)/l·‖∇P(0)‖ (-s 11:
// eps·‖∇P(0)‖), recomputed here from the model file's weights, for every
// class of a one-vs-rest problem; at a tight -e the model is primal.Train's
// to the same accuracy.
func TestTrainPrimalByDual(t *testing.T) {
	cls, reg := wideData()
	for _, tc := range []struct {
		name string
		d    *dataio.Dataset
		loss primal.Loss
		eps  float64
	}{
		{"s=2", cls, primal.SquaredHinge, 0},
		{"s=2/tight", cls, primal.SquaredHinge, 1e-6},
		{"s=0", cls, primal.Logistic, 0},
		{"s=0/tight", cls, primal.Logistic, 1e-6},
		{"s=11", reg, primal.SquaredTube, 0},
		{"s=11/tight", reg, primal.SquaredTube, 1e-8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const C = 10
			s := primal.Spec{Spec: fit.Spec{C: C, Eps: tc.eps, Bias: 1, Seed: 1}, Loss: tc.loss, P: 0.1}
			if !PrimalByDual(tc.d, &s) {
				t.Fatal("fewer examples than features, yet not through the dual")
			}
			m, res, err := TrainPrimal(context.Background(), tc.d, s)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(res.Select, "dual ") || res.Iterations == 0 || !res.Converged || res.SupportVectors != -1 || !math.IsNaN(res.Gap) {
				t.Fatalf("result %+v: want the dual's steps, converged, no support vectors or gap", res)
			}
			eps := tc.eps
			if eps == 0 {
				eps = primal.DefaultEps
				if tc.loss == primal.SquaredTube {
					eps = primal.DefaultSVREps
				}
			}
			checkPrimalRule(t, tc.d, m, tc.loss, C, eps)
			if tc.eps == 0 {
				return
			}
			_, ref, err := primal.Train(context.Background(), tc.d, s)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(res.Primal-ref.Primal) > 1e-9*ref.Primal {
				t.Errorf("primal %.12g through the dual, %.12g by Newton alone", res.Primal, ref.Primal)
			}
		})
	}
}

// TestTrainPrimalMoreRows: with more examples than weights, or a free
// bias weight, TrainPrimal is primal.Train: the same model bytes.
func TestTrainPrimalMoreRows(t *testing.T) {
	cls := synth.Classes(synth.ClassesConfig{Seed: 7, Rows: 300, Feats: 40, Density: 0.3, Labels: []float64{1, -1}, Noise: 0.1})
	wide := synth.Classes(synth.ClassesConfig{Seed: 8, Rows: 100, Feats: 400, Density: 0.05, Labels: []float64{1, -1}, Noise: 0.1})
	for _, tc := range []struct {
		name string
		d    *dataio.Dataset
		free bool
	}{{"rows>features", cls, false}, {"free bias", wide, true}} {
		t.Run(tc.name, func(t *testing.T) {
			s := primal.Spec{Spec: fit.Spec{C: 1, Bias: 1, Seed: 1}, Loss: primal.SquaredHinge, FreeBias: tc.free}
			if PrimalByDual(tc.d, &s) {
				t.Fatal("through the dual")
			}
			m1, r1, err := TrainPrimal(context.Background(), tc.d, s)
			if err != nil {
				t.Fatal(err)
			}
			m2, _, err := primal.Train(context.Background(), tc.d, s)
			if err != nil {
				t.Fatal(err)
			}
			if r1.Select != "newton" || !bytes.Equal(modelBytes(t, m1), modelBytes(t, m2)) {
				t.Errorf("select %q; models differ", r1.Select)
			}
		})
	}
}

// TestTrainPrimalCancelled: a training cancelled in the dual returns the
// dual's point reported as the primal solver's: cancelled, its primal as
// the objective, no support vectors.
func TestTrainPrimalCancelled(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 150, Feats: 400, Density: 0.05, Labels: []float64{1, -1}, Noise: 0.1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := primal.Spec{Spec: fit.Spec{C: 1, Bias: 1, Seed: 1}, Loss: primal.SquaredHinge}
	_, res, err := TrainPrimal(ctx, d, s)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || res.SupportVectors != -1 || !math.IsNaN(res.Gap) || res.Objective != res.Primal && !math.IsNaN(res.Primal) {
		t.Errorf("result %+v", res)
	}
}

func modelBytes(t *testing.T, m *model.Model) []byte {
	m.SolverType = "L2R_L2LOSS_SVC"
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPrimalEps: a dual trained with PrimalEps (no finisher after it)
// ends where the primal solver's rule holds, recomputed from the model:
// the certified point is refused and -e lowered until it does.
func TestPrimalEps(t *testing.T) {
	cls, reg := wideData()
	for _, tc := range []struct {
		name string
		d    *dataio.Dataset
		kind Kind
		loss primal.Loss
		eps  float64
	}{
		{"s=1", cls, L2LossSVC, primal.SquaredHinge, 1e-6},
		{"s=7", cls, LR, primal.Logistic, 1e-6},
		{"s=12", reg, L2LossSVR, primal.SquaredTube, 1e-8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const C = 10
			s := Spec{Spec: fit.Spec{C: C, Bias: 1, Seed: 1, NoFallback: true}, Kind: tc.kind, P: 0.1, PrimalEps: tc.eps}
			m, res, err := Train(context.Background(), tc.d, resolved(s))
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Fatalf("not converged: %+v", res)
			}
			checkPrimalRule(t, tc.d, m, tc.loss, C, tc.eps)
		})
	}
}

// wideData returns a three-class problem and a regression with fewer
// examples than features.
func wideData() (cls, reg *dataio.Dataset) {
	cls = synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 150, Feats: 400, Density: 0.05, Labels: []float64{1, 2, 3}, Noise: 0.1})
	return cls, synth.Regression(6, 150, 400, 0.05, 0.3, 1, 0)
}

// checkPrimalRule checks that every class of m meets the rule of the
// primal solver of loss at -e eps (C, and ε = 0.1 for the SVR).
func checkPrimalRule(t *testing.T, d *dataio.Dataset, m *model.Model, loss primal.Loss, C, eps float64) {
	t.Helper()
	for c := range m.NrW {
		gw, g0, pos := primalGrad(d, m, c, loss, C, 0.1)
		tol := eps
		if loss != primal.SquaredTube {
			tol = primal.SolverTol(eps, pos, d.Rows)
		}
		if !(gw <= tol*g0*(1+1e-9)) {
			t.Errorf("class %d: ‖∇P(w)‖ = %.6g above the rule's %.6g", c, gw, tol*g0)
		}
	}
}

// TestTrainPrimalPoorDual: on raw p ≫ n data the dual's certified point
// can have a duality gap above its objective (TestRefusedDual); -s 2 and
// 0 through the dual then end the dual there, as -s 1 and 7 do, rather
// than lower its eps for the primal rule: no more epochs than the dual
// alone, the primal rule met, and a primal no worse than the better of
// the primal solver's and the dual's.
func TestTrainPrimalPoorDual(t *testing.T) {
	d := rawCorrelated(1, 200, 5000)
	for _, tc := range []struct {
		name string
		k    Kind
		loss primal.Loss
	}{{"s=2", L2LossSVC, primal.SquaredHinge}, {"s=0", LR, primal.Logistic}} {
		t.Run(tc.name, func(t *testing.T) {
			s := primal.Spec{Spec: fit.Spec{C: 1, Bias: -1, Seed: 1}, Loss: tc.loss}
			m, res, err := TrainPrimal(context.Background(), d, s)
			if err != nil {
				t.Fatal(err)
			}
			_, ref, err := primal.Train(context.Background(), d, s)
			if err != nil {
				t.Fatal(err)
			}
			_, du, _ := mustTrain(t, d, Spec{Spec: fit.Spec{C: 1, Seed: 1}, Kind: tc.k})
			t.Logf("primal %.8g, %d epochs, %d Newton steps; the primal solver %.8g, the dual %.8g in %d epochs", res.Primal, res.Epochs, res.NewtonSteps, ref.Primal, du.Primal, du.Epochs)
			checkPrimalRule(t, d, m, tc.loss, 1, primal.DefaultEps)
			if best := min(ref.Primal, du.Primal); res.Primal > best*(1+1e-3) {
				t.Errorf("primal %.8g; the primal solver's %.8g, the dual's %.8g", res.Primal, ref.Primal, du.Primal)
			}
			if res.Epochs > du.Epochs+2 {
				t.Errorf("%d epochs, the dual alone %d", res.Epochs, du.Epochs)
			}
		})
	}
}

// rawCorrelated draws arcene's shape more closely than rawWide: dense raw
// integer rows around a common profile (mean row cosine 0.68), so
// that XXᵀ is badly conditioned and dual CD slow.
func rawCorrelated(seed uint64, rows, feats int) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 0xac))
	truth, base := make([]float64, feats), make([]float64, feats)
	for j := range truth {
		truth[j], base[j] = r.NormFloat64(), float64(r.IntN(600))
	}
	return rawRows(rows, truth, func(j int) float64 {
		return max(0, math.Round(base[j]+300*r.NormFloat64()))
	})
}
