package finish

import (
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/primal"
)

// svrIndependent recomputes from the data, with plain loops and w summed
// exactly enough (compensated, per feature), the primal objective at the
// problem's w, the sum of the violations at (β, w) and
// the dual objective f(β) with w(β) = Σ β_i x_i.
func svrIndependent(d *dataio.Dataset, s *dcd.SVR) (primal, violSum, dualObj float64) {
	var ww float64
	for _, v := range s.W {
		ww += v * v
	}
	primal = ww / 2
	wb := make([]float64, s.NF+1)
	comp := make([]float64, s.NF+1)
	add := func(j int, x float64) { // Kahan–Babuška
		t := wb[j] + x
		if math.Abs(wb[j]) >= math.Abs(x) {
			comp[j] += (wb[j] - t) + x
		} else {
			comp[j] += (x - t) + wb[j]
		}
		wb[j] = t
	}
	for i := range d.Rows {
		wx := s.W[s.NF] * s.Bias
		b := s.Beta[i]
		for k := d.RowPtr[i]; k < d.RowPtr[i+1]; k++ {
			wx += s.W[d.Index[k]] * d.Value[k]
			add(int(d.Index[k]), b*d.Value[k])
		}
		add(s.NF, b*s.Bias)
		G := wx - d.Label[i] + s.Lambda*b
		switch {
		case b > 0 && b < s.U:
			violSum += math.Abs(G + s.P)
		case b < 0 && b > -s.U:
			violSum += math.Abs(G - s.P)
		case b == 0:
			violSum += max(0, -(G + s.P), G-s.P)
		case b >= s.U:
			violSum += max(0, G+s.P)
		default:
			violSum += max(0, -(G - s.P))
		}
		if e := math.Abs(wx-d.Label[i]) - s.P; e > 0 {
			if s.Lambda > 0 {
				primal += s.C * e * e // -s 12's squared loss
			} else {
				primal += s.C * e
			}
		}
	}
	var wbb float64
	for j := range wb {
		wbb += (wb[j] + comp[j]) * (wb[j] + comp[j])
	}
	dualObj = wbb / 2
	for i, b := range s.Beta {
		dualObj += s.P*math.Abs(b) - d.Label[i]*b + 0.5*s.Lambda*b*b
	}
	return primal, violSum, dualObj
}

// TestSVRIPM: on unscaled features (scales 1 to 10⁶) the plain dual of
// -s 13 stalls far from the optimum, while after the interior-point method
// the dual's own pass certifies, and, recomputed independently, the
// violations sum to at most Tol, and the primal at w and the dual at β
// (w(β) = Σ β_i x_i summed afresh) meet within 10⁻⁷ relative: weak duality
// makes the primal optimal to that. With and without the bias.
func TestSVRIPM(t *testing.T) {
	d := synth.Unscaled(1, 2000, 7)
	for _, bias := range []float64{-1, 1} {
		tune, dt, ft, pt := solver.DefaultTuning(), dcd.DefaultTuning(), DefaultTuning(), primal.DefaultTuning()
		noDefer := ft
		noDefer.SVRIPMMaxDefer = 0
		cfg := solver.Config{Selection: solver.ACFShrink, Seed: 1, MaxEpochs: 200, Repair: solver.RepairObserve, Tuning: &tune}
		plain := dcd.NewSVR(dcd.NewData(d, bias, &dt), false, 1, 0.1, 0.025, nil, nil, &tune)
		conv := solver.NewRun(plain, cfg).Solve(1)
		plainPrimal, _, _ := svrIndependent(d, plain)

		s := dcd.NewSVR(dcd.NewData(d, bias, &dt), false, 1, 0.1, 0.025, nil, nil, &tune)
		f := NewSVRIPM(s, &ft, &pt)
		if f.budget <= 0 {
			t.Fatal("no interior-point budget for -s 13 with 8 weights")
		}
		f.t = &noDefer // switch at the budget
		cfg.Finisher = f
		r := solver.NewRun(s, cfg)
		if r.Solve(1) || !r.Handover() {
			t.Fatalf("bias %g: the dual converged before the switch (epoch %d)", bias, r.Epochs())
		}
		f.Finish(r, 1)
		iters := f.Steps()
		ok := s.Pass(r, false)
		primal, viol, dualObj := svrIndependent(d, s)
		gap := primal + dualObj
		t.Logf("bias %g: plain dual converged %v, primal %.10g; %d interior-point iterations: pass %v, primal %.10g, violations %.3g (Tol %.3g), dual %.10g, gap %.3g",
			bias, conv, plainPrimal, iters, ok, primal, viol, s.Tol, dualObj, gap)
		if conv || plainPrimal < 1.5*primal {
			t.Errorf("bias %g: the plain dual did not stall: converged %v at primal %g (optimum %g)", bias, conv, plainPrimal, primal)
		}
		if iters == 0 || !ok || viol > s.Tol || math.Abs(gap) > 1e-7*primal {
			t.Errorf("bias %g: %d iterations, pass %v, violations %g of %g, gap %g at primal %g", bias, iters, ok, viol, s.Tol, gap, primal)
		}
		if math.Abs(r.Obj-s.Objective()) > 1e-12*primal || math.Abs(s.PassPrimal-primal) > 1e-9*primal {
			t.Errorf("bias %g: tracked objective %g, objective %g; pass primal %g, recomputed %g", bias, r.Obj, s.Objective(), s.PassPrimal, primal)
		}
	}
	// The squared loss (-s 12) has Newton instead.
	tune, dt, ft, pt := solver.DefaultTuning(), dcd.DefaultTuning(), DefaultTuning(), primal.DefaultTuning()
	if b := NewSVRIPM(dcd.NewSVR(dcd.NewData(d, -1, &dt), true, 1, 0.1, 0.1, nil, nil, &tune), &ft, &pt).budget; b != 0 {
		t.Fatalf("-s 12 interior-point budget %d", b)
	}
}

