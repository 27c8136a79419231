package main

// acfcd gen: synthetic data at the scale of kdd2010 and url, streamed to
// libsvm text or to the binary cache.
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
// Gaussian weight, and so has a fraction of the genInformRanks most
// frequent binary features (chosen by a hash of the rank), scaled down by
// sqrt(genFullRanks/(rank+1)) beyond the genFullRanks most frequent, so
// that the signal lies where there are data to learn it; the rare
// features are noise. A row is +1 when its margin exceeds a threshold
// that gives the preset's share of +1 labels, and then a fraction of the
// labels is flipped. The weights, the band shuffles and the threshold take
// O(1) memory: nothing is stored per feature.
//
// # Determinism and parallelism
//
// Rows are generated in blocks of genBlockRows. Each block has two random
// streams of its own, seeded from the seed and the block number: one for
// the counts (which numeric features are present, how many binary ones),
// one for the content. Blocks are generated in parallel and written in
// order, so the output depends on the seed and the shape only, not on the
// number of threads. For the cache, a first pass over the count streams
// gives the exact number of non-zeros, so that every section is written in
// place, once.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/acfcd/acfcd/internal/atomicfile"
	dataio "github.com/acfcd/acfcd/io"
)

// genPreset is the shape of a generated data set.
type genPreset struct {
	about    string
	rows     int
	features int
	nnz      float64 // mean non-zeros per row
	sigma    float64 // log-normal spread of the number of binary features
	numeric  int     // D: real-valued features at indices [0, D)
	p0, tau  float64 // numeric feature j is present with probability p0·exp(−j/τ)
	kind     int     // how numeric values look (genValues…)
	zipfS    float64 // Zipf exponent s of the binary features' ranks
	zipfV    float64 // Zipf offset v
	inform   float64 // fraction of the genInformRanks most frequent binary features with a non-zero true weight
	positive float64 // share of +1 labels
	noise    float64 // fraction of labels flipped
}

const (
	genValuesLog  = iota // log10(1+k) for small counts k, 6 significant digits (kdd)
	genValuesUnit        // in (0, 1), skewed to small values, 6 significant digits (url)
)

// genPresets: kdd2010 (bridge to algebra: 19,264,097 rows, 29,890,095
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
var genPresets = map[string]genPreset{
	"kdd": {
		about: "kdd2010-like: binary features (value 1) with a few counts, power-law frequencies, 85% +1",
		rows:  19_264_097, features: 29_890_095, nnz: 35, sigma: 0.5,
		numeric: 16, p0: 0.5, tau: 4.5, kind: genValuesLog,
		zipfS: 1.05, zipfV: 8, inform: 0.3, positive: 0.85, noise: 0.05,
	},
	"url": {
		about: "url-like: about 10% real-valued features in (0,1), the rest binary with power-law frequencies, 33% +1",
		rows:  2_396_130, features: 3_231_961, nnz: 115, sigma: 0.25,
		numeric: 64, p0: 1, tau: 11, kind: genValuesUnit,
		zipfS: 1.2, zipfV: 8, inform: 0.3, positive: 0.33, noise: 0.02,
	},
}

const (
	genBlockRows  = 4096 // rows per block: the unit of parallel work and of seeding
	genPilotRows  = 8192 // rows drawn to place the label threshold
	genMaxNumeric = 64   // numeric features are a bit mask

	genInformRanks = 1 << 16 // binary features beyond this rank have no true weight
	genFullRanks   = 1 << 12 // weights shrink beyond this rank
)

