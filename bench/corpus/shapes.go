package main

import (
	"bufio"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// kind is what a shape's labels are for.
type kind int

const (
	binary kind = iota // two classes
	multi              // more than two classes
	regression
)

// shape is one data set of the corpus: generated here (gen), made by
// `acfcd gen` (preset), or a real file of the data directory (real).
type shape struct {
	name string
	kind kind
	// half is "A" (constants may be chosen on it) or "B" (held out: only
	// reported). Real sets a constant was tuned on before the corpus
	// existed are in A.
	half   string
	about  string
	gen    func(w io.Writer) error
	preset []string // acfcd gen arguments
	real   string   // file name in the data directory
}

// shapes is the corpus. Sizes keep the whole run near 30 minutes on two
// cores; each family comes at two or three sizes, split between the halves.
func shapes() []shape {
	s := []shape{
		// Dense low-dimensional classification (UCI-like).
		{name: "dense16", kind: binary, half: "A", about: "20000×16 dense, scaled to [-1,1], 2 classes",
			gen: dense(denseConfig{rows: 20000, feats: 16, classes: 2, seed: 1})},
		{name: "dense36raw", kind: binary, half: "B", about: "20000×36 dense, raw scales 0.1–1000, 2 classes",
			gen: dense(denseConfig{rows: 20000, feats: 36, classes: 2, raw: true, seed: 2})},
		{name: "dense57", kind: binary, half: "A", about: "4600×57 dense, scaled, 2 classes",
			gen: dense(denseConfig{rows: 4600, feats: 57, classes: 2, seed: 3})},
		{name: "dense10big", kind: binary, half: "B", about: "100000×10 dense, scaled, 2 classes",
			gen: dense(denseConfig{rows: 100000, feats: 10, classes: 2, seed: 4})},
		{name: "dense16c26", kind: multi, half: "B", about: "20000×16 dense, scaled, 26 classes (letter-like)",
			gen: dense(denseConfig{rows: 20000, feats: 16, classes: 26, seed: 5})},
		{name: "dense36c6raw", kind: multi, half: "A", about: "6400×36 dense, raw, 6 classes (satimage-like)",
			gen: dense(denseConfig{rows: 6400, feats: 36, classes: 6, raw: true, seed: 6})},
		{name: "dense100c10", kind: multi, half: "A", about: "10000×100 dense, scaled, 10 classes",
			gen: dense(denseConfig{rows: 10000, feats: 100, classes: 10, seed: 7})},
		{name: "corr50", kind: binary, half: "B", about: "10000×50 dense, correlated features (3 factors + noise)",
			gen: dense(denseConfig{rows: 10000, feats: 50, classes: 2, factors: 3, seed: 8})},
		// One-hot categorical (a9a-like).
		{name: "onehot30k", kind: binary, half: "B", about: "30000 rows, 14 categorical attributes one-hot (≈120 features) + 2 numeric",
			gen: onehot(30000, 14, 9)},
		{name: "onehot3k", kind: binary, half: "A", about: "3000 rows, 14 categorical attributes one-hot + 2 numeric",
			gen: onehot(3000, 14, 10)},
		// Text-like, Zipf feature frequencies, TF-IDF rows of unit norm.
		{name: "text5k", kind: binary, half: "A", about: "5000×20000 text, 50 nnz/row",
			gen: text(synth.TextConfig{Rows: 5000, Features: 20000, MeanNNZ: 50, Informative: 500, Noise: 0.05, Seed: 11})},
		{name: "text20k", kind: binary, half: "B", about: "20000×100000 text, 100 nnz/row",
			gen: text(synth.TextConfig{Rows: 20000, Features: 100000, MeanNNZ: 100, Informative: 2000, Noise: 0.05, Seed: 12})},
		{name: "textlong", kind: binary, half: "B", about: "2000×50000 text, 300 nnz/row",
			gen: text(synth.TextConfig{Rows: 2000, Features: 50000, MeanNNZ: 300, Informative: 1000, Noise: 0.02, Seed: 13})},
		// p ≫ n.
		{name: "pgn-dense", kind: binary, half: "A", about: "200×10000, half dense, raw integers 0–1000 (arcene-like)",
			gen: wide(200, 10000, 0.5, false, 14)},
		{name: "pgn-binary", kind: binary, half: "B", about: "800×100000 binary, ≈900 nnz/row, 10% positive (dorothea-like)",
			gen: wide(800, 100000, 0.009, true, 15)},
		// kdd-like: many rare features, a few very frequent ones.
		{name: "kdd50k", kind: binary, half: "A", about: "acfcd gen kdd: 50000×500000, 35 nnz/row",
			preset: []string{"--preset", "kdd", "--rows", "50000", "--features", "500000", "--seed", "16"}},
		{name: "kdd200k", kind: binary, half: "B", about: "acfcd gen kdd: 200000×2000000, 35 nnz/row",
			preset: []string{"--preset", "kdd", "--rows", "200000", "--features", "2000000", "--seed", "17"}},
		{name: "url20k", kind: binary, half: "B", about: "acfcd gen url: 20000×300000, 115 nnz/row",
			preset: []string{"--preset", "url", "--rows", "20000", "--features", "300000", "--seed", "18"}},
		// Exact and near duplicates.
		{name: "dups", kind: binary, half: "B", about: "text5k-like rows, each 1–6 times, half the copies jittered by 1e-3",
			gen: dups(synth.TextConfig{Rows: 3000, Features: 20000, MeanNNZ: 50, Informative: 500, Noise: 0.05, Seed: 19})},
		{name: "dupsdense", kind: binary, half: "A", about: "dense16-like rows, each 1–6 times, half the copies jittered",
			gen: dupsDense(denseConfig{rows: 4000, feats: 16, classes: 2, seed: 20})},
		// Unscaled counts.
		{name: "counts", kind: binary, half: "A", about: "10000×5000 raw word counts (1–200), 40 nnz/row",
			gen: counts(10000, 5000, 40, kindLabel(binary), 21)},
		{name: "counts-c5", kind: multi, half: "B", about: "8000×5000 raw word counts, 5 classes",
			gen: counts(8000, 5000, 40, kindLabel(multi), 22)},
		// Regression.
		{name: "reg-dense", kind: regression, half: "A", about: "10000×20 dense, scaled, y = Xw + noise",
			gen: denseReg(10000, 20, 0, 23)},
		{name: "reg-corr", kind: regression, half: "B", about: "5000×200 dense, correlated (5 factors)",
			gen: denseReg(5000, 200, 5, 24)},
		{name: "reg-textpn", kind: regression, half: "B", about: "20000×120000 text, 39 nnz/row, sparse truth",
			gen: textReg(synth.TextConfig{Rows: 20000, Features: 120000, MeanNNZ: 39, Informative: 300, Seed: 25}, 0.1)},
		{name: "reg-textpn-b", kind: regression, half: "A", about: "6000×60000 text, 80 nnz/row, sparse truth (LASSO near interpolation: support ≈ 0.9·rows at 10⁻³·λ_max)",
			gen: textReg(synth.TextConfig{Rows: 6000, Features: 60000, MeanNNZ: 80, Informative: 200, Seed: 26}, 0.1)},
		{name: "reg-counts", kind: regression, half: "B", about: "8000×2000 raw counts, y = log(1 + Xw⁺) + noise",
			gen: counts(8000, 2000, 30, kindLabel(regression), 27)},
	}
	for _, r := range []struct {
		file, half string
		k          kind
	}{
		{"a9a", "A", binary}, {"w8a", "A", binary}, {"rcv1_small", "A", binary}, {"news20", "A", multi},
		{"dna.scale", "A", multi}, {"debian-desc.regression", "A", regression}, {"cpusmall.svm", "A", regression},
		{"mushrooms", "B", binary}, {"usps_zip.train.svm", "B", multi}, {"soybean.onehot.svm", "B", multi},
		{"dorothea_train.svm", "B", binary}, {"arcene_train.svm", "B", binary}, {"housing_scale", "B", regression},
	} {
		s = append(s, shape{name: r.file, kind: r.k, half: r.half, real: r.file, about: "real (../shared/data)"})
	}
	return s
}

// writer writes libsvm rows with shortest round-trip values of six
// significant digits, as the real files print them.
type writer struct {
	w   *bufio.Writer
	buf []byte
}

func newWriter(w io.Writer) *writer { return &writer{w: bufio.NewWriterSize(w, 1<<16)} }

func (w *writer) row(label float64, idx []int32, val []float64) {
	b := strconv.AppendFloat(w.buf[:0], label, 'g', 7, 64)
	for k, j := range idx {
		if val[k] == 0 {
			continue
		}
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(j)+1, 10)
		b = append(b, ':')
		b = strconv.AppendFloat(b, val[k], 'g', 6, 64)
	}
	b = append(b, '\n')
	w.buf = b
	w.w.Write(b)
}

