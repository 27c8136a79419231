package acf

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/acfcd/acfcd/internal/compsum"
)

// slack is the rounding tolerance of the accumulators: a coordinate is
// emitted once its accumulator reaches 1 − slack rather than 1. Without it,
// equal preferences, whose increments n·p_i/p_sum are 1 only up to
// rounding (0.9999999999999998, say), could skip a whole sweep. After an
// emission the credit is kept at or above floor = −slack/2, which leaves a
// margin of slack/2 ≫ rounding for the next sweep: with equal preferences
// every sweep visits every coordinate exactly once. Credits stay in
// [−slack/2, 1 − slack) (up to an ulp), so the long-run frequencies are
// those of the exact rule; the clamp at floor can only add credit, at
// most slack/2, and only for an emission whose credit fell in a window of
// width slack/2, so its effect on frequencies is of order slack².
const (
	slack = 1e-9
	floor = -slack / 2
)

// Scheduler turns preferences into sweeps. Each sweep is a shuffled list of
// coordinate indices; its buffer is reused, so a returned slice is valid
// only until the next call. It is not safe for concurrent use.
//
// Accumulator rule: every coordinate i carries a credit a_i. A sweep over
// the m scheduled coordinates (all n for Next, the active ones for
// NextActive) adds a_i += m·p_i/P with P = Σ p_i over those coordinates,
// emits ⌊a_i⌋ copies of i, keeps the fraction, and shuffles the result.
// Coordinate i therefore gets m·p_i/P visits per sweep on average, and
// after K sweeps its count differs from K·m·p_i/P by less than 1.
//
// Bound on the sweep length. Before a sweep every credit satisfies
// −slack/2 ≤ a_i < 1 − slack (this holds initially and is restored by
// taking k_i = ⌊a_i + inc_i + slack⌋ copies and setting
// a_i ← max(a_i + inc_i − k_i, −slack/2)). The sweep emits
//
//	Σ k_i ≤ Σ (a_i + slack + inc_i) < m + Σ inc_i = m + m = 2m
//
// copies, using Σ inc_i = Σ m·p_i/P = m. Being an integer below 2m, the
// length is at most 2m − 1 ≤ 2n − 1 in exact arithmetic, whatever the
// preferences and however they changed between sweeps; and since every
// a_i stays in [−slack/2, 1 − slack), the lengths of K consecutive sweeps add
// up to K·m ± m, so a sweep has m entries on average. In floating point,
// Σ inc_i can exceed m by a few ulps per term; the sweep is also clamped
// at its buffer's capacity 2n (a clamped coordinate keeps its unused
// credit), so no sweep has more than 2n entries in any case.
//
// Visit bound: with fixed preferences, a_i grows by at least
// m·PMin/P per sweep, so every coordinate is visited within
// ⌈P/(m·PMin)⌉ sweeps of its previous visit.
//
// Cost: O(m) for the credits plus O(length) to emit and shuffle, i.e.
// amortised O(1) per CD step, and no allocation.
type Scheduler struct {
	n   int
	pcg *rand.PCG
	rng *rand.Rand
	acc []float32 // credits a_i, see store
	buf []int32   // the sweep, capacity 2n (or the chunk, see NewChunkedScheduler)
	st  stream    // the streamed sweep, see Begin
}

// NewScheduler returns a scheduler for n coordinates whose randomness (the
// initial credits, the shuffles, and Rand) is a PCG stream determined by
// seed. It panics if n is negative or more than 2³¹ (indices are int32).
func NewScheduler(n int, seed uint64) *Scheduler {
	return newScheduler(n, seed, 2*n)
}

func newScheduler(n int, seed uint64, capacity int) *Scheduler {
	if n < 0 || uint64(n) > 1<<31 {
		panic(fmt.Sprintf("acf: NewScheduler(%d): length out of range", n))
	}
	pcg := rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)
	s := &Scheduler{
		n:   n,
		pcg: pcg,
		rng: rand.New(pcg),
		acc: make([]float32, n),
		buf: make([]int32, 0, capacity),
	}
	// Random initial credits in [0, 1 − slack) spread the emissions of
	// coordinates with equal preferences over the sweeps instead of
	// bunching them into the same ones.
	for i := range s.acc {
		s.acc[i] = store(s.rng.Float64() * (1 - slack))
	}
	return s
}

// Len returns the number of coordinates.
func (s *Scheduler) Len() int { return s.n }

// Rand returns the scheduler's random number generator, for solvers that
// need randomness of their own. It shares the scheduler's stream, so a run
// stays reproducible from the seed.
func (s *Scheduler) Rand() *rand.Rand { return s.rng }

// Uniform returns a fresh uniformly random permutation of 0..n−1, as used
// for the warm-up sweep. The slice is reused by the next call.
func (s *Scheduler) Uniform() []int32 {
	s.whole("Uniform")
	b := s.buf[:s.n]
	for i := range b {
		b[i] = int32(i)
	}
	s.shuffle(b)
	return b
}