func runGen(stdout, stderr io.Writer, args []string) error {
	fs := newFlagSet("gen", stderr)
	names := make([]string, 0, len(genPresets))
	for n := range genPresets {
		names = append(names, n)
	}
	slices.Sort(names)
	help := "shape of the data:"
	for _, n := range names {
		p := genPresets[n]
		help += fmt.Sprintf("\n%s: %d rows, %d features, %g non-zeros per row; %s", n, p.rows, p.features, p.nnz, p.about)
	}
	preset := fs.String("preset", "", help)
	rows := fs.Int("rows", 0, "rows (default: the preset's)")
	features := fs.Int("features", 0, "features (default: the preset's)")
	nnz := fs.Float64("nnz-per-row", 0, "mean non-zeros per row (default: the preset's)")
	seed := fs.Uint64("seed", 1, "seed: the same seed and shape give the same bytes")
	out := fs.String("out", "", "output: FILE.acf (binary cache), another FILE (libsvm text) or - (text on standard output)")
	threads := fs.Int("threads", 0, "generating goroutines (default: all cores)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return usagef("gen takes no arguments, only flags")
	}
	p, ok := genPresets[*preset]
	if !ok {
		if *preset == "" {
			return usagef("gen needs --preset (%s)", strings.Join(names, " or "))
		}
		return usagef("--preset %q: unknown (%s)", *preset, strings.Join(names, " or "))
	}
	if *out == "" {
		return usagef("gen needs --out FILE (FILE.acf for a binary cache, - for standard output)")
	}
	if *rows != 0 {
		p.rows = *rows
	}
	if *features != 0 {
		p.features = *features
	}
	if *nnz != 0 {
		p.nnz = *nnz
	}
	switch {
	case p.rows < 1:
		return usagef("--rows %d: need at least 1", p.rows)
	case p.features < 16 || p.features > math.MaxInt32:
		return usagef("--features %d: need 16 to %d", p.features, math.MaxInt32)
	case !(p.nnz >= 1) || p.nnz > float64(p.features)/4:
		return usagef("--nnz-per-row %g: need 1 to features/4 (%d)", p.nnz, p.features/4)
	case *threads < 0:
		return usagef("--threads %d: need at least 1 (0: all cores)", *threads)
	}
	nt := *threads
	if nt == 0 {
		nt = runtime.GOMAXPROCS(0)
	}
	m := newGenModel(p, *seed)
	shown := false
	if isTerminal(stderr) {
		last := time.Now()
		m.progress = func(rows int) {
			if time.Since(last) >= time.Second {
				last, shown = time.Now(), true
				fmt.Fprintf(stderr, "\rgen: %d of %d rows", rows, p.rows)
			}
		}
	}

	// SIGINT and SIGTERM stop the generation: the temporary file is
	// removed and nothing is written; a second signal ends the process.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	m.ctx = ctx

	start := time.Now()
	var st genStats
	var err error
	switch {
	case *out == "-":
		err = m.writeText(stdout, nt, &st)
	case strings.HasSuffix(*out, ".acf"):
		if err = atomicfile.CheckFile(*out); err != nil {
			return err
		}
		err = m.writeCache(*out, nt, &st)
	default:
		if err = atomicfile.Check(*out); err != nil {
			return err
		}
		err = atomicfile.Write(*out, func(w *bufio.Writer) error { return m.writeText(w, nt, &st) })
	}
	if shown {
		fmt.Fprintf(stderr, "\r%*s\r", 20+2*len(strconv.Itoa(p.rows)), "")
	}
	if err != nil {
		return err
	}
	if *out == "-" {
		return nil
	}
	secs := time.Since(start).Seconds()
	var size int64
	if fi, err := os.Stat(*out); err == nil {
		size = fi.Size()
	}
	fmt.Fprintf(stdout, "wrote %s: %d rows, %d features, %d non-zeros (%.1f per row), %.1f%% +1; %d bytes in %.2f s (%.1f MB/s, %d threads)\n",
		*out, st.rows, st.features, st.nnz, float64(st.nnz)/float64(max(st.rows, 1)), 100*float64(st.pos)/float64(max(st.rows, 1)),
		size, secs, float64(size)/1e6/secs, nt)
	return nil
}

// genStats are the totals of what was written.
type genStats struct {
	rows, pos int
	nnz       int64
	features  int // 1 + the largest index, as a reader counts them
}

// errGenInterrupted ends a generation stopped by a signal.
var errGenInterrupted = errors.New("interrupted")

