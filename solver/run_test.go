package solver

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// fixedScript is a problem of n coordinates that never converges under
// eps < 1: every step has projected gradient 1 and gain 0.5 (dyadic, so
// that objectives are exact).
func fixedScript(n int) *script {
	pg, gain := make([]float64, n), make([]float64, n)
	for i := range n {
		pg[i], gain[i] = 1, 0.5
	}
	return &script{n: n, step: fixedSteps(pg, gain)}
}

// TestExactObjective: on a separable quadratic every selection solves
// each coordinate at its first step, so that the run is one sweep (or
// the ACF warm-up), one more sweep with nothing to do, and one full pass:
// 2n steps and 2 epochs. Run.Obj, the sum of the exact gains, is the
// objective at the minimiser x* = clip(b/a, 0, u) bit for bit. The
// shrinking selections shrink, in their second sweep, the coordinates at
// a bound of x* whose gradient a·x* − b is beyond the first sweep's
// extreme projected gradients.
func TestExactObjective(t *testing.T) {
	for _, sel := range allSelections {
		q := newSeparable(3, 50)
		var fStar float64
		xStar := make([]float64, q.n)
		th := Thresholds{math.Inf(-1), math.Inf(1)}
		for i := range q.n {
			a := q.q[i*q.n+i]
			xStar[i] = min(max(q.b[i]/a, 0), q.u[i])
			fStar += 0.5*a*xStar[i]*xStar[i] - q.b[i]*xStar[i]
			pg, _ := q.pg(int32(i), noShrink)
			th = Thresholds{max(th.Max, pg), min(th.Min, pg)}
		}
		if th.Max <= 0 || th.Min >= 0 {
			t.Fatalf("thresholds %v: no shrinking", th)
		}
		wantShrinks := 0
		if sel == Shrink || sel == ACFShrink {
			for i := range q.n {
				G := q.q[i*q.n+i]*xStar[i] - q.b[i]
				if xStar[i] == 0 && G > th.Max || xStar[i] == q.u[i] && G < th.Min {
					wantShrinks++
				}
			}
			if wantShrinks == 0 {
				t.Fatal("nothing to shrink")
			}
		}
		r, m, ok := check(t, q, Config{Selection: sel, Eps: q.eps, MaxEpochs: 10}, q.f(), 1)
		if !ok || r.Steps != int64(2*q.n) || r.Epochs() != 2 || q.passes != 1 {
			t.Fatalf("%v: Solve %v, %d steps, %d epochs, %d passes; want true, %d, 2, 1", sel, ok, r.Steps, r.Epochs(), q.passes, 2*q.n)
		}
		if !slices.Equal(q.x, xStar) {
			t.Fatalf("%v: x = %v, want %v", sel, q.x, xStar)
		}
		if r.Obj != fStar || q.f() != fStar {
			t.Fatalf("%v: Run.Obj %v, f(x) %v, want %v exactly", sel, r.Obj, q.f(), fStar)
		}
		if m.counts.shrinks != wantShrinks {
			t.Fatalf("%v: %d shrinks, want %d", sel, m.counts.shrinks, wantShrinks)
		}
		if got := count(q.log, evProgress); got != 2 {
			t.Fatalf("%v: %d progress reports, want 2", sel, got)
		}
	}
}

// TestEmptyProblem: Solve on no coordinates runs the full pass, once per
// call, and answers with it; no steps, batches or epochs.
func TestEmptyProblem(t *testing.T) {
	for _, sel := range allSelections {
		s := &script{n: 0, pass: func(_ *Run, k int) bool { return k == 1 }}
		cfg := Config{Selection: sel, Eps: 1, MaxEpochs: 3}
		r := newRun(s, cfg)
		m := newModel(t, s, cfg, 0)
		if solveChecked(t, m, r, s, 1) || !solveChecked(t, m, r, s, 2) {
			t.Fatalf("%v: Solve did not answer with the pass", sel)
		}
		if s.passes != 2 || len(s.log) != 4 || r.Steps != 0 || r.Epochs() != 0 || r.Capped() {
			t.Fatalf("%v: %d passes, log %v, %d steps, %d epochs, capped %v", sel, s.passes, s.log, r.Steps, r.Epochs(), r.Capped())
		}
	}
}

