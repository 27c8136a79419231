package synth

// Streamed data at the scale of kdd2010 and url (acfcd gen).
//
// # The model
//
// A row holds some "numeric" features, real-valued, at the lowest indices
// [0, D), each present with its own probability p_j = p0·exp(−j/τ), and a
// number of "binary" features (value 1) drawn from the indices [D, F). The
// number of binary features is log-normal (a heavy right tail), rounded at
// random so that the mean is kept. Binary features are drawn by a Zipf law
// over frequency ranks, P(rank k) ∝ (v+k)^−s, without repetition in a
// row; rank k becomes index D + π(k), where π shuffles ranks inside each
// power-of-two band [2^b, 2^(b+1)): frequent features get low indices, rare
// ones are spread over the whole range, as when a vocabulary is numbered
// in order of first appearance.
//
// Labels come from a sparse true model: every numeric feature has a
// Gaussian weight, and so has a fraction of the informRanks most
// frequent binary features (chosen by a hash of the rank), scaled down by
// sqrt(fullRanks/(rank+1)) beyond the fullRanks most frequent, so
// that the signal lies where there are data to learn it; the rare
// features are noise. A row is +1 when its margin exceeds a threshold
// that gives the preset's share of +1 labels, and then a fraction of the
// labels is flipped. The weights, the band shuffles and the threshold take
// O(1) memory: nothing is stored per feature.
//
// # Determinism and parallelism
//
// Rows are generated in blocks of blockRows. Each block has two random
// streams of its own, seeded from the seed and the block number: one for
// the counts (which numeric features are present, how many binary ones),
// one for the content. Blocks are generated in parallel and handed out in
// order, so the output depends on the seed and the shape only, not on the
// number of threads. For a binary cache, a first pass over the count
// streams (NNZ) gives the exact number of non-zeros, so that every section
// is written in place, once.

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/acfcd/acfcd/internal/fmath"
)

// Preset is the shape of a generated data set.
type Preset struct {
	About    string
	Rows     int
	Features int
	NNZ      float64   // mean non-zeros per row
	Sigma    float64   // log-normal spread of the number of binary features
	Numeric  int       // D: real-valued features at indices [0, D)
	P0, Tau  float64   // numeric feature j is present with probability P0·exp(−j/Tau)
	Values   ValueKind // how numeric values look
	ZipfS    float64   // Zipf exponent s of the binary features' ranks
	ZipfV    float64   // Zipf offset v
	Inform   float64   // fraction of the informRanks most frequent binary features with a non-zero true weight
	Positive float64   // share of +1 labels
	Noise    float64   // fraction of labels flipped
}

// ValueKind is how a preset's numeric values look.
type ValueKind int

const (
	ValuesLog  ValueKind = iota // log10(1+k) for small counts k, 6 significant digits (kdd)
	ValuesUnit                  // in (0, 1), skewed to small values, 6 significant digits (url)
)

// Presets: kdd2010 (bridge to algebra: 19,264,097 rows, 29,890,095
// features) and url (the URL-reputation set: 2,396,130 rows, 3,231,961
// features, about 115 non-zeros per row, a third malicious).
//
// The url preset's share of real values (about 10% of the non-zeros, in
// (0, 1), 6 significant digits) and its narrow spread of non-zeros per row
// follow the 2,000-row url sample in ../shared/data. Its Zipf head is
// lighter than the sample's (86 features in more than half of its rows): a
// law that heavy would leave most of the 3.2M features unused at full
// scale, while s = 1.2 uses about 90% of them. kdd's s = 1.05 uses about
// 84% of its 29.9M features over the full 19.3M rows (4.6M in 10^6 rows).
var Presets = map[string]Preset{
	"kdd": {
		About: "kdd2010-like: binary features (value 1) with a few counts, power-law frequencies, 85% +1",
		Rows:  19_264_097, Features: 29_890_095, NNZ: 35, Sigma: 0.5,
		Numeric: 16, P0: 0.5, Tau: 4.5, Values: ValuesLog,
		ZipfS: 1.05, ZipfV: 8, Inform: 0.3, Positive: 0.85, Noise: 0.05,
	},
	"url": {
		About: "url-like: about 10% real-valued features in (0,1), the rest binary with power-law frequencies, 33% +1",
		Rows:  2_396_130, Features: 3_231_961, NNZ: 115, Sigma: 0.25,
		Numeric: 64, P0: 1, Tau: 11, Values: ValuesUnit,
		ZipfS: 1.2, ZipfV: 8, Inform: 0.3, Positive: 0.33, Noise: 0.02,
	},
}

