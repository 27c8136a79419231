package finish

import (
	"bytes"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acfcd/acfcd/internal/procs"
	"github.com/acfcd/acfcd/internal/testkit"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/dcd"
)

// TestHingeRestore: if the finisher ends at a worse dual point than the
// one at the switch, that state is restored exactly.
func TestHingeRestore(t *testing.T) {
	x := newFixture(t, lowDim(), dcd.L1SVM, 100, 1e-3, 1, nil, false)
	x.run(solver.Uniform, 5) // stops at the 5-epoch cap
	alpha, alphaC, w := x.snapshot()
	if x.ipm.hingeFinish(x.r, true) == 0 {
		t.Fatal("no interior-point iteration")
	}
	if !x.ipm.hingeRestore(x.r) {
		t.Fatal("the finisher's (better) point was rejected")
	}
	// Pretend the switch point was better than the finisher's.
	x.ipm.nt.at.obj = x.r.Obj - 1
	obj := x.ipm.nt.at.obj
	if x.ipm.hingeRestore(x.r) {
		t.Fatal("a worse point was accepted")
	}
	if x.r.Obj != obj {
		t.Errorf("objective %v, want %v", x.r.Obj, obj)
	}
	x.checkState(t, alpha, alphaC, w)
}

// TestHingeWarmStartAtOptimum: a switch at a point that is already
// optimal (gap 0 within rounding) still starts strictly inside the box
// and keeps the optimum.
func TestHingeWarmStartAtOptimum(t *testing.T) {
	x := newFixture(t, overlapping(3, 300, 6, 0.8, 0.2, 2), dcd.L1SVM, 10, 1e-9, 1, nil, false)
	if !x.run(solver.ACFShrink, 1000000) { // (uniform: 25 times the steps)
		t.Fatal("dual did not converge")
	}
	obj := x.r.Obj
	x.ipm.hingeFinish(x.r, true)
	hg := x.ipm.hg
	for q, a := range hg.a {
		// (α may round to C_i in floating point: C_i − α is kept apart.)
		if i := hg.set[q]; !(a > 0 && hg.u[q] > 0) || !(hg.s[q] > 0 && hg.t[q] > 0) {
			t.Fatalf("example %d: α %v, C − α %v (C %v), s %v, t %v", i, a, hg.u[q], x.p.UB[(x.p.Y[i]+1)>>1], hg.s[q], hg.t[q])
		}
	}
	if !x.ipm.hingeRestore(x.r) && testkit.RelDiff(x.r.Obj, obj) > 1e-12 {
		t.Fatalf("objective %v after the finisher, %v before", x.r.Obj, obj)
	}
	if rd := testkit.RelDiff(x.r.Obj, obj); rd > 1e-9 {
		t.Errorf("objective %.15g, at the switch %.15g", x.r.Obj, obj)
	}
}

// TestHingeSettles: the interior-point method takes examples whose α has
// settled at a bound out of its working set (ipmSettle). On lowDim at
// C = 1000, from a dual stopped far from its optimum, the set shrinks and
// every example out of it sits exactly at a bound. (That the model is the
// one reached without settling: the root package's TestHingeSettles.)
func TestHingeSettles(t *testing.T) {
	x := newFixture(t, lowDim(), dcd.L1SVM, 1000, 1e-3, 1, nil, false)
	x.run(solver.ACFShrink, 5) // stops at the cap, far from the optimum
	if x.ipm.hingeFinish(x.r, true) == 0 {
		t.Fatal("no interior-point iteration")
	}
	hg, n := x.ipm.hg, x.p.N
	if len(hg.set) >= n {
		t.Fatalf("nothing settled: %d of %d examples still in the set", len(hg.set), n)
	}
	in := make([]bool, n)
	for _, i := range hg.set {
		in[i] = true
	}
	for i, a := range x.p.Alpha {
		if c := x.p.UB[(x.p.Y[i]+1)>>1]; !in[i] && a != 0 && a != c {
			t.Fatalf("settled example %d: α %v, not at 0 or %v", i, a, c)
		}
	}
	t.Logf("%d of %d examples left in the set", len(hg.set), n)
}

