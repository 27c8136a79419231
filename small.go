package acfcd

// smallEps returns the tolerance at which a coordinate descent solver
// stops for the user's eps on d. On a small problem (at most
// Tuning.SmallNNZ non-zeros) it is eps·Tuning.SmallTighten: at
// liblinear's loose default -e the point at which a stopping rule first
// holds depends on the order of the steps, and a tighter target puts
// acfcd's point at or below liblinear's objective for the cost of a few
// epochs over a set that takes milliseconds (docs/tuning.md). Result.Eps
// stays the user's; larger problems stop at eps exactly.
func smallEps(d *Dataset, p *Params, eps float64) float64 {
	t := p.Tuning
	if t == nil || t.SmallTighten <= 0 || t.SmallTighten >= 1 || d.NNZ() > t.SmallNNZ {
		return eps
	}
	return eps * t.SmallTighten
}
