package acf

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomPrefs returns prefs of length n with p_i drawn log-uniformly from
// [PMin, PMax] (plus a few at exactly PMin and PMax), warm-up ended.
func randomPrefs(n int, seed uint64) *Prefs {
	p := NewPrefs(n, Config{})
	r := rand.New(rand.NewPCG(seed, 1))
	lo, hi := math.Log(p.pmin), math.Log(p.pmax)
	for i := 0; i < n; i++ {
		switch i % 17 {
		case 3:
			p.Set(i, p.pmin)
		case 5:
			p.Set(i, p.pmax)
		default:
			p.Set(i, math.Exp(lo+(hi-lo)*r.Float64()))
		}
	}
	p.EndWarmup()
	return p
}

func TestConfigDefaultsAndValidate(t *testing.T) {
	p := NewPrefs(8, Config{})
	if p.c != DefaultC || p.pmin != f32(DefaultPMin) || p.pmax != f32(DefaultPMax) || p.eta != 1.0/8 {
		t.Fatalf("defaults: c=%v pmin=%v pmax=%v eta=%v", p.c, p.pmin, p.pmax, p.eta)
	}
	if p.Len() != 8 || p.Sum() != 8 || p.Warm() || p.Rbar() != 0 {
		t.Fatalf("fresh prefs: len %d sum %v warm %v rbar %v", p.Len(), p.Sum(), p.Warm(), p.Rbar())
	}
	for i := 0; i < 8; i++ {
		if p.P(i) != 1 {
			t.Fatalf("P(%d) = %v, want 1", i, p.P(i))
		}
	}
	bad := []Config{
		{C: -1}, {C: math.NaN()}, {PMin: 2}, {PMin: -0.1}, {PMax: 0.5},
		{PMax: math.Inf(1)}, {Eta: 1.5}, {Eta: -1},
		{PMin: 1e-40}, {PMax: 1e40}, // outside float32's range: preferences are stored as float32
	}
	for _, c := range bad {
		if c.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
	if err := (Config{C: 0.5, PMin: 0.1, PMax: 10, Eta: 0.01}).Validate(); err != nil {
		t.Errorf("valid config: %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("NewPrefs with an invalid config did not panic")
			}
		}()
		NewPrefs(3, Config{PMin: 5})
	}()
}

// TestObserveMath replays a sequence of gains and checks every preference,
// p_sum and r̄ against a direct computation of the formulas.
func TestObserveMath(t *testing.T) {
	const n = 7
	cfg := Config{C: 0.3, PMin: 0.1, PMax: 5, Eta: 0.25}
	p := NewPrefs(n, cfg)
	r := rand.New(rand.NewPCG(7, 7))

	// Warm-up: preferences must not move; r̄ is the mean of the gains,
	// with negative and NaN gains counted as 0.
	warm := []float64{0.5, 0, -1e-17, 2, math.NaN(), 1.25, 0.75}
	want := (0.5 + 2 + 1.25 + 0.75) / float64(len(warm))
	for i, g := range warm {
		p.Observe(i%n, g)
	}
	for i := 0; i < n; i++ {
		if p.P(i) != 1 {
			t.Fatalf("warm-up changed P(%d) to %v", i, p.P(i))
		}
	}
	if got := p.Rbar(); math.Abs(got-want) > 1e-15 {
		t.Fatalf("warm-up Rbar = %v, want %v", got, want)
	}
	p.EndWarmup()
	p.EndWarmup() // no effect
	if !p.Warm() || math.Abs(p.Rbar()-want) > 1e-15 {
		t.Fatalf("after EndWarmup: warm %v rbar %v, want %v", p.Warm(), p.Rbar(), want)
	}

	ref := make([]float64, n)
	for i := range ref {
		ref[i] = 1
	}
	rbar := p.Rbar()
	base := rbar
	for step := 0; step < 5000; step++ {
		i := r.IntN(n)
		g := r.ExpFloat64() * base
		switch step % 11 {
		case 0:
			g = 0
		case 1:
			g = -1e-12 // rounding: treated as 0
		case 2:
			g = 100 * base // usually drives p_i to PMax
		}
		p.Observe(i, g)
		gg := max(g, 0)
		// Preferences are stored as float32, bounds included.
		ref[i] = f32(math.Min(f32(cfg.PMax), math.Max(f32(cfg.PMin), math.Exp(cfg.C*(gg/rbar-1))*ref[i])))
		rbar = (1-cfg.Eta)*rbar + cfg.Eta*gg
		if p.P(i) != ref[i] {
			t.Fatalf("step %d: P(%d) = %v, want %v", step, i, p.P(i), ref[i])
		}
		if p.Rbar() != rbar {
			t.Fatalf("step %d: Rbar = %v, want %v", step, p.Rbar(), rbar)
		}
		var sum float64
		for _, v := range ref {
			sum += v
		}
		if math.Abs(p.Sum()-sum) > 1e-12*sum {
			t.Fatalf("step %d: Sum = %v, want %v", step, p.Sum(), sum)
		}
	}
	// Set clips and keeps the sum right.
	p.Set(0, 1000)
	p.Set(1, 0)
	p.Set(2, 0.7)
	ref[0], ref[1], ref[2] = f32(cfg.PMax), f32(cfg.PMin), f32(0.7)
	var sum float64
	for i, v := range ref {
		if p.P(i) != v {
			t.Fatalf("after Set: P(%d) = %v, want %v", i, p.P(i), v)
		}
		sum += v
	}
	if math.Abs(p.Sum()-sum) > 1e-12*sum {
		t.Fatalf("after Set: Sum = %v, want %v", p.Sum(), sum)
	}
}

