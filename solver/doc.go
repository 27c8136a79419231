// Package solver is the coordinate-descent driver: one loop that runs
// every problem acfcd solves by coordinate descent (the duals of the SVMs
// and of logistic regression in package dual, the LASSO in package lasso,
// the Weston–Watkins SVM in package multiclass).
//
// A problem owns only its mathematics (Problem: a step on one coordinate,
// and the full pass that checks the KKT conditions). The driver owns what
// is the same for all of them: the coordinate selections (cyclic, uniform,
// liblinear's shrinking, ACF with and without shrinking, whole or streamed
// sweeps), the ACF warm-up and preferences, the epoch clock and its cap,
// cancellation, progress, and the decision to certify convergence by a
// full pass. The paper's ACF-CD loop is Run.Solve with the ACF selection:
// run.go and select.go.
//
// Finishers for badly conditioned duals (package finish) attach through
// Config.Switch and take over between two calls of Run.Solve.
package solver
