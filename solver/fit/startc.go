package fit

import (
	"math"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/kernel"
)

// StartRule is how liblinear's calc_start_C finds the first C of a
// parameter search (-C) for a problem: below it the direction of w does
// not change with C.
type StartRule uint8

const (
	StartNone         StartRule = iota // not searched (C₀ = 1)
	StartHinge                         // C₀ = 1/(ℓ·max‖x_i‖²): logistic regression and the hinge losses
	StartSquaredHinge                  // C₀ = 1/(2ℓ·max‖x_i‖²)
	StartSVR                           // from the ε-insensitive loss (the SVRs)
)

// StartC returns liblinear's first C of a search by rule on d, 2^⌊log2 C₀⌋,
// with a bias feature of value bias if bias > 0 (liblinear's x holds it)
// and, for the SVRs, the loss's ε.
func StartC(d *dataio.Dataset, rule StartRule, bias, eps float64) float64 {
	var maxSq float64
	b2 := 0.0
	if bias > 0 {
		b2 = bias * bias
	}
	for i := 0; i < d.Rows; i++ {
		a, b := d.RowPtr[i], d.RowPtr[i+1]
		var s float64
		if d.Value != nil {
			s = kernel.SqNorm(d.Value[a:b:b])
		} else {
			for _, v := range d.Value32[a:b] {
				s += float64(float64(v) * float64(v))
			}
		}
		maxSq = max(maxSq, s+b2)
	}
	l := float64(d.Rows)
	c0 := 1.0
	switch rule {
	case StartHinge:
		c0 = 1 / (l * maxSq)
	case StartSquaredHinge:
		c0 = 1 / (2 * l * maxSq)
	case StartSVR:
		// liblinear's bound for the squared ε-insensitive loss, δ = 0.1.
		var sumY, loss float64
		for _, y := range d.Label {
			sumY += math.Abs(y)
			if h := math.Abs(y) - eps; h > 0 {
				loss += float64(h * h)
			}
		}
		c0 = math.Inf(1)
		if loss > 0 {
			c0 = 0.1 * 0.1 * loss / (8 * sumY * sumY * maxSq)
		}
	}
	return Pow2Floor(c0)
}

// Pow2Floor returns 2^⌊log2 x⌋ for x > 0 (liblinear's
// pow(2, floor(log(x)/log(2))), here exact: from x's binary exponent), and
// +Inf when there is no data to measure: the search starts at its largest C.
func Pow2Floor(x float64) float64 {
	if math.IsInf(x, 1) || math.IsNaN(x) || x <= 0 {
		return math.Inf(1)
	}
	_, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	return math.Ldexp(1, exp-1)
}