const (
	blockRows  = 4096 // rows per block: the unit of parallel work and of seeding
	pilotRows  = 8192 // rows drawn to place the label threshold
	maxNumeric = 64   // numeric features are a bit mask

	informRanks = 1 << 16 // binary features beyond this rank have no true weight
	fullRanks   = 1 << 12 // weights shrink beyond this rank
)

// Model is a preset made concrete for a seed.
type Model struct {
	p          Preset
	seed       uint64
	numeric    int      // D
	sparse     uint64   // binary features: indices [D, D+sparse)
	presence   []uint32 // numeric feature j is present when a uniform uint32 < presence[j]
	mu, sigma  float64  // log-normal of the number of binary features
	maxSparse  int      // at most this many binary features in a row
	bandA      []uint64 // rank shuffle inside band b: lo + (a·(k−lo) + c) mod size
	bandC      []uint64
	bandSize   []uint64
	bandInv    []uint64  // a⁻¹ mod size
	informCut  uint64    // a binary feature is informative when its hash is below
	weights    []float64 // by rank, for the informRanks most frequent binary features
	threshold  float64   // label: +1 when the margin exceeds it (before noise)
	numWeights []float64
}

// NewModel makes preset p concrete for seed. p must have at least 16
// features and a mean of at least 1 and at most Features/4 non-zeros per
// row.
func NewModel(p Preset, seed uint64) *Model {
	m := &Model{p: p, seed: seed}
	m.numeric = min(p.Numeric, p.Features/4, maxNumeric)
	m.sparse = uint64(p.Features - m.numeric)
	// Numeric features take at most half of the non-zeros.
	p0, numMean := p.P0, 0.0
	for j := 0; j < m.numeric; j++ {
		numMean += float64(p0 * fmath.Exp(-float64(j)/p.Tau))
	}
	if numMean > p.NNZ/2 {
		p0 *= p.NNZ / 2 / numMean
		numMean = p.NNZ / 2
	}
	m.presence = make([]uint32, m.numeric)
	m.numWeights = make([]float64, m.numeric)
	for j := range m.presence {
		m.presence[j] = uint32(math.Min(p0*fmath.Exp(-float64(j)/p.Tau), 1) * math.MaxUint32)
		m.numWeights[j] = hashNormal(hash3(seed, 0x6e756d, uint64(j)))
	}
	mean := p.NNZ - numMean // of the binary features
	m.sigma = p.Sigma
	m.mu = fmath.Log(mean) - float64(p.Sigma*p.Sigma/2)
	m.maxSparse = int(m.sparse / 2)
	for b := 0; b <= bits.Len64(m.sparse-1); b++ {
		lo, hi := uint64(0), uint64(1)
		if b > 0 {
			lo, hi = 1<<(b-1), 1<<b
		}
		size := min(hi, m.sparse) - lo
		a := uint64(float64(size)*0.6180339887498949) | 1
		for gcd(a, size) != 1 {
			a += 2
		}
		m.bandSize = append(m.bandSize, size)
		m.bandInv = append(m.bandInv, modInverse(a%size, size))
		m.bandA = append(m.bandA, a%size)
		m.bandC = append(m.bandC, hash3(seed, 0x62616e64, uint64(b))%size)
	}
	m.informCut = uint64(p.Inform * (1 << 53))
	m.weights = make([]float64, min(m.sparse, informRanks))
	for k := range m.weights {
		m.weights[k] = m.rankWeight(uint64(k))
	}

	// The threshold that gives the share of +1 labels before noise: a
	// quantile of the margins of pilot rows from a stream of their own.
	clean := (p.Positive - p.Noise) / (1 - 2*p.Noise)
	clean = math.Min(math.Max(clean, 0), 1)
	m.threshold = math.Inf(-1)
	pilot := &Block{}
	margins := make([]float64, 0, pilotRows)
	for b := 0; len(margins) < pilotRows; b++ {
		m.fill(pilot, ^uint64(b), blockRows, false)
		margins = append(margins, pilot.margin...)
	}
	slices.Sort(margins)
	if k := int((1 - clean) * float64(len(margins))); k >= len(margins) {
		m.threshold = math.Inf(1)
	} else if k > 0 {
		m.threshold = margins[k-1]
	}
	return m
}

// weight is the true weight of binary feature index j (0 for most).
func (m *Model) weight(j int32) float64 {
	if k := m.rank(j); k < uint64(len(m.weights)) {
		return m.weights[k]
	}
	return 0
}

