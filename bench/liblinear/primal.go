package main

import (
	"fmt"
	"github.com/acfcd/acfcd"
	"math"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
)

// primalEval is the harness's own evaluation of a model on its training
// data, independent of the tool that trained it: only the model file's w
// (bias row included) and the data are used.
type primalEval struct {
	// Primal is Σ_c [½‖w_c‖² + C Σ_i loss(y_ic · w_c·x̃_i)] over the
	// one-vs-rest weight vectors c (one for a binary problem), with x̃ = x
	// plus the bias feature when the model has a bias, so the bias weight
	// is regularised as liblinear does. Loss: squared hinge (-s 1), hinge
	// (-s 3), logistic (-s 7).
	Primal float64
	// GradInf is ‖∇P(w)‖∞, the largest primal gradient entry, for the
	// differentiable losses (-s 1 and 7); NaN for the hinge loss (-s 3).
	// ∇P(w) = w − Σ α_i(w) y_i x̃_i with α_i(w) = 2C·max(0, 1 − y_i w·x̃_i)
	// (squared hinge) or C·σ(−y_i w·x̃_i) (logistic): the dual point that w
	// implies, so this is a KKT residual that needs no α from the solver.
	GradInf float64
}

// evalPrimal computes primalEval for model m on data d with cost C.
func evalPrimal(m *acfcd.Model, d *acfcd.Dataset, s int, C float64) (primalEval, error) {
	nrw := m.NrW
	if nrw < 1 || len(m.W)%nrw != 0 {
		return primalEval{}, fmt.Errorf("malformed model: %d weights, %d vectors", len(m.W), nrw)
	}
	wlen := len(m.W) / nrw
	if len(m.Labels) > 2 && nrw != len(m.Labels) || len(m.Labels) <= 2 && nrw != 1 {
		return primalEval{}, fmt.Errorf("model with %d labels and %d weight vectors is not one-vs-rest", len(m.Labels), nrw)
	}
	var reg benchkit.Sum
	for _, v := range m.W {
		reg.Add(0.5 * v * v)
	}
	smooth := s != 3
	// g[c*wlen+j] accumulates −Σ α_i y_i x̃_ij for class c.
	var g []float64
	if smooth {
		g = make([]float64, nrw*wlen)
	}
	dec := make([]float64, nrw)
	loss := make([]benchkit.Sum, nrw)
	for i := 0; i < d.Rows; i++ {
		idx, val := d.Row(i)
		m.Decision(idx, val, dec)
		for c := 0; c < nrw; c++ {
			y := -1.0
			switch {
			case len(m.Labels) == 1:
				y = 1
			case d.Label[i] == m.Labels[c]:
				y = 1
			}
			z := y * dec[c]
			var l, a float64 // loss and the implied α_i
			switch s {
			case 1:
				h := max(0, 1-z)
				l, a = h*h, 2*C*h
			case 3:
				l = max(0, 1-z)
			case 7:
				l, a = benchkit.Logistic(z), C/(1+math.Exp(z))
			}
			loss[c].Add(C * l)
			if smooth && a != 0 {
				gc := g[c*wlen : (c+1)*wlen]
				ay := a * y
				for k, j := range idx {
					if int(j) < m.NumFeature {
						gc[j] -= ay * val[k]
					}
				}
				if m.Bias >= 0 {
					gc[m.NumFeature] -= ay * m.Bias
				}
			}
		}
	}
	var total benchkit.Sum
	total.Add(reg.Value())
	for c := range loss {
		total.Add(loss[c].Value())
	}
	ev := primalEval{Primal: total.Value(), GradInf: math.NaN()}
	if smooth {
		ev.GradInf = 0
		for c := 0; c < nrw; c++ {
			for j := 0; j < wlen; j++ {
				ev.GradInf = max(ev.GradInf, math.Abs(g[c*wlen+j]+m.W[j*nrw+c]))
			}
		}
	}
	return ev, nil
}
