package acf

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// streamSweep runs one streamed sweep and returns its entries, checking
// that no chunk exceeds the chunk size.
func streamSweep(t *testing.T, s *Scheduler, p *Prefs, shrunk []uint64) []int32 {
	t.Helper()
	s.Begin(p, shrunk)
	var out []int32
	for {
		c := s.Chunk()
		if len(c) == 0 {
			return out
		}
		if len(c) > cap(s.buf) {
			t.Fatalf("chunk of %d entries, chunk size %d", len(c), cap(s.buf))
		}
		out = append(out, c...)
	}
}

// shrinkEvery marks every coordinate i with i%k != 0 shrunk and returns
// the bitset and the number left active.
func shrinkEvery(n, k int) ([]uint64, int) {
	b := make([]uint64, (n+63)/64)
	m := 0
	for i := 0; i < n; i++ {
		if i%k != 0 {
			b[i>>6] |= 1 << (i & 63)
		} else {
			m++
		}
	}
	return b, m
}

func TestGroupPermIsBijection(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	sizes := []uint64{0, 1, 2, 3, 5, 64, 65, 127, 1000, 4097, 156250}
	for n := uint64(4); n < 300; n += 7 {
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for rep := 0; rep < 3; rep++ {
			g := newGroupPerm(n, r.Uint64(), r.Uint64())
			seen := make([]bool, n)
			for x := range n {
				y := g.at(x)
				if y >= n || seen[y] {
					t.Fatalf("n=%d: at(%d) = %d repeats or is out of range", n, x, y)
				}
				seen[y] = true
			}
		}
	}
}

// TestStreamFrequencies: a streamed sweep follows the same accumulator
// rule as Next and NextActive: after K sweeps with fixed preferences every
// active coordinate's count is within 1 of K·m·p_i/Σ_active p, shrunk
// coordinates never appear, a sweep has at most 2m entries and they
// average m — whatever the chunk size.
func TestStreamFrequencies(t *testing.T) {
	for _, n := range []int{1, 13, 200, 1000} {
		for _, chunk := range []int{1, 7, 64, 5000} {
			for _, every := range []int{1, 3} {
				p := randomPrefs(n, uint64(n))
				s := NewChunkedScheduler(n, 42, chunk)
				var shrunk []uint64
				m := n
				if every > 1 {
					shrunk, m = shrinkEvery(n, every)
				}
				var asum float64
				for i := 0; i < n; i += every {
					asum += p.P(i)
				}
				const K = 200
				count := make([]float64, n)
				total := 0
				for k := 0; k < K; k++ {
					sw := streamSweep(t, s, p, shrunk)
					if len(sw) > 2*m {
						t.Fatalf("n=%d chunk=%d: sweep of %d entries for %d active", n, chunk, len(sw), m)
					}
					for _, i := range sw {
						count[i]++
					}
					total += len(sw)
				}
				for i := range count {
					if i%every != 0 {
						if count[i] != 0 {
							t.Fatalf("n=%d chunk=%d: shrunk coordinate %d visited", n, chunk, i)
						}
						continue
					}
					exp := K * float64(m) * p.P(i) / asum
					if math.Abs(count[i]-exp) > 1+1e-6 {
						t.Errorf("n=%d chunk=%d every=%d: coordinate %d visited %v times, expected %.3f", n, chunk, every, i, count[i], exp)
					}
				}
				if math.Abs(float64(total)-K*float64(m)) > float64(m) {
					t.Errorf("n=%d chunk=%d every=%d: %d entries in %d sweeps, want %d ± %d", n, chunk, every, total, K, K*m, m)
				}
			}
		}
	}
}