func (w *writer) flush() error { return w.w.Flush() }

type denseConfig struct {
	rows, feats, classes int
	raw                  bool // per-feature scales 0.1–1000 and offsets; else min-max to [-1, 1]
	factors              int  // > 0: features from this many shared factors plus noise
	seed                 uint64
}

// denseRows draws Gaussian classes around random centres, mixed by a
// random matrix (or a few factors), with 5% of the labels random.
func denseRows(c denseConfig) (x [][]float64, y []float64) {
	r := rand.New(rand.NewPCG(c.seed, 0xc0))
	centres := make([][]float64, c.classes)
	for k := range centres {
		centres[k] = make([]float64, c.feats)
		for j := range centres[k] {
			centres[k][j] = r.NormFloat64() * 0.6
		}
	}
	inner := c.feats
	if c.factors > 0 {
		inner = c.factors
	}
	mix := make([][]float64, c.feats)
	for j := range mix {
		mix[j] = make([]float64, inner)
		for k := range mix[j] {
			mix[j][k] = r.NormFloat64() / math.Sqrt(float64(inner))
		}
	}
	x = make([][]float64, c.rows)
	y = make([]float64, c.rows)
	z := make([]float64, inner)
	for i := range x {
		k := r.IntN(c.classes)
		for t := range z {
			z[t] = r.NormFloat64()
		}
		row := make([]float64, c.feats)
		for j := range row {
			var s float64
			for t, v := range z {
				s += mix[j][t] * v
			}
			if c.factors > 0 {
				s += 0.3 * r.NormFloat64()
			}
			row[j] = s + centres[k][j]
		}
		if r.Float64() < 0.05 {
			k = r.IntN(c.classes)
		}
		x[i], y[i] = row, classLabel(k, c.classes)
	}
	scaleColumns(r, x, c.raw)
	return x, y
}

