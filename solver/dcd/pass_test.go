package dcd

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/acfcd/acfcd/internal/fmath"
	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/testkit"
	solver "github.com/acfcd/acfcd/solver"
)

// passSequential is the full pass as one plain loop in storage order,
// stepping on violators on the spot: what Pass computes in chunks.
func passSequential(p *Problem, r *solver.Run, repair bool) bool {
	var viol, loss float64
	ok := true
	for i := range int32(p.N) {
		wx := p.DotRow(i, p.W)
		c := (p.Y[i] + 1) >> 1
		m := float64(float64(p.Y[i]) * wx) // rounded as in eval, unfused
		var v float64
		switch p.Loss {
		case Logistic:
			v = Violation(m+fmath.Log(p.Alpha[i]/p.AlphaC[i]), p.Alpha[i], p.AlphaC[i], p.UB[c])
			loss += p.UB[c] * Log1pExpNeg(m)
			if repair && v > p.Eps {
				ok = false
				_, gain := p.lrStep(i, wx)
				r.Repaired(i, gain)
			}
		default:
			G := m - 1 + float64(p.Alpha[i]*p.Diag[c])
			v = math.Abs(p.PG(i, G))
			if h := 1 - m; h > 0 {
				if p.Loss == L1SVM {
					loss += p.UB[c] * h
				} else {
					loss += 0.5 / p.Diag[c] * h * h
				}
			}
			if repair && v > p.Eps {
				ok = false
				r.Repaired(i, p.svmMove(i, G))
			}
		}
		viol = max(viol, v)
	}
	p.PassViol = viol
	var ww float64
	for _, x := range p.W {
		ww += x * x
	}
	p.PassPrimal = 0.5*ww + loss
	if !repair {
		return viol <= p.Eps
	}
	return ok
}

// clone copies p's optimisation state (the shared data is shared) for a
// pass with tuning tune and the spare processors of pool.
func clone(p *Problem, tune *solver.Tuning, pool *procs.Pool) *Problem {
	c := *p
	c.W = slices.Clone(p.W)
	c.Alpha = slices.Clone(p.Alpha)
	c.AlphaC = slices.Clone(p.AlphaC)
	c.Y = slices.Clone(p.Y)
	c.chunks = nil
	c.drv, c.Pool = tune, pool
	return &c
}

