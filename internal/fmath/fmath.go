// Package fmath holds elementary functions that give the same bits on every
// architecture and CPU, so that a seed gives the same model everywhere.
//
// Package math does not: its Exp and Log are assembly on amd64 and arm64
// (amd64's Exp even takes another path when the CPU has FMA), and its
// pure-Go code is compiled with fused multiply-adds on arm64. Here
// everything is pure Go and every product that feeds a sum is rounded
// explicitly, float64(x*y) + z, which the Go specification forbids the
// compiler to fuse.
//
// The algorithms are the classic ones: argument reduction by a power of
// two (exp: x = k·ln2 + r, |r| ≤ ln2/2, with ln2 split in two so that
// k·ln2Hi is exact; log: x = 2^k·m, √2/2 ≤ m < √2) and a polynomial on
// the reduced range (exp: e^r = 1 + r + r²·P(r); log: with f = m−1 and
// s = f/(2+f), log(1+f) = 2·atanh(s) = f − f²/2 + s·(f²/2 + s²·Q(s²))).
// The coefficients of P and Q are Chebyshev fits (mpmath's chebyfit at 60
// digits), degree 10 on |r| ≤ 0.3466 and degree 7 on s² ≤ 0.02945,
// with errors below 2e-18, far under the final rounding.
//
// Errors are below one ulp: a result is one of the two float64 neighbours
// of the exact value, so it is at most one ulp from package math's. The
// special values are package math's. Functions that package math computes
// exactly (Sqrt, Abs, Floor, Ldexp, Frexp, FMA, ...) give the same bits
// everywhere already and have no twin here.
package fmath

import "math"

const (
	// ln2 = ln2Hi + ln2Lo, ln2Hi with its 21 lowest bits zero, so that
	// k·ln2Hi is exact for |k| < 2^21.
	ln2Hi = 6.93147180369123816490e-01 // 0x3fe62e42fee00000
	ln2Lo = 1.9082149292705877e-10
	log2e = 1.4426950408889634 // 1/ln2
	// shifter rounds a float64 of magnitude below 2^51 to an integer
	// (to even on ties) when added to it.
	shifter = 0x1.8p52

	expOverflow  = 7.09782712893383973096e+02  // above: +Inf
	expUnderflow = -7.45133219101941108420e+02 // below: 0

	sqrt2Mant = 0x6a09e667f3bcd // mantissa bits of √2
	mantMask  = 1<<52 - 1
)

// P(r) ≈ (e^r − 1 − r)/r² on |r| ≤ 0.3466.
const (
	e0  = 0.5
	e1  = 0.1666666666666667
	e2  = 0.04166666666666667
	e3  = 0.008333333333326136
	e4  = 0.001388888888888375
	e5  = 0.00019841269874815834
	e6  = 2.480158732554432e-05
	e7  = 2.7557255406285044e-06
	e8  = 2.7557273647451087e-07
	e9  = 2.5105214474751413e-08
	e10 = 2.0914685161418067e-09
)

// Q(z) ≈ (2·atanh(s) − 2s)/s³ with z = s², on 0 ≤ z ≤ 0.02945.
const (
	q0 = 0.6666666666666666
	q1 = 0.4000000000000088
	q2 = 0.2857142857080323
	q3 = 0.2222222239180047
	q4 = 0.18181795630884753
	q5 = 0.15386240205813478
	q6 = 0.13268759668560612
	q7 = 0.13086767009948175
)

// Exp returns e^x. Exp(+Inf) = +Inf, Exp(NaN) = NaN, Exp(x) = 0 for x
// below about −745.13 and +Inf above about 709.78.
func Exp(x float64) float64 {
	switch {
	case x != x || x > expOverflow:
		return x + math.Inf(1) // NaN stays NaN
	case x < expUnderflow:
		return 0
	}
	t := float64(x*log2e) + shifter
	kf := t - shifter
	k := int(kf)
	hi := x - float64(kf*ln2Hi) // exact
	lo := float64(kf * ln2Lo)
	r := hi - lo
	d := (hi - r) - lo // what r lost to rounding
	r2 := float64(r * r)
	r4 := float64(r2 * r2)
	r8 := float64(r4 * r4)
	// Estrin's scheme: independent products, a short dependency chain.
	p := e0 + float64(e1*r) + float64((e2+float64(e3*r))*r2) +
		float64((e4+float64(e5*r)+float64((e6+float64(e7*r))*r2))*r4) +
		float64((e8+float64(e9*r)+float64(e10*r2))*r8)
	// 1 + r exactly as s + e, so that r's rounding does not count twice.
	s := 1 + r
	e := (1 - s) + r
	y := s + (e + (d + float64(r2*p)))
	switch {
	case -1021 <= k && k <= 1023:
		return y * math.Float64frombits(uint64(1023+k)<<52)
	case k == 1024:
		return y * 2 * 0x1p1023
	}
	return math.Ldexp(y, k) // subnormal: one rounding
}

