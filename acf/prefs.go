// Package acf implements the online adaptation of coordinate frequencies
// (ACF) of Glasmachers & Dogan, "Coordinate Descent with Online Adaptation
// of Coordinate Frequencies" (2013/2014), independently of any particular
// optimisation problem.
//
// A coordinate descent solver keeps one Prefs and one Scheduler. It asks
// the Scheduler for a sweep (a shuffled list of coordinate indices), does a
// CD step on each, and reports the objective decrease of every step to
// Prefs.Observe. Coordinates whose steps gain more than the running average
// r̄ get a larger preference p_i and are then scheduled more often: the
// long-run frequency of coordinate i is π_i = p_i / Σ_j p_j.
//
// The first sweep is a warm-up: it should be a uniform sweep
// (Scheduler.Uniform), during which Observe only records the gains;
// EndWarmup then sets r̄ to their mean and adaptation starts.
//
// Nothing here allocates after construction, and nothing uses global
// state: runs are reproducible from the scheduler's seed.
package acf

import (
	"fmt"
	"math"

	"github.com/acfcd/acfcd/internal/compsum"
	"github.com/acfcd/acfcd/internal/fmath"
)

// Defaults of Config, from the paper.
const (
	DefaultC    = 1.0 / 5  // learning rate of the preferences
	DefaultPMin = 1.0 / 20 // lower bound of a preference
	DefaultPMax = 20.0     // upper bound of a preference
	// The default Eta is 1/n for n coordinates.
)

// minRbar is the smallest value r̄ takes. It keeps Δf/r̄ defined when every
// gain so far was 0 (for example when the warm-up starts at the optimum,
// or when all coordinates sit at bounds for a long time and r̄ decays
// towards 0): with r̄ this small, the first positive gain sends its
// coordinate's preference to PMax, and r̄ itself recovers through the
// average after one step. Gains of 0 leave the ratio Δf/r̄ at 0 whatever r̄.
const minRbar = 1e-300

// Config holds the ACF constants. A zero field means its default.
type Config struct {
	C    float64 // learning rate c > 0 (default 1/5)
	PMin float64 // lower bound of p_i, 0 < PMin ≤ 1 (default 1/20)
	PMax float64 // upper bound of p_i, PMax ≥ 1 (default 20)
	Eta  float64 // rate of the running average r̄, 0 < Eta ≤ 1 (default 1/n)
}

// resolve fills in the defaults for n coordinates.
func (c Config) resolve(n int) Config {
	if c.C == 0 {
		c.C = DefaultC
	}
	if c.PMin == 0 {
		c.PMin = DefaultPMin
	}
	if c.PMax == 0 {
		c.PMax = DefaultPMax
	}
	if c.Eta == 0 {
		c.Eta = 1 / float64(max(n, 1))
	}
	return c
}

// Validate reports whether the configuration, with defaults filled in, is
// usable: all constants finite, C > 0, 0 < PMin ≤ 1 ≤ PMax (preferences
// start at 1) and 0 < Eta ≤ 1.
func (c Config) Validate() error {
	r := c.resolve(1)
	bad := func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
	switch {
	case bad(r.C) || r.C < 0:
		return fmt.Errorf("acf: C = %v: must be a positive finite number", c.C)
	case bad(r.PMin) || r.PMin < minPMin || r.PMin > 1:
		return fmt.Errorf("acf: PMin = %v: must be in [1e-30, 1]", c.PMin)
	case bad(r.PMax) || r.PMax < 1 || r.PMax > maxPMax:
		return fmt.Errorf("acf: PMax = %v: must be in [1, 1e30]", c.PMax)
	case bad(r.Eta) || r.Eta < 0 || r.Eta > 1:
		return fmt.Errorf("acf: Eta = %v: must be in (0, 1]", c.Eta)
	}
	return nil
}

// The preferences are stored as float32 (see Prefs), which bounds PMin and
// PMax well inside float32's normal range.
const (
	minPMin = 1e-30
	maxPMax = 1e30
)

// Prefs holds the preferences p_i of n coordinates and the running average
// r̄ of the gains. It is not safe for concurrent use.
//
// Each p_i is stored as a float32: 4 bytes per coordinate instead of 8,
// which at 10⁷ coordinates is 40 MB (peak memory is meant to stay near
// the data's own size). The update is computed in float64 and rounded
// once when stored; a relative error of 2⁻²⁴ in a preference that moves by
// factors of e^{±c} per step changes no frequency measurably. Sum and r̄
// stay float64, and Sum adds exactly the stored values.
type Prefs struct {
	p   []float32
	sum float64 // Σ p_i, updated incrementally, re-summed once per sweep

	c, pmin, pmax, eta float64
	decay              float64 // exp(−c): the factor for a zero gain, the commonest case

	warm   bool
	rbar   float64
	wsum   float64 // warm-up: sum of the observed gains
	wcount int     // warm-up: number of observed gains

	// changes counts incremental updates of sum since the last exact
	// re-sum; Scheduler.NextActive re-sums once it reaches n.
	changes int
}

