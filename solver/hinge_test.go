package solver

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	dataio "github.com/acfcd/acfcd/io"
)

// TestHingeFinisher: on a low-dimensional problem at large C the dual of
// -s 3 hands over to the interior-point finisher, and the answer is still
// certified by the dual: w = Σ α_i y_i x_i, the largest KKT violation
// ≤ eps recomputed independently, and a duality gap that certifies the
// optimum itself.
func TestHingeFinisher(t *testing.T) {
	d := lowDim()
	for _, sel := range allSelections {
		t.Run(sel, func(t *testing.T) {
			const eps = 1e-3
			p := Params{Solver: 3, C: 1000, Eps: eps, Bias: 1, Weights: map[float64]float64{-1: 2}, Select: sel, Seed: 5}
			m, res, duals := mustTrain(t, d, p)
			if !res.Converged || m.Partial {
				t.Fatalf("not converged: %+v", res)
			}
			if res.NewtonSteps == 0 {
				t.Fatalf("the finisher did not run: %+v", res)
			}
			checkHinge(t, d, m, duals[0], res, eps)
			t.Logf("%d epochs + %d interior-point iterations, %d ops", res.Epochs, res.NewtonSteps, res.Operations)
		})
	}
}

// checkHinge checks a converged -s 3 result independently.
func checkHinge(t *testing.T, d *dataio.Dataset, m *Model, h hookData, res *Result, eps float64) independent {
	t.Helper()
	ind := evalIndependent(d, m, 0, h, 3)
	if ind.wDiff > 1e-10 {
		t.Errorf("w differs from Σ α y x by %g", ind.wDiff)
	}
	if ind.violation > eps*(1+1e-9) {
		t.Errorf("independent max violation %g > eps %g", ind.violation, eps)
	}
	if relDiff(ind.dual, res.Objective) > 1e-9 || relDiff(ind.primal, res.Primal) > 1e-9 {
		t.Errorf("reported dual %v primal %v, independent %v %v", res.Objective, res.Primal, ind.dual, ind.primal)
	}
	for i, a := range h.alpha {
		if c := h.ub[(h.y[i]+1)>>1]; !(a >= 0 && a <= c) {
			t.Fatalf("α[%d] = %v outside [0, %v]", i, a, c)
		}
	}
	return ind
}

// hingeWorker returns a -s 3 worker (bias 1, fallback as given) prepared
// for d's first label against the rest at C = c, seed 3, and its selection.
func hingeWorker(t *testing.T, d *dataio.Dataset, sel selection, eps float64, maxEpochs int, c float64, fallback bool) (*worker, selection) {
	t.Helper()
	labels, _, err := groupClasses(d.Label)
	if err != nil {
		t.Fatal(err)
	}
	sh := newShared(d, l1svm, sel, eps, 1, maxEpochs, Params{}.ACF)
	sh.fallback = fallback
	wk := newWorker(sh, nil)
	return wk, wk.prepare(&subproblem{cp: c, cn: c, seed: 3}, labels[0])
}

// hingeCases are small problems for the finisher: generated ones, and
// degenerate ones made by hand.
func hingeCases() map[string]*dataio.Dataset {
	cases := map[string]*dataio.Dataset{
		"gen":   genData(genSpec{seed: 3, rows: 300, feats: 6, density: 0.8, labels: []float64{1, -1}, noise: 0.2, scale: 2}),
		"empty": genData(genSpec{seed: 4, rows: 200, feats: 5, density: 0.6, labels: []float64{1, -1}, noise: 0.3, empty: 7}),
		"text":  synth.Text(synth.TextConfig{Rows: 400, Features: 30, MeanNNZ: 6, Informative: 10, Noise: 0.1, Seed: 8}),
	}
	// Every row three times, and a quarter of them once more with the
	// other label: copies with one label share a margin, and copies with
	// both labels cannot both have margin 1.
	base := genData(genSpec{seed: 6, rows: 80, feats: 4, density: 0.9, labels: []float64{1, -1}, noise: 0.1})
	dup := &dataio.Dataset{Features: base.Features, RowPtr: []int64{0}, Value: []float64{}}
	for rep := 0; rep < 4; rep++ {
		for i := 0; i < base.Rows; i++ {
			y := base.Label[i]
			if rep == 3 {
				if i%4 != 0 {
					continue
				}
				y = -y
			}
			a, b := base.RowPtr[i], base.RowPtr[i+1]
			dup.Index = append(dup.Index, base.Index[a:b]...)
			dup.Value = append(dup.Value, base.Value[a:b]...)
			dup.Label = append(dup.Label, y)
			dup.RowPtr = append(dup.RowPtr, int64(len(dup.Index)))
			dup.Rows++
		}
	}
	cases["dup"] = dup
	// One point, many copies with both labels: every α is at its bound C
	// at the optimum (w = 0 would need margins of 1 for both labels).
	same := &dataio.Dataset{Features: 2, RowPtr: []int64{0}}
	for i := 0; i < 60; i++ {
		same.Index = append(same.Index, 0, 1)
		same.Value = append(same.Value, 0.5, -0.25)
		same.Label = append(same.Label, float64(1-2*(i%3%2)))
		same.RowPtr = append(same.RowPtr, int64(len(same.Index)))
		same.Rows++
	}
	cases["same"] = same
	return cases
}

