package finish

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/primal"
)

// overlapping returns rows examples over feats features, each present with
// probability density and uniform in [−scale, scale], labelled ±1 by a
// random hyperplane with a fraction noise of the labels flipped: at large
// C the dual of such overlapping classes stalls, the finishers' case.
func overlapping(seed uint64, rows, feats int, density, noise, scale float64) *dataio.Dataset {
	r := rand.New(rand.NewPCG(seed, 5))
	return synth.Linear(r, rows, feats, noise, func(_, _ int) (float64, bool) {
		if r.Float64() >= density {
			return 0, false
		}
		return scale * (2*r.Float64() - 1), true
	})
}

// lowDim is the case the finishers exist for: many overlapping examples,
// few features.
func lowDim() *dataio.Dataset { return overlapping(21, 4000, 12, 0.7, 0.25, 3) }

// messyRows is a small problem with unsorted rows, a repeated index and an
// empty row, as a Dataset built by hand may have; with f32 its values are
// stored as float32 (all exact in float32).
func messyRows(f32 bool) *dataio.Dataset {
	d := &dataio.Dataset{Rows: 5, Features: 6, RowPtr: []int64{0, 4, 6, 6, 9, 12},
		Index: []int32{5, 2, 0, 2, 1, 3, 4, 0, 4, 3, 5, 1},
		Value: []float64{0.5, -1.25, 2, 0.75, 3, -1, 1.5, -0.5, 2.25, 1, -2, 0.125},
		Label: []float64{1, -1, 1, 1, -1}}
	if f32 {
		d.Value32 = make([]float32, len(d.Value))
		for k, v := range d.Value {
			d.Value32[k] = float32(v)
		}
		d.Value = nil
	}
	return d
}

// fixture is one binary subproblem (label +1 positive, cost c for both
// classes) with its finisher, set up as package dual's training does:
// Newton for -s 1 and 7, IPM for -s 3.
type fixture struct {
	p      *dcd.Problem
	newton *Newton
	ipm    *IPM
	fin    solver.Finisher // the run's finisher: nil when off
	t      *tunings
	r      *solver.Run
	obj    float64 // the objective after Reset
}

// tunings are the constants a fixture runs under: the finishers', dense
// Newton's and the driver's.
type tunings struct {
	fin    Tuning
	primal primal.Tuning
	drv    solver.Tuning
}

func defaults() tunings {
	return tunings{DefaultTuning(), primal.DefaultTuning(), solver.DefaultTuning()}
}

// newFixture sets up d's subproblem; bias < 0 means none, tune nil the
// defaults, and on whether the finisher may switch at all (off, it is
// there to be called directly).
func newFixture(t *testing.T, d *dataio.Dataset, loss dcd.Loss, c, eps, bias float64, tune *tunings, on bool) *fixture {
	t.Helper()
	if tune == nil {
		def := defaults()
		tune = &def
	}
	dt := dcd.DefaultTuning()
	sh := dcd.NewData(d, bias, &dt)
	x := &fixture{t: tune}
	x.p = dcd.New(sh, loss, eps, nil, nil, &tune.drv, &dt)
	x.obj = x.p.Reset(1, c, c)
	if loss == dcd.L1SVM {
		x.ipm = NewIPM(x.p, &tune.fin, &tune.primal)
		x.ipm.Reset()
		if on {
			x.fin = x.ipm
		}
	} else {
		x.newton = NewNewton(x.p, &tune.fin, &tune.primal)
		x.newton.Reset()
		if on {
			x.fin = x.newton
		}
	}
	return x
}

// run starts dual CD with sel (seed 3) and runs it until a full pass
// certifies its point (true), the epoch cap, or the switch rule hands
// over to the finisher (x.r.Handover()).
func (x *fixture) run(sel solver.Selection, maxEpochs int) bool {
	repair := solver.RepairMax
	if x.p.Loss == dcd.Logistic {
		repair = solver.RepairAtLeastOne
	}
	x.r = solver.NewRun(x.p, solver.Config{Selection: sel, Seed: 3, Eps: x.p.Eps, MaxEpochs: maxEpochs,
		EarlyCheck: true, Repair: repair, Work: 2 * x.p.NNZ(), Finisher: x.fin, Tuning: &x.t.drv})
	x.r.Obj = x.obj
	return x.r.Solve(3)
}

// snapshot copies the dual state: α, C − α and w.
func (x *fixture) snapshot() (alpha, alphaC, w []float64) {
	return append([]float64(nil), x.p.Alpha...), append([]float64(nil), x.p.AlphaC...), append([]float64(nil), x.p.W...)
}

// checkState fails unless the dual state is bit for bit the snapshot.
func (x *fixture) checkState(t *testing.T, alpha, alphaC, w []float64) {
	t.Helper()
	for _, c := range []struct {
		name      string
		got, want []float64
	}{{"α", x.p.Alpha, alpha}, {"C − α", x.p.AlphaC, alphaC}, {"w", x.p.W, w}} {
		for i := range c.want {
			if math.Float64bits(c.got[i]) != math.Float64bits(c.want[i]) {
				t.Fatalf("%s[%d] = %v, want %v", c.name, i, c.got[i], c.want[i])
			}
		}
	}
}