// f32 rounds v to float32, as Prefs stores preferences.
func f32(v float64) float64 { return float64(float32(v)) }

// TestZeroWarmup: a warm-up with no gain (or no steps at all) must leave
// r̄ tiny but positive, and gains of 0 forever must keep everything finite.
func TestZeroWarmup(t *testing.T) {
	for _, steps := range []int{0, 5} {
		p := NewPrefs(5, Config{})
		for i := 0; i < steps; i++ {
			p.Observe(i, 0)
		}
		p.EndWarmup()
		if !(p.Rbar() > 0) || p.Rbar() > 1e-200 {
			t.Fatalf("steps %d: Rbar = %v, want tiny positive", steps, p.Rbar())
		}
		for k := 0; k < 100000; k++ { // r̄ would underflow without the floor
			p.Observe(k%5, 0)
		}
		if !(p.Rbar() > 0) || p.P(0) != p.pmin {
			t.Fatalf("after zero gains: Rbar %v P(0) %v", p.Rbar(), p.P(0))
		}
		p.Observe(3, 1e-3)
		if p.P(3) != p.pmax || !(p.Rbar() > 0) || math.IsInf(p.Rbar(), 0) {
			t.Fatalf("first positive gain: P(3) = %v (want PMax), Rbar %v", p.P(3), p.Rbar())
		}
		p.Observe(2, math.Inf(1)) // treated as 0
		if math.IsNaN(p.Sum()) || math.IsInf(p.Rbar(), 0) {
			t.Fatalf("Inf gain poisoned the state: sum %v rbar %v", p.Sum(), p.Rbar())
		}
	}
}

// TestFrequencies: with fixed preferences the visit counts after K sweeps
// follow π_i = p_i/p_sum. The accumulator rule is deterministic, so the
// count of each coordinate is within 1 of K·n·π_i; the chi-square
// statistic is therefore far below its random-sampling value (≈ n − 1).
func TestFrequencies(t *testing.T) {
	for _, n := range []int{1, 2, 13, 500} {
		p := randomPrefs(n, uint64(n))
		s := NewScheduler(n, 42)
		const K = 400
		count := make([]float64, n)
		total := 0
		for k := 0; k < K; k++ {
			for _, i := range s.Next(p) {
				count[i]++
				total++
			}
		}
		chi2 := 0.0
		for i := range count {
			exp := K * float64(n) * p.P(i) / p.Sum()
			if d := math.Abs(count[i] - exp); d > 1+1e-6 {
				t.Errorf("n=%d: coordinate %d visited %v times, expected %.3f", n, i, count[i], exp)
			}
			chi2 += (count[i] - exp) * (count[i] - exp) / exp
		}
		if chi2 > 0.1*float64(n)+1 {
			t.Errorf("n=%d: chi-square %.3f too large", n, chi2)
		}
		if d := math.Abs(float64(total) - K*float64(n)); d > float64(n) {
			t.Errorf("n=%d: %d entries in %d sweeps, want %d ± %d", n, total, K, K*n, n)
		}
	}
}

