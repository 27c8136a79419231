package acfcd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/lasso"
)

var lassoSelects = []Selection{Cyclic, Uniform, ACF}

// lassoSpec describes a sparse regression problem: rows with random
// sparse features, y = X·w_true + noise with k non-zero true weights;
// offset is added to every label (and shift to every stored value, which
// makes the columns far from centred).
type lassoSpec struct {
	seed          uint64
	rows, feats   int
	density       float64
	k             int
	noise, offset float64
	shift         float64
}

func lassoGen(s lassoSpec) *dataio.Dataset {
	r := rand.New(rand.NewPCG(s.seed, 99))
	truth := make([]float64, s.feats)
	for _, j := range r.Perm(s.feats)[:min(s.k, s.feats)] {
		truth[j] = r.NormFloat64() * 2
	}
	d := &dataio.Dataset{Rows: s.rows, Features: s.feats, RowPtr: make([]int64, 1, s.rows+1), Value: []float64{}}
	for i := 0; i < s.rows; i++ {
		y := s.offset + s.noise*r.NormFloat64()
		for j := 0; j < s.feats; j++ {
			if r.Float64() >= s.density {
				continue
			}
			v := r.NormFloat64() + s.shift
			d.Index = append(d.Index, int32(j))
			d.Value = append(d.Value, v)
			y += v * truth[j]
		}
		d.Label = append(d.Label, y)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

// lassoDense returns X as dense rows.
func lassoDense(d *dataio.Dataset) [][]float64 {
	X := make([][]float64, d.Rows)
	for i := range X {
		X[i] = make([]float64, d.Features)
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			X[i][d.Index[k]] = d.Value[k]
		}
	}
	return X
}

// lassoResidual is y − Xw − b with plain loops (w has NumFeature entries).
func lassoResidual(X [][]float64, y, w []float64, b float64) []float64 {
	r := make([]float64, len(y))
	for i := range r {
		s := y[i] - b
		for j, v := range X[i] {
			s -= v * w[j]
		}
		r[i] = s
	}
	return r
}

// lassoObjPlain is ½‖y − Xw − b‖² + λ‖w‖₁ with plain loops.
func lassoObjPlain(X [][]float64, y, w []float64, b, lam float64) float64 {
	var f float64
	for _, v := range lassoResidual(X, y, w, b) {
		f += v * v
	}
	f *= 0.5
	for _, v := range w {
		f += lam * math.Abs(v)
	}
	return f
}

// modelWB splits a LASSO model into its feature weights and intercept.
func modelWB(m *Model) ([]float64, float64) {
	if m.Bias >= 0 {
		return m.W[:m.NumFeature], m.W[m.NumFeature] * m.Bias
	}
	return m.W, 0
}

// lassoKKTPlain recomputes the largest KKT violation with plain loops,
// from the model's weights and intercept (a wrong intercept shows up as
// a violation, since then the residual does not sum to 0).
func lassoKKTPlain(X [][]float64, y []float64, m *Model, lam float64) float64 {
	w, b := modelWB(m)
	r := lassoResidual(X, y, w, b)
	viol := 0.0
	for j := range w {
		g := 0.0
		for i := range X {
			g -= X[i][j] * r[i]
		}
		var v float64
		switch {
		case w[j] > 0:
			v = math.Abs(g + lam)
		case w[j] < 0:
			v = math.Abs(g - lam)
		default:
			v = max(0, math.Abs(g)-lam)
		}
		viol = max(viol, v)
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

// lassoGapPlain is the duality gap with the dual point obtained by
// scaling the residual, from scratch with plain loops.
func lassoGapPlain(X [][]float64, y, w []float64, b, lam float64, icpt bool) float64 {
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
	r := lassoResidual(Xc, yc, w, 0)
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

// lassoTrain trains d with p as the LASSO.
func lassoTrain(t *testing.T, d *dataio.Dataset, p Params) (*Model, *Result) {
	t.Helper()
	p.Problem = Lasso
	m, res, _ := mustTrain(t, d, p)
	return m, res
}

// lassoLamMax is ‖X_cᵀy_c‖_∞, the smallest λ whose solution is w = 0.
func lassoLamMax(t *testing.T, d *dataio.Dataset, intercept bool) float64 {
	t.Helper()
	data, err := lasso.NewData(d, intercept, false)
	if err != nil {
		t.Fatal(err)
	}
	return data.LambdaMax(1)
}

func soft(z, lam float64) float64 {
	switch {
	case z > lam:
		return z - lam
	case z < -lam:
		return z + lam
	}
	return 0
}

// Orthogonal design (columns with disjoint supports): the solution is
// w_j = S(x_jᵀy, λ)/‖x_j‖² in closed form.
func TestLassoOrthogonal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const feats, per = 12, 5
	d := &dataio.Dataset{Rows: feats * per, Features: feats + 2, RowPtr: []int64{0}} // 2 empty columns
	for i := 0; i < d.Rows; i++ {
		j := i / per // one entry per row: disjoint column supports
		d.Index = append(d.Index, int32(j))
		d.Value = append(d.Value, r.NormFloat64())
		d.Label = append(d.Label, 3*r.NormFloat64())
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	want := make([]float64, d.Features)
	lam := 2.0
	for j := 0; j < feats; j++ {
		var xy, xx float64
		for i := j * per; i < (j+1)*per; i++ {
			xy += d.Value[i] * d.Label[i]
			xx += d.Value[i] * d.Value[i]
		}
		want[j] = soft(xy, lam) / xx
	}
	nz := 0
	for _, v := range want {
		if v != 0 {
			nz++
		}
	}
	if nz == 0 || nz == feats {
		t.Fatalf("test problem has %d of %d non-zeros; want some of each", nz, feats)
	}
	for _, sel := range lassoSelects {
		m, res := lassoTrain(t, d, Params{Lambda: lam, Select: sel, Eps: 1e-12})
		if !res.Converged || m.Partial || m.SolverType != "LASSO" || m.Bias != -1 || len(m.W) != d.Features {
			t.Fatalf("%s: converged %v partial %v model %+v", sel, res.Converged, m.Partial, m)
		}
		for j, v := range m.W {
			if math.Abs(v-want[j]) > 1e-12*(1+math.Abs(want[j])) {
				t.Errorf("%s: w[%d] = %g, want %g", sel, j, v, want[j])
			}
		}
		if res.NNZW != nz {
			t.Errorf("%s: NNZW %d, want %d", sel, res.NNZW, nz)
		}
		if res.Gap > 1e-10*res.Objective {
			t.Errorf("%s: gap %g at the exact solution", sel, res.Gap)
		}
	}
}

// lassoBrute minimises the LASSO over 3 features by enumerating sign
// patterns: on the face with support S and signs s the objective is the
// smooth ½‖y − X_S w_S‖² + λ sᵀw_S, whose stationary point is a
// candidate when its signs are s; the optimum is among the candidates.
func lassoBrute(X [][]float64, y []float64, lam float64) ([]float64, float64) {
	best := []float64{0, 0, 0}
	bestF := lassoObjPlain(X, y, best, 0, lam)
	for pat := 0; pat < 27; pat++ {
		var s [3]int
		var S []int
		for j, p := 0, pat; j < 3; j, p = j+1, p/3 {
			s[j] = p%3 - 1
			if s[j] != 0 {
				S = append(S, j)
			}
		}
		if len(S) == 0 {
			continue
		}
		n := len(S)
		A := make([][]float64, n) // augmented [X_SᵀX_S | X_Sᵀy − λs]
		for a, ja := range S {
			A[a] = make([]float64, n+1)
			for b, jb := range S {
				for i := range X {
					A[a][b] += X[i][ja] * X[i][jb]
				}
			}
			for i := range X {
				A[a][n] += X[i][ja] * y[i]
			}
			A[a][n] -= lam * float64(s[ja])
		}
		if !gaussSolve(A) {
			continue
		}
		w := []float64{0, 0, 0}
		ok := true
		for a, ja := range S {
			w[ja] = A[a][n]
			if math.Signbit(w[ja]) != (s[ja] < 0) || w[ja] == 0 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		if f := lassoObjPlain(X, y, w, 0, lam); f < bestF {
			best, bestF = w, f
		}
	}
	return best, bestF
}

// gaussSolve solves the augmented system in place with partial pivoting
// (the solution ends in the last column); false if singular.
func gaussSolve(A [][]float64) bool {
	n := len(A)
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(A[r][c]) > math.Abs(A[p][c]) {
				p = r
			}
		}
		if math.Abs(A[p][c]) < 1e-12 {
			return false
		}
		A[c], A[p] = A[p], A[c]
		for r := 0; r < n; r++ {
			if r == c {
				continue
			}
			f := A[r][c] / A[c][c]
			for k := c; k <= n; k++ {
				A[r][k] -= f * A[c][k]
			}
		}
	}
	for r := 0; r < n; r++ {
		A[r][n] /= A[r][r]
		A[r][r] = 1
	}
	return true
}

// Three features: every selection reaches the brute-force optimum.
func TestLassoBruteForce(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		d := lassoGen(lassoSpec{seed: seed, rows: 9, feats: 3, density: 0.8, k: 2, noise: 0.5})
		X := lassoDense(d)
		lamMax := lassoLamMax(t, d, false)
		for _, frac := range []float64{0.02, 0.2, 0.5, 0.9, 1.1} {
			lam := frac * lamMax
			wb, fb := lassoBrute(X, d.Label, lam)
			for _, sel := range lassoSelects {
				m, res := lassoTrain(t, d, Params{Lambda: lam, Select: sel, Eps: 1e-12 * lamMax, Seed: seed})
				f := lassoObjPlain(X, d.Label, m.W, 0, lam)
				if !res.Converged || f > fb*(1+1e-12)+1e-14 || f < fb*(1-1e-12)-1e-14 {
					t.Errorf("seed %d λ=%.3gλmax %s: objective %.15g, brute force %.15g (converged %v)", seed, frac, sel, f, fb, res.Converged)
				}
				if math.Abs(res.Objective-f) > 1e-12*(1+f) {
					t.Errorf("seed %d %s: reported objective %.15g, recomputed %.15g", seed, sel, res.Objective, f)
				}
				for j := range wb {
					if math.Abs(m.W[j]-wb[j]) > 1e-8*(1+math.Abs(wb[j])) {
						t.Errorf("seed %d λ=%.3gλmax %s: w = %v, brute force %v", seed, frac, sel, m.W, wb)
						break
					}
				}
			}
		}
	}
}

// KKT and duality gap recomputed independently, with and without an
// intercept, for every selection; and all selections reach the same
// objective.
func TestLassoKKTAndAgreement(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 5, rows: 120, feats: 300, density: 0.05, k: 10, noise: 0.3, offset: 4, shift: 0.5})
	X := lassoDense(d)
	for _, icpt := range []bool{false, true} {
		lamMax := lassoLamMax(t, d, icpt)
		for _, frac := range []float64{0.5, 0.1, 0.01} {
			lam := frac * lamMax
			var objs []float64
			for _, sel := range lassoSelects {
				for _, eps := range []float64{0, 1e-9 * lamMax} {
					m, res := lassoTrain(t, d, Params{Lambda: lam, Select: sel, Eps: eps, Intercept: icpt, Seed: 7, MaxEpochs: 1 << 20})
					name := fmt.Sprintf("intercept=%v λ=%gλmax %s eps=%g", icpt, frac, sel, eps)
					if !res.Converged || res.Cancelled || res.HitEpochCap || m.Partial {
						t.Fatalf("%s: not converged: %+v", name, res)
					}
					wantEps := eps
					if eps == 0 {
						wantEps = lasso.DefaultEps(lam, lamMax)
					}
					if res.Eps != wantEps {
						t.Errorf("%s: Result.Eps %g, want %g", name, res.Eps, wantEps)
					}
					viol := lassoKKTPlain(X, d.Label, m, lam)
					if eps > 0 && viol > wantEps*(1+1e-6)+1e-9*lamMax {
						t.Errorf("%s: plain KKT violation %g > eps %g (reported %g)", name, viol, wantEps, res.Violation)
					}
					if math.Abs(viol-res.Violation) > 1e-9*lamMax {
						t.Errorf("%s: plain violation %g, reported %g", name, viol, res.Violation)
					}
					w, b := modelWB(m)
					f := lassoObjPlain(X, d.Label, w, b, lam)
					if math.Abs(f-res.Objective) > 1e-10*f || res.Primal != res.Objective {
						t.Errorf("%s: objective %.15g, plain %.15g", name, res.Objective, f)
					}
					// The reported gap is that of a better dual point than
					// the scaled residual's, recomputed here; by default it
					// is within DefaultGapRel of the objective.
					gap := lassoGapPlain(X, d.Label, w, b, lam, icpt)
					if res.Gap < 0 || res.Gap > gap*(1+1e-9)+1e-12*f || (eps == 0 && res.Gap > lasso.DefaultGapRel*f) {
						t.Errorf("%s: gap %g, plain %g", name, res.Gap, gap)
					}
					if eps > 0 {
						objs = append(objs, f)
					}
					if res.Iterations <= 0 || res.Operations <= 0 || res.Epochs <= 0 || res.Select != sel.String() || res.Solver != "LASSO" {
						t.Errorf("%s: counts %+v", name, res)
					}
				}
			}
			for _, f := range objs[1:] {
				if math.Abs(f-objs[0]) > 1e-10*objs[0] {
					t.Errorf("intercept=%v λ=%gλmax: objectives differ across selections: %v", icpt, frac, objs)
				}
			}
		}
	}
}

