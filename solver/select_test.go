package solver

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/acf"
)

func TestSelectionNames(t *testing.T) {
	names := []struct {
		sel  Selection
		name string
	}{{Auto, "auto"}, {ACFShrink, "acf+shrink"}, {ACF, "acf"}, {Uniform, "uniform"}, {Shrink, "shrink"}, {Cyclic, "cyclic"}}
	for _, c := range names {
		if got := c.sel.String(); got != c.name {
			t.Errorf("Selection(%d).String() = %q, want %q", c.sel, got, c.name)
		}
		if got, err := ParseSelection(c.name); got != c.sel || err != nil {
			t.Errorf("ParseSelection(%q) = %v, %v", c.name, got, err)
		}
		b, err := c.sel.MarshalText()
		var back Selection = 99
		if err != nil || string(b) != c.name || back.UnmarshalText(b) != nil || back != c.sel {
			t.Errorf("%v: MarshalText %q, %v; back %v", c.sel, b, err, back)
		}
	}
	if got, err := ParseSelection(""); got != Auto || err != nil {
		t.Errorf(`ParseSelection("") = %v, %v, want auto`, got, err)
	}
	for _, bad := range []string{"greedy", " acf", "acf+"} {
		_, err := ParseSelection(bad)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("unknown coordinate selection %q", bad)) {
			t.Errorf("ParseSelection(%q): error %v", bad, err)
		}
		s := Shrink
		if s.UnmarshalText([]byte(bad)) == nil || s != Shrink {
			t.Errorf("UnmarshalText(%q) accepted it or changed the value to %v", bad, s)
		}
	}
	if got := Selection(9).String(); got != "Selection(9)" {
		t.Errorf("Selection(9).String() = %q", got)
	}
	type opts struct{ Select Selection }
	b, err := json.Marshal(opts{ACFShrink})
	var back opts
	if err != nil || string(b) != `{"Select":"acf+shrink"}` || json.Unmarshal(b, &back) != nil || back.Select != ACFShrink {
		t.Errorf("JSON: %s, %v, back %v", b, err, back)
	}
}

// converged checks a run that Solve reported converged: the point is
// within eps of the KKT conditions and Run.Obj is the objective, both
// computed afresh.
func converged(t *testing.T, q *quad, r *Run, ok bool) {
	t.Helper()
	if !ok {
		t.Fatalf("%v: Solve = false after %d steps (capped %v)", r.cfg.Selection, r.Steps, r.Capped())
	}
	if v := q.violation(); v > q.eps {
		t.Fatalf("%v: certified with violation %g > eps %g", r.cfg.Selection, v, q.eps)
	}
	if f := q.f(); math.Abs(r.Obj-f) > 1e-9*(1+math.Abs(f)) {
		t.Fatalf("%v: Run.Obj %.17g, objective %.17g", r.cfg.Selection, r.Obj, f)
	}
}

// isPermutation reports whether the steps of b visit 0..n−1 once each.
func isPermutation(b []event, n int) bool {
	seen := make([]bool, n)
	for _, e := range b {
		if seen[e.i] {
			return false
		}
		seen[e.i] = true
	}
	return len(b) == n
}

func TestCyclic(t *testing.T) {
	for _, ahead := range []int{0, 2, 5} {
		q := newSVM(1, 30, 4, 1, 0, 1e-4)
		cfg := Config{Selection: Cyclic, Eps: q.eps, MaxEpochs: 10000, Tuning: tuned(func(t *Tuning) { t.PrefetchAhead = ahead })}
		r, _, ok := check(t, q, cfg, 0, 1)
		converged(t, q, r, ok)
		bs := batches(q.log)
		for k, b := range bs {
			if len(b) != q.n {
				t.Fatalf("sweep %d has %d steps, want %d", k, len(b), q.n)
			}
			for j, e := range b {
				want := int32(-1)
				if ahead > 0 && j+ahead < q.n {
					want = int32(j + ahead)
				}
				if e.i != int32(j) || e.ahead != want {
					t.Fatalf("ahead %d: sweep %d step %d on %d (ahead %d), want %d (ahead %d)", ahead, k, j, e.i, e.ahead, j, want)
				}
			}
		}
		if len(bs) != r.Epochs() || len(bs) < 5 {
			t.Fatalf("%d sweeps, %d epochs", len(bs), r.Epochs())
		}
	}
}

