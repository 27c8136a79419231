package multiclass

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
)

// csRefDual is f(α) = ½‖W(α)‖² + Σ_i Σ_{m≠y_i} α_i^m.
func csRefDual(d *dataio.Dataset, class []int32, alpha []float64, K int, bias float64) float64 {
	var f float64
	for _, v := range csRefW(d, alpha, K, bias) {
		f += 0.5 * v * v
	}
	for i, y := range class {
		for c := 0; c < K; c++ {
			if c != int(y) {
				f += alpha[i*K+c]
			}
		}
	}
	return f
}

// csRefViol is block i's violation max_m G_m − min_{α_m < u_m} G_m from
// scratch, with the gradients G_m = w_mᵀx_i + [m ≠ y_i].
func csRefViol(d *dataio.Dataset, class []int32, alpha []float64, K int, bias float64, ub []float64, i int) (viol float64, G []float64) {
	G = refDec(d, csRefW(d, alpha, K, bias), K, bias, i)
	y := int(class[i])
	maxG, minG := math.Inf(-1), math.Inf(1)
	for c := range G {
		u := 0.0
		if c == y {
			u = ub[y]
		} else {
			G[c]++
		}
		maxG = math.Max(maxG, G[c])
		if alpha[i*K+c] < u {
			minG = math.Min(minG, G[c])
		}
	}
	return maxG - minG, G
}