// rankWeight is the true weight of the binary feature of rank k <
// informRanks.
func (m *Model) rankWeight(k uint64) float64 {
	h := hash3(m.seed, 0x77, k)
	if h>>11 >= m.informCut {
		return 0
	}
	w := hashNormal(hash3(h, 0x6e, 1))
	if k >= fullRanks {
		w *= math.Sqrt(fullRanks / float64(k+1))
	}
	return w
}

// rank is the frequency rank of binary feature index j (index's inverse).
func (m *Model) rank(j int32) uint64 {
	x := uint64(j) - uint64(m.numeric)
	b := bits.Len64(x) // a band holds the same ranks as indices
	lo := uint64(0)
	if b > 0 {
		lo = 1 << (b - 1)
	}
	size := m.bandSize[b]
	return lo + m.bandInv[b]*((x-lo+size-m.bandC[b])%size)%size
}

// index maps a frequency rank to its feature index.
func (m *Model) index(k uint64) int32 {
	b := bits.Len64(k)
	lo := uint64(0)
	if b > 0 {
		lo = 1 << (b - 1)
	}
	return int32(uint64(m.numeric) + lo + (m.bandA[b]*(k-lo)+m.bandC[b])%m.bandSize[b])
}

// rngs are the count and content streams of block b.
func (m *Model) rngs(b uint64) (count, content *rand.Rand) {
	return rand.New(rand.NewPCG(hash3(m.seed, b, 1), hash3(m.seed, b, 2))),
		rand.New(rand.NewPCG(hash3(m.seed, b, 3), hash3(m.seed, b, 4)))
}

// counts draws the next row's numeric features (a bit mask) and number of
// binary features from the count stream.
func (m *Model) counts(r *rand.Rand) (mask uint64, sparse int) {
	for j := 0; j < m.numeric; j += 2 {
		u := r.Uint64()
		if uint32(u) < m.presence[j] {
			mask |= 1 << j
		}
		if j+1 < m.numeric && uint32(u>>32) < m.presence[j+1] {
			mask |= 1 << (j + 1)
		}
	}
	x := fmath.Exp(m.mu + float64(m.sigma*normal(r)))
	n := int(math.Floor(x + float64(r.Float64()))) // random rounding keeps the mean
	return mask, max(1, min(n, m.maxSparse))
}

// blockNNZ is the number of non-zeros of block b with the given rows.
func (m *Model) blockNNZ(b uint64, rows int) int64 {
	r, _ := m.rngs(b)
	var nnz int64
	for i := 0; i < rows; i++ {
		mask, n := m.counts(r)
		nnz += int64(bits.OnesCount64(mask) + n)
	}
	return nnz
}

// NNZ is the number of non-zeros of all rows, counted on threads
// goroutines from the count streams alone.
func (m *Model) NNZ(threads int) int64 {
	var nnz atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := int(next.Add(1) - 1); b < m.blocks(); b = int(next.Add(1) - 1) {
				nnz.Add(m.blockNNZ(uint64(b), m.blockRows(b)))
			}
		}()
	}
	wg.Wait()
	return nnz.Load()
}

// Block is one block of generated rows in CSR form, and their libsvm text
// when it was asked for. It is reused once emit returns.
type Block struct {
	Rows   int
	RowPtr []int64
	Index  []int32
	Value  []float64
	Label  []float64
	MaxIdx int32 // the largest index, -1 if none
	Text   []byte
	margin []float64
}

// fill generates rows rows of block b into g, and their libsvm text when
// text is set.
func (m *Model) fill(g *Block, b uint64, rows int, text bool) {
	rc, rx := m.rngs(b)
	zipf := newZipf(rx, m.p.ZipfS, m.p.ZipfV, m.sparse-1)
	g.Rows = rows
	g.RowPtr = append(g.RowPtr[:0], 0)
	g.Index, g.Value, g.Label, g.margin = g.Index[:0], g.Value[:0], g.Label[:0], g.margin[:0]
	g.Text = g.Text[:0]
	g.MaxIdx = -1
	for i := 0; i < rows; i++ {
		mask, n := m.counts(rc)
		start := len(g.Index)
		margin := 0.0
		for mm := mask; mm != 0; mm &= mm - 1 {
			j := bits.TrailingZeros64(mm)
			v := m.numericValue(rx)
			g.Index = append(g.Index, int32(j))
			g.Value = append(g.Value, v)
			margin += float64(v * m.numWeights[j])
		}
		// n distinct features: Zipf draws until there are n different ones,
		// then uniform draws should the Zipf head keep repeating. Ranks map
		// to indices one to one, so duplicates are found among the indices.
		s0 := len(g.Index)
		for round := 0; len(g.Index)-s0 < n; round++ {
			for len(g.Index)-s0 < n {
				if round < 8 {
					g.Index = append(g.Index, m.index(zipf.Uint64()))
				} else {
					g.Index = append(g.Index, m.index(rx.Uint64N(m.sparse)))
				}
			}
			slices.Sort(g.Index[s0:])
			g.Index = g.Index[:s0+len(slices.Compact(g.Index[s0:]))]
		}
		for _, j := range g.Index[s0:] {
			g.Value = append(g.Value, 1)
			margin += m.weight(j)
		}
		margin += float64(1e-6 * normal(rx)) // ties broken at random
		y := -1.0
		if margin > m.threshold {
			y = 1
		}
		if rx.Float64() < m.p.Noise {
			y = -y
		}
		g.Label = append(g.Label, y)
		g.margin = append(g.margin, margin)
		g.RowPtr = append(g.RowPtr, int64(len(g.Index)))
		if len(g.Index) > start {
			g.MaxIdx = max(g.MaxIdx, g.Index[len(g.Index)-1])
		}
		if text {
			g.Text = appendRowText(g.Text, y, g.Index[start:], g.Value[start:])
		}
	}
}

