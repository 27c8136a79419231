package solver

// Finisher takes over from coordinate descent where it crawls (package
// finish: primal Newton, Newton-CG, interior-point methods). The driver
// asks Due at the end of every epoch; when it says so, the running Solve
// stops and Converge calls Finish from the problem's current point. The
// problem's full pass then certifies the finisher's answer, and
// coordinate descent goes on from it if the pass fails: a finisher
// changes the path, never the stopping rule.
type Finisher interface {
	// Due reports whether to hand over now.
	Due(r *Run) bool
	// Finish runs the finisher for the round-th time (from 1) in this
	// run, leaves the problem at a consistent point with r.Obj set (rolled
	// back to the point at the switch if its own is worse) and reports
	// whether that point is worth certifying.
	Finish(r *Run, round int) (improved bool)
}

// Starter is a finisher that may go first, before any coordinate descent
// (primal Newton on few features, where a dual epoch costs more than a
// Newton step).
type Starter interface {
	// First reports whether this run starts with the finisher.
	First() bool
	// Start runs it from the problem's starting point, as Finish does.
	Start(r *Run) (improved bool)
}

// Accepter is a finisher with a stopping rule of its own that may accept
// its answer where the problem's full pass does not (liblinear's rule for
// the primal solver that -s 12 switches to: on badly scaled data the
// dual's rule can lie below what rounding lets its point reach).
type Accepter interface {
	Accepts() bool
}

// Refuser is a finisher that may refuse a point the full pass certified:
// one whose duality gap says it is far from the optimum although every
// violation is within eps (liblinear's eps is absolute, in margin units,
// and on data whose objective is tiny, such as p ≫ n with raw features,
// that leaves the primal many times its optimum). Converge then hands
// over once more.
type Refuser interface {
	Refuses(r *Run) bool
}

// finishSalt seeds the selection of the coordinate descent that goes on
// after a finisher, round by round.
const finishSalt = 0x6e6577746f6e

// Converge runs coordinate descent with seed until a full pass certifies
// the point, handing over to Config.Finisher whenever it is due (and
// first, if it is a Starter that says so), or until the epoch cap or
// cancellation ends it; it reports whether the point was certified.
// After a finisher the descent goes on with a selection seeded anew.
func (r *Run) Converge(seed uint64) bool {
	f := r.cfg.Finisher
	var converged bool
	if s, ok := f.(Starter); ok && s.First() {
		improved := s.Start(r)
		converged = !r.Cancelled() && (improved && r.p.Pass(r, true) || r.Solve(seed))
	} else {
		converged = r.Solve(seed)
	}
	rf, _ := f.(Refuser)
	for round := 1; ; round++ {
		if !r.Handover() {
			if !converged || rf == nil || r.Cancelled() || !rf.Refuses(r) {
				break
			}
		}
		improved := f.Finish(r, round)
		if r.Cancelled() {
			break
		}
		a, _ := f.(Accepter)
		converged = improved && r.p.Pass(r, true) || a != nil && a.Accepts() || r.Solve(seed^finishSalt*uint64(round))
	}
	return converged
}
