package synth

// The random variates, drawn with fmath's Exp and Log so that a seed gives
// the same data on every architecture: math/rand/v2's NormFloat64 and Zipf
// call package math's Exp, Log and Pow, which do not.

import (
	"math"
	"math/rand/v2"

	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/mix"
)

// hash3 hashes its arguments into 64 well-mixed bits: two splitmix64
// steps, keyed by b and then by c.
func hash3(a, b, c uint64) uint64 {
	return mix.Splitmix64(mix.Splitmix64(a^mix.Gamma^b) ^ c)
}

// signedUnit turns 64 random bits into a uniform float64 in [−1, 1), a
// multiple of 2^−52.
func signedUnit(x uint64) float64 {
	return float64(float64(int64(x)>>11) * 0x1p-52)
}

// polar is Marsaglia's polar method: for (u, v) uniform in the square
// [−1, 1)², it returns a standard normal if (u, v) falls inside the unit
// disc (π/4 of the time), and false otherwise.
func polar(u, v float64) (float64, bool) {
	s := float64(u*u) + float64(v*v)
	if s >= 1 || s == 0 {
		return 0, false
	}
	return u * math.Sqrt(-2*fmath.Log(s)/s), true
}

// hashNormal turns 64 random bits into a standard normal: the polar
// method on the splitmix64 stream started at h.
func hashNormal(h uint64) float64 {
	for k := uint64(0); ; k += 2 {
		if z, ok := polar(signedUnit(mix.Seed(h, k)), signedUnit(mix.Seed(h, k+1))); ok {
			return z
		}
	}
}

// normal draws a standard normal from r (the polar method).
func normal(r *rand.Rand) float64 {
	for {
		if z, ok := polar(signedUnit(r.Uint64()), signedUnit(r.Uint64())); ok {
			return z
		}
	}
}

// zipf draws k in [0, imax] with P(k) ∝ (v+k)^−s, s > 1, v ≥ 1, as
// math/rand/v2's Zipf does: by rejection-inversion (Hörmann and
// Derflinger, "Rejection-inversion to generate variates from monotone
// discrete distributions", 1996). With h(x) = (v+x)^−s and H its
// antiderivative, u uniform on [H(½) − h(0), H(imax+½)] gives x = H⁻¹(u)
// and k = round(x), accepted when u ≥ H(k+½) − h(k): each k's share of
// the interval, H(k+½) − H(k−½) ≥ h(k) as h is convex, is cut down to h(k).
type zipf struct {
	r          *rand.Rand
	imax       float64
	v, s       float64
	hLo, hSpan float64 // u = hLo + U·hSpan
	squeeze    float64 // k − x ≤ squeeze accepts without evaluating H and h
}

func newZipf(r *rand.Rand, s, v float64, imax uint64) *zipf {
	z := &zipf{r: r, imax: float64(imax), v: v, s: s}
	z.hLo = z.H(0.5) - z.h(0)
	z.hSpan = z.H(z.imax+0.5) - z.hLo
	// The smallest k − H⁻¹(H(k+½) − h(k)) over k ≥ 1 is at k = 1 (k = 0
	// is always accepted).
	z.squeeze = 1 - z.Hinv(z.H(1.5)-z.h(1))
	return z
}

// h is (v+x)^−s, H its antiderivative (v+x)^(1−s)/(1−s) and Hinv H's
// inverse.
func (z *zipf) h(x float64) float64 { return fmath.Exp(-z.s * fmath.Log(z.v+x)) }
func (z *zipf) H(x float64) float64 { return fmath.Exp((1-z.s)*fmath.Log(z.v+x)) / (1 - z.s) }
func (z *zipf) Hinv(y float64) float64 {
	return fmath.Exp(fmath.Log((1-z.s)*y)/(1-z.s)) - z.v
}

// Uint64 draws the next k.
func (z *zipf) Uint64() uint64 {
	for {
		u := z.hLo + float64(z.r.Float64()*z.hSpan)
		x := z.Hinv(u)
		k := math.Min(math.Max(math.Floor(x+0.5), 0), z.imax)
		if k-x <= z.squeeze || u >= z.H(k+0.5)-z.h(k) {
			return uint64(k)
		}
	}
}
