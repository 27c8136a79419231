package acf

import (
	"fmt"
	"math/bits"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/mix"
)

// Streamed sweeps: the same accumulator rule as Next and NextActive, handed
// out in chunks of bounded length, for problems so large that a sweep
// buffer of n entries matters. At 10⁷ examples the buffer is 40 MB (up to
// 80 MB), the int32 active list of NextActive another 40 MB: together
// 0.02× a kdd-sized dataset, whose peak memory is meant to stay within
// 1.1× the data. A streamed sweep needs neither.
//
// A sweep of m active coordinates (those not marked in the shrunk bitset)
// is split into R = ⌈2m/chunk⌉ rounds. Each round passes over the active
// coordinates in index order, adds a_i += m·p_i/(R·P) (a sweep's
// increment, split R ways), emits ⌊a_i⌋ copies, and hands the round out
// shuffled as one chunk (~chunk/2 entries; a round that does not fit is
// handed out in several). A coordinate visited f times per sweep is thus
// visited every ~R/f rounds, spread over the sweep like the copies of a
// whole-sweep shuffle; and the frequencies, the sweep-length bound (on
// average m, at most 2m entries) and the visit bound are those of Next.
// P is Σ_{active} p at the start of the sweep for round 1 (compensated
// sum), then the plain sum seen by the previous round's pass (the
// preferences change as the steps are taken; the 2m bound is enforced by
// a clamp, as in Next).
//
// Copies are spread over the rounds rather than emitted all at once: in
// one chunk they would be steps on the same coordinate close together,
// which take many more epochs (measurements: docs/tuning.md).
//
// A uniform sweep (p nil) gives each active coordinate one visit, in the
// round given by a keyed hash of its index, fresh each sweep: random
// rounds, shuffled within, is a uniformly random order.
//
// A coordinate shrunk during a sweep gets no credit or copies in the
// rounds after; one shrunk after its copies were handed out is skipped by
// the caller, as with NextActive.

// stream is the state of a streamed sweep.
type stream struct {
	p      *Prefs   // nil: a uniform sweep (every active coordinate once)
	shrunk []uint64 // nil: every coordinate is active
	m      int      // active coordinates at Begin
	limit  int      // at most this many entries in the sweep (2m)
	length int      // entries handed out so far

	rounds, round int
	key           uint64  // uniform: the hash key of this sweep
	scale         float64 // ACF: the credit of coordinate i grows by p_i·scale this round
	sum           float64 // ACF: Σ_{active} p seen by this round's pass so far
	pos           int     // next coordinate of this round's pass

	pendI int32 // a coordinate whose copies did not fit in the last chunk
	pendC int   // and how many are left
	done  bool
}

// NewChunkedScheduler returns a Scheduler for n coordinates whose sweeps are
// streamed by Begin and Chunk in chunks of at most chunk entries; its
// memory is O(n) credits plus the chunk, with no n-entry sweep buffer. Its
// Uniform, Next and NextActive hand out at most chunk entries too and must
// not be used; Begin and Chunk work on any Scheduler. It panics if chunk
// < 1 or n is out of range (see NewScheduler).
func NewChunkedScheduler(n int, seed uint64, chunk int) *Scheduler {
	if chunk < 1 {
		panic(fmt.Sprintf("acf: NewChunkedScheduler(%d, _, %d): chunk must be positive", n, chunk))
	}
	return newScheduler(n, seed, chunk)
}

// Begin starts a streamed sweep, ending any unfinished one. With p nil it
// is a uniform sweep, every coordinate not marked in shrunk once (the
// warm-up); otherwise an ACF sweep over the m coordinates not marked in
// shrunk (bit i&63 of word i>>6 set means shrunk; nil means none): each
// gets a_i += m·p_i/Σ_{active} p_j over the sweep, as in NextActive. With
// shrunk nil, p.Sum is re-summed exactly, as in Next. Begin and every
// round cost O(n/64 + m). It panics if p.Len() is not n or shrunk is
// shorter than ⌈n/64⌉ words.
func (s *Scheduler) Begin(p *Prefs, shrunk []uint64) {
	groups := (s.n + 63) >> 6
	if shrunk != nil && len(shrunk) < groups {
		panic(fmt.Sprintf("acf: Begin: shrunk has %d words for %d coordinates", len(shrunk), s.n))
	}
	if p != nil {
		s.check(p)
	}
	m := s.n
	if shrunk != nil {
		m = 0
		for g := range groups {
			m += bits.OnesCount64(s.activeBits(shrunk, g))
		}
	}
	st := &s.st
	*st = stream{p: p, shrunk: shrunk, m: m, limit: 2 * m, key: s.pcg.Uint64()}
	if m == 0 {
		st.done = true
		return
	}
	// Rounds of ~chunk/2 entries: a round rarely overflows its chunk.
	st.rounds = int(min((2*int64(m)+int64(cap(s.buf))-1)/int64(cap(s.buf)), int64(m)))
	if p == nil {
		return
	}
	var sum float64
	if shrunk == nil {
		sum = p.resum()
	} else {
		if p.changes >= s.n {
			p.resum()
		}
		var acc compsum.Sum
		for g := range groups {
			lo := g << 6
			for b := s.activeBits(shrunk, g); b != 0; b &= b - 1 {
				acc.Add(float64(p.p[lo+bits.TrailingZeros64(b)]))
			}
		}
		sum = acc.Value()
	}
	st.scale = float64(m) / (float64(st.rounds) * sum)
}

