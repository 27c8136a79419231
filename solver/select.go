package solver

import (
	"fmt"
	"math"

	"github.com/acfcd/acfcd/acf"
)

// Selection is a coordinate-selection rule. The zero value, Auto, means
// the problem's default.
type Selection uint8

const (
	// Auto is the problem's default selection.
	Auto Selection = iota
	// ACFShrink is ACF scheduled over liblinear's shrinking active set.
	ACFShrink
	// ACF is the paper's adaptive coordinate frequencies.
	ACF
	// Uniform sweeps all coordinates in a fresh random order.
	Uniform
	// Shrink is liblinear's: random sweeps over an active set from which
	// coordinates stuck at a bound are removed.
	Shrink
	// Cyclic sweeps the coordinates in index order.
	Cyclic
)

var selectionNames = [...]string{Auto: "auto", ACFShrink: "acf+shrink", ACF: "acf", Uniform: "uniform", Shrink: "shrink", Cyclic: "cyclic"}

// String returns the selection's name, as the CLI's --select takes it.
func (s Selection) String() string {
	if int(s) < len(selectionNames) {
		return selectionNames[s]
	}
	return fmt.Sprintf("Selection(%d)", uint8(s))
}

// ParseSelection returns the selection named s ("" is Auto).
func ParseSelection(s string) (Selection, error) {
	if s == "" {
		return Auto, nil
	}
	for k, name := range selectionNames {
		if name == s {
			return Selection(k), nil
		}
	}
	return Auto, fmt.Errorf("unknown coordinate selection %q (want acf+shrink, acf, uniform, shrink or cyclic)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (s Selection) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Selection) UnmarshalText(b []byte) error {
	v, err := ParseSelection(string(b))
	if err == nil {
		*s = v
	}
	return err
}

// stepEpochs: the ACF selections count an epoch as n steps, the others as
// one sweep.
func (s Selection) stepEpochs() bool { return s == ACF || s == ACFShrink }

// buffers are a Run's selection buffers, kept over its Solves.
type buffers struct {
	index  []int32  // Shrink: liblinear's index array; Cyclic: 0..n−1; ordered warm-ups
	shrunk []uint64 // ACFShrink: bit i set when coordinate i is shrunk
	active []int32  // ACFShrink, whole sweeps: the coordinates not shrunk
}

// selection is one Solve's selection state.
type selection struct {
	kind      Selection
	acf       bool
	shrinking bool
	streamed  bool // see Tuning.SweepStreamMin
	sched     *acf.Scheduler
	prefs     *acf.Prefs
	scale     []float64     // ACF: StepCoster's factors of the gains, or nil
	warm      bool          // ACF: the next batch is the warm-up sweep
	order     WarmupOrderer // ACF: the warm-up's order, or nil (random)
	th        Thresholds    // shrinking thresholds: the last sweep's extreme projected gradients
	active    int           // Shrink: the active prefix of buf.index
	partial   int           // ACFShrink: failed passes since the last full unshrink
}

func (r *Run) newSelection(seed uint64) *selection {
	n := r.n
	t := r.tune
	s := &selection{kind: r.cfg.Selection, th: noShrink, streamed: n > t.SweepStreamMin}
	switch s.kind {
	case Cyclic:
		r.indexOrder()
	case Uniform:
		s.sched = r.newScheduler(seed, s.streamed)
	case Shrink:
		r.indexOrder()
		s.active = n
	case ACF, ACFShrink:
		s.acf, s.warm = true, true
		s.shrinking = s.kind == ACFShrink
		s.prefs = acf.NewPrefs(n, r.cfg.ACF)
		s.order, _ = r.p.(WarmupOrderer)
		if c, ok := r.p.(StepCoster); ok {
			s.scale = c.GainScale()[:n]
		}
		s.sched = r.newScheduler(seed, s.streamed)
		if s.shrinking {
			if words := (n + 63) / 64; len(r.buf.shrunk) < words {
				r.buf.shrunk = make([]uint64, words)
			}
			if !s.streamed && cap(r.buf.active) < n {
				r.buf.active = make([]int32, n)
			}
			s.unshrinkAll(r)
		}
	default:
		panic(fmt.Sprintf("solver: selection %v not resolved", s.kind))
	}
	return s
}

func (r *Run) newScheduler(seed uint64, streamed bool) *acf.Scheduler {
	if streamed {
		return acf.NewChunkedScheduler(r.n, seed, r.tune.SweepChunk)
	}
	return acf.NewScheduler(r.n, seed)
}

// indexOrder sets buf.index to 0..n−1, written anew (Shrink and
// WarmupOrder reorder it), and returns it.
func (r *Run) indexOrder() []int32 {
	if cap(r.buf.index) < r.n {
		r.buf.index = make([]int32, r.n)
	}
	r.buf.index = r.buf.index[:r.n]
	for i := range r.buf.index {
		r.buf.index[i] = int32(i)
	}
	return r.buf.index
}

// batch does one sweep (one epoch for Cyclic, Uniform and Shrink, one
// scheduler batch for the ACF selections, the first of which is the
// warm-up, in a random order or the WarmupOrderer's) and returns the
// largest violation its steps saw before stepping, and stop when a
// mid-batch check (cancellation, or for step-counted epochs the cap or a
// switch) ended the run.
func (s *selection) batch(r *Run) (viol float64, stop bool) {
	pgMax, pgMin := math.Inf(-1), math.Inf(1)
	entries := 0
	switch {
	case s.kind == Cyclic:
		entries = r.n
		stop = s.steps(r, r.buf.index, &pgMax, &pgMin)
	case s.kind == Shrink:
		// liblinear's solve_l2r_l1l2_svc: shuffle the active prefix, and
		// swap a shrunk coordinate out behind it at once.
		index := r.buf.index
		for k := 0; k < s.active; k++ {
			j := k + r.rng.IntN(s.active-k)
			index[k], index[j] = index[j], index[k]
		}
		entries = s.active
		stop = s.steps(r, index[:s.active], &pgMax, &pgMin)
	case s.warm && s.order != nil:
		b := r.indexOrder()
		s.order.WarmupOrder(b)
		entries = r.n
		stop = s.steps(r, b, &pgMax, &pgMin)
		if s.shrinking && !s.streamed {
			s.compactActive(r)
		}
	case s.streamed:
		var p *acf.Prefs
		if s.acf && !s.warm {
			p = s.prefs
		}
		var shrunk []uint64
		if s.shrinking {
			shrunk = r.buf.shrunk
		}
		s.sched.Begin(p, shrunk)
		for !stop {
			b := s.sched.Chunk()
			if len(b) == 0 {
				break
			}
			entries += len(b)
			if s.acf && !s.shrinking {
				// Without shrinking, an epoch ending within a chunk
				// reports the chunk's largest violation, not the sweep's.
				cMax, cMin := math.Inf(-1), math.Inf(1)
				stop = s.steps(r, b, &cMax, &cMin)
				pgMax, pgMin = max(pgMax, cMax), min(pgMin, cMin)
			} else {
				stop = s.steps(r, b, &pgMax, &pgMin)
			}
		}
	default:
		var b []int32
		switch {
		case !s.acf || s.warm:
			b = s.sched.Uniform()
		case s.shrinking && len(r.buf.active) < r.n:
			b = s.sched.NextActive(s.prefs, r.buf.active)
		default:
			b = s.sched.Next(s.prefs)
		}
		entries = len(b)
		stop = s.steps(r, b, &pgMax, &pgMin)
		if s.shrinking {
			s.compactActive(r)
		}
	}
	if !stop && (s.shrinking || s.kind == Shrink) {
		s.th = nextThresholds(pgMax, pgMin)
	}
	if s.warm {
		s.prefs.EndWarmup()
		s.warm = false
	}
	if r.end != nil {
		r.Obj -= r.end.EndBatch(entries, stop)
	}
	return max(pgMax, -pgMin, 0), stop
}

// steps steps on the coordinates of b in order, widening [*pgMin, *pgMax]
// to the projected gradients seen, and reports whether a mid-batch check
// stopped the run. This is the loop every problem and selection runs.
func (s *selection) steps(r *Run, b []int32, pgMaxP, pgMinP *float64) bool {
	p := r.p
	var prefs *acf.Prefs
	if s.acf {
		prefs = s.prefs
	}
	scale := s.scale
	var shrunk []uint64
	if s.shrinking {
		shrunk = r.buf.shrunk
	}
	inPlace := s.kind == Shrink
	th := s.th
	ahead := r.tune.PrefetchAhead
	// Locals, and comparisons rather than the NaN-aware builtin max and min
	// (pg is finite: inputs are checked); 2% fewer instructions on short rows
	// (docs/tuning.md).
	pgMax, pgMin := *pgMaxP, *pgMinP
	stop := false
	for k := 0; k < len(b); k++ {
		i := b[k]
		if shrunk != nil && shrunk[i>>6]&(1<<(i&63)) != 0 {
			continue // shrunk earlier in this batch
		}
		next := int32(-1)
		if ahead > 0 && k+ahead < len(b) {
			next = b[k+ahead]
		}
		pg, gain, shrink := p.Step(i, next, th)
		r.Steps++
		switch {
		case !shrink:
			if pg > pgMax {
				pgMax = pg
			}
			if pg < pgMin {
				pgMin = pg
			}
			if prefs != nil {
				if scale != nil {
					prefs.Observe(int(i), float64(gain*scale[i]))
				} else {
					prefs.Observe(int(i), gain)
				}
			}
			r.Obj -= gain
		case inPlace:
			// The last active coordinate takes its place and is visited next.
			last := len(b) - 1
			b[k], b[last] = b[last], b[k]
			b = b[:last]
			k--
		default:
			shrunk[i>>6] |= 1 << (i & 63)
		}
		if r.Steps >= r.slowAt && r.slow(max(pgMax, -pgMin, 0)) {
			stop = true
			break
		}
	}
	*pgMaxP, *pgMinP = pgMax, pgMin
	if inPlace {
		s.active = len(b)
	}
	return stop
}

// failedCheck is called when a batch met the tolerance but the full pass
// then found violators. Shrink brings every coordinate back, as
// liblinear's unshrink. For ACFShrink the pass has brought back the
// violators it stepped on (repaired); the others stay shrunk until
// Tuning.PartialUnshrinks such passes have come in a row.
func (s *selection) failedCheck(r *Run) {
	switch {
	case s.kind == Shrink:
		s.active = r.n
		s.th = noShrink
	case s.shrinking:
		if s.partial < r.tune.PartialUnshrinks {
			s.partial++
			return
		}
		s.unshrinkAll(r)
	}
}

// unshrinkAll is liblinear's unshrink for ACFShrink: every coordinate
// active again, the thresholds reset.
func (s *selection) unshrinkAll(r *Run) {
	s.partial = 0
	s.th = noShrink
	clear(r.buf.shrunk)
	if s.streamed {
		return
	}
	r.buf.active = r.buf.active[:r.n]
	for i := range r.buf.active {
		r.buf.active[i] = int32(i)
	}
}

// compactActive drops the coordinates marked shrunk from the active list,
// keeping the others in order. A bit per coordinate rather than a
// position: at 10⁷ coordinates 1.25 MB instead of 40 MB.
func (s *selection) compactActive(r *Run) {
	k := 0
	for _, i := range r.buf.active {
		if r.buf.shrunk[i>>6]&(1<<(i&63)) == 0 {
			r.buf.active[k] = i
			k++
		}
	}
	r.buf.active = r.buf.active[:k]
}

// repaired applies Config.Repair to coordinate i, stepped on by a failed
// full pass with gain, and brings it back if shrunk. Such coordinates are
// mostly active ones of low preference that the sweeps had not visited
// since the point moved.
func (s *selection) repaired(r *Run, i int32, gain float64) {
	if !s.acf {
		return
	}
	switch r.cfg.Repair {
	case RepairObserve:
		if s.scale != nil {
			gain = float64(gain * s.scale[i])
		}
		s.prefs.Observe(int(i), gain)
	case RepairMax:
		s.prefs.Set(int(i), math.Inf(1))
	case RepairAtLeastOne:
		s.prefs.Set(int(i), max(s.prefs.P(int(i)), 1))
	}
	if s.shrinking && r.buf.shrunk[i>>6]&(1<<(i&63)) != 0 {
		r.buf.shrunk[i>>6] &^= 1 << (i & 63)
		if !s.streamed {
			r.buf.active = append(r.buf.active, i)
		}
	}
}