// TestEpochClock: Progress comes once per epoch with the epoch's number.
// Cyclic, Uniform and Shrink count sweeps: the report follows the sweep's
// end. The ACF selections count n steps, repairs included: the report
// comes at the step that completes the epoch (or, after a pass whose
// repairs crossed it, at the next step), and Epochs rounds steps/n up.
func TestEpochClock(t *testing.T) {
	for _, sel := range allSelections {
		for _, seed := range []uint64{1, 2, 3} {
			q := newSVM(seed, 40, 5, 1, 0, 1e-3)
			cfg := Config{Selection: sel, Eps: q.eps, MaxEpochs: 100000, EarlyCheck: true, Repair: RepairMax}
			r, _, ok := check(t, q, cfg, 0, seed)
			converged(t, q, r, ok)
			epoch, ends, steps, repairs := 0, 0, int64(0), 0
			var prevAfter, lastAfter int64 // Steps after the last two steps
			for k, e := range q.log {
				switch e.kind {
				case evStep:
					steps++
					prevAfter, lastAfter = lastAfter, e.steps+1
				case evRepair:
					steps++
					repairs++
				case evEnd:
					ends++
				case evProgress:
					epoch++
					if e.epoch != epoch {
						t.Fatalf("%v: progress epoch %d, want %d", sel, e.epoch, epoch)
					}
					if sel.stepEpochs() {
						n := int64(q.n)
						if e.steps != lastAfter || e.steps < int64(epoch)*n || prevAfter >= int64(epoch)*n {
							t.Fatalf("%v: epoch %d reported at step %d", sel, epoch, e.steps)
						}
					} else if epoch != ends || q.log[k-1].kind != evEnd {
						t.Fatalf("%v: epoch %d reported after %d sweeps, not at a sweep's end", sel, epoch, ends)
					}
				}
			}
			if r.Steps != steps {
				t.Fatalf("%v: Steps %d, want %d (steps and repairs)", sel, r.Steps, steps)
			}
			want := ends
			if sel.stepEpochs() {
				want = int((steps + int64(q.n) - 1) / int64(q.n))
			}
			if r.Epochs() != want || epoch != r.Epochs() && !sel.stepEpochs() {
				t.Fatalf("%v: Epochs() %d, want %d (%d reported)", sel, r.Epochs(), want, epoch)
			}
		}
	}
}

// TestMaxEpochs: the cap stops a run that does not converge after exactly
// MaxEpochs epochs: MaxEpochs sweeps, or MaxEpochs·n steps for the ACF
// selections, mid-batch (the batch ends stopped, without AfterBatch).
func TestMaxEpochs(t *testing.T) {
	for _, sel := range allSelections {
		for _, maxEpochs := range []int{1, 3, 8} {
			s := fixedScript(13)
			afters := 0
			cfg := Config{Selection: sel, Eps: 0.5, MaxEpochs: maxEpochs, AfterBatch: func() float64 { afters++; return 0 }}
			r, m, ok := check(t, s, cfg, 0, 4)
			if ok || !r.Capped() || r.Cancelled() || r.Epochs() != maxEpochs || r.Steps != int64(maxEpochs*s.n) {
				t.Fatalf("%v cap %d: Solve %v capped %v cancelled %v, %d epochs, %d steps", sel, maxEpochs, ok, r.Capped(), r.Cancelled(), r.Epochs(), r.Steps)
			}
			if got := count(s.log, evProgress); got != maxEpochs {
				t.Fatalf("%v cap %d: %d progress reports", sel, maxEpochs, got)
			}
			last := s.log[len(s.log)-1]
			if sel.stepEpochs() != (last.kind == evEnd && last.stopped) || afters != m.counts.batches-m.counts.stopped {
				t.Fatalf("%v cap %d: the log ends with %v; %d AfterBatch for %d batches, %d stopped", sel, maxEpochs, last, afters, m.counts.batches, m.counts.stopped)
			}
		}
	}
}

