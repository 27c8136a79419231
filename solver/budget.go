package solver

import (
	"math"

	"github.com/acfcd/acfcd/acf"
)

// Budget runs coordinate descent on a problem in budgets of steps, as a
// local solver of a distributed method does once per round (CoCoA+): one
// selection lives over all calls, so that the ACF preferences and the
// scheduler's accumulators learnt in one round carry over to the next,
// and the warm-up sweep is done once. A budget ends mid-batch, exactly
// after its last step; no full pass certifies anything (the caller
// measures the point, e.g. by a duality gap).
type Budget struct {
	r *Run
	s *selection
}

// NewBudget starts budgeted coordinate descent on p with the selection
// cfg.Selection seeded by seed. cfg.MaxEpochs, Finisher and Eps are not used.
func NewBudget(p Problem, cfg Config, seed uint64) *Budget {
	cfg.MaxEpochs = math.MaxInt
	cfg.Finisher = nil
	r := NewRun(p, cfg)
	b := &Budget{r: r}
	if r.n > 0 {
		b.s = r.newSelection(seed)
	}
	return b
}

// Steps does n more coordinate steps (fewer only if cancelled) and returns
// the largest violation the last batch saw.
func (b *Budget) Steps(n int64) (viol float64) {
	r := b.r
	if n <= 0 || b.s == nil {
		return 0
	}
	r.stopAt = r.Steps + n
	r.slowAt = min(r.slowAt, r.stopAt)
	r.sel = b.s
	defer func() { r.stopAt, r.sel = 0, nil }()
	for r.Steps < r.stopAt && !r.Poll() {
		v, stop := b.s.batch(r)
		viol = v
		if r.cfg.AfterBatch != nil && !stop {
			r.Obj -= r.cfg.AfterBatch()
		}
		if !r.stepEpochs {
			r.epochs++
		}
		if stop {
			break
		}
	}
	return viol
}

// Moved tells the selection that the problem's point was moved from
// outside the run (a new round's shared w): liblinear's shrinking
// decisions and thresholds were made against the old point and are
// dropped, every coordinate active again. Kept, a coordinate shrunk in one
// round would never be stepped on again, whatever later rounds do to its
// gradient. The ACF preferences stay.
func (b *Budget) Moved() {
	s := b.s
	switch {
	case s == nil:
	case s.kind == Shrink:
		s.active, s.th = b.r.n, noShrink
	case s.shrinking:
		s.unshrinkAll(b.r)
	}
}

// Run returns the run: its step counter and objective.
func (b *Budget) Run() *Run { return b.r }

// Prefs returns the ACF preferences of the selection, or nil for the
// selections without them.
func (b *Budget) Prefs() *acf.Prefs {
	if b.s == nil || !b.s.acf {
		return nil
	}
	return b.s.prefs
}

// Resumed tells the selection that its state was restored (Prefs().Restore)
// from an earlier run: an ACF selection whose preferences have left the
// warm-up then skips its warm-up sweep.
func (b *Budget) Resumed() {
	if p := b.Prefs(); p != nil && p.Warm() {
		b.s.warm = false
	}
}

// Scheduler returns the ACF scheduler of the selection (its credits are
// part of the state that Prefs alone does not keep), or nil for the
// selections without one.
func (b *Budget) Scheduler() *acf.Scheduler {
	if b.s == nil || !b.s.acf {
		return nil
	}
	return b.s.sched
}
