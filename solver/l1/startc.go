package l1

import (
	"fmt"
	"math"

	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/fit"
)

// StartC returns liblinear's first C of a parameter search (-C) for
// -s 5 (1/(2‖Xᵀy‖∞)) or, logistic, -s 6 (2/‖Xᵀy‖∞): the largest C whose
// model is w = 0, the smallest over the one-vs-rest subproblems, as
// 2^⌊log2 C⌋; bias as for MaxCorrelation.
func StartC(d *dataio.Dataset, logistic bool, bias float64) (float64, error) {
	g, err := MaxCorrelation(d, bias)
	if err != nil {
		return 0, err
	}
	if logistic {
		return fit.Pow2Floor(2 / g), nil
	}
	return fit.Pow2Floor(1 / (2 * g)), nil
}

// MaxCorrelation returns max_k ‖Σ_i y_i^k x_i‖∞ over the one-vs-rest
// subproblems k (one for two classes: class 0 positive), with a bias
// feature of value bias if bias > 0 (give 0 for an unregularised one):
// the gradient of the L1-regularised losses at w = 0 is proportional to
// it, so liblinear's parameter search starts from it.
func MaxCorrelation(d *dataio.Dataset, bias float64) (float64, error) {
	labels, class, err := fit.Classes(d.Label)
	if err != nil {
		return 0, fmt.Errorf("%s: labels: %w", d.Source, err)
	}
	nsub := len(labels)
	if nsub == 2 {
		nsub = 1
	}
	nf := d.Features + 1
	s := make([]float64, len(labels)*nf) // per class Σ x_i
	for i := 0; i < d.Rows; i++ {
		row := s[int(class[i])*nf:][:nf]
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			v := 0.0
			if d.Value != nil {
				v = d.Value[k]
			} else {
				v = float64(d.Value32[k])
			}
			row[d.Index[k]] += v
		}
		if bias > 0 {
			row[nf-1] += bias
		}
	}
	g := 0.0
	for j := range nf {
		var total float64
		for c := range labels {
			total += s[c*nf+j]
		}
		for k := range nsub {
			g = max(g, math.Abs(float64(2*s[k*nf+j])-total)) // Σ_{y=k} x − Σ_{y≠k} x
		}
	}
	return g, nil
}