// The intercept, fitted implicitly on sparse data, matches the LASSO
// without intercept on explicitly centred dense data.
func TestLassoIntercept(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 11, rows: 80, feats: 40, density: 0.15, k: 6, noise: 0.2, offset: 50, shift: 3})
	X := lassoDense(d)
	n, f := d.Rows, d.Features
	mu := make([]float64, f)
	var ybar float64
	for i := 0; i < n; i++ {
		ybar += d.Label[i]
		for j := 0; j < f; j++ {
			mu[j] += X[i][j]
		}
	}
	ybar /= float64(n)
	for j := range mu {
		mu[j] /= float64(n)
	}
	dc := &dataio.Dataset{Rows: n, Features: f, RowPtr: []int64{0}}
	for i := 0; i < n; i++ {
		for j := 0; j < f; j++ {
			dc.Index = append(dc.Index, int32(j))
			dc.Value = append(dc.Value, X[i][j]-mu[j])
		}
		dc.Label = append(dc.Label, d.Label[i]-ybar)
		dc.RowPtr = append(dc.RowPtr, int64(len(dc.Index)))
	}
	lamMax := lassoLamMax(t, d, true)
	if lm := lassoLamMax(t, dc, false); math.Abs(lm-lamMax) > 1e-10*lamMax {
		t.Fatalf("λ_max: implicit centring %g, explicit %g", lamMax, lm)
	}
	for _, frac := range []float64{0.3, 0.03} {
		lam := frac * lamMax
		for _, sel := range lassoSelects {
			m, res := lassoTrain(t, d, Params{Lambda: lam, Select: sel, Intercept: true, Eps: 1e-10 * lamMax})
			mc, resc := lassoTrain(t, dc, Params{Lambda: lam, Select: sel, Eps: 1e-10 * lamMax})
			if m.Bias != 1 || len(m.W) != f+1 || mc.Bias != -1 || len(mc.W) != f {
				t.Fatalf("model layout: bias %g len %d; centred bias %g len %d", m.Bias, len(m.W), mc.Bias, len(mc.W))
			}
			if math.Abs(res.Objective-resc.Objective) > 1e-10*resc.Objective {
				t.Errorf("λ=%gλmax %s: objective %.15g, centred %.15g", frac, sel, res.Objective, resc.Objective)
			}
			b := ybar
			for j := 0; j < f; j++ {
				if math.Abs(m.W[j]-mc.W[j]) > 1e-7*(1+math.Abs(mc.W[j])) {
					t.Errorf("λ=%gλmax %s: w[%d] %g, centred %g", frac, sel, j, m.W[j], mc.W[j])
				}
				b -= mu[j] * mc.W[j]
			}
			if math.Abs(m.W[f]-b) > 1e-8*math.Abs(b) {
				t.Errorf("λ=%gλmax %s: intercept %.12g, want ȳ − μᵀw = %.12g", frac, sel, m.W[f], b)
			}
			// Predict includes the intercept.
			for i := 0; i < 5; i++ {
				idx, val := d.Row(i)
				want := b
				for j := 0; j < f; j++ {
					want += X[i][j] * mc.W[j]
				}
				if got := m.Predict(idx, val); math.Abs(got-want) > 1e-7*(1+math.Abs(want)) {
					t.Errorf("Predict row %d: %g, want %g", i, got, want)
				}
			}
		}
	}
}

