package dual

import (
	"context"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/fit"
)

// findCData is a small noisy binary problem whose CV accuracy varies
// with C.
func findCData() *dataio.Dataset {
	return synth.Classes(synth.ClassesConfig{Seed: 7, Rows: 150, Feats: 12, Density: 0.5, Labels: []float64{1, -1}, Noise: 0.15})
}

// TestWarmStartRay: the warm start is the minimiser of the dual along the
// ray tα (checked against the objective at nearby t) and feasible for the
// new C.
func TestWarmStartRay(t *testing.T) {
	d := findCData()
	for _, k := range classifierKinds {
		for _, c := range []float64{1.0 / 64, 1, 64} {
			ws := NewWarm(false)
			s := resolved(Spec{Spec: fit.Spec{C: c, Warm: ws}, Kind: k})
			cl, _, err := newClassifiers(context.Background(), d, &s)
			if err != nil {
				t.Fatal(err)
			}
			dp, fin := cl.worker(nil, nil)
			cl.solve(0, dp, fin) // keeps its solution in ws
			old := ws.sub(0)
			alpha := append([]float64(nil), old.alpha...)

			dp.Reset(cl.labels[0], 2*c, 2*c)
			obj := ws.start(0, dp, 0)
			i0 := 0
			for alpha[i0] == 0 {
				i0++
			}
			t0 := dp.Alpha[i0] / alpha[i0]
			for i, a := range dp.Alpha {
				ub := dp.UB[(dp.Y[i]+1)>>1]
				if a < 0 || a > ub || k == LR && !(a > 0 && a < ub) {
					t.Fatalf("-s %s C %g: α_%d = %g outside the box of C = %g", flag(k), c, i, a, ub)
				}
			}
			// The objective at t·(1 ± 1e-3) along the ray is not lower.
			for _, f := range []float64{1 - 1e-3, 1 + 1e-3} {
				tt := t0 * f
				if k == L1LossSVC && tt*maxOf(alpha) > 2*c {
					continue // outside the box
				}
				for i, a := range alpha {
					dp.Alpha[i] = tt * a
					if dp.AlphaC != nil {
						dp.AlphaC[i] = 2*c - tt*a
					}
				}
				for j, v := range old.w {
					dp.W[j] = tt * v
				}
				if o := dp.Objective(); o < obj-1e-12*math.Abs(obj) {
					t.Errorf("-s %s C %g: objective %.12g at t = %g, lower than %.12g at the warm start t = %g", flag(k), c, o, tt, obj, t0)
				}
			}
		}
	}
}

func maxOf(x []float64) float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = max(m, v)
	}
	return m
}
