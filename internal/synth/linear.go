package synth

import (
	"math"
	"math/rand/v2"

	dataio "github.com/acfcd/acfcd/io"
)

// Linear returns rows examples over feats features for tests: entry
// (i, j) is cell(i, j) where that reports true, and each row is labelled
// ±1 by the sign of its score against a normal random truth drawn from r
// first (polar method), a fraction noise of the labels flipped (one draw from r per row,
// after its cells).
func Linear(r *rand.Rand, rows, feats int, noise float64, cell func(i, j int) (float64, bool)) *dataio.Dataset {
	truth := make([]float64, feats)
	for j := range truth {
		truth[j] = normal(r)
	}
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, 1, rows+1), Value: []float64{}}
	for i := range rows {
		var score float64
		for j := range feats {
			if v, ok := cell(i, j); ok {
				d.Index = append(d.Index, int32(j))
				d.Value = append(d.Value, v)
				score += float64(v * truth[j])
			}
		}
		y := 1.0
		if score < 0 {
			y = -1
		}
		if r.Float64() < noise {
			y = -y
		}
		d.Label = append(d.Label, y)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

// Unscaled draws a dense regression problem whose features have scales
// 1, 10, …, 10^(feats−1) (as cpusmall's raw counts), the targets a linear
// score of the features plus noise, values and targets rounded to 0.01:
// the badly conditioned SVR duals of the -s 13 tests.
func Unscaled(seed uint64, rows, feats int) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 0x13))
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, 1, rows+1), Value: []float64{}}
	for range rows {
		y := 50 + float64(5*r.NormFloat64())
		scale := 1.0
		for j := range feats {
			v := math.Round(scale*(1+float64(9*r.Float64()))*100) / 100
			d.Index = append(d.Index, int32(j))
			d.Value = append(d.Value, v)
			y += 3 * v / scale
			scale *= 10
		}
		d.Label = append(d.Label, math.Round(y*100)/100)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

// Regression draws a regression problem: rows of random sparse features in
// (−1, 1) (the first empty rows have none), targets a random linear score
// plus normal noise of the given size, shifted by offset.
func Regression(seed uint64, rows, feats int, density, noise, offset float64, empty int) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 0x72))
	truth := make([]float64, feats)
	for j := range truth {
		truth[j] = 3 * r.NormFloat64()
	}
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, 1, rows+1), Value: []float64{}}
	for i := range rows {
		y := offset + float64(noise*r.NormFloat64())
		for j := range feats {
			if i < empty || r.Float64() >= density {
				continue
			}
			u := float64(r.Float64()) // rounded: Float64 inlines a multiply by 2⁻⁵³
			v := u + u - 1            // 2u − 1 without a multiply-add
			if v == 0 {
				continue
			}
			d.Index = append(d.Index, int32(j))
			d.Value = append(d.Value, v)
			y += float64(v * truth[j])
		}
		d.Label = append(d.Label, y)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}

// SparseRegressionConfig describes a sparse regression problem for tests:
// rows with random sparse features, y = X·w_true + noise with K non-zero
// true weights; Offset is added to every label (and Shift to every stored
// value, which makes the columns far from centred).
type SparseRegressionConfig struct {
	Seed          uint64
	Rows, Feats   int
	Density       float64
	K             int
	Noise, Offset float64
	Shift         float64
}

// SparseRegression draws the problem s describes.
func SparseRegression(s SparseRegressionConfig) *dataio.Dataset {
	r := rand.New(rand.NewPCG(s.Seed, 99))
	truth := make([]float64, s.Feats)
	for _, j := range r.Perm(s.Feats)[:min(s.K, s.Feats)] {
		truth[j] = r.NormFloat64() * 2
	}
	d := &dataio.Dataset{Rows: s.Rows, Features: s.Feats, RowPtr: make([]int64, 1, s.Rows+1), Value: []float64{}}
	for i := 0; i < s.Rows; i++ {
		y := s.Offset + s.Noise*r.NormFloat64()
		for j := 0; j < s.Feats; j++ {
			if r.Float64() >= s.Density {
				continue
			}
			v := r.NormFloat64() + s.Shift
			d.Index = append(d.Index, int32(j))
			d.Value = append(d.Value, v)
			y += float64(v * truth[j])
		}
		d.Label = append(d.Label, y)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}