func TestLassoPath(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 8, rows: 100, feats: 200, density: 0.08, k: 15, noise: 0.3, offset: 1, shift: 0.2})
	for _, icpt := range []bool{false, true} {
		for _, sel := range lassoSelects {
			p := Params{Select: sel, Intercept: icpt, Seed: 3}
			lams, err := LambdaSequence(d, p, 25, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			pts, err := TrainPathLambdas(context.Background(), d, p, lams)
			if err != nil {
				t.Fatal(err)
			}
			// TrainPath is the same path, ended early where glmnet would.
			early, err := TrainPath(context.Background(), d, p, 25, 0.01)
			if err != nil {
				t.Fatal(err)
			}
			stop := len(pts)
			for k := PathMinPoints - 1; k < len(pts); k++ {
				if dr := pts[k].DevRatio; dr-pts[k-1].DevRatio < PathDevChange*dr || dr > PathDevMax {
					stop = k + 1
					break
				}
			}
			if len(early) != stop {
				t.Errorf("TrainPath: %d points, want %d", len(early), stop)
			}
			for k := range early {
				if early[k].Lambda != pts[k].Lambda || early[k].Objective != pts[k].Objective {
					t.Errorf("TrainPath point %d: λ %g objective %g, want %g %g", k, early[k].Lambda, early[k].Objective, pts[k].Lambda, pts[k].Objective)
				}
			}
			if len(pts) != 25 {
				t.Fatalf("%d points", len(pts))
			}
			lamMax := lassoLamMax(t, d, icpt)
			if pts[0].Lambda != lamMax || pts[0].NNZ != 0 || math.Abs(pts[24].Lambda-0.01*lamMax) > 1e-12*lamMax {
				t.Errorf("ends: λ %g (λmax %g) nnz %d; last λ %g", pts[0].Lambda, lamMax, pts[0].NNZ, pts[24].Lambda)
			}
			drops := 0
			for k, pt := range pts {
				if !pt.Converged || pt.Model == nil || pt.Model.Partial {
					t.Fatalf("%s point %d not converged", sel, k)
				}
				if k > 0 {
					if r := pt.Lambda / pts[k-1].Lambda; math.Abs(r-math.Pow(0.01, 1.0/24)) > 1e-12 {
						t.Errorf("λ ratio %g", r)
					}
					if pt.NNZ < pts[k-1].NNZ {
						drops += pts[k-1].NNZ - pt.NNZ
					}
				}
				// Warm-started point = cold start at the same λ.
				if k%6 == 3 {
					_, res := lassoTrain(t, d, Params{Lambda: pt.Lambda, Select: sel, Intercept: icpt, Eps: 1e-10 * lamMax})
					if pt.Objective < res.Objective*(1-1e-12) || pt.Objective-res.Objective > pt.Gap+1e-12*res.Objective {
						t.Errorf("%s point %d: objective %.12g, cold start %.12g (gap %g)", sel, k, pt.Objective, res.Objective, pt.Gap)
					}
				}
			}
			if pts[24].NNZ < 15 || drops > pts[24].NNZ/5 {
				t.Errorf("intercept=%v %s: NNZ along the path not increasing: last %d, total drops %d", icpt, sel, pts[24].NNZ, drops)
			}
		}
	}
	if _, err := TrainPath(context.Background(), d, Params{}, -1, 0.1); err == nil {
		t.Error("n = -1 accepted")
	}
	if _, err := TrainPath(context.Background(), d, Params{}, 3, 1.5); err == nil {
		t.Error("ratio 1.5 accepted")
	}
}

