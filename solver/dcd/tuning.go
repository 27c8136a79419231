package dcd

// Tuning holds the dual problems' constants that were chosen by
// measurement, with the defaults of DefaultTuning; docs/tuning.md records
// the runs behind each. None of them changes what a converged model solves,
// only the path to it (and the memory on the way). They are not part of
// acfcd's API: tests pass a modified copy, and the benchmark harnesses
// reach a training's through its context (internal/tune).
type Tuning struct {
	// XsqStoreMax is the most examples for which ‖x_i‖² is stored rather
	// than recomputed at each step (the same bits either way).
	XsqStoreMax int
	// HingeGapRel, HingeGapTighten, HingeGapSpend, HingeGapRounds: a
	// point of -s 3 (or -s 13, with its Tol) certified at eps whose
	// duality gap exceeds HingeGapRel times the primal is not accepted:
	// eps is multiplied by min(HingeGapTighten, HingeGapRel·P/gap) and
	// dual CD goes on, until the rule has spent HingeGapSpend times the
	// operations before its first refusal (0: never refuse). A point whose
	// gap exceeds its dual objective is refused whatever the budget,
	// HingeGapRounds times at most, eps × HingeGapTighten each.
	HingeGapRel     float64
	HingeGapTighten float64
	HingeGapSpend   float64
	HingeGapRounds  int
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		XsqStoreMax:     1 << 22,
		HingeGapRel:     0.003,
		HingeGapTighten: 0.5,
		HingeGapSpend:   0.5,
		HingeGapRounds:  4,
	}
}
