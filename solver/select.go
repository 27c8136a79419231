package solver

import (
	"math"

	"github.com/acfcd/acfcd/acf"
)

// A mode is a coordinate-selection strategy. batch does one sweep (one
// epoch for uniform and shrink, one scheduler batch for the acf
// selections) and returns the largest violation its steps saw before
// stepping, or stop when a mid-batch check (cancellation, or the epoch cap
// for step-counted epochs) ended the run. failedCheck is called when a
// batch met the tolerance but the full KKT pass then found violators.
type mode interface {
	batch() (viol float64, stop bool)
	failedCheck()
}

func (wk *worker) newMode(sel selection, seed uint64) mode {
	wk.onViolator = nil
	switch sel {
	case selUniform:
		m := &uniformMode{wk: wk, streamed: wk.n > sweepStreamMin}
		if m.streamed {
			m.sched = acf.NewChunkedScheduler(wk.n, seed, sweepChunk)
		} else {
			m.sched = acf.NewScheduler(wk.n, seed)
		}
		return m
	case selShrink:
		return newShrinkMode(wk)
	default:
		return newACFMode(wk, seed, sel == selACFShrink)
	}
}

// sweepStreamMin is the most examples whose uniform and acf sweeps are
// built whole (acf.Scheduler's Uniform, Next, NextActive). Beyond it a
// sweep is streamed in shuffled chunks of at most sweepChunk steps
// (acf.NewChunkedScheduler: ~2m/sweepChunk rounds of credits per sweep,
// each handed out shuffled), and acf+shrink keeps only its shrunk bitset,
// not an active list: at 10⁷ examples that is 40–80 MB of sweep buffer
// and 40 MB of list less for an 8 MB chunk, 0.02× a kdd-sized dataset,
// whose peak memory is meant to stay within 1.1× the data. The price is
// a credit update per active example and round (10 rounds per sweep at
// 10⁷ examples, ~5 ns each: BenchmarkSweep in acf), against a CD step of
// ~1 µs there. Below it the whole-sweep shuffle is kept: results on small
// data do not change, and the buffers are small there. Tests lower both.
var (
	sweepStreamMin = 1 << 22
	sweepChunk     = 1 << 21
)

// run drives a mode to convergence (certified by a full KKT pass), the
// epoch cap or cancellation. It returns true when converged.
func (wk *worker) run(m mode) bool {
	for {
		select {
		case <-wk.done:
			wk.cancelled = true
			return false
		default:
		}
		viol, stop := m.batch()
		if stop {
			return false
		}
		if wk.dupOff != nil {
			wk.obj -= wk.pushDups()
		}
		if debugBatches && debugf != nil {
			debugf("batch: steps %d (%.2f ep) viol %.4g active %d obj %.10g", wk.steps, float64(wk.steps)/float64(wk.n), viol, len(wk.active), wk.obj)
		}
		if !wk.stepEpochs {
			wk.epochs++
			wk.report(viol)
		}
		if viol <= wk.eps {
			if wk.kktPass(true) {
				return true
			}
			m.failedCheck()
			wk.earlyChecked = true
		} else if viol <= earlyCheck*wk.eps && !wk.earlyChecked {
			if _, ok := m.(*acfMode); ok {
				// An ACF sweep skips coordinates of low preference, so
				// its violation can be small while some of them, not
				// visited since w moved, violate by far more (debian-desc
				// -s 3 -c 1000: 2,619 violators, up to 4.4, at eps 0.01).
				// One full pass at 10·eps finds them early, steps on them
				// and raises their preferences (violator): 23%, 13% and
				// 9% fewer operations on debian-desc -s 1, 3 (-c 1000)
				// and 7 (-c 100).
				wk.earlyChecked = true
				if wk.kktPass(true) {
					return true
				}
				m.failedCheck()
			}
		}
		if !wk.stepEpochs && wk.switchNow() {
			return false
		}
		if !wk.stepEpochs && wk.epochs >= wk.maxEpochs {
			wk.capped = true
			return false
		}
	}
}

// uniformMode: every sweep is a fresh random permutation of all coordinates.
type uniformMode struct {
	wk       *worker
	sched    *acf.Scheduler
	streamed bool
}

func (m *uniformMode) batch() (float64, bool) {
	wk := m.wk
	var viol float64
	if !m.streamed {
		if wk.uniformSteps(m.sched.Uniform(), &viol) {
			return viol, true
		}
	} else {
		m.sched.Begin(nil, nil)
		for b := m.sched.Chunk(); len(b) > 0; b = m.sched.Chunk() {
			if wk.uniformSteps(b, &viol) {
				return viol, true
			}
		}
	}
	wk.lrEndSweep(wk.n)
	return viol, false
}

