package multiclass

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// refDual is f(α) = ½‖W(α)‖² − Σα.
func refDual(d *dataio.Dataset, class []int32, alpha []float64, K int, bias float64) float64 {
	var f float64
	for _, v := range refW(d, class, alpha, K, bias) {
		f += 0.5 * v * v
	}
	for _, a := range alpha {
		f -= a
	}
	return f
}

// TestWWBlockStep checks the exact block solver: the gain it reports is
// the change of f recomputed from scratch, and after the step the block's
// own KKT conditions hold (the gradient of the block subproblem at the new
// point, from scratch, vanishes up to rounding on free variables and has
// the right sign at bounds). It also compares with a brute-force
// iterative solution of the block QP, and the violation the step reports
// with the block's projected gradient before it.
func TestWWBlockStep(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	tune := solver.DefaultTuning()
	for _, pr := range wwCases() {
		for _, bias := range []float64{-1, 0, 1.5} {
			t.Run(fmt.Sprintf("%s/bias=%g", pr.name, bias), func(t *testing.T) {
				d, class := pr.d, pr.class
				K := 0
				for _, c := range class {
					K = max(K, int(c)+1)
				}
				ub := make([]float64, K)
				for c := range ub {
					ub[c] = pr.c * (0.5 + r.Float64())
				}
				s := NewWW(d, class, ub, bias, 0, nil, &tune)
				// Start from a random feasible point with many α at bounds.
				for i := 0; i < d.Rows; i++ {
					for c := 0; c < K; c++ {
						if c == int(class[i]) {
							continue
						}
						switch r.IntN(3) {
						case 0:
						case 1:
							s.Alpha[i*K+c] = ub[class[i]]
						default:
							s.Alpha[i*K+c] = ub[class[i]] * r.Float64()
						}
					}
				}
				copy(s.W, refW(d, class, s.Alpha, K, bias))
				f := func() float64 { return refDual(d, class, s.Alpha, K, bias) }
				for trial := 0; trial < 200; trial++ {
					i := int32(r.IntN(d.Rows))
					if trial%4 == 3 {
						// a second step on the same block: nothing left to gain
						i = int32(trial % d.Rows)
						s.Step(i, -1, solver.Thresholds{})
					}
					before := append([]float64(nil), s.Alpha[int(i)*K:int(i)*K+K]...)
					f0 := f()
					q := s.xsq[i]
					y := int(class[i])
					C := ub[y]
					dec := refDec(d, refW(d, class, s.Alpha, K, bias), K, bias, int(i))
					g0 := make([]float64, K)
					var violWant float64
					for c := range g0 {
						if c == y {
							continue
						}
						g0[c] = dec[y] - dec[c] - 1
						pg := g0[c]
						switch {
						case before[c] == 0:
							pg = min(pg, 0)
						case before[c] == C:
							pg = max(pg, 0)
						}
						violWant = max(violWant, math.Abs(pg))
					}
					viol, gain, shrink := s.Step(i, -1, solver.Thresholds{})
					if shrink || math.Abs(viol-violWant) > 1e-9*(1+violWant) {
						t.Fatalf("trial %d block %d: violation %g (shrink %v), from scratch %g", trial, i, viol, shrink, violWant)
					}
					f1 := f()
					if math.Abs((f0-f1)-gain) > 1e-9*math.Max(1, math.Abs(f0)) {
						t.Fatalf("trial %d block %d: gain %.15g, recomputed %.15g", trial, i, gain, f0-f1)
					}
					if gain < -1e-12*math.Max(1, math.Abs(f0)) {
						t.Fatalf("negative gain %g", gain)
					}
					// block KKT at the new point, from scratch
					after := s.Alpha[int(i)*K : int(i)*K+K]
					dec = refDec(d, refW(d, class, s.Alpha, K, bias), K, bias, int(i))
					scale := 1e-9 * (1 + q*C*float64(K))
					for c := 0; c < K; c++ {
						if c == y {
							continue
						}
						G := dec[y] - dec[c] - 1
						if a := after[c]; a < 0 || a > C || (a > 0 && a < C && math.Abs(G) > scale) || (a == 0 && G < -scale) || (a == C && G > scale) {
							t.Fatalf("trial %d block %d class %d: α %g (C %g), gradient %g after the step", trial, i, c, a, C, G)
						}
					}
					// brute force on the block QP from the old point
					ref := bruteBlock(g0, before, y, C, q)
					for c := range ref {
						if math.Abs(ref[c]-after[c]) > 1e-6*(1+C) {
							t.Fatalf("trial %d block %d: exact %v, brute force %v", trial, i, after, ref)
						}
					}
				}
				// W stayed W(α) over all the steps.
				want := refW(d, class, s.Alpha, K, bias)
				for j := range want {
					if math.Abs(s.W[j]-want[j]) > 1e-9*(1+math.Abs(want[j])) {
						t.Fatalf("W[%d] = %g, W(α) = %g", j, s.W[j], want[j])
					}
				}
			})
		}
	}
}

