package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/acfcd/acfcd/acf"
)

// The driver's tests run toy problems that record every call the driver
// makes (a log of events), and check the log against model, a reference
// of the driver written from its documentation: which coordinates each
// selection hands out and in what order, what it passes to Step, when the
// full pass, the progress, the switch and the cap come, and the objective
// as the exact gains subtract from it.

// allSelections are the selections a Run takes (Auto is resolved by the
// caller).
var allSelections = []Selection{Cyclic, Uniform, Shrink, ACF, ACFShrink}

type evKind uint8

const (
	evStep      evKind = iota // Problem.Step
	evPassStart               // Problem.Pass
	evRepair                  // a repair step of Problem.Pass (Run.Repaired)
	evPassEnd                 // Problem.Pass returned ok
	evEnd                     // BatchEnder.EndBatch
	evAfter                   // Config.AfterBatch
	evProgress                // Config.Progress
	evSwitch                  // Config.Finisher.Due returned ok
	evDue                     // Trigger.Due returned ok
)

var evNames = [...]string{"step", "pass", "repair", "pass end", "end batch", "after batch", "progress", "switch", "due"}

func (k evKind) String() string { return evNames[k] }

// event is one call of the driver into a test problem or a callback.
type event struct {
	kind    evKind
	i       int32      // step, repair: the coordinate
	ahead   int32      // step
	th      Thresholds // step
	pg      float64    // step
	gain    float64    // step, repair, end, after: what the driver subtracts from Obj
	shrink  bool       // step
	ok      bool       // pass end, switch, due: the answer; pass start: repair
	entries int        // end
	stopped bool       // end
	epoch   int        // progress; switch: Run.Epochs()
	viol    float64    // progress, due
	obj     float64    // progress
	steps   int64      // Run.Steps when the event happened
}

func (e event) String() string {
	switch e.kind {
	case evStep:
		return fmt.Sprintf("step %d (ahead %d, th %v) pg %g gain %g shrink %v", e.i, e.ahead, e.th, e.pg, e.gain, e.shrink)
	case evEnd:
		return fmt.Sprintf("end batch entries %d stopped %v gain %g", e.entries, e.stopped, e.gain)
	case evProgress:
		return fmt.Sprintf("progress epoch %d viol %g obj %g", e.epoch, e.viol, e.obj)
	case evRepair:
		return fmt.Sprintf("repair %d gain %g", e.i, e.gain)
	case evPassStart:
		return fmt.Sprintf("pass (repair %v)", e.ok)
	}
	return fmt.Sprintf("%v ok=%v", e.kind, e.ok)
}

// rec is the log of a test problem; r is the Run driving it (set by
// newRun), so that a problem can look at the driver's state.
type rec struct {
	log   []event
	r     *Run
	prefs *acf.Prefs // the ACF preferences of the last Solve that stepped
}

func (c *rec) recorder() *rec { return c }

func (c *rec) add(e event) {
	if c.r != nil {
		e.steps = c.r.Steps
		if c.r.sel != nil && c.r.sel.prefs != nil {
			c.prefs = c.r.sel.prefs
		}
	}
	c.log = append(c.log, e)
}

// testProblem is a problem that records the driver's calls.
type testProblem interface {
	Problem
	BatchEnder
	recorder() *rec
}

// quad is f(x) = ½xᵀQx − bᵀx over the box 0 ≤ x ≤ u (u_i may be +Inf)
// with Q symmetric positive definite: exact coordinate steps, liblinear's
// shrinking rule at the bounds, and a full pass that steps on every
// coordinate violating by more than eps.
type quad struct {
	rec
	n    int
	q    []float64 // n×n, row-major
	b, u []float64
	x, g []float64 // the point and the gradient Qx − b

	eps     float64
	endGain float64                // what EndBatch returns
	onStep  func(i int32, k int64) // called at every step, with the steps done before it
	onPass  func(r *Run)           // called as a pass starts
	passes  int
}

func (q *quad) Len() int { return q.n }

