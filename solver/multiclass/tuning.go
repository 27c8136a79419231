package multiclass

// Tuning holds the multi-class SVMs' constants that were chosen by
// measurement, with the defaults of DefaultTuning; docs/tuning.md records
// the runs behind each. None of them changes what a converged model solves,
// only the path to it (and the memory on the way). They are not part of
// acfcd's API: tests pass a modified copy, and the benchmark harnesses
// reach a training's through its context (internal/tune).
type Tuning struct {
	// CSCertify: its full pass certifies a largest violation of at most
	// CSCertify·eps; liblinear stops at eps after a closing sweep that
	// leaves every example it steps on optimal.
	CSCertify float64
	// CSGap: a full pass that certifies the violation also needs a
	// duality gap of at most CSGap·P(W), or the tolerance tightens and
	// the descent goes on (0: the violation alone). At a large C the
	// violation bounds the gap by about Σ_i C_i·eps only.
	CSGap float64
	// CSGatherDiv: a step reads the decision values of its active
	// classes one by one when they are at most K/CSGatherDiv of the K
	// classes (0: never), else all K at once (kernel.DotK).
	CSGatherDiv int
	// PushDups turns on the push of identical rows with opposite labels
	// (-s 1, -s 3; of different classes for -s 4) when the fallback is
	// on; DupsMaxRows bounds the examples searched for them.
	PushDups    bool
	DupsMaxRows int
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		CSCertify:   0.5,
		CSGap:       1e-3,
		CSGatherDiv: 16,
		PushDups:    true,
		DupsMaxRows: 1 << 22,
	}
}
