package fmath

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// ulps is the number of float64s between a and b (0 when both are NaN,
// huge when only one is).
func ulps(a, b float64) uint64 {
	if a != a || b != b {
		if a != a && b != b {
			return 0
		}
		return math.MaxUint64
	}
	oa, ob := ordered(a), ordered(b)
	if oa > ob {
		return uint64(oa - ob)
	}
	return uint64(ob - oa)
}

// ordered maps a float64 to an integer of the same order, ±0 to 0.
func ordered(x float64) int64 {
	b := int64(math.Float64bits(x))
	if b < 0 {
		return -(b &^ math.MinInt64)
	}
	return b
}

type fn struct {
	name      string
	ours, std func(float64) float64
	exact     func(float64) *big.Float
}

var fns = []fn{
	{"Exp", Exp, math.Exp, exactExp},
	{"Log", Log, math.Log, exactLog},
	{"Log1p", Log1p, math.Log1p, exactLog1p},
	{"Log10", Log10, math.Log10, exactLog10},
}

// sweep returns n evenly spaced points of [a, b] and n random ones.
func sweep(r *rand.Rand, a, b float64, n int) []float64 {
	xs := make([]float64, 0, 2*n)
	for i := range n {
		xs = append(xs, a+(b-a)*float64(i)/float64(n-1))
	}
	for range n {
		xs = append(xs, a+(b-a)*r.Float64())
	}
	return xs
}

// positives returns n float64s with uniformly random bits between the
// bit patterns of lo and hi: every binade equally often.
func positives(r *rand.Rand, lo, hi float64, n int) []float64 {
	bl, bh := math.Float64bits(lo), math.Float64bits(hi)
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = math.Float64frombits(bl + r.Uint64N(bh-bl+1))
	}
	return xs
}

// arguments returns n or so arguments for each function over the ranges
// the solvers use: exp of [−745, 710], log of subnormals to MaxFloat64,
// log1p of (−1, 1e300].
func arguments(seed uint64, n int) map[string][]float64 {
	r := rand.New(rand.NewPCG(seed, 2))
	tiny := math.SmallestNonzeroFloat64
	var exp, log, log1p []float64
	exp = append(exp, sweep(r, -745.2, 710, n/2)...)
	exp = append(exp, sweep(r, -2, 2, n/4)...)
	exp = append(exp, sweep(r, 709, 709.8, n/20)...)
	exp = append(exp, sweep(r, -745.2, -708, n/20)...)
	log = append(log, positives(r, tiny, math.MaxFloat64, n/2)...)
	log = append(log, positives(r, tiny, 0x1p-1022, n/20)...)
	log = append(log, sweep(r, 0.5, 2, n/4)...)
	log = append(log, sweep(r, 1-1e-6, 1+1e-6, n/20)...)
	log1p = append(log1p, sweep(r, -1, 1, n/4)...)
	log1p = append(log1p, sweep(r, -1, -0.99, n/20)...)
	log1p = append(log1p, positives(r, tiny, 1e300, n/4)...)
	for _, x := range positives(r, tiny, 1, n/4) {
		log1p = append(log1p, -x)
	}
	return map[string][]float64{"Exp": exp, "Log": log, "Log1p": log1p,
		"Log10": positives(r, tiny, math.MaxFloat64, n)}
}

// TestExact measures the error against the exact values on a sample:
// below one ulp, so the result is one of the two float64 neighbours of
// the exact value.
func TestExact(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 2000
	}
	for name, xs := range arguments(7, n) {
		f := fnNamed(name)
		var worst, worstX float64
		for _, x := range xs {
			if e := ulpErr(f.ours(x), f.exact(x)); e > worst || e != e {
				worst, worstX = e, x
			}
		}
		t.Logf("%s: %d arguments, largest error %.3f ulp at %v", name, len(xs), worst, worstX)
		if !(worst < 1) {
			t.Errorf("%s(%v) = %v: %.3f ulp from the exact value", name, worstX, f.ours(worstX), worst)
		}
	}
}

func fnNamed(name string) fn {
	for _, f := range fns {
		if f.name == name {
			return f
		}
	}
	panic(name)
}