// Next returns one ACF sweep over all n coordinates (see Scheduler): on
// average n entries, never more than 2n, shuffled. It also re-sums p.Sum
// exactly. The slice is reused by the next call. It panics if p.Len() is
// not n.
func (s *Scheduler) Next(p *Prefs) []int32 {
	s.whole("Next")
	s.check(p)
	if s.n == 0 {
		return s.buf[:0]
	}
	scale := float64(s.n) / p.resum()
	b := s.buf[:cap(s.buf)]
	acc := s.acc[:len(p.p)]
	k := 0
	for i, pi := range p.p {
		a := float64(acc[i]) + float64(float64(pi)*scale)
		if t := a + slack; t >= 1 {
			k, a = emit(b, k, int32(i), a, t)
		}
		acc[i] = store(a)
	}
	b = b[:k]
	s.shuffle(b)
	return b
}

// NextActive is Next restricted to the m = len(active) coordinates in
// active (distinct indices in 0..n−1, e.g. those not shrunk): each gets
// a_i += m·p_i/Σ_{j∈active} p_j, so the sweep has m entries on average and
// at most 2m. Credits of the other coordinates are kept as they are. The
// slice is reused by the next call. It panics if p.Len() is not n or an
// index is out of range.
//
// NextActive costs O(m), not O(n): it re-sums p.Sum over all n
// coordinates only once n preference updates have accumulated since the
// last re-sum, which is amortised O(1) per update.
func (s *Scheduler) NextActive(p *Prefs, active []int32) []int32 {
	s.whole("NextActive")
	s.check(p)
	if p.changes >= s.n {
		p.resum()
	}
	m := len(active)
	if m == 0 {
		return s.buf[:0]
	}
	var sum compsum.Sum
	for _, i := range active {
		sum.Add(float64(p.p[i]))
	}
	scale := float64(m) / sum.Value()
	b := s.buf[:cap(s.buf)]
	acc := s.acc
	k := 0
	for _, i := range active {
		a := float64(acc[i]) + float64(float64(p.p[i])*scale)
		if t := a + slack; t >= 1 {
			k, a = emit(b, k, i, a, t)
		}
		acc[i] = store(a)
	}
	b = b[:k]
	s.shuffle(b)
	return b
}

// store rounds a credit to the float32 it is kept in, downwards, so that
// the bound a_i < 1 − slack (on which the sweep-length bound rests) holds
// for the stored value too; nearest rounding could lift a credit just
// below 1 − slack to 1. Credits are float32 to halve their 8 bytes per
// coordinate (40 MB at 10⁷); the arithmetic stays float64. Rounding down
// loses at most one float32 ulp (6·10⁻⁸) of credit per sweep, a relative
// bias of that order in the frequencies, far below their sampling noise.
//
// The step down is math.Nextafter32(f, −∞) written out, and for the usual
// positive credit without a branch on the rounding direction, which is a
// coin flip: store is most of a streamed sweep's scheduling time
// (measurements: docs/tuning.md).
func store(a float64) float32 {
	f := float32(a)
	if f > 0 {
		u := math.Float32bits(f)
		if float64(f) > a {
			u-- // a conditional move
		}
		return math.Float32frombits(u)
	}
	if float64(f) > a {
		if f < 0 {
			return math.Float32frombits(math.Float32bits(f) + 1)
		}
		return -math.SmallestNonzeroFloat32
	}
	return f
}

// emit writes the ⌊t⌋ copies of coordinate i earned by credit a (with
// t = a + slack ≥ 1) into b[k:] and returns the new length and the credit
// left. It never writes past len(b).
func emit(b []int32, k int, i int32, a, t float64) (int, float64) {
	c := int(t)
	if room := len(b) - k; c > room { // unreachable in exact arithmetic, see Scheduler
		c = room
	}
	for j := k; j < k+c; j++ {
		b[j] = i
	}
	a -= float64(c)
	if a < floor {
		a = floor
	}
	return k + c, a
}

// whole panics if the scheduler streams its sweeps in chunks.
func (s *Scheduler) whole(name string) {
	if cap(s.buf) < 2*s.n {
		panic("acf: " + name + " on a chunked Scheduler; use Begin and Chunk")
	}
}

func (s *Scheduler) check(p *Prefs) {
	if len(p.p) != s.n {
		panic(fmt.Sprintf("acf: Prefs of length %d used with a Scheduler of length %d", len(p.p), s.n))
	}
}

// shuffle is a Fisher–Yates shuffle drawing from the scheduler's PCG.
func (s *Scheduler) shuffle(b []int32) {
	for i := len(b) - 1; i > 0; i-- {
		j := s.below(uint64(i) + 1)
		b[i], b[j] = b[j], b[i]
	}
}

// below returns a uniform random number in [0, n), n > 0, by Lemire's
// multiply-and-reject method (unbiased, almost never more than one draw).
func (s *Scheduler) below(n uint64) uint64 {
	hi, lo := bits.Mul64(s.pcg.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.pcg.Uint64(), n)
		}
	}
	return hi
}
