package dcd

// tighten is the hinge loss's gap rule, asked at a point the full pass
// certified: it reports whether to refuse the point, and then lowers Eps.
//
// The primal of the hinge loss at w(α) is loose where the free examples
// (0 < α_i < C_i) outnumber the dimensions: a w off by δ moves each of
// their margins by z_iᵀδ, and the primal pays C_i|z_iᵀδ| for every one,
// while the dual pays about ½‖δ‖². There (separable data with repeated
// rows, such as mushrooms) max|PG| ≤ eps/2 can leave a gap of tens of
// percent. Elsewhere the rule stays out (docs/tuning.md), except where the
// gap exceeds the dual objective itself: the primal is then over twice the
// dual and the point certifies nothing (p ≫ n: dorothea's primal 3.4
// times liblinear's at the same dual objective). Such a point gets eps
// halved, not aimed at the target: with raw features (arcene) P falls with
// the gap, by orders of magnitude, so the target moves away as it is
// approached. Once refused, a run goes on to the target. The gap itself is
// free (the pass summed the loss, f(α) is O(n+d)).
func (p *Problem) tighten() bool {
	t := p.tune
	if p.tightened >= t.HingeGapRounds {
		return false
	}
	d := -p.Objective()
	gap := p.PassPrimal - d
	target := t.HingeGapRel * p.PassPrimal
	if !(gap > target) {
		return false
	}
	free := p.freeOutnumber()
	nothing := p.CertifiesNothing()
	if !free && !nothing && p.tightened == 0 {
		return false
	}
	// The gap shrinks about in proportion to eps: aim at the target in
	// one go.
	f := min(t.HingeGapTighten, target/gap)
	if nothing && !free {
		f = t.HingeGapTighten
	}
	if p.tightened == 0 {
		p.eps0 = p.Eps
	}
	p.Eps *= f
	p.tightened++
	return true
}

// freeOutnumber reports whether the free examples outnumber the dimension
// (d, +1 with a bias).
func (p *Problem) freeOutnumber() bool {
	dim := p.NF
	if p.Bias != 0 {
		dim++
	}
	if p.N <= dim {
		return false
	}
	free := 0
	for i, a := range p.Alpha {
		if a > 0 && a < p.UB[(p.Y[i]+1)>>1] {
			free++
		}
	}
	return free > dim
}

// CertifiesNothing reports whether the last full pass's point has a
// duality gap above the dual objective itself (the primal over twice the
// dual): such a certificate says nothing of the primal (gap.go, the primal
// rule, finish.Newton.Refuses).
func (p *Problem) CertifiesNothing() bool {
	d := -p.Objective()
	return p.PassPrimal-d > d
}
