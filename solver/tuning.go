package solver

// Tuning holds the constants that were chosen by measurement, with the
// defaults of DefaultTuning; docs/tuning.md records the runs behind each.
// None of them changes what a converged model solves, only the path to it
// (and the memory on the way). Tests and measurements pass a modified copy.
type Tuning struct {
	// The driver.

	// PrefetchAhead is how many steps ahead a batch prefetches its
	// coordinates' data (0: no prefetching).
	PrefetchAhead int
	// PollWork is about how many non-zeros the solvers touch between two
	// checks for cancellation.
	PollWork int64
	// SweepStreamMin is the most coordinates whose sweeps are built whole;
	// above it a sweep is streamed in shuffled chunks of at most
	// SweepChunk steps and shrinking keeps only a bitset (memory at
	// 10⁷ examples).
	SweepStreamMin, SweepChunk int
	// EarlyCheck: the ACF selections of problems that ask for it run one
	// full KKT pass the first time a sweep's violation is within
	// EarlyCheck·eps.
	EarlyCheck float64
	// PartialUnshrinks: the first PartialUnshrinks failed full passes
	// in a row bring back only the shrunk violators they repaired; the
	// next brings back all shrunk coordinates (acf+shrink).
	PartialUnshrinks int
	// KKTChunkRows is the number of rows in a chunk of a full KKT pass;
	// it, never GOMAXPROCS, fixes how the pass's sums are formed.
	KKTChunkRows int
	// KKTParallelNNZ: a pass over fewer non-zeros runs on one goroutine.
	KKTParallelNNZ int64

	// The dual of the SVMs and of logistic regression.

	// XsqStoreMax is the most examples for which ‖x_i‖² is stored rather
	// than recomputed at each step (the same bits either way).
	XsqStoreMax int
	// PushDups turns on the push of identical rows with opposite labels
	// (-s 1, -s 3; of different classes for -s 4) when the fallback is
	// on; DupsMaxRows bounds the examples searched for them.
	PushDups    bool
	DupsMaxRows int
	// HingeGapRel, HingeGapTighten, HingeGapRounds: a point of -s 3
	// certified at eps whose duality gap exceeds HingeGapRel times the
	// primal, while its free examples (0 < α_i < C_i) outnumber the
	// dimension, is not accepted: eps is multiplied by HingeGapTighten
	// and dual CD goes on, at most HingeGapRounds times (0: never).
	HingeGapRel     float64
	HingeGapTighten float64
	HingeGapRounds  int

	// SmallNNZ, SmallTighten: the coordinate descent solvers (-s 1, 3, 4,
	// 5, 6, 7, 12, 13, 21, Weston–Watkins) stop at eps·SmallTighten
	// instead of eps when the non-zeros times max(1, C) are at most
	// SmallNNZ, so that at liblinear's loose default -e their point is at
	// least as good as liblinear's; the reported eps is the user's (0 or
	// ≥ 1: off).
	SmallNNZ     int64
	SmallTighten float64
	// SmallTightenCS replaces SmallTighten for Crammer–Singer (-s 4)
	// when the rule is on: its point at a loose eps lies further from the
	// optimum than the other solvers' (0: SmallTighten).
	SmallTightenCS float64
	// SearchTighten: FindC (-C) solves each C of the primal Newton
	// solvers (-s 0, 2, 11) to eps·SearchTighten, so that the accuracy
	// it compares is the solution's, not where a warm start happened to
	// stop (0 or ≥ 1: the user's eps).
	SearchTighten float64

	// The switch from a stalling dual to a finisher.

	// DualStepOps is the cost of a dual step beyond its non-zeros, in
	// non-zeros.
	DualStepOps int64
	// SwitchOps, when positive, replaces the switch rule's estimate of a
	// finisher's cost (measurements that force a switch).
	SwitchOps int64
	// NewtonDenseMax is the largest dimension d+1 solved by dense Newton
	// (and, for -s 3, by the interior-point method); above it -s 1 and 7
	// use Newton-CG and -s 3 has no finisher.
	NewtonDenseMax int
	// NewtonGuessIters is the Newton steps the switch rule assumes;
	// NewtonOpsSVM and NewtonOpsLR convert a Newton operation into dual
	// operations of the same time (-s 1, -s 7).
	NewtonGuessIters          int64
	NewtonOpsSVM, NewtonOpsLR float64
	// NewtonMaxIter caps the dense Newton steps of one switch.
	NewtonMaxIter int
	// NewtonDropSum: the dense Newton steps of -s 7 leave out of the
	// Hessian the examples of least D_i‖x_i‖² that sum to at most this
	// (H changes by at most that much, and H ≥ I).
	NewtonDropSum float64
	// NewtonViolCheck: -s 1 and 7's dense Newton stops once
	// max_i |x_iᵀ∇P| (the rebuilt dual's largest violation) is at most
	// eps/4, computed (one pass) once the bound ‖∇P‖·max‖x_i‖ is within
	// NewtonViolCheck times eps/4 (0: the bound only).
	NewtonViolCheck float64
	// NewtonRayMax: -s 7's dense Newton starts from βW, the minimiser of
	// the primal along the ray through the dual's W, when β ≤ NewtonRayMax.
	NewtonRayMax float64
	// PrimalFirstStep, PrimalFirstKappa, PrimalFirstMinNNZ: a subproblem
	// of -s 1 or 7 with d+1 ≤ NewtonDenseMax and at least
	// PrimalFirstMinNNZ non-zeros whose dense Newton step costs at most
	// PrimalFirstStep dual epochs, and whose mean C_i‖x_i‖² is at least
	// PrimalFirstKappa, starts with Newton instead of dual CD; after one
	// epoch of dual CD if the step costs at least PrimalFirstEpoch epochs.
	PrimalFirstStep, PrimalFirstKappa, PrimalFirstEpoch float64
	PrimalFirstMinNNZ                                   int64
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
	RowParts int

	// TronSwitchPasses is the switch rule's estimate of a Newton-CG round
	// and the dual CD after it, in passes over the non-zeros.
	TronSwitchPasses int64
	// TronNearViol, TronDeferPasses: a dual whose last sweep violated by
	// at most TronNearViol·eps gets TronDeferPasses more passes before the
	// switch to Newton-CG.
	TronNearViol    float64
	TronDeferPasses int64
	// TronGapRel: Newton-CG hands back at this relative duality gap, or
	// after TronBudgetPasses passes over the data (-s 7; -s 1 scales it
	// with eps, see the finisher), doubled at each further switch, of at
	// most TronMaxRounds; TronMaxIter caps its iterations per switch.
	TronGapRel       float64
	TronBudgetPasses int64
	TronMaxRounds    int
	TronMaxIter      int

	// IPMGuessIters and IPMOpsRatio set the switch rule of -s 3's
	// interior-point finisher.
	IPMGuessIters int64
	IPMOpsRatio   float64
	// SVRIPMOpsRatio converts -s 13's interior-point operations into dual
	// operations for its switch rule (dual.SVR.IPMBudget).
	SVRIPMOpsRatio float64
	// SVRIPMNear, SVRIPMMaxDefer: a -s 13 dual whose last batch's
	// violations sum to at most SVRIPMNear times liblinear's test when the
	// switch is due goes on for the same budget again, at most
	// SVRIPMMaxDefer times.
	SVRIPMNear     float64
	SVRIPMMaxDefer int
	// SVRIPMStopRel: the interior-point method of -s 13 ends at the first
	// certified rounded point whose complementarity is below
	// SVRIPMStopRel·|f| (or stops halving).
	SVRIPMStopRel float64
	// IPMMaxRounds bounds its switches per subproblem; the second does
	// not settle.
	IPMMaxRounds int
	// IPMNearGap, IPMMaxDefer: a dual whose duality gap is below
	// IPMNearGap·|f| when the rule fires goes on for the same budget
	// again, at most IPMMaxDefer times.
	IPMNearGap  float64
	IPMMaxDefer int
	// IPMProbeAt, IPMFarViol, IPMFarGap: once the dual has spent
	// IPMProbeAt of the budget, a last sweep violating by more than
	// IPMFarViol·eps and a gap of at least IPMFarGap·|f| switch at once.
	IPMProbeAt, IPMFarViol, IPMFarGap float64
	// IPMSettleRel, IPMSettleMul: an α_i within IPMSettleRel·C_i of a
	// bound whose multiplier is at least IPMSettleMul is set there and
	// leaves the method's working set.
	IPMSettleRel, IPMSettleMul float64
	// IPMMaxIter caps the interior-point iterations; IPMRoundRel and
	// IPMStopRel are the relative complementarities at which it starts
	// rounding and ends.
	IPMMaxIter              int
	IPMRoundRel, IPMStopRel float64
	// IPMTheta and IPMKappa shape the warm start: α at most IPMTheta·C_i
	// into the box, μ₀ = IPMKappa·gap/(2n).
	IPMTheta, IPMKappa float64
	// The interior-point passes run in at most IPMMaxParts fixed row
	// ranges when the data has IPMParallelNNZ non-zeros and the partial
	// Hessians fit in IPMPartsMem bytes; BinaryRows skips the values of
	// all-ones data (the same bits).
	IPMParallelNNZ int64
	IPMMaxParts    int
	IPMPartsMem    int
	BinaryRows     bool

	// The Crammer–Singer SVM (-s 4).

	// CSCertify: its full pass certifies a largest violation of at most
	// CSCertify·eps; liblinear stops at eps after a closing sweep that
	// leaves every example it steps on optimal.
	CSCertify float64
	// CSGatherDiv: a step reads the decision values of its active
	// classes one by one when they are at most K/CSGatherDiv of the K
	// classes (0: never), else all K at once (kernel.DotK).
	CSGatherDiv int
	// The L1-regularised classifiers (-s 5, 6).

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

	// The LASSO.

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
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		PrefetchAhead:    2,
		PollWork:         1 << 20,
		SweepStreamMin:   1 << 22,
		SweepChunk:       1 << 21,
		EarlyCheck:       10,
		PartialUnshrinks: 3,
		KKTChunkRows:     1024,
		KKTParallelNNZ:   1 << 16,

		XsqStoreMax: 1 << 22,
		PushDups:    true,
		DupsMaxRows: 1 << 22,

		HingeGapRel:     0.03,
		HingeGapTighten: 0.5,
		HingeGapRounds:  4,
		SmallNNZ:        200000,
		SmallTighten:    0.25,
		SmallTightenCS:  0.05,
		SearchTighten:   0.01,

		DualStepOps:       8,
		NewtonDenseMax:    4096,
		NewtonGuessIters:  10,
		NewtonOpsSVM:      0.4,
		NewtonOpsLR:       0.25,
		NewtonMaxIter:     100,
		NewtonDropSum:     1,
		NewtonViolCheck:   4,
		NewtonRayMax:      0.5,
		PrimalFirstStep:   16,
		PrimalFirstKappa:  0.5,
		PrimalFirstEpoch:  10,
		PrimalFirstMinNNZ: 1 << 16,

		HessianParallelOps: 1 << 18,
		HessianMaxParts:    4,
		HessianKeepMax:     2048,
		HessianDropRel:     1e-10,
		RowParts:           8,

		TronSwitchPasses: 100,
		TronNearViol:     4,
		TronDeferPasses:  20,
		TronGapRel:       1e-3,
		TronBudgetPasses: 50,
		TronMaxRounds:    8,
		TronMaxIter:      200,

		IPMGuessIters:  10,
		IPMOpsRatio:    0.15,
		SVRIPMOpsRatio: 0.15,
		SVRIPMNear:     4,
		SVRIPMMaxDefer: 4,
		SVRIPMStopRel:  1e-12,
		IPMMaxRounds:   2,
		IPMNearGap:     1e-4,
		IPMMaxDefer:    4,
		IPMProbeAt:     0.5,
		IPMFarViol:     10,
		IPMFarGap:      0.1,
		IPMSettleRel:   1e-4,
		IPMSettleMul:   0.1,
		IPMMaxIter:     80,
		IPMRoundRel:    1e-3,
		IPMStopRel:     1e-4,
		IPMTheta:       0.3,
		IPMKappa:       10,
		IPMParallelNNZ: 1 << 16,
		IPMMaxParts:    4,
		IPMPartsMem:    32 << 20,
		BinaryRows:     true,

		CSCertify:        0.5,
		CSGatherDiv:      16,
		L1StepOps:        8,
		SVCBranchInside:  0.25,
		L1InnerMaxEpochs: 20,

		LassoGapMaxWait: 8,
		LassoWSMin:      100,
		LassoInnerRel:   0.3,
		LassoGrowMargin: 0.05,
		LassoGapEvery:   10,
		LassoStepOps:    8,
		LassoACFMinNNZ:  32,
		LassoNewton:     1,
		LassoNewtonRows: 0.5,

		LassoContinue:      0.05,
		LassoContinueRows:  0.1,
		LassoContinueSteps: 2,
		LassoContinueGap:   1e-2,
	}
}