// TestHingeFinisherMatchesDual: with the finisher forced right after the
// first epoch, every case ends at the pure dual's optimum (both run to a
// tight eps), with α in the box and the violation, recomputed
// independently, within eps.
func TestHingeFinisherMatchesDual(t *testing.T) {
	defer func() { testSwitchOps = 0 }()
	for name, d := range hingeCases() {
		for _, c := range []float64{0.01, 1, 100} {
			for _, bias := range []float64{-1, 1} {
				t.Run(fmt.Sprintf("%s/C=%g/B=%g", name, c, bias), func(t *testing.T) {
					const eps = 1e-7
					p := Params{Solver: 3, C: c, Eps: eps, Bias: bias, Seed: 2, MaxEpochs: 1000000}
					testSwitchOps = 0
					p.NoFallback = true
					_, ref, _ := mustTrain(t, d, p)
					if !ref.Converged {
						t.Fatalf("pure dual did not converge: %+v", ref)
					}
					p.NoFallback = false
					testSwitchOps = 1
					m, res, duals := mustTrain(t, d, p)
					// At small C the warm start, rounded at once, may
					// already be within eps: no iteration then.
					if !res.Converged || res.NewtonSteps == 0 && c >= 100 {
						t.Fatalf("finisher run: %+v", res)
					}
					ind := checkHinge(t, d, m, duals[0], res, eps)
					if rd := math.Abs(ind.dual-ref.Objective) / math.Max(1e-300, math.Abs(ref.Objective)); rd > 1e-9 {
						t.Errorf("dual objective %.15g, pure dual %.15g (relative %.2g)", ind.dual, ref.Objective, rd)
					}
				})
			}
		}
	}
}

// TestHingeOff: no finisher when turned off, or for large d.
func TestHingeOff(t *testing.T) {
	d := lowDim()
	p := Params{Solver: 3, C: 1000, Eps: 1e-3, Bias: 1, MaxEpochs: 50, NoFallback: true}
	if _, res, _ := mustTrain(t, d, p); res.NewtonSteps != 0 {
		t.Errorf("NoFallback: %d finisher iterations", res.NewtonSteps)
	}
	wide := &dataio.Dataset{Rows: 2, Features: newtonDenseMax + 10, RowPtr: []int64{0, 1, 2},
		Index: []int32{0, newtonDenseMax + 5}, Value: []float64{1, 1}, Label: []float64{1, -1}}
	sh := newShared(wide, l1svm, selACF, 1e-3, -1, 10, Params{}.ACF)
	sh.fallback = true
	if ops, ok := sh.newtonSwitchOps(); ok || ops != 0 {
		t.Errorf("d > %d: switch at %d ops", newtonDenseMax, ops)
	}
}

// TestHingeDeterministic: same seed, bit-identical model, finisher included.
func TestHingeDeterministic(t *testing.T) {
	d := lowDim()
	p := Params{Solver: 3, C: 100, Eps: 1e-3, Bias: 1, Seed: 9}
	m1, r1, _ := mustTrain(t, d, p)
	m2, _, _ := mustTrain(t, d, p)
	if r1.NewtonSteps == 0 {
		t.Fatal("finisher did not run")
	}
	for j := range m1.W {
		if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
			t.Fatalf("w[%d]: %v vs %v", j, m1.W[j], m2.W[j])
		}
	}
}