// bruteBlock minimises gᵀδ + ½q(‖δ‖² + (Σδ)²) over 0 ≤ a0+δ ≤ C by
// many sweeps of one-variable projected Newton steps (curvature 2q).
func bruteBlock(g, a0 []float64, y int, C, q float64) []float64 {
	K := len(g)
	a := append([]float64(nil), a0...)
	if q == 0 {
		for c := range a {
			if c != y && g[c] < 0 {
				a[c] = C
			} else if c != y && g[c] > 0 {
				a[c] = 0
			}
		}
		return a
	}
	for sweep := 0; sweep < 20000; sweep++ {
		var s float64
		for c := range a {
			s += a[c] - a0[c]
		}
		moved := false
		for c := 0; c < K; c++ {
			if c == y {
				continue
			}
			gc := g[c] + q*(a[c]-a0[c]) + q*s
			na := min(max(a[c]-gc/(2*q), 0), C)
			s += na - a[c]
			moved = moved || na != a[c]
			a[c] = na
		}
		if !moved { // a fixed point: the sweeps after this one change nothing
			break
		}
	}
	return a
}

// TestWWTheta checks the breakpoint walk on random and adversarial blocks
// against bisection on h.
func TestWWTheta(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 20000; trial++ {
		m := 1 + r.IntN(12)
		C := math.Exp(r.NormFloat64() * 3)
		t0 := make([]float64, m+1)
		y := r.IntN(m + 1)
		var A float64
		for c := range t0 {
			if c == y {
				t0[c] = math.NaN() // must be ignored
				continue
			}
			a := [3]float64{0, C, C * r.Float64()}[r.IntN(3)]
			A += a
			switch r.IntN(4) {
			case 0:
				t0[c] = a + r.NormFloat64()*C*1e6
			case 1:
				t0[c] = C * float64(r.IntN(3)) // ties with breakpoints
			default:
				t0[c] = a + r.NormFloat64()*C
			}
		}
		srt := make([]float64, m+1)
		th := theta(t0, srt, y, C, A)
		h := func(th float64) float64 {
			s := -A - th
			for c, v := range t0 {
				if c != y {
					s += math.Min(math.Max(v-th, 0), C)
				}
			}
			return s
		}
		lo, hi := -A-1, 0.0
		for _, v := range t0 {
			if !math.IsNaN(v) {
				lo, hi = math.Min(lo, v-C-1), math.Max(hi, v+1)
			}
		}
		for k := 0; k < 200; k++ {
			mid := 0.5 * (lo + hi)
			if h(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		scale := 1e-12 * (A + C + math.Abs(lo))
		for _, v := range t0 {
			if !math.IsNaN(v) {
				scale = math.Max(scale, 1e-12*math.Abs(v))
			}
		}
		if math.Abs(th-lo) > scale*float64(m+1) {
			t.Fatalf("trial %d: θ %.17g, bisection %.17g (t %v, C %g, A %g)", trial, th, lo, t0, C, A)
		}
	}
}

// TestWWNoAllocs: steps allocate nothing, with float64 and float32 values.
func TestWWNoAllocs(t *testing.T) {
	d, class := classData(12, 350, 30, 4, 0.25, 0.05, 4)
	d32 := *d
	d32.Value, d32.Value32 = nil, make([]float32, len(d.Value))
	for k, v := range d.Value {
		d32.Value32[k] = float32(v)
	}
	tune := solver.DefaultTuning()
	for _, data := range []*dataio.Dataset{d, &d32} {
		s := NewWW(data, class, []float64{10, 10, 10, 10}, 1, 0, nil, &tune)
		sweep := func() {
			for i := range int32(s.N) {
				s.Step(i, (i+2)%int32(s.N), solver.Thresholds{})
			}
		}
		sweep()
		if n := testing.AllocsPerRun(20, sweep); n != 0 {
			t.Errorf("float32=%v: %v allocations per sweep", data.Value == nil, n)
		}
	}
}

// BenchmarkWWEpoch times one epoch (a uniform sweep, or n block steps of
// ACF) on a generated sparse 10-class problem, from a state five epochs
// into the optimisation. There must be no allocations.
func BenchmarkWWEpoch(b *testing.B) {
	const K = 10
	d, class := classData(42, 10000, 20000, K, 0.004, 0.1, 0)
	ub := make([]float64, K)
	for c := range ub {
		ub[c] = 10
	}
	tune := solver.DefaultTuning()
	for _, sel := range []solver.Selection{solver.Uniform, solver.ACF} {
		b.Run("select="+sel.String(), func(b *testing.B) {
			s := NewWW(d, class, ub, 1, 0, nil, &tune)
			const warm = 5
			var r *solver.Run
			var steps0 int64
			r = solver.NewRun(s, solver.Config{Selection: sel, Seed: 1, MaxEpochs: warm + b.N, Work: s.Work(), Tuning: &tune,
				Progress: func(epoch int, _, _ float64) {
					if epoch == warm {
						steps0 = r.Steps
						b.ReportAllocs()
						b.ResetTimer()
					}
				}})
			if r.Solve(1) || !r.Capped() {
				b.Fatal("not stopped by the cap")
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(r.Steps-steps0), "ns/step")
			b.ReportMetric(float64(r.Steps-steps0)/float64(b.N), "steps/op")
		})
	}
}