// TestCancel: closing Config.Done stops the run within Tuning.PollWork
// non-zeros of work (PollWork·n/Work steps, here 7): Solve false,
// Cancelled, not Capped, and every later Solve returns at once.
func TestCancel(t *testing.T) {
	const n, every = 13, 7
	for _, sel := range allSelections {
		for _, at := range []int64{-1, 0, 1, 12, 40, 95} {
			s := fixedScript(n)
			done := make(chan struct{})
			if at < 0 {
				close(done)
			}
			s.onStep = func(_ int32, k int64) {
				if k == at {
					close(done) // during step at+1
				}
			}
			cfg := Config{Selection: sel, Eps: 0.5, MaxEpochs: 1000, Done: done, Work: 10 * n, Tuning: tuned(func(t *Tuning) { t.PollWork = 70 })}
			r := newRun(s, cfg)
			if r.every != every {
				t.Fatalf("%d steps between polls, want %d", r.every, every)
			}
			m := newModel(t, s, cfg, 0)
			m.cancelOK = true
			if solveChecked(t, m, r, s, 1) || !r.Cancelled() || r.Capped() || !r.Poll() {
				t.Fatalf("%v at %d: not cancelled", sel, at)
			}
			if r.Steps <= at || r.Steps > max(at, 0)+every || at < 0 && r.Steps != 0 {
				t.Fatalf("%v: cancelled after step %d, stopped after %d (polls every %d)", sel, at+1, r.Steps, every)
			}
			events := len(s.log)
			if r.Solve(2) || len(s.log) != events {
				t.Fatalf("%v: a Solve after cancellation ran", sel)
			}
		}
	}
}

// TestSwitch: Config.Finisher's Due is asked at the end of every epoch; when it
// answers true the run stops for a finisher (Handover true once, then
// cleared), and a later Solve goes on with the epoch count, the switch
// still asked, to convergence.
func TestSwitch(t *testing.T) {
	for _, sel := range allSelections {
		q := newSVM(1, 40, 5, 1, 0, 1e-4)
		calls := 0
		cfg := Config{Selection: sel, Eps: q.eps, MaxEpochs: 100000, Repair: RepairMax, EarlyCheck: true,
			Finisher: switchFunc(func(*Run) bool { calls++; return calls == 3 })}
		r := newRun(q, cfg)
		m := newModel(t, q, cfg, 0)
		if solveChecked(t, m, r, q, 1) || calls != 3 || r.Epochs() != 3 {
			t.Fatalf("%v: the run went on after the switch (%d calls, %d epochs)", sel, calls, r.Epochs())
		}
		var epochs []int
		for _, e := range q.log {
			if e.kind == evSwitch {
				epochs = append(epochs, e.epoch)
			}
		}
		if !slices.Equal(epochs, []int{1, 2, 3}) {
			t.Fatalf("%v: Switch asked at epochs %v", sel, epochs)
		}
		ok := solveChecked(t, m, r, q, 2)
		converged(t, q, r, ok)
		if calls < r.Epochs()-1 || r.Epochs() < 5 {
			t.Fatalf("%v: %d calls in %d epochs", sel, calls, r.Epochs())
		}
	}
}

// TestAfterBatch: Config.AfterBatch runs after every batch that was not
// cut short, and its gain, like EndBatch's, comes off Run.Obj.
func TestAfterBatch(t *testing.T) {
	for _, sel := range allSelections {
		s := fixedScript(13)
		s.endGain = 0.125
		afters := 0
		cfg := Config{Selection: sel, Eps: 0.5, MaxEpochs: 5, AfterBatch: func() float64 { afters++; return 0.25 }}
		r, m, _ := check(t, s, cfg, 100, 1)
		ends := count(s.log, evEnd)
		if afters != ends-m.counts.stopped || afters < 4 {
			t.Fatalf("%v: AfterBatch ran %d times after %d batches (%d stopped)", sel, afters, ends, m.counts.stopped)
		}
		for k, e := range s.log {
			if e.kind == evAfter && (s.log[k-1].kind != evEnd || s.log[k-1].stopped) {
				t.Fatalf("%v: AfterBatch after %v", sel, s.log[k-1])
			}
		}
		if want := 100 - 0.5*float64(r.Steps) - 0.125*float64(ends) - 0.25*float64(afters); r.Obj != want {
			t.Fatalf("%v: Run.Obj %v, want %v", sel, r.Obj, want)
		}
	}
}