// pg is coordinate i's projected gradient and whether it is at a bound
// with its gradient beyond th (liblinear's shrinking).
func (q *quad) pg(i int32, th Thresholds) (pg float64, shrink bool) {
	G, x := q.g[i], q.x[i]
	switch {
	case x == 0 && G > th.Max, x == q.u[i] && G < th.Min:
		return 0, true
	case x == 0:
		return min(G, 0), false
	case x == q.u[i]:
		return max(G, 0), false
	}
	return G, false
}

// move does the exact step on i and returns its gain f(old) − f(new).
func (q *quad) move(i int32) float64 {
	G, x, qii := q.g[i], q.x[i], q.q[int(i)*q.n+int(i)]
	nx := min(max(x-G/qii, 0), q.u[i])
	d := nx - x
	if d == 0 {
		return 0
	}
	q.x[i] = nx
	for j := range q.n {
		q.g[j] += q.q[j*q.n+int(i)] * d
	}
	return -d * (G + 0.5*qii*d)
}

func (q *quad) Step(i, ahead int32, th Thresholds) (pg, gain float64, shrink bool) {
	if q.onStep != nil {
		q.onStep(i, q.r.Steps)
	}
	pg, shrink = q.pg(i, th)
	if !shrink && pg != 0 {
		gain = q.move(i)
	}
	q.add(event{kind: evStep, i: i, ahead: ahead, th: th, pg: pg, gain: gain, shrink: shrink})
	return pg, gain, shrink
}

func (q *quad) Pass(r *Run, repair bool) bool {
	if q.onPass != nil {
		q.onPass(r)
	}
	q.passes++
	q.add(event{kind: evPassStart, ok: repair})
	ok := true
	for i := range int32(q.n) {
		if pg, _ := q.pg(i, noShrink); math.Abs(pg) > q.eps {
			ok = false
			if repair {
				gain := q.move(i)
				q.add(event{kind: evRepair, i: i, gain: gain})
				r.Repaired(i, gain)
			}
		}
	}
	q.add(event{kind: evPassEnd, ok: ok})
	return ok
}

func (q *quad) EndBatch(entries int, stopped bool) float64 {
	q.add(event{kind: evEnd, entries: entries, stopped: stopped, gain: q.endGain})
	return q.endGain
}

// f is the objective at the current point, computed afresh.
func (q *quad) f() float64 {
	var v float64
	for i := range q.n {
		var qx float64
		for j := range q.n {
			qx += q.q[i*q.n+j] * q.x[j]
		}
		v += q.x[i] * (0.5*qx - q.b[i])
	}
	return v
}

// violation is the largest |projected gradient| at the current point,
// with the gradient computed afresh.
func (q *quad) violation() float64 {
	var v float64
	for i := range q.n {
		G := -q.b[i]
		for j := range q.n {
			G += q.q[i*q.n+j] * q.x[j]
		}
		switch {
		case q.x[i] == 0:
			G = min(G, 0)
		case q.x[i] == q.u[i]:
			G = max(G, 0)
		}
		v = max(v, math.Abs(G))
	}
	return v
}

// newSeparable returns the separable quad Σ ½a_i x_i² − b_i x_i with
// a_i ∈ {1, 2, 4}, b_i ∈ {−3, …, 6} and u_i ∈ {1, 2, +Inf}: every step,
// gain and objective is a dyadic rational computed exactly, and the
// minimiser is x* = clip(b_i/a_i, 0, u_i). It starts at x* for the
// coordinates at a bound of x* and ¼ from it for the others, so that
// the projected gradients of the first sweep are small and the bound
// ones with a large gradient shrink in the second.
func newSeparable(seed uint64, n int) *quad {
	rng := rand.New(rand.NewPCG(seed, 23))
	q := &quad{n: n, q: make([]float64, n*n), b: make([]float64, n), u: make([]float64, n),
		x: make([]float64, n), g: make([]float64, n), eps: 1e-9}
	for i := range n {
		a := float64(int(1) << rng.IntN(3))
		q.q[i*q.n+i] = a
		q.b[i] = float64(rng.IntN(10) - 3)
		q.u[i] = [...]float64{1, 2, math.Inf(1)}[rng.IntN(3)]
		x := min(max(q.b[i]/a, 0), q.u[i])
		if x > 0 && x < q.u[i] {
			x += float64(2*rng.IntN(2)-1) / 4
		}
		q.x[i] = x
		q.g[i] = a*x - q.b[i]
	}
	return q
}

