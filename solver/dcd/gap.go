package dcd

// tighten is the hinge loss's gap rule, asked at a point the full pass
// certified: it reports whether to refuse the point, and then lowers Eps.
//
// max|PG| ≤ eps/2 bounds the primal of the hinge loss at w(α) loosely and
// unevenly: relative duality gaps at the default eps range from 10⁻⁴ to
// tens of percent over the corpus (free examples outnumbering the
// dimension, near duplicates, p ≫ n), and liblinear's own stop at the
// same eps lands anywhere in that range too. A point whose gap exceeds
// HingeGapRel·P is refused while the rule has spent at most HingeGapSpend
// times the operations the run took to its first refused point (a price
// in the run's own cost, not a fixed number of rounds); Due ends the
// spending mid-way, so no round runs far past it. A point whose gap
// exceeds its dual objective certifies nothing (the primal over twice the
// dual): it is refused whatever the budget, at most HingeGapRounds times,
// with eps halved rather than aimed at the target (on raw features,
// arcene, P falls with the gap and the target moves away as it is
// approached). The gap itself is free (the pass summed the loss, f(α) is
// O(n+d)). The SVR's ε-insensitive loss (-s 13) has the same rule
// (SVR.tighten).
func (p *Problem) tighten() bool {
	f, ok := p.gap.refuse(p.tune, p.PassPrimal, -p.Objective(), p.Ops)
	if !ok {
		return false
	}
	if p.tightened == 0 {
		p.eps0 = p.Eps
	}
	p.Eps *= f
	p.tightened++
	return true
}

// gapRule is the gap rule's state in one run (tighten).
type gapRule struct {
	limit   int64 // Ops at which the spending ends; 0: not started, −1: ended
	nothing bool  // the last refusal was of a point that certified nothing
	rounds  int   // refusals of points that certified nothing
}

// refuse applies the rule at a certified point of primal P and dual
// objective D, reached after ops operations: it reports whether to refuse
// the point and the factor for the tolerance.
func (g *gapRule) refuse(t *Tuning, P, D float64, ops int64) (float64, bool) {
	if t.HingeGapSpend <= 0 {
		return 0, false
	}
	gap, target := P-D, t.HingeGapRel*P
	if !(gap > target) {
		return 0, false
	}
	if g.limit == 0 {
		g.limit = ops + max(1, int64(t.HingeGapSpend*float64(ops)))
	}
	// The gap shrinks about in proportion to the tolerance: aim at the
	// target in one go (where it does not, near duplicates at large C,
	// the budget ends the run).
	f := min(t.HingeGapTighten, target/gap)
	g.nothing = gap > D && g.rounds < t.HingeGapRounds
	switch {
	case g.nothing:
		f = t.HingeGapTighten
		g.rounds++
	case g.limit < 0 || ops >= g.limit:
		g.limit = -1
		return 0, false
	}
	return f, true
}

// spent reports whether the rule's budget ran out at ops, and then ends
// the rule. A round for a point that certified nothing runs to its end.
func (g *gapRule) spent(ops int64) bool {
	if g.limit > 0 && !g.nothing && ops >= g.limit {
		g.limit = -1
		return true
	}
	return false
}

// refused reports whether the rule has refused a point in this run (the
// budget is set at the first refusal).
func (g *gapRule) refused() bool { return g.limit != 0 }

// active reports whether the rule has refused a point that certified
// something and is still spending.
func (g *gapRule) active() bool { return g.limit > 0 && !g.nothing }

// spendGap ends the gap rule once it has spent its operations: Eps goes
// back to the eps the run was given, whose certificate the refused point
// already held, and the next pass may accept.
func (p *Problem) spendGap() {
	if p.gap.spent(p.Ops) {
		p.Eps = p.eps0
	}
}

// Tightening reports whether the gap rule has refused a point that
// certified something and is still spending: the run already holds a
// point certified at the eps it was given, so a finisher (whose cost the
// rule's budget does not cover) is not started for the extra accuracy.
func (p *Problem) Tightening() bool { return p.gap.active() }

// CertifiesNothing reports whether the last full pass's point has a
// duality gap above the dual objective itself (the primal over twice the
// dual): such a certificate says nothing of the primal (gap.go, the primal
// rule, finish.Newton.Refuses).
func (p *Problem) CertifiesNothing() bool {
	d := -p.Objective()
	return p.PassPrimal-d > d
}
