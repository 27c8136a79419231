package dual

import (
	"context"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestSVRDualUnscaled: -s 13 on few features of scales 1 to 10⁶, where
// the plain dual crawls for its 1000 epochs, converges by liblinear's rule
// after the interior-point method, at a primal objective, recomputed from
// the model, within 10⁻⁷ of the optimum (15478.1834, where the primal and
// the dual recomputed independently meet: solver/finish's TestSVRIPM); its
// duality gap is as small.
func TestSVRDualUnscaled(t *testing.T) {
	d := synth.Unscaled(1, 2000, 7)
	const optimum = 15478.1834
	for seed := uint64(1); seed <= 3; seed++ {
		s := Spec{Spec: fit.Spec{C: 1, Bias: -1, Seed: seed}, Kind: L1LossSVR, P: 0.1}
		m, res, err := train(context.Background(), d, s)
		if err != nil {
			t.Fatal(err)
		}
		primal := svrPrimal(d, m, s)
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
