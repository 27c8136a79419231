package dual

import (
	"github.com/acfcd/acfcd/internal/synth"
	"math"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// svrIndependent recomputes from the data, with plain loops and w summed
// exactly enough (a float64 sum per feature, sorted by size), the primal
// objective at the problem's w, the sum of the violations at (β, w) and
// the dual objective f(β) with w(β) = Σ β_i x_i.
func svrIndependent(d *dataio.Dataset, s *SVR) (primal, violSum, dualObj float64) {
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
		G := wx - d.Label[i]
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
			primal += s.C * e
		}
	}
	var wbb float64
	for j := range wb {
		wbb += (wb[j] + comp[j]) * (wb[j] + comp[j])
	}
	dualObj = wbb / 2
	for i, b := range s.Beta {
		dualObj += s.P*math.Abs(b) - d.Label[i]*b
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
		tune := solver.DefaultTuning()
		cfg := solver.Config{Selection: solver.ACFShrink, Seed: 1, MaxEpochs: 200, Repair: solver.RepairObserve, Tuning: &tune}
		plain := NewSVR(NewData(d, bias, &tune), false, 1, 0.1, 0.025, nil, nil, &tune)
		conv := solver.NewRun(plain, cfg).Solve(1)
		plainPrimal, _, _ := svrIndependent(d, plain)

		s := NewSVR(NewData(d, bias, &tune), false, 1, 0.1, 0.025, nil, nil, &tune)
		budget := s.IPMBudget()
		if budget <= 0 {
			t.Fatal("no interior-point budget for -s 13 with 8 weights")
		}
		cfg.Switch = func(r *solver.Run) bool { return s.Ops+tune.DualStepOps*r.Steps >= budget }
		r := solver.NewRun(s, cfg)
		if r.Solve(1) || !r.Handover() {
			t.Fatalf("bias %g: the dual converged before the switch (epoch %d)", bias, r.Epochs())
		}
		iters := s.IPM(r)
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
	tune := solver.DefaultTuning()
	if b := NewSVR(NewData(d, -1, &tune), true, 1, 0.1, 0.1, nil, nil, &tune).IPMBudget(); b != 0 {
		t.Fatalf("-s 12 interior-point budget %d", b)
	}
}