// Cancellation before and during a run returns the partial model and an
// error wrapping context.Canceled. A cancelled run skips the measuring
// pass: its violation is the last epoch's, its gap NaN.
func TestLassoCancel(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 9, rows: 300, feats: 2000, density: 0.02, k: 30, noise: 0.1})
	X := lassoDense(d)
	lamMax := lassoLamMax(t, d, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, sel := range lassoSelects {
		m, res, err := Train(ctx, d, Params{Problem: Lasso, Lambda: 0.01 * lamMax, Select: sel})
		if !errors.Is(err, context.Canceled) || res == nil || !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap || res.Iterations != 0 {
			t.Fatalf("%s: pre-cancelled: err %v result %+v", sel, err, res)
		}
		// Cancel from the progress callback, mid-run.
		ctx2, cancel2 := context.WithCancel(context.Background())
		epochs := 0
		lam := 1e-4 * lamMax
		p := Params{Problem: Lasso, Lambda: lam, Select: sel, Eps: 1e-300,
			Progress: func(pr Progress) {
				epochs = pr.Epoch
				if pr.Epoch == 3 {
					cancel2()
				}
			}}
		m, res, err = Train(ctx2, d, p)
		cancel2()
		if !errors.Is(err, context.Canceled) || !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap || epochs > 4 {
			t.Errorf("%s: mid-run cancel: err %v epochs seen %d result %+v", sel, err, epochs, res)
		}
		if math.IsNaN(res.Objective) || res.Objective <= 0 || math.IsNaN(res.Violation) || math.IsInf(res.Violation, 0) || res.Violation <= 0 {
			t.Errorf("%s: cancelled run reports objective %g violation %g", sel, res.Objective, res.Violation)
		}
		if f := lassoObjPlain(X, d.Label, m.W, 0, lam); math.Abs(f-res.Objective) > 1e-9*f {
			t.Errorf("%s: cancelled run reports objective %.15g, its model's is %.15g", sel, res.Objective, f)
		}
		if !math.IsNaN(res.Gap) {
			t.Errorf("%s: cancelled run measured the gap %g", sel, res.Gap)
		}
	}
	pts, err := TrainPath(ctx, d, Params{}, 5, 0.1)
	if !errors.Is(err, context.Canceled) || len(pts) != 1 || !pts[0].Model.Partial {
		t.Errorf("cancelled path: %d points, err %v", len(pts), err)
	}
}

// The same seed gives the same bits; the epoch cap stops a run that
// cannot converge after exactly MaxEpochs·n steps (n coordinates: an
// epoch is a sweep, or for acf n steps, and a capped run stops within a
// batch).
func TestLassoDeterministicAndCap(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 10, rows: 200, feats: 500, density: 0.03, k: 20, noise: 0.2, offset: 1, shift: 0.1})
	lamMax := lassoLamMax(t, d, true)
	used := map[int32]bool{} // the coordinates: every non-empty column (none is constant)
	for _, j := range d.Index {
		used[j] = true
	}
	n := int64(len(used))
	for _, sel := range lassoSelects {
		p := Params{Lambda: 0.05 * lamMax, Select: sel, Intercept: true, Seed: 42, Eps: 1e-9 * lamMax}
		m1, r1 := lassoTrain(t, d, p)
		m2, r2 := lassoTrain(t, d, p)
		if r1.Iterations != r2.Iterations || r1.Objective != r2.Objective {
			t.Errorf("%s: runs differ: %d vs %d steps", sel, r1.Iterations, r2.Iterations)
		}
		for j := range m1.W {
			if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
				t.Fatalf("%s: w[%d] differs: %v vs %v", sel, j, m1.W[j], m2.W[j])
			}
		}
		p.MaxEpochs = 2
		p.Eps = 1e-300
		m, res := lassoTrain(t, d, p)
		if !res.HitEpochCap || res.Converged || !m.Partial || res.Epochs != 2 || res.Iterations == 0 || res.Iterations > 2*n {
			t.Errorf("%s: cap after %d steps of %d coordinates: %+v", sel, res.Iterations, n, res)
		}
	}
}

func TestLassoModelIO(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 12, rows: 50, feats: 20, density: 0.3, k: 5, noise: 0.1, offset: 3})
	lamMax := lassoLamMax(t, d, true)
	for _, icpt := range []bool{false, true} {
		m, _ := lassoTrain(t, d, Params{Lambda: 0.1 * lamMax, Intercept: icpt})
		if m.IsClassifier() || m.Labels != nil || m.NrW != 1 {
			t.Fatalf("model: classifier %v labels %v nrW %d", m.IsClassifier(), m.Labels, m.NrW)
		}
		path := filepath.Join(t.TempDir(), "lasso.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.SolverType != "LASSO" || got.Bias != m.Bias || got.IsClassifier() {
			t.Fatalf("loaded %+v", got)
		}
		X := lassoDense(d)
		w, b := modelWB(m)
		for i := 0; i < d.Rows; i++ {
			idx, val := d.Row(i)
			want := b
			for j := range w {
				want += X[i][j] * w[j]
			}
			if p, q := m.Predict(idx, val), got.Predict(idx, val); math.Abs(p-want) > 1e-12*(1+math.Abs(want)) || p != q {
				t.Fatalf("intercept=%v row %d: Predict %g, loaded %g, want %g", icpt, i, p, q, want)
			}
		}
	}
}

