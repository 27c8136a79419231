package kernel

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// Every test runs each implementation the CPU supports, selecting it
// through the registry and calling the package-level functions, against
// the generic loops called directly in the same binary.

func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer selectImpl(Name())
	for _, im := range impls {
		if !selectImpl(im.name) {
			t.Run(im.name, func(t *testing.T) { t.Skip("not supported on this CPU") })
			continue
		}
		t.Run(im.name, f)
	}
}

const guard = 9 // guard elements on each side of every slice under test

// guarded returns a slice of length n inside a backing array with guard
// elements set to fill before and after it. The slice's capacity reaches
// into the trailing guard, so an implementation that read past len would
// see the fill values.
func guarded[T any](n int, fill T) (back, s []T) {
	back = make([]T, n+2*guard)
	for i := range back {
		back[i] = fill
	}
	return back, back[guard : guard+n]
}

// checkGuards fails if a guard element of back no longer equals fill
// (NaN counts as equal to NaN).
func checkGuards[T comparable](t *testing.T, what string, back []T, fill T) {
	t.Helper()
	for i := range back {
		if i >= guard && i < len(back)-guard {
			continue
		}
		if back[i] != fill && !(back[i] != back[i] && fill != fill) {
			t.Fatalf("%s: guard element %d changed: %v", what, i, back[i])
		}
	}
}

var nan = math.NaN()

// Value classes for the adversarial inputs.
const (
	clsNormal = iota
	clsZeros
	clsNegative
	clsDenormal
	clsHuge
	clsCancel
	clsMixedScale
	numClasses
)

// values fills v with values of class cls.
func values(r *rand.Rand, cls int, v []float64) {
	for i := range v {
		switch cls {
		case clsNormal:
			v[i] = r.NormFloat64()
		case clsZeros:
			if r.IntN(3) > 0 {
				v[i] = 0
			} else if r.IntN(2) == 0 {
				v[i] = math.Copysign(0, -1)
			} else {
				v[i] = r.NormFloat64()
			}
		case clsNegative:
			v[i] = -r.ExpFloat64()
		case clsDenormal:
			v[i] = math.Float64frombits(r.Uint64N(1<<52)) * float64(1-2*r.IntN(2))
		case clsHuge:
			v[i] = math.Copysign(1e300*(1+r.Float64()), r.NormFloat64())
		case clsCancel:
			// Large terms of alternating sign that nearly cancel.
			v[i] = 1e16 * float64(1-2*(i%2)) * (1 + 1e-3*r.Float64())
		case clsMixedScale:
			v[i] = r.NormFloat64() * math.Pow(10, float64(r.IntN(41)-20))
		}
	}
}

// sortedIndices returns n distinct indices in [0, d), increasing. When
// edges is set it includes 0 and d-1.
func sortedIndices(r *rand.Rand, n, d int, edges bool) []int32 {
	if n > d {
		panic("n > d")
	}
	set := make(map[int32]bool, n)
	if edges && n >= 2 {
		set[0], set[int32(d-1)] = true, true
	}
	for len(set) < n {
		set[int32(r.IntN(d))] = true
	}
	idx := make([]int32, 0, n)
	for j := range set {
		idx = append(idx, j)
	}
	slices.Sort(idx)
	return idx
}

// identical reports whether got is bit for bit want, counting every NaN
// as the same (which operand's NaN payload survives is the CPU's choice).
func identical(got, want float64) bool {
	return math.Float64bits(got) == math.Float64bits(want) || (got != got && want != want)
}

type testCase struct {
	name         string
	n, d         int
	clsVal, clsW int
}

// cases enumerates lengths 0..300 with value classes for val and w, and
// a dense-vector length d that is sometimes just n (every index used).
func cases(r *rand.Rand) []testCase {
	var cs []testCase
	for n := 0; n <= 300; n++ {
		for c := 0; c < numClasses; c++ {
			d := n + r.IntN(3*n+2)
			if c%3 == 0 {
				d = max(n, 1)
			}
			cw := (c + n) % numClasses
			if c == clsHuge && n%2 == 0 {
				cw = clsHuge // products overflow to ±Inf
			}
			if cw == clsHuge && c != clsHuge {
				cw = clsNormal
			}
			cs = append(cs, testCase{fmt.Sprintf("n=%d/val=%d/w=%d", n, c, cw), n, d, c, cw})
		}
	}
	return cs
}

