package dcd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

var (
	losses    = []Loss{L2SVM, L1SVM, Logistic}
	noShrink  = solver.Thresholds{Max: math.Inf(1), Min: math.Inf(-1)}
	lossNames = [...]string{L2SVM: "s=1", L1SVM: "s=3", Logistic: "s=7"}
)

// binaryData draws a binary problem with labels ±1: rows of random sparse
// features (each present with probability density, values in (−1, 1);
// the first empty rows have none) labelled by the sign of a random linear
// score, a fraction noise of them flipped.
func binaryData(seed uint64, rows, feats int, density, noise float64, empty int) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 0x64))
	return synth.Linear(r, rows, feats, noise, func(i, _ int) (float64, bool) {
		if i < empty {
			return 0, false
		}
		v := 2*r.Float64() - 1
		return v, r.Float64() < density && v != 0
	})
}

// newProblem returns a subproblem of d (bias 1, eps) with class +1 at cost
// cp and −1 at cn, at liblinear's starting point, and its objective there.
func newProblem(t testing.TB, d *dataio.Dataset, loss Loss, eps, cp, cn float64, tune *Tuning) (*Problem, float64) {
	t.Helper()
	sh := NewData(d, 1, tune)
	drv := solver.DefaultTuning()
	p := New(sh, loss, eps, nil, nil, &drv, tune)
	return p, p.Reset(1, cp, cn)
}

func TestBregLog(t *testing.T) {
	for _, x := range []float64{-0.9, -0.3, -0.05, -0.0499, -1e-3, -1e-8, 0, 1e-12, 1e-4, 0.02, 0.0499, 0.05, 0.5, 3, 1e6} {
		got := bregLog(x)
		// reference in higher precision: direct formula with log1p is accurate for |x| ≥ 0.05;
		// for small |x| compare with the series to many terms.
		var want float64
		if math.Abs(x) >= 0.05 {
			want = (1+x)*math.Log1p(x) - x
		} else {
			p := -x
			for k := 2; k < 40; k++ {
				p *= -x // (−x)^k = (−1)^k x^k
				want += p / float64(k*(k-1))
			}
		}
		if math.Abs(got-want) > 1e-14*math.Abs(want)+1e-300 {
			t.Errorf("bregLog(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	// x = −1: a step that takes one side of the logistic pair to 0. The
	// limit is 1; the direct formula gives 0·(−∞) = NaN, which made the
	// tracked objective (and so the ACF gains and progress lines) NaN at
	// large C.
	if got := bregLog(-1); got != 1 {
		t.Errorf("bregLog(-1) = %v, want 1", got)
	}
}

// TestGainsExact: the gain each step reports is the exact decrease of the
// dual objective (recomputed from scratch before and after the step).
func TestGainsExact(t *testing.T) {
	d := binaryData(13, 120, 15, 0.3, 0.2, 2)
	tune := DefaultTuning()
	for _, loss := range losses {
		for _, c := range []float64{0.01, 1, 1000} {
			p, _ := newProblem(t, d, loss, 1e-3, c, 2*c, &tune)
			r := rand.New(rand.NewPCG(3, 4))
			worst := 0.0
			for k := 0; k < 3000; k++ {
				i := int32(r.IntN(d.Rows))
				before := p.Objective()
				_, gain, shrink := p.Step(i, -1, noShrink)
				after := p.Objective()
				if shrink {
					t.Fatalf("%s C=%g: step %d shrank without thresholds", lossNames[loss], c, k)
				}
				// rounding of the from-scratch objective is ~1e-15·Σ|terms|
				scale := 1e-12 * (1 + math.Abs(before) + float64(d.Rows)*c*(1+math.Abs(math.Log(c))))
				if e := math.Abs((before - after) - gain); e > scale {
					t.Fatalf("%s C=%g step %d (i=%d): gain %.17g, objective change %.17g", lossNames[loss], c, k, i, gain, before-after)
				} else {
					worst = max(worst, e/scale)
				}
				if gain < -1e-12*scale {
					t.Fatalf("%s C=%g: negative gain %g", lossNames[loss], c, gain)
				}
			}
			t.Logf("%s C=%g: worst error %.3g of tolerance", lossNames[loss], c, worst)
		}
	}
}

// TestLRDeltaStable: for tiny moves, where z log z − z0 log z0 cancels
// almost completely, lrDelta still matches the Taylor expansion
// Δf = d·g' + ½a d² + ½d(r + s) + d(s² − r²)/6, r = d/z0, s = d/u0, to
// full relative accuracy (the next term is O(r²) smaller).
func TestLRDeltaStable(t *testing.T) {
	for _, c := range []struct{ z0, u0, a, gp0 float64 }{
		{1e-9, 1 - 1e-9, 0.7, 0.3}, {0.25, 0.75, 2, -1e-3}, {3e-300, 1000, 1, 5}, {0.5, 0.5, 0, 0},
	} {
		for _, rd := range []float64{-1e-7, -1e-9, 1e-12, 1e-7, 3e-8} {
			d := rd * c.z0
			got := lrDelta(d, c.z0, c.u0, c.a, c.gp0)
			r, q := d/c.z0, d/c.u0
			want := d*c.gp0 + 0.5*c.a*d*d + 0.5*d*(r+q) + d*(q*q-r*r)/6
			if math.Abs(got-want) > 1e-12*(math.Abs(d*c.gp0)+0.5*c.a*d*d+0.5*d*(r+q)) {
				t.Errorf("lrDelta(d=%g, z0=%g, u0=%g) = %.17g, want %.17g", d, c.z0, c.u0, got, want)
			}
		}
	}
}
