package l1

// Tuning holds the L1-regularised classifiers' constants that were chosen
// by measurement, with the defaults of DefaultTuning; docs/tuning.md
// records the runs behind each. None of them changes what a converged model
// solves, only the path to it (and the memory on the way). They are not
// part of acfcd's API: tests pass a modified copy, and the benchmark
// harnesses reach a training's through its context (internal/tune).
type Tuning struct {
	// L1StepOps is the cost of a step on a feature beyond its column's
	// non-zeros, in non-zeros: ACF adapts to each step's gain per cost
	// (solver.StepCoster).
	L1StepOps int
	// SVCBranchInside: the loops of -s 5 over a column branch on the sign
	// of b_i = 1 − y_i wᵀx_i when at most this fraction of the examples is
	// inside the margin (b_i > 0), and use masks otherwise.
	SVCBranchInside float64
	// L1InnerMaxEpochs caps the epochs of -s 6's inner coordinate descent
	// in one outer iteration of newGLMNET.
	L1InnerMaxEpochs int
	// L1DenseEpochs: with the default selection, -s 5 and 6 train by
	// dense Newton (newton.go) when forming the Hessian over every row
	// costs at most this many coordinate-descent epochs (2·nnz
	// non-zeros) and a sweep over its d² entries at most this fraction of
	// one; L1DenseMax bounds d² (memory, per worker). 0 turns the path
	// off.
	L1DenseEpochs float64
	L1DenseMax    int
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		L1StepOps:        8,
		SVCBranchInside:  0.25,
		L1InnerMaxEpochs: 20,
		L1DenseEpochs:    16,
		L1DenseMax:       1 << 20,
	}
}