// script is a problem whose steps and passes the test scripts: step gives
// coordinate i's projected gradient, gain and shrink in batch number
// batch (0 for the first) under thresholds th; pass, the k-th full pass
// (0 for the first), repairs by calling r.Repaired and answers.
type script struct {
	rec
	n       int
	batch   int
	passes  int
	step    func(i int32, batch int, th Thresholds) (pg, gain float64, shrink bool)
	pass    func(r *Run, k int) bool
	onStep  func(i int32, k int64)
	onEnd   func(batch int) // called at the end of each batch
	endGain float64
}

func (s *script) Len() int { return s.n }

func (s *script) Step(i, ahead int32, th Thresholds) (pg, gain float64, shrink bool) {
	if s.onStep != nil {
		s.onStep(i, s.r.Steps)
	}
	pg, gain, shrink = s.step(i, s.batch, th)
	s.add(event{kind: evStep, i: i, ahead: ahead, th: th, pg: pg, gain: gain, shrink: shrink})
	return pg, gain, shrink
}

func (s *script) Pass(r *Run, repair bool) bool {
	k := s.passes
	s.passes++
	s.add(event{kind: evPassStart, ok: repair})
	ok := true
	if s.pass != nil {
		ok = s.pass(r, k)
	}
	s.add(event{kind: evPassEnd, ok: ok})
	return ok
}

// repair is what a scripted pass calls for each repair step.
func (s *script) repair(r *Run, i int32, gain float64) {
	s.add(event{kind: evRepair, i: i, gain: gain})
	r.Repaired(i, gain)
}

func (s *script) EndBatch(entries int, stopped bool) float64 {
	s.add(event{kind: evEnd, entries: entries, stopped: stopped, gain: s.endGain})
	if s.onEnd != nil {
		s.onEnd(s.batch)
	}
	s.batch++
	return s.endGain
}

// fixedSteps is a script step with a fixed projected gradient and gain
// per coordinate, never at a bound: the problem never converges.
func fixedSteps(pg, gain []float64) func(int32, int, Thresholds) (float64, float64, bool) {
	return func(i int32, _ int, _ Thresholds) (float64, float64, bool) { return pg[i], gain[i], false }
}

// withDue adds Trigger to a test problem.
type withDue struct {
	testProblem
	due func(viol float64) bool
}

func (w withDue) Due(viol float64) bool {
	ok := w.due(viol)
	w.recorder().add(event{kind: evDue, viol: viol, ok: ok})
	return ok
}

// switchFunc is a Finisher that only decides when to hand over: the
// driver's tests stop at the hand-over (Run.Handover).
type switchFunc func(r *Run) bool

func (f switchFunc) Due(r *Run) bool       { return f(r) }
func (f switchFunc) Finish(*Run, int) bool { return false }

// newRun is NewRun with the callbacks of cfg (and Progress always)
// recording their calls in p's log.
func newRun(p testProblem, cfg Config) *Run {
	c := p.recorder()
	progress := cfg.Progress
	cfg.Progress = func(epoch int, viol, obj float64) {
		c.add(event{kind: evProgress, epoch: epoch, viol: viol, obj: obj})
		if progress != nil {
			progress(epoch, viol, obj)
		}
	}
	if sw := cfg.Finisher; sw != nil {
		cfg.Finisher = switchFunc(func(r *Run) bool {
			ok := sw.Due(r)
			c.add(event{kind: evSwitch, ok: ok, epoch: r.Epochs()})
			return ok
		})
	}
	if after := cfg.AfterBatch; after != nil {
		cfg.AfterBatch = func() float64 {
			g := after()
			c.add(event{kind: evAfter, gain: g})
			return g
		}
	}
	r := NewRun(p, cfg)
	c.r = r
	return r
}

// tuned returns the default tuning changed by f.
func tuned(f func(*Tuning)) *Tuning {
	t := DefaultTuning()
	if f != nil {
		f(&t)
	}
	return &t
}