// TestHingeRestore: if the finisher ends at a worse dual point than the
// one at the switch, that state is restored exactly.
func TestHingeRestore(t *testing.T) {
	d := lowDim()
	wk, sel := hingeWorker(t, d, selUniform, 1e-3, 5, 100, false)
	wk.switchOps = 0
	wk.run(wk.newMode(sel, 3)) // stops at the 5-epoch cap
	alpha := append([]float64(nil), wk.alpha...)
	w := append([]float64(nil), wk.w...)
	if wk.hingeFinish(true) == 0 {
		t.Fatal("no interior-point iteration")
	}
	if !wk.hingeRestore() {
		t.Fatal("the finisher's (better) point was rejected")
	}
	// Pretend the switch point was better than the finisher's.
	wk.nt.obj = wk.obj - 1
	obj := wk.nt.obj
	if wk.hingeRestore() {
		t.Fatal("a worse point was accepted")
	}
	if wk.obj != obj {
		t.Errorf("objective %v, want %v", wk.obj, obj)
	}
	for i := range alpha {
		if wk.alpha[i] != alpha[i] {
			t.Fatalf("alpha[%d] %v, want %v", i, wk.alpha[i], alpha[i])
		}
	}
	for j := range w {
		if wk.w[j] != w[j] {
			t.Fatalf("w[%d] %v, want %v", j, wk.w[j], w[j])
		}
	}
}

// TestHingeCancel: a cancellation while the finisher runs stops it at its
// next iteration, with a feasible α and w = Σ α_i y_i x_i.
func TestHingeCancel(t *testing.T) {
	defer func() { testSwitchOps = 0 }()
	testSwitchOps = 1
	d := lowDim()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := Params{Solver: 3, C: 100, Eps: 1e-3, Bias: 1, Select: "uniform",
		Progress: func(pr Progress) {
			if pr.Epoch == 1 {
				cancel() // the switch follows this report
			}
		}}
	duals, restore := captureDuals(t)
	defer restore()
	m, res, err := Train(ctx, d, p)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cancelled || !m.Partial || res.NewtonSteps != 0 || res.Epochs != 1 {
		t.Fatalf("%+v", res)
	}
	h := duals[0]
	for i, a := range h.alpha {
		if c := h.ub[(h.y[i]+1)>>1]; !(a >= 0 && a <= c) {
			t.Fatalf("α[%d] = %v outside [0, %v]", i, a, c)
		}
	}
	if ind := evalIndependent(d, m, 0, h, 3); ind.wDiff > 1e-10 {
		t.Errorf("w differs from Σ α y x by %g", ind.wDiff)
	}
}

// TestHingeStorage: the finisher's passes have three paths (rows with
// increasing indices, other rows, float32 values); each ends at its pure
// dual's optimum with the violation within eps.
func TestHingeStorage(t *testing.T) {
	defer func() { testSwitchOps = 0 }()
	base := hingeCases()["gen"]
	// The same rows with their indices reversed (not increasing).
	rev := &dataio.Dataset{Rows: base.Rows, Features: base.Features, RowPtr: base.RowPtr, Label: base.Label,
		Index: append([]int32(nil), base.Index...), Value: append([]float64(nil), base.Value...)}
	for i := 0; i < rev.Rows; i++ {
		a, b := rev.RowPtr[i], rev.RowPtr[i+1]
		slices.Reverse(rev.Index[a:b])
		slices.Reverse(rev.Value[a:b])
	}
	// float32 storage, and the same values as float64 for the checks.
	f32 := &dataio.Dataset{Rows: base.Rows, Features: base.Features, RowPtr: base.RowPtr, Label: base.Label, Index: base.Index}
	f64 := &dataio.Dataset{Rows: base.Rows, Features: base.Features, RowPtr: base.RowPtr, Label: base.Label, Index: base.Index}
	for _, v := range base.Value {
		f32.Value32 = append(f32.Value32, float32(v))
		f64.Value = append(f64.Value, float64(float32(v)))
	}
	for _, bias := range []float64{-1, 1} {
		for _, tc := range []struct {
			name        string
			train, eval *dataio.Dataset
		}{{"sorted", base, base}, {"reversed", rev, rev}, {"float32", f32, f64}} {
			t.Run(fmt.Sprintf("%s/B=%g", tc.name, bias), func(t *testing.T) {
				const eps = 1e-7
				p := Params{Solver: 3, C: 100, Eps: eps, Bias: bias, Seed: 2, MaxEpochs: 1000000, NoFallback: true}
				testSwitchOps = 0
				_, ref, _ := mustTrain(t, tc.train, p)
				p.NoFallback = false
				testSwitchOps = 1
				m, res, duals := mustTrain(t, tc.train, p)
				if !res.Converged || res.NewtonSteps == 0 {
					t.Fatalf("finisher run: %+v", res)
				}
				ind := checkHinge(t, tc.eval, m, duals[0], res, eps)
				if rd := relDiff(ind.dual, ref.Objective); rd > 1e-9 {
					t.Errorf("dual objective %.15g, pure dual %.15g (relative %.2g)", ind.dual, ref.Objective, rd)
				}
			})
		}
	}
}

