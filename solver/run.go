package solver

import (
	"math"
	"math/rand/v2"

	"github.com/acfcd/acfcd/acf"
)

// Problem is a coordinate-descent problem over Len() coordinates.
type Problem interface {
	// Len is the number of coordinates.
	Len() int
	// Step does one exact coordinate step on i and returns the signed
	// projected gradient before it (its violation is |pg|; problems
	// without bounds may return the violation itself) and the exact
	// decrease of the objective. A problem with bounds returns shrink
	// instead of stepping when i is at a bound and its gradient is beyond
	// th (liblinear's shrinking); th is ±Inf when the selection does not
	// shrink. ahead is a coordinate that will be stepped on soon, or −1:
	// problems whose coordinates are rows in memory prefetch it, since
	// random order makes every row a cache miss otherwise.
	Step(i, ahead int32, th Thresholds) (pg, gain float64, shrink bool)
	// Pass goes over every coordinate at the current point and reports
	// whether all satisfy the KKT conditions within the tolerance. With
	// repair it steps on the violators it finds, telling r of each
	// (Run.Repaired), and then reports false.
	Pass(r *Run, repair bool) bool
}

// BatchEnder is implemented by problems with work to do after every
// batch: entries is the number of coordinates the selection handed out
// (steps included that a stop cut short), stopped whether the batch was
// cut short. The returned gain is subtracted from the objective.
type BatchEnder interface {
	EndBatch(entries int, stopped bool) (gain float64)
}

// Trigger is implemented by problems that decide themselves when a sweep
// makes the certifying pass worthwhile (default: its violation ≤ eps).
type Trigger interface {
	Due(viol float64) bool
}

// StepCoster is implemented by problems whose steps differ in cost (a
// step on a feature reads its column, of any length): the ACF selections
// then adapt each coordinate's preference to its gain times GainScale()[i],
// the mean cost of a step divided by the cost of a step on i, that is to
// the progress per unit of work rather than per step. GainScale is asked
// at the start of every Solve.
type StepCoster interface {
	GainScale() []float64
}

// WarmupOrderer is implemented by problems that know where the first
// steps pay most: the ACF selections' warm-up sweep, which steps on every
// coordinate once to measure the gains, visits them in the order
// WarmupOrder writes into b (a permutation of 0..n−1) rather than in a
// random one.
type WarmupOrderer interface {
	WarmupOrder(b []int32)
}

// Thresholds are liblinear's shrinking thresholds: a coordinate at its
// lower bound whose gradient is above Max, or at its upper bound with a
// gradient below Min, leaves the active set.
type Thresholds struct{ Max, Min float64 }

var noShrink = Thresholds{math.Inf(1), math.Inf(-1)}

// nextThresholds returns liblinear's thresholds for the batch after one
// whose unshrunk steps had projected gradients in [pgMin, pgMax]; a side
// with no gradient past 0 shrinks nothing.
func nextThresholds(pgMax, pgMin float64) Thresholds {
	th := Thresholds{pgMax, pgMin}
	if th.Max <= 0 {
		th.Max = math.Inf(1)
	}
	if th.Min >= 0 {
		th.Min = math.Inf(-1)
	}
	return th
}

// Repair says what a repair step of a failed full pass does to the ACF
// preference of its coordinate.
type Repair uint8

const (
	// RepairKeep leaves the preference as it is.
	RepairKeep Repair = iota
	// RepairObserve adapts it to the step's gain, as any step's.
	RepairObserve
	// RepairMax raises it to p_max.
	RepairMax
	// RepairAtLeastOne raises it to at least 1, the starting preference.
	RepairAtLeastOne
)

// Config configures a Run.
type Config struct {
	Selection Selection // not Auto: the caller resolves the problem's default
	Seed      uint64    // seeds liblinear's shrinking shuffles (Solve seeds the rest)
	Eps       float64   // the violation at which a sweep counts as converged
	MaxEpochs int
	ACF       acf.Config
	// EarlyCheck turns on Tuning.EarlyCheck for the ACF selections.
	EarlyCheck bool
	// Repair is what repairs do to preferences (ACF selections).
	Repair Repair
	// Work is the number of non-zeros a sweep reads, for the interval
	// between checks for cancellation.
	Work int64
	// Done cancels the run when closed.
	Done <-chan struct{}
	// Progress, if set, is called at the end of every epoch.
	Progress func(epoch int, viol, obj float64)
	// Finisher, if set, is asked at the end of every epoch whether the run
	// should hand over to it (Run.Converge runs it).
	Finisher Finisher
	// AfterBatch, if set, runs after every batch not cut short (the push
	// of duplicate rows); its gain is subtracted from the objective.
	AfterBatch func() (gain float64)
	// Trace, if set, receives a line for every full pass and every batch.
	Trace  func(format string, args ...any)
	Tuning *Tuning // nil: DefaultTuning
}

