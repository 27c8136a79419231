package primal

import (
	"context"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/rows"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/model"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// overlapping returns rows examples over feats features, each present with
// probability density and uniform in [−scale, scale], labelled ±1 by a
// random hyperplane with a fraction noise of the labels flipped.
func overlapping(seed uint64, rows, feats int, density, noise, scale float64) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 5))
	return synth.Linear(r, rows, feats, noise, func(_, _ int) (float64, bool) {
		if r.Float64() >= density {
			return 0, false
		}
		return scale * (2*r.Float64() - 1), true
	})
}

// targets replaces d's labels by real targets: a random linear function
// of the row plus noise.
func targets(d *dataio.Dataset, seed uint64) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 9))
	truth := make([]float64, d.Features)
	for j := range truth {
		truth[j] = r.NormFloat64()
	}
	for i := range d.Rows {
		var y float64
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			y += d.Value[k] * truth[d.Index[k]]
		}
		d.Label[i] = y + 0.3*r.NormFloat64()
	}
	return d
}

// messyRows is a small problem with unsorted rows, a repeated index and an
// empty row, as a Dataset built by hand may have; with f32 its values are
// stored as float32 (all exact in float32).
func messyRows(f32 bool) *dataio.Dataset {
	d := &dataio.Dataset{Rows: 5, Features: 6, RowPtr: []int64{0, 4, 6, 6, 9, 12},
		Index: []int32{5, 2, 0, 2, 1, 3, 4, 0, 4, 3, 5, 1},
		Value: []float64{0.5, -1.25, 2, 0.75, 3, -1, 1.5, -0.5, 2.25, 1, -2, 0.125},
		Label: []float64{1, -1, 1, 1, -1}}
	if f32 {
		d.Value32 = make([]float32, len(d.Value))
		for k, v := range d.Value {
			d.Value32[k] = float32(v)
		}
		d.Value = nil
	}
	return d
}

// denseRow returns row i of d as a dense vector of d.Features+1 entries
// (a repeated index adds up; the bias last, if bias ≥ 0).
func denseRow(d *dataio.Dataset, i int, bias float64) []float64 {
	x := make([]float64, d.Features+1)
	for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
		if d.Value != nil {
			x[d.Index[k]] += d.Value[k]
		} else {
			x[d.Index[k]] += float64(d.Value32[k])
		}
	}
	if bias >= 0 {
		x[d.Features] = bias
	}
	return x
}

// problem returns the problem of loss on d: labels ±1 (positive: label
// > 0) with costs cn, cp, or for SquaredTube targets with cost cp and ε
// 0.1; bias < 0 means none. tune nil is the defaults; spare is the
// number of spare processors in its pool.
func problem(t *testing.T, d *dataio.Dataset, loss Loss, cn, cp, bias float64, tune *Tuning, spare int) *Problem {
	t.Helper()
	if tune == nil {
		def := DefaultTuning()
		tune = &def
	}
	drv := solver.DefaultTuning()
	p := New(rows.New(d, bias), loss, &drv, tune, procs.NewPool(spare))
	if loss == SquaredTube {
		p.T = d.Label
		p.Cost = [2]float64{cp, cp}
		p.P = 0.1
		return p
	}
	p.Y = make([]int8, d.Rows)
	for i, y := range d.Label {
		p.Y[i] = -1
		if y > 0 {
			p.Y[i] = 1
		}
	}
	p.Cost = [2]float64{cn, cp}
	return p
}

