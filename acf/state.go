package acf

import "fmt"

// State returns what a later NewPrefs with Restore needs to continue the
// adaptation where it is: the preferences (a copy), r̄ and whether the
// warm-up has ended. A distributed solver keeps it with its block of
// coordinates between rounds run by different processes.
func (p *Prefs) State() (pref []float32, rbar float64, warm bool) {
	return append([]float32(nil), p.p...), p.Rbar(), p.warm
}

// Restore sets the preferences, r̄ and the end of the warm-up to those of
// State (pref is copied). It returns an error if pref has the wrong
// length or a value outside [PMin, PMax].
func (p *Prefs) Restore(pref []float32, rbar float64, warm bool) error {
	if len(pref) != len(p.p) {
		return fmt.Errorf("acf: %d preferences restored, want %d", len(pref), len(p.p))
	}
	for i, v := range pref {
		if !(float64(v) >= p.pmin && float64(v) <= p.pmax) {
			return fmt.Errorf("acf: preference %d is %g, outside [%g, %g]", i, v, p.pmin, p.pmax)
		}
	}
	copy(p.p, pref)
	p.resum()
	if warm {
		p.warm, p.rbar = true, max(rbar, minRbar)
	}
	return nil
}

// Credits returns a copy of the scheduler's credits a_i: the fractions of
// visits each coordinate has earned and not yet been given. Restoring them
// with the preferences (SetCredits) keeps the frequencies of coordinates
// whose preference earns less than one visit per sweep; fresh credits
// would never give them one.
func (s *Scheduler) Credits() []float32 { return append([]float32(nil), s.acc[:s.n]...) }

// SetCredits sets the credits to a (copied), as returned by Credits of a
// scheduler of the same length.
func (s *Scheduler) SetCredits(a []float32) error {
	if len(a) != s.n {
		return fmt.Errorf("acf: %d credits restored, want %d", len(a), s.n)
	}
	for i, v := range a {
		if !(float64(v) >= 2*floor && float64(v) < 1) {
			return fmt.Errorf("acf: credit %d is %g, outside [%g, 1)", i, v, floor)
		}
	}
	copy(s.acc, a)
	return nil
}