// TestHingeProbe: at IPMProbeAt of the switch rule's budget a -s 3 dual
// still far from its optimum (gap ≥ IPMFarGap·|f|) switches at once; with
// the probe off, the same run uses the whole budget first.
func TestHingeProbe(t *testing.T) {
	d := lowDim()
	def := DefaultTuning()
	for _, far := range []float64{def.IPMFarGap, math.Inf(1)} {
		tune := defaults()
		tune.fin.IPMFarGap = far
		x := newFixture(t, d, dcd.L1SVM, 1000, 1e-3, 1, &tune, true)
		budget := x.ipm.rule.budget
		if budget <= 0 {
			t.Fatal("no switch budget")
		}
		x.run(solver.ACFShrink, 1000)
		spent := x.p.Ops + tune.fin.DualStepOps*x.r.Steps
		if !x.r.Handover() {
			t.Fatalf("far gap %v: no switch (%d of %d ops spent)", far, spent, budget)
		}
		if rel := x.ipm.gap() / math.Abs(x.r.Obj); far == def.IPMFarGap && (spent >= budget || rel < far) {
			t.Errorf("probe on: switched after %d of %d ops, relative gap %.3g", spent, budget, rel)
		}
		if far != def.IPMFarGap && spent < budget {
			t.Errorf("probe off: switched after %d of %d ops", spent, budget)
		}
		t.Logf("far gap %v: switched after %d of %d ops", far, spent, budget)
	}
}

// TestIPMParts: the interior-point passes split the working set into
// fixed ranges of about equal non-zeros (one when the data is small, or
// any row is unsorted), which the pool's spare processors run.
func TestIPMParts(t *testing.T) {
	d := lowDim()
	parts := defaults()
	parts.fin.IPMParallelNNZ = 0
	for _, tc := range []struct {
		name   string
		tune   *tunings
		unsort bool
		want   int
	}{{"small", nil, false, 1}, {"parts", &parts, false, parts.fin.IPMMaxParts}, {"unsorted", &parts, true, 1}} {
		dd := d
		if tc.unsort {
			c := *d
			c.Index, c.Value = slices.Clone(d.Index), slices.Clone(d.Value)
			slices.Reverse(c.Index[c.RowPtr[7]:c.RowPtr[8]])
			slices.Reverse(c.Value[c.RowPtr[7]:c.RowPtr[8]])
			dd = &c
		}
		x := newFixture(t, dd, dcd.L1SVM, 100, 1e-3, 1, tc.tune, true)
		_, hg := x.ipm.newHinge()
		if len(hg.parts) != tc.want {
			t.Fatalf("%s: %d parts, want %d", tc.name, len(hg.parts), tc.want)
		}
		if tc.want == 1 {
			continue
		}
		// The whole set, and every third example (as after settling).
		nnz := func(i int32) int64 { return x.p.RP[i+1] - x.p.RP[i] }
		for _, stride := range []int{1, 3} {
			hg.set = hg.set[:0]
			for i := 0; i < x.p.N; i += stride {
				hg.set = append(hg.set, int32(i))
			}
			x.ipm.ipmBound(hg)
			var total, widest int64
			for _, i := range hg.set {
				total += nnz(i)
				widest = max(widest, nnz(i))
			}
			lo := 0
			for k, p := range hg.parts {
				var sum int64
				for _, i := range hg.set[p.lo:p.hi] {
					sum += nnz(i)
				}
				if p.lo != lo || p.hi < p.lo || math.Abs(float64(sum)-float64(total)/float64(len(hg.parts))) > float64(widest) {
					t.Errorf("stride %d: part %d is [%d, %d) with %d of %d non-zeros", stride, k, p.lo, p.hi, sum, total)
				}
				lo = p.hi
			}
			if lo != len(hg.set) {
				t.Errorf("stride %d: the parts end at %d of %d", stride, lo, len(hg.set))
			}
		}

		// Every part runs once; with spare processors some on helpers.
		for _, spare := range []int{0, 3} {
			x.p.Pool = procs.NewPool(spare)
			caller := goid()
			var mu sync.Mutex
			ran := make([]int, len(hg.parts))
			var helped atomic.Int64
			x.ipm.ipmRun(func(k int, p *ipmPart) {
				if p != &hg.parts[k] {
					t.Errorf("part %d: wrong buffers", k)
				}
				mu.Lock()
				ran[k]++
				mu.Unlock()
				if goid() != caller {
					helped.Add(1)
					return
				}
				// The caller waits a little for a helper to take a part
				// (a bounded number of yields, not a time).
				for range 100000 {
					if helped.Load() > 0 {
						break
					}
					runtime.Gosched()
				}
			})
			for k, c := range ran {
				if c != 1 {
					t.Errorf("%d spare: part %d ran %d times", spare, k, c)
				}
			}
			if h := helped.Load(); spare == 0 && h != 0 || spare > 0 && h == 0 {
				t.Errorf("%d spare processors: %d parts ran on helpers", spare, h)
			}
		}
	}
}