// TestHingeWarmStartAtOptimum: a switch at a point that is already
// optimal (gap 0 within rounding) still starts strictly inside the box
// and keeps the optimum.
func TestHingeWarmStartAtOptimum(t *testing.T) {
	d := hingeCases()["gen"]
	wk, sel := hingeWorker(t, d, selUniform, 1e-9, 1000000, 10, false)
	wk.switchOps = 0
	if !wk.run(wk.newMode(sel, 3)) {
		t.Fatal("dual did not converge")
	}
	obj := wk.obj
	wk.hingeFinish(true)
	hg := wk.hg
	for q, a := range hg.a {
		// (α may round to C_i in floating point: C_i − α is kept apart.)
		if i := hg.set[q]; !(a > 0 && hg.u[q] > 0) || !(hg.s[q] > 0 && hg.t[q] > 0) {
			t.Fatalf("example %d: α %v, C − α %v (C %v), s %v, t %v", i, a, hg.u[q], wk.ub[(wk.y[i]+1)>>1], hg.s[q], hg.t[q])
		}
	}
	if !wk.hingeRestore() && relDiff(wk.obj, obj) > 1e-12 {
		t.Fatalf("objective %v after the finisher, %v before", wk.obj, obj)
	}
	if rd := relDiff(wk.obj, obj); rd > 1e-9 {
		t.Errorf("objective %.15g, at the switch %.15g", wk.obj, obj)
	}
}

// TestHingeDefersNearOptimal: when the switch rule fires while the dual is
// nearly done (duality gap below ipmNearGap·|f|), -s 3 keeps to dual CD and
// converges without the interior-point method; with the deferral off the
// same run switches. Both end certified within eps.
func TestHingeDefersNearOptimal(t *testing.T) {
	for _, tc := range []struct {
		rows int
		c    float64
		eps  float64
	}{{2000, 0.2, 1e-3}, {5000, 0.3, 1e-2}} {
		d := genData(genSpec{seed: 11, rows: tc.rows, feats: 30, density: 0.3, labels: []float64{1, -1}, noise: 0.05})
		p := Params{Solver: 3, C: tc.c, Eps: tc.eps, Seed: 1}
		name := fmt.Sprintf("rows=%d/C=%g/eps=%g", tc.rows, tc.c, tc.eps)
		m, res, duals := mustTrain(t, d, p)
		old := ipmMaxDefer
		ipmMaxDefer = 0
		_, switched, _ := mustTrain(t, d, p)
		ipmMaxDefer = old
		if res.NewtonSteps != 0 || switched.NewtonSteps == 0 {
			t.Errorf("%s: interior-point iterations %d with the deferral, %d without; want 0 and > 0", name, res.NewtonSteps, switched.NewtonSteps)
		}
		ind := evalIndependent(d, m, 0, duals[0], 3)
		if !res.Converged || ind.violation > tc.eps*(1+1e-9) {
			t.Errorf("%s: converged %v, independent violation %g", name, res.Converged, ind.violation)
		}
		if !switched.Converged || relDiff(res.Objective, switched.Objective) > 10*tc.eps {
			t.Errorf("%s: objectives %.10g (dual) and %.10g (switched, converged %v)", name, res.Objective, switched.Objective, switched.Converged)
		}
	}
}

