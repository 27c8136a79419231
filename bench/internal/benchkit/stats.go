package benchkit

import (
	"math"
	"sort"

	"github.com/acfcd/acfcd/internal/compsum"
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
type Sum = compsum.Sum
