package kernel

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"
)

// fuzzInput decodes fuzz bytes into kernel arguments. Indices are mostly
// increasing (delta-coded) and in range, with bytes that make them
// repeat, go backwards or leave [0, d); values mix ordinary numbers with
// zeros, subnormals, huge numbers, infinities and NaN.
type fuzzInput struct {
	idx  []int32
	val  []float64
	d, K int
	a    float64
}

var fuzzSpecials = []float64{0, math.Copysign(0, -1), 1, -1, 5e-324, -2.5e-320, 1e300, -1e300,
	math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), 1e16, -1e16, 0.1}

func decodeFuzz(b []byte) fuzzInput {
	var in fuzzInput
	if len(b) < 6 {
		b = append(b, make([]byte, 6-len(b))...)
	}
	in.d = 1 + int(binary.LittleEndian.Uint16(b[0:]))%3000
	in.K = 1 + int(b[2])%24
	in.a = fuzzValue(binary.LittleEndian.Uint16(b[3:]))
	mode := b[5]
	b = b[6:]
	j := int64(-1)
	for len(b) >= 3 {
		c := b[0]
		switch {
		case mode&1 != 0 && c < 8:
			j = int64(int32(uint32(c) * 0x2000_0001 * uint32(b[1]))) // anything
		case c < 4:
			j -= int64(c) // repeat or go back
		case c < 6:
			j = int64(in.d) + int64(c-4) // just out of range
		default:
			j += 1 + int64(c%16)
		}
		in.idx = append(in.idx, int32(j))
		in.val = append(in.val, fuzzValue(binary.LittleEndian.Uint16(b[1:])))
		b = b[3:]
	}
	return in
}

func fuzzValue(u uint16) float64 {
	if u%8 == 0 {
		return fuzzSpecials[int(u/8)%len(fuzzSpecials)]
	}
	return (float64(u) - 32768) / 1024
}

type fuzzRun struct{ name, impl string }

func fuzzRuns() []fuzzRun {
	var runs []fuzzRun
	for _, name := range Available() {
		runs = append(runs, fuzzRun{name, name})
	}
	return runs
}

// panicsLike reports whether two panic values are the same kernel error.
func panicsLike(got, want any) bool {
	if got == nil || want == nil {
		return got == nil && want == nil
	}
	ge, _ := got.(error)
	we, _ := want.(error)
	var gi, wi *IndexError
	if errors.As(we, &wi) {
		return errors.As(ge, &gi) && *gi == *wi
	}
	var gl, wl *LengthError
	if errors.As(we, &wl) {
		return errors.As(ge, &gl) && *gl == *wl
	}
	return false
}