// Run is the state of coordinate descent on one problem: the counters and
// the epoch clock persist over several calls of Solve (a finisher may run
// between them).
type Run struct {
	p    Problem
	end  BatchEnder
	trig Trigger
	cfg  Config
	tune *Tuning
	n    int

	// Steps counts coordinate steps, repairs included.
	Steps int64
	// Obj is the objective, tracked by subtracting the exact gains; a
	// problem or finisher that moves the point sets it anew.
	Obj float64
	// LastViol is the violation of the last epoch reported.
	LastViol float64

	epochs       int   // epochs completed
	epochAt      int64 // step-counted epochs: steps at which the next one ends
	slowAt       int64 // steps at which slow runs next
	every        int64 // steps between checks for cancellation
	stepEpochs   bool  // an epoch is n steps (acf) rather than a sweep
	earlyChecked bool
	cancelled    bool
	capped       bool
	switching    bool
	stopAt       int64 // > 0: Budget's step at which the batches stop

	sel *selection // the selection of the running Solve, nil between
	rng *rand.Rand // liblinear's shrinking shuffles, over all Solves
	buf buffers
}

// NewRun starts coordinate descent on p.
func NewRun(p Problem, cfg Config) *Run {
	r := &Run{p: p, cfg: cfg, n: p.Len(), LastViol: math.Inf(1)}
	r.end, _ = p.(BatchEnder)
	r.trig, _ = p.(Trigger)
	r.tune = cfg.Tuning
	if r.tune == nil {
		t := DefaultTuning()
		r.tune = &t
	}
	r.every = 1 << 16
	if cfg.Work > 0 && r.n > 0 {
		r.every = max(1, int64(float64(r.tune.PollWork)*float64(r.n)/float64(cfg.Work)))
	}
	r.stepEpochs = cfg.Selection.stepEpochs()
	r.epochAt = int64(r.n)
	r.slowAt = r.every
	if r.stepEpochs {
		r.slowAt = min(r.every, r.epochAt)
	}
	r.rng = rand.New(rand.NewPCG(cfg.Seed, 0x73687269))
	return r
}

// Solve runs coordinate descent with a fresh selection seeded by seed (its
// ACF preferences start anew) until a full pass certifies the point
// (true), or the epoch cap, a switch to a finisher or cancellation ends it
// (false; see Capped, Handover, Cancelled).
func (r *Run) Solve(seed uint64) bool {
	r.switching = false
	if r.n == 0 {
		return r.p.Pass(r, true)
	}
	s := r.newSelection(seed)
	r.sel = s
	defer func() { r.sel = nil }()
	eps := r.cfg.Eps
	early := s.acf && r.cfg.EarlyCheck
	for {
		if r.Poll() {
			return false
		}
		viol, stop := s.batch(r)
		if stop {
			return false
		}
		if r.cfg.AfterBatch != nil {
			r.Obj -= r.cfg.AfterBatch()
		}
		if r.cfg.Trace != nil {
			r.cfg.Trace("batch: steps %d (%.2f ep) viol %.4g obj %.10g", r.Steps, float64(r.Steps)/float64(r.n), viol, r.Obj)
		}
		if !r.stepEpochs {
			r.epochs++
			r.report(viol)
		}
		due := viol <= eps
		if r.trig != nil {
			due = r.trig.Due(viol)
		}
		if due {
			if r.pass() {
				return true
			}
			s.failedCheck(r)
			r.earlyChecked = true
		} else if early && !r.earlyChecked && viol <= r.tune.EarlyCheck*eps {
			// An ACF sweep skips coordinates of low preference, so its
			// violation can be small while some of them, not visited
			// since w moved, violate by far more: one pass finds them.
			r.earlyChecked = true
			if r.pass() {
				return true
			}
			s.failedCheck(r)
		}
		if !r.stepEpochs && r.switchDue() {
			return false
		}
		if !r.stepEpochs && r.epochs >= r.cfg.MaxEpochs {
			r.capped = true
			return false
		}
	}
}

