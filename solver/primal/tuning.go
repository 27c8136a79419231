package primal

// Tuning holds the primal Newton method's constants (package finish's
// Newton and interior-point methods read them too) that were chosen by
// measurement, with the defaults of DefaultTuning; docs/tuning.md records
// the runs behind each. None of them changes what a converged model solves,
// only the path to it (and the memory on the way). They are not part of
// acfcd's API: tests pass a modified copy, and the benchmark harnesses
// reach a training's through its context (internal/tune).
type Tuning struct {
	// NewtonDenseMax is the largest dimension d+1 solved by dense Newton
	// (and, for -s 3, by the interior-point method); above it -s 1 and 7
	// use Newton-CG and -s 3 has no finisher.
	NewtonDenseMax int
	// DenseOpCost is the time of a dense Newton step's operation (the
	// Hessian's formation, its Cholesky factor) in operations of a sparse
	// pass over the rows: where dense steps are possible, Newton starts
	// with CG and takes dense steps once CG is dearer (CGDearer); 0 takes
	// dense steps from the start.
	DenseOpCost float64
	// HessianParallelOps: a dense Hessian formation of fewer operations
	// runs on one goroutine; larger ones split the rows of H among at
	// most HessianMaxParts (the same bits at any split).
	HessianParallelOps int64
	HessianMaxParts    int
	// HessianDropRel: the logistic loss's Hessian leaves out the examples
	// whose D_i‖x_i‖² is at most this (H = I + Σ D_i x_i x_iᵀ).
	HessianDropRel float64
	// HessianKeepMax is the largest d+1 for which the squared losses keep
	// their Hessian sum between Newton steps (8·(d+1)² bytes) and update
	// it by the examples whose weight changed.
	HessianKeepMax int
	// RowParts is the number of fixed parts of rows the primal Newton
	// method's passes (margins, loss, gradient) are split into, each
	// summed on its own (so it, never GOMAXPROCS, fixes the sums).
	RowParts   int
	BinaryRows bool
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		NewtonDenseMax:     4096,
		DenseOpCost:        0.5,
		HessianParallelOps: 1 << 18,
		HessianMaxParts:    4,
		HessianDropRel:     1e-10,
		HessianKeepMax:     2048,
		RowParts:           8,
		BinaryRows:         true,
	}
}