// numericValue draws a numeric feature's value, with at most 6
// significant digits so that its shortest decimal form is short and reads
// back to the same float64.
func (m *Model) numericValue(r *rand.Rand) float64 {
	switch m.p.Values {
	case ValuesLog:
		k := 1
		for k < 64 && r.Uint32()&1 == 0 {
			k++
		}
		return round6(fmath.Log10(1 + float64(k)))
	default:
		u := r.Float64()
		return round6(math.Max(u*u, 1e-4))
	}
}

// appendRowText appends a libsvm line (1-based indices).
func appendRowText(b []byte, y float64, idx []int32, val []float64) []byte {
	if y > 0 {
		b = append(b, "+1"...)
	} else {
		b = append(b, "-1"...)
	}
	for k, j := range idx {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(j)+1, 10)
		b = append(b, ':')
		if v := val[k]; v == 1 {
			b = append(b, '1')
		} else {
			b = strconv.AppendFloat(b, v, 'g', -1, 64)
		}
	}
	return append(b, '\n')
}

// blocks is the number of blocks and the rows of block b.
func (m *Model) blocks() int { return (m.p.Rows + blockRows - 1) / blockRows }
func (m *Model) blockRows(b int) int {
	return min(blockRows, m.p.Rows-b*blockRows)
}

// Generate makes every block on threads goroutines and hands them to emit
// in order, with their libsvm text when text is set. emit's error stops
// the generation and is returned.
func (m *Model) Generate(threads int, text bool, emit func(*Block) error) error {
	type job struct {
		b    int
		done chan *Block
	}
	jobs := make(chan job, 2*threads)
	order := make(chan chan *Block, 2*threads)
	free := make(chan *Block, 4*threads+2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	go func() { // dispatch in order
		defer close(jobs)
		defer close(order)
		for b := 0; b < m.blocks(); b++ {
			j := job{b, make(chan *Block, 1)}
			select {
			case order <- j.done:
			case <-stop:
				return
			}
			jobs <- j
		}
	}()
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var g *Block
				select {
				case g = <-free:
				default:
					g = &Block{}
				}
				m.fill(g, uint64(j.b), m.blockRows(j.b), text)
				j.done <- g
			}
		}()
	}
	var err error
	for done := range order {
		g := <-done
		if err == nil {
			err = emit(g)
			if err != nil {
				close(stop)
			}
		}
		select {
		case free <- g:
		default:
		}
	}
	wg.Wait()
	return err
}

// round6 rounds x > 0 to 6 significant digits, as the nearest float64 to
// a 6-digit decimal.
func round6(x float64) float64 {
	e := 0 // 10^e ≤ x < 10^(e+1), by comparison: no logarithm
	for x >= math.Pow10(e+1) {
		e++
	}
	for x < math.Pow10(e) {
		e--
	}
	if e >= 5 {
		return math.Round(x/math.Pow10(e-5)) * math.Pow10(e-5)
	}
	p := math.Pow10(5 - e) // exact: 10^k for k ≤ 22
	return math.Round(x*p) / p
}

// modInverse is x with a·x ≡ 1 (mod n), for a coprime to n (0 when n = 1).
func modInverse(a, n uint64) uint64 {
	if n == 1 {
		return 0
	}
	// Extended Euclid on signed values; n < 2^31.
	t, newT, r, newR := int64(0), int64(1), int64(n), int64(a)
	for newR != 0 {
		q := r / newR
		t, newT = newT, t-q*newT
		r, newR = newR, r-q*newR
	}
	if t < 0 {
		t += int64(n)
	}
	return uint64(t)
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