// Empty columns and, with an intercept, constant columns are skipped
// (weight 0); a dataset without usable column still trains.
func TestLassoDegenerateColumns(t *testing.T) {
	d := &dataio.Dataset{Rows: 6, Features: 4, RowPtr: []int64{0}}
	r := rand.New(rand.NewPCG(5, 5))
	for i := 0; i < 6; i++ {
		d.Index = append(d.Index, 1, 2)
		d.Value = append(d.Value, 7.25, r.NormFloat64()) // column 1 constant; columns 0, 3 empty
		d.Label = append(d.Label, 10+r.NormFloat64())
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	m, res := lassoTrain(t, d, Params{Lambda: 0.01, Intercept: true, Select: Cyclic, Eps: 1e-12})
	if !res.Converged || m.W[0] != 0 || m.W[1] != 0 || m.W[3] != 0 || m.W[2] == 0 {
		t.Errorf("weights %v, result %+v", m.W, res)
	}
	X := lassoDense(d)
	if v := lassoKKTPlain(X, d.Label, m, 0.01); v > 1e-9 {
		t.Errorf("plain violation %g", v)
	}
	// Without intercept the constant column is an ordinary one.
	m, _ = lassoTrain(t, d, Params{Lambda: 0.01, Select: Cyclic, Eps: 1e-12})
	if m.W[1] == 0 {
		t.Errorf("constant column unused without intercept: %v", m.W)
	}
	// No usable column: w = 0, intercept = ȳ.
	e := &dataio.Dataset{Rows: 3, Features: 2, RowPtr: []int64{0, 0, 0, 0}, Label: []float64{1, 2, 6}, Value: []float64{}}
	for _, sel := range lassoSelects {
		m, res = lassoTrain(t, e, Params{Lambda: 1, Intercept: true, Select: sel})
		if !res.Converged || m.W[0] != 0 || m.W[1] != 0 || m.W[2] != 3 || res.Objective != 7 {
			t.Errorf("%s: empty data: %v %+v", sel, m.W, res)
		}
	}
}

// Params.GapTol stops on the duality gap, recomputed independently.
func TestLassoGapTol(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 13, rows: 150, feats: 400, density: 0.04, k: 12, noise: 0.3, offset: 2})
	X := lassoDense(d)
	var yy float64
	for _, y := range d.Label {
		yy += y * y
	}
	lamMax := lassoLamMax(t, d, false)
	_, tight := lassoTrain(t, d, Params{Lambda: 0.05 * lamMax, Select: Cyclic, GapTol: 1e-14 * yy})
	fStar := tight.Objective - tight.Gap
	for _, sel := range lassoSelects {
		for _, tol := range []float64{1e-4, 1e-8} {
			p := Params{Problem: Lasso, Lambda: 0.05 * lamMax, Select: sel, MaxEpochs: 1 << 20, GapTol: tol * yy}
			m, res, err := Train(context.Background(), d, p)
			if err != nil {
				t.Fatal(err)
			}
			// The reported gap is at most the plain one (the scaled
			// residual's, recomputed here), at least the objective's
			// excess over a tight solve, and within the tolerance.
			gap := lassoGapPlain(X, d.Label, m.W, 0, p.Lambda, false)
			f := lassoObjPlain(X, d.Label, m.W, 0, p.Lambda)
			if !res.Converged || res.Gap > tol*yy || res.Gap > gap*(1+1e-9)+1e-12*yy || f-fStar > res.Gap+1e-12*yy {
				t.Errorf("%s tol %g: converged %v gap %g (plain %g, excess %g) > %g", sel, tol, res.Converged, res.Gap, gap, f-fStar, tol*yy)
			}
		}
	}
	if _, _, err := Train(context.Background(), d, Params{Problem: Lasso, Lambda: 1, GapTol: -1}); err == nil {
		t.Error("negative gap tolerance accepted")
	}
}

func TestLassoErrors(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 14, rows: 10, feats: 5, density: 0.5, k: 2})
	bad := []Params{
		{Lambda: -1},
		{Lambda: math.NaN()},
		{Lambda: math.Inf(1)},
		{Lambda: 1, Select: Shrink},
		{Lambda: 1, Select: ACFShrink},
		{Lambda: 1, Eps: -1},
		{Lambda: 1, MaxEpochs: -1},
	}
	for _, p := range bad {
		p.Problem = Lasso
		if _, _, err := Train(context.Background(), d, p); err == nil {
			t.Errorf("%+v accepted", p)
		} else if p.Select == Shrink && !strings.Contains(err.Error(), "cyclic") {
			t.Errorf("unhelpful error: %v", err)
		}
	}
	d.Label[3] = math.NaN()
	if _, _, err := Train(context.Background(), d, Params{Problem: Lasso, Lambda: 1}); err == nil {
		t.Error("NaN label accepted")
	}
}

// Float32 storage gives the model of the same values stored as float64.
func TestLassoFloat(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 15, rows: 60, feats: 30, density: 0.2, k: 5, noise: 0.1})
	d32, d64 := float32Copies(d)
	p := Params{Lambda: 1, Intercept: true, Select: Uniform, Seed: 1}
	m1, _ := lassoTrain(t, d32, p)
	m2, _ := lassoTrain(t, d64, p)
	for j := range m1.W {
		if m1.W[j] != m2.W[j] {
			t.Fatalf("float32 storage: w[%d] %g vs %g", j, m1.W[j], m2.W[j])
		}
	}
}

