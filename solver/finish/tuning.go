package finish

// Tuning holds the finishers' constants (the switch rule's and each
// method's) that were chosen by measurement, with the defaults of
// DefaultTuning; docs/tuning.md records the runs behind each. None of them
// changes what a converged model solves, only the path to it (and the
// memory on the way). They are not part of acfcd's API: tests pass a
// modified copy, and the benchmark harnesses reach a training's through its
// context (internal/tune).
type Tuning struct {
	// DualStepOps is the cost of a dual step beyond its non-zeros, in
	// non-zeros.
	DualStepOps int64
	// SwitchOps, when positive, replaces the switch rule's estimate of a
	// finisher's cost (measurements that force a switch).
	SwitchOps int64
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
	// PrimalFirstStep, PrimalFirstKappa: a subproblem of -s 1 or 7 with
	// d+1 ≤ NewtonDenseMax whose whole dense Newton solve (the switch
	// rule's estimate) costs at most PrimalFirstStep dual epochs, and
	// whose mean C_i‖x_i‖² is at least PrimalFirstKappa, starts with
	// Newton instead of dual CD; after one epoch of dual CD if one Newton
	// step costs at least PrimalFirstEpoch epochs. PrimalFirstStep is the
	// dual epochs below which dual CD first was faster on the dense
	// shapes of bench/corpus's half A (docs/tuning.md), in the units of the
	// estimate (which assumes NewtonGuessIters steps, about twice those
	// taken).
	PrimalFirstStep, PrimalFirstKappa, PrimalFirstEpoch float64
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
	// IPMSettleRel, IPMSettleFrac, IPMSettleMul: an α_i within
	// IPMSettleRel·C_i of a bound, and close enough that the snap moves
	// its margin by at most IPMSettleFrac times its multiplier, where that
	// multiplier is at least IPMSettleMul, is set there and leaves the
	// method's working set.
	IPMSettleRel, IPMSettleFrac, IPMSettleMul float64
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
}

// DefaultTuning returns the defaults.
func DefaultTuning() Tuning {
	return Tuning{
		DualStepOps:      8,
		NewtonGuessIters: 10,
		NewtonOpsSVM:     0.4,
		NewtonOpsLR:      0.25,
		NewtonMaxIter:    100,
		NewtonDropSum:    1,
		NewtonViolCheck:  4,
		NewtonRayMax:     0.5,
		PrimalFirstStep:  64,
		PrimalFirstKappa: 0.5,
		PrimalFirstEpoch: 10,
		TronSwitchPasses: 100,
		TronNearViol:     4,
		TronDeferPasses:  20,
		TronGapRel:       1e-3,
		TronBudgetPasses: 50,
		TronMaxRounds:    8,
		TronMaxIter:      200,
		IPMGuessIters:    10,
		IPMOpsRatio:      0.15,
		SVRIPMOpsRatio:   0.15,
		SVRIPMNear:       4,
		SVRIPMMaxDefer:   4,
		SVRIPMStopRel:    1e-12,
		IPMMaxRounds:     2,
		IPMNearGap:       1e-4,
		IPMMaxDefer:      4,
		IPMProbeAt:       0.5,
		IPMFarViol:       10,
		IPMFarGap:        0.1,
		IPMSettleRel:     1e-4,
		IPMSettleFrac:    0.1,
		IPMSettleMul:     0.1,
		IPMMaxIter:       80,
		IPMRoundRel:      1e-3,
		IPMStopRel:       1e-4,
		IPMTheta:         0.3,
		IPMKappa:         10,
		IPMParallelNNZ:   1 << 16,
		IPMMaxParts:      4,
		IPMPartsMem:      32 << 20,
	}
}