// NewPrefs returns the preferences of n coordinates, all 1, in warm-up. It
// panics if n < 0 or if cfg does not pass Validate.
func NewPrefs(n int, cfg Config) *Prefs {
	if n < 0 {
		panic(fmt.Sprintf("acf: NewPrefs(%d): negative length", n))
	}
	if err := cfg.Validate(); err != nil {
		panic(err.Error())
	}
	r := cfg.resolve(n)
	p := &Prefs{
		p:     make([]float32, n),
		sum:   float64(n),
		c:     r.C,
		decay: fmath.Exp(-r.C),
		pmin:  float64(float32(r.PMin)), // the bounds as stored, so that
		pmax:  float64(float32(r.PMax)), // "p_i is at a bound" tests exactly
		eta:   r.Eta,
	}
	for i := range p.p {
		p.p[i] = 1
	}
	return p
}

// Len returns the number of coordinates.
func (p *Prefs) Len() int { return len(p.p) }

// P returns the preference p_i.
func (p *Prefs) P(i int) float64 { return float64(p.p[i]) }

// Sum returns Σ p_i. It is maintained incrementally by Observe and Set and
// re-summed exactly (compensated summation) once per sweep by the
// Scheduler, so rounding drift cannot build up.
func (p *Prefs) Sum() float64 { return p.sum }

// Warm reports whether the warm-up has ended.
func (p *Prefs) Warm() bool { return p.warm }

// Rbar returns the running average r̄ of the gains; during the warm-up,
// the mean of the gains observed so far (0 if none).
func (p *Prefs) Rbar() float64 {
	if !p.warm {
		if p.wcount == 0 {
			return 0
		}
		return p.wsum / float64(p.wcount)
	}
	return p.rbar
}

// Observe records the gain (objective decrease, ≥ 0) of a CD step on
// coordinate i. During the warm-up it only accumulates the gain. After it,
// it applies the ACF update
//
//	p_i ← clip(exp(c·(gain/r̄ − 1))·p_i, PMin, PMax)
//	r̄  ← (1−η)·r̄ + η·gain
//
// in that order (p_i uses the old r̄). Gains of 0 are legal (a step at a
// bound); negative gains (rounding), NaN and ±Inf (which a finite
// objective cannot produce) are treated as 0. r̄ never drops below a tiny
// positive floor (see minRbar), so the ratio stays defined.
func (p *Prefs) Observe(i int, gain float64) {
	if !(gain > 0) || gain > math.MaxFloat64 {
		gain = 0
	}
	if !p.warm {
		_ = p.p[i] // same bounds behaviour as after the warm-up
		p.wsum += gain
		p.wcount++
		return
	}
	old := float64(p.p[i])
	// The exponential dominates the cost of a step on short rows; these
	// shortcuts give the same bits as the general formula: a zero gain's
	// factor is exp(−c), and a preference already at a bound stays there
	// when the factor pushes it further out.
	var v float64
	switch {
	case gain == 0:
		v = p.clip(p.decay * old)
	case old == p.pmin && gain <= p.rbar, old == p.pmax && gain >= p.rbar:
		v = old
	default:
		v = p.clip(fmath.Exp(p.c*(gain/p.rbar-1)) * old)
	}
	v32 := float32(v)
	p.p[i] = v32
	p.sum += float64(v32) - old
	p.changes++
	r := float64((1-p.eta)*p.rbar) + float64(p.eta*gain)
	if !(r >= minRbar) {
		r = minRbar
	}
	p.rbar = r
}

// EndWarmup ends the warm-up: r̄ becomes the mean of the gains observed
// since NewPrefs. If that mean is 0 (no gains observed, or all were 0),
// r̄ starts at a tiny positive value (1e-300) instead, so that the first
// positive gain raises its coordinate's preference to PMax and r̄ adapts
// from there. Calling EndWarmup again has no effect.
func (p *Prefs) EndWarmup() {
	if p.warm {
		return
	}
	p.warm = true
	r := 0.0
	if p.wcount > 0 {
		r = p.wsum / float64(p.wcount)
	}
	if !(r >= minRbar) || r > math.MaxFloat64 {
		r = minRbar
	}
	p.rbar = r
}

// Set sets p_i to v clipped to [PMin, PMax], keeping Sum right. Solvers
// use it for example to reset the preference of a coordinate that is
// un-shrunk. It panics if v is NaN.
func (p *Prefs) Set(i int, v float64) {
	if math.IsNaN(v) {
		panic("acf: Prefs.Set: NaN preference")
	}
	old := float64(p.p[i])
	v32 := float32(p.clip(v))
	p.p[i] = v32
	p.sum += float64(v32) - old
	p.changes++
}

func (p *Prefs) clip(v float64) float64 {
	if v < p.pmin {
		return p.pmin
	}
	if v > p.pmax {
		return p.pmax
	}
	return v
}

// resum recomputes sum exactly and returns it.
func (p *Prefs) resum() float64 {
	p.sum = kahanSum(p.p)
	p.changes = 0
	return p.sum
}

// kahanSum returns Σ x with Neumaier's compensated summation (in float64):
// the error is a few ulps of the result whatever len(x).
func kahanSum(x []float32) float64 {
	var s compsum.Sum
	for _, v := range x {
		s.Add(float64(v))
	}
	return s.Value()
}