func TestUniform(t *testing.T) {
	run := func(seed uint64) ([]event, int) {
		q := newSVM(2, 30, 4, 1, 0, 1e-4)
		r, _, ok := check(t, q, Config{Selection: Uniform, Eps: q.eps, MaxEpochs: 10000}, 0, seed)
		converged(t, q, r, ok)
		return q.log, q.n
	}
	a, n := run(5)
	b, _ := run(5)
	c, _ := run(6)
	if !slices.Equal(a, b) {
		t.Fatal("two runs with the same seed differ")
	}
	if slices.Equal(a, c) {
		t.Fatal("runs with seeds 5 and 6 are the same")
	}
	bs := batches(a)
	distinct := map[string]bool{}
	for k, s := range bs {
		if !isPermutation(s, n) {
			t.Fatalf("sweep %d is not a permutation of the %d coordinates", k, n)
		}
		distinct[fmt.Sprint(s)] = true
	}
	if len(bs) < 5 || len(distinct) != len(bs) {
		t.Fatalf("%d sweeps, %d distinct orders", len(bs), len(distinct))
	}
}

// TestShrink: liblinear's shrinking on small SVM duals, checked against
// the model (the shuffle of the active prefix, the swap of a shrunk
// coordinate with the last active one, the thresholds) and, without it,
// against the plain rules: a sweep visits once each coordinate active
// after the previous one, under the previous sweep's extreme projected
// gradients; a failed pass brings all back with thresholds ±Inf.
func TestShrink(t *testing.T) {
	var total counts
	for _, C := range []float64{1, 10} {
		for seed := uint64(1); seed <= 5; seed++ {
			q := newSVM(seed, 60, 5, C, 0, 1e-3)
			cfg := Config{Selection: Shrink, Seed: seed, Eps: q.eps, MaxEpochs: 10000}
			r, m, ok := check(t, q, cfg, 0, 1)
			converged(t, q, r, ok)
			total.shrinks += m.counts.shrinks
			total.unshrinkAll += m.counts.unshrinkAll

			out := make([]bool, q.n) // shrunk
			th := noShrink
			var b []event
			for _, e := range q.log {
				switch e.kind {
				case evStep:
					if out[e.i] {
						t.Fatalf("C %g seed %d: step on %d, shrunk before", C, seed, e.i)
					}
					if e.th != th {
						t.Fatalf("C %g seed %d: thresholds %v, want %v", C, seed, e.th, th)
					}
					out[e.i] = e.shrink
					b = append(b, e)
				case evEnd:
					visited := map[int32]bool{}
					pgMax, pgMin := math.Inf(-1), math.Inf(1)
					for _, s := range b {
						visited[s.i] = true
						if !s.shrink {
							pgMax, pgMin = max(pgMax, s.pg), min(pgMin, s.pg)
						}
					}
					if len(visited) != len(b) || len(b) != e.entries {
						t.Fatalf("C %g seed %d: a sweep of %d steps on %d coordinates, %d entries", C, seed, len(b), len(visited), e.entries)
					}
					th = nextThresholds(pgMax, pgMin)
					b = b[:0]
				case evPassEnd:
					if !e.ok {
						clear(out)
						th = noShrink
					}
				}
			}
		}
	}
	if total.shrinks == 0 || total.unshrinkAll == 0 {
		t.Fatalf("the runs shrank %d times and unshrank %d times", total.shrinks, total.unshrinkAll)
	}
}

// TestACF: the uniform warm-up sweep, then scheduler batches under the
// preferences that every step's gain and every repair (by each Repair
// policy) updated, checked against the model (which schedules with its
// own acf.Scheduler and acf.Prefs, and compares the preferences after
// the run).
func TestACF(t *testing.T) {
	var total counts
	for _, repair := range []Repair{RepairKeep, RepairObserve, RepairMax, RepairAtLeastOne} {
		for seed := uint64(1); seed <= 4; seed++ {
			q := newSVM(seed, 60, 5, 1, 0, 1e-3)
			cfg := Config{Selection: ACF, Eps: q.eps, MaxEpochs: 10000, EarlyCheck: true, Repair: repair}
			r, m, ok := check(t, q, cfg, 0, seed)
			converged(t, q, r, ok)
			if b := batches(q.log)[0]; !isPermutation(b, q.n) {
				t.Fatalf("the warm-up sweep is not a permutation: %v", b)
			}
			if q.rec.prefs == nil || !q.rec.prefs.Warm() {
				t.Fatal("the warm-up did not end")
			}
			total.repairs += m.counts.repairs
			total.batches += m.counts.batches
		}
	}
	if total.repairs == 0 {
		t.Fatal("no pass repaired anything")
	}
}