// TestSVRNewton: primal Newton from the dual's point at large C solves the
// primal (its gradient vanishes), its dual point β_i = −2C·sign(r_i)(|r_i|
// − p)₊ closes the duality gap with w = Σ β_i x_i, and it meets
// liblinear's primal rule; also with a feature a million times larger
// than the others, where the Hessian is factored equilibrated.
func TestSVRNewton(t *testing.T) {
	for _, big := range []float64{1, 1e6} {
		d := synth.Regression(12, 200, 8, 0.6, 0.5, 1, 0)
		for k, j := range d.Index {
			if j == 0 {
				d.Value[k] *= big
			}
		}
		tune, dt, ft, pt := solver.DefaultTuning(), dcd.DefaultTuning(), DefaultTuning(), primal.DefaultTuning()
		s := dcd.NewSVR(dcd.NewData(d, 1, &dt), true, 100, 0.1, 0.01, nil, nil, &tune)
		r := solver.NewRun(s, solver.Config{Selection: solver.ACFShrink, Seed: 1, MaxEpochs: 3, Tuning: &tune})
		r.Solve(1) // a few epochs: far from the optimum at this C
		f := NewSVRNewton(s, 0.01, &ft, &pt)
		if f.budget <= 0 {
			t.Fatal("no Newton budget for -s 12 with 9 weights")
		}
		if f.Finish(r, 1); f.Steps() == 0 || !f.Accepts() {
			t.Fatalf("scale %g: %d Newton steps, converged %v", big, f.Steps(), f.Accepts())
		}
		wN, pN := f.Point()
		obj := s.Objective()
		if math.Abs(r.Obj-obj) > 1e-12*math.Abs(obj) || pN+obj > 1e-9*pN || pN+obj < -1e-9*pN {
			t.Fatalf("scale %g: tracked %g, dual %g, primal at the Newton point %g", big, r.Obj, obj, pN)
		}
		primal, _, dualObj := svrIndependent(d, s)
		if big == 1 && (math.Abs(dualObj-obj) > 1e-9*math.Abs(obj) || primal+obj > 1e-9*primal) {
			t.Fatalf("dual at w(β) %g against %g, gap at w %g", dualObj, obj, primal+obj)
		}
		if len(wN) != s.NF+1 {
			t.Fatalf("Newton point of %d weights", len(wN))
		}
	}
	// The ε-insensitive loss has no Newton method.
	tune, dt, ft, pt := solver.DefaultTuning(), dcd.DefaultTuning(), DefaultTuning(), primal.DefaultTuning()
	s := dcd.NewSVR(dcd.NewData(synth.Regression(1, 20, 3, 0.5, 0, 0, 0), -1, &dt), false, 1, 0.1, 0.1, nil, nil, &tune)
	if b := NewSVRNewton(s, 0.1, &ft, &pt).budget; b != 0 {
		t.Fatalf("-s 13 Newton budget %d", b)
	}
}