// streamed is a tuning whose sweeps are streamed in chunks of chunk.
func streamed(chunk int) *Tuning {
	return tuned(func(t *Tuning) { t.SweepStreamMin, t.SweepChunk = 1, chunk })
}

// model is the reference: it walks a log recorded by newRun and reports
// every difference from what the driver documents. One model follows one
// Run over all its Solves. It also counts what happened, so that a test
// can make sure its scenario exercised what it is about.
type model struct {
	t    testing.TB
	n    int
	cfg  Config
	tune Tuning
	log  []event
	k    int // the next event

	steps     int64
	obj       float64
	epochs    int
	epochAt   int64
	lastViol  float64 // the violation last reported
	early     bool    // the early pass is done (or a due pass failed)
	capped    bool
	handover  bool
	trig      bool // the problem is a Trigger
	order     WarmupOrderer
	cancelOK  bool // the test cancels: the log may stop where the driver polls
	cancelled bool
	rng       *rand.Rand
	index     []int32  // Shrink
	shrunk    []uint64 // ACFShrink
	active    []int32  // ACFShrink, whole sweeps
	prefs     *acf.Prefs

	counts counts
}

// counts are what a run did, for the tests' scenario checks (steps are
// Step calls, repairs not included).
type counts struct {
	steps, shrinks, skips, passes, failed, repairs, repairsShrunk int
	unshrinkAll, partial, stopped, batches                        int
}

func newModel(t testing.TB, p testProblem, cfg Config, obj0 float64) *model {
	n := p.Len()
	m := &model{t: t, n: n, cfg: cfg, obj: obj0, epochAt: int64(n), lastViol: math.Inf(1)}
	_, m.trig = p.(Trigger)
	m.order, _ = p.(WarmupOrderer)
	m.tune = DefaultTuning()
	if cfg.Tuning != nil {
		m.tune = *cfg.Tuning
	}
	m.rng = rand.New(rand.NewPCG(cfg.Seed, 0x73687269)) // NewRun's stream for liblinear's shuffles
	return m
}

// msel is the model's selection of one Solve.
type msel struct {
	kind                           Selection
	acf, shrinking, streamed, warm bool
	sched                          *acf.Scheduler
	th                             Thresholds
	active                         int // Shrink
	partial                        int // ACFShrink
}

func (m *model) stepEpochs() bool { return m.cfg.Selection == ACF || m.cfg.Selection == ACFShrink }

func (m *model) fatalf(format string, args ...any) {
	lo := max(0, m.k-8)
	var tail string
	for j := lo; j < min(len(m.log), m.k+3); j++ {
		mark := "  "
		if j == m.k {
			mark = "> "
		}
		tail += fmt.Sprintf("\n%s%d: %v", mark, j, m.log[j])
	}
	m.t.Fatalf("%v: event %d: %s%s", m.cfg.Selection, m.k, fmt.Sprintf(format, args...), tail)
}

func (m *model) peek() (event, bool) {
	if m.k < len(m.log) {
		return m.log[m.k], true
	}
	return event{}, false
}

// next consumes the next event, which must be of kind want.
func (m *model) next(want evKind) event {
	e, ok := m.peek()
	if !ok {
		m.fatalf("log ends, want %v", want)
	}
	if e.kind != want {
		m.fatalf("got %v, want %v", e.kind, want)
	}
	m.k++
	return e
}