// TestACFFrequencies: with fixed gains (half the coordinates gain 100
// times more than the others), the preferences settle at p_max and p_min
// (of Config.ACF) and each coordinate's visits over K batches are then
// K·n·p_i/Σp up to less than one: the scheduler's credit rule, whole or
// streamed.
func TestACFFrequencies(t *testing.T) {
	const n, K = 40, 200
	pg, gain := make([]float64, n), make([]float64, n)
	for i := range n {
		pg[i], gain[i] = 1, 1
		if i%2 == 1 {
			gain[i] = 0.01
		}
	}
	for _, sel := range []Selection{ACF, ACFShrink} {
		for _, tune := range []*Tuning{nil, streamed(7)} {
			s := &script{n: n, step: fixedSteps(pg, gain)}
			settled := -1 // the first batch after which every preference is at a bound
			s.onEnd = func(batch int) {
				p := s.rec.prefs
				if settled >= 0 || p == nil {
					return
				}
				for i := range n {
					if want := [2]float64{4, 0.25}[i%2]; p.P(i) != want {
						return
					}
				}
				settled = batch
			}
			cfg := Config{Selection: sel, Eps: 0.5, MaxEpochs: 600, ACF: acf.Config{C: 1, PMin: 0.25, PMax: 4}, Tuning: tune}
			r, _, ok := check(t, s, cfg, 0, 7)
			if ok || !r.Capped() {
				t.Fatalf("%v: Solve %v, capped %v", sel, ok, r.Capped())
			}
			bs := batches(s.log)
			if settled < 0 || settled+K >= len(bs) {
				t.Fatalf("%v %v: preferences settled after batch %d of %d", sel, tune != nil, settled, len(bs))
			}
			visits := make([]int, n)
			for _, b := range bs[settled+1 : settled+1+K] {
				for _, e := range b {
					visits[e.i]++
				}
			}
			p := s.rec.prefs
			for i := range n {
				want := K * n * p.P(i) / p.Sum()
				if math.Abs(float64(visits[i])-want) >= 1+1e-6 {
					t.Errorf("%v streamed %v: coordinate %d (p %g): %d visits in %d batches, want %.3f", sel, tune != nil, i, p.P(i), visits[i], K, want)
				}
			}
		}
	}
}

// reversedWarmup is a script whose warm-up order is n−1, …, 0.
type reversedWarmup struct{ *script }

func (p reversedWarmup) WarmupOrder(b []int32) {
	for k := range b {
		b[k] = int32(len(b) - 1 - k)
	}
}

// TestWarmupOrder: for a WarmupOrderer the ACF selections' first batch
// follows its order, whole or streamed, and the batches after it are
// ACF's (the model checks them); otherwise the warm-up is a random
// permutation, and uniform selection, without a warm-up, ignores it.
func TestWarmupOrder(t *testing.T) {
	const n = 30
	reversed := func(b []event) bool {
		if len(b) != n {
			return false
		}
		for k, e := range b {
			if e.i != int32(n-1-k) {
				return false
			}
		}
		return true
	}
	for _, sel := range []Selection{ACF, ACFShrink, Uniform} {
		for _, tune := range []*Tuning{nil, streamed(7)} {
			for _, ordered := range []bool{false, true} {
				s := fixedScript(n)
				var p testProblem = s
				if ordered {
					p = reversedWarmup{s}
				}
				check(t, p, Config{Selection: sel, Eps: 0.5, MaxEpochs: 5, Tuning: tune}, 0, 11)
				bs := batches(s.log)
				if len(bs) < 3 {
					t.Fatalf("%v streamed %v: %d batches", sel, tune != nil, len(bs))
				}
				want := ordered && sel != Uniform
				if got := reversed(bs[0]); got != want {
					t.Errorf("%v streamed %v ordered %v: first batch in the problem's order: %v", sel, tune != nil, ordered, got)
				}
				if reversed(bs[1]) || reversed(bs[2]) {
					t.Errorf("%v streamed %v ordered %v: a later batch in the problem's order", sel, tune != nil, ordered)
				}
			}
		}
	}
}

// svmCases are the small SVM duals of the shrinking tests.
var svmCases = []struct {
	seed uint64
	C    float64
}{{8, 10}, {7, 10}, {13, 10}, {1, 10}, {4, 10}}