// activeBits returns the word of coordinates of group g that are not
// shrunk, with the bits past n cleared.
func (s *Scheduler) activeBits(shrunk []uint64, g int) uint64 {
	b := ^uint64(0)
	if shrunk != nil {
		b = ^shrunk[g]
	}
	if rest := s.n - g<<6; rest < 64 {
		b &= 1<<uint(rest) - 1
	}
	return b
}

// Chunk returns the next chunk of the sweep started by Begin, shuffled: at
// most the chunk size given to NewChunkedScheduler (2n for NewScheduler)
// entries, and empty once the sweep is over. The slice is reused by the
// next call.
func (s *Scheduler) Chunk() []int32 {
	for {
		b := s.fill()
		if len(b) > 0 || s.st.done {
			s.shuffle(b)
			return b
		}
		// An empty round (uniform, or all credits low): go on.
	}
}

// fill fills the chunk buffer from the current round, up to its end or to
// the buffer's capacity.
func (s *Scheduler) fill() []int32 {
	st := &s.st
	b := s.buf[:cap(s.buf)]
	k := 0
	if st.pendC > 0 {
		c := min(st.pendC, len(b))
		for j := range c {
			b[j] = st.pendI
		}
		k, st.pendC = c, st.pendC-c
	}
	// The pass costs every active coordinate a credit update per round,
	// R per sweep, so it works a bitset word at a time with the state in
	// locals.
	var prefs, acc []float32
	if st.p != nil {
		prefs, acc = st.p.p[:s.n], s.acc[:s.n]
	}
	scale, sum := st.scale, 0.0
	rounds, round := uint64(st.rounds), uint64(st.round)
	pos := st.pos
	for k < len(b) && !st.done {
		if pos >= s.n {
			// The round is over: the next one starts with the next chunk.
			st.round++
			pos = 0
			if st.p != nil {
				st.sum += sum
				st.scale = float64(st.m) / (float64(st.rounds) * st.sum)
				st.sum, sum = 0, 0
			}
			if st.round == st.rounds {
				st.done = true
			}
			break
		}
		g := pos >> 6
		act := s.activeBits(st.shrunk, g) &^ (1<<uint(pos&63) - 1)
		pos = (g + 1) << 6
		for act != 0 {
			i := g<<6 + bits.TrailingZeros64(act)
			act &= act - 1
			c := 0
			if prefs == nil {
				if hashIndex(uint64(i), st.key)%rounds == round {
					c = 1
				}
			} else {
				pi := float64(prefs[i])
				sum += pi
				a := float64(acc[i]) + float64(pi*scale)
				if t := a + slack; t >= 1 {
					// As emit: ⌊t⌋ copies, clamped so that the sweep stays
					// within 2m entries (unreachable in exact arithmetic);
					// a clamped coordinate keeps its unused credit.
					c = min(int(t), st.limit-st.length)
					if a -= float64(c); a < floor {
						a = floor
					}
				}
				acc[i] = store(a)
			}
			if c == 0 {
				continue
			}
			st.length += c
			w := min(c, len(b)-k)
			for j := k; j < k+w; j++ {
				b[j] = int32(i)
			}
			k += w
			if c > w {
				st.pendI, st.pendC = int32(i), c-w
			}
			if k == len(b) {
				pos = i + 1 // the chunk is full: resume after i
				break
			}
		}
	}
	st.pos = pos
	st.sum += sum
	return b[:k]
}

// hashIndex is a keyed 64-bit mix of i (a splitmix64 step): the round of
// coordinate i in a uniform sweep.
func hashIndex(i, key uint64) uint64 { return mix.Splitmix64(i ^ key) }