func TestDot(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	cs := cases(r)
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cs {
			idxB, idx := guarded[int32](c.n, int32(c.d/2))
			copy(idx, sortedIndices(r, c.n, c.d, c.n%2 == 0))
			valB, val := guarded(c.n, nan)
			values(r, c.clsVal, val)
			wB, w := guarded(c.d, nan)
			values(r, c.clsW, w)
			idx0, val0, w0 := slices.Clone(idxB), slices.Clone(valB), slices.Clone(wB)

			want := dotGeneric(idx, val, w)
			if got := Dot(idx, val, w); !identical(got, want) {
				t.Fatalf("%s: Dot = %v, generic %v", c.name, got, want)
			}
			if !slices.Equal(idxB, idx0) || !slices.EqualFunc(valB, val0, same) || !slices.EqualFunc(wB, w0, same) {
				t.Fatalf("%s: Dot modified its inputs", c.name)
			}

			// Dot32 on the same input rounded to float32.
			val32B, val32 := guarded(c.n, float32(nan))
			for k := range val32 {
				val32[k] = float32(val[k])
			}
			want = dot32Generic(idx, val32, w)
			if got := Dot32(idx, val32, w); !identical(got, want) {
				t.Fatalf("%s: Dot32 = %v, generic %v", c.name, got, want)
			}
			checkGuards(t, "Dot32 val", val32B, float32(nan))
		}
	})
}

func same(a, b float64) bool { return a == b || (a != a && b != b) }

// checkAxpy compares w after an Axpy with the generic result, bit for
// bit, and checks that only the elements in idx changed.
func checkAxpy(t *testing.T, name string, got, want, before []float64, idx []int32) {
	t.Helper()
	touched := make(map[int32]bool, len(idx))
	for _, j := range idx {
		touched[j] = true
	}
	for j := range want {
		if !touched[int32(j)] && !identical(got[j], before[j]) {
			t.Fatalf("%s: w[%d] changed from %v to %v but is not in idx", name, j, before[j], got[j])
		}
		if !identical(got[j], want[j]) {
			t.Fatalf("%s: w[%d] = %v, generic %v", name, j, got[j], want[j])
		}
	}
}

func TestAxpy(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	cs := cases(r)
	forEachImpl(t, func(t *testing.T) {
		for _, c := range cs {
			idxB, idx := guarded[int32](c.n, int32(c.d/2))
			copy(idx, sortedIndices(r, c.n, c.d, c.n%2 == 1))
			valB, val := guarded(c.n, nan)
			values(r, c.clsVal, val)
			wB, w := guarded(c.d, nan)
			values(r, c.clsW, w)
			a := []float64{1, -0.5, 1e-3, 0, 3.7e10}[c.n%5]
			before := slices.Clone(w)
			idx0, val0 := slices.Clone(idxB), slices.Clone(valB)

			want := slices.Clone(w)
			axpyGeneric(a, idx, val, want)
			Axpy(a, idx, val, w)
			checkAxpy(t, c.name+" Axpy", w, want, before, idx)
			checkGuards(t, c.name+" Axpy w", wB, nan)
			if !slices.Equal(idxB, idx0) || !slices.EqualFunc(valB, val0, same) {
				t.Fatalf("%s: Axpy modified idx or val", c.name)
			}

			// Axpy32 with the values rounded to float32.
			val32B, val32 := guarded(c.n, float32(nan))
			for k := range val32 {
				val32[k] = float32(val[k])
			}
			copy(w, before)
			want = slices.Clone(w)
			axpy32Generic(a, idx, val32, want)
			Axpy32(a, idx, val32, w)
			checkAxpy(t, c.name+" Axpy32", w, want, before, idx)
			checkGuards(t, c.name+" Axpy32 w", wB, nan)
			checkGuards(t, c.name+" Axpy32 val", val32B, float32(nan))
		}
	})
}

func TestSqNorm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	forEachImpl(t, func(t *testing.T) {
		for n := 0; n <= 300; n++ {
			for c := 0; c < numClasses; c++ {
				valB, val := guarded(n, nan)
				values(r, c, val)
				want := sqNormGeneric(val)
				if got := SqNorm(val); !identical(got, want) {
					t.Fatalf("n=%d class %d: SqNorm = %v, generic %v", n, c, got, want)
				}
				checkGuards(t, "SqNorm", valB, nan)
			}
		}
	})
}