// TestACFShrink: ACF over liblinear's active set. Besides the model's
// checks: a coordinate that shrank is not stepped on again in its batch
// (later copies are skipped) nor after, until a pass repairs it or brings
// all back; the active list is compact (the coordinates not shrunk, each
// once) when a pass starts; a failed pass brings back just the
// coordinates it repaired, until Tuning.PartialUnshrinks such passes
// since the last full unshrink, and then all, with thresholds ±Inf.
func TestACFShrink(t *testing.T) {
	for _, partial := range []int{0, 1, 3} {
		for _, stream := range []bool{false, true} {
			var total counts
			for _, c := range svmCases {
				name := fmt.Sprintf("partial %d streamed %v seed %d C %g", partial, stream, c.seed, c.C)
				q := newSVM(c.seed, 60, 5, c.C, 0, 1e-3)
				tune := tuned(func(t *Tuning) { t.PartialUnshrinks = partial })
				if stream {
					tune.SweepStreamMin, tune.SweepChunk = 59, 9
				}
				cfg := Config{Selection: ACFShrink, Eps: q.eps, MaxEpochs: 10000, EarlyCheck: true, Repair: RepairMax, Tuning: tune}

				shrunk := func(r *Run) []bool {
					s := make([]bool, q.n)
					for i := range s {
						s[i] = r.buf.shrunk[i>>6]&(1<<(i&63)) != 0
					}
					return s
				}
				var before []bool // the shrunk set as the last pass started
				failed := 0       // failed passes since the last full unshrink
				seen := 0         // the events looked at
				q.onPass = func(r *Run) {
					before = shrunk(r)
					if stream {
						if len(r.buf.active) != 0 {
							t.Fatalf("%s: an active list of %d with streamed sweeps", name, len(r.buf.active))
						}
						return
					}
					in := make([]bool, q.n)
					for _, i := range r.buf.active {
						if in[i] || before[i] {
							t.Fatalf("%s: active list %v, shrunk %v", name, r.buf.active, before)
						}
						in[i] = true
					}
					if len(r.buf.active)+countTrue(before) != q.n {
						t.Fatalf("%s: active list of %d with %d shrunk", name, len(r.buf.active), countTrue(before))
					}
				}
				q.onStep = func(int32, int64) {
					// The first step after a failed pass: what came back?
					var repaired []int32
					fail := false
					for _, e := range q.log[seen:] {
						switch e.kind {
						case evRepair:
							repaired = append(repaired, e.i)
						case evPassEnd:
							fail = !e.ok
						}
					}
					seen = len(q.log)
					if !fail {
						return
					}
					want := slices.Clone(before)
					if failed < partial {
						failed++
						for _, j := range repaired {
							want[j] = false
						}
					} else {
						failed = 0
						clear(want)
					}
					if got := shrunk(q.r); !slices.Equal(got, want) {
						t.Fatalf("%s: shrunk after a failed pass %v, want %v (repaired %v)", name, got, want, repaired)
					}
					if failed == 0 && q.r.sel.th != noShrink {
						t.Fatalf("%s: thresholds %v after bringing all back", name, q.r.sel.th)
					}
				}
				r, m, ok := check(t, q, cfg, 0, c.seed)
				converged(t, q, r, ok)

				out := make([]bool, q.n)
				inRow := 0
				for _, e := range q.log {
					switch e.kind {
					case evStep:
						if out[e.i] {
							t.Fatalf("%s: step on %d, shrunk before", name, e.i)
						}
						out[e.i] = e.shrink
					case evRepair:
						out[e.i] = false
					case evPassEnd:
						if e.ok {
							break
						}
						if inRow < partial {
							inRow++
						} else {
							inRow = 0
							clear(out)
						}
					}
				}
				total.skips += m.counts.skips
				total.repairsShrunk += m.counts.repairsShrunk
				total.partial += m.counts.partial
				total.unshrinkAll += m.counts.unshrinkAll
			}
			if total.skips == 0 && !stream || total.unshrinkAll == 0 || partial > 0 && (total.partial == 0 || total.repairsShrunk == 0) {
				t.Fatalf("partial %d streamed %v: the runs exercised %+v", partial, stream, total)
			}
		}
	}
}

func countTrue(b []bool) int {
	c := 0
	for _, v := range b {
		if v {
			c++
		}
	}
	return c
}

// TestStreamedSweeps: with Tuning.SweepStreamMin below n and a small
// SweepChunk every selection still hands out valid sweeps (the model
// checks each against acf's streamed scheduler; a uniform one visits each
// coordinate once) and converges as with whole sweeps, to the same
// objective.
func TestStreamedSweeps(t *testing.T) {
	for _, sel := range allSelections {
		for _, seed := range []uint64{2, 5} {
			var f [2]float64
			for k, tune := range []*Tuning{nil, streamed(5)} {
				q := newSVM(seed, 50, 5, 1, 0.1, 1e-6)
				cfg := Config{Selection: sel, Eps: q.eps, MaxEpochs: 100000, Repair: RepairMax, EarlyCheck: true, Tuning: tune}
				r, _, ok := check(t, q, cfg, 0, seed)
				converged(t, q, r, ok)
				f[k] = q.f()
				if sel == Uniform {
					for j, b := range batches(q.log) {
						if !isPermutation(b, q.n) {
							t.Fatalf("streamed %v: sweep %d is not a permutation", tune != nil, j)
						}
					}
				}
			}
			if math.Abs(f[0]-f[1]) > 1e-9*(1+math.Abs(f[0])) {
				t.Errorf("%v seed %d: objective %.17g whole, %.17g streamed", sel, seed, f[0], f[1])
			}
		}
	}
}
