package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	dataio "github.com/acfcd/acfcd/io"
)

// ClassesConfig describes a generated sparse classification problem for
// tests.
type ClassesConfig struct {
	Seed    uint64
	Rows    int
	Feats   int
	Density float64   // expected fraction of non-zeros per row
	Labels  []float64 // class labels; which one is met first is random
	Noise   float64   // probability of a random label
	Scale   float64   // feature scale (default 1)
	Empty   int       // rows forced to have no features
}

// Classes draws rows with random sparse features and labels from random
// linear scores (argmax over classes), then gives a fraction random
// labels.
func Classes(s ClassesConfig) *dataio.Dataset {
	r := rand.New(rand.NewPCG(s.Seed, 77))
	k := len(s.Labels)
	if s.Scale == 0 {
		s.Scale = 1
	}
	truth := make([][]float64, k)
	for c := range truth {
		truth[c] = make([]float64, s.Feats)
		for j := range truth[c] {
			truth[c][j] = r.NormFloat64()
		}
	}
	d := &dataio.Dataset{Rows: s.Rows, Features: s.Feats, RowPtr: make([]int64, 1, s.Rows+1)}
	for i := 0; i < s.Rows; i++ {
		score := make([]float64, k)
		if i >= s.Empty {
			for j := 0; j < s.Feats; j++ {
				if r.Float64() >= s.Density {
					continue
				}
				u := float64(r.Float64())  // rounded: Float64 inlines a multiply by 2⁻⁵³
				v := s.Scale * (u + u - 1) // 2u − 1 without a multiply-add
				if v == 0 {
					continue
				}
				d.Index = append(d.Index, int32(j))
				d.Value = append(d.Value, v)
				for c := range score {
					score[c] += float64(v * truth[c][j])
				}
			}
		}
		best := 0
		for c := range score {
			if score[c] > score[best] {
				best = c
			}
		}
		if r.Float64() < s.Noise {
			best = r.IntN(k)
		}
		d.Label = append(d.Label, s.Labels[best])
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	if d.Value == nil {
		d.Value = []float64{}
	}
	return d
}

// LowDim is the case the finishers exist for: many overlapping examples,
// few features, large C (the dual is badly conditioned and stalls).
func LowDim() *dataio.Dataset {
	return Classes(ClassesConfig{Seed: 21, Rows: 4000, Feats: 12, Density: 0.7, Labels: []float64{1, -1}, Noise: 0.25, Scale: 3})
}

// Float32Copies returns d with its values stored as float32, and d with
// float64 values rounded to the same float32s (the exact problem d32
// holds).
func Float32Copies(d *dataio.Dataset) (d32, rounded *dataio.Dataset) {
	c32, cr := *d, *d
	c32.Value, c32.Value32 = nil, make([]float32, len(d.Value))
	cr.Value = make([]float64, len(d.Value))
	for k, v := range d.Value {
		c32.Value32[k] = float32(v)
		cr.Value[k] = float64(float32(v))
	}
	return &c32, &cr
}

// HandRows is a small problem with an empty row, as a program may build
// one; with f32 its values are stored as float32.
func HandRows(f32 bool) *dataio.Dataset {
	d := &dataio.Dataset{Rows: 4, Features: 5, RowPtr: []int64{0, 3, 4, 4, 7},
		Index: []int32{1, 3, 4, 2, 0, 1, 4}, Value: []float64{-2, 1.5, 0.5, 4, 0.25, 1, 1},
		Label: []float64{1, -1, 1, -1}}
	if f32 {
		d, _ = Float32Copies(d)
	}
	return d
}

// ScaledText is rows separable rows of two features as libsvm text, their
// values about scale: label y = ±1 (alternating, −1 first with flip, else
// +1 first), x = (y·(1 + u₁)·scale, (2u₂ − 1)·scale) with u from a PCG
// seeded (s1, s2). The same rows at any scale test arithmetic that leaves
// the float64 range.
func ScaledText(rows int, scale float64, s1, s2 uint64, flip bool) string {
	r := rand.New(rand.NewPCG(s1, s2))
	var b strings.Builder
	for i := range rows {
		y := float64(1 - 2*(i%2))
		if flip {
			y = -y
		}
		u1 := float64(r.Float64()) // rounded before the sums: no fused multiply-add
		u2 := float64(r.Float64())
		x1 := y * (1 + u1) * scale
		x2 := (float64(2*u2) - 1) * scale
		fmt.Fprintf(&b, "%+g 1:%.6e 2:%.6e\n", y, x1, x2)
	}
	return b.String()
}
