package fit

// Tuning holds the constants the coordinate-descent families share that
// were chosen by measurement, with the defaults of DefaultTuning;
// docs/tuning.md records the runs behind each. None of them changes what a
// converged model solves, only the path to it (and the memory on the way).
// They are not part of acfcd's API: tests pass a modified copy, and the
// benchmark harnesses reach a training's through its context
// (internal/tune).
type Tuning struct {
	// SmallNNZ, SmallTighten: the coordinate descent solvers (-s 1, 3, 4,
	// 5, 6, 7, 12, 13, 21, Weston–Watkins) stop at eps·SmallTighten
	// instead of eps when the non-zeros times max(1, C) are at most
	// SmallNNZ, so that at liblinear's loose default -e their point is at
	// least as good as liblinear's; the reported eps is the user's (0 or
	// ≥ 1: off).
	SmallNNZ     int64
	SmallTighten float64
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		SmallNNZ:     200000,
		SmallTighten: 0.25,
	}
}