// uniformSteps steps on every coordinate of batch, raising *viol to the
// largest violation seen, and reports whether a mid-batch check stopped
// the run.
func (wk *worker) uniformSteps(batch []int32, viol *float64) bool {
	for k, i := range batch {
		wk.prefetchIn(batch, k)
		v, gain := wk.visit(i)
		wk.obj -= gain
		*viol = max(*viol, v)
		wk.steps++
		if wk.steps >= wk.slowAt && wk.slow(*viol) {
			return true
		}
	}
	return false
}

func (m *uniformMode) failedCheck() {}

// shrinkMode is liblinear's solve_l2r_l1l2_svc loop: each sweep shuffles
// the active coordinates; a coordinate at 0 with G > PGmax_old, or at its
// upper bound with G < PGmin_old, leaves the active set, where PGmax_old
// and PGmin_old are the extreme projected gradients of the previous sweep
// (±∞ when of the wrong sign). When a sweep meets the tolerance, every
// coordinate is rechecked by the full KKT pass; if that fails, all
// coordinates become active again with the thresholds reset, as
// liblinear's unshrink.
type shrinkMode struct {
	wk                 *worker
	index              []int32
	active             int
	pgMaxOld, pgMinOld float64
}

func newShrinkMode(wk *worker) *shrinkMode {
	if cap(wk.index) < wk.n {
		wk.index = make([]int32, wk.n)
	}
	m := &shrinkMode{wk: wk, index: wk.index[:wk.n]}
	for i := range m.index {
		m.index[i] = int32(i)
	}
	m.failedCheck()
	return m
}

func (m *shrinkMode) failedCheck() {
	m.active = m.wk.n
	m.pgMaxOld, m.pgMinOld = math.Inf(1), math.Inf(-1)
}

func (m *shrinkMode) batch() (float64, bool) {
	wk := m.wk
	index := m.index
	active := m.active
	pgMax, pgMin := math.Inf(-1), math.Inf(1)
	for s := 0; s < active; s++ {
		j := s + wk.rng.IntN(active-s)
		index[s], index[j] = index[j], index[s]
	}
	for s := 0; s < active; s++ {
		i := index[s]
		if s+prefetchAhead < active && usePrefetch {
			wk.prefetch(index[s+prefetchAhead])
		}
		G := wk.svmGrad(i)
		wk.steps++
		a := wk.alpha[i]
		pg := 0.0
		switch {
		case a == 0:
			if G > m.pgMaxOld {
				active--
				index[s], index[active] = index[active], index[s]
				s--
				continue
			} else if G < 0 {
				pg = G
			}
		case a == wk.ub[(wk.y[i]+1)>>1]:
			if G < m.pgMinOld {
				active--
				index[s], index[active] = index[active], index[s]
				s--
				continue
			} else if G > 0 {
				pg = G
			}
		default:
			pg = G
		}
		pgMax = max(pgMax, pg)
		pgMin = min(pgMin, pg)
		if math.Abs(pg) > pgZero {
			wk.obj -= wk.svmMove(i, G)
		}
		if wk.steps >= wk.slowAt && wk.slow(max(pgMax, -pgMin)) {
			m.active = active
			return max(pgMax, -pgMin, 0), true
		}
	}
	m.active = active
	m.pgMaxOld, m.pgMinOld = pgMax, pgMin
	if m.pgMaxOld <= 0 {
		m.pgMaxOld = math.Inf(1)
	}
	if m.pgMinOld >= 0 {
		m.pgMinOld = math.Inf(-1)
	}
	return max(pgMax, -pgMin, 0), false
}

// acfMode is Glasmachers & Dogan's ACF-CD (their algorithms 1 and 2): a
// uniform warm-up sweep sets the gain average r̄; then each batch comes
// from the accumulator scheduler, and every step's exact gain Δf adapts
// its coordinate's preference. With shrinking (SVMs only), liblinear's
// shrinking rule is applied to coordinates as they are visited (with the
// thresholds of the previous batch) and the scheduler draws only from the
// active ones; a failed full KKT pass brings every coordinate back.
type acfMode struct {
	wk                 *worker
	prefs              *acf.Prefs
	sched              *acf.Scheduler
	warm               bool
	shrinking          bool
	streamed           bool // see sweepStreamMin
	pgMaxOld, pgMinOld float64
	partial            int // failed passes since the last full unshrink
}

