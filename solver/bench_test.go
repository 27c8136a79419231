package solver

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchProblem is about the cheapest problem there is, so that a run of
// it measures the driver: a step looks up its projected gradient and
// scales its gain by a xorshift draw (the ACF preferences keep moving);
// one coordinate in eight sits at a bound with a gradient beyond any
// threshold and shrinks once the thresholds are finite. It never
// converges under eps < 0.1, so the run ends at the epoch cap.
type benchProblem struct {
	pg, gain []float64
	bound    []bool
	state    uint64
}

func newBenchProblem(n int) *benchProblem {
	rng := rand.New(rand.NewPCG(uint64(n), 37))
	p := &benchProblem{pg: make([]float64, n), gain: make([]float64, n), bound: make([]bool, n), state: 1}
	for i := range n {
		p.pg[i] = (0.1 + 0.9*rng.Float64()) * float64(2*rng.IntN(2)-1)
		p.gain[i] = rng.ExpFloat64()
		p.bound[i] = rng.IntN(8) == 0
	}
	return p
}

func (p *benchProblem) Len() int { return len(p.pg) }

func (p *benchProblem) Step(i, _ int32, th Thresholds) (pg, gain float64, shrink bool) {
	if p.bound[i] {
		return 0, 0, 10 > th.Max
	}
	s := p.state
	s ^= s << 13
	s ^= s >> 7
	s ^= s << 17
	p.state = s
	return p.pg[i], p.gain[i] * float64(s>>40) * 0x1p-24, false
}

func (p *benchProblem) Pass(*Run, bool) bool { return false }

// BenchmarkSolve measures the driver's cost per coordinate step (the
// selection, the epoch clock, the ACF bookkeeping) on benchProblem: one
// Solve of about b.N steps. ns/op is about ns/step; steps/s and ns/step
// count the steps actually made (shrunk coordinates make sweeps shorter).
func BenchmarkSolve(b *testing.B) {
	for _, sel := range allSelections {
		for _, n := range []int{1000, 100000} {
			b.Run(fmt.Sprintf("sel=%v/n=%d", sel, n), func(b *testing.B) {
				p := newBenchProblem(n)
				r := NewRun(p, Config{Selection: sel, Eps: 1e-3, MaxEpochs: max(1, (b.N+n-1)/n)})
				b.ReportAllocs()
				b.ResetTimer()
				r.Solve(1)
				b.StopTimer()
				if !r.Capped() {
					b.Fatal("not capped")
				}
				b.ReportMetric(float64(r.Steps)/b.Elapsed().Seconds(), "steps/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(r.Steps), "ns/step")
			})
		}
	}
}

// TestSolveAllocs: after the setup of a Solve (its scheduler and
// preferences), the steps allocate nothing: a run of 40 epochs allocates
// as much as one of 2, with whole and with streamed sweeps.
func TestSolveAllocs(t *testing.T) {
	for _, sel := range allSelections {
		for _, tune := range []*Tuning{nil, streamed(64)} {
			p := newBenchProblem(1000)
			allocs := func(epochs int) float64 {
				return testing.AllocsPerRun(2, func() {
					NewRun(p, Config{Selection: sel, Eps: 1e-3, MaxEpochs: epochs, Tuning: tune}).Solve(1)
				})
			}
			if a2, a40 := allocs(2), allocs(40); a40 != a2 {
				t.Errorf("%v streamed %v: %v allocations in 2 epochs, %v in 40", sel, tune != nil, a2, a40)
			}
		}
	}
}
