package dcd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/synth"
	solver "github.com/acfcd/acfcd/solver"
)

// TestGradHeap: under random insertions, removals and key changes the
// heap's top (excluding any one example) is the brute-force extreme, ties
// to the lower index.
func TestGradHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 60
	key := make([]float64, n)
	for _, isMax := range []bool{false, true} {
		h := newGradHeap(n, key, isMax)
		in := make([]bool, n)
		for step := range 20000 {
			i := int32(r.IntN(n))
			switch r.IntN(4) {
			case 0:
				in[i] = !in[i]
			default:
				key[i] = float64(r.IntN(20)) // ties are frequent
			}
			if step%500 == 0 {
				h.rebuild(func(j int) bool { return in[j] })
			} else {
				h.set(i, in[i])
			}
			ex := int32(r.IntN(n+1)) - 1
			want := int32(-1)
			for j := range int32(n) {
				if !in[j] || j == ex {
					continue
				}
				if want < 0 || (isMax && key[j] > key[want]) || (!isMax && key[j] < key[want]) {
					want = j
				}
			}
			if got := h.top(ex); got != want {
				t.Fatalf("max=%v step %d: top except %d is %d, want %d", isMax, step, ex, got, want)
			}
		}
	}
}

// ocCheck recomputes from α alone w = Σ α_i x_i and the gradients, and
// returns the largest difference of w from the problem's, Σα, the
// maximal violation, lb = max{G : α > 0} and ub = min{G : α < 1} (the
// KKT conditions want G ≤ ρ where α > 0 and G ≥ ρ where α < 1) and the
// primal objective at the problem's ρ.
func ocCheck(o *OneClass) (wErr, sum, viol, lb, ub, primal float64) {
	w := make([]float64, o.NF+1)
	for i, a := range o.Alpha {
		for k := o.RP[i]; k < o.RP[i+1]; k++ {
			w[o.Idx[k]] += a * o.Val[k]
		}
		sum += a
	}
	var ww float64
	for j := range w {
		wErr = max(wErr, math.Abs(w[j]-o.W[j]))
		ww += w[j] * w[j]
	}
	lb, ub = math.Inf(-1), math.Inf(1)
	primal = ww/2 - o.Nu*float64(o.N)*o.Rho
	for i, a := range o.Alpha {
		var g float64
		for k := o.RP[i]; k < o.RP[i+1]; k++ {
			g += w[o.Idx[k]] * o.Val[k]
		}
		if a > 0 {
			lb = max(lb, g)
		}
		if a < 1 {
			ub = min(ub, g)
		}
		primal += max(0, o.Rho-g)
	}
	if math.IsInf(lb, 0) || math.IsInf(ub, 0) {
		return wErr, sum, 0, lb, ub, primal
	}
	return wErr, sum, max(lb-ub, 0), lb, ub, primal
}

// TestOneClassGainsExact: every pair step's gain is the exact decrease of
// ½‖w‖², never negative; α stays in [0, 1] with Σα = νl.
func TestOneClassGainsExact(t *testing.T) {
	d := binaryData(21, 140, 10, 0.4, 0, 3)
	tune, dt := solver.DefaultTuning(), DefaultTuning()
	for _, nu := range []float64{0.03, 0.5, 0.97} {
		o := NewOneClass(NewData(d, -1, &dt), nu, 0.01, nil, nil, &tune)
		r := rand.New(rand.NewPCG(4, 5))
		for k := range 3000 {
			i := int32(r.IntN(d.Rows))
			before := o.Objective()
			_, gain, shrink := o.Step(i, -1, noShrink)
			after := o.Objective()
			if shrink {
				t.Fatalf("ν=%g: step %d shrank without thresholds", nu, k)
			}
			if e := math.Abs((before - after) - gain); e > 1e-12*(1+before) || gain < -1e-12*(1+before) {
				t.Fatalf("ν=%g step %d (i=%d): gain %.17g, objective change %.17g", nu, k, i, gain, before-after)
			}
		}
		wErr, sum, _, _, _, _ := ocCheck(o)
		if wErr > 1e-9 || math.Abs(sum-nu*float64(d.Rows)) > 1e-9 || slices.Min(o.Alpha) < 0 || slices.Max(o.Alpha) > 1 {
			t.Fatalf("ν=%g: w error %g, Σα = %.12g (νl = %g), α in [%g, %g]", nu, wErr, sum, nu*float64(d.Rows), slices.Min(o.Alpha), slices.Max(o.Alpha))
		}
	}
}

