package lasso

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

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

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
	for _, sel := range selections {
		m, res := train(t, d, spec(lam, sel, 1e-12))
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

// bruteForce minimises the LASSO over 3 features by enumerating sign
// patterns: on the face with support S and signs s the objective is the
// smooth ½‖y − X_S w_S‖² + λ sᵀw_S, whose stationary point is a
// candidate when its signs are s; the optimum is among the candidates.
func bruteForce(X [][]float64, y []float64, lam float64) ([]float64, float64) {
	best := []float64{0, 0, 0}
	bestF := plainObjective(X, y, best, 0, lam)
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
		if f := plainObjective(X, y, w, 0, lam); f < bestF {
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
		d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: seed, Rows: 9, Feats: 3, Density: 0.8, K: 2, Noise: 0.5})
		X := testkit.DenseRows(d.Rows, d.Features, d.Row)
		lamMax := lamMaxOf(t, d, false)
		for _, frac := range []float64{0.02, 0.2, 0.5, 0.9, 1.1} {
			lam := frac * lamMax
			wb, fb := bruteForce(X, d.Label, lam)
			for _, sel := range selections {
				s := spec(lam, sel, 1e-12*lamMax)
				s.Seed = seed
				m, res := train(t, d, s)
				f := plainObjective(X, d.Label, m.W, 0, lam)
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
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 5, Rows: 120, Feats: 300, Density: 0.05, K: 10, Noise: 0.3, Offset: 4, Shift: 0.5})
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
	for _, icpt := range []bool{false, true} {
		lamMax := lamMaxOf(t, d, icpt)
		for _, frac := range []float64{0.5, 0.1, 0.01} {
			lam := frac * lamMax
			var objs []float64
			for _, sel := range selections {
				for _, eps := range []float64{0, 1e-9 * lamMax} {
					s := spec(lam, sel, eps)
					s.Intercept, s.Seed, s.MaxEpochs = icpt, 7, 1<<20
					m, res := train(t, d, s)
					name := fmt.Sprintf("intercept=%v λ=%gλmax %s eps=%g", icpt, frac, sel, eps)
					if !res.Converged || res.Cancelled || res.HitEpochCap || m.Partial {
						t.Fatalf("%s: not converged: %+v", name, res)
					}
					wantEps := eps
					if eps == 0 {
						wantEps = DefaultEps(lam, lamMax)
					}
					if res.Eps != wantEps {
						t.Errorf("%s: Result.Eps %g, want %g", name, res.Eps, wantEps)
					}
					viol := plainKKT(X, d.Label, m, lam)
					if eps > 0 && viol > wantEps*(1+1e-6)+1e-9*lamMax {
						t.Errorf("%s: plain KKT violation %g > eps %g (reported %g)", name, viol, wantEps, res.Violation)
					}
					if math.Abs(viol-res.Violation) > 1e-9*lamMax {
						t.Errorf("%s: plain violation %g, reported %g", name, viol, res.Violation)
					}
					w, b := modelWB(m)
					f := plainObjective(X, d.Label, w, b, lam)
					if math.Abs(f-res.Objective) > 1e-10*f || res.Primal != res.Objective {
						t.Errorf("%s: objective %.15g, plain %.15g", name, res.Objective, f)
					}
					// The reported gap is that of a better dual point than
					// the scaled residual's, recomputed here; by default it
					// is within DefaultGap.
					gap := plainGap(X, d.Label, w, b, lam, icpt)
					if res.Gap < 0 || res.Gap > gap*(1+1e-9)+1e-12*f || (eps == 0 && res.Gap > DefaultGap(f, nullObjective(d.Label, icpt))) {
						t.Errorf("%s: gap %g, plain %g", name, res.Gap, gap)
					}
					if eps > 0 {
						objs = append(objs, f)
					}
					if res.Iterations <= 0 || res.Operations <= 0 || res.Epochs <= 0 || res.Select != sel.String() {
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
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 11, Rows: 80, Feats: 40, Density: 0.15, K: 6, Noise: 0.2, Offset: 50, Shift: 3})
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
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
	lamMax := lamMaxOf(t, d, true)
	if lm := lamMaxOf(t, dc, false); math.Abs(lm-lamMax) > 1e-10*lamMax {
		t.Fatalf("λ_max: implicit centring %g, explicit %g", lamMax, lm)
	}
	for _, frac := range []float64{0.3, 0.03} {
		lam := frac * lamMax
		for _, sel := range selections {
			s := spec(lam, sel, 1e-10*lamMax)
			s.Intercept = true
			m, res := train(t, d, s)
			mc, resc := train(t, dc, spec(lam, sel, 1e-10*lamMax))
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

// Cancellation before and during a run returns the partial model and a
// Result with Cancelled set (acfcd.Train turns that into an error
// wrapping context.Canceled). A cancelled run skips the measuring pass:
// its violation is the last epoch's, its gap NaN.
func TestLassoCancel(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 9, Rows: 300, Feats: 2000, Density: 0.02, K: 30, Noise: 0.1})
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
	lamMax := lamMaxOf(t, d, false)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, sel := range selections {
		m, res := mustTrain(t, ctx, d, spec(0.01*lamMax, sel, 0))
		if res == nil || !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap || res.Iterations != 0 {
			t.Fatalf("%s: pre-cancelled: result %+v", sel, res)
		}
		// Cancel from the progress callback, mid-run.
		ctx2, cancel2 := context.WithCancel(context.Background())
		epochs := 0
		lam := 1e-4 * lamMax
		s := spec(lam, sel, 1e-300)
		s.Progress = func(pr fit.Progress) {
			epochs = pr.Epoch
			if pr.Epoch == 3 {
				cancel2()
			}
		}
		m, res = mustTrain(t, ctx2, d, s)
		cancel2()
		if !res.Cancelled || res.Converged || !m.Partial || res.HitEpochCap || epochs > 4 {
			t.Errorf("%s: mid-run cancel: epochs seen %d result %+v", sel, epochs, res)
		}
		if math.IsNaN(res.Objective) || res.Objective <= 0 || math.IsNaN(res.Violation) || math.IsInf(res.Violation, 0) || res.Violation <= 0 {
			t.Errorf("%s: cancelled run reports objective %g violation %g", sel, res.Objective, res.Violation)
		}
		if f := plainObjective(X, d.Label, m.W, 0, lam); math.Abs(f-res.Objective) > 1e-9*f {
			t.Errorf("%s: cancelled run reports objective %.15g, its model's is %.15g", sel, res.Objective, f)
		}
		if !math.IsNaN(res.Gap) {
			t.Errorf("%s: cancelled run measured the gap %g", sel, res.Gap)
		}
	}
}

// The same seed gives the same bits; the epoch cap stops a run that
// cannot converge after exactly MaxEpochs·n steps (n coordinates: an
// epoch is a sweep, or for acf n steps, and a capped run stops within a
// batch).
func TestLassoDeterministicAndCap(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 10, Rows: 200, Feats: 500, Density: 0.03, K: 20, Noise: 0.2, Offset: 1, Shift: 0.1})
	lamMax := lamMaxOf(t, d, true)
	used := map[int32]bool{} // the coordinates: every non-empty column (none is constant)
	for _, j := range d.Index {
		used[j] = true
	}
	n := int64(len(used))
	for _, sel := range selections {
		s := spec(0.05*lamMax, sel, 1e-9*lamMax)
		s.Intercept, s.Seed = true, 42
		m1, r1 := train(t, d, s)
		m2, r2 := train(t, d, s)
		if r1.Iterations != r2.Iterations || r1.Objective != r2.Objective {
			t.Errorf("%s: runs differ: %d vs %d steps", sel, r1.Iterations, r2.Iterations)
		}
		for j := range m1.W {
			if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
				t.Fatalf("%s: w[%d] differs: %v vs %v", sel, j, m1.W[j], m2.W[j])
			}
		}
		s.MaxEpochs = 2
		s.Eps = 1e-300
		m, res := train(t, d, s)
		if !res.HitEpochCap || res.Converged || !m.Partial || res.Epochs != 2 || res.Iterations == 0 || res.Iterations > 2*n {
			t.Errorf("%s: cap after %d steps of %d coordinates: %+v", sel, res.Iterations, n, res)
		}
	}
}

// A LASSO model is a regression model (no labels, one weight vector) that
// a model file keeps: loaded back, it predicts w·x (+ b) as trained.
func TestLassoModelIO(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 12, Rows: 50, Feats: 20, Density: 0.3, K: 5, Noise: 0.1, Offset: 3})
	lamMax := lamMaxOf(t, d, true)
	for _, icpt := range []bool{false, true} {
		s := spec(0.1*lamMax, solver.Auto, 0)
		s.Intercept = icpt
		m, _ := train(t, d, s)
		if m.IsClassifier() || m.Labels != nil || m.NrW != 1 {
			t.Fatalf("model: classifier %v labels %v nrW %d", m.IsClassifier(), m.Labels, m.NrW)
		}
		path := filepath.Join(t.TempDir(), "lasso.model")
		if err := m.Save(path); err != nil {
			t.Fatal(err)
		}
		got, err := model.LoadModel(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.SolverType != "LASSO" || got.Bias != m.Bias || got.IsClassifier() {
			t.Fatalf("loaded %+v", got)
		}
		X := testkit.DenseRows(d.Rows, d.Features, d.Row)
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
	s := spec(0.01, solver.Cyclic, 1e-12)
	s.Intercept = true
	m, res := train(t, d, s)
	if !res.Converged || m.W[0] != 0 || m.W[1] != 0 || m.W[3] != 0 || m.W[2] == 0 {
		t.Errorf("weights %v, result %+v", m.W, res)
	}
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
	if v := plainKKT(X, d.Label, m, 0.01); v > 1e-9 {
		t.Errorf("plain violation %g", v)
	}
	// Without intercept the constant column is an ordinary one.
	m, _ = train(t, d, spec(0.01, solver.Cyclic, 1e-12))
	if m.W[1] == 0 {
		t.Errorf("constant column unused without intercept: %v", m.W)
	}
	// No usable column: w = 0, intercept = ȳ.
	e := &dataio.Dataset{Rows: 3, Features: 2, RowPtr: []int64{0, 0, 0, 0}, Label: []float64{1, 2, 6}, Value: []float64{}}
	for _, sel := range selections {
		s := spec(1, sel, 0)
		s.Intercept = true
		m, res = train(t, e, s)
		if !res.Converged || m.W[0] != 0 || m.W[1] != 0 || m.W[2] != 3 || res.Objective != 7 {
			t.Errorf("%s: empty data: %v %+v", sel, m.W, res)
		}
	}
}

// Spec.GapTol stops on the duality gap, recomputed independently.
func TestLassoGapTol(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 13, Rows: 150, Feats: 400, Density: 0.04, K: 12, Noise: 0.3, Offset: 2})
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
	var yy float64
	for _, y := range d.Label {
		yy += y * y
	}
	lamMax := lamMaxOf(t, d, false)
	ts := spec(0.05*lamMax, solver.Cyclic, 0)
	ts.GapTol = 1e-14 * yy
	_, tight := train(t, d, ts)
	fStar := tight.Objective - tight.Gap
	for _, sel := range selections {
		for _, tol := range []float64{1e-4, 1e-8} {
			s := spec(0.05*lamMax, sel, 0)
			s.MaxEpochs, s.GapTol = 1<<20, tol*yy
			m, res := train(t, d, s)
			// The reported gap is at most the plain one (the scaled
			// residual's, recomputed here), at least the objective's
			// excess over a tight solve, and within the tolerance.
			gap := plainGap(X, d.Label, m.W, 0, s.Lambda, false)
			f := plainObjective(X, d.Label, m.W, 0, s.Lambda)
			if !res.Converged || res.Gap > tol*yy || res.Gap > gap*(1+1e-9)+1e-12*yy || f-fStar > res.Gap+1e-12*yy {
				t.Errorf("%s tol %g: converged %v gap %g (plain %g, excess %g) > %g", sel, tol, res.Converged, res.Gap, gap, f-fStar, tol*yy)
			}
		}
	}
}