// TestNextActiveFrequencies: frequencies within the active set follow
// p_i/Σ_active p, inactive coordinates never appear, and the sweep length
// averages m.
func TestNextActiveFrequencies(t *testing.T) {
	const n, K = 300, 400
	p := randomPrefs(n, 3)
	s := NewScheduler(n, 9)
	var active []int32
	for i := int32(0); i < n; i += 3 {
		active = append(active, i)
	}
	var asum float64
	for _, i := range active {
		asum += p.P(int(i))
	}
	m := len(active)
	count := make([]float64, n)
	total := 0
	for k := 0; k < K; k++ {
		sw := s.NextActive(p, active)
		if len(sw) > 2*m {
			t.Fatalf("sweep of %d entries for %d active", len(sw), m)
		}
		for _, i := range sw {
			count[i]++
			total++
		}
	}
	for i := range count {
		if i%3 != 0 {
			if count[i] != 0 {
				t.Fatalf("inactive coordinate %d visited", i)
			}
			continue
		}
		exp := K * float64(m) * p.P(i) / asum
		if math.Abs(count[i]-exp) > 1+1e-6 {
			t.Errorf("coordinate %d visited %v times, expected %.3f", i, count[i], exp)
		}
	}
	if math.Abs(float64(total)-K*float64(m)) > float64(m) {
		t.Errorf("%d entries in %d sweeps, want about %d", total, K, K*m)
	}
	if len(s.NextActive(p, nil)) != 0 {
		t.Error("empty active set gave a non-empty sweep")
	}
}

// TestSweepLengthBound: no sweep has more than 2n entries, even with the
// worst credits (all just below the emission threshold) and adversarial
// preferences changing between sweeps; the average is n.
func TestSweepLengthBound(t *testing.T) {
	for _, n := range []int{1, 2, 3, 10, 1000} {
		p := NewPrefs(n, Config{})
		p.EndWarmup()
		s := NewScheduler(n, 1)
		r := rand.New(rand.NewPCG(uint64(n), 5))
		for round := 0; round < 300; round++ {
			if round%3 == 0 { // worst case credits
				for i := range s.acc {
					s.acc[i] = store(math.Nextafter(1-slack, 0))
				}
			}
			switch round % 4 {
			case 0: // one giant, rest tiny
				for i := 0; i < n; i++ {
					p.Set(i, p.pmin)
				}
				p.Set(r.IntN(n), p.pmax)
			case 1: // half at each bound
				for i := 0; i < n; i++ {
					p.Set(i, []float64{p.pmin, p.pmax}[r.IntN(2)])
				}
			case 2: // all tiny: increments 1 up to rounding
				for i := 0; i < n; i++ {
					p.Set(i, p.pmin)
				}
			case 3: // random
				for i := 0; i < n; i++ {
					p.Set(i, p.pmin+r.Float64()*(p.pmax-p.pmin))
				}
			}
			l := len(s.Next(p))
			if l > 2*n {
				t.Fatalf("n=%d round %d: sweep of %d entries > 2n", n, round, l)
			}
			for i, a := range s.acc {
				if a := float64(a); a < floor-1e-15 || a >= 1-slack {
					t.Fatalf("n=%d: credit %d = %v out of [−slack/2, 1−slack)", n, i, a)
				}
			}
		}
		// Equal preferences: exactly one visit per coordinate per sweep.
		for i := 0; i < n; i++ {
			p.Set(i, 0.37)
		}
		for k := 0; k < 5; k++ {
			sw := s.Next(p)
			if len(sw) != n {
				t.Fatalf("n=%d equal prefs: sweep of %d entries", n, len(sw))
			}
			seen := slices.Clone(sw)
			slices.Sort(seen)
			for i, v := range seen {
				if int(v) != i {
					t.Fatalf("n=%d equal prefs: sweep is not a permutation", n)
				}
			}
		}
		// Fixed random preferences: the average length is n.
		p2 := randomPrefs(n, 11)
		total, sweeps := 0, 1000
		for k := 0; k < sweeps; k++ {
			total += len(s.Next(p2))
		}
		if avg := float64(total) / float64(sweeps); math.Abs(avg-float64(n)) > float64(n)/float64(sweeps)+1e-9 {
			t.Errorf("n=%d: average sweep length %v, want %d", n, avg, n)
		}
	}
}