// objective recomputes f(w) from scratch, independently of the package:
// ½‖w‖² (without the bias weight if free) plus the losses.
func objective(d *dataio.Dataset, loss Loss, cn, cp, bias float64, free bool, w []float64) float64 {
	nf := d.Features
	var f float64
	for j, v := range w {
		if j < nf || !free {
			f += v * v / 2
		}
	}
	for i := range d.Rows {
		x := denseRow(d, i, bias)
		var wx float64
		for j := range x {
			wx += w[j] * x[j]
		}
		switch loss {
		case Logistic, SquaredHinge:
			y, c := -1.0, cn
			if d.Label[i] > 0 {
				y, c = 1, cp
			}
			z := y * wx
			if loss == Logistic {
				f += c * log1pExpNeg(z)
			} else if z < 1 {
				f += c * (1 - z) * (1 - z)
			}
		case SquaredTube:
			if e := abs(wx-d.Label[i]) - 0.1; e > 0 {
				f += cp * e * e
			}
		}
	}
	return f
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// flags are the -s values of the losses, the keys of the model's solver
// types.
var flags = [...]string{Logistic: "0", SquaredHinge: "2", SquaredTube: "11"}

// solverType is the solver_type name of a model trained with loss.
func solverType(loss Loss) string {
	st, _ := model.SolverTypeByFlag(flags[loss])
	return st.Name
}

// params are a training's parameters as the user gives them (liblinear's
// options): zero fields take liblinear's defaults, bias ≤ 0 is none.
type params struct {
	loss     Loss
	c, eps   float64
	bias     float64
	p        float64 // SquaredTube's ε (0: 0.1; negative: 0)
	weights  map[float64]float64
	free     bool // -R
	progress func(fit.Progress)
}

// spec is p with its defaults filled in: C 1, P 0.1, the default seed and
// selection, no bias as −1, and the processors of a pool beside the
// caller's.
func (p params) spec() Spec {
	c := p.c
	if c == 0 {
		c = 1
	}
	bias := -1.0
	if p.bias > 0 {
		bias = p.bias
	}
	eps := p.p
	if eps == 0 {
		eps = 0.1
	}
	return Spec{
		Spec: fit.Spec{C: c, Eps: p.eps, Bias: bias, Weights: p.weights, Select: solver.ACF, Seed: 1,
			Progress: p.progress, Pool: procs.NewPool(runtime.GOMAXPROCS(0) - 1)},
		Loss: p.loss, P: eps, FreeBias: p.free,
	}
}

// mustTrain trains d with p under ctx and fails t on an error.
func mustTrain(t *testing.T, ctx context.Context, d *dataio.Dataset, p params) (*model.Model, *fit.Result) {
	t.Helper()
	m, res, err := Train(ctx, d, p.spec())
	if err != nil {
		t.Fatalf("Train(%+v): %v", p, err)
	}
	return m, res
}

// wColumn returns model weights of subproblem c (bias last when present).
func wColumn(m *model.Model, c int) []float64 {
	rows := len(m.W) / m.NrW
	w := make([]float64, rows)
	for j := range w {
		w[j] = m.W[j*m.NrW+c]
	}
	return w
}

// regressionData returns d with real targets: a random linear function
// of each row plus noise.
func regressionData(seed uint64, rows, feats int, density float64) *dataio.Dataset {
	d := synth.Classes(synth.ClassesConfig{Seed: seed, Rows: rows, Feats: feats, Density: density, Labels: []float64{1, -1}})
	r := rand.New(rand.NewPCG(seed, 3))
	truth := make([]float64, feats)
	for j := range truth {
		truth[j] = 2 * r.NormFloat64()
	}
	for i := range d.Rows {
		y := 0.5
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			y += d.Value[k] * truth[d.Index[k]]
		}
		d.Label[i] = y + 0.2*r.NormFloat64()
	}
	return d
}

// primalSub is one subproblem of a primal training, as liblinear's
// train() sets it up: the ±1 labels (nil for regression) and the costs.
type primalSub struct {
	y      []float64
	cn, cp float64
}