// scikit-learn's Lasso (alpha = λ/ℓ) reaches the same objective.
func TestLassoSklearn(t *testing.T) {
	const py = "/usr/bin/python3"
	d := lassoGen(lassoSpec{seed: 16, rows: 60, feats: 40, density: 0.3, k: 8, noise: 0.5, offset: 3, shift: 0.3})
	X := lassoDense(d)
	type fit struct {
		Alpha float64 `json:"alpha"`
		Icpt  bool    `json:"icpt"`
		lam   float64
		eps   float64
	}
	var fits []fit
	for _, icpt := range []bool{false, true} {
		lamMax := lassoLamMax(t, d, icpt)
		for _, frac := range []float64{0.3, 0.05} {
			fits = append(fits, fit{Alpha: frac * lamMax / float64(d.Rows), Icpt: icpt, lam: frac * lamMax, eps: 1e-10 * lamMax})
		}
	}
	// One interpreter for all fits: its start and the import take seconds.
	script := `
import sys, json, numpy as np
from sklearn.linear_model import Lasso
d = json.load(sys.stdin)
X = np.array(d["X"], dtype=float); y = np.array(d["y"], dtype=float)
out = []
for f in d["fits"]:
    m = Lasso(alpha=f["alpha"], fit_intercept=f["icpt"], tol=1e-10, max_iter=1000000).fit(X, y)
    out.append({"coef": [float(v) for v in m.coef_], "intercept": float(m.intercept_)})
print(json.dumps(out))
`
	in, _ := json.Marshal(map[string]any{"X": X, "y": d.Label, "fits": fits})
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) || strings.Contains(stderr.String(), "ModuleNotFoundError") {
		t.Skip("no scikit-learn: ", err, " ", stderr.String())
	}
	if err != nil {
		t.Fatalf("sklearn: %v\n%s", err, stderr.String())
	}
	var sks []struct {
		Coef      []float64
		Intercept float64
	}
	if err := json.Unmarshal(out, &sks); err != nil || len(sks) != len(fits) {
		t.Fatalf("sklearn output %q: %v", out, err)
	}
	for k, fit := range fits {
		sk := sks[k]
		skObj := lassoObjPlain(X, d.Label, sk.Coef, sk.Intercept, fit.lam)
		for _, sel := range lassoSelects {
			m, res := lassoTrain(t, d, Params{Lambda: fit.lam, Intercept: fit.Icpt, Select: sel, Eps: fit.eps})
			w, b := modelWB(m)
			f := lassoObjPlain(X, d.Label, w, b, fit.lam)
			if !res.Converged || math.Abs(f-skObj) > 1e-6*skObj || f > skObj*(1+1e-9) {
				t.Errorf("intercept=%v λ=%g %s: objective %.12g, scikit-learn %.12g", fit.Icpt, fit.lam, sel, f, skObj)
			}
			for j := range w {
				if math.Abs(w[j]-sk.Coef[j]) > 1e-5*(1+math.Abs(sk.Coef[j])) {
					t.Errorf("intercept=%v λ=%g %s: w[%d] %g, scikit-learn %g", fit.Icpt, fit.lam, sel, j, w[j], sk.Coef[j])
					break
				}
			}
		}
	}
}

// LambdaSequence is glmnet's: 100 values by default, λ_max = ‖X_cᵀy_c‖_∞/α
// down to 1e-4·λ_max when rows > features and 1e-2·λ_max otherwise.
func TestLassoLambdaSequence(t *testing.T) {
	tall := lassoGen(lassoSpec{seed: 21, rows: 80, feats: 30, density: 0.3, k: 5, noise: 0.1, offset: 2, shift: 0.3})
	wide := lassoGen(lassoSpec{seed: 22, rows: 30, feats: 80, density: 0.3, k: 5, noise: 0.1})
	for _, c := range []struct {
		d     *dataio.Dataset
		icpt  bool
		ratio float64
	}{{tall, true, 1e-4}, {tall, false, 1e-4}, {wide, true, 1e-2}} {
		X := lassoDense(c.d)
		y := append([]float64(nil), c.d.Label...)
		if c.icpt {
			lassoCentre(X, y)
		}
		lamMax := 0.0
		for j := range X[0] {
			s := 0.0
			for i := range X {
				s += X[i][j] * y[i]
			}
			lamMax = max(lamMax, math.Abs(s))
		}
		lams, err := LambdaSequence(c.d, Params{Intercept: c.icpt}, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(lams) != DefaultPathLength || math.Abs(lams[0]-lamMax) > 1e-12*lamMax ||
			math.Abs(lams[99]-c.ratio*lamMax) > 1e-12*lamMax {
			t.Errorf("%d λ from %g to %g, want 100 from %g to %g", len(lams), lams[0], lams[len(lams)-1], lamMax, c.ratio*lamMax)
		}
		for k := 1; k < len(lams); k++ {
			if r := lams[k] / lams[k-1]; math.Abs(r-math.Pow(c.ratio, 1.0/99)) > 1e-12 {
				t.Fatalf("λ ratio %g at %d", r, k)
			}
		}
		// At λ_max the solution is 0, just below it is not.
		pts, err := TrainPathLambdas(context.Background(), c.d, Params{Intercept: c.icpt}, []float64{lamMax * (1 + 1e-9), lamMax * 0.99})
		if err != nil {
			t.Fatal(err)
		}
		if pts[0].NNZ != 0 || pts[1].NNZ == 0 || pts[0].DevRatio != 0 {
			t.Errorf("at λ_max: nnz %d (dev ratio %g), just below: %d", pts[0].NNZ, pts[0].DevRatio, pts[1].NNZ)
		}
	}
}

// lassoCentre centres the columns of X and y in place.
func lassoCentre(X [][]float64, y []float64) {
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

// DevRatio is 1 − RSS/null deviance, recomputed from the model; a
// noise-free problem saturates the deviance, and TrainPath stops there as
// glmnet does (TrainPathLambdas fits every λ).
func TestLassoDevRatioEarlyStop(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 23, rows: 120, feats: 20, density: 0.5, k: 6, noise: 0, offset: 1})
	X := lassoDense(d)
	ybar := 0.0
	for _, v := range d.Label {
		ybar += v / float64(d.Rows)
	}
	null := 0.0
	for _, v := range d.Label {
		null += (v - ybar) * (v - ybar)
	}
	pts, err := TrainPath(context.Background(), d, Params{Intercept: true}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	lams, _ := LambdaSequence(d, Params{Intercept: true}, 0, 0)
	all, err := TrainPathLambdas(context.Background(), d, Params{Intercept: true}, lams)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 100 || len(pts) >= 100 || len(pts) < PathMinPoints {
		t.Fatalf("TrainPath %d points, TrainPathLambdas %d", len(pts), len(all))
	}
	last := pts[len(pts)-1]
	prev := pts[len(pts)-2]
	if !(last.DevRatio > PathDevMax || last.DevRatio-prev.DevRatio < PathDevChange*last.DevRatio) {
		t.Errorf("stopped at point %d with dev ratio %g after %g", len(pts), last.DevRatio, prev.DevRatio)
	}
	for k, pt := range pts {
		w, b := modelWB(pt.Model)
		r := lassoResidual(X, d.Label, w, b)
		rss := 0.0
		for _, v := range r {
			rss += v * v
		}
		if want := 1 - rss/null; math.Abs(pt.DevRatio-want) > 1e-9 {
			t.Errorf("point %d: dev ratio %.12g, recomputed %.12g", k, pt.DevRatio, want)
		}
		if k+1 < len(pts) && k+1 >= PathMinPoints && (pt.DevRatio > PathDevMax || pt.DevRatio-pts[k-1].DevRatio < PathDevChange*pt.DevRatio) {
			t.Errorf("point %d should have ended the path", k)
		}
	}
}

func TestLassoPathErrors(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 24, rows: 20, feats: 10, density: 0.5, k: 3, noise: 0.1})
	ctx := context.Background()
	for _, c := range []struct {
		p    Params
		lams []float64
		want string
	}{
		{Params{}, nil, "no λ"},
		{Params{}, []float64{1, 2}, "must not increase"},
		{Params{}, []float64{1, math.NaN()}, "λ 2 is NaN"},
		{Params{}, []float64{-1}, "λ 1 is -1"},
		{Params{Alpha: 1.5}, []float64{1}, "alpha"},
		{Params{Alpha: -0.5}, []float64{1}, "alpha"},
		{Params{Alpha: math.NaN()}, []float64{1}, "alpha"},
	} {
		if _, err := TrainPathLambdas(ctx, d, c.p, c.lams); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v %v: error %v, want %q", c.p.Alpha, c.lams, err, c.want)
		}
	}
	if _, _, err := Train(ctx, d, Params{Problem: Lasso, Lambda: 1, Alpha: 2}); err == nil || !strings.Contains(err.Error(), "alpha") {
		t.Errorf("Train alpha 2: %v", err)
	}
	if _, err := LambdaSequence(d, Params{}, -3, 0); err == nil {
		t.Error("LambdaSequence n = -3 accepted")
	}
}