// csRandomAlpha sets a random feasible α with many variables at bounds:
// α_i^m ≤ C·[m = y_i], Σ_m α_i^m = 0.
func csRandomAlpha(r *rand.Rand, alpha []float64, class []int32, ub []float64, K int) {
	for i, y := range class {
		C := ub[y]
		a := alpha[int(i)*K : int(i)*K+K]
		clear(a)
		switch r.IntN(4) {
		case 0: // α = 0
		case 1: // α_y = C against one other class
			a[y] = C
			c := (int(y) + 1 + r.IntN(K-1)) % K
			a[c] = -C
		default: // α_y in (0, C] spread over the others
			a[y] = C * [2]float64{1, r.Float64()}[r.IntN(2)]
			rest := a[y]
			for k := 1; k < K; k++ {
				c := (int(y) + k) % K
				v := rest * r.Float64()
				if k == K-1 {
					v = rest
				}
				a[c] = -v
				rest -= v
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func csUB(r *rand.Rand, K int, c float64) []float64 {
	ub := make([]float64, K)
	for m := range ub {
		ub[m] = c * (0.5 + r.Float64())
	}
	return ub
}

// TestCSBlockStep checks the exact block solver from random feasible
// points, with and without shrinking: the violation the step reports is
// the block's from scratch (before shrinking classes), the gain is the
// change of f recomputed from scratch, the new α is feasible, the classes
// shrunk are at their bounds, and after the step the block's KKT
// conditions hold over its active classes. W stays W(α) throughout.
func TestCSBlockStep(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	tune := solver.DefaultTuning()
	for _, pr := range wwCases() {
		for _, bias := range []float64{-1, 0, 1.5} {
			for _, shrink := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/bias=%g/shrink=%v", pr.name, bias, shrink), func(t *testing.T) {
					d, class := pr.d, pr.class
					K := 0
					for _, c := range class {
						K = max(K, int(c)+1)
					}
					ub := csUB(r, K, pr.c)
					s := NewCS(d, class, ub, bias, 0, shrink, nil, &tune, nil)
					csRandomAlpha(r, s.Alpha, class, ub, K)
					copy(s.W, csRefW(d, s.Alpha, K, bias))
					f := func() float64 { return csRefDual(d, class, s.Alpha, K, bias) }
					for trial := 0; trial < 150; trial++ {
						i := int32(r.IntN(d.Rows))
						if trial%4 == 3 {
							i = int32(trial % d.Rows)
							s.Step(i, -1, solver.Thresholds{}) // the second step gains nothing
						}
						f0 := f()
						violWant, _ := csRefViol(d, class, s.Alpha, K, bias, ub, int(i))
						active := K
						if shrink {
							active = int(s.nact[i])
						}
						viol, gain, shrunk := s.Step(i, -1, solver.Thresholds{})
						if shrunk {
							if !shrink || s.nact[i] > 1 || viol != 0 || gain != 0 {
								t.Fatalf("trial %d: example %d shrunk (shrink %v, %d active), violation %g gain %g", trial, i, shrink, s.nact[i], viol, gain)
							}
						} else if active == K && math.Abs(viol-violWant) > 1e-9*(1+violWant) {
							t.Fatalf("trial %d block %d: violation %g, from scratch %g", trial, i, viol, violWant)
						}
						f1 := f()
						if math.Abs((f0-f1)-gain) > 1e-9*math.Max(1, math.Abs(f0)) {
							t.Fatalf("trial %d block %d: gain %.15g, recomputed %.15g", trial, i, gain, f0-f1)
						}
						if gain < -1e-12*math.Max(1, math.Abs(f0)) {
							t.Fatalf("negative gain %g", gain)
						}
						y := int(class[i])
						a := s.Alpha[int(i)*K : int(i)*K+K]
						var sum float64
						for c, v := range a {
							u := 0.0
							if c == y {
								u = ub[y]
							}
							if v > u || v < u-ub[y]*(1+1e-12*float64(K)) {
								t.Fatalf("trial %d block %d: α %v outside the box (C %g, class %d)", trial, i, a, ub[y], y)
							}
							sum += v
						}
						if math.Abs(sum) > 1e-12*ub[y]*float64(K) {
							t.Fatalf("trial %d block %d: Σα = %g", trial, i, sum)
						}
						// KKT over the active classes after the step.
						_, G := csRefViol(d, class, s.Alpha, K, bias, ub, int(i))
						cls := make([]int, 0, K)
						if shrink {
							for _, c := range s.perm[int(i)*K : int(i)*K+int(s.nact[i])] {
								cls = append(cls, int(c))
							}
						} else {
							for c := range K {
								cls = append(cls, c)
							}
						}
						if shrink {
							for _, c := range s.perm[int(i)*K+len(cls) : int(i)*K+K] {
								if u := [2]float64{0, ub[y]}[b2i(int(c) == y)]; a[c] != u {
									t.Fatalf("trial %d block %d: shrunk class %d off its bound: α %v", trial, i, c, a)
								}
							}
						}
						if shrunk || len(cls) <= 1 {
							continue
						}
						maxG, minG := math.Inf(-1), math.Inf(1)
						for _, c := range cls {
							u := 0.0
							if c == y {
								u = ub[y]
							}
							maxG = math.Max(maxG, G[c])
							if a[c] < u {
								minG = math.Min(minG, G[c])
							}
						}
						if maxG-minG > 1e-9*(1+s.xsq[i]*ub[y]*float64(K)) {
							t.Fatalf("trial %d block %d: violation %g after the step (active %v)", trial, i, maxG-minG, cls)
						}
					}
					want := csRefW(d, s.Alpha, K, bias)
					for j := range want {
						if math.Abs(s.W[j]-want[j]) > 1e-9*(1+math.Abs(want[j])) {
							t.Fatalf("W[%d] = %g, W(α) = %g", j, s.W[j], want[j])
						}
					}
				})
			}
		}
	}
}

// TestCSTheta checks θ against bisection on Σ_m min(0, v_m − θ) + C, on
// random blocks, with ties and wide ranges.
func TestCSTheta(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := 0; trial < 20000; trial++ {
		n := 1 + r.IntN(12)
		C := math.Exp(r.NormFloat64() * 3)
		v := make([]float64, n)
		for m := range v {
			switch r.IntN(4) {
			case 0:
				v[m] = r.NormFloat64() * C * 1e6
			case 1:
				v[m] = C * float64(r.IntN(3)) // ties
			default:
				v[m] = r.NormFloat64() * C
			}
		}
		h := func(th float64) float64 {
			s := C
			for _, x := range v {
				s += math.Min(0, x-th)
			}
			return s
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, x := range v {
			lo, hi = math.Min(lo, x), math.Max(hi, x+C)
		}
		for k := 0; k < 200; k++ {
			mid := 0.5 * (lo + hi)
			if h(mid) > 0 {
				lo = mid
			} else {
				hi = mid
			}
		}
		th := csTheta(slices.Clone(v), C)
		scale := 1e-12 * (C + math.Abs(lo))
		for _, x := range v {
			scale = math.Max(scale, 1e-12*math.Abs(x))
		}
		if math.Abs(th-lo) > scale*float64(n+1) {
			t.Fatalf("trial %d: θ %.17g, bisection %.17g (v %v, C %g)", trial, th, lo, v, C)
		}
	}
}

// csClone copies s's point, active sets and counters, with tuning t,
// helpers from pool and scratch of its own.
func csClone(s *CS, t *solver.Tuning, pool *procs.Pool) *CS {
	c := *s
	c.W, c.Alpha = slices.Clone(s.W), slices.Clone(s.Alpha)
	c.perm, c.nact = slices.Clone(s.perm), slices.Clone(s.nact)
	K := s.K
	c.dec, c.coef, c.g, c.t, c.srt = make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	c.pos, c.nzc, c.nzd = make([]int32, K), make([]int32, K), make([]float64, K)
	c.chunks = nil
	c.tune, c.pool = t, pool
	return &c
}

// TestCSKKTPassChunked: as TestWWKKTPassChunked for the Crammer–Singer
// problem, with and without shrinking (whose pass also sets every
// example's active classes: the same ones with any helpers).
func TestCSKKTPassChunked(t *testing.T) {
	d, class := classData(68, 2500, 200, 5, 0.04, 0.1, 0)
	ub := []float64{1, 2, 1, 0.5, 3}
	base := solver.DefaultTuning()
	for _, shrink := range []bool{false, true} {
		sel := solver.ACF
		if shrink {
			sel = solver.ACFShrink
		}
		s := NewCS(d, class, ub, 1, 0, shrink, nil, &base, nil)
		s.gapTol = 0 // the violation alone: this tests the pass's scan (the gap test: TestTrainCSGapLargeC)
		run := solver.NewRun(s, solver.Config{Selection: sel, Seed: 5, MaxEpochs: 3, Work: s.Work(), Tuning: &base})
		if run.Solve(5) || !run.Capped() {
			t.Fatal("the three epochs to the test point did not end at the cap")
		}
		probe := csClone(s, &base, nil)
		viols := make([]float64, d.Rows)
		for i := range viols {
			_, viols[i] = probe.eval(int32(i))
		}
		sorted := slices.Clone(viols)
		slices.Sort(sorted)
		one := base
		one.KKTChunkRows = d.Rows
		small := base
		small.KKTChunkRows, small.KKTParallelNNZ = 37, 0
		for _, eps := range testkit.Tolerances(sorted) {
			for _, repair := range []bool{false, true} {
				name := fmt.Sprintf("shrink=%v/eps=%.3g/repair=%v", shrink, eps, repair)
				s.eps = eps
				pass := func(p *CS) (ok bool, r *solver.Run) {
					r = solver.NewRun(p, solver.Config{Selection: sel, Eps: eps, MaxEpochs: 1, Tuning: p.tune})
					r.Obj = p.Objective()
					return p.Pass(r, repair), r
				}
				ref := csClone(s, &one, nil)
				okRef, rRef := pass(ref)
				maxViol := sorted[len(sorted)-1]
				if okRef != (maxViol <= eps) || (repair && (maxViol > eps) != (rRef.Steps > 0)) || (!repair && (rRef.Steps != 0 || ref.PassViol != maxViol)) {
					t.Fatalf("%s: one chunk: ok %v after %d steps, violation %g; largest violation %g", name, okRef, rRef.Steps, ref.PassViol, maxViol)
				}
				for _, helpers := range []int{0, 1, 3} {
					got := csClone(s, &small, procs.NewPool(helpers))
					ok, r := pass(got)
					if ok != okRef || !testkit.SameBits(got.W, ref.W) || !testkit.SameBits(got.Alpha, ref.Alpha) ||
						!slices.Equal(got.perm, ref.perm) || !slices.Equal(got.nact, ref.nact) ||
						math.Float64bits(r.Obj) != math.Float64bits(rRef.Obj) || r.Steps != rRef.Steps || got.Ops != ref.Ops ||
						math.Float64bits(got.PassViol) != math.Float64bits(ref.PassViol) {
						t.Errorf("%s, %d helpers: ok %v steps %d ops %d obj %v viol %v; one chunk: ok %v steps %d ops %d obj %v viol %v",
							name, helpers, ok, r.Steps, got.Ops, r.Obj, got.PassViol, okRef, rRef.Steps, ref.Ops, rRef.Obj, ref.PassViol)
					}
					if math.Abs(got.PassPrimal-ref.PassPrimal) > 1e-12*max(1, math.Abs(ref.PassPrimal)) {
						t.Errorf("%s, %d helpers: primal %v, one chunk %v", name, helpers, got.PassPrimal, ref.PassPrimal)
					}
				}
			}
		}
	}
}

// TestCSNoAllocs: steps and passes allocate nothing (the pass beyond its
// helper's scratch), with float64 and float32 values, with and without
// shrinking.
func TestCSNoAllocs(t *testing.T) {
	d, class := classData(12, 350, 30, 4, 0.25, 0.05, 4)
	d32 := *d
	d32.Value, d32.Value32 = nil, make([]float32, len(d.Value))
	for k, v := range d.Value {
		d32.Value32[k] = float32(v)
	}
	tune := solver.DefaultTuning()
	for _, data := range []*dataio.Dataset{d, &d32} {
		for _, shrink := range []bool{false, true} {
			s := NewCS(data, class, []float64{10, 10, 10, 10}, 1, 0, shrink, nil, &tune, nil)
			sweep := func() {
				for i := range int32(s.N) {
					s.Step(i, (i+2)%int32(s.N), solver.Thresholds{})
				}
			}
			sweep()
			if n := testing.AllocsPerRun(20, sweep); n != 0 {
				t.Errorf("float32=%v shrink=%v: %v allocations per sweep", data.Value == nil, shrink, n)
			}
		}
	}
}

// TestCSGather: the decision values gathered for a few classes are those
// DotK gives for all (to rounding), with float64 and float32 values.
func TestCSGather(t *testing.T) {
	d, class := classData(5, 200, 50, 7, 0.3, 0.1, 2)
	d32 := *d
	d32.Value, d32.Value32 = nil, make([]float32, len(d.Value))
	for k, v := range d.Value {
		d32.Value32[k] = float32(v)
	}
	r := rand.New(rand.NewPCG(1, 1))
	tune := solver.DefaultTuning()
	for _, data := range []*dataio.Dataset{d, &d32} {
		s := NewCS(data, class, csUB(r, 7, 1), 2, 0, true, nil, &tune, nil)
		for j := range s.W {
			s.W[j] = r.NormFloat64()
		}
		for i := range int32(d.Rows) {
			s.decision(i)
			want := slices.Clone(s.dec)
			pos := []int32{int32(r.IntN(7)), int32(r.IntN(7))}
			s.gather = 7 // every class one by one
			ops := s.Ops
			s.gradient(i, pos)
			if nnz := d.RowPtr[i+1] - d.RowPtr[i]; s.Ops-ops != 2*nnz {
				t.Fatalf("row %d: %d operations for 2 classes of %d non-zeros", i, s.Ops-ops, nnz)
			}
			for m, c := range pos {
				w := want[c]
				if c != class[i] {
					w++
				}
				if math.Abs(s.g[m]-w) > 1e-12*(1+math.Abs(w)) {
					t.Fatalf("float32=%v row %d class %d: gathered %v, DotK %v", data.Value == nil, i, c, s.g[m], w)
				}
			}
		}
	}
}

// BenchmarkCSEpoch times one epoch on a generated sparse 20-class problem
// from a state five epochs into the optimisation, per selection.
func BenchmarkCSEpoch(b *testing.B) {
	const K = 20
	d, class := classData(42, 10000, 20000, K, 0.004, 0.1, 0)
	ub := make([]float64, K)
	for c := range ub {
		ub[c] = 1
	}
	tune := solver.DefaultTuning()
	for _, sel := range []solver.Selection{solver.Uniform, solver.ACF, solver.Shrink, solver.ACFShrink} {
		b.Run("select="+sel.String(), func(b *testing.B) {
			s := NewCS(d, class, ub, 1, 0, sel == solver.Shrink || sel == solver.ACFShrink, nil, &tune, nil)
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
			r.Solve(1)
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(1, r.Steps-steps0)), "ns/step")
		})
	}
}