// TestAgainstMath compares with package math on a dense sweep: at most
// one ulp apart. Where package math is further off itself (its amd64
// assembly: Log of subnormals, golang/go#56600; Exp overflows before
// 709.78), the exact value decides.
func TestAgainstMath(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 50_000
	}
	for name, xs := range arguments(1, n) {
		f := fnNamed(name)
		var off, mathOff int
		for _, x := range xs {
			got, std := f.ours(x), f.std(x)
			d := ulps(got, std)
			if d == 0 {
				continue
			}
			off++
			if d == 1 {
				continue
			}
			ex := f.exact(x)
			if e := ulpErr(got, ex); !(e < 1) {
				t.Errorf("%s(%v) = %v, math: %v: %d ulps apart, %.3f ulp from the exact value", name, x, got, std, d, e)
			} else {
				mathOff++
			}
		}
		t.Logf("%s: %d arguments, %d differ from package math, %d of them by more than an ulp where package math is wrong", name, len(xs), off, mathOff)
	}
}

func TestSpecial(t *testing.T) {
	inf, nan, tiny := math.Inf(1), math.NaN(), math.SmallestNonzeroFloat64
	negZero := math.Copysign(0, -1)
	special := map[string][][2]float64{
		"Exp": {{nan, nan}, {inf, inf}, {-inf, 0}, {0, 1}, {negZero, 1}, {710, inf},
			{-745.1332191019412, 0}, {-746, 0}, {math.MaxFloat64, inf}, {-math.MaxFloat64, 0}},
		"Log": {{nan, nan}, {inf, inf}, {-inf, nan}, {0, -inf}, {negZero, -inf}, {1, 0}, {-1, nan}, {-tiny, nan}},
		"Log1p": {{nan, nan}, {inf, inf}, {-inf, nan}, {0, 0}, {negZero, negZero}, {-1, -inf}, {-2, nan},
			{tiny, tiny}, {-tiny, -tiny}, {0x1p-60, 0x1p-60}},
		"Log10": {{nan, nan}, {inf, inf}, {-inf, nan}, {0, -inf}, {negZero, -inf}, {1, 0}, {-1, nan}, {10, 1}, {1000, 3}, {1e-300, -300}, {1e22, 22}},
	}
	for _, f := range fns {
		for _, c := range special[f.name] {
			got := f.ours(c[0])
			if math.Float64bits(got) != math.Float64bits(c[1]) && !(got != got && c[1] != c[1]) {
				t.Errorf("%s(%v) = %v, want %v", f.name, c[0], got, c[1])
			}
		}
	}
	// Near the ends of the ranges: below one ulp.
	edges := []float64{
		0x1p-1022, 0x1p-1023, 1e-310, 0x1p-60, -0x1p-60, 1 + 0x1p-52, 1 - 0x1p-53, 1 - 1e-16, -1 + 0x1p-53, 1e300, 0x1p53, 0x1p54,
		709.7827128933839, 709.78, 709.436837036837, -745.1332191019411, -745.13, -708.4, -708.3964185322641, -0.2928932188134524,
		0.41421356237309503, math.MaxFloat64, tiny,
	}
	for _, f := range fns {
		for _, x := range edges {
			if f.name != "Exp" && x <= 0 && !(f.name == "Log1p" && x > -1) {
				continue
			}
			if f.name == "Exp" && (x < -746 || x > 710) {
				continue
			}
			if e := ulpErr(f.ours(x), f.exact(x)); !(e < 1) {
				t.Errorf("%s(%v) = %v: %.3f ulp from the exact value", f.name, x, f.ours(x), e)
			}
		}
	}
}

func TestLog10PowersOfTen(t *testing.T) {
	for k := -307; k <= 308; k++ {
		if got := Log10(math.Pow10(k)); got != float64(k) {
			t.Errorf("Log10(1e%d) = %v", k, got)
		}
	}
}

// goldenArgs are the arguments of TestGolden.
var goldenArgs = map[string][]float64{
	"Exp": {-745, -740.5, -708.5, -100.25, -1, -0x1p-30, 0x1p-30, 0.1,
		0.34657, 0.5, 1, 2.5, 10, 100.125, 709.5, 709.78},
	"Log": {5e-324, 1e-310, 0x1p-1022, 1e-100, 0.1, 0.5, 0.7071, 0.99999,
		1.0001, 1.4142, 2.5, 10, 1e100, 1e300, 0x1p1023, math.MaxFloat64},
	"Log1p": {-0.999999, -0.5, -0.2929, -1e-10, 5e-324, 1e-300, 0x1p-30, 0.1,
		0.4142, 0.5, 1, 2.5, 10, 1e16, 1e300, math.MaxFloat64},
}

