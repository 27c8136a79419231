package lasso

// Tuning holds the LASSO's constants that were chosen by measurement, with
// the defaults of DefaultTuning; docs/tuning.md records the runs behind
// each. None of them changes what a converged model solves, only the path
// to it (and the memory on the way). They are not part of acfcd's API:
// tests pass a modified copy, and the benchmark harnesses reach a
// training's through its context (internal/tune).
type Tuning struct {
	// LassoGapMaxWait caps the back-off, in batches, of the duality-gap
	// checks after a failed one.
	LassoGapMaxWait int
	// LassoWSMin is the fewest candidates (screened-in or violating
	// features) a working set takes in at once when there are more than
	// the support; LassoInnerRel·gap is the duality gap at which the run
	// on a working set that may be incomplete ends.
	LassoWSMin    int
	LassoInnerRel float64
	// LassoGrowMargin: when a full pass finds violators outside the
	// working set, the features whose |g_j| is within this fraction of
	// the L1 weight join with them (if all fit under LassoWSMin's cap).
	LassoGrowMargin float64
	// LassoGapEvery: a working-set run measures its gap at least every
	// LassoGapEvery batches.
	LassoGapEvery int
	// LassoStepOps is the cost of a LASSO step beyond its column's
	// non-zeros, in non-zeros, for ACF's gain per cost (negative: ACF
	// adapts to the gains alone).
	LassoStepOps int
	// LassoACFMinNNZ: under the default selection a working-set run is
	// scheduled by ACF when the set's columns hold at least this many
	// non-zeros on average, else swept in cyclic order: on shorter columns
	// ACF's bookkeeping costs more than a step and more than its saved
	// steps are worth.
	LassoACFMinNNZ float64
	// LassoNewton is the share of the work since the last support Newton
	// step that the next may spend (0: none): once a failed working-set
	// pass sees the same support and signs as the one before, and the
	// support holds at least LassoNewtonRows times the examples, F on
	// that orthant is minimised by conjugate gradients, where CD alone
	// crawls on the nearly singular X_S.
	LassoNewton     float64
	LassoNewtonRows float64
	// LassoContinue: a single LASSO fit at λ < LassoContinue·λ_max under
	// the default stopping rule or glmnet's, on data with fewer than
	// LassoContinueRows examples per feature, first solves
	// LassoContinueSteps λ per decade from λ_max down, each to a duality
	// gap of LassoContinueGap·F (under glmnet's rule: to its thresh; 0:
	// no continuation).
	LassoContinue      float64
	LassoContinueRows  float64
	LassoContinueSteps int
	LassoContinueGap   float64
	// LassoGram allows the covariance (Gram) mode of gram.go, which
	// decides by its own cost accounting where it runs (false: never,
	// for tests that compare it with the plain updates).
	LassoGram bool
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		LassoGapMaxWait:    8,
		LassoWSMin:         100,
		LassoInnerRel:      0.3,
		LassoGrowMargin:    0.05,
		LassoGapEvery:      10,
		LassoStepOps:       8,
		LassoACFMinNNZ:     32,
		LassoNewton:        1,
		LassoNewtonRows:    0.5,
		LassoContinue:      0.05,
		LassoContinueRows:  0.1,
		LassoContinueSteps: 2,
		LassoContinueGap:   1e-2,
		LassoGram:          true,
	}
}