// withDups returns d with copies of some of its rows appended under other
// classes (and one empty row per class), and the classes of all rows.
func withDups(d *dataio.Dataset, class []int32, K, copies int, r *rand.Rand) (*dataio.Dataset, []int32) {
	out := &dataio.Dataset{Rows: d.Rows, Features: d.Features, RowPtr: slices.Clone(d.RowPtr), Index: slices.Clone(d.Index),
		Value: slices.Clone(d.Value), Label: slices.Clone(d.Label)}
	cls := slices.Clone(class)
	add := func(src int, c int32) {
		a, b := d.RowPtr[src], d.RowPtr[src+1]
		out.Index = append(out.Index, d.Index[a:b]...)
		out.Value = append(out.Value, d.Value[a:b]...)
		out.RowPtr = append(out.RowPtr, int64(len(out.Index)))
		out.Label = append(out.Label, float64(c))
		cls = append(cls, c)
		out.Rows++
	}
	for k := range copies {
		src := r.IntN(d.Rows)
		for range 1 + k%3 {
			add(src, int32(r.IntN(K)))
		}
	}
	return out, cls
}

// TestCSPush: the push of identical rows keeps every Σ_m α_i^m = 0 and α
// in its box, leaves W(α) as it was, lowers f by the gain it reports, and
// leaves nothing for a second push; FindDups finds exactly the groups of
// identical rows with two or more classes.
func TestCSPush(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	tune := solver.DefaultTuning()
	for _, pr := range wwCases() {
		t.Run(pr.name, func(t *testing.T) {
			K := 0
			for _, c := range pr.class {
				K = max(K, int(c)+1)
			}
			d, class := withDups(pr.d, pr.class, K, 40, r)
			ub := csUB(r, K, pr.c)
			s := NewCS(d, class, ub, 1, 0, true, nil, &tune, nil)
			// groups from scratch: identical rows (the empty ones of
			// wwCases included), two or more classes
			want := 0
			seen := map[string][]int32{}
			for i := range d.Rows {
				a, b := d.RowPtr[i], d.RowPtr[i+1]
				key := fmt.Sprint(d.Index[a:b], d.Value[a:b])
				seen[key] = append(seen[key], class[i])
			}
			for _, cs := range seen {
				if slices.ContainsFunc(cs, func(c int32) bool { return c != cs[0] }) {
					want += len(cs)
				}
			}
			if got := s.FindDups(); got != want || want == 0 {
				t.Fatalf("FindDups: %d rows, want %d", got, want)
			}
			csRandomAlpha(r, s.Alpha, class, ub, K)
			copy(s.W, csRefW(d, s.Alpha, K, 1))
			w0 := slices.Clone(s.W)
			f0 := csRefDual(d, class, s.Alpha, K, 1)
			gain := s.Push()
			f1 := csRefDual(d, class, s.Alpha, K, 1)
			if gain <= 0 || math.Abs((f0-f1)-gain) > 1e-9*math.Max(1, math.Abs(f0)) {
				t.Fatalf("gain %g, f fell by %g", gain, f0-f1)
			}
			for j, v := range csRefW(d, s.Alpha, K, 1) {
				if math.Abs(v-w0[j]) > 1e-12*(1+math.Abs(v)) {
					t.Fatalf("W(α)[%d] moved from %g to %g", j, w0[j], v)
				}
			}
			for i, y := range class {
				a := s.Alpha[i*K : i*K+K]
				var sum float64
				for c, v := range a {
					u := 0.0
					if c == int(y) {
						u = ub[y]
					}
					if v > u || v < u-ub[y]*(1+1e-12*float64(K)) {
						t.Fatalf("row %d: α %v outside the box (C %g, class %d)", i, a, ub[y], y)
					}
					sum += v
				}
				if math.Abs(sum) > 1e-12*ub[y]*float64(K) {
					t.Fatalf("row %d: Σα = %g", i, sum)
				}
			}
			if g := s.Push(); g != 0 {
				t.Fatalf("a second push gained %g", g)
			}
		})
	}
}