var testKs = []int{1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 31, 33, 64}

func TestDotK(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	forEachImpl(t, func(t *testing.T) {
		for n := 0; n <= 300; n += 1 + n/16 {
			for _, K := range testKs {
				c := (n + K) % numClasses
				if c == clsHuge {
					c = clsNormal
				}
				d := n + r.IntN(n+2)
				idx := sortedIndices(r, n, max(d, 1), n%2 == 0)
				valB, val := guarded(n, nan)
				values(r, c, val)
				WB, W := guarded(d*K+r.IntN(K), nan) // a partial row at the end is never used
				values(r, (c+1)%numClasses, W)
				for i := d * K; i < len(W); i++ {
					W[i] = nan
				}
				want := make([]float64, K)
				dotKGeneric(idx, val, W, K, want)
				outB, out := guarded(K, nan)
				DotK(idx, val, W, K, out)
				for cl := 0; cl < K; cl++ {
					if !identical(out[cl], want[cl]) {
						t.Fatalf("n=%d K=%d: out[%d] = %v, generic %v", n, K, cl, out[cl], want[cl])
					}
				}
				checkGuards(t, "DotK out", outB, nan)
				checkGuards(t, "DotK val", valB, nan)
				checkGuards(t, "DotK W", WB, nan)
			}
		}
	})
}

func TestAxpyK(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	forEachImpl(t, func(t *testing.T) {
		for n := 0; n <= 300; n += 1 + n/16 {
			for _, K := range testKs {
				c := (n + K) % numClasses
				d := n + r.IntN(n+2)
				idx := sortedIndices(r, n, max(d, 1), n%2 == 1)
				_, val := guarded(n, nan)
				values(r, c, val)
				coefB, coef := guarded(K, nan)
				values(r, clsNormal, coef)
				WB, W := guarded(d*K+r.IntN(K), nan)
				values(r, (c+2)%numClasses, W)
				for i := d * K; i < len(W); i++ {
					W[i] = nan
				}
				before := slices.Clone(W)
				want := slices.Clone(W)
				axpyKGeneric(coef, idx, val, want, K)
				AxpyK(coef, idx, val, W, K)
				// Flatten into an Axpy check over W's positions.
				var pos []int32
				for _, j := range idx {
					for cl := 0; cl < K; cl++ {
						pos = append(pos, j*int32(K)+int32(cl))
					}
				}
				checkAxpy(t, fmt.Sprintf("n=%d K=%d AxpyK", n, K), W, want, before, pos)
				checkGuards(t, "AxpyK W", WB, nan)
				checkGuards(t, "AxpyK coef", coefB, nan)
			}
		}
	})
}

// op runs one index-taking kernel of the active implementation on the
// given input, with w of length d (d rows for the K forms, K = 3).
type op struct {
	name string
	run  func(idx []int32, val []float64, w []float64)
	rows func(lenW int) int
}

const opK = 3

var ops = []op{
	{"Dot", func(idx []int32, val, w []float64) { Dot(idx, val, w) }, nil},
	{"Axpy", func(idx []int32, val, w []float64) { Axpy(0.5, idx, val, w) }, nil},
	{"Dot32", func(idx []int32, val, w []float64) { Dot32(idx, to32(val), w) }, nil},
	{"Axpy32", func(idx []int32, val, w []float64) { Axpy32(0.5, idx, to32(val), w) }, nil},
	{"DotK", func(idx []int32, val, w []float64) { DotK(idx, val, w, opK, make([]float64, opK)) }, func(n int) int { return n / opK }},
	{"AxpyK", func(idx []int32, val, w []float64) { AxpyK([]float64{1, 2, 3}, idx, val, w, opK) }, func(n int) int { return n / opK }},
}

func to32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// catch runs f and returns what it panicked with, or nil.
func catch(f func()) (p any) {
	defer func() { p = recover() }()
	f()
	return nil
}

