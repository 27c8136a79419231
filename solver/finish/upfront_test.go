package finish

import (
	"testing"

	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
)

// TestUpfrontRule: the up-front rule on shapes at its boundaries (the
// defaults: a Newton solve of at most 64 dual epochs, one epoch of dual CD
// first where one step costs 10 epochs or more, mean C‖x‖² at least 0.5,
// dense Newton). The data's size plays no part.
func TestUpfrontRule(t *testing.T) {
	def := DefaultTuning()
	u := upfront{&def}
	ok := shape{dense: true, solve: 4800, step: 999, epoch: 100, kappa: 0.5}
	tiny := ok
	tiny.solve, tiny.step, tiny.epoch = 48, 9, 1
	for name, tc := range map[string]struct {
		s    shape
		want start
	}{
		"newton":           {ok, newtonFirst},
		"tiny data":        {tiny, newtonFirst},
		"epoch, newton":    {shape{dense: true, solve: ok.solve, step: 1000, epoch: ok.epoch, kappa: ok.kappa}, epochFirst},
		"newton-cg":        {shape{dense: false, solve: ok.solve, step: ok.step, epoch: ok.epoch, kappa: ok.kappa}, dualFirst},
		"costly solve":     {shape{dense: true, solve: 6401, step: ok.step, epoch: ok.epoch, kappa: ok.kappa}, dualFirst},
		"well conditioned": {shape{dense: true, solve: ok.solve, step: ok.step, epoch: ok.epoch, kappa: 0.4999}, dualFirst},
		"no epoch":         {shape{dense: true, solve: 0, step: 0, epoch: 0, kappa: ok.kappa}, dualFirst},
	} {
		if got := u.choose(tc.s); got != tc.want {
			t.Errorf("%s %+v: start %d, want %d", name, tc.s, got, tc.want)
		}
	}
	off := def
	off.PrimalFirstStep = 0
	if got := (upfront{&off}).choose(ok); got != dualFirst {
		t.Errorf("PrimalFirstStep 0: start %d", got)
	}
}

// TestPrimalFirst: the finisher's decision on real subproblems at the
// defaults: few features and a large C go to
// Newton first; C small enough that mean C‖x‖² < 0.5, a costly Hessian
// and too many features for dense Newton do not. (-s 3 and a run with the
// fallback off have no Newton finisher at all.)
func TestPrimalFirst(t *testing.T) {
	tune := defaults()
	low := lowDim() // 12 features, values in [−3, 3]: mean ‖x‖² about 25
	wide := &dataio.Dataset{Rows: 2, Features: tune.primal.NewtonDenseMax + 10, RowPtr: []int64{0, 1, 2},
		Index: []int32{0, int32(tune.primal.NewtonDenseMax) + 5}, Value: []float64{1, 1}, Label: []float64{1, -1}}
	dense := overlapping(4, 200, 300, 0.9, 0.1, 1) // a Hessian of 270²/2 per row, a step of hundreds of epochs
	for _, tc := range []struct {
		name string
		d    *dataio.Dataset
		loss dcd.Loss
		c    float64
		want bool
	}{
		{"-s 1 C=100", low, dcd.L2SVM, 100, true},
		{"-s 7 C=1", low, dcd.Logistic, 1, true},
		{"-s 1 C=0.01", low, dcd.L2SVM, 0.01, false},
		{"costly Hessian", dense, dcd.L2SVM, 100, false},
		{"Newton-CG", wide, dcd.Logistic, 100, false},
	} {
		x := newFixture(t, tc.d, tc.loss, tc.c, 1e-3, -1, &tune, true)
		if got := x.newton.First(); got != tc.want {
			t.Errorf("%s: Newton first %v, want %v", tc.name, got, tc.want)
		}
		if tc.want && x.newton.rule.budget == 1 {
			t.Errorf("%s: Newton first, and a switch due after the first epoch", tc.name)
		}
	}
	// A costlier step (PrimalFirstEpoch lowered below this data's): one
	// epoch of dual CD first, the switch due at its end.
	epoch := tune
	epoch.fin.PrimalFirstEpoch = 1
	x := newFixture(t, low, dcd.L2SVM, 100, 1e-3, -1, &epoch, true)
	if x.newton.First() || x.newton.rule.budget != 1 {
		t.Errorf("one epoch first: Newton first %v, budget %d", x.newton.First(), x.newton.rule.budget)
	}
	if x.run(solver.ACFShrink, 1000); !x.r.Handover() || x.r.Epochs() != 1 {
		t.Errorf("one epoch first: switch %v after %d epochs", x.r.Handover(), x.r.Epochs())
	}
	// A small set (48k non-zeros) goes to Newton first all the same.
	if x := newFixture(t, low, dcd.L2SVM, 100, 1e-3, -1, nil, true); !x.newton.First() {
		t.Errorf("%d non-zeros: not Newton first", low.RowPtr[low.Rows])
	}
}
