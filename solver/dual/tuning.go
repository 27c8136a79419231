package dual

// Tuning holds the dual family's constants that were chosen by measurement,
// with the defaults of DefaultTuning; docs/tuning.md records the runs
// behind each. None of them changes what a converged model solves, only the
// path to it (and the memory on the way). They are not part of acfcd's API:
// tests pass a modified copy, and the benchmark harnesses reach a
// training's through its context (internal/tune).
type Tuning struct {
	// PushDups turns on the push of identical rows with opposite labels
	// (-s 1, -s 3; of different classes for -s 4) when the fallback is
	// on; DupsMaxRows bounds the examples searched for them.
	PushDups    bool
	DupsMaxRows int
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		PushDups:    true,
		DupsMaxRows: 1 << 22,
	}
}
