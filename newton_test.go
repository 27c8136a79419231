package acfcd

import (
	"fmt"
	"math"
	"testing"
)

// TestNewtonFallback: on a low-dimensional problem at large C the primal
// Newton fallback takes over, and the answer is still certified by the
// dual: an independent recomputation finds w = Σ α_i y_i x_i, the largest
// KKT violation ≤ eps, and the same dual objective as a pure dual run.
func TestNewtonFallback(t *testing.T) {
	d := lowDim()
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		for _, sel := range dualSelections {
			t.Run(fmt.Sprintf("s=%s/%s", s.Flag(), sel), func(t *testing.T) {
				const eps = 1e-3
				p := Params{Problem: s, C: 1000, Eps: eps, Bias: 1, Weights: map[float64]float64{-1: 2}, Select: sel, Seed: 5}
				m, res, duals := mustTrain(t, d, p)
				if !res.Converged || m.Partial {
					t.Fatalf("not converged: %+v", res)
				}
				if res.NewtonSteps == 0 {
					t.Fatalf("the fallback did not run: %+v", res)
				}
				ind := evalIndependent(d, m, 0, duals[0], s)
				if ind.wDiff > 1e-10 {
					t.Errorf("w differs from Σ α y x by %g", ind.wDiff)
				}
				if ind.violation > eps*(1+1e-9) {
					t.Errorf("independent max violation %g > eps %g", ind.violation, eps)
				}
				if relDiff(ind.dual, res.Objective) > 1e-9 || relDiff(ind.primal, res.Primal) > 1e-9 {
					t.Errorf("reported dual %v primal %v, independent %v %v", res.Objective, res.Primal, ind.dual, ind.primal)
				}
				// The duality gap, from the independent primal and dual,
				// certifies the optimum itself (a pure dual run at this C
				// takes minutes: the reason for the fallback).
				if gap := (ind.primal + ind.dual) / math.Abs(ind.primal); gap < -1e-12 || gap > 1e-6 {
					t.Errorf("relative duality gap %.3g (primal %.12g, dual %.12g)", gap, ind.primal, ind.dual)
				}
				t.Logf("%d epochs + %d Newton steps, %d ops, violation %.2g", res.Epochs, res.NewtonSteps, res.Operations, ind.violation)
			})
		}
	}
}

// TestNewtonOff: no fallback when turned off (the hinge loss's finisher:
// TestHingeOff; large d: TestTronOff, and solver/finish's TestEstimate).
func TestNewtonOff(t *testing.T) {
	d := lowDim()
	for _, s := range []Problem{SquaredHingeDual, LogisticDual} {
		p := Params{Problem: s, C: 1000, Eps: 1e-3, Bias: 1, Select: ACFShrink, MaxEpochs: 50, NoFallback: true}
		if _, res, _ := mustTrain(t, d, p); res.NewtonSteps != 0 {
			t.Errorf("%+v: %d Newton steps", p, res.NewtonSteps)
		}
	}
}

// TestNewtonDeterministic: same seed, bit-identical model, fallback included.
func TestNewtonDeterministic(t *testing.T) {
	d := lowDim()
	p := Params{Problem: LogisticDual, C: 100, Eps: 1e-3, Bias: 1, Seed: 9}
	m1, r1, _ := mustTrain(t, d, p)
	m2, _, _ := mustTrain(t, d, p)
	if r1.NewtonSteps == 0 {
		t.Fatal("fallback did not run")
	}
	if !sameBits(m1.W, m2.W) {
		t.Fatalf("w %v, then %v", m1.W, m2.W)
	}
}