// solve checks the events of one Solve(seed) that returned got, and the
// Run's state after it.
func (m *model) solve(r *Run, seed uint64, got bool) {
	m.t.Helper()
	m.handover = false
	want := m.solveLog(seed)
	if m.k != len(m.log) {
		m.fatalf("events after the end of Solve")
	}
	if got != want {
		m.t.Fatalf("%v: Solve = %v, want %v", m.cfg.Selection, got, want)
	}
	if r.Steps != m.steps || r.Obj != m.obj {
		m.t.Fatalf("%v: Steps %d Obj %v, want %d %v (the exact gains subtracted in order)", m.cfg.Selection, r.Steps, r.Obj, m.steps, m.obj)
	}
	epochs := m.epochs
	if m.stepEpochs() && m.n > 0 {
		epochs = int((m.steps + int64(m.n) - 1) / int64(m.n))
	}
	if r.Epochs() != epochs {
		m.t.Fatalf("%v: Epochs() = %d, want %d", m.cfg.Selection, r.Epochs(), epochs)
	}
	if r.LastViol != m.lastViol {
		m.t.Fatalf("%v: LastViol %v, want %v", m.cfg.Selection, r.LastViol, m.lastViol)
	}
	if r.Capped() != m.capped || r.Cancelled() != m.cancelled {
		m.t.Fatalf("%v: Capped %v Cancelled %v, want %v %v", m.cfg.Selection, r.Capped(), r.Cancelled(), m.capped, m.cancelled)
	}
	if h := r.Handover(); h != m.handover {
		m.t.Fatalf("%v: Handover() = %v, want %v", m.cfg.Selection, h, m.handover)
	}
	if r.Handover() {
		m.t.Fatalf("%v: Handover() not cleared", m.cfg.Selection)
	}
}

func (m *model) solveLog(seed uint64) bool {
	if m.n == 0 {
		return m.pass(nil)
	}
	if m.cancelled {
		return false
	}
	s := m.newSel(seed)
	eps := m.cfg.Eps
	for {
		if _, ok := m.peek(); !ok {
			if !m.cancelOK {
				m.fatalf("log ends between batches")
			}
			m.cancelled = true
			return false
		}
		viol, stop := m.batch(s)
		m.counts.batches++
		if stop {
			m.counts.stopped++
			return false
		}
		if m.cfg.AfterBatch != nil {
			m.obj -= m.next(evAfter).gain
		}
		if !m.stepEpochs() {
			m.epochs++
			m.progress(viol)
		}
		due := viol <= eps
		if m.trig {
			e := m.next(evDue)
			if e.viol != viol {
				m.fatalf("Due(%v), want the batch's violation %v", e.viol, viol)
			}
			due = e.ok
		}
		if due {
			if m.pass(s) {
				return true
			}
			m.failedCheck(s)
			m.early = true
		} else if s.acf && m.cfg.EarlyCheck && !m.early && viol <= m.tune.EarlyCheck*eps {
			m.early = true
			if m.pass(s) {
				return true
			}
			m.failedCheck(s)
		}
		if !m.stepEpochs() && m.switched() {
			return false
		}
		if !m.stepEpochs() && m.epochs >= m.cfg.MaxEpochs {
			m.capped = true
			return false
		}
	}
}

func (m *model) newSel(seed uint64) *msel {
	n := m.n
	s := &msel{kind: m.cfg.Selection, th: noShrink, streamed: n > m.tune.SweepStreamMin}
	newSched := func() *acf.Scheduler {
		if s.streamed {
			return acf.NewChunkedScheduler(n, seed, m.tune.SweepChunk)
		}
		return acf.NewScheduler(n, seed)
	}
	switch s.kind {
	case Uniform:
		s.sched = newSched()
	case Shrink:
		m.index = make([]int32, n)
		for i := range m.index {
			m.index[i] = int32(i)
		}
		s.active = n
	case ACF, ACFShrink:
		s.acf, s.warm, s.shrinking = true, true, s.kind == ACFShrink
		m.prefs = acf.NewPrefs(n, m.cfg.ACF)
		s.sched = newSched()
		if s.shrinking {
			m.unshrinkAll(s)
		}
	}
	return s
}

func (m *model) unshrinkAll(s *msel) {
	s.partial = 0
	s.th = noShrink
	m.shrunk = make([]uint64, (m.n+63)/64)
	m.active = nil
	if !s.streamed {
		for i := range m.n {
			m.active = append(m.active, int32(i))
		}
	}
}

func (m *model) isShrunk(i int32) bool { return m.shrunk[i>>6]&(1<<(i&63)) != 0 }

