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
	switch sel {
	case selUniform:
		return &uniformMode{wk: wk, sched: acf.NewScheduler(wk.n, seed)}
	case selShrink:
		return newShrinkMode(wk)
	default:
		return newACFMode(wk, seed, sel == selACFShrink)
	}
}

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
	wk    *worker
	sched *acf.Scheduler
}

func (m *uniformMode) batch() (float64, bool) {
	wk := m.wk
	var viol float64
	batch := m.sched.Uniform()
	for k, i := range batch {
		wk.prefetchIn(batch, k)
		v, gain := wk.visit(i)
		wk.obj -= gain
		viol = max(viol, v)
		wk.steps++
		if wk.steps >= wk.slowAt && wk.slow(viol) {
			return viol, true
		}
	}
	wk.lrEndSweep(wk.n)
	return viol, false
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
	pgMaxOld, pgMinOld float64
}

func newACFMode(wk *worker, seed uint64, shrinking bool) *acfMode {
	m := &acfMode{wk: wk, prefs: acf.NewPrefs(wk.n, wk.acfCfg), sched: acf.NewScheduler(wk.n, seed),
		warm: true, shrinking: shrinking}
	if shrinking {
		if cap(wk.active) < wk.n {
			wk.shrunk = make([]uint64, (wk.n+63)/64)
			wk.active = make([]int32, wk.n)
		}
		m.failedCheck()
	}
	return m
}

func (m *acfMode) failedCheck() {
	if !m.shrinking {
		return
	}
	wk := m.wk
	wk.active = wk.active[:wk.n]
	for i := range wk.active {
		wk.active[i] = int32(i)
	}
	clear(wk.shrunk)
	m.pgMaxOld, m.pgMinOld = math.Inf(1), math.Inf(-1)
}

func (m *acfMode) batch() (float64, bool) {
	wk := m.wk
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
	wk := m.wk
	prefs := m.prefs
	pgMax, pgMin := math.Inf(-1), math.Inf(1)
	defer wk.compactActive()
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
			return max(pgMax, -pgMin, 0), true
		}
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