func TestIndexOutOfRange(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	forEachImpl(t, func(t *testing.T) {
		for _, o := range ops {
			for _, n := range []int{1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257} {
				for _, where := range []int{0, n / 2, n - 1} {
					const d = 300
					lenW := d
					if o.rows != nil {
						lenW = d*opK + 2 // rows = d
					}
					for _, bad := range []int32{-1, d, d + 1, 1 << 20, math.MaxInt32, math.MinInt32, -d} {
						idx := sortedIndices(r, n, d, false)
						idx[where] = bad
						val := make([]float64, n)
						values(r, clsNormal, val)
						wB, w := guarded(lenW, nan)
						values(r, clsNormal, w)
						p := catch(func() { o.run(idx, val, w) })
						var ie *IndexError
						err, _ := p.(error)
						if !errors.As(err, &ie) {
							t.Fatalf("%s n=%d idx[%d]=%d: panic value %v, want *IndexError", o.name, n, where, bad, p)
						}
						if ie.Op != o.name || ie.K != where || ie.Index != bad || ie.Len != d {
							t.Fatalf("%s n=%d idx[%d]=%d: got %+v", o.name, n, where, bad, ie)
						}
						checkGuards(t, o.name+" w", wB, nan)
					}
				}
			}
		}
	})
}

func TestLengthMismatch(t *testing.T) {
	idx := []int32{0, 1, 2}
	val := []float64{1, 2, 3, 4}[:2] // capacity reaches beyond len: must not be used
	w := make([]float64, 10)
	forEachImpl(t, func(t *testing.T) {
		for _, o := range ops {
			p := catch(func() { o.run(idx, val, w) })
			var le *LengthError
			if err, _ := p.(error); !errors.As(err, &le) {
				t.Errorf("%s with len(val) < len(idx): panic value %v, want *LengthError", o.name, p)
			}
		}
		for _, f := range []func(){
			func() { DotK(idx, []float64{1, 2, 3}, w, 2, make([]float64, 1)) },
			func() { DotK(idx, []float64{1, 2, 3}, w, -1, nil) },
			func() { AxpyK([]float64{1}, idx, []float64{1, 2, 3}, w, 2) },
		} {
			var le *LengthError
			if err, _ := catch(f).(error); !errors.As(err, &le) {
				t.Errorf("bad K / out / coef: got %v, want *LengthError", err)
			}
		}
		// Surplus values are allowed and ignored.
		if got := Dot(idx, []float64{1, 1, 1, 1e300}, []float64{1, 2, 3}); got != 6 {
			t.Errorf("Dot with len(val) > len(idx) = %v, want 6", got)
		}
	})
}

func TestHugeIndexLimit(t *testing.T) {
	// len(w) is compared in 64 bits: an index is never taken modulo 2^32.
	forEachImpl(t, func(t *testing.T) {
		w := make([]float64, 5)
		for _, j := range []int32{5, 6, math.MaxInt32, -1, math.MinInt32} {
			if p := catch(func() { Dot([]int32{j}, []float64{1}, w) }); p == nil {
				t.Errorf("Dot with idx %d, len(w) 5 did not panic", j)
			}
		}
	})
}

func TestRegistry(t *testing.T) {
	avail := Available()
	if len(avail) == 0 || avail[0] != "generic" {
		t.Fatalf("Available() = %v, want generic first", avail)
	}
	if !slices.Contains(avail, Name()) {
		t.Errorf("Name() = %q, not in Available() = %v", Name(), avail)
	}
	if EnvError() == nil && os.Getenv("ACFCD_KERNEL") == "" && Name() != avail[len(avail)-1] {
		t.Errorf("Name() = %q, want the best of %v", Name(), avail)
	}
	prev := Name()
	defer selectImpl(prev)
	for _, name := range []string{"no-such-kernel", ""} {
		if selectImpl(name) {
			t.Errorf("selectImpl(%q) succeeded", name)
		}
		if Name() != prev {
			t.Errorf("failed selectImpl(%q) changed the implementation to %q", name, Name())
		}
	}
	for _, im := range impls {
		if !im.supported {
			if selectImpl(im.name) {
				t.Errorf("selectImpl(%q) succeeded for an implementation the CPU does not support", im.name)
			}
			continue
		}
		if !selectImpl(im.name) || Name() != im.name {
			t.Errorf("selectImpl(%q): Name() = %q", im.name, Name())
		}
	}
	if f := CPUFeatures(); f == "" {
		t.Error("CPUFeatures is empty")
	} else {
		t.Logf("CPUFeatures: %s; available: %v; in use: %s", f, avail, prev)
	}
}