// The elastic net is the LASSO on the augmented data [X_c; √(λ(1−α))·I],
// [y_c; 0] with λα: solved by brute force there, it gives the weights, the
// intercept ȳ − μᵀw and the objective; the reported gap bounds the
// objective's excess, and the default stop is within DefaultGapRel of it.
func TestElasticNetBrute(t *testing.T) {
	cases := 0
	for seed := uint64(1); seed <= 4; seed++ {
		d := lassoGen(lassoSpec{seed: seed, rows: 9, feats: 3, density: 0.8, k: 2, noise: 0.5, offset: 1.5, shift: 0.4})
		for _, icpt := range []bool{false, true} {
			X := lassoDense(d)
			y := append([]float64(nil), d.Label...)
			ybar := 0.0
			mu := make([]float64, 3)
			if icpt {
				for i := range y {
					ybar += y[i] / float64(len(y))
					for j := range mu {
						mu[j] += X[i][j] / float64(len(y))
					}
				}
				lassoCentre(X, y)
			}
			for _, alpha := range []float64{0.3, 0.7} {
				lams, err := LambdaSequence(d, Params{Intercept: icpt, Alpha: alpha}, 2, 0.5)
				if err != nil {
					t.Fatal(err)
				}
				for _, frac := range []float64{0.03, 0.3, 0.8} {
					lam := frac * lams[0]
					Xa := append([][]float64(nil), X...)
					ya := append([]float64(nil), y...)
					for j := 0; j < 3; j++ {
						row := make([]float64, 3)
						row[j] = math.Sqrt(lam * (1 - alpha))
						Xa, ya = append(Xa, row), append(ya, 0)
					}
					wb, fb := lassoBrute(Xa, ya, lam*alpha)
					m, res := lassoTrain(t, d, Params{Lambda: lam, Alpha: alpha, Intercept: icpt, GapTol: 1e-13 * fb})
					w, b := modelWB(m)
					for j := range wb {
						if math.Abs(w[j]-wb[j]) > 1e-7*(1+math.Abs(wb[j])) {
							t.Errorf("seed %d icpt %v α %g λ %.2gλmax: w %v, brute force %v", seed, icpt, alpha, frac, w, wb)
							break
						}
					}
					if icpt {
						want := ybar
						for j := range mu {
							want -= mu[j] * wb[j]
						}
						if math.Abs(b-want) > 1e-7*(1+math.Abs(want)) {
							t.Errorf("seed %d α %g: intercept %g, want %g", seed, alpha, b, want)
						}
					}
					if !res.Converged || math.Abs(res.Objective-fb) > 1e-9*fb || res.Gap < 0 || res.Gap < res.Objective-fb-1e-9*fb {
						t.Errorf("seed %d icpt %v α %g λ %.2gλmax: objective %.15g gap %g, brute force %.15g", seed, icpt, alpha, frac, res.Objective, res.Gap, fb)
					}
					_, def := lassoTrain(t, d, Params{Lambda: lam, Alpha: alpha, Intercept: icpt})
					if def.Objective-fb > lasso.DefaultGapRel*def.Objective+1e-12*fb || def.Gap > lasso.DefaultGapRel*def.Objective {
						t.Errorf("default stop: objective %.15g gap %g, optimum %.15g", def.Objective, def.Gap, fb)
					}
					cases++
				}
			}
		}
	}
	if cases != 48 {
		t.Fatalf("%d cases", cases)
	}
}

// Standardize is the same fit as on an explicitly standardized copy of
// the data (the columns divided by their standard deviation, 1/ℓ): the
// same λ_max, objective and intercept, and the weights divided by sd_j.
func TestLassoStandardize(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 31, rows: 60, feats: 12, density: 0.4, k: 5, noise: 0.3, offset: 2, shift: 0.5})
	X := lassoDense(d)
	sd := make([]float64, d.Features)
	for j := range sd {
		m, v := 0.0, 0.0
		for i := range X {
			m += X[i][j] / float64(d.Rows)
		}
		for i := range X {
			v += (X[i][j] - m) * (X[i][j] - m) / float64(d.Rows)
		}
		sd[j] = math.Sqrt(v)
	}
	ds := *d
	ds.Value = append([]float64(nil), d.Value...)
	for k, j := range d.Index {
		ds.Value[k] /= sd[j]
	}
	for _, icpt := range []bool{false, true} {
		for _, alpha := range []float64{1, 0.6} {
			p := Params{Intercept: icpt, Alpha: alpha}
			l1, err := LambdaSequence(d, Params{Intercept: icpt, Alpha: alpha, Standardize: true}, 3, 0.1)
			if err != nil {
				t.Fatal(err)
			}
			l2, _ := LambdaSequence(&ds, p, 3, 0.1)
			if math.Abs(l1[0]-l2[0]) > 1e-12*l2[0] {
				t.Errorf("icpt %v α %g: λ_max %g, of the standardized copy %g", icpt, alpha, l1[0], l2[0])
			}
			for _, frac := range []float64{0.5, 0.05} {
				p.Lambda = frac * l2[0]
				p.GapTol = 1e-12 * l2[0]
				m2, r2 := lassoTrain(t, &ds, p)
				p.Standardize = true
				m1, r1 := lassoTrain(t, d, p)
				p.Standardize = false
				if math.Abs(r1.Objective-r2.Objective) > 1e-9*r2.Objective {
					t.Errorf("icpt %v α %g: objective %.15g, standardized copy %.15g", icpt, alpha, r1.Objective, r2.Objective)
				}
				for j := range m1.W {
					want := m2.W[j]
					if j < d.Features {
						want /= sd[j]
					}
					if math.Abs(m1.W[j]-want) > 1e-6*(1+math.Abs(want)) {
						t.Errorf("icpt %v α %g λ %gλmax: w[%d] %g, want %g", icpt, alpha, frac, j, m1.W[j], want)
					}
				}
			}
		}
	}
}

