package acf

import (
	"fmt"
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

// TestStreamFrequencies: a streamed sweep follows the same accumulator
// rule as Next and NextActive: after K sweeps with fixed preferences every
// active coordinate's count is within 1 of K·m·p_i/Σ_active p, shrunk
// coordinates never appear, a sweep has at most 2m entries and they
// average m — whatever the chunk size.
func TestStreamFrequencies(t *testing.T) {
	for _, n := range []int{1, 13, 200, 1000} {
		for _, chunk := range []int{1, 7, 64, 5000} {
			if n/chunk > 200 {
				continue // n²/chunk work per sweep
			}
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
// active coordinates, and a fresh random one: over many sweeps the chunk
// (round) in which coordinate 0 comes is uniform over the rounds.
func TestStreamUniform(t *testing.T) {
	const n, chunk = 512, 64
	const rounds = 2 * n / chunk
	s := NewChunkedScheduler(n, 8, chunk)
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
	at := make([]float64, rounds)
	for k := 0; k < K; k++ {
		s.Begin(nil, nil)
		for r := 0; ; r++ {
			c := s.Chunk()
			if len(c) == 0 {
				t.Fatal("coordinate 0 missing from a uniform sweep")
			}
			if slices.Contains(c, 0) {
				at[min(r, rounds-1)]++
				break
			}
		}
	}
	chi2 := 0.0
	for _, c := range at {
		chi2 += (c - K/rounds) * (c - K/rounds) / (K / rounds)
	}
	if chi2 > 45 { // 15 degrees of freedom: P(χ² > 45) ≈ 1e-4
		t.Errorf("chunk of coordinate 0 over %d sweeps: %v (chi-square %.1f)", K, at, chi2)
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

// BenchmarkSweep compares the scheduling cost per emitted entry of whole
// sweeps (Next) and streamed ones (Begin/Chunk, chunk 2²¹ as the solver
// uses above 2²² examples), with and without a half-shrunk bitset.
func BenchmarkSweep(b *testing.B) {
	for _, n := range []int{1 << 20, 1 << 23} {
		for _, mode := range []string{"whole", "streamed", "streamed-half-shrunk"} {
			b.Run(fmt.Sprintf("n=%d/mode=%s", n, mode), func(b *testing.B) {
				p := randomPrefs(n, 2)
				var s *Scheduler
				var shrunk []uint64
				switch mode {
				case "whole":
					s = NewScheduler(n, 2)
				default:
					s = NewChunkedScheduler(n, 2, 1<<21)
					if mode == "streamed-half-shrunk" {
						shrunk, _ = shrinkEvery(n, 2)
					}
				}
				b.ReportAllocs()
				entries := 0
				for b.Loop() {
					if mode == "whole" {
						entries += len(s.Next(p))
						continue
					}
					s.Begin(p, shrunk)
					for c := s.Chunk(); len(c) > 0; c = s.Chunk() {
						entries += len(c)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(entries), "ns/entry")
			})
		}
	}
}

// TestStore: store rounds down to a float32, exactly as
// math.Nextafter32(float32(a), −∞) when the nearest float32 is above a.
func TestStore(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	vals := []float64{0, -1e-300, 1e-300, -slack / 2, 1 - slack, math.Nextafter(1-slack, 0), 0.1, -0.1, 1e-45, -1e-45}
	for range 100000 {
		vals = append(vals, (r.Float64()-0.001)*1.2, r.NormFloat64()*1e-9)
	}
	for _, a := range vals {
		want := float32(a)
		if float64(want) > a {
			want = math.Nextafter32(want, float32(math.Inf(-1)))
		}
		if got := store(a); math.Float32bits(got) != math.Float32bits(want) || float64(got) > a {
			t.Fatalf("store(%v) = %v, want %v", a, got, want)
		}
	}
}

// TestHashIndex: hashIndex is the splitmix64 step of i^key it was written
// out as, bit for bit.
func TestHashIndex(t *testing.T) {
	old := func(i, key uint64) uint64 {
		x := i ^ key
		x += 0x9e3779b97f4a7c15
		x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
		x = (x ^ x>>27) * 0x94d049bb133111eb
		return x ^ x>>31
	}
	r := rand.New(rand.NewPCG(3, 4))
	keys := []uint64{0, 1, 1<<64 - 1, 0x9e3779b97f4a7c15}
	for range 64 {
		keys = append(keys, r.Uint64())
	}
	for _, key := range keys {
		for i := uint64(0); i < 5000; i++ {
			for _, x := range []uint64{i, r.Uint64(), 1<<64 - 1 - i} {
				if got, want := hashIndex(x, key), old(x, key); got != want {
					t.Fatalf("hashIndex(%#x, %#x) = %#x, want %#x", x, key, got, want)
				}
			}
		}
	}
}