func FuzzKernels(f *testing.F) {
	f.Add([]byte{0x10, 0, 3, 0, 0x3c, 0, 6, 1, 2, 7, 3, 4, 8, 5, 6, 9, 7, 8})
	f.Add([]byte{5, 0, 1, 8, 0, 1, 200, 0, 0, 4, 1, 1, 200, 8, 8, 200, 16, 16})
	f.Add([]byte{0xff, 0xff, 7, 1, 1, 0, 5, 1, 2, 6, 3, 4, 9, 5, 6, 10, 7, 8, 11, 9, 10, 12, 11, 12, 13, 1, 1})
	f.Add([]byte{3, 0, 2, 9, 9, 0, 1, 0, 0, 2, 0, 0, 6, 0, 0})
	long := []byte{0, 1, 5, 0, 0x40, 0}
	for i := 0; i < 120; i++ {
		long = append(long, byte(6+i%7), byte(i), byte(3*i))
	}
	f.Add(long)
	f.Fuzz(func(t *testing.T, data []byte) {
		in := decodeFuzz(data)
		d, K := in.d, in.K
		defer selectImpl(Name())

		_, w0 := guarded(d, 0.0)
		for i := range w0 {
			w0[i] = fuzzValue(uint16(i * 7919))
		}
		W0 := make([]float64, d*K+K/2)
		for i := range W0 {
			W0[i] = fuzzValue(uint16(i * 104729))
		}
		coef := make([]float64, K)
		for i := range coef {
			coef[i] = float64(i+1) / 8
		}
		val32 := to32(in.val)

		// Reference results from the generic code.
		var refDot, refDot32 float64
		refDotP := catch(func() { refDot = dotGeneric(in.idx, in.val, w0) })
		refDot32P := catch(func() { refDot32 = dot32Generic(in.idx, val32, w0) })
		refAxpy := slices.Clone(w0)
		refAxpyP := catch(func() { axpyGeneric(in.a, in.idx, in.val, refAxpy) })
		refAxpy32 := slices.Clone(w0)
		refAxpy32P := catch(func() { axpy32Generic(in.a, in.idx, val32, refAxpy32) })
		refOut := make([]float64, K)
		refDotKP := catch(func() { dotKGeneric(in.idx, in.val, W0, K, refOut) })
		refW := slices.Clone(W0)
		refAxpyKP := catch(func() { axpyKGeneric(coef, in.idx, in.val, refW, K) })

		// Every implementation must give the generic bits.
		for _, run := range fuzzRuns() {
			name := run.name
			selectImpl(run.impl)
			var got float64
			p := catch(func() { got = Dot(in.idx, in.val, w0) })
			if !panicsLike(p, refDotP) {
				t.Fatalf("%s Dot: panic %v, generic %v", name, p, refDotP)
			}
			if p == nil && !identical(got, refDot) {
				t.Fatalf("%s Dot = %v, generic %v", name, got, refDot)
			}
			p = catch(func() { got = Dot32(in.idx, val32, w0) })
			if !panicsLike(p, refDot32P) {
				t.Fatalf("%s Dot32: panic %v, generic %v", name, p, refDot32P)
			}
			if p == nil && !identical(got, refDot32) {
				t.Fatalf("%s Dot32 = %v, generic %v", name, got, refDot32)
			}

			wB, w := guarded(d, math.NaN())
			copy(w, w0)
			p = catch(func() { Axpy(in.a, in.idx, in.val, w) })
			if !panicsLike(p, refAxpyP) {
				t.Fatalf("%s Axpy: panic %v, generic %v", name, p, refAxpyP)
			}
			checkGuards(t, name+" Axpy", wB, math.NaN())
			if p == nil {
				checkAxpy(t, name+" Axpy", w, refAxpy, w0, in.idx)
			}
			copy(w, w0)
			p = catch(func() { Axpy32(in.a, in.idx, val32, w) })
			if !panicsLike(p, refAxpy32P) {
				t.Fatalf("%s Axpy32: panic %v, generic %v", name, p, refAxpy32P)
			}
			checkGuards(t, name+" Axpy32", wB, math.NaN())
			if p == nil {
				checkAxpy(t, name+" Axpy32", w, refAxpy32, w0, in.idx)
			}

			outB, out := guarded(K, math.NaN())
			p = catch(func() { DotK(in.idx, in.val, W0, K, out) })
			if !panicsLike(p, refDotKP) {
				t.Fatalf("%s DotK: panic %v, generic %v", name, p, refDotKP)
			}
			checkGuards(t, name+" DotK", outB, math.NaN())
			if p == nil {
				for c := 0; c < K; c++ {
					if !identical(out[c], refOut[c]) {
						t.Fatalf("%s DotK out[%d] = %v, generic %v", name, c, out[c], refOut[c])
					}
				}
			}
			WB, W := guarded(len(W0), math.NaN())
			copy(W, W0)
			p = catch(func() { AxpyK(coef, in.idx, in.val, W, K) })
			if !panicsLike(p, refAxpyKP) {
				t.Fatalf("%s AxpyK: panic %v, generic %v", name, p, refAxpyKP)
			}
			checkGuards(t, name+" AxpyK", WB, math.NaN())
			if p == nil {
				var pos []int32
				for _, j := range in.idx {
					for c := 0; c < K; c++ {
						pos = append(pos, j*int32(K)+int32(c))
					}
				}
				checkAxpy(t, name+" AxpyK", W, refW, W0, pos)
			}

			var sq float64
			catch(func() { sq = SqNorm(in.val) })
			if want := sqNormGeneric(in.val); !identical(sq, want) {
				t.Fatalf("%s SqNorm = %v, generic %v", name, sq, want)
			}
		}
	})
}