// pass runs the problem's full pass with repairs.
func (r *Run) pass() bool {
	ok := r.p.Pass(r, true)
	if r.cfg.Trace != nil {
		r.cfg.Trace("kkt pass ok=%v steps=%d (%.1f epochs) obj=%.10g", ok, r.Steps, float64(r.Steps)/float64(r.n), r.Obj)
	}
	return ok
}

// Repaired is told by Problem.Pass of each repair step on coordinate i
// with gain.
func (r *Run) Repaired(i int32, gain float64) {
	r.Steps++
	r.Obj -= gain
	if r.sel != nil {
		r.sel.repaired(r, i, gain)
	}
}

// Poll reports whether the run is cancelled, checking Config.Done.
func (r *Run) Poll() bool {
	if r.cancelled {
		return true
	}
	select {
	case <-r.cfg.Done:
		r.cancelled = true
		return true
	default:
		return false
	}
}

// Cancelled reports whether cancellation stopped the run.
func (r *Run) Cancelled() bool { return r.cancelled }

// Settle ends a run that Solve returned from: a converged run was
// measured by its last pass; a cancelled one is not measured (a pass reads
// all the data, seconds at kdd scale, where the caller asked to stop now);
// any other is measured where it stopped by a pass without steps. It
// returns whether the run converged and whether p's pass figures describe
// the final point.
func (r *Run) Settle(p Problem, converged bool) (conv, measured bool) {
	switch {
	case converged:
		return true, true
	case r.cancelled:
		return false, false
	}
	return p.Pass(r, false), true
}

// Capped reports whether the epoch cap stopped the run.
func (r *Run) Capped() bool { return r.capped }

// Handover reports whether the last Solve stopped to hand over to the
// finisher (Config.Finisher), and clears that.
func (r *Run) Handover() bool {
	h := r.switching
	r.switching = false
	return h
}

// Epochs returns the epochs done: sweeps, or for the ACF selections the
// steps divided by the number of coordinates, rounded up.
func (r *Run) Epochs() int {
	if r.stepEpochs && r.n > 0 {
		return int((r.Steps + int64(r.n) - 1) / int64(r.n))
	}
	return r.epochs
}

// Tuning returns the run's tuning.
func (r *Run) Tuning() *Tuning { return r.tune }

// Trace is Config.Trace, or nil.
func (r *Run) Trace() func(format string, args ...any) { return r.cfg.Trace }

// Done is Config.Done: finishers that work on several goroutines check it
// on each (Poll is for the calling goroutine only).
func (r *Run) Done() <-chan struct{} { return r.cfg.Done }

// slow runs the rare checks: cancellation and, for step-counted epochs,
// the end of an epoch (progress, switch, cap). It returns true to stop.
func (r *Run) slow(viol float64) bool {
	if r.Poll() || r.stopAt > 0 && r.Steps >= r.stopAt {
		return true
	}
	if r.stepEpochs {
		for r.Steps >= r.epochAt {
			r.epochAt += int64(r.n)
			r.epochs++
			r.report(viol)
			if r.switchDue() {
				return true
			}
			if r.epochs >= r.cfg.MaxEpochs {
				r.capped = true
				return true
			}
		}
		r.slowAt = min(r.Steps+r.every, r.epochAt)
	} else {
		r.slowAt = r.Steps + r.every
	}
	if r.stopAt > 0 {
		r.slowAt = min(r.slowAt, r.stopAt)
	}
	return false
}

// Note reports progress from inside a finisher, whose iterations are no
// epochs: viol bounds the dual's violation at the finisher's point and
// obj is the objective in the dual's convention (its value at the
// optimum). LastViol, which the switch rule reads, is left alone.
func (r *Run) Note(viol, obj float64) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(r.epochs, viol, obj)
	}
}

func (r *Run) report(viol float64) {
	r.LastViol = viol
	if r.cfg.Progress != nil {
		r.cfg.Progress(r.epochs, viol, r.Obj)
	}
}

func (r *Run) switchDue() bool {
	if r.cfg.Finisher != nil && r.cfg.Finisher.Due(r) {
		r.switching = true
		return true
	}
	return false
}