// A path honours an absolute gap tolerance at every λ, as a single fit
// does: each point's duality gap is at most GapTol, tighter than the
// default rule gives.
func TestLassoPathGapTol(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 8, rows: 100, feats: 200, density: 0.08, k: 15, noise: 0.3, offset: 1, shift: 0.2})
	p := Params{Intercept: true, Seed: 3}
	lams, err := LambdaSequence(d, p, 10, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	p.GapTol = 1e-9
	pts, err := TrainPathLambdas(context.Background(), d, p, lams)
	if err != nil {
		t.Fatal(err)
	}
	for k, pt := range pts {
		if !pt.Converged || !(pt.Gap <= p.GapTol) {
			t.Errorf("point %d (λ %g): converged %v, gap %g, want at most %g", k, pt.Lambda, pt.Converged, pt.Gap, p.GapTol)
		}
	}
}

// Far below λ_max on data with many more features than examples, a
// single fit first passes through larger λ (Tuning.LassoContinue): at the
// default rule it reaches the optimum as a cold start does, in fewer
// operations; under glmnet's rule, where the extra λ stop by the same
// thresh, it stops nearer the optimum, in fewer operations. Either way it
// reports the operations of the whole fit.
func TestLassoContinuation(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 12, rows: 200, feats: 4000, density: 0.05, k: 40, noise: 0.3, offset: 1, shift: 0.2})
	lam := 0.003 * lassoLamMax(t, d, true)
	_, tight := lassoTrain(t, d, Params{Lambda: lam, Intercept: true, GapTol: 1e-10})
	fStar := tight.Objective - tight.Gap
	for _, thresh := range []float64{0, 1e-7} {
		fit := func(cont float64) *Result {
			tune := DefaultTuning()
			tune.LassoContinue = cont
			_, res := lassoTrain(t, d, Params{Lambda: lam, Intercept: true, Thresh: thresh, Tuning: &tune})
			if !res.Converged {
				t.Fatalf("thresh %g, continuation %g: converged %v, gap %g", thresh, cont, res.Converged, res.Gap)
			}
			return res
		}
		cold, warm := fit(0), fit(0.05)
		t.Logf("thresh %g: operations %d with the continuation, %d without; excess %.3g and %.3g",
			thresh, warm.Operations, cold.Operations, warm.Objective-fStar, cold.Objective-fStar)
		if thresh == 0 && math.Abs(warm.Objective-cold.Objective) > 2e-4*cold.Objective { // each within its gap of 1e-4·F
			t.Errorf("objective %.15g with the continuation, %.15g without", warm.Objective, cold.Objective)
		}
		if thresh > 0 && warm.Objective > cold.Objective {
			t.Errorf("thresh %g: objective %.15g with the continuation, %.15g without: want nearer %.15g",
				thresh, warm.Objective, cold.Objective, fStar)
		}
		if warm.Operations >= cold.Operations {
			t.Errorf("thresh %g: operations %d with the continuation, %d without: want fewer", thresh, warm.Operations, cold.Operations)
		}
		if warm.Iterations <= cold.Iterations/20 {
			t.Errorf("thresh %g: %d steps reported with the continuation (%d without): its steps left out?",
				thresh, warm.Iterations, cold.Iterations)
		}
	}
}

// glmnet's stopping rule (Params.Thresh): at a tiny thresh the fit is
// the optimum, at a loose one it stops sooner and higher, and at every
// thresh the reported duality gap is the plain one, recomputed here,
// which bounds the objective's excess.
func TestLassoThresh(t *testing.T) {
	d := lassoGen(lassoSpec{seed: 21, rows: 120, feats: 600, density: 0.05, k: 20, noise: 0.3, offset: 1})
	X := lassoDense(d)
	lam := 0.02 * lassoLamMax(t, d, false)
	_, tight := lassoTrain(t, d, Params{Lambda: lam, Select: Cyclic, GapTol: 1e-13})
	fStar := tight.Objective - tight.Gap
	for _, sel := range lassoSelects {
		var steps []int64
		var objs []float64
		for _, th := range []float64{1e-3, 1e-7, 1e-14} {
			m, res := lassoTrain(t, d, Params{Lambda: lam, Select: sel, Thresh: th})
			f := lassoObjPlain(X, d.Label, m.W, 0, lam)
			gap := lassoGapPlain(X, d.Label, m.W, 0, lam, false)
			if !res.Converged || math.Abs(res.Gap-gap) > 1e-9*f || f-fStar > gap+1e-12*f || math.Abs(res.Objective-f) > 1e-9*f {
				t.Errorf("%s thresh %g: converged %v, gap %g (plain %g), objective %g (plain %g), excess %g",
					sel, th, res.Converged, res.Gap, gap, res.Objective, f, f-fStar)
			}
			steps, objs = append(steps, res.Iterations), append(objs, f)
		}
		if !(steps[0] < steps[2] && objs[0] > objs[2]) {
			t.Errorf("%s: thresh 1e-3 took %d steps to %g, 1e-14 %d steps to %g: the loose rule did not stop sooner",
				sel, steps[0], objs[0], steps[2], objs[2])
		}
		if objs[2]-fStar > 1e-10*fStar {
			t.Errorf("%s: thresh 1e-14 stopped %g above the optimum %g", sel, objs[2]-fStar, fStar)
		}
	}
	for _, p := range []Params{{Lambda: lam, Thresh: -1}, {Lambda: lam, Thresh: math.NaN()},
		{Lambda: lam, Thresh: 1e-7, Eps: 1e-3}, {Lambda: lam, Thresh: 1e-7, GapTol: 1e-3}} {
		p.Problem = Lasso
		if _, _, err := Train(context.Background(), d, p); err == nil || !strings.Contains(err.Error(), "thresh") {
			t.Errorf("thresh %g, eps %g, gap %g: error %v", p.Thresh, p.Eps, p.GapTol, err)
		}
	}
}
