// Package synth builds synthetic sparse binary classification problems
// with power-law feature frequencies, a heavy-tailed number of non-zeros
// per row, and labels from a sparse true model with label noise:
//
//   - Text, an in-memory text-like problem with TF-IDF-like values in
//     unit-norm rows (acfcd demo);
//   - Model, rows shaped like kdd2010 or url (Presets), generated block by
//     block in parallel at any scale (acfcd gen).
//
// Everything is deterministic in the seed and the same on every
// architecture: the variates use fmath's Exp and Log (random.go).
package synth

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/acfcd/acfcd/internal/fmath"
	dataio "github.com/acfcd/acfcd/io"
)

// TextConfig shapes a text-like problem.
type TextConfig struct {
	Rows, Features int
	MeanNNZ        float64 // mean non-zeros per row (log-normal around it)
	Informative    int     // features with a non-zero true weight
	Noise          float64 // fraction of labels flipped
	Seed           uint64
}

// Text returns a binary (+1/−1) text-like dataset.
func Text(c TextConfig) *dataio.Dataset {
	r := rand.New(rand.NewPCG(c.Seed, 0x73796e7468))
	// Zipf over features: feature ranks are shuffled so that frequent
	// features are spread over the index range as in a sorted vocabulary.
	zipf := newZipf(r, 1.1, 4, uint64(c.Features-1))
	rank := r.Perm(c.Features)
	idf := make([]float64, c.Features)
	for j := range idf {
		idf[j] = fmath.Log(2 + float64(rank[j]))
	}
	truth := make([]float64, c.Features)
	for k := 0; k < c.Informative; k++ {
		// Informative features are drawn by frequency too, like real topics.
		truth[rank[int(zipf.Uint64())]] = normal(r)
	}
	d := &dataio.Dataset{Rows: c.Rows, Features: c.Features, Source: "synthetic text",
		RowPtr: make([]int64, 1, c.Rows+1), Label: make([]float64, c.Rows)}
	sigma := 0.8
	mu := fmath.Log(c.MeanNNZ) - sigma*sigma/2
	seen := map[int32]bool{}
	row := []int32{}
	for i := 0; i < c.Rows; i++ {
		n := int(fmath.Exp(mu + float64(sigma*normal(r))))
		n = max(1, min(n, c.Features/2))
		clear(seen)
		row = row[:0]
		for len(row) < n {
			j := int32(rank[int(zipf.Uint64())])
			if !seen[j] {
				seen[j] = true
				row = append(row, j)
			}
		}
		slices.Sort(row)
		start := len(d.Value)
		var norm, margin float64
		for _, j := range row {
			v := (1 + fmath.Log(1+float64(3*r.Float64()))) * idf[j]
			d.Index = append(d.Index, j)
			d.Value = append(d.Value, v)
			norm += float64(v * v)
		}
		norm = math.Sqrt(norm)
		for k := start; k < len(d.Value); k++ {
			d.Value[k] /= norm
			margin += float64(d.Value[k] * truth[d.Index[k]])
		}
		y := 1.0
		if margin < 0 || (margin == 0 && r.IntN(2) == 0) {
			y = -1
		}
		if r.Float64() < c.Noise {
			y = -y
		}
		d.Label[i] = y
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	return d
}
