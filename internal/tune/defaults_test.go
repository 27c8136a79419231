package tune_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/acfcd/acfcd/internal/tune"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/dual"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/l1"
	"github.com/acfcd/acfcd/solver/lasso"
	"github.com/acfcd/acfcd/solver/multiclass"
	"github.com/acfcd/acfcd/solver/primal"
)

// TestDefaults: every family's defaults are the documented values
// (docs/tuning.md); a change to one, or a new constant, must change this
// table too. (PushDups and DupsMaxRows are both the dual family's and the
// Crammer–Singer SVM's.)
func TestDefaults(t *testing.T) {
	want := map[string]any{
		"PrefetchAhead":    2,
		"PollWork":         int64(1 << 20),
		"SweepStreamMin":   1 << 22,
		"SweepChunk":       1 << 21,
		"EarlyCheck":       10.0,
		"PartialUnshrinks": 3,
		"KKTChunkRows":     1024,
		"KKTParallelNNZ":   int64(1 << 16),

		"XsqStoreMax": 1 << 22,
		"PushDups":    true,
		"DupsMaxRows": 1 << 22,

		"HingeGapRel":     0.003,
		"HingeGapTighten": 0.5,
		"HingeGapSpend":   0.5,
		"HingeGapRounds":  4,

		"SmallNNZ":     int64(200000),
		"SmallTighten": 0.25,

		"DualStepOps":      int64(8),
		"SwitchOps":        int64(0),
		"NewtonDenseMax":   4096,
		"DenseOpCost":      0.5,
		"NewtonGuessIters": int64(10),
		"NewtonOpsSVM":     0.4,
		"NewtonOpsLR":      0.25,
		"NewtonMaxIter":    100,
		"NewtonDropSum":    1.0,
		"NewtonViolCheck":  4.0,
		"NewtonRayMax":     0.5,

		"PrimalFirstStep":  64.0,
		"PrimalFirstKappa": 0.5,
		"PrimalFirstEpoch": 10.0,

		"HessianParallelOps": int64(1 << 18),
		"HessianMaxParts":    4,
		"HessianKeepMax":     2048,
		"HessianDropRel":     1e-10,
		"RowParts":           8,

		"TronSwitchPasses": int64(100),
		"TronNearViol":     4.0,
		"TronDeferPasses":  int64(20),
		"TronGapRel":       1e-3,
		"TronBudgetPasses": int64(50),
		"TronMaxRounds":    8,
		"TronMaxIter":      200,

		"IPMGuessIters":  int64(10),
		"IPMOpsRatio":    0.15,
		"SVRIPMOpsRatio": 0.15,
		"SVRIPMNear":     4.0,
		"SVRIPMMaxDefer": 4,
		"SVRIPMStopRel":  1e-12,
		"IPMMaxRounds":   2,
		"IPMNearGap":     1e-4,
		"IPMMaxDefer":    4,
		"IPMProbeAt":     0.5,
		"IPMFarViol":     10.0,
		"IPMFarGap":      0.1,
		"IPMSettleRel":   1e-4,
		"IPMSettleFrac":  0.1,
		"IPMSettleMul":   0.1,
		"IPMMaxIter":     80,
		"IPMRoundRel":    1e-3,
		"IPMStopRel":     1e-4,
		"IPMTheta":       0.3,
		"IPMKappa":       10.0,
		"IPMParallelNNZ": int64(1 << 16),
		"IPMMaxParts":    4,
		"IPMPartsMem":    32 << 20,
		"BinaryRows":     true,

		"CSCertify":        0.5,
		"CSGap":            1e-3,
		"CSGatherDiv":      16,
		"L1StepOps":        8,
		"SVCBranchInside":  0.25,
		"L1InnerMaxEpochs": 20,
		"L1DenseEpochs":    16.0,
		"L1DenseMax":       1 << 20,

		"LassoGapMaxWait": 8,
		"LassoWSMin":      100,
		"LassoInnerRel":   0.3,
		"LassoGrowMargin": 0.05,
		"LassoGapEvery":   10,
		"LassoStepOps":    8,
		"LassoACFMinNNZ":  32.0,
		"LassoNewton":     1.0,
		"LassoNewtonRows": 0.5,

		"LassoContinue":      0.05,
		"LassoContinueRows":  0.1,
		"LassoContinueSteps": 2,
		"LassoContinueGap":   1e-2,
		"LassoGram":          true,
	}
	structs := []any{solver.DefaultTuning(), fit.DefaultTuning(), dcd.DefaultTuning(), dual.DefaultTuning(),
		finish.DefaultTuning(), primal.DefaultTuning(), multiclass.DefaultTuning(), l1.DefaultTuning(), lasso.DefaultTuning()}
	seen := map[string]bool{}
	for _, s := range structs {
		d := reflect.ValueOf(s)
		for i := range d.NumField() {
			name := d.Type().String() + "." + d.Type().Field(i).Name
			w, ok := want[d.Type().Field(i).Name]
			if !ok {
				t.Errorf("%s = %v has no documented default in this table", name, d.Field(i))
				continue
			}
			if got := d.Field(i).Interface(); got != w {
				t.Errorf("%s = %v (%T), want %v (%T)", name, got, got, w, w)
			}
			seen[d.Type().Field(i).Name] = true
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("the table has %s, no Tuning has it", name)
		}
	}
}

// TestWithGet: a training under With reads the copy it was given, and
// without one the defaults, in a fresh struct each time.
func TestWithGet(t *testing.T) {
	ctx := context.Background()
	l := lasso.DefaultTuning()
	l.LassoWSMin = 7
	in := tune.With(ctx, &l)
	if got := tune.Get(in, lasso.DefaultTuning); got != &l {
		t.Errorf("Get under With: %p, want the copy given (%p)", got, &l)
	}
	if got := tune.Get(in, solver.DefaultTuning); *got != solver.DefaultTuning() {
		t.Errorf("another family's under With: %+v", *got)
	}
	a, b := tune.Get(ctx, lasso.DefaultTuning), tune.Get(ctx, lasso.DefaultTuning)
	if a == b || *a != lasso.DefaultTuning() {
		t.Errorf("without With: %p, %p, %+v", a, b, *a)
	}
}