// TestAddOuterSorted: the four-row scatter gives exactly the sums of one
// row at a time, for every row length (float64 and float32 values).
func TestAddOuterSorted(t *testing.T) {
	const dim = 23
	seed := uint64(1)
	next := func() uint64 {
		seed = seed*6364136223846793005 + 1442695040888963407
		return seed >> 33
	}
	ref := make([]float64, dim*dim)
	got := make([]float64, dim*dim)
	got32 := make([]float64, dim*dim)
	for r := range 400 {
		var idx []int32
		var x []float64
		var x32 []float32
		for j := range dim {
			if int(next()%dim) < r%(dim+1) {
				idx = append(idx, int32(j))
				v := float64(float32(float64(next()%2000)/1000 - 1 + 1e-3))
				x, x32 = append(x, v), append(x32, float32(v))
			}
		}
		di := float64(next()%1000+1) / 997
		for p, jp := range idx {
			for q := p; q < len(idx); q++ {
				ref[int(jp)*dim+int(idx[q])] += di * x[p] * x[q]
			}
		}
		addOuterSorted(got, dim, di, idx, x)
		addOuterSorted(got32, dim, di, idx, x32)
	}
	for k := range ref {
		if got[k] != ref[k] || got32[k] != ref[k] {
			t.Fatalf("entry %d: %v (float32 %v), want %v", k, got[k], got32[k], ref[k])
		}
	}
}

// TestHingeSettles: the interior-point method takes examples whose α has
// settled at a bound out of its working set (ipmSettle). On lowDim at
// C = 1000 the set shrinks, every example out of it sits exactly at a
// bound, and the trained model is the one reached without settling: both
// runs certified, with the same dual objective.
func TestHingeSettles(t *testing.T) {
	d := lowDim()
	wk, sel := hingeWorker(t, d, selACFShrink, 1e-3, 1000, 1000, false)
	wk.switchOps = 0
	wk.maxEpochs = 5
	wk.run(wk.newMode(sel, 3)) // stops at the cap, far from the optimum
	if wk.hingeFinish(true) == 0 {
		t.Fatal("no interior-point iteration")
	}
	hg := wk.hg
	if len(hg.set) >= wk.n {
		t.Fatalf("nothing settled: %d of %d examples still in the set", len(hg.set), wk.n)
	}
	in := make([]bool, wk.n)
	for _, i := range hg.set {
		in[i] = true
	}
	for i, a := range wk.alpha {
		if c := wk.ub[(wk.y[i]+1)>>1]; !in[i] && a != 0 && a != c {
			t.Fatalf("settled example %d: α %v, not at 0 or %v", i, a, c)
		}
	}
	t.Logf("%d of %d examples left in the set", len(hg.set), wk.n)

	const eps = 1e-6
	p := Params{Solver: 3, C: 1000, Eps: eps, Bias: 1, Seed: 5, MaxEpochs: 100000}
	m, res, duals := mustTrain(t, d, p)
	if !res.Converged || res.NewtonSteps == 0 {
		t.Fatalf("with settling: %+v", res)
	}
	checkHinge(t, d, m, duals[0], res, eps)
	old := ipmSettleRel
	ipmSettleRel = 0
	defer func() { ipmSettleRel = old }()
	m0, ref, duals0 := mustTrain(t, d, p)
	if !ref.Converged || ref.NewtonSteps == 0 {
		t.Fatalf("without settling: %+v", ref)
	}
	checkHinge(t, d, m0, duals0[0], ref, eps)
	if rd := relDiff(res.Objective, ref.Objective); rd > 1e-9 {
		t.Errorf("dual objective %.15g with settling, %.15g without (relative %.2g)", res.Objective, ref.Objective, rd)
	}
}