// TestVisitBound: every coordinate is visited within ⌈p_sum/(n·p_min)⌉
// sweeps (of the start and of its previous visit).
func TestVisitBound(t *testing.T) {
	for _, n := range []int{1, 7, 200} {
		p := randomPrefs(n, 99)
		s := NewScheduler(n, 3)
		bound := int(math.Ceil(p.Sum() / (float64(n) * p.pmin)))
		last := make([]int, n) // sweep of the last visit, 0 = start
		for k := 1; k <= 20*bound; k++ {
			for _, i := range s.Next(p) {
				if k-last[i] > bound {
					t.Fatalf("n=%d: coordinate %d visited after %d sweeps, bound %d", n, i, k-last[i], bound)
				}
				last[i] = k
			}
		}
		for i, l := range last {
			if 20*bound-l >= bound {
				t.Fatalf("n=%d: coordinate %d not visited in the last %d sweeps", n, i, 20*bound-l)
			}
		}
	}
}

func TestUniform(t *testing.T) {
	const n = 50
	s := NewScheduler(n, 8)
	first := slices.Clone(s.Uniform())
	second := s.Uniform()
	for _, perm := range [][]int32{first, second} {
		c := slices.Clone(perm)
		slices.Sort(c)
		for i, v := range c {
			if int(v) != i {
				t.Fatalf("Uniform is not a permutation: %v", perm)
			}
		}
	}
	if slices.Equal(first, second) {
		t.Fatal("two Uniform sweeps are identical")
	}
	// Position of element 0 is roughly uniform.
	pos := make([]int, n)
	const K = 20000
	for k := 0; k < K; k++ {
		pos[slices.Index(s.Uniform(), 0)]++
	}
	for i, c := range pos {
		if math.Abs(float64(c)-K/n) > 6*math.Sqrt(K/n) {
			t.Errorf("element 0 at position %d %d times of %d", i, c, K)
		}
	}
	if len(NewScheduler(0, 1).Uniform()) != 0 || len(NewScheduler(0, 1).Next(NewPrefs(0, Config{}))) != 0 {
		t.Error("n=0 sweeps not empty")
	}
}

func TestDeterminism(t *testing.T) {
	run := func(seed uint64) []int32 {
		const n = 100
		p := NewPrefs(n, Config{})
		s := NewScheduler(n, seed)
		var out []int32
		sw := s.Uniform()
		out = append(out, sw...)
		for _, i := range sw {
			p.Observe(int(i), float64(i%7)*0.1)
		}
		p.EndWarmup()
		for k := 0; k < 20; k++ {
			sw := s.Next(p)
			out = append(out, sw...)
			for _, i := range sw {
				p.Observe(int(i), float64(i%7)*0.1*s.Rand().Float64())
			}
		}
		out = append(out, s.NextActive(p, []int32{1, 5, 9, 50})...)
		return append(out, int32(s.Rand().IntN(1000)))
	}
	a, b, c := run(5), run(5), run(6)
	if !slices.Equal(a, b) {
		t.Fatal("same seed gave different sweeps")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds gave the same sweeps")
	}
}

func TestSchedulerPanics(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s did not panic", name)
			}
		}()
		f()
	}
	mustPanic("length mismatch", func() { NewScheduler(3, 1).Next(NewPrefs(4, Config{})) })
	mustPanic("negative n", func() { NewScheduler(-1, 1) })
	mustPanic("Set NaN", func() { NewPrefs(2, Config{}).Set(0, math.NaN()) })
}

func TestNoAllocs(t *testing.T) {
	const n = 1000
	p := randomPrefs(n, 1)
	s := NewScheduler(n, 1)
	active := make([]int32, 0, n)
	for i := int32(0); i < n; i += 2 {
		active = append(active, i)
	}
	allocs := testing.AllocsPerRun(50, func() {
		for _, i := range s.Next(p) {
			p.Observe(int(i), 0.5)
		}
		for _, i := range s.NextActive(p, active) {
			p.Observe(int(i), 0.25)
		}
		_ = s.Uniform()
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per sweep, want 0", allocs)
	}
}

func BenchmarkSchedulerNext(b *testing.B) {
	for _, n := range []int{1000, 100000, 1000000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			p := randomPrefs(n, 2)
			s := NewScheduler(n, 2)
			b.ReportAllocs()
			entries := 0
			for b.Loop() {
				entries += len(s.Next(p))
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(entries), "ns/entry")
		})
	}
}

func BenchmarkObserve(b *testing.B) {
	const n = 100000
	p := randomPrefs(n, 2)
	p.rbar = 1
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.Observe(i, 1.1)
		i++
		if i == n {
			i = 0
		}
	}
}
