// Package solver is the coordinate-descent driver: one loop that runs
// every problem acfcd solves by coordinate descent (the duals of package
// dcd, the LASSO's working sets, the L1 classifiers, the multi-class
// SVMs).
//
// A problem owns only its mathematics (Problem: a step on one coordinate,
// and the full pass that checks the KKT conditions). The driver owns what
// is the same for all of them: the coordinate selections (cyclic, uniform,
// liblinear's shrinking, ACF with and without shrinking, whole or streamed
// sweeps), the ACF warm-up and preferences, the epoch clock and its cap,
// cancellation, progress, the decision to certify convergence by a full
// pass, and the hand-over to a finisher (Finisher: Run.Converge asks it
// at every epoch's end, runs it, and certifies its answer by the
// problem's pass). The paper's ACF-CD loop is Run.Solve with the ACF
// selection: run.go and select.go.
//
// The problem families above it (packages dual, primal, l1, lasso and
// multiclass) each train themselves: a family sets up its problems and
// subproblems, picks its finisher (package finish) and runs them here.
package solver
