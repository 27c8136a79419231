package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDispatchTable checks that each function, under each implementation
// the CPU supports, runs the code the package doc's table names for it:
// its result must be bit for bit that code's, called directly. Models
// keep their bits only as long as this holds. The input makes the
// summation orders differ, so a Dot that ran another implementation's
// code would be caught; Axpy and AxpyK round like the generic loop on
// every implementation, so for them the check holds whichever code runs.
func TestDispatchTable(t *testing.T) {
	in := newTableInput()
	table := map[string]map[string]func() []float64{"generic": in.generic()}
	for name, code := range codeTable(in) {
		table[name] = code
	}
	public := in.public()
	defer selectImpl(Name())
	saved := vectorMaxLen
	defer func() { vectorMaxLen = saved }()
	for _, im := range impls {
		want, ok := table[im.name]
		if !ok {
			t.Errorf("%s: not in the table", im.name)
			continue
		}
		if !selectImpl(im.name) {
			t.Logf("%s: not supported on this CPU", im.name)
			continue
		}
		for _, large := range []bool{false, true} {
			vectorMaxLen = saved
			if large {
				vectorMaxLen = len(in.w) - 1
			}
			for op, f := range public {
				code := want[op]
				if large && slices.Contains(largeWGeneric, op) {
					code = table["generic"][op]
				}
				if got, want := f(), code(); !slices.EqualFunc(got, want, sameBits) {
					t.Errorf("%s %s (len(w) > vectorMaxLen: %v): %v, want %v", im.name, op, large, got, want)
				}
			}
		}
	}
	// The check is only as good as the input: each implementation's Dot
	// must round differently from every other's on it.
	seen := map[uint64]string{}
	for _, name := range Available() {
		s := table[name]["Dot"]()[0]
		if other, ok := seen[math.Float64bits(s)]; ok {
			t.Errorf("Dot rounds alike in %s and %s on the test input; the check cannot tell them apart", other, name)
		}
		seen[math.Float64bits(s)] = name
	}
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// tableInput is one fixed input for every function; each run starts from
// fresh copies of w and W.
type tableInput struct {
	idx   []int32
	val   []float64
	val32 []float32
	w, W  []float64
	coef  []float64
	K     int
}

func newTableInput() *tableInput {
	r := rand.New(rand.NewPCG(7, 7))
	const n, d, K = 203, 1000, 5
	in := &tableInput{idx: sortedIndices(r, n, d, true), val: make([]float64, n),
		w: make([]float64, d), W: make([]float64, d*K), coef: make([]float64, K), K: K}
	values(r, clsMixedScale, in.val)
	values(r, clsNormal, in.w)
	values(r, clsNormal, in.W)
	values(r, clsNormal, in.coef)
	in.val32 = to32(in.val)
	return in
}

func (in *tableInput) dot(f func([]int32, []float64, []float64) (float64, bool)) func() []float64 {
	return func() []float64 { s, _ := f(in.idx, in.val, in.w); return []float64{s} }
}

func (in *tableInput) dot32(f func([]int32, []float32, []float64) (float64, bool)) func() []float64 {
	return func() []float64 { s, _ := f(in.idx, in.val32, in.w); return []float64{s} }
}

func (in *tableInput) sqNorm(f func([]float64) float64) func() []float64 {
	return func() []float64 { return []float64{f(in.val)} }
}

func (in *tableInput) axpy(f func(float64, []int32, []float64, []float64) bool) func() []float64 {
	return func() []float64 { w := slices.Clone(in.w); f(0.3, in.idx, in.val, w); return w }
}

func (in *tableInput) axpy32(f func(float64, []int32, []float32, []float64) bool) func() []float64 {
	return func() []float64 { w := slices.Clone(in.w); f(0.3, in.idx, in.val32, w); return w }
}

func (in *tableInput) dotK(f func([]int32, []float64, []float64, int, []float64) bool) func() []float64 {
	return func() []float64 { out := make([]float64, in.K); f(in.idx, in.val, in.W, in.K, out); return out }
}

func (in *tableInput) axpyK(f func([]float64, []int32, []float64, []float64, int) bool) func() []float64 {
	return func() []float64 { W := slices.Clone(in.W); f(in.coef, in.idx, in.val, W, in.K); return W }
}

// generic returns the generic loops, adapted to the assembly's signatures.
func (in *tableInput) generic() map[string]func() []float64 {
	return map[string]func() []float64{
		"Dot":    in.dot(func(i []int32, v, w []float64) (float64, bool) { return dotGeneric(i, v, w), true }),
		"Axpy":   in.axpy(func(a float64, i []int32, v, w []float64) bool { axpyGeneric(a, i, v, w); return true }),
		"SqNorm": in.sqNorm(sqNormGeneric),
		"Dot32":  in.dot32(func(i []int32, v []float32, w []float64) (float64, bool) { return dot32Generic(i, v, w), true }),
		"Axpy32": in.axpy32(func(a float64, i []int32, v []float32, w []float64) bool { axpy32Generic(a, i, v, w); return true }),
		"DotK":   in.dotK(func(i []int32, v, W []float64, K int, out []float64) bool { dotKGeneric(i, v, W, K, out); return true }),
		"AxpyK":  in.axpyK(func(c []float64, i []int32, v, W []float64, K int) bool { axpyKGeneric(c, i, v, W, K); return true }),
	}
}

// public returns the package-level functions, which dispatch.
func (in *tableInput) public() map[string]func() []float64 {
	return map[string]func() []float64{
		"Dot":    in.dot(func(i []int32, v, w []float64) (float64, bool) { return Dot(i, v, w), true }),
		"Axpy":   in.axpy(func(a float64, i []int32, v, w []float64) bool { Axpy(a, i, v, w); return true }),
		"SqNorm": in.sqNorm(SqNorm),
		"Dot32":  in.dot32(func(i []int32, v []float32, w []float64) (float64, bool) { return Dot32(i, v, w), true }),
		"Axpy32": in.axpy32(func(a float64, i []int32, v []float32, w []float64) bool { Axpy32(a, i, v, w); return true }),
		"DotK":   in.dotK(func(i []int32, v, W []float64, K int, out []float64) bool { DotK(i, v, W, K, out); return true }),
		"AxpyK":  in.axpyK(func(c []float64, i []int32, v, W []float64, K int) bool { AxpyK(c, i, v, W, K); return true }),
	}
}