// TestKKTPassChunked: the full pass in chunks of 37 rows, with 0, 1 or 3
// helpers, and in one chunk, takes the same steps as the plain sequential
// loop (same α, w, objective, step and operation counts, violation and
// answer, to the bit) from states with no violator, a few scattered ones,
// and many; its primal value does not depend on the helpers, and helpers
// do scan chunks.
func TestKKTPassChunked(t *testing.T) {
	d := binaryData(61, 3000, 300, 0.03, 0.1, 2)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	chunked := solver.DefaultTuning()
	chunked.KKTChunkRows, chunked.KKTParallelNNZ = 37, 0
	whole := solver.DefaultTuning()
	whole.KKTChunkRows = d.Rows
	// The pass as the sequential loop has it: without the hinge loss's
	// gap rule, which may refuse a certified point (TestTighten).
	noGap := DefaultTuning()
	noGap.HingeGapSpend = 0
	variants := []struct {
		name    string
		tune    *solver.Tuning
		helpers int
	}{{"one chunk", &whole, 0}, {"chunks", &chunked, 0}, {"chunks/1 helper", &chunked, 1}, {"chunks/3 helpers", &chunked, 3}}

	var helperChunks atomic.Int64
	firstInLaterChunk := false
	for _, loss := range losses {
		p, obj := newProblem(t, d, loss, 0, 2, 1, &noGap)
		p.drv = &chunked
		// A few epochs of acf+shrink: α at bounds and inside, w moved.
		r := solver.NewRun(p, solver.Config{Selection: solver.ACFShrink, Seed: 3, MaxEpochs: 3, Tuning: &chunked})
		r.Obj = obj
		if r.Solve(3) || !r.Capped() {
			t.Fatalf("%s: the run did not stop at its cap", lossNames[loss])
		}
		viols := make([]float64, d.Rows)
		q := *p // counts the non-zeros read here instead of p
		for i := range viols {
			viols[i], _, _ = q.eval(int32(i), q.DotRow(int32(i), q.W))
		}
		sorted := slices.Clone(viols)
		slices.Sort(sorted)
		for _, eps := range testkit.Tolerances(sorted) {
			for _, repair := range []bool{false, true} {
				name := fmt.Sprintf("%s/eps=%.3g/repair=%v", lossNames[loss], eps, repair)
				p.Eps = eps
				if repair {
					first := slices.IndexFunc(viols, func(v float64) bool { return v > eps })
					firstInLaterChunk = firstInLaterChunk || first >= 2*chunked.KKTChunkRows
				}
				ref := clone(p, &whole, nil)
				rr := solver.NewRun(ref, solver.Config{Selection: solver.ACFShrink})
				rr.Obj = r.Obj
				okRef := passSequential(ref, rr, repair)
				var primal []float64
				for _, v := range variants {
					got := clone(p, v.tune, procs.NewPool(v.helpers))
					rg := solver.NewRun(got, solver.Config{Selection: solver.ACFShrink})
					rg.Obj = r.Obj
					ok := got.Pass(rg, repair)
					if ok != okRef || !testkit.SameBits(got.W, ref.W) || !testkit.SameBits(got.Alpha, ref.Alpha) || !testkit.SameBits(got.AlphaC, ref.AlphaC) ||
						math.Float64bits(rg.Obj) != math.Float64bits(rr.Obj) || rg.Steps != rr.Steps || got.Ops != ref.Ops ||
						math.Float64bits(got.PassViol) != math.Float64bits(ref.PassViol) {
						t.Errorf("%s, %s: ok %v steps %d ops %d obj %v viol %v; sequential loop: ok %v steps %d ops %d obj %v viol %v",
							name, v.name, ok, rg.Steps, got.Ops, rg.Obj, got.PassViol, okRef, rr.Steps, ref.Ops, rr.Obj, ref.PassViol)
					}
					if math.Abs(got.PassPrimal-ref.PassPrimal) > 1e-12*max(1, math.Abs(ref.PassPrimal)) {
						t.Errorf("%s, %s: primal %v, sequential loop %v", name, v.name, got.PassPrimal, ref.PassPrimal)
					}
					if v.tune == &chunked {
						primal = append(primal, got.PassPrimal)
					}
					if !repair && v.helpers > 0 {
						// The read-only pass again, as Pass runs it, counting
						// the chunks helper goroutines scan.
						h := clone(p, v.tune, procs.NewPool(v.helpers))
						viol, loss, _, _ := solver.RowPass(h.drv, h.Pool, &h.chunks, h.N, h.RP[h.N], func(helper bool) func(lo, hi int) solver.Chunk {
							h := *h // each goroutine's own counters
							return func(lo, hi int) solver.Chunk {
								if helper {
									helperChunks.Add(1)
								}
								return h.scan(lo, hi, false)
							}
						}, nil)
						var ww float64
						for _, x := range h.W {
							ww += x * x
						}
						if viol != got.PassViol || 0.5*ww+loss != got.PassPrimal {
							t.Errorf("%s, %s: RowPass gives violation %v primal %v, Pass %v %v", name, v.name, viol, 0.5*ww+loss, got.PassViol, got.PassPrimal)
						}
					}
				}
				if !testkit.SameBits(primal, []float64{primal[0], primal[0], primal[0]}) {
					t.Errorf("%s: primal values %v depend on the helpers", name, primal)
				}
			}
		}
	}
	if helperChunks.Load() == 0 {
		t.Error("no chunk ran on a helper")
	}
	if !firstInLaterChunk {
		t.Error("no case had its first violator past the first chunks")
	}
}
