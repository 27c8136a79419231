package dual

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/primal"
)

// contradictory returns wide text-like data (d+1 > primal.Tuning's
// NewtonDenseMax, so no interior-point finisher) with raw-count-like
// values, in which some rows appear again with the other label (and some
// twice more, some once more with their own label).
func contradictory() *dataio.Dataset {
	base := synth.Text(synth.TextConfig{Rows: 600, Features: primal.DefaultTuning().NewtonDenseMax + 500, MeanNNZ: 40, Informative: 200, Noise: 0.05, Seed: 11})
	d := &dataio.Dataset{Features: base.Features, RowPtr: []int64{0}, Value: []float64{}}
	add := func(i int, y float64) {
		a, b := base.RowPtr[i], base.RowPtr[i+1]
		d.Index = append(d.Index, base.Index[a:b]...)
		for _, v := range base.Value[a:b] {
			d.Value = append(d.Value, math.Round(5*math.Abs(v))+1) // counts: large ‖x‖²
		}
		d.Label = append(d.Label, y)
		d.RowPtr = append(d.RowPtr, int64(len(d.Index)))
		d.Rows++
	}
	for i := range base.Rows {
		add(i, base.Label[i])
	}
	for i := 0; i < base.Rows; i += 37 {
		add(i, -base.Label[i])
		if i%74 == 0 {
			add(i, base.Label[i])
			add(i, -base.Label[i])
		}
		if i%111 == 0 {
			add(i, base.Label[i]) // uneven groups: 2+1 and 3+2 rows
		}
	}
	return d
}

// TestPushDups: on wide data with contradictory copies, the -s 3 and -s 1
// duals converge far sooner with the push, to the same dual optimum as
// without (both at a tight eps), certified independently; NoFallback
// turns it off; the same seed gives a bit-identical model. (The grouping
// and the push themselves: solver/finish's TestDupGroups and TestPush.)
func TestPushDups(t *testing.T) {
	if testing.Short() {
		t.Skip("long (seconds natively, minutes emulated); go test without -short runs it")
	}
	d := contradictory()
	for _, k := range []Kind{L1LossSVC, L2LossSVC} {
		for _, sel := range dualSelections {
			if k == L2LossSVC && (sel == solver.Uniform || sel == solver.Shrink) {
				continue // slow at C = 50 (20 s), and no default
			}
			for _, c := range []float64{1, 50} {
				t.Run(fmt.Sprintf("s=%s/%s/C=%g", flag(k), sel, c), func(t *testing.T) {
					if testing.Short() && c == 50 && (sel == solver.Uniform || sel == solver.Shrink) {
						t.Skip("-short: without the push this takes 15000 epochs")
					}
					testPushDups(t, d, k, sel, c)
				})
			}
		}
	}
}

func testPushDups(t *testing.T, d *dataio.Dataset, k Kind, sel solver.Selection, c float64) {
	const eps = 1e-4
	noPush := DefaultTuning()
	noPush.PushDups = false
	noPushCtx := tune.With(context.Background(), &noPush)
	s := Spec{Spec: fit.Spec{C: c, Eps: eps, Bias: 1, Weights: map[float64]float64{-1: 2}, Select: sel, Seed: 4, MaxEpochs: 1000000}, Kind: k}
	_, ref, _ := mustTrainCtx(t, noPushCtx, d, s)
	m, res, duals := mustTrain(t, d, s)
	if !res.Converged || !ref.Converged {
		t.Fatalf("not converged: push %+v, none %+v", res, ref)
	}
	if k == L1LossSVC {
		checkDual(t, d, m, duals[0], res, L1LossSVC, eps)
	} else if ind := evalIndependent(d, m, 0, duals[0], k); ind.violation > eps*(1+1e-9) || ind.wDiff > 1e-10 || testkit.RelDiff(ind.dual, res.Objective) > 1e-9 {
		t.Errorf("independent: violation %g (eps %g), w mismatch %g, dual %v (reported %v)", ind.violation, eps, ind.wDiff, ind.dual, res.Objective)
	}
	if rd := testkit.RelDiff(res.Objective, ref.Objective); rd > 1e-6 {
		t.Errorf("dual %.12g, without the push %.12g", res.Objective, ref.Objective)
	}
	if k == L1LossSVC {
		// -s 3 has no finisher on this data: without the fallback the run
		// is the one without the push, step for step (compared over the
		// first 200 epochs: at C = 50 the whole run takes 15000).
		q := s
		q.NoFallback, q.MaxEpochs = true, 200
		offM, off, _ := mustTrain(t, d, q)
		q.NoFallback = false
		noneM, none, _ := mustTrainCtx(t, noPushCtx, d, q)
		if off.Iterations != none.Iterations || off.Objective != none.Objective || !testkit.SameBits(offM.W, noneM.W) {
			t.Errorf("NoFallback: %d steps, objective %v; without the push %d, %v", off.Iterations, off.Objective, none.Iterations, none.Objective)
		}
	}
	if need := map[Kind]int64{L1LossSVC: 4, L2LossSVC: 2}[k]; c >= 50 && res.Iterations*need > ref.Iterations {
		t.Errorf("push: %d steps, without: %d (want %d× fewer)", res.Iterations, ref.Iterations, need)
	}
	t.Logf("steps %d (%d epochs) with the push, %d (%d) without", res.Iterations, res.Epochs, ref.Iterations, ref.Epochs)
	m2, _, _ := mustTrain(t, d, s)
	if !testkit.SameBits(m.W, m2.W) {
		t.Fatalf("w %v, then %v", m.W, m2.W)
	}
}

// TestTronDefer: a large-d -s 1 dual whose last sweep is near eps when the
// switch rule fires gets more passes before Newton-CG. Forced on (any
// violation counts as near) and off, the runs take different paths, and
// both converge, certified independently.
func TestTronDefer(t *testing.T) {
	d := contradictory()
	const eps = 1e-3
	noPush := DefaultTuning()
	noPush.PushDups = false // so that the dual stalls and the rule fires
	var steps [2]int64
	for k, near := range []float64{0, math.Inf(1)} {
		fin := finish.DefaultTuning()
		fin.TronNearViol = near
		ctx := tune.With(tune.With(context.Background(), &noPush), &fin)
		s := Spec{Spec: fit.Spec{C: 50, Eps: eps, Select: solver.ACFShrink, Seed: 4}, Kind: L2LossSVC}
		m, res, duals := mustTrainCtx(t, ctx, d, s)
		ind := evalIndependent(d, m, 0, duals[0], L2LossSVC)
		if !res.Converged || ind.violation > eps*(1+1e-9) {
			t.Errorf("TronNearViol=%v: converged %v, independent violation %g", near, res.Converged, ind.violation)
		}
		if k == 0 && res.NewtonSteps == 0 {
			t.Fatalf("the switch rule never fired (%d steps): the test needs a stalling dual", res.Iterations)
		}
		steps[k] = res.Iterations
	}
	if steps[0] == steps[1] {
		t.Errorf("deferring the switch changed nothing (%d steps both ways)", steps[0])
	}
}