// TestEndBatch: EndBatch gets the entries the selection handed out, the
// steps on them and the entries skipped (coordinates shrunk earlier in
// the batch) and cut short, and whether the batch was stopped; the run is
// the same for a problem without EndBatch.
func TestEndBatch(t *testing.T) {
	for _, sel := range allSelections {
		q := newSVM(4, 40, 5, 10, 0, 1e-3)
		cfg := Config{Selection: sel, Eps: q.eps, MaxEpochs: 20, Repair: RepairMax}
		r, _, _ := check(t, q, cfg, 0, 3)
		steps := 0
		for _, e := range q.log {
			switch e.kind {
			case evStep:
				steps++
			case evEnd:
				switch {
				case (sel == Cyclic || sel == Uniform) && e.entries != q.n,
					sel == ACFShrink && e.entries < steps,
					sel != ACFShrink && !e.stopped && e.entries != steps,
					e.stopped && e.entries < steps:
					t.Fatalf("%v: %d entries for %d steps, stopped %v", sel, e.entries, steps, e.stopped)
				}
				steps = 0
			}
		}

		// The same run without BatchEnder.
		q2 := newSVM(4, 40, 5, 10, 0, 1e-3)
		r2 := NewRun(struct{ Problem }{q2}, cfg)
		q2.r = r2
		ok2 := r2.Solve(3)
		if r2.Steps != r.Steps || r2.Obj != r.Obj || !slices.Equal(q2.x, q.x) || ok2 != !r.Capped() {
			t.Fatalf("%v: without EndBatch %d steps obj %v, with %d steps obj %v", sel, r2.Steps, r2.Obj, r.Steps, r.Obj)
		}
	}
}

// TestTrigger: a problem that is a Trigger decides when a batch is worth
// the full pass, from the batch's violation, instead of viol ≤ eps.
func TestTrigger(t *testing.T) {
	for _, sel := range allSelections {
		for _, pg := range []float64{5, 1e-6} { // above and below eps
			s := fixedScript(13)
			s.step = func(int32, int, Thresholds) (float64, float64, bool) { return pg, 0.5, false }
			s.pass = func(_ *Run, k int) bool { return k == 1 }
			calls := 0
			w := withDue{s, func(float64) bool { calls++; return calls == 2 || calls == 4 }}
			r, m, ok := check(t, w, Config{Selection: sel, Eps: 1e-3, MaxEpochs: 100}, 0, 1)
			if !ok || calls != 4 || s.passes != 2 || m.counts.batches != 4 || r.Capped() {
				t.Fatalf("%v pg %g: Solve %v after %d Due calls, %d passes, %d batches", sel, pg, ok, calls, s.passes, m.counts.batches)
			}
		}
	}
}

// TestEarlyCheck: with Config.EarlyCheck the ACF selections run one full
// pass the first time a batch's violation is within Tuning.EarlyCheck·eps
// (a failed one is not repeated); the other selections and the ACF ones
// without it wait for viol ≤ eps.
func TestEarlyCheck(t *testing.T) {
	levels := []float64{100, 50, 9, 8, 5, 0.5} // batch violations, in eps
	const eps = 1e-3
	for _, sel := range allSelections {
		for _, c := range []struct {
			early  bool
			factor float64
			want   []int // the batches the passes follow
		}{{true, 10, []int{3, 6}}, {false, 10, []int{6}}, {true, 6, []int{5, 6}}, {true, 200, []int{1, 6}}} {
			s := fixedScript(13)
			s.step = func(_ int32, batch int, _ Thresholds) (float64, float64, bool) {
				return levels[min(batch, len(levels)-1)] * eps, 1, false
			}
			var at []int
			s.pass = func(*Run, int) bool { at = append(at, s.batch); return s.batch == 6 }
			cfg := Config{Selection: sel, Eps: eps, MaxEpochs: 100, EarlyCheck: c.early, Tuning: tuned(func(t *Tuning) { t.EarlyCheck = c.factor })}
			_, _, ok := check(t, s, cfg, 0, 1)
			want := c.want
			if !sel.stepEpochs() {
				want = []int{6}
			}
			if !ok || !slices.Equal(at, want) {
				t.Fatalf("%v early %v at %g·eps: passes after batches %v, want %v", sel, c.early, c.factor, at, want)
			}
		}
	}
}