// add counts a block about to be written, or reports an interruption.
func (m *genModel) add(s *genStats, b *genBlock) error {
	if m.ctx != nil && m.ctx.Err() != nil {
		return errGenInterrupted
	}
	s.add(b)
	if m.progress != nil {
		m.progress(s.rows)
	}
	return nil
}

func (s *genStats) add(b *genBlock) {
	s.rows += b.rows
	s.nnz += int64(len(b.index))
	s.features = max(s.features, int(b.maxIdx)+1)
	for _, y := range b.label {
		if y > 0 {
			s.pos++
		}
	}
}

// genModel is a preset made concrete for a seed.
type genModel struct {
	p          genPreset
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
	weights    []float64 // by rank, for the genInformRanks most frequent binary features
	threshold  float64   // label: +1 when the margin exceeds it (before noise)
	numWeights []float64
	progress   func(rows int)  // called after each block written, when set
	ctx        context.Context // generation stops when it is cancelled
}

func newGenModel(p genPreset, seed uint64) *genModel {
	m := &genModel{p: p, seed: seed}
	m.numeric = min(p.numeric, p.features/4, genMaxNumeric)
	m.sparse = uint64(p.features - m.numeric)
	// Numeric features take at most half of the non-zeros.
	p0, numMean := p.p0, 0.0
	for j := 0; j < m.numeric; j++ {
		numMean += p0 * math.Exp(-float64(j)/p.tau)
	}
	if numMean > p.nnz/2 {
		p0 *= p.nnz / 2 / numMean
		numMean = p.nnz / 2
	}
	m.presence = make([]uint32, m.numeric)
	m.numWeights = make([]float64, m.numeric)
	for j := range m.presence {
		m.presence[j] = uint32(math.Min(p0*math.Exp(-float64(j)/p.tau), 1) * math.MaxUint32)
		m.numWeights[j] = hashNormal(mix(seed, 0x6e756d, uint64(j)))
	}
	mean := p.nnz - numMean // of the binary features
	m.sigma = p.sigma
	m.mu = math.Log(mean) - p.sigma*p.sigma/2
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
		m.bandC = append(m.bandC, mix(seed, 0x62616e64, uint64(b))%size)
	}
	m.informCut = uint64(p.inform * (1 << 53))
	m.weights = make([]float64, min(m.sparse, genInformRanks))
	for k := range m.weights {
		m.weights[k] = m.rankWeight(uint64(k))
	}

	// The threshold that gives the share of +1 labels before noise: a
	// quantile of the margins of pilot rows from a stream of their own.
	clean := (p.positive - p.noise) / (1 - 2*p.noise)
	clean = math.Min(math.Max(clean, 0), 1)
	m.threshold = math.Inf(-1)
	pilot := newGenBlock()
	margins := make([]float64, 0, genPilotRows)
	for b := 0; len(margins) < genPilotRows; b++ {
		m.fill(pilot, ^uint64(b), genBlockRows, false)
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

// mix hashes its arguments into 64 well-mixed bits (splitmix64 steps).
func mix(a, b, c uint64) uint64 {
	x := a ^ 0x9e3779b97f4a7c15
	for _, y := range [...]uint64{b, c} {
		x ^= y
		x += 0x9e3779b97f4a7c15
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		x ^= x >> 31
	}
	return x
}

// hashNormal turns 64 random bits into a standard normal (Box–Muller).
func hashNormal(h uint64) float64 {
	u1 := (float64(h>>40) + 0.5) / (1 << 24)
	u2 := float64(h&(1<<24-1)) / (1 << 24)
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// weight is the true weight of binary feature index j (0 for most).
func (m *genModel) weight(j int32) float64 {
	if k := m.rank(j); k < uint64(len(m.weights)) {
		return m.weights[k]
	}
	return 0
}

// rankWeight is the true weight of the binary feature of rank k <
// genInformRanks.
func (m *genModel) rankWeight(k uint64) float64 {
	h := mix(m.seed, 0x77, k)
	if h>>11 >= m.informCut {
		return 0
	}
	w := hashNormal(mix(h, 0x6e, 1))
	if k >= genFullRanks {
		w *= math.Sqrt(genFullRanks / float64(k+1))
	}
	return w
}

// rank is the frequency rank of binary feature index j (index's inverse).
func (m *genModel) rank(j int32) uint64 {
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
func (m *genModel) index(k uint64) int32 {
	b := bits.Len64(k)
	lo := uint64(0)
	if b > 0 {
		lo = 1 << (b - 1)
	}
	return int32(uint64(m.numeric) + lo + (m.bandA[b]*(k-lo)+m.bandC[b])%m.bandSize[b])
}

// rngs are the count and content streams of block b.
func (m *genModel) rngs(b uint64) (count, content *rand.Rand) {
	return rand.New(rand.NewPCG(mix(m.seed, b, 1), mix(m.seed, b, 2))),
		rand.New(rand.NewPCG(mix(m.seed, b, 3), mix(m.seed, b, 4)))
}

// counts draws the next row's numeric features (a bit mask) and number of
// binary features from the count stream.
func (m *genModel) counts(r *rand.Rand) (mask uint64, sparse int) {
	for j := 0; j < m.numeric; j += 2 {
		u := r.Uint64()
		if uint32(u) < m.presence[j] {
			mask |= 1 << j
		}
		if j+1 < m.numeric && uint32(u>>32) < m.presence[j+1] {
			mask |= 1 << (j + 1)
		}
	}
	x := math.Exp(m.mu + m.sigma*r.NormFloat64())
	n := int(math.Floor(x + r.Float64())) // random rounding keeps the mean
	return mask, max(1, min(n, m.maxSparse))
}

// blockNNZ is the number of non-zeros of block b with the given rows.
func (m *genModel) blockNNZ(b uint64, rows int) int64 {
	r, _ := m.rngs(b)
	var nnz int64
	for i := 0; i < rows; i++ {
		mask, n := m.counts(r)
		nnz += int64(bits.OnesCount64(mask) + n)
	}
	return nnz
}

// genBlock is one block of generated rows in CSR form, and its text.
type genBlock struct {
	rows   int
	rowPtr []int64
	index  []int32
	value  []float64
	label  []float64
	margin []float64
	maxIdx int32
	text   []byte
}

func newGenBlock() *genBlock { return &genBlock{} }

// fill generates rows rows of block b into g, and their libsvm text when
// text is set.
func (m *genModel) fill(g *genBlock, b uint64, rows int, text bool) {
	rc, rx := m.rngs(b)
	zipf := rand.NewZipf(rx, m.p.zipfS, m.p.zipfV, m.sparse-1)
	g.rows = rows
	g.rowPtr = append(g.rowPtr[:0], 0)
	g.index, g.value, g.label, g.margin = g.index[:0], g.value[:0], g.label[:0], g.margin[:0]
	g.text = g.text[:0]
	g.maxIdx = -1
	for i := 0; i < rows; i++ {
		mask, n := m.counts(rc)
		start := len(g.index)
		margin := 0.0
		for mm := mask; mm != 0; mm &= mm - 1 {
			j := bits.TrailingZeros64(mm)
			v := m.numericValue(rx)
			g.index = append(g.index, int32(j))
			g.value = append(g.value, v)
			margin += v * m.numWeights[j]
		}
		// n distinct features: Zipf draws until there are n different ones,
		// then uniform draws should the Zipf head keep repeating. Ranks map
		// to indices one to one, so duplicates are found among the indices.
		s0 := len(g.index)
		for round := 0; len(g.index)-s0 < n; round++ {
			for len(g.index)-s0 < n {
				if round < 8 {
					g.index = append(g.index, m.index(zipf.Uint64()))
				} else {
					g.index = append(g.index, m.index(rx.Uint64N(m.sparse)))
				}
			}
			slices.Sort(g.index[s0:])
			g.index = g.index[:s0+len(slices.Compact(g.index[s0:]))]
		}
		for _, j := range g.index[s0:] {
			g.value = append(g.value, 1)
			margin += m.weight(j)
		}
		margin += 1e-6 * rx.NormFloat64() // ties broken at random
		y := -1.0
		if margin > m.threshold {
			y = 1
		}
		if rx.Float64() < m.p.noise {
			y = -y
		}
		g.label = append(g.label, y)
		g.margin = append(g.margin, margin)
		g.rowPtr = append(g.rowPtr, int64(len(g.index)))
		if len(g.index) > start {
			g.maxIdx = max(g.maxIdx, g.index[len(g.index)-1])
		}
		if text {
			g.text = appendRowText(g.text, y, g.index[start:], g.value[start:])
		}
	}
}

// numericValue draws a numeric feature's value, with at most 6
// significant digits so that its shortest decimal form is short and reads
// back to the same float64.
func (m *genModel) numericValue(r *rand.Rand) float64 {
	switch m.p.kind {
	case genValuesLog:
		k := 1
		for k < 64 && r.Uint32()&1 == 0 {
			k++
		}
		return round6(math.Log10(1 + float64(k)))
	default:
		u := r.Float64()
		return round6(math.Max(u*u, 1e-4))
	}
}

// round6 rounds x > 0 to 6 significant digits, as the nearest float64 to
// a 6-digit decimal.
func round6(x float64) float64 {
	e := int(math.Floor(math.Log10(x)))
	if e >= 5 {
		return math.Round(x/math.Pow10(e-5)) * math.Pow10(e-5)
	}
	p := math.Pow10(5 - e) // exact: 10^k for k ≤ 22
	return math.Round(x*p) / p
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
func (m *genModel) blocks() int { return (m.p.rows + genBlockRows - 1) / genBlockRows }
func (m *genModel) blockRows(b int) int {
	return min(genBlockRows, m.p.rows-b*genBlockRows)
}

// generate makes every block on nt goroutines and hands them to emit in
// order. emit's error stops the generation and is returned.
func (m *genModel) generate(nt int, text bool, emit func(*genBlock) error) error {
	type job struct {
		b    int
		done chan *genBlock
	}
	jobs := make(chan job, 2*nt)
	order := make(chan chan *genBlock, 2*nt)
	free := make(chan *genBlock, 4*nt+2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	go func() { // dispatch in order
		defer close(jobs)
		defer close(order)
		for b := 0; b < m.blocks(); b++ {
			j := job{b, make(chan *genBlock, 1)}
			select {
			case order <- j.done:
			case <-stop:
				return
			}
			jobs <- j
		}
	}()
	for w := 0; w < nt; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				var g *genBlock
				select {
				case g = <-free:
				default:
					g = newGenBlock()
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

// writeText streams the rows as libsvm text to w.
func (m *genModel) writeText(w io.Writer, nt int, st *genStats) error {
	return m.generate(nt, true, func(g *genBlock) error {
		if err := m.add(st, g); err != nil {
			return err
		}
		_, err := w.Write(g.text)
		return err
	})
}

// writeCache streams the rows to a binary cache at path: the counts first,
// for the exact shape, then the rows, each section written in place.
func (m *genModel) writeCache(path string, nt int, st *genStats) error {
	var nnz atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < nt; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := int(next.Add(1) - 1); b < m.blocks(); b = int(next.Add(1) - 1) {
				nnz.Add(m.blockNNZ(uint64(b), m.blockRows(b)))
			}
		}()
	}
	wg.Wait()
	opt := dataio.CacheStreamOptions{KnownShape: true, Rows: m.p.rows, NNZ: nnz.Load()}
	return dataio.WriteCacheStream(path, opt, func(cw *dataio.CacheStreamWriter) error {
		return m.generate(nt, false, func(g *genBlock) error {
			if err := m.add(st, g); err != nil {
				return err
			}
			d := &dataio.Dataset{Rows: g.rows, Features: int(g.maxIdx) + 1, RowPtr: g.rowPtr,
				Index: g.index, Value: g.value, Label: g.label}
			if err := cw.WriteRows(d); err != nil {
				return errors.New("internal error: generated rows refused: " + err.Error())
			}
			return nil
		})
	})
}
