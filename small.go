package acfcd

// smallEps returns the tolerance at which a coordinate descent solver
// stops for the user's eps on d. On a small problem it is
// eps·Tuning.SmallTighten: at liblinear's loose default -e the point at
// which a stopping rule first holds depends on the order of the steps,
// and a tighter target puts acfcd's point at or below liblinear's
// objective for a few more epochs over a set that takes milliseconds
// (docs/tuning.md). Small means a cost model below Tuning.SmallNNZ: the
// non-zeros times max(1, C), C standing for the growth of the epochs
// with it. Crammer–Singer's factor is Tuning.SmallTightenCS. Result.Eps
// stays the user's; other problems stop at eps.
func smallEps(d *Dataset, p *Params, eps float64) float64 {
	t := p.Tuning
	if t == nil || t.SmallTighten <= 0 || t.SmallTighten >= 1 || float64(d.NNZ())*max(1, p.C) > float64(t.SmallNNZ) {
		return eps
	}
	if p.Problem == CrammerSinger && t.SmallTightenCS > 0 && t.SmallTightenCS < 1 {
		return eps * t.SmallTightenCS
	}
	return eps * t.SmallTighten
}
