// Package cocoa trains the dual problems of acfcd (-s 1, 3 and 7, two
// classes) on examples split into K blocks, as CoCoA+ does (Ma et al.
// 2015; Smith et al., JMLR 2018), with acfcd's dual coordinate descent —
// ACF by default — as the local solver of every block.
//
// A round: every block starts from the shared w and its own α, takes a
// budget of coordinate steps on its local subproblem (the block's dual
// with the quadratic term scaled by σ' = K, so that the K updates can be
// added: γ = 1) and returns Δw = Σ_{i∈k} Δα_i y_i x_i, sparse; the driver
// adds them to w. A block's α and its selection (the ACF preferences)
// stay with the block from round to round. The duality gap
// P(w) + f(α) = ‖w‖² + Σ_k (Σ_{i∈k} C_i loss_i(w) + ℓ*_i(α_i)) is computed
// distributively: every block sends two numbers.
//
// The driver may also scale the sum of the updates by a line search
// (Options.LineSearch, Step): the SVMs' duals are quadratic, so three
// numbers more per block give the γ that minimises the dual along the
// sum (Lee & Chang 2019), at least the decrease of γ = 1; with it the
// local subproblems may take σ' = 1 (Step Line1), bolder steps whose
// overshoot the search takes back.
//
// Block is the worker's state and does one round; Simulate runs K blocks
// in one process over the same partition a cluster would use (Partition),
// which is what the measurements of rounds and local steps use and what
// the Beam module (github.com/acfcd/acfcd/beam) runs on an engine.
package cocoa
