package lasso

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// regression draws ℓ rows with about density·feats entries each (values
// N(shift, 1)) and labels offset + Xw + N(0, noise²), w with k non-zeros.
func regression(seed uint64, rows, feats, k int, density, noise, offset, shift float64) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 3))
	w := make([]float64, feats)
	for _, j := range r.Perm(feats)[:k] {
		w[j] = 2 * r.NormFloat64()
	}
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: []int64{0}, Value: []float64{}}
	for range rows {
		y := offset + noise*r.NormFloat64()
		for j := range int32(feats) {
			if r.Float64() < density {
				v := shift + r.NormFloat64()
				d.Index, d.Value = append(d.Index, j), append(d.Value, v)
				y += v * w[j]
			}
		}
		d.Label = append(d.Label, y)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

// kktViolation is the subgradient condition's violation from scratch.
func kktViolation(w, rho, lam float64) float64 {
	g := -rho // ∂/∂w_j of the smooth part
	switch {
	case w > 0:
		return math.Abs(g + lam)
	case w < 0:
		return math.Abs(g - lam)
	}
	return max(0, math.Abs(g)-lam)
}

// selections are the coordinate selections the LASSO takes.
var selections = []solver.Selection{solver.Cyclic, solver.Uniform, solver.ACF}

// resolved is s with the defaults that acfcd.Params gives a LASSO fit:
// α = 1, seed 1, C = 1, no bias feature (−1), and the processors beyond
// the caller's for the passes.
func resolved(s Spec) Spec {
	if s.Alpha == 0 {
		s.Alpha = 1
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.C == 0 {
		s.C = 1
	}
	if !(s.Bias > 0) {
		s.Bias = -1
	}
	if s.Pool == nil {
		s.Pool = procs.NewPool(runtime.GOMAXPROCS(0) - 1)
	}
	return s
}

// mustTrain trains d with s, resolved, under ctx.
func mustTrain(t *testing.T, ctx context.Context, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result) {
	t.Helper()
	m, res, err := Train(ctx, d, resolved(s))
	if err != nil {
		t.Fatalf("Train(%+v): %v", s, err)
	}
	return m, res
}

// train is mustTrain in the background context.
func train(t *testing.T, d *dataio.Dataset, s Spec) (*model.Model, *fit.Result) {
	t.Helper()
	return mustTrain(t, context.Background(), d, s)
}

// spec is the Spec at λ = lam with the selection sel, and eps.
func spec(lam float64, sel solver.Selection, eps float64) Spec {
	return Spec{Spec: fit.Spec{Select: sel, Eps: eps}, Lambda: lam}
}

// plainObjective is ½‖y − Xw − b‖² + λ‖w‖₁ with plain loops.
func plainObjective(X [][]float64, y, w []float64, b, lam float64) float64 {
	var f float64
	for _, v := range testkit.Residual(X, y, w, b) {
		f += v * v
	}
	f *= 0.5
	for _, v := range w {
		f += lam * math.Abs(v)
	}
	return f
}

// modelWB splits a LASSO model into its feature weights and intercept.
func modelWB(m *model.Model) ([]float64, float64) {
	if m.Bias >= 0 {
		return m.W[:m.NumFeature], m.W[m.NumFeature] * m.Bias
	}
	return m.W, 0
}

// plainKKT recomputes the largest KKT violation with plain loops, from
// the model's weights and intercept (a wrong intercept shows up as a
// violation, since then the residual does not sum to 0).
func plainKKT(X [][]float64, y []float64, m *model.Model, lam float64) float64 {
	w, b := modelWB(m)
	r := testkit.Residual(X, y, w, b)
	viol := 0.0
	for j := range w {
		rho := 0.0
		for i := range X {
			rho += X[i][j] * r[i]
		}
		viol = max(viol, kktViolation(w[j], rho, lam))
	}
	if m.Bias >= 0 { // the intercept's own optimality: Σr = 0
		s := 0.0
		for _, v := range r {
			s += v
		}
		viol = max(viol, math.Abs(s))
	}
	return viol
}

// plainGap is the duality gap with the dual point obtained by scaling the
// residual, from scratch with plain loops.
func plainGap(X [][]float64, y, w []float64, b, lam float64, icpt bool) float64 {
	yc := append([]float64(nil), y...)
	Xc := X
	if icpt {
		Xc = make([][]float64, len(X))
		mu := make([]float64, len(w))
		var ybar float64
		for i := range X {
			ybar += y[i]
			for j := range w {
				mu[j] += X[i][j]
			}
		}
		ybar /= float64(len(y))
		for i := range X {
			yc[i] -= ybar
			Xc[i] = make([]float64, len(w))
			for j := range w {
				Xc[i][j] = X[i][j] - mu[j]/float64(len(y))
			}
		}
	}
	r := testkit.Residual(Xc, yc, w, 0)
	var rr, ry, l1, dn float64
	for i := range r {
		rr += r[i] * r[i]
		ry += r[i] * yc[i]
	}
	for j := range w {
		l1 += math.Abs(w[j])
		g := 0.0
		for i := range Xc {
			g += Xc[i][j] * r[i]
		}
		dn = max(dn, math.Abs(g))
	}
	s := 1.0
	if dn > lam {
		s = lam / dn
	}
	return 0.5*rr + lam*l1 - (s*ry - 0.5*s*s*rr)
}

// lamMaxOf is ‖X_cᵀy_c‖_∞ of d, the smallest λ whose solution is w = 0.
func lamMaxOf(t *testing.T, d *dataio.Dataset, intercept bool) float64 {
	t.Helper()
	data, err := NewData(d, intercept, false)
	if err != nil {
		t.Fatal(err)
	}
	return data.LambdaMax(1)
}

// centre centres the columns of X and y in place.
func centre(X [][]float64, y []float64) {
	ybar := 0.0
	for _, v := range y {
		ybar += v / float64(len(y))
	}
	for i := range y {
		y[i] -= ybar
	}
	for j := range X[0] {
		m := 0.0
		for i := range X {
			m += X[i][j] / float64(len(X))
		}
		for i := range X {
			X[i][j] -= m
		}
	}
}

// nullObjective is F(0) = ½‖y − ȳ‖² (with an intercept, else ½‖y‖²),
// the scale of DefaultGap.
func nullObjective(y []float64, icpt bool) float64 {
	var ybar float64
	if icpt {
		for _, v := range y {
			ybar += v / float64(len(y))
		}
	}
	var f float64
	for _, v := range y {
		f += 0.5 * (v - ybar) * (v - ybar)
	}
	return f
}