// primalSubs returns the subproblems of p on d with the model's labels.
func primalSubs(d *dataio.Dataset, p params, labels []float64) []primalSub {
	c := p.c
	if c == 0 {
		c = 1
	}
	if p.loss == SquaredTube {
		return []primalSub{{cn: c, cp: c}}
	}
	weighted := make([]float64, len(labels))
	for k, l := range labels {
		weighted[k] = c
		if w, ok := p.weights[l]; ok {
			weighted[k] *= w
		}
	}
	var subs []primalSub
	for k := range labels {
		if len(labels) == 2 && k == 1 {
			break
		}
		s := primalSub{y: make([]float64, d.Rows), cn: c, cp: weighted[k]}
		if len(labels) == 2 {
			s.cn = weighted[1]
		}
		for i, l := range d.Label {
			s.y[i] = -1
			if l == labels[k] {
				s.y[i] = 1
			}
		}
		subs = append(subs, s)
	}
	return subs
}

// primalEval recomputes, with plain loops, the primal objective and its
// gradient at w for subproblem s of loss on d (bias < 0: none; free:
// the bias weight not regularised; svrEps the SVR's ε).
func primalEval(d *dataio.Dataset, loss Loss, s primalSub, bias float64, free bool, svrEps float64, w []float64) (f float64, g []float64) {
	nf := d.Features
	g = make([]float64, len(w))
	for j, v := range w {
		if j < nf || !free {
			f += v * v / 2
			g[j] = v
		}
	}
	for i := range d.Rows {
		wx := 0.0
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			wx += d.Value[k] * w[d.Index[k]]
		}
		if bias > 0 {
			wx += bias * w[nf]
		}
		var coef float64
		switch loss {
		case Logistic, SquaredHinge:
			c := s.cn
			if s.y[i] > 0 {
				c = s.cp
			}
			z := s.y[i] * wx
			if loss == Logistic {
				f += c * math.Log1p(math.Exp(-z))
				coef = -c * s.y[i] / (1 + math.Exp(z))
			} else if z < 1 {
				f += c * (1 - z) * (1 - z)
				coef = -2 * c * s.y[i] * (1 - z)
			}
		case SquaredTube:
			r := wx - d.Label[i]
			if e := math.Abs(r) - svrEps; e > 0 {
				f += s.cp * e * e
				coef = 2 * s.cp * e * math.Copysign(1, r)
			}
		}
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			g[d.Index[k]] += coef * d.Value[k]
		}
		if bias > 0 {
			g[nf] += coef * bias
		}
	}
	return f, g
}

// primalCase is a problem of the training tests: binary with a bias,
// class weights and labels other than ±1, four classes, and regression.
type primalCase struct {
	name    string
	d       *dataio.Dataset
	bias    float64
	weights map[float64]float64
	c       float64
}

func primalCases(loss Loss) []primalCase {
	if loss == SquaredTube {
		return []primalCase{
			{"regression", regressionData(5, 300, 20, 0.3), -1, nil, 1},
			{"regression-bias", regressionData(6, 250, 15, 0.4), 1, nil, 10},
		}
	}
	return []primalCase{
		{"noisy-binary", synth.Classes(synth.ClassesConfig{Seed: 1, Rows: 300, Feats: 40, Density: 0.2, Labels: []float64{-1, 1}, Noise: 0.15}), -1, nil, 1},
		{"weighted-labels-2-5", synth.Classes(synth.ClassesConfig{Seed: 3, Rows: 200, Feats: 25, Density: 0.25, Labels: []float64{2, 5}, Noise: 0.05, Empty: 3}), 0.5, map[float64]float64{5: 3, 2: 0.5}, 2},
		{"four-class", synth.Classes(synth.ClassesConfig{Seed: 4, Rows: 400, Feats: 50, Density: 0.15, Labels: []float64{3, 1, 4, 2}, Noise: 0.1}), 1, map[float64]float64{4: 2}, 10},
	}
}

// runLiblinear trains the data file data with liblinear-train under p's
// -s, -c, -e, -B and -wi (extra: further arguments) and returns the
// model's weights.
func runLiblinear(t *testing.T, data string, p params, extra ...string) (w []float64) {
	t.Helper()
	args := append(testkit.LiblinearArgs(flags[p.loss], p.c, p.eps, p.bias, p.weights), extra...)
	return testkit.RunLiblinear(t, testkit.LiblinearTrain, data, args...).W
}
