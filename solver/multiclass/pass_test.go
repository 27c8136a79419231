package multiclass

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/testkit"
	solver "github.com/acfcd/acfcd/solver"
)

// clone copies s's point and counters, with tuning t, helpers from pool
// and scratch of its own.
func clone(s *WW, t *solver.Tuning, pool *procs.Pool) *WW {
	c := *s
	c.W, c.Alpha = slices.Clone(s.W), slices.Clone(s.Alpha)
	K := s.K
	c.dec, c.grad, c.coef, c.t, c.srt = make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K), make([]float64, K)
	c.chunks = nil
	c.tune, c.pool = t, pool
	return &c
}

// TestWWKKTPassChunked: a full pass cut into many small chunks, scanned
// with 0, 1 or 3 helpers, takes the same steps as the pass in one chunk
// (the plain sequential loop): the same α, W, objective, step and
// operation counts, violation and answer, to the bit, from states with no
// violator, a few scattered ones, and many, with and without repair; its
// primal value agrees to rounding (the chunk sums are added in another
// order) and does not depend on the helpers.
func TestWWKKTPassChunked(t *testing.T) {
	d, class := classData(67, 2500, 200, 4, 0.04, 0.1, 0)
	ub := []float64{1, 2, 1, 0.5}
	base := solver.DefaultTuning()
	s := NewWW(d, class, ub, 1, 0, nil, &base)
	run := solver.NewRun(s, solver.Config{Selection: solver.ACF, Seed: 5, MaxEpochs: 3, Work: s.Work(), Tuning: &base})
	if run.Solve(5) || !run.Capped() {
		t.Fatal("the three epochs to the test point did not end at the cap")
	}
	viols := make([]float64, d.Rows)
	for i := range viols {
		_, viols[i] = s.eval(int32(i))
	}
	sorted := slices.Clone(viols)
	slices.Sort(sorted)
	one := base
	one.KKTChunkRows = d.Rows
	small := base
	small.KKTChunkRows, small.KKTParallelNNZ = 37, 0
	for _, eps := range testkit.Tolerances(sorted) {
		for _, repair := range []bool{false, true} {
			name := fmt.Sprintf("eps=%.3g/repair=%v", eps, repair)
			s.eps = eps
			pass := func(p *WW) (ok bool, r *solver.Run) {
				r = solver.NewRun(p, solver.Config{Selection: solver.ACF, Eps: eps, MaxEpochs: 1, Tuning: p.tune})
				r.Obj = p.Objective()
				return p.Pass(r, repair), r
			}
			ref := clone(s, &one, nil)
			okRef, rRef := pass(ref)
			maxViol := sorted[len(sorted)-1]
			if okRef != (maxViol <= eps) || (repair && (maxViol > eps) != (rRef.Steps > 0)) || (!repair && (rRef.Steps != 0 || ref.PassViol != maxViol)) {
				t.Fatalf("%s: one chunk: ok %v after %d steps, violation %g; largest violation %g", name, okRef, rRef.Steps, ref.PassViol, maxViol)
			}
			var primal []float64
			for _, helpers := range []int{0, 1, 3} {
				got := clone(s, &small, procs.NewPool(helpers))
				ok, r := pass(got)
				if ok != okRef || !testkit.SameBits(got.W, ref.W) || !testkit.SameBits(got.Alpha, ref.Alpha) ||
					math.Float64bits(r.Obj) != math.Float64bits(rRef.Obj) || r.Steps != rRef.Steps || got.Ops != ref.Ops ||
					math.Float64bits(got.PassViol) != math.Float64bits(ref.PassViol) {
					t.Errorf("%s, %d helpers: ok %v steps %d ops %d obj %v viol %v; one chunk: ok %v steps %d ops %d obj %v viol %v",
						name, helpers, ok, r.Steps, got.Ops, r.Obj, got.PassViol, okRef, rRef.Steps, ref.Ops, rRef.Obj, ref.PassViol)
				}
				if math.Abs(got.PassPrimal-ref.PassPrimal) > 1e-12*max(1, math.Abs(ref.PassPrimal)) {
					t.Errorf("%s, %d helpers: primal %v, one chunk %v", name, helpers, got.PassPrimal, ref.PassPrimal)
				}
				primal = append(primal, got.PassPrimal)
			}
			if !testkit.SameBits(primal, []float64{primal[0], primal[0], primal[0]}) {
				t.Errorf("%s: primal values %v depend on the helpers", name, primal)
			}
		}
	}
}