// Log returns the natural logarithm of x. Log(+Inf) = +Inf, Log(0) =
// −Inf, Log(x < 0) = NaN, Log(NaN) = NaN.
func Log(x float64) float64 {
	switch {
	case x != x || x > math.MaxFloat64:
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f, k := reduce(x)
	hi, lo := logParts(f, k, 0)
	return hi + lo
}

// reduce returns f and k with x = 2^k·(1+f), √2/2 ≤ 1+f < √2, for a
// finite x > 0.
func reduce(x float64) (f float64, k int) {
	b := math.Float64bits(x)
	k = int(b>>52) - 1023
	if b>>52 == 0 { // subnormal
		b = math.Float64bits(x * 0x1p54)
		k = int(b>>52) - 1023 - 54
	}
	m := b & mantMask
	if m > sqrt2Mant {
		m |= 1022 << 52 // in [√2/2, 1)
		k++
	} else {
		m |= 1023 << 52 // in [1, √2)
	}
	return math.Float64frombits(m) - 1, k
}

// Log1p returns log(1+x), accurate also when x is near zero. Log1p(−1)
// = −Inf, Log1p(x < −1) = NaN, Log1p(±0) = ±0, Log1p(+Inf) = +Inf.
func Log1p(x float64) float64 {
	switch {
	case x != x || x > math.MaxFloat64 || x == 0:
		return x
	case x < -1:
		return math.NaN()
	case x == -1:
		return math.Inf(-1)
	}
	if -0.2928932188134524 <= x && x < 0.41421356237309503 {
		hi, lo := logParts(x, 0, 0) // 1+x in [√2/2, √2): f = x exactly
		return hi + lo
	}
	u := 1 + x
	// c is what u lost to rounding, exactly (the larger term first).
	var c float64
	if x > 1 {
		c = 1 - (u - x)
	} else {
		c = x - (u - 1)
	}
	f, k := reduce(u)
	// log(u + c) = log(u) + log(1 + c/u), and c/u is below 2^-52.
	hi, lo := logParts(f, k, c/u)
	return hi + lo
}

// logParts returns hi + lo = k·ln2 + log(1+f) + c, for √2/2−1 ≤ f <
// √2−1 and a small correction c, with lo much smaller than hi.
func logParts(f float64, k int, c float64) (hi, lo float64) {
	s := f / (2 + f)
	z := float64(s * s)
	z2 := float64(z * z)
	z4 := float64(z2 * z2)
	q := q0 + float64(q1*z) + float64((q2+float64(q3*z))*z2) +
		float64((q4+float64(q5*z)+float64((q6+float64(q7*z))*z2))*z4)
	hfsq := float64(0.5 * f * f)
	kf := float64(k)
	// log(1+f) = f − (hfsq − s·(hfsq + R)), R = z·Q: the small terms
	// first; then k·ln2Hi (exact) + f as a sum and its rounding error.
	t := float64(s*(hfsq+float64(z*q))) + (float64(kf*ln2Lo) + c)
	a := float64(kf * ln2Hi)
	hi = a + f
	var e float64
	if math.Abs(a) >= math.Abs(f) {
		e = f - (hi - a)
	} else {
		e = a - (hi - f)
	}
	return hi, e - (hfsq - t)
}

// 1/ln10 = invLn10Hi + invLn10Lo, invLn10Hi with 26 significant bits.
const (
	invLn10Hi = 0.4342944771051407 // 0x3fdbcb7b10000000
	invLn10Lo = 4.798111141615973e-09
)

// Log10 returns the decimal logarithm of x; the special cases are Log's.
// It is exact at powers of ten (math.Log10(1000) < 3).
func Log10(x float64) float64 {
	if x != x || x <= 0 || x > math.MaxFloat64 {
		return Log(x)
	}
	f, k := reduce(x)
	hi, lo := logParts(f, k, 0)
	// (hi + lo)/ln10 with hi's upper half times invLn10Hi exact.
	hh := math.Float64frombits(math.Float64bits(hi) &^ (1<<27 - 1))
	small := float64((hi-hh)*invLn10Hi) + float64(hi*invLn10Lo) + float64(lo*(1/math.Ln10))
	return float64(hh*invLn10Hi) + small
}
