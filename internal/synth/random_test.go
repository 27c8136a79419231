package synth

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestZipf compares zipf's frequencies with P(k) ∝ (v+k)^−s, and its
// squeeze with the acceptance bound it stands for.
func TestZipf(t *testing.T) {
	const draws = 200_000
	for _, c := range []struct {
		s, v float64
		imax uint64
	}{{1.1, 4, 999}, {1.05, 8, 29_890_078}, {1.2, 8, 3_231_896}, {2.5, 1, 50}} {
		z := newZipf(rand.New(rand.NewPCG(1, 2)), c.s, c.v, c.imax)
		for k := 1.0; k < 1000; k++ {
			if g := k - z.Hinv(z.H(k+0.5)-z.h(k)); g < z.squeeze {
				t.Errorf("s=%g v=%g: k − H⁻¹(H(k+½) − h(k)) = %g < squeeze %g at k = %g", c.s, c.v, g, z.squeeze, k)
			}
		}
		// Exact probabilities of k < 20; the rest of the mass by the
		// integral of h (error far below the statistical one).
		var head [20]float64
		var norm float64
		for k := range head {
			head[k] = math.Pow(c.v+float64(k), -c.s)
			norm += head[k]
		}
		if c.imax >= 20 {
			norm += (z.H(float64(c.imax)+0.5) - z.H(19.5))
		}
		var count [20]int
		for range draws {
			k := z.Uint64()
			if k > c.imax {
				t.Fatalf("s=%g: %d > imax %d", c.s, k, c.imax)
			}
			if k < 20 {
				count[k]++
			}
		}
		for k, n := range count {
			p := head[k] / norm
			if sd := math.Sqrt(draws * p * (1 - p)); math.Abs(float64(n)-draws*p) > 5*sd+1 {
				t.Errorf("s=%g v=%g: k = %d drawn %d times, expected %.0f ± %.0f", c.s, c.v, k, n, draws*p, sd)
			}
		}
	}
}

// TestNormal checks normal's and hashNormal's mean, variance and tails.
func TestNormal(t *testing.T) {
	const n = 400_000
	r := rand.New(rand.NewPCG(3, 4))
	for name, draw := range map[string]func(i int) float64{
		"normal":     func(int) float64 { return normal(r) },
		"hashNormal": func(i int) float64 { return hashNormal(hash3(5, 6, uint64(i))) },
	} {
		var s, ss float64
		var over2, over3 int
		for i := range n {
			x := draw(i)
			s += x
			ss += x * x
			if math.Abs(x) > 2 {
				over2++
			}
			if math.Abs(x) > 3 {
				over3++
			}
		}
		mean, variance := s/n, ss/n-(s/n)*(s/n)
		if math.Abs(mean) > 5/math.Sqrt(n) || math.Abs(variance-1) > 5*math.Sqrt(2.0/n) {
			t.Errorf("%s: mean %g, variance %g", name, mean, variance)
		}
		// P(|x| > 2) = 0.0455, P(|x| > 3) = 0.0027.
		for _, c := range []struct {
			got int
			p   float64
		}{{over2, 0.04550026}, {over3, 0.00269980}} {
			if sd := math.Sqrt(n * c.p * (1 - c.p)); math.Abs(float64(c.got)-n*c.p) > 5*sd {
				t.Errorf("%s: %d beyond, expected %.0f ± %.0f", name, c.got, n*c.p, sd)
			}
		}
	}
}