// goid returns the running goroutine's id.
func goid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	id, _ := strconv.ParseUint(string(b[:bytes.IndexByte(b, ' ')]), 10, 64)
	return id
}

// TestBinaryRows: the interior-point passes skip the values only when
// every stored value is 1 (and BinaryRows is on), and then give the same
// sums bit for bit. (The whole model: the root package's
// TestHingeBinaryRows.)
func TestBinaryRows(t *testing.T) {
	ones := lowDim()
	for k := range ones.Value {
		ones.Value[k] = 1
	}
	off := defaults()
	off.primal.BinaryRows = false
	for _, tc := range []struct {
		name string
		tune *tunings
		all1 bool
		want bool
	}{{"ones", nil, true, true}, {"off", &off, true, false}, {"values", nil, false, false}} {
		d := ones
		if !tc.all1 {
			d = lowDim()
		}
		x := newFixture(t, d, dcd.L1SVM, 100, 1e-3, 1, tc.tune, true)
		if _, hg := x.ipm.newHinge(); hg.binary != tc.want {
			t.Errorf("%s: binary %v, want %v", tc.name, hg.binary, tc.want)
		}
	}
	v := make([]float64, 13)
	for j := range v {
		v[j] = float64(j) - 4.5
	}
	idx := []int32{0, 3, 4, 9, 12}
	x := []float64{1, 1, 1, 1, 1}
	if a, b := rowDot(idx, x, v, true), rowDot(idx, x, v, false); math.Float64bits(a) != math.Float64bits(b) {
		t.Errorf("rowDot: %v binary, %v general", a, b)
	}
	a, b := slices.Clone(v), slices.Clone(v)
	rowAxpy(0.3, idx, x, a, true)
	rowAxpy(0.3, idx, x, b, false)
	for j := range a {
		if math.Float64bits(a[j]) != math.Float64bits(b[j]) {
			t.Errorf("rowAxpy[%d]: %v binary, %v general", j, a[j], b[j])
		}
	}
}

// TestHingeSettlesRawScales: on raw scales (feature j of lowDim times 1,
// 30, 300 or 3000, Q_ii up to 10⁷) at C = 100 settling takes out only
// examples whose snap moves their own margin by a fraction of their
// multiplier, so the method's best interior iterate reaches the dual
// objective it reaches without settling (2e-6 above it; within 1e-4).
// With the distance in units of C alone the settles moved the margins by
// thousands and the best iterate stayed 7% above.
func TestHingeSettlesRawScales(t *testing.T) {
	d := lowDim()
	for k, j := range d.Index {
		d.Value[k] *= []float64{1, 30, 300, 3000}[j%4]
	}
	best := func(settle bool) (float64, int) {
		x := newFixture(t, d, dcd.L1SVM, 100, 0.1, 1, nil, false)
		x.run(solver.ACFShrink, 2)
		x.ipm.hingeFinish(x.r, settle)
		return x.ipm.hg.bestF, len(x.ipm.hg.set)
	}
	with, left := best(true)
	without, _ := best(false)
	if left == d.Rows {
		t.Fatalf("nothing settled")
	}
	if rd := (with - without) / math.Abs(without); rd > 1e-4 {
		t.Errorf("best interior f %.10g with settling, %.10g without (%.2g above)", with, without, rd)
	}
	t.Logf("%d of %d left in the set; best f %.10g, without settling %.10g", left, d.Rows, with, without)
}