// TestSVRNewtonCG: where primal.Dense says no (2000 features, 8 non-zeros
// a row: the Cholesky factor alone would cost more than forming H and a
// whole CG solve) -s 12 switches to Newton-CG at the budget of -s 1's
// Newton-CG switch; a round that runs out of its budget (what the dual has
// spent) re-arms the switch and the next resumes with twice the budget,
// until liblinear's primal rule holds, in fewer operations than one
// Cholesky factor.
func TestSVRNewtonCG(t *testing.T) {
	d := synth.Regression(3, 1000, 2000, 0.004, 0.5, 1, 0)
	tune, dt, ft, pt := solver.DefaultTuning(), dcd.DefaultTuning(), DefaultTuning(), primal.DefaultTuning()
	s := dcd.NewSVR(dcd.NewData(d, -1, &dt), true, 100, 0.1, 0.01, nil, nil, &tune)
	if primal.Dense(s.Rows, &pt) {
		t.Fatal("primal.Dense holds on 2000 sparse features")
	}
	f := NewSVRNewton(s, 0.1, &ft, &pt)
	if want := ft.TronSwitchPasses * s.NNZ(); f.budget != want {
		t.Fatalf("budget %d, want the Newton-CG switch's %d", f.budget, want)
	}
	r := solver.NewRun(s, solver.Config{Selection: solver.ACFShrink, Seed: 1, MaxEpochs: 1, Tuning: &tune})
	r.Solve(1) // one epoch: Newton-CG's first round gets only its cost
	start := s.Ops
	rounds, last := 0, int64(0)
	for round := 1; round <= ft.TronMaxRounds && !f.Accepts(); round++ {
		f.Finish(r, round)
		rounds++
		if f.pp.DenseNewton() {
			t.Fatal("exact Newton steps where primal.Dense says no")
		}
		if !f.Accepts() {
			if f.budget <= s.Ops || f.cgOps < last {
				t.Fatalf("round %d: budget %d at %d operations, Newton-CG round %d after %d", round, f.budget, s.Ops, f.cgOps, last)
			}
			f.budget = 0 // the dual's share, skipped here
		}
		last = f.cgOps
	}
	factor := int64(2001) * 2001 * 2001 / 6
	t.Logf("%d rounds, %d Newton-CG iterations, %d operations", rounds, f.Steps(), s.Ops-start)
	if !f.Accepts() || rounds < 2 || s.Ops-start >= factor {
		t.Fatalf("accepted %v after %d rounds and %d operations (a factor: %d)", f.Accepts(), rounds, s.Ops-start, factor)
	}
}

// TestSVRIPMOuter: the formation of -s 13's H four rows at a time (sorted
// rows, dense.AddOuter) adds the same terms as one at a time, bias
// included: the same lower triangle up to rounding.
func TestSVRIPMOuter(t *testing.T) {
	d := synth.Regression(5, 50, 12, 0.7, 0.1, 0, 0)
	dt := dcd.DefaultTuning()
	for _, bias := range []float64{-1, 1} {
		s := dcd.NewData(d, bias, &dt)
		dim := s.NF + 1
		fast, slow := make([]float64, dim*dim), make([]float64, dim*dim)
		var opsF, opsS int64
		for i := range s.N {
			c := 0.5 + float64(i%7)
			addOuter(s, fast, dim, c, int32(i), true, &opsF)
			addOuter(s, slow, dim, c, int32(i), false, &opsS)
		}
		if opsF != opsS {
			t.Fatalf("bias %g: operations %d and %d", bias, opsF, opsS)
		}
		for j := range dim {
			for k := 0; k <= j; k++ {
				a, b := fast[j*dim+k], slow[j*dim+k]
				if math.Abs(a-b) > 1e-12*max(1, math.Abs(b)) {
					t.Fatalf("bias %g: H[%d,%d] = %g four rows at a time, %g one at a time", bias, j, k, a, b)
				}
			}
		}
	}
}