// TestGolden pins the bits, so that a change of them shows on any
// architecture, whatever package math gives there.
func TestGolden(t *testing.T) {
	want := map[string][]uint64{
		"Exp": {
			0x0000000000000001, 0x0000000000000033, 0x000e6cf6d08897ac, 0x36e4acd31e167ebb,
			0x3fd78b56362cef38, 0x3fefffffff800000, 0x3ff0000000400000, 0x3ff1aec7b35a00d4,
			0x3ff6a099138a089d, 0x3ffa61298e1e069c, 0x4005bf0a8b145769, 0x40285d6fd931e0bb,
			0x40d5829dcf950560, 0x48f5daaf24221d5e, 0x7fe81e9b4b52d0c9, 0x7fefe9ce5c4c52b4,
		},
		"Log": {
			0xc0874385446d71c3, 0xc0864e69394d9508, 0xc086232bdd7abcd2, 0xc06cc845b54b54f2,
			0xc0026bb1bbb55515, 0xbfe62e42fefa39ef, 0xbfd62e6b3842a25e, 0xbee4f8bc681df714,
			0x3f1a368d0657fcd4, 0x3fd62e1ac5b1d181, 0x3fed5240f0e0e078, 0x40026bb1bbb55516,
			0x406cc845b54b54f2, 0x4085963447f87fb5, 0x408628b76e3a7b61, 0x40862e42fefa39ef,
		},
		"Log1p": {
			0xc02ba18a998fc064, 0xbfe62e42fefa39ef, 0xbfd62e6b3842a25c, 0xbddb7cdfd9dda4e3,
			0x0000000000000001, 0x01a56e1fc2f8f359, 0x3e0fffffffc00000, 0x3fb8663f793c46c7,
			0x3fd62e1ac5b1d182, 0x3fd9f323ecbf984c, 0x3fe62e42fefa39ef, 0x3ff40b512eb53d60,
			0x40032ee3b77f374c, 0x40426bb1bbb55516, 0x4085963447f87fb5, 0x40862e42fefa39ef,
		},
		"Log10": {
			0xc07434e6420f4374, 0xc073600000000000, 0xc0733a7146f72a42, 0xc059000000000000,
			0xbff0000000000000, 0xbfd34413509f79ff, 0xbfc3443640baac38, 0xbed237398cfeafe5,
			0x3f06c4b5defc34d7, 0x3fc343f0608447c6, 0x3fd977d95ec10c02, 0x3ff0000000000000,
			0x4059000000000000, 0x4072c00000000000, 0x40733f424bcb5220, 0x40734413509f79ff,
		},
	}
	for _, f := range fns {
		args := goldenArgs[f.name]
		if f.name == "Log10" {
			args = goldenArgs["Log"]
		}
		for i, x := range args {
			got := math.Float64bits(f.ours(x))
			if i >= len(want[f.name]) {
				t.Errorf("%s(%v) = %#016x, no golden value", f.name, x, got)
			} else if got != want[f.name][i] {
				t.Errorf("%s(%v) = %#016x, want %#016x", f.name, x, got, want[f.name][i])
			}
		}
	}
}

var sink float64

func bench(b *testing.B, fs map[string]func(float64) float64, xs []float64) {
	for _, impl := range []string{"fmath", "math"} {
		f := fs[impl]
		b.Run("impl="+impl, func(b *testing.B) {
			b.ReportAllocs()
			var s float64
			for i := 0; b.Loop(); i++ {
				s += f(xs[i&(len(xs)-1)])
			}
			sink = s
		})
	}
}

func benchArgs(a, b float64) []float64 {
	r := rand.New(rand.NewPCG(3, 4))
	xs := make([]float64, 1024)
	for i := range xs {
		xs[i] = a + (b-a)*r.Float64()
	}
	return xs
}

func BenchmarkExp(b *testing.B) {
	bench(b, map[string]func(float64) float64{"fmath": Exp, "math": math.Exp}, benchArgs(-20, 20))
}

func BenchmarkLog(b *testing.B) {
	bench(b, map[string]func(float64) float64{"fmath": Log, "math": math.Log}, benchArgs(1e-3, 1e3))
}

func BenchmarkLog1p(b *testing.B) {
	bench(b, map[string]func(float64) float64{"fmath": Log1p, "math": math.Log1p}, benchArgs(-0.5, 10))
}
