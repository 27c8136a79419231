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
// with eps halved
// rather than aimed at the target (on raw features, arcene, P falls with
// the gap and the target moves away as it is approached). The gap itself
// is free (the pass summed the loss, f(α) is O(n+d)).
func (p *Problem) tighten() bool {
	t := p.tune
	if t.HingeGapSpend <= 0 {
		return false
	}
	gap, target := p.PassPrimal+p.Objective(), t.HingeGapRel*p.PassPrimal
	if !(gap > target) {
		return false
	}
	if p.gapLimit == 0 {
		p.gapLimit = p.Ops + max(1, int64(t.HingeGapSpend*float64(p.Ops)))
	}
	f := min(t.HingeGapTighten, target/gap)
	p.gapNothing = p.CertifiesNothing() && p.nothingRounds < t.HingeGapRounds
	switch {
	case p.gapNothing:
		f = t.HingeGapTighten
		p.nothingRounds++
	case p.gapLimit < 0 || p.Ops >= p.gapLimit:
		p.gapLimit = -1
		return false
	}
	if p.tightened == 0 {
		p.eps0 = p.Eps
	}
	p.Eps *= f
	p.tightened++
	return true
}

// spendGap ends the gap rule once it has spent its operations: Eps goes
// back to the eps the run was given, whose certificate the refused point
// already held, and the next pass may accept. A round for a point that
// certified nothing runs to its end.
func (p *Problem) spendGap() {
	if p.gapLimit > 0 && !p.gapNothing && p.Ops >= p.gapLimit {
		p.Eps, p.gapLimit = p.eps0, -1
	}
}

// Tightening reports whether the hinge loss's gap rule has refused a
// point that certified something and is still spending: the run already
// holds a point certified at the eps it was given, so a finisher (whose
// cost the rule's budget does not cover) is not started for the extra
// accuracy.
func (p *Problem) Tightening() bool { return p.gapLimit > 0 && !p.gapNothing }

// CertifiesNothing reports whether the last full pass's point has a
// duality gap above the dual objective itself (the primal over twice the
// dual): such a certificate says nothing of the primal (gap.go, the primal
// rule, finish.Newton.Refuses).
func (p *Problem) CertifiesNothing() bool {
	d := -p.Objective()
	return p.PassPrimal-d > d
}