func newACFMode(wk *worker, seed uint64, shrinking bool) *acfMode {
	m := &acfMode{wk: wk, prefs: acf.NewPrefs(wk.n, wk.acfCfg),
		warm: true, shrinking: shrinking, streamed: wk.n > sweepStreamMin}
	if m.streamed {
		m.sched = acf.NewChunkedScheduler(wk.n, seed, sweepChunk)
	} else {
		m.sched = acf.NewScheduler(wk.n, seed)
	}
	if shrinking {
		if words := (wk.n + 63) / 64; len(wk.shrunk) < words {
			wk.shrunk = make([]uint64, words)
		}
		if !m.streamed && cap(wk.active) < wk.n {
			wk.active = make([]int32, wk.n)
		}
		m.unshrinkAll()
	}
	wk.onViolator = m.violator
	return m
}

// violator is told of each coordinate that a failed full KKT pass found
// violating (and stepped on): it gets the largest preference (-s 7: at
// least 1, the starting one), and if shrunk it is brought back. Such
// coordinates are rarely shrunk ones: on debian-desc -s 3 -c 1000 six of
// 1131, -s 1 none of four. They are active coordinates of low preference
// that the sweeps had not visited since w moved; at p_min a coordinate
// gets one visit in about 20 sweeps. Operations over seeds 0–2 at -e 0.01
// (with the early pass of run):
//   - SVMs: p_max. Raising them to at least 1 instead took 8% more on
//     debian-desc -s 1 -c 1000 (1783M against 1647M), 3% more on -s 3.
//   - -s 7: at least 1. p_max took 29% more on news20bin -c 0.1 (178M
//     against 138M) and 10% more on debian-desc -c 1000 (1607M against
//     1459M): a logistic dual has no bounds, and its failed passes find
//     many violators, whose p_max then crowds out the rest.
//
// While a failed pass finds violators, the other shrunk coordinates stay
// shrunk; liblinear's unshrink of all comes after partialUnshrinks such
// passes in a row.
func (m *acfMode) violator(i int32) {
	p := math.Inf(1) // p_max
	if m.wk.kind == logistic {
		p = max(m.prefs.P(int(i)), 1)
	}
	m.prefs.Set(int(i), p)
	wk := m.wk
	if m.shrinking && wk.shrunk[i>>6]&(1<<(i&63)) != 0 {
		wk.shrunk[i>>6] &^= 1 << (i & 63)
		if !m.streamed {
			wk.active = append(wk.active, i)
		}
	}
}

// partialUnshrinks: see violator.
const partialUnshrinks = 3

// failedCheck: a failed pass always steps on at least one violator
// (violator has brought it back), so the others stay shrunk until
// partialUnshrinks such passes have come in a row.
func (m *acfMode) failedCheck() {
	if !m.shrinking {
		return
	}
	if m.partial < partialUnshrinks {
		m.partial++
		return
	}
	m.unshrinkAll()
}

// unshrinkAll is liblinear's unshrink: every coordinate active again,
// the shrinking thresholds reset.
func (m *acfMode) unshrinkAll() {
	wk := m.wk
	m.partial = 0
	m.pgMaxOld, m.pgMinOld = math.Inf(1), math.Inf(-1)
	clear(wk.shrunk)
	if m.streamed {
		return
	}
	wk.active = wk.active[:wk.n]
	for i := range wk.active {
		wk.active[i] = int32(i)
	}
}

func (m *acfMode) batch() (float64, bool) {
	wk := m.wk
	if m.streamed {
		return m.streamBatch()
	}
	var batch []int32
	switch {
	case m.warm:
		batch = m.sched.Uniform()
	case m.shrinking && len(wk.active) < wk.n:
		batch = m.sched.NextActive(m.prefs, wk.active)
	default:
		batch = m.sched.Next(m.prefs)
	}
	var viol float64
	var stop bool
	if m.shrinking {
		viol, stop = m.shrinkBatch(batch)
	} else {
		viol, stop = m.plainBatch(batch)
	}
	if m.warm {
		m.prefs.EndWarmup()
		m.warm = false
	}
	wk.lrEndSweep(len(batch))
	return viol, stop
}

// streamBatch is batch for streamed sweeps: the same steps, chunk by
// chunk, with the shrunk bitset standing in for the active list.
func (m *acfMode) streamBatch() (float64, bool) {
	wk := m.wk
	var p *acf.Prefs
	if !m.warm {
		p = m.prefs
	}
	var shrunk []uint64
	if m.shrinking {
		shrunk = wk.shrunk
	}
	m.sched.Begin(p, shrunk)
	var viol float64
	var stop bool
	pgMax, pgMin := math.Inf(-1), math.Inf(1)
	length := 0
	for !stop {
		b := m.sched.Chunk()
		if len(b) == 0 {
			break
		}
		length += len(b)
		if m.shrinking {
			stop = m.shrinkSteps(b, &pgMax, &pgMin)
		} else {
			var v float64
			v, stop = m.plainBatch(b)
			viol = max(viol, v)
		}
	}
	if m.shrinking {
		viol, stop = m.endShrinkSweep(pgMax, pgMin, stop)
	}
	if m.warm {
		m.prefs.EndWarmup()
		m.warm = false
	}
	wk.lrEndSweep(length)
	return viol, stop
}

