package solver

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// contradictory returns wide text-like data (d+1 > newtonDenseMax, so no
// interior-point finisher) with raw-count-like values, in which some rows
// appear again with the other label (and some twice more, some once
// more with their own label).
func contradictory() *dataio.Dataset {
	base := synth.Text(synth.TextConfig{Rows: 600, Features: newtonDenseMax + 500, MeanNNZ: 40, Informative: 200, Noise: 0.05, Seed: 11})
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

// TestDupGroups: identical rows with more than one label are grouped,
// rows that differ in a value or an index are not.
func TestDupGroups(t *testing.T) {
	d := &dataio.Dataset{Rows: 6, Features: 4, RowPtr: []int64{0, 2, 4, 6, 7, 9, 11},
		Index: []int32{0, 2, 0, 2, 0, 3, 1, 0, 2, 0, 2},
		Value: []float64{1, 2, 1, 2, 1, 2, 5, 1, 2.5, 1, 2},
		Label: []float64{1, -1, 1, 1, -1, 1}}
	sh := newShared(d, l1svm, selACF, 1e-3, -1, 10, Params{}.ACF)
	rows, off := sh.dupGroups()
	if !slices.Equal(rows, []int32{0, 1, 5}) || !slices.Equal(off, []int32{0, 3}) {
		t.Errorf("groups %v at %v, want [0 1 5] at [0 3]", rows, off)
	}
	d.Index[1] = 3 // row 0 now equals row 2 instead
	rows, off = sh.dupGroups()
	if !slices.Equal(rows, []int32{1, 5}) || !slices.Equal(off, []int32{0, 2}) {
		t.Errorf("groups %v at %v, want only {1,5} ({0,2} share their label)", rows, off)
	}
}

// TestPushDups: on wide data with contradictory copies, the -s 3 and -s 1
// duals converge far sooner with the push, to the same dual optimum as
// without (both at a tight eps), certified independently; NoFallback
// turns it off; the same seed gives a bit-identical model.
func TestPushDups(t *testing.T) {
	d := contradictory()
	for _, s := range []int{3, 1} {
		for _, sel := range allSelections {
			if s == 1 && (sel == "uniform" || sel == "shrink") {
				continue // slow at C = 50 (20 s), and no default
			}
			for _, c := range []float64{1, 50} {
				t.Run(fmt.Sprintf("s=%d/%s/C=%g", s, sel, c), func(t *testing.T) { testPushDups(t, d, s, sel, c) })
			}
		}
	}
}

func testPushDups(t *testing.T, d *dataio.Dataset, s int, sel string, c float64) {
	const eps = 1e-4
	p := Params{Solver: s, C: c, Eps: eps, Bias: 1, Weights: map[float64]float64{-1: 2}, Select: sel, Seed: 4, MaxEpochs: 1000000}
	usePushDups = false
	_, ref, _ := mustTrain(t, d, p)
	usePushDups = true
	p.NoFallback = true
	_, off, _ := mustTrain(t, d, p)
	p.NoFallback = false
	m, res, duals := mustTrain(t, d, p)
	if !res.Converged || !ref.Converged {
		t.Fatalf("not converged: push %+v, none %+v", res, ref)
	}
	if s == 3 {
		checkHinge(t, d, m, duals[0], res, eps)
	} else if ind := evalIndependent(d, m, 0, duals[0], s); ind.violation > eps*(1+1e-9) || ind.wDiff > 1e-10 || relDiff(ind.dual, res.Objective) > 1e-9 {
		t.Errorf("independent: violation %g (eps %g), w mismatch %g, dual %v (reported %v)", ind.violation, eps, ind.wDiff, ind.dual, res.Objective)
	}
	if rd := relDiff(res.Objective, ref.Objective); rd > 1e-6 {
		t.Errorf("dual %.12g, without the push %.12g", res.Objective, ref.Objective)
	}
	if s == 3 && (off.Iterations != ref.Iterations || off.Objective != ref.Objective) {
		t.Errorf("NoFallback: %d steps, objective %v; without the push %d, %v", off.Iterations, off.Objective, ref.Iterations, ref.Objective)
	}
	if need := map[int]int64{3: 4, 1: 2}[s]; c >= 50 && res.Iterations*need > ref.Iterations {
		t.Errorf("push: %d steps, without: %d (want %d× fewer)", res.Iterations, ref.Iterations, need)
	}
	t.Logf("steps %d (%d epochs) with the push, %d (%d) without", res.Iterations, res.Epochs, ref.Iterations, ref.Epochs)
	m2, _, _ := mustTrain(t, d, p)
	for j := range m.W {
		if math.Float64bits(m.W[j]) != math.Float64bits(m2.W[j]) {
			t.Fatalf("w[%d]: %v vs %v", j, m.W[j], m2.W[j])
		}
	}
}

// TestTronDefer: a large-d -s 1 dual whose last sweep is near eps when the
// switch rule fires gets more passes before Newton-CG. Forced on (any
// violation counts as near) and off, the runs take different paths, and
// both converge, certified independently.
func TestTronDefer(t *testing.T) {
	d := contradictory()
	defer func(v float64, push bool) { tronNearViol, usePushDups = v, push }(tronNearViol, usePushDups)
	usePushDups = false // so that the dual stalls and the rule fires
	const eps = 1e-3
	p := Params{Solver: 1, C: 50, Eps: eps, Select: "acf+shrink", Seed: 4}
	var steps [2]int64
	for k, near := range []float64{0, math.Inf(1)} {
		tronNearViol = near
		m, res, duals := mustTrain(t, d, p)
		ind := evalIndependent(d, m, 0, duals[0], 1)
		if !res.Converged || ind.violation > eps*(1+1e-9) {
			t.Errorf("tronNearViol=%v: converged %v, independent violation %g", near, res.Converged, ind.violation)
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
