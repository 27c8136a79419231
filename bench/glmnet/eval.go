package main

import (
	_ "embed"
	"math"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

//go:embed glmnet.R
var glmnetR string

//go:embed sklearnfit.py
var sklearnPy string

// evaluator computes every tool's objective the same way, from its
// weights, on the harness's own copy of the data.
type evaluator struct {
	d *acfcd.Dataset
	w []float64 // dense scratch, zero between calls
}

func newEvaluator(d *acfcd.Dataset) *evaluator {
	return &evaluator{d: d, w: make([]float64, d.Features)}
}

// objective is F = ½‖y − Xw − b‖² + λ(α‖w‖₁ + ½(1−α)‖w‖²) at p, with
// compensated sums.
func (e *evaluator) objective(p point, alpha float64) float64 {
	d := e.d
	var l1, l2 benchkit.Sum
	for k, j := range p.idx {
		e.w[j] = p.val[k]
		l1.Add(math.Abs(p.val[k]))
		l2.Add(float64(p.val[k] * p.val[k]))
	}
	var rr benchkit.Sum
	for i := 0; i < d.Rows; i++ {
		s := 0.0
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			v := 0.0
			if d.Value != nil {
				v = d.Value[k]
			} else {
				v = float64(d.Value32[k])
			}
			s += float64(e.w[d.Index[k]] * v)
		}
		r := d.Label[i] - p.b - s
		rr.Add(float64(r * r))
	}
	for _, j := range p.idx {
		e.w[j] = 0
	}
	pen := float64(alpha*l1.Value()) + float64(0.5*(1-alpha)*l2.Value())
	return 0.5*rr.Value() + float64(p.lambda*pen)
}