// TestOneClassSolve: under every selection the run converges to a point
// whose maximal violation, recomputed from α, is at most eps, with
// Σα = νl, ρ between the bounded examples' gradients, and at a tight eps
// a closed duality gap.
func TestOneClassSolve(t *testing.T) {
	d := binaryData(17, 400, 25, 0.3, 0, 2)
	tune, dt := solver.DefaultTuning(), DefaultTuning()
	for _, nu := range []float64{0.1, 0.5, 1} {
		for _, sel := range []solver.Selection{solver.ACFShrink, solver.ACF, solver.Uniform, solver.Shrink} {
			for _, eps := range []float64{0.01, 1e-8} {
				t.Run(fmt.Sprintf("nu=%g/%v/eps=%g", nu, sel, eps), func(t *testing.T) {
					o := NewOneClass(NewData(d, -1, &dt), nu, eps, nil, nil, &tune)
					r := solver.NewRun(o, solver.Config{Selection: sel, Seed: 5, Eps: eps, MaxEpochs: 10000, EarlyCheck: true,
						Repair: solver.RepairMax, Tuning: &tune})
					r.Obj = o.Objective()
					if !r.Solve(5) {
						t.Fatalf("not converged after %d epochs", r.Epochs())
					}
					wErr, sum, viol, lb, ub, primal := ocCheck(o)
					nl := nu * float64(d.Rows)
					if wErr > 1e-9 || math.Abs(sum-nl) > 1e-9*nl || viol > eps+1e-12 {
						t.Fatalf("w error %g, Σα = %.12g (νl = %g), violation %g", wErr, sum, nl, viol)
					}
					if math.Abs(o.PassViol-viol) > 1e-9 || math.Abs(o.PassPrimal-primal) > 1e-9*(1+math.Abs(primal)) {
						t.Fatalf("pass: violation %g primal %g; recomputed %g, %g", o.PassViol, o.PassPrimal, viol, primal)
					}
					// ρ satisfies the KKT conditions to eps.
					if o.Rho > ub+eps || o.Rho < lb-eps {
						t.Fatalf("ρ = %g outside [%g, %g] ± eps", o.Rho, ub, lb)
					}
					f := o.Objective()
					if math.Abs(r.Obj-f) > 1e-9*(1+f) {
						t.Fatalf("tracked objective %.12g, recomputed %.12g", r.Obj, f)
					}
					if gap := primal + f; eps < 1e-6 && math.Abs(gap) > 1e-6*(1+f) {
						t.Fatalf("duality gap %g (primal %g, dual %g)", gap, primal, -f)
					}
				})
			}
		}
	}
}

// TestSVRAndOneClassParallelPasses: full passes scanned in chunks on
// helper goroutines give the same run, bit for bit, as on one goroutine
// (the chunking is fixed by Tuning.KKTChunkRows, not by the helpers).
func TestSVRAndOneClassParallelPasses(t *testing.T) {
	d := binaryData(23, 500, 30, 0.3, 0, 0)
	for k, v := range d.Value {
		d.Value[k] = math.Abs(v) // off-centre: w ≠ 0
	}
	reg := synth.Regression(24, 500, 30, 0.3, 0.2, 1, 0)
	chunked, dt := solver.DefaultTuning(), DefaultTuning()
	chunked.KKTChunkRows, chunked.KKTParallelNNZ = 37, 0
	var ref [2]string
	for _, helpers := range []int{0, 3} {
		for k, mk := range []func(*procs.Pool) (solver.Problem, func() []float64){
			func(p *procs.Pool) (solver.Problem, func() []float64) {
				o := NewOneClass(NewData(d, -1, &dt), 0.3, 1e-6, nil, p, &chunked)
				return o, func() []float64 { return append(o.W, o.Rho, o.PassPrimal) }
			},
			func(p *procs.Pool) (solver.Problem, func() []float64) {
				s := NewSVR(NewData(reg, 1, &dt), false, 1, 0.1, 1e-6, nil, p, &chunked)
				return s, func() []float64 { return append(s.W, s.PassSum, s.PassPrimal) }
			},
		} {
			prob, out := mk(procs.NewPool(helpers))
			r := solver.NewRun(prob, solver.Config{Selection: solver.ACFShrink, Seed: 2, Eps: 1e-6, MaxEpochs: 1000, Tuning: &chunked})
			if !r.Solve(2) {
				t.Fatalf("problem %d: not converged", k)
			}
			got := fmt.Sprint(out())
			if helpers == 0 {
				ref[k] = got
			} else if got != ref[k] {
				t.Fatalf("problem %d with %d helpers differs from one goroutine:\n%s\n%s", k, helpers, got, ref[k])
			}
		}
	}
}