// batch checks one batch's events and returns its violation and whether
// it was cut short.
func (m *model) batch(s *msel) (float64, bool) {
	pgMax, pgMin := math.Inf(-1), math.Inf(1)
	entries := 0
	stop := false
	switch {
	case s.kind == Cyclic:
		b := make([]int32, m.n)
		for i := range b {
			b[i] = int32(i)
		}
		entries = m.n
		stop = m.walk(s, b, &pgMax, &pgMin)
	case s.kind == Shrink:
		// liblinear: shuffle the active prefix; a coordinate that shrinks
		// changes places with the last active one, visited next.
		b := m.index[:s.active]
		for k := range b {
			j := k + m.rng.IntN(len(b)-k)
			b[k], b[j] = b[j], b[k]
		}
		entries = len(b)
		for k := 0; k < len(b); k++ {
			e := m.step(b, k, s.th)
			if e.shrink {
				last := len(b) - 1
				b[k], b[last] = b[last], b[k]
				b = b[:last]
				k--
				m.counts.shrinks++
			} else {
				pgMax, pgMin = max(pgMax, e.pg), min(pgMin, e.pg)
			}
			if m.afterStep(max(pgMax, -pgMin, 0)) {
				stop = true
				break
			}
		}
		s.active = len(b)
	case s.warm && m.order != nil:
		// The problem's warm-up order, whole even where sweeps stream.
		b := make([]int32, m.n)
		for i := range b {
			b[i] = int32(i)
		}
		m.order.WarmupOrder(b)
		entries = m.n
		stop = m.walk(s, b, &pgMax, &pgMin)
		if s.shrinking && !s.streamed {
			m.active = slices.DeleteFunc(m.active, m.isShrunk)
		}
	case s.streamed:
		var p *acf.Prefs
		if s.acf && !s.warm {
			p = m.prefs
		}
		var shrunk []uint64
		if s.shrinking {
			shrunk = m.shrunk
		}
		s.sched.Begin(p, shrunk)
		seen := make([]int, m.n) // entries handed out per coordinate
		for !stop {
			b := s.sched.Chunk()
			if len(b) == 0 {
				break
			}
			entries += len(b)
			for _, i := range b {
				seen[i]++
			}
			if s.acf && !s.shrinking {
				cMax, cMin := math.Inf(-1), math.Inf(1)
				stop = m.walk(s, b, &cMax, &cMin)
				pgMax, pgMin = max(pgMax, cMax), min(pgMin, cMin)
			} else {
				stop = m.walk(s, b, &pgMax, &pgMin)
			}
		}
		if (!s.acf || s.warm) && !stop {
			// A uniform streamed sweep (nothing is shrunk before the
			// warm-up): every coordinate once.
			for i, c := range seen {
				if c != 1 {
					m.fatalf("a uniform streamed sweep hands out %d %d times", i, c)
				}
			}
		}
	default:
		var b []int32
		switch {
		case !s.acf || s.warm:
			b = s.sched.Uniform()
		case s.shrinking && len(m.active) < m.n:
			b = s.sched.NextActive(m.prefs, m.active)
		default:
			b = s.sched.Next(m.prefs)
		}
		entries = len(b)
		stop = m.walk(s, b, &pgMax, &pgMin)
		if s.shrinking {
			m.active = slices.DeleteFunc(m.active, m.isShrunk)
		}
	}
	if !stop && (s.shrinking || s.kind == Shrink) {
		s.th = nextThresholds(pgMax, pgMin)
	}
	if s.warm {
		m.prefs.EndWarmup()
		s.warm = false
	}
	e := m.next(evEnd)
	if e.entries != entries || e.stopped != stop {
		m.fatalf("EndBatch(%d, %v), want (%d, %v)", e.entries, e.stopped, entries, stop)
	}
	m.obj -= e.gain
	return max(pgMax, -pgMin, 0), stop
}

// walk checks the steps on the coordinates of b in order (skipping those
// shrunk earlier in the batch), widening [*pgMin, *pgMax], and reports
// whether the run stopped.
func (m *model) walk(s *msel, b []int32, pgMax, pgMin *float64) bool {
	for k := range b {
		i := b[k]
		if s.shrinking && m.isShrunk(i) {
			m.counts.skips++
			continue
		}
		e := m.step(b, k, s.th)
		switch {
		case e.shrink && !s.shrinking:
			m.fatalf("a shrink under the thresholds %v", s.th)
		case e.shrink:
			m.shrunk[i>>6] |= 1 << (i & 63)
			m.counts.shrinks++
		default:
			*pgMax, *pgMin = max(*pgMax, e.pg), min(*pgMin, e.pg)
			if s.acf {
				m.prefs.Observe(int(i), e.gain)
			}
		}
		if m.afterStep(max(*pgMax, -*pgMin, 0)) {
			return true
		}
	}
	return false
}