// classLabel is ±1 for two classes, else 1..k.
func classLabel(k, classes int) float64 {
	if classes == 2 {
		return float64(2*k - 1)
	}
	return float64(k + 1)
}

// scaleColumns maps every column to [-1, 1] (svm-scale's default), or, raw,
// gives it a scale of 10^U(−1, 3) and a positive offset.
func scaleColumns(r *rand.Rand, x [][]float64, raw bool) {
	if len(x) == 0 {
		return
	}
	for j := range x[0] {
		if raw {
			s := math.Pow(10, -1+4*r.Float64())
			off := s * 3 * r.Float64()
			for i := range x {
				x[i][j] = x[i][j]*s + off
			}
			continue
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range x {
			lo, hi = min(lo, x[i][j]), max(hi, x[i][j])
		}
		for i := range x {
			x[i][j] = 2*(x[i][j]-lo)/(hi-lo) - 1
		}
	}
}

func writeDense(w io.Writer, x [][]float64, y []float64) error {
	out := newWriter(w)
	if len(x) == 0 {
		return out.flush()
	}
	idx := make([]int32, len(x[0]))
	for j := range idx {
		idx[j] = int32(j)
	}
	for i := range x {
		out.row(y[i], idx, x[i])
	}
	return out.flush()
}

func dense(c denseConfig) func(io.Writer) error {
	return func(w io.Writer) error {
		x, y := denseRows(c)
		return writeDense(w, x, y)
	}
}

// dupsDense repeats dense rows 1–6 times, jittering half of the copies.
func dupsDense(c denseConfig) func(io.Writer) error {
	return func(w io.Writer) error {
		x, y := denseRows(c)
		r := rand.New(rand.NewPCG(c.seed, 0xd0))
		var xs [][]float64
		var ys []float64
		for i := range x {
			for n := 1 + r.IntN(6); n > 0; n-- {
				row := slices.Clone(x[i])
				if n%2 == 0 {
					for j := range row {
						row[j] += 1e-3 * r.NormFloat64()
					}
				}
				xs, ys = append(xs, row), append(ys, y[i])
			}
		}
		return writeDense(w, xs, ys)
	}
}

// denseReg draws y = Xw + N(0, 0.5²) on dense scaled features.
func denseReg(rows, feats, factors int, seed uint64) func(io.Writer) error {
	return func(w io.Writer) error {
		x, _ := denseRows(denseConfig{rows: rows, feats: feats, classes: 2, factors: factors, seed: seed})
		r := rand.New(rand.NewPCG(seed, 0xe0))
		truth := make([]float64, feats)
		for j := range truth {
			truth[j] = r.NormFloat64()
		}
		y := make([]float64, rows)
		for i := range x {
			y[i] = 0.5 * r.NormFloat64()
			for j, v := range x[i] {
				y[i] += truth[j] * v
			}
		}
		return writeDense(w, x, y)
	}
}

// onehot draws attrs categorical attributes with 2–16 values of Zipf-like
// frequencies, one-hot encoded, and two numeric features in [0, 1]; the
// label is a noisy logistic draw from random per-value weights.
func onehot(rows, attrs int, seed uint64) func(io.Writer) error {
	return func(w io.Writer) error {
		r := rand.New(rand.NewPCG(seed, 0xa9))
		card := make([]int, attrs)
		weight := make([][]float64, attrs)
		for a := range card {
			card[a] = 2 + r.IntN(15)
			weight[a] = make([]float64, card[a])
			for v := range weight[a] {
				weight[a][v] = r.NormFloat64()
			}
		}
		out := newWriter(w)
		idx := make([]int32, 0, attrs+2)
		val := make([]float64, 0, attrs+2)
		for i := 0; i < rows; i++ {
			idx, val = idx[:0], val[:0]
			var score float64
			for j := 0; j < 2; j++ {
				u := r.Float64()
				idx, val = append(idx, int32(j)), append(val, math.Round(u*1e4)/1e4)
				score += (u - 0.5) * 2
			}
			base := int32(2)
			for a := range card {
				// P(v) ∝ 1/(v+1): a few common values, a tail of rare ones.
				var tot float64
				for v := 0; v < card[a]; v++ {
					tot += 1 / float64(v+1)
				}
				u, v := r.Float64()*tot, 0
				for ; v < card[a]-1; v++ {
					u -= 1 / float64(v+1)
					if u < 0 {
						break
					}
				}
				idx, val = append(idx, base+int32(v)), append(val, 1)
				score += weight[a][v]
				base += int32(card[a])
			}
			y := -1.0
			if r.Float64() < 1/(1+math.Exp(-score+1)) {
				y = 1
			}
			out.row(y, idx, val)
		}
		return out.flush()
	}
}

func writeDataset(w io.Writer, d *dataio.Dataset, label func(i int, idx []int32, val []float64) float64) error {
	out := newWriter(w)
	for i := 0; i < d.Rows; i++ {
		lo, hi := d.RowPtr[i], d.RowPtr[i+1]
		idx, val := d.Index[lo:hi], d.Value[lo:hi]
		y := d.Label[i]
		if label != nil {
			y = label(i, idx, val)
		}
		out.row(y, idx, val)
	}
	return out.flush()
}

func text(c synth.TextConfig) func(io.Writer) error {
	return func(w io.Writer) error { return writeDataset(w, synth.Text(c), nil) }
}

// textReg relabels text rows with y = x·w for a sparse w on the most
// frequent features plus noise: a p ≫ n LASSO whose path reaches
// near-interpolation at 10⁻³·λ_max.
func textReg(c synth.TextConfig, noise float64) func(io.Writer) error {
	return func(w io.Writer) error {
		d := synth.Text(c)
		r := rand.New(rand.NewPCG(c.Seed, 0xf0))
		truth := make(map[int32]float64, c.Informative)
		for len(truth) < c.Informative {
			truth[int32(r.IntN(c.Features))] = 5 * r.NormFloat64()
		}
		// Features that occur: the true weights are moved onto them.
		return writeDataset(w, d, func(i int, idx []int32, val []float64) float64 {
			y := noise * r.NormFloat64()
			for k, j := range idx {
				y += truth[j] * val[k]
			}
			return y + 10
		})
	}
}

// dups writes text rows 1–6 times each, half of the copies jittered.
func dups(c synth.TextConfig) func(io.Writer) error {
	return func(w io.Writer) error {
		d := synth.Text(c)
		r := rand.New(rand.NewPCG(c.Seed, 0xd1))
		out := newWriter(w)
		jit := []float64{}
		for i := 0; i < d.Rows; i++ {
			lo, hi := d.RowPtr[i], d.RowPtr[i+1]
			for n := 1 + r.IntN(6); n > 0; n-- {
				jit = append(jit[:0], d.Value[lo:hi]...)
				if n%2 == 0 {
					for k := range jit {
						jit[k] *= 1 + 1e-3*r.NormFloat64()
					}
				}
				out.row(d.Label[i], d.Index[lo:hi], jit)
			}
		}
		return out.flush()
	}
}

// labelFunc turns a row's score into a label of the shape's kind.
type labelFunc func(r *rand.Rand, score []float64) float64

func kindLabel(k kind) labelFunc {
	return func(r *rand.Rand, score []float64) float64 {
		switch k {
		case regression:
			return math.Log1p(max(0, score[0])) + 0.1*r.NormFloat64()
		case multi:
			return float64(argmax(score) + 1)
		}
		if score[0]+0.3*r.NormFloat64() > 0 {
			return 1
		}
		return -1
	}
}

func argmax(xs []float64) int {
	best := 0
	for i, x := range xs {
		if x > xs[best] {
			best = i
		}
	}
	return best
}

// counts writes raw word counts: Zipf-distributed words, each count 1 plus
// a geometric number (up to a few hundred for frequent words), with labels
// from a random linear score.
func counts(rows, feats int, meanNNZ float64, label labelFunc, seed uint64) func(io.Writer) error {
	return func(w io.Writer) error {
		r := rand.New(rand.NewPCG(seed, 0xc1))
		classes := 5
		truth := make([][]float64, classes)
		for c := range truth {
			truth[c] = make([]float64, feats)
			for j := range truth[c] {
				if r.IntN(10) == 0 {
					truth[c][j] = r.NormFloat64()
				}
			}
		}
		out := newWriter(w)
		cnt := map[int32]float64{}
		var idx []int32
		var val []float64
		score := make([]float64, classes)
		for i := 0; i < rows; i++ {
			clear(cnt)
			n := 1 + int(r.ExpFloat64()*meanNNZ)
			for t := 0; t < n; t++ {
				// Zipf over ranks by inversion of a continuous power law.
				j := int32(min(float64(feats-1), math.Floor(math.Pow(float64(feats), r.Float64()))-1))
				cnt[max(0, j)]++
			}
			idx, val = idx[:0], val[:0]
			for j := range cnt {
				idx = append(idx, j)
			}
			slices.Sort(idx)
			clear(score)
			for _, j := range idx {
				v := cnt[j]
				val = append(val, v)
				for c := range score {
					score[c] += truth[c][j] * math.Sqrt(v) / 3
				}
			}
			out.row(label(r, score), idx, val)
		}
		return out.flush()
	}
}

// wide draws a p ≫ n problem: dense-ish raw integers 0–1000 (arcene-like),
// or binary features with Zipf frequencies and 10% positives
// (dorothea-like); the label depends on 50 features.
func wide(rows, feats int, density float64, binaryValues bool, seed uint64) func(io.Writer) error {
	return func(w io.Writer) error {
		r := rand.New(rand.NewPCG(seed, 0xb0))
		truth := map[int32]float64{}
		for len(truth) < 50 {
			truth[int32(r.IntN(feats))] = r.NormFloat64()
		}
		freq := make([]float64, feats)
		for j := range freq {
			if binaryValues {
				freq[j] = min(0.5, density*20/math.Sqrt(float64(j+1)))
			} else {
				freq[j] = density
			}
		}
		out := newWriter(w)
		var idx []int32
		var val []float64
		scores := make([]float64, rows)
		rowsIdx := make([][]int32, rows)
		rowsVal := make([][]float64, rows)
		for i := 0; i < rows; i++ {
			idx, val = nil, nil
			var s float64
			for j := 0; j < feats; j++ {
				if r.Float64() >= freq[j] {
					continue
				}
				v := 1.0
				if !binaryValues {
					v = float64(1 + r.IntN(1000))
				}
				idx, val = append(idx, int32(j)), append(val, v)
				s += truth[int32(j)] * v
			}
			rowsIdx[i], rowsVal[i], scores[i] = idx, val, s
		}
		// Positives: the top 10% (binary) or half (dense) of the scores.
		cut := slices.Clone(scores)
		slices.Sort(cut)
		q := cut[len(cut)/2]
		if binaryValues {
			q = cut[len(cut)*9/10]
		}
		for i := 0; i < rows; i++ {
			y := -1.0
			if scores[i] > q {
				y = 1
			}
			out.row(y, rowsIdx[i], rowsVal[i])
		}
		return out.flush()
	}
}