func (m *acfMode) plainBatch(batch []int32) (float64, bool) {
	wk := m.wk
	prefs := m.prefs
	var viol float64
	for k, i := range batch {
		wk.prefetchIn(batch, k)
		v, gain := wk.visit(i)
		prefs.Observe(int(i), gain)
		wk.obj -= gain
		viol = max(viol, v)
		wk.steps++
		if wk.steps >= wk.slowAt && wk.slow(viol) {
			return viol, true
		}
	}
	return viol, false
}

func (m *acfMode) shrinkBatch(batch []int32) (float64, bool) {
	pgMax, pgMin := math.Inf(-1), math.Inf(1)
	stop := m.shrinkSteps(batch, &pgMax, &pgMin)
	m.wk.compactActive()
	return m.endShrinkSweep(pgMax, pgMin, stop)
}

// shrinkSteps steps on the coordinates of batch not shrunk, shrinking
// them by liblinear's rule, widens [*pgMin, *pgMax] to the projected
// gradients seen, and reports whether a mid-batch check stopped the run.
func (m *acfMode) shrinkSteps(batch []int32, pgMaxP, pgMinP *float64) bool {
	wk := m.wk
	prefs := m.prefs
	pgMax, pgMin := *pgMaxP, *pgMinP // locals, kept in registers
	for k, i := range batch {
		wk.prefetchIn(batch, k)
		if wk.shrunk[i>>6]&(1<<(i&63)) != 0 {
			continue // shrunk earlier in this batch
		}
		G := wk.svmGrad(i)
		wk.steps++
		a := wk.alpha[i]
		pg := 0.0
		shrink := false
		switch {
		case a == 0:
			if G > m.pgMaxOld {
				shrink = true
			} else if G < 0 {
				pg = G
			}
		case a == wk.ub[(wk.y[i]+1)>>1]:
			if G < m.pgMinOld {
				shrink = true
			} else if G > 0 {
				pg = G
			}
		default:
			pg = G
		}
		if shrink {
			wk.deactivate(i)
		} else {
			pgMax = max(pgMax, pg)
			pgMin = min(pgMin, pg)
			var gain float64
			if math.Abs(pg) > pgZero {
				gain = wk.svmMove(i, G)
			}
			prefs.Observe(int(i), gain)
			wk.obj -= gain
		}
		if wk.steps >= wk.slowAt && wk.slow(max(pgMax, -pgMin)) {
			*pgMaxP, *pgMinP = pgMax, pgMin
			return true
		}
	}
	*pgMaxP, *pgMinP = pgMax, pgMin
	return false
}

// endShrinkSweep ends a sweep of acf+shrink whose projected gradients
// spanned [pgMin, pgMax]: unless the run stopped, they become the
// shrinking thresholds of the next sweep. It returns the sweep's largest
// violation and stop.
func (m *acfMode) endShrinkSweep(pgMax, pgMin float64, stop bool) (float64, bool) {
	if stop {
		return max(pgMax, -pgMin, 0), true
	}
	m.pgMaxOld, m.pgMinOld = pgMax, pgMin
	if m.pgMaxOld <= 0 {
		m.pgMaxOld = math.Inf(1)
	}
	if m.pgMinOld >= 0 {
		m.pgMinOld = math.Inf(-1)
	}
	return max(pgMax, -pgMin, 0), false
}

// deactivate marks i shrunk; compactActive removes it from the active list
// at the end of the batch. A bit per coordinate rather than an int32
// position for O(1) removal: at 10⁷ examples, 1.25 MB instead of 40 MB,
// for an O(m) filter per batch that the scheduler's O(m) pass over the
// active list already costs.
func (wk *worker) deactivate(i int32) {
	wk.shrunk[i>>6] |= 1 << (i & 63)
}

// compactActive drops the coordinates marked shrunk from the active list,
// keeping the others in order.
func (wk *worker) compactActive() {
	k := 0
	for _, i := range wk.active {
		if wk.shrunk[i>>6]&(1<<(i&63)) == 0 {
			wk.active[k] = i
			k++
		}
	}
	wk.active = wk.active[:k]
}

// earlyCheck: the acf selections run one full KKT pass the first time a
// sweep's violation falls within earlyCheck·eps (see run).
var earlyCheck = 10.0