// Data the LASSO cannot fit is refused: a label that is not a number.
func TestLassoDataErrors(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 14, Rows: 10, Feats: 5, Density: 0.5, K: 2})
	d.Label[3] = math.NaN()
	if _, _, err := Train(context.Background(), d, resolved(spec(1, solver.Auto, 0))); err == nil {
		t.Error("NaN label accepted")
	}
}

// Float32 storage gives the model of the same values stored as float64.
func TestLassoFloat(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 15, Rows: 60, Feats: 30, Density: 0.2, K: 5, Noise: 0.1})
	d32, d64 := synth.Float32Copies(d)
	s := spec(1, solver.Uniform, 0)
	s.Intercept, s.Seed = true, 1
	m1, _ := train(t, d32, s)
	m2, _ := train(t, d64, s)
	for j := range m1.W {
		if m1.W[j] != m2.W[j] {
			t.Fatalf("float32 storage: w[%d] %g vs %g", j, m1.W[j], m2.W[j])
		}
	}
}

// scikit-learn's Lasso (alpha = λ/ℓ) reaches the same objective.
func TestLassoSklearn(t *testing.T) {
	py := testkit.NeedTool(t, "/usr/bin/python3", "-c", "import numpy, sklearn")
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 16, Rows: 60, Feats: 40, Density: 0.3, K: 8, Noise: 0.5, Offset: 3, Shift: 0.3})
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
	type skFit struct {
		Alpha float64 `json:"alpha"`
		Icpt  bool    `json:"icpt"`
		lam   float64
		eps   float64
	}
	var fits []skFit
	for _, icpt := range []bool{false, true} {
		lamMax := lamMaxOf(t, d, icpt)
		for _, frac := range []float64{0.3, 0.05} {
			fits = append(fits, skFit{Alpha: frac * lamMax / float64(d.Rows), Icpt: icpt, lam: frac * lamMax, eps: 1e-10 * lamMax})
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
	for k, fi := range fits {
		sk := sks[k]
		skObj := plainObjective(X, d.Label, sk.Coef, sk.Intercept, fi.lam)
		for _, sel := range selections {
			s := spec(fi.lam, sel, fi.eps)
			s.Intercept = fi.Icpt
			m, res := train(t, d, s)
			w, b := modelWB(m)
			f := plainObjective(X, d.Label, w, b, fi.lam)
			if !res.Converged || math.Abs(f-skObj) > 1e-6*skObj || f > skObj*(1+1e-9) {
				t.Errorf("intercept=%v λ=%g %s: objective %.12g, scikit-learn %.12g", fi.Icpt, fi.lam, sel, f, skObj)
			}
			for j := range w {
				if math.Abs(w[j]-sk.Coef[j]) > 1e-5*(1+math.Abs(sk.Coef[j])) {
					t.Errorf("intercept=%v λ=%g %s: w[%d] %g, scikit-learn %g", fi.Icpt, fi.lam, sel, j, w[j], sk.Coef[j])
					break
				}
			}
		}
	}
}

// The elastic net is the LASSO on the augmented data [X_c; √(λ(1−α))·I],
// [y_c; 0] with λα: solved by brute force there, it gives the weights, the
// intercept ȳ − μᵀw and the objective; the reported gap bounds the
// objective's excess, and the default stop is within DefaultGap of it.
func TestElasticNetBrute(t *testing.T) {
	cases := 0
	for seed := uint64(1); seed <= 4; seed++ {
		d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: seed, Rows: 9, Feats: 3, Density: 0.8, K: 2, Noise: 0.5, Offset: 1.5, Shift: 0.4})
		for _, icpt := range []bool{false, true} {
			X := testkit.DenseRows(d.Rows, d.Features, d.Row)
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
				centre(X, y)
			}
			for _, alpha := range []float64{0.3, 0.7} {
				lm, err := LambdaMax(d, resolved(Spec{Intercept: icpt, Alpha: alpha}))
				if err != nil {
					t.Fatal(err)
				}
				for _, frac := range []float64{0.03, 0.3, 0.8} {
					lam := frac * lm
					Xa := append([][]float64(nil), X...)
					ya := append([]float64(nil), y...)
					for j := 0; j < 3; j++ {
						row := make([]float64, 3)
						row[j] = math.Sqrt(lam * (1 - alpha))
						Xa, ya = append(Xa, row), append(ya, 0)
					}
					wb, fb := bruteForce(Xa, ya, lam*alpha)
					s := Spec{Lambda: lam, Alpha: alpha, Intercept: icpt, GapTol: 1e-13 * fb}
					m, res := train(t, d, s)
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
					s.GapTol = 0
					_, def := train(t, d, s)
					// y is centred with an intercept: F(0) = ½‖y‖² either way.
					tol := DefaultGap(def.Objective, nullObjective(y, false))
					if def.Objective-fb > tol+1e-12*fb || def.Gap > tol {
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
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 31, Rows: 60, Feats: 12, Density: 0.4, K: 5, Noise: 0.3, Offset: 2, Shift: 0.5})
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
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
			s := Spec{Intercept: icpt, Alpha: alpha}
			l1, err := LambdaMax(d, resolved(Spec{Intercept: icpt, Alpha: alpha, Standardize: true}))
			if err != nil {
				t.Fatal(err)
			}
			l2, _ := LambdaMax(&ds, resolved(s))
			if math.Abs(l1-l2) > 1e-12*l2 {
				t.Errorf("icpt %v α %g: λ_max %g, of the standardized copy %g", icpt, alpha, l1, l2)
			}
			for _, frac := range []float64{0.5, 0.05} {
				s.Lambda = frac * l2
				s.GapTol = 1e-12 * l2
				m2, r2 := train(t, &ds, s)
				s.Standardize = true
				m1, r1 := train(t, d, s)
				s.Standardize = false
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

// Far below λ_max on data with many more features than examples, a
// single fit first passes through larger λ (Tuning.LassoContinue): at the
// default rule it reaches the optimum as a cold start does, in fewer
// operations; under glmnet's rule, where the extra λ stop by the same
// thresh, it stops nearer the optimum, in fewer operations. Either way it
// reports the operations of the whole fit.
func TestLassoContinuation(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 12, Rows: 200, Feats: 4000, Density: 0.05, K: 40, Noise: 0.3, Offset: 1, Shift: 0.2})
	lam := 0.003 * lamMaxOf(t, d, true)
	_, tight := train(t, d, Spec{Lambda: lam, Intercept: true, GapTol: 1e-10})
	fStar := tight.Objective - tight.Gap
	for _, thresh := range []float64{0, 1e-7} {
		fitWith := func(cont float64) *fit.Result {
			lt := DefaultTuning()
			lt.LassoContinue = cont
			_, res := mustTrain(t, tune.With(context.Background(), &lt), d, Spec{Lambda: lam, Intercept: true, Thresh: thresh})
			if !res.Converged {
				t.Fatalf("thresh %g, continuation %g: converged %v, gap %g", thresh, cont, res.Converged, res.Gap)
			}
			return res
		}
		cold, warm := fitWith(0), fitWith(0.05)
		t.Logf("thresh %g: operations %d with the continuation, %d without; excess %.3g and %.3g",
			thresh, warm.Operations, cold.Operations, warm.Objective-fStar, cold.Objective-fStar)
		if thresh == 0 && math.Abs(warm.Objective-cold.Objective) > 2*DefaultGap(cold.Objective, nullObjective(d.Label, true)) { // each within its gap
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

// glmnet's stopping rule (Spec.Thresh): at a tiny thresh the fit is the
// optimum, at a loose one it stops sooner and higher, and at every thresh
// the reported duality gap is the plain one, recomputed here, which
// bounds the objective's excess.
func TestLassoThresh(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 21, Rows: 120, Feats: 600, Density: 0.05, K: 20, Noise: 0.3, Offset: 1})
	X := testkit.DenseRows(d.Rows, d.Features, d.Row)
	lam := 0.02 * lamMaxOf(t, d, false)
	ts := spec(lam, solver.Cyclic, 0)
	ts.GapTol = 1e-13
	_, tight := train(t, d, ts)
	fStar := tight.Objective - tight.Gap
	for _, sel := range selections {
		var steps []int64
		var objs []float64
		for _, th := range []float64{1e-3, 1e-7, 1e-14} {
			s := spec(lam, sel, 0)
			s.Thresh = th
			m, res := train(t, d, s)
			f := plainObjective(X, d.Label, m.W, 0, lam)
			gap := plainGap(X, d.Label, m.W, 0, lam, false)
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
}