// BenchmarkCSGather times block steps with shrinking, from a state ten
// epochs into the optimisation, in a fixed random order, for thresholds
// Tuning.CSGatherDiv (0: all K decision values by DotK at every step),
// on text-like sparse data with 20, 45 and 200 classes and dense data
// with 10 (docs/tuning.md).
func BenchmarkCSGather(b *testing.B) {
	for _, tc := range []struct {
		name           string
		rows, feats, K int
		density        float64
	}{{"sparse20", 10000, 60000, 20, 0.0015}, {"sparse45", 10000, 200000, 45, 0.0005}, {"sparse200", 5000, 20000, 200, 0.002}, {"dense10", 3000, 256, 10, 0.8}} {
		d, class := classData(42, tc.rows, tc.feats, tc.K, tc.density, 0.1, 0)
		ub := make([]float64, tc.K)
		for c := range ub {
			ub[c] = 1
		}
		for _, div := range []int{0, 16, 8, 4, 2, 1} {
			b.Run(fmt.Sprintf("%s/div=%d", tc.name, div), func(b *testing.B) {
				tune := solver.DefaultTuning()
				s := NewCS(d, class, ub, 1, 0, true, nil, &tune, nil)
				r := solver.NewRun(s, solver.Config{Selection: solver.ACFShrink, Seed: 1, MaxEpochs: 10, Work: s.Work(), Tuning: &tune})
				r.Solve(1)
				s.gather = 0
				if div > 0 {
					s.gather = tc.K / div
				}
				order := rand.New(rand.NewPCG(1, 2)).Perm(s.N)
				nact, perm := slices.Clone(s.nact), slices.Clone(s.perm)
				alpha, w := slices.Clone(s.Alpha), slices.Clone(s.W)
				b.ResetTimer()
				for range b.N {
					b.StopTimer()
					copy(s.nact, nact)
					copy(s.perm, perm)
					copy(s.Alpha, alpha)
					copy(s.W, w)
					b.StartTimer()
					for _, i := range order {
						s.Step(int32(i), -1, solver.Thresholds{})
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*s.N), "ns/step")
			})
		}
	}
}
