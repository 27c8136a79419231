package primal

import (
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/rows"
	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
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