// TestStreamLengthBound: with the worst credits and a preference that
// dominates all others, a streamed sweep still has at most 2m entries,
// the copies of the dominant coordinate spill over chunks, and credits
// stay in [−slack/2, 1 − slack).
func TestStreamLengthBound(t *testing.T) {
	for _, n := range []int{1, 3, 100, 1000} {
		p := NewPrefs(n, Config{})
		p.EndWarmup()
		s := NewChunkedScheduler(n, 1, 8)
		r := rand.New(rand.NewPCG(uint64(n), 5))
		for round := 0; round < 100; round++ {
			for i := range s.acc {
				s.acc[i] = store(math.Nextafter(1-slack, 0))
			}
			for i := 0; i < n; i++ {
				p.Set(i, p.pmin)
			}
			p.Set(r.IntN(n), p.pmax)
			if l := len(streamSweep(t, s, p, nil)); l > 2*n {
				t.Fatalf("n=%d: sweep of %d entries > 2n", n, l)
			}
			for i, a := range s.acc {
				if a := float64(a); a < floor-1e-15 || a >= 1-slack {
					t.Fatalf("n=%d: credit %d = %v out of [−slack/2, 1−slack)", n, i, a)
				}
			}
		}
	}
}

// TestStreamUniform: a uniform streamed sweep is a permutation of the
// active coordinates, and the order of groups is random: over many sweeps
// the first chunk's group is uniform over the groups.
func TestStreamUniform(t *testing.T) {
	const groups = 8
	const n = 64 * groups
	s := NewChunkedScheduler(n, 8, 64)
	shrunk, m := shrinkEvery(n, 5)
	for _, sh := range [][]uint64{nil, shrunk} {
		want := n
		if sh != nil {
			want = m
		}
		sw := streamSweep(t, s, nil, sh)
		if len(sw) != want {
			t.Fatalf("uniform sweep of %d entries, want %d", len(sw), want)
		}
		c := slices.Clone(sw)
		slices.Sort(c)
		if len(slices.Compact(slices.Clone(c))) != want {
			t.Fatal("uniform sweep repeats a coordinate")
		}
		for _, i := range c {
			if sh != nil && i%5 != 0 {
				t.Fatalf("shrunk coordinate %d in a uniform sweep", i)
			}
		}
	}
	const K = 8000
	first := make([]float64, groups)
	for k := 0; k < K; k++ {
		s.Begin(nil, nil)
		first[s.Chunk()[0]/64]++
	}
	chi2 := 0.0
	for _, c := range first {
		chi2 += (c - K/groups) * (c - K/groups) / (K / groups)
	}
	if chi2 > 30 { // 7 degrees of freedom: P(χ² > 30) ≈ 1e-4
		t.Errorf("first group over %d sweeps: %v (chi-square %.1f)", K, first, chi2)
	}
}

// TestStreamDeterminismAndAllocs: the same seed gives the same chunks, a
// different seed different ones, and streaming allocates nothing.
func TestStreamDeterminismAndAllocs(t *testing.T) {
	run := func(seed uint64) []int32 {
		const n = 300
		p := NewPrefs(n, Config{})
		s := NewChunkedScheduler(n, seed, 50)
		out := streamSweep(t, s, nil, nil)
		for _, i := range out {
			p.Observe(int(i), float64(i%7)*0.1)
		}
		p.EndWarmup()
		shrunk, _ := shrinkEvery(n, 2)
		for k := 0; k < 10; k++ {
			sh := shrunk
			if k%2 == 0 {
				sh = nil
			}
			sw := streamSweep(t, s, p, sh)
			out = append(out, sw...)
			for _, i := range sw {
				p.Observe(int(i), float64(i%5)*0.1*s.Rand().Float64())
			}
		}
		return out
	}
	a, b, c := run(5), run(5), run(6)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different sweeps")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same sweeps")
	}

	const n = 1000
	p := randomPrefs(n, 1)
	s := NewChunkedScheduler(n, 1, 100)
	shrunk, _ := shrinkEvery(n, 2)
	allocs := testing.AllocsPerRun(20, func() {
		for _, sh := range [][]uint64{nil, shrunk} {
			s.Begin(p, sh)
			for c := s.Chunk(); len(c) > 0; c = s.Chunk() {
				for _, i := range c {
					p.Observe(int(i), 0.5)
				}
			}
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per streamed sweep, want 0", allocs)
	}
	mustPanicStream(t, "Next on a chunked scheduler", func() { s.Next(p) })
	mustPanicStream(t, "short bitset", func() { s.Begin(p, make([]uint64, 3)) })
	mustPanicStream(t, "chunk 0", func() { NewChunkedScheduler(5, 1, 0) })
}

func mustPanicStream(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", name)
		}
	}()
	f()
}