// TestHingeParts: the interior-point passes run in fixed ranges of rows
// (ipmPartition) on the pool's spare processors. Forced into four ranges,
// the model is bit-identical whether helpers run them or the calling
// goroutine runs them all, helpers do run some, and the result is
// certified.
func TestHingeParts(t *testing.T) {
	d := lowDim()
	old := ipmParallelNNZ
	ipmParallelNNZ = 0
	defer func() { ipmParallelNNZ = old }()
	var helped atomic.Int64
	testHookIPMPart = func(helper bool) {
		if helper {
			helped.Add(1)
		}
	}
	defer func() { testHookIPMPart = nil }()
	const eps = 1e-3
	p := Params{Solver: 3, C: 100, Eps: eps, Bias: 1, Seed: 9}
	var models []*Model
	for _, procs := range []int{1, 4} {
		withProcs(procs, func() {
			helped.Store(0)
			m, res, duals := mustTrain(t, d, p)
			if !res.Converged || res.NewtonSteps == 0 {
				t.Fatalf("GOMAXPROCS %d: %+v", procs, res)
			}
			checkHinge(t, d, m, duals[0], res, eps)
			if procs > 1 && helped.Load() == 0 {
				t.Errorf("GOMAXPROCS %d: no range ran on a helper", procs)
			}
			if procs == 1 && helped.Load() != 0 {
				t.Errorf("GOMAXPROCS 1: %d ranges on helpers", helped.Load())
			}
			models = append(models, m)
		})
	}
	if !sameBits(models[0].W, models[1].W) {
		t.Fatalf("w with one processor %v, with four %v", models[0].W, models[1].W)
	}
}

// TestHingeBinaryRows: on data whose values are all 1 the passes skip the
// values (rowDot), and the model is bit-identical to the general path's.
func TestHingeBinaryRows(t *testing.T) {
	d := lowDim()
	for k := range d.Value {
		if d.Value[k] != 0 {
			d.Value[k] = 1
		}
	}
	p := Params{Solver: 3, C: 100, Eps: 1e-3, Bias: 1, Seed: 9}
	m1, r1, _ := mustTrain(t, d, p)
	useBinaryRows = false
	m2, _, _ := mustTrain(t, d, p)
	useBinaryRows = true
	if r1.NewtonSteps == 0 {
		t.Fatal("finisher did not run")
	}
	if !sameBits(m1.W, m2.W) {
		t.Fatalf("w on the binary path %v, on the general one %v", m1.W, m2.W)
	}
}

// TestHingeProbe: halfway through the switch rule's budget a -s 3 dual
// still far from its optimum (gap ≥ ipmFarGap·|f|) switches at once;
// with the probe off, the same run uses the whole budget first.
func TestHingeProbe(t *testing.T) {
	d := lowDim()
	old := ipmFarGap
	defer func() { ipmFarGap = old }()
	for _, far := range []float64{old, math.Inf(1)} {
		ipmFarGap = far
		wk, sel := hingeWorker(t, d, selACFShrink, 1e-3, 1000, 1000, true)
		budget := wk.switchOps
		if budget <= 0 {
			t.Fatal("no switch budget")
		}
		wk.run(wk.newMode(sel, 3))
		spent := wk.ops + dualStepOps*wk.steps
		if !wk.switching {
			t.Fatalf("far gap %v: no switch (%d of %d ops spent)", far, spent, budget)
		}
		if rel := wk.hingeGap() / math.Abs(wk.obj); far == old && (spent >= budget || rel < far) {
			t.Errorf("probe on: switched after %d of %d ops, relative gap %.3g", spent, budget, rel)
		}
		if far != old && spent < budget {
			t.Errorf("probe off: switched after %d of %d ops", spent, budget)
		}
	}
}

// TestHingeSecondRound: examples settled at the wrong bound leave dual CD
// a point it may stall at; it then switches a second time, to the method
// without settling. With settling made reckless (any α within 30% of C of
// a bound), lowDim at C = 1000 still converges within 200 epochs,
// certified, to the dual objective of a run that never settles.
func TestHingeSecondRound(t *testing.T) {
	d := lowDim()
	const eps = 1e-3
	p := Params{Solver: 3, C: 1000, Eps: eps, Bias: 1, Seed: 5, MaxEpochs: 200}
	old := ipmSettleRel
	defer func() { ipmSettleRel = old }()
	ipmSettleRel = 0
	_, ref, _ := mustTrain(t, d, p)
	ipmSettleRel = 0.3
	m, res, duals := mustTrain(t, d, p)
	if !res.Converged || !ref.Converged {
		t.Fatalf("reckless settling: %+v\nno settling: %+v", res, ref)
	}
	checkHinge(t, d, m, duals[0], res, eps)
	if rd := relDiff(res.Objective, ref.Objective); rd > 1e-5 {
		t.Errorf("dual objective %.10g, without settling %.10g", res.Objective, ref.Objective)
	}
	t.Logf("%d epochs, %d interior-point iterations (without settling: %d, %d)", res.Epochs, res.NewtonSteps, ref.Epochs, ref.NewtonSteps)
}
