package benchkit

import (
	"math"

	"github.com/acfcd/acfcd"
)

// Primal is the primal objective of model m on its training data d, from
// the model's weights alone (the bias weight regularised, as liblinear
// does by default), for liblinear's solver s:
//
//	-s 0, 7        Σ_c ½‖w_c‖² + C Σ_i log(1 + e^{−y_ic w_c·x_i})
//	-s 1, 2        Σ_c ½‖w_c‖² + C Σ_i max(0, 1 − y_ic w_c·x_i)²
//	-s 3           Σ_c ½‖w_c‖² + C Σ_i max(0, 1 − y_ic w_c·x_i)
//	-s 5, 6        the same losses as -s 2 and 0 with Σ_c ‖w_c‖₁
//	-s 4           ½Σ_m ‖w_m‖² + C Σ_i max_m (δ_{m≠y_i} + (w_m − w_{y_i})·x_i)
//	-s 11, 12      ½‖w‖² + C Σ_i max(0, |w·x_i − y_i| − p)²
//	-s 13          ½‖w‖² + C Σ_i max(0, |w·x_i − y_i| − p)
//	-s 21          ½‖w‖² − νlρ + Σ_i max(0, ρ − w·x_i)
//	ww (101)       ½Σ_m ‖w_m‖² + C Σ_i Σ_{m≠y_i} max(0, 1 − (w_{y_i} − w_m)·x_i)
//
// with one-vs-rest vectors c (y_ic = +1 for class c's label, −1 else; one
// vector with the first label positive for two classes).
func Primal(m *acfcd.Model, d *acfcd.Dataset, s int, C, p, nu float64) float64 {
	if p < 0 {
		p = 0
	}
	var reg, loss Sum
	for _, v := range m.W {
		if s == 5 || s == 6 {
			reg.Add(math.Abs(v))
		} else {
			reg.Add(0.5 * v * v)
		}
	}
	dec := make([]float64, max(1, m.NrW))
	for i := 0; i < d.Rows; i++ {
		idx, val := d.Row(i)
		m.Decision(idx, val, dec)
		y := d.Label[i]
		switch s {
		case 4:
			yc := -1
			for c, l := range m.Labels {
				if l == y {
					yc = c
				}
			}
			worst := 0.0
			for c := range dec {
				if c != yc && yc >= 0 {
					worst = max(worst, 1+dec[c]-dec[yc])
				}
			}
			loss.Add(C * worst)
		case 101:
			yc := -1
			for c, l := range m.Labels {
				if l == y {
					yc = c
				}
			}
			for c := range dec {
				if c != yc && yc >= 0 {
					loss.Add(C * max(0, 1-dec[yc]+dec[c]))
				}
			}
		case 11, 12, 13:
			e := max(0, math.Abs(dec[0]-y)-p)
			if s == 13 {
				loss.Add(C * e)
			} else {
				loss.Add(C * e * e)
			}
		case 21:
			loss.Add(max(0, -dec[0]))
		default:
			for c := range dec {
				yc := -1.0
				if len(m.Labels) == 1 || y == m.Labels[c] {
					yc = 1
				}
				z := yc * dec[c]
				switch s {
				case 0, 6, 7:
					loss.Add(C * Logistic(z))
				case 1, 2, 5:
					h := max(0, 1-z)
					loss.Add(C * h * h)
				case 3:
					loss.Add(C * max(0, 1-z))
				}
			}
		}
	}
	if s == 21 {
		loss.Add(-nu * float64(d.Rows) * m.Rho)
	}
	return reg.Value() + loss.Value()
}

// Logistic returns log(1 + exp(−z)) without overflow.
func Logistic(z float64) float64 {
	if z > 0 {
		return math.Log1p(math.Exp(-z))
	}
	return -z + math.Log1p(math.Exp(z))
}
