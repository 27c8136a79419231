package benchkit

import (
	"math"
	"sort"
)

// Median of xs (NaN for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Sum is a Neumaier compensated sum, so that C·Σ loss over millions of
// rows keeps its digits for 1e-6 comparisons of objectives.
type Sum struct{ sum, comp float64 }

// Add adds x.
func (k *Sum) Add(x float64) {
	t := k.sum + x
	if math.Abs(k.sum) >= math.Abs(x) {
		k.comp += (k.sum - t) + x
	} else {
		k.comp += (x - t) + k.sum
	}
	k.sum = t
}

// Value is the sum so far.
func (k *Sum) Value() float64 { return k.sum + k.comp }
