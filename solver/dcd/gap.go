package dcd

// tighten is the hinge loss's gap rule, asked at a point the full pass
// certified: it reports whether to refuse the point, and then lowers Eps.
//
// The primal of the hinge loss at w(α) is loose where the free examples
// (0 < α_i < C_i) outnumber the dimensions: a w off by δ moves each of
// their margins by z_iᵀδ, and the primal pays C_i|z_iᵀδ| for every one,
// while the dual pays about ½‖δ‖². There (separable data with repeated
// rows, such as mushrooms) max|PG| ≤ eps/2 can leave a gap of tens of
// percent. Elsewhere the rule stays out (docs/tuning.md), at no cost with
// fewer examples than dimensions; the gap itself is free (the pass summed
// the loss, f(α) is O(n+d)).
func (p *Problem) tighten() bool {
	t := p.tune
	dim := p.NF
	if p.Bias != 0 {
		dim++
	}
	if p.tightened >= t.HingeGapRounds || p.N <= dim {
		return false
	}
	gap := p.PassPrimal + p.Objective()
	target := t.HingeGapRel * p.PassPrimal
	if !(gap > target) {
		return false
	}
	free := 0
	for i, a := range p.Alpha {
		if a > 0 && a < p.UB[(p.Y[i]+1)>>1] {
			free++
		}
	}
	if free <= dim {
		return false
	}
	// The gap shrinks about in proportion to eps: aim at the target in
	// one go.
	if p.tightened == 0 {
		p.eps0 = p.Eps
	}
	p.Eps *= min(t.HingeGapTighten, target/gap)
	p.tightened++
	return true
}