// TestRepairPolicies: what a repair step of a failed pass does to its
// coordinate's ACF preference: Keep leaves it, Observe updates it as any
// step's gain (p ← clip(exp(c(g/r̄ − 1))·p), r̄ ← (1−η)r̄ + ηg), Max
// raises it to p_max, AtLeastOne to max(p, 1). Other selections have no
// preferences and take repairs all the same.
func TestRepairPolicies(t *testing.T) {
	const n = 8
	for _, sel := range []Selection{ACF, ACFShrink, Uniform} {
		for _, policy := range []Repair{RepairKeep, RepairObserve, RepairMax, RepairAtLeastOne} {
			s := fixedScript(n)
			s.step = func(i int32, batch int, _ Thresholds) (float64, float64, bool) {
				pg := 1.0
				if batch >= 6 {
					pg = 0.1
				}
				return pg, math.Ldexp(1, -2*int(i)), false // coordinate 0 gains most
			}
			checked := 0
			s.pass = func(r *Run, k int) bool {
				if k > 0 {
					return true
				}
				for _, i := range []int32{n - 1, 0} { // low and high preference
					const gain = 0.375
					if !sel.stepEpochs() {
						s.repair(r, i, gain)
						continue
					}
					p := r.sel.prefs
					before, rbar := p.P(int(i)), p.Rbar()
					if i == 0 && before <= 1 || i == n-1 && before >= 1 {
						t.Fatalf("%v: p_%d = %v before the repair", sel, i, before)
					}
					s.repair(r, i, gain)
					want := before
					switch policy {
					case RepairObserve:
						want = float64(float32(min(max(math.Exp(0.2*(gain/rbar-1))*before, float64(float32(0.05))), 20)))
						if eta := 1.0 / n; p.Rbar() != (1-eta)*rbar+eta*gain {
							t.Fatalf("r̄ %v after the repair, want %v", p.Rbar(), (1-eta)*rbar+eta*gain)
						}
					case RepairMax:
						want = 20
					case RepairAtLeastOne:
						want = max(before, 1)
					}
					if got := p.P(int(i)); got != want {
						t.Fatalf("%v %v: p_%d = %v after a repair with gain %v, want %v (was %v, r̄ %v)", sel, policy, i, got, gain, want, before, rbar)
					}
					checked++
				}
				return false
			}
			_, m, ok := check(t, s, Config{Selection: sel, Eps: 0.5, MaxEpochs: 100, Repair: policy}, 0, 1)
			if !ok || m.counts.repairs != 2 || sel.stepEpochs() && checked != 2 {
				t.Fatalf("%v %v: Solve %v, %d repairs checked", sel, policy, ok, checked)
			}
		}
	}
}

// TestTrace: Config.Trace gets a line per batch not cut short and per full
// pass.
func TestTrace(t *testing.T) {
	for _, sel := range allSelections {
		q := newSVM(2, 30, 5, 1, 0, 1e-3)
		var lines []string
		cfg := Config{Selection: sel, Eps: q.eps, MaxEpochs: 1000, Trace: func(format string, args ...any) {
			lines = append(lines, fmt.Sprintf(format, args...))
		}}
		r, m, ok := check(t, q, cfg, 0, 1)
		converged(t, q, r, ok)
		var batch, pass int
		for _, l := range lines {
			switch {
			case strings.HasPrefix(l, "batch: steps "):
				batch++
			case strings.HasPrefix(l, "kkt pass ok="):
				pass++
			default:
				t.Fatalf("%v: trace line %q", sel, l)
			}
		}
		if batch != m.counts.batches || pass != q.passes || r.Trace() == nil {
			t.Fatalf("%v: %d batch lines for %d batches, %d pass lines for %d passes", sel, batch, m.counts.batches, pass, q.passes)
		}
	}
}
