package acf

import (
	"fmt"
	"math"
	"math/bits"
)

// Streamed sweeps: the same accumulator rule as Next and NextActive, handed
// out in chunks of bounded length, for problems so large that a sweep
// buffer of n entries matters. At 10⁷ examples the buffer is 40 MB (up to
// 80 MB), the int32 active list of NextActive another 40 MB: together
// 0.02× a kdd-sized dataset, whose peak memory is meant to stay within
// 1.1× the data. A streamed sweep needs neither: it walks the coordinates
// in a random order of aligned groups of 64 (the words of the shrunk
// bitset, so that shrunk coordinates cost 1/64 of a step each to skip),
// credits every coordinate of a group once, and emits its copies into a
// chunk buffer; each full chunk is shuffled and handed out.
//
// What changes against a whole-sweep shuffle: two copies of one coordinate,
// and coordinates of one group, land in the same chunk (of ~chunk steps),
// not anywhere in the sweep. The chunk is still a random sample spread
// over the whole data (chunk/64 groups drawn at random), so labels sorted
// in the file do not bunch. Frequencies, the sweep-length bound (on average
// m and at most 2m entries) and the visit bound are those of Next.
//
// A coordinate marked shrunk after Begin but before its group is reached
// gets neither credit nor copies in that sweep; one marked after its copies
// were emitted is skipped by the caller as in NextActive.

// groupShift sets the group size: 1<<groupShift coordinates, one bitset word.
const groupShift = 6

// stream is the state of a streamed sweep.
type stream struct {
	p      *Prefs   // nil: a uniform sweep (every active coordinate once)
	shrunk []uint64 // nil: every coordinate is active
	scale  float64  // m/P: the credit of coordinate i grows by p_i·scale
	limit  int      // at most this many entries in the sweep (2m)
	length int      // entries handed out so far

	perm groupPerm
	next uint64 // next position in the group order, in [0, groups)
	lo   int    // first coordinate of the current group
	bits uint64 // active coordinates of the current group not yet credited

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
// gets a_i += m·p_i/Σ_{active} p_j, as in NextActive. With shrunk nil,
// p.Sum is re-summed exactly, as in Next. The cost is O(n/64 + m). It
// panics if p.Len() is not n or shrunk is shorter than ⌈n/64⌉ words.
func (s *Scheduler) Begin(p *Prefs, shrunk []uint64) {
	groups := (s.n + 1<<groupShift - 1) >> groupShift
	if shrunk != nil && len(shrunk) < groups {
		panic(fmt.Sprintf("acf: Begin: shrunk has %d words for %d coordinates", len(shrunk), s.n))
	}
	m := s.n
	if shrunk != nil {
		m = 0
		for g := range groups {
			m += bits.OnesCount64(s.activeBits(shrunk, g))
		}
	}
	st := &s.st
	*st = stream{p: p, shrunk: shrunk, limit: 2 * m, perm: newGroupPerm(uint64(groups), s.pcg.Uint64(), s.pcg.Uint64())}
	if m == 0 {
		st.done = true
		return
	}
	if p != nil {
		s.check(p)
		var sum float64
		if shrunk == nil {
			sum = p.resum()
		} else {
			if p.changes >= s.n {
				p.resum()
			}
			var comp float64 // Neumaier summation, as in kahanSum
			for g := range groups {
				lo := g << groupShift
				for b := s.activeBits(shrunk, g); b != 0; b &= b - 1 {
					v := float64(p.p[lo+bits.TrailingZeros64(b)])
					t := sum + v
					if math.Abs(sum) >= math.Abs(v) {
						comp += (sum - t) + v
					} else {
						comp += (v - t) + sum
					}
					sum = t
				}
			}
			sum += comp
		}
		st.scale = float64(m) / sum
	}
}

// activeBits returns the word of coordinates of group g that are not
// shrunk, with the bits past n cleared.
func (s *Scheduler) activeBits(shrunk []uint64, g int) uint64 {
	b := ^uint64(0)
	if shrunk != nil {
		b = ^shrunk[g]
	}
	if rest := s.n - g<<groupShift; rest < 1<<groupShift {
		b &= 1<<uint(rest) - 1
	}
	return b
}

// Chunk returns the next chunk of the sweep started by Begin, shuffled: at
// most the chunk size given to NewChunkedScheduler (2n for NewScheduler)
// entries, and empty once the sweep is over. The slice is reused by the
// next call.
func (s *Scheduler) Chunk() []int32 {
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
	for k < len(b) && !st.done {
		if st.bits == 0 {
			if st.next >= st.perm.n {
				st.done = true
				break
			}
			g := int(st.perm.at(st.next))
			st.next++
			st.lo = g << groupShift
			st.bits = s.activeBits(st.shrunk, g)
			continue
		}
		i := int32(st.lo + bits.TrailingZeros64(st.bits))
		st.bits &= st.bits - 1
		c := 1
		if p := st.p; p != nil {
			a := float64(s.acc[i]) + float64(p.p[i])*st.scale
			c = 0
			if t := a + slack; t >= 1 {
				// As emit: ⌊t⌋ copies, clamped so that the sweep stays
				// within 2m entries (unreachable in exact arithmetic); a
				// clamped coordinate keeps its unused credit.
				c = min(int(t), st.limit-st.length)
				if a -= float64(c); a < floor {
					a = floor
				}
			}
			s.acc[i] = store(a)
		}
		st.length += c
		w := min(c, len(b)-k)
		for j := k; j < k+w; j++ {
			b[j] = i
		}
		k += w
		if c > w {
			st.pendI, st.pendC = i, c-w
		}
	}
	b = b[:k]
	s.shuffle(b)
	return b
}

// groupPerm is a pseudo-random permutation of [0, n): a bijection of
// [0, 2^k) ⊇ [0, n), 2^k < 2n, made of rounds of key addition, odd
// multiplication and xor-shift (each a bijection mod 2^k), restricted to
// [0, n) by cycle walking (apply it again until the value is below n;
// fewer than 2 applications on average). It only has to scatter the
// groups of a sweep over the data, not to be cryptographic.
type groupPerm struct {
	n, mask     uint64
	shift       uint
	add, mul    [3]uint64
	maskIsEmpty bool
}

func newGroupPerm(n, k1, k2 uint64) groupPerm {
	g := groupPerm{n: n}
	if n <= 1 {
		g.maskIsEmpty = true
		return g
	}
	width := uint(bits.Len64(n - 1))
	g.mask = 1<<width - 1
	g.shift = width/2 + 1
	// Derive the round keys from two random words with splitmix64 steps.
	x := k1 ^ k2<<1
	for r := range g.add {
		x = splitmix(x + k2)
		g.add[r] = x
		x = splitmix(x)
		g.mul[r] = x | 1
	}
	return g
}

func (g *groupPerm) at(x uint64) uint64 {
	if g.maskIsEmpty {
		return 0
	}
	for {
		for r := range g.add {
			x = (x + g.add[r]) & g.mask
			x = (x * g.mul[r]) & g.mask
			x ^= x >> g.shift
		}
		if x < g.n {
			return x
		}
	}
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
