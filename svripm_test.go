package acfcd

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// TestSVRDualUnscaled: -s 13 on few features of scales 1 to 10⁶, where
// the plain dual crawls for its 1000 epochs, converges by liblinear's rule
// after the interior-point method, at a primal objective, recomputed from
// the model, within 10⁻⁷ of the optimum (15478.1834, where the primal and
// the dual recomputed independently meet: solver/dual's TestSVRIPM); its
// duality gap is as small.
func TestSVRDualUnscaled(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0x13))
	const rows, feats = 2000, 7
	d := &dataio.Dataset{Rows: rows, Features: feats, RowPtr: make([]int64, 1, rows+1), Value: []float64{}}
	for range rows {
		y := 50 + 5*r.NormFloat64()
		scale := 1.0
		for j := range feats {
			v := math.Round(scale*(1+9*r.Float64())*100) / 100
			d.Index = append(d.Index, int32(j))
			d.Value = append(d.Value, v)
			y += 3 * v / scale
			scale *= 10
		}
		d.Label = append(d.Label, math.Round(y*100)/100)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
	}
	const optimum = 15478.1834
	for seed := uint64(1); seed <= 3; seed++ {
		p := Params{Problem: SVRDual, C: 1, P: 0.1, Bias: -1, Seed: seed}
		m, res, err := Train(context.Background(), d, p)
		if err != nil {
			t.Fatal(err)
		}
		primal := svrPrimal(d, m, p)
		t.Logf("seed %d: converged %v, %d epochs, %d interior-point iterations, primal %.10g (recomputed %.10g), dual %.10g, gap %.3g",
			seed, res.Converged, res.Epochs, res.NewtonSteps, res.Primal, primal, res.Objective, res.Gap)
		if !res.Converged || res.HitEpochCap || res.NewtonSteps == 0 {
			t.Errorf("seed %d: converged %v, epoch cap %v, %d interior-point iterations", seed, res.Converged, res.HitEpochCap, res.NewtonSteps)
		}
		if primal > optimum*(1+1e-7) || math.Abs(primal-res.Primal) > 1e-9*primal || math.Abs(res.Gap) > 1e-7*primal {
			t.Errorf("seed %d: primal %.10g (reported %.10g, optimum %.10g), gap %g", seed, primal, res.Primal, optimum, res.Gap)
		}
	}
}
