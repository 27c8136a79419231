package kernel

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDispatchTable checks that each function, under each implementation
// the CPU supports, gives bit for bit the result of the code the package
// doc's table names for it, called directly, and of the generic loop: a
// model's bits must not depend on the CPU. (Since every implementation
// computes the same bits, the results cannot tell which code ran; the
// benchmarks can.)
func TestDispatchTable(t *testing.T) {
	in := newTableInput()
	table := map[string]map[string]func() []float64{"generic": in.generic()}
	for name, code := range codeTable(in) {
		table[name] = code
	}
	public := in.public()
	defer selectImpl(Name())
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
		for op, f := range public {
			got := f()
			if want := want[op](); !slices.EqualFunc(got, want, sameBits) {
				t.Errorf("%s %s: %v, want %v", im.name, op, got, want)
			}
			if want := table["generic"][op](); !slices.EqualFunc(got, want, sameBits) {
				t.Errorf("%s %s: %v, generic %v", im.name, op, got, want)
			}
		}
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

// goldenBits is the SHA-256 of every result of TestGoldenBits's inputs: the
// same on every architecture and implementation. It changes only when the
// order of operations of the package doc changes, on purpose.
const goldenBits = "2bc5c73f96dec8f002c69c7e28c6b4f4387157f5ac87f10f984534fd007e04b5"

// TestGoldenBits runs each function on fixed inputs of every length from 0
// to 40 and some longer ones, under each implementation the CPU supports,
// and compares a hash of the results' bits with goldenBits, so that a run
// on amd64, arm64 or with -tags purego checks the same bits.
func TestGoldenBits(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		h := sha256.New()
		put := func(xs ...float64) {
			for _, x := range xs {
				if x != x {
					x = math.NaN() // the payload is the CPU's choice
				}
				binary.Write(h, binary.LittleEndian, math.Float64bits(x))
			}
		}
		r := rand.New(rand.NewPCG(11, 11))
		for _, n := range append(seq(0, 40), 63, 64, 65, 255, 1000) {
			const d, K = 1500, 5
			idx := sortedIndices(r, n, d, n%2 == 0)
			val, w, W := make([]float64, n), make([]float64, d), make([]float64, d*K)
			values(r, clsMixedScale, val)
			values(r, clsNormal, w)
			values(r, clsNormal, W)
			coef := []float64{0.3, -1.7, 2.5e-3, 11, -0.1}
			val32 := to32(val)
			put(Dot(idx, val, w), Dot32(idx, val32, w), SqNorm(val))
			out := make([]float64, K)
			DotK(idx, val, W, K, out)
			put(out...)
			w2 := slices.Clone(w)
			Axpy(-0.37, idx, val, w2)
			Axpy32(1.9, idx, val32, w2)
			AxpyK(coef, idx, val, W, K)
			for _, j := range idx {
				put(w2[j])
				put(W[int(j)*K : int(j)*K+K]...)
			}
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != goldenBits {
			t.Errorf("results hash to %s, want %s", got, goldenBits)
		}
	})
}

func seq(lo, hi int) []int {
	var s []int
	for n := lo; n <= hi; n++ {
		s = append(s, n)
	}
	return s
}