// step consumes the step event on b[k], which must carry the prefetch
// hint and the thresholds, and subtracts its gain.
func (m *model) step(b []int32, k int, th Thresholds) event {
	e := m.next(evStep)
	ahead := int32(-1)
	if a := m.tune.PrefetchAhead; a > 0 && k+a < len(b) {
		ahead = b[k+a]
	}
	if e.i != b[k] || e.ahead != ahead || e.th != th {
		m.fatalf("step on %d (ahead %d, th %v), want %d (ahead %d, th %v)", e.i, e.ahead, e.th, b[k], ahead, th)
	}
	if e.steps != m.steps {
		m.fatalf("Steps %d before the step, want %d", e.steps, m.steps)
	}
	if !e.shrink {
		m.obj -= e.gain
	}
	m.counts.steps++
	return e
}

// afterStep counts a step and checks the rare checks after it: a stop
// by cancellation (the batch's end comes at once, stopped), and for
// step-counted epochs each epoch's end. viol is what the driver reports.
func (m *model) afterStep(viol float64) bool {
	m.steps++
	if e, ok := m.peek(); ok && e.kind == evEnd && e.stopped && m.cancelOK {
		m.cancelled = true
		return true
	}
	if !m.stepEpochs() {
		return false
	}
	for m.steps >= m.epochAt {
		m.epochAt += int64(m.n)
		m.epochs++
		m.progress(viol)
		if m.switched() {
			return true
		}
		if m.epochs >= m.cfg.MaxEpochs {
			m.capped = true
			return true
		}
	}
	return false
}

func (m *model) progress(viol float64) {
	e := m.next(evProgress)
	m.lastViol = viol
	if e.epoch != m.epochs || e.viol != viol || e.obj != m.obj {
		m.fatalf("Progress(%d, %v, %v), want (%d, %v, %v)", e.epoch, e.viol, e.obj, m.epochs, viol, m.obj)
	}
	if e.steps != m.steps {
		m.fatalf("Progress at step %d, want %d", e.steps, m.steps)
	}
}

func (m *model) switched() bool {
	if m.cfg.Finisher == nil {
		return false
	}
	e := m.next(evSwitch)
	if e.ok {
		m.handover = true
	}
	return e.ok
}

// pass checks a full pass with repairs and returns its answer.
func (m *model) pass(s *msel) bool {
	e := m.next(evPassStart)
	if !e.ok {
		m.fatalf("a pass without repair")
	}
	m.counts.passes++
	for {
		e, _ := m.peek()
		if e.kind != evRepair {
			break
		}
		m.k++
		m.steps++
		m.obj -= e.gain
		m.counts.repairs++
		if s == nil || !s.acf {
			continue
		}
		i := int(e.i)
		switch m.cfg.Repair {
		case RepairObserve:
			m.prefs.Observe(i, e.gain)
		case RepairMax:
			m.prefs.Set(i, math.Inf(1))
		case RepairAtLeastOne:
			m.prefs.Set(i, max(m.prefs.P(i), 1))
		}
		if s.shrinking && m.isShrunk(e.i) {
			m.counts.repairsShrunk++
			m.shrunk[i>>6] &^= 1 << (i & 63)
			if !s.streamed {
				m.active = append(m.active, e.i)
			}
		}
	}
	ok := m.next(evPassEnd).ok
	if !ok {
		m.counts.failed++
	}
	return ok
}

func (m *model) failedCheck(s *msel) {
	switch {
	case s.kind == Shrink:
		s.active = m.n
		s.th = noShrink
		m.counts.unshrinkAll++
	case s.shrinking:
		if s.partial < m.tune.PartialUnshrinks {
			s.partial++
			m.counts.partial++
			return
		}
		m.unshrinkAll(s)
		m.counts.unshrinkAll++
	}
}

