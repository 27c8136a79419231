package l1

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// problems are -s 5 (Logistic false) and -s 6 (Logistic).
var problems = []bool{false, true}

// selections are the coordinate selections -s 5 and 6 take, the default
// first.
var selections = []solver.Selection{solver.ACFShrink, solver.ACF, solver.Uniform, solver.Shrink, solver.Cyclic}

// flag is the -s value of -s 5 or, logistic, -s 6.
func flag(logistic bool) string {
	if logistic {
		return "6"
	}
	return "5"
}

// solverType is the solver_type name of a -s 5 or 6 model.
func solverType(logistic bool) string {
	st, _ := model.SolverTypeByFlag(flag(logistic))
	return st.Name
}

// params are a training's parameters as the user gives them (liblinear's
// options): zero fields take liblinear's defaults, bias ≤ 0 is none.
type params struct {
	logistic bool
	c, eps   float64
	bias     float64
	free     bool // -R
	weights  map[float64]float64
	sel      solver.Selection
	progress func(fit.Progress)
}

// spec is p with its defaults filled in: C 1, the default seed and
// selection (ACFShrink), no bias as −1, and the processors of a pool
// beside the caller's.
func (p params) spec() Spec {
	c := p.c
	if c == 0 {
		c = 1
	}
	bias := -1.0
	if p.bias > 0 {
		bias = p.bias
	}
	sel := p.sel
	if sel == solver.Auto {
		sel = selections[0]
	}
	return Spec{
		Spec: fit.Spec{C: c, Eps: p.eps, Bias: bias, Weights: p.weights, Select: sel, Seed: 1,
			Progress: p.progress, Pool: procs.NewPool(runtime.GOMAXPROCS(0) - 1)},
		Logistic: p.logistic, FreeBias: p.free,
	}
}

// train trains d with p.
func train(ctx context.Context, d *dataio.Dataset, p params) (*model.Model, *fit.Result, error) {
	return Train(ctx, d, p.spec())
}

// l1Eval recomputes, independently of the package, F(w) and the
// minimum-norm subgradient's 1-norm at the model's weights of subproblem
// k, and that 1-norm at w = 0, for the costs of p as liblinear's train()
// sets them.
func l1Eval(d *dataio.Dataset, m *model.Model, k int, p params) (f, gnorm, gnorm0 float64) {
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
	cp, cn := p.c, p.c
	if len(m.Labels) == 2 {
		cp, cn = p.c*weightOf(p, m.Labels[0]), p.c*weightOf(p, m.Labels[1])
	} else {
		cp = p.c * weightOf(p, pos)
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
			if !p.logistic {
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
			free := p.free && m.Bias > 0 && j == rows-1
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

// weightOf is the -wi weight of class label under p (1 if none).
func weightOf(p params, label float64) float64 {
	if w, ok := p.weights[label]; ok {
		return w
	}
	return 1
}

// tolScale is liblinear's max(min(pos, neg), 1)/ℓ of subproblem k.
func tolScale(d *dataio.Dataset, m *model.Model, k int) float64 {
	pos := 0
	for _, y := range d.Label {
		if y == m.Labels[k] {
			pos++
		}
	}
	return float64(max(min(pos, d.Rows-pos), 1)) / float64(d.Rows)
}

// l1Data are the problems of the training tests: two classes, and three
// on features of a larger scale.
func l1Data() map[string]*dataio.Dataset {
	return map[string]*dataio.Dataset{
		"binary":     synth.Classes(synth.ClassesConfig{Seed: 21, Rows: 300, Feats: 40, Density: 0.2, Labels: []float64{1, -1}, Noise: 0.1}),
		"multiclass": synth.Classes(synth.ClassesConfig{Seed: 22, Rows: 240, Feats: 25, Density: 0.3, Labels: []float64{3, 1, 2}, Noise: 0.05, Scale: 3}),
	}
}

// runLiblinear trains the data file data with liblinear-train under p's
// -s, -c, -e, -B and -wi and returns the printed objective values (one
// per subproblem), the model's label line, and whether liblinear stopped
// at its iteration cap.
func runLiblinear(t *testing.T, data string, p params) (objs []float64, labels []float64, capped bool) {
	t.Helper()
	r := testkit.RunLiblinear(t, testkit.LiblinearTrain, data, testkit.LiblinearArgs(flag(p.logistic), p.c, p.eps, p.bias, p.weights)...)
	return r.Objectives, r.Labels, r.Capped
}

// predictWithLiblinear runs liblinear-predict, when installed, on d with
// m and compares its predictions with m.Predict.
func predictWithLiblinear(t *testing.T, d *dataio.Dataset, m *model.Model) {
	t.Helper()
	predict := filepath.Join(filepath.Dir(testkit.LiblinearTrain), "liblinear-predict")
	if _, err := os.Stat(predict); err != nil {
		return
	}
	dir := t.TempDir()
	data, file, out := filepath.Join(dir, "data"), filepath.Join(dir, "model"), filepath.Join(dir, "out")
	testkit.WriteLibSVM(t, d.Label, d.Row, data)
	if err := m.Save(file); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command(predict, data, file, out).CombinedOutput(); err != nil {
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