// checkPrefs compares the driver's ACF state after a Solve with the
// model's: the preferences, r̄, their sum, the shrunk set and the active
// list.
func (m *model) checkPrefs(got *acf.Prefs, r *Run) {
	m.t.Helper()
	if m.prefs == nil {
		return
	}
	for i := range m.n {
		if got.P(i) != m.prefs.P(i) {
			m.t.Fatalf("%v: p_%d = %v, want %v", m.cfg.Selection, i, got.P(i), m.prefs.P(i))
		}
	}
	if got.Rbar() != m.prefs.Rbar() || got.Sum() != m.prefs.Sum() {
		m.t.Fatalf("%v: r̄ %v Σp %v, want %v %v", m.cfg.Selection, got.Rbar(), got.Sum(), m.prefs.Rbar(), m.prefs.Sum())
	}
	if m.cfg.Selection == ACFShrink {
		if !slices.Equal(r.buf.shrunk[:len(m.shrunk)], m.shrunk) {
			m.t.Fatalf("shrunk set %x, want %x", r.buf.shrunk, m.shrunk)
		}
		if m.n <= m.tune.SweepStreamMin && !slices.Equal(r.buf.active, m.active) {
			m.t.Fatalf("active list %v, want %v", r.buf.active, m.active)
		}
	}
}

// solveChecked runs Solve(seed) on r (made by newRun) and checks its log
// against m.
func solveChecked(t testing.TB, m *model, r *Run, p testProblem, seed uint64) bool {
	t.Helper()
	c := p.recorder()
	c.prefs = nil
	ok := r.Solve(seed)
	m.log = c.log
	m.solve(r, seed, ok)
	if c.prefs != nil {
		m.checkPrefs(c.prefs, r)
	}
	return ok
}

// check runs one Solve(seed) of p under cfg from Obj = obj0 and checks it
// against the model; it returns the run, the model (with its counts) and
// Solve's answer.
func check(t testing.TB, p testProblem, cfg Config, obj0 float64, seed uint64) (*Run, *model, bool) {
	t.Helper()
	r := newRun(p, cfg)
	r.Obj = obj0
	m := newModel(t, p, cfg, obj0)
	ok := solveChecked(t, m, r, p, seed)
	return r, m, ok
}

// batches splits a log's step events into batches at its end-batch
// events.
func batches(log []event) [][]event {
	var out [][]event
	var cur []event
	for _, e := range log {
		switch e.kind {
		case evStep:
			cur = append(cur, e)
		case evEnd:
			out = append(out, cur)
			cur = nil
		}
	}
	return out
}

// count returns the number of events of kind k in log.
func count(log []event, k evKind) int {
	c := 0
	for _, e := range log {
		if e.kind == k {
			c++
		}
	}
	return c
}

// newSVM returns the dual of a small linear SVM as a quad: Q_ij =
// y_i y_j x_i·x_j (+ diag on the diagonal), b = 1, u = C, for n random
// examples of dim features with labels from a noisy hyperplane. Its
// shrinking behaves as liblinear's does: coordinates leave the active
// set at both bounds, and some of them violate again later.
func newSVM(seed uint64, n, dim int, C, diag, eps float64) *quad {
	rng := rand.New(rand.NewPCG(seed, 29))
	xs := make([][]float64, n)
	y := make([]float64, n)
	w := make([]float64, dim)
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	for i := range xs {
		xs[i] = make([]float64, dim)
		var s float64
		for j := range xs[i] {
			xs[i][j] = rng.NormFloat64()
			s += w[j] * xs[i][j]
		}
		y[i] = 1
		if s+0.5*rng.NormFloat64() < 0 {
			y[i] = -1
		}
	}
	q := &quad{n: n, q: make([]float64, n*n), b: make([]float64, n), u: make([]float64, n),
		x: make([]float64, n), g: make([]float64, n), eps: eps}
	for i := range n {
		for j := range n {
			var d float64
			for k := range dim {
				d += xs[i][k] * xs[j][k]
			}
			q.q[i*n+j] = y[i] * y[j] * d
		}
		q.q[i*n+i] += diag
		q.b[i], q.g[i], q.u[i] = 1, -1, C
	}
	return q
}
