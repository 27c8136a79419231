package lasso

import (
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
)

// Near interpolation (a text-like set with ten times more features than
// rows, at 10⁻³·λ_max: the support nears the number of rows) the default
// stop ends within glmnet-default-like accuracy of a tight solve, and in
// fewer operations than the rule of F(w) alone with the working set
// solved to the end at every growth: the scaled residual's gap is then
// first-order in the largest violation, so it took 10⁴ times the
// accuracy asked (DefaultGapRel).
func TestLassoNearInterpolation(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 300, Features: 3000, MeanNNZ: 80, Informative: 60, Noise: 0.05, Seed: 3})
	lam := 1e-3 * lamMaxOf(t, d, true)
	_, tight := train(t, d, Spec{Lambda: lam, Intercept: true, GapTol: 1e-6})
	fStar := tight.Objective - tight.Gap
	_, def := train(t, d, Spec{Lambda: lam, Intercept: true})
	f0 := 0.0
	var ybar float64
	for _, y := range d.Label {
		ybar += y / float64(d.Rows)
	}
	for _, y := range d.Label {
		f0 += 0.5 * (y - ybar) * (y - ybar)
	}
	excess := (def.Objective - fStar) / fStar
	t.Logf("F(0) %.6g, F* %.10g (gap %.2g): default stop F %.10g, gap %.3g (%.2g·F), excess %.3g, %d operations, %d steps, support %d",
		f0, fStar, tight.Gap, def.Objective, def.Gap, def.Gap/def.Objective, excess, def.Operations, def.Iterations, def.NNZW)
	if !def.Converged || def.Gap > DefaultGap(def.Objective, f0) {
		t.Errorf("default stop: converged %v, gap %g above %g", def.Converged, def.Gap, DefaultGap(def.Objective, f0))
	}
	if excess > 1e-5 {
		t.Errorf("default stop: excess %.3g above 1e-5", excess)
	}
	if def.NNZW < d.Rows/2 {
		t.Errorf("support %d: not near interpolation (%d rows)", def.NNZW, d.Rows)
	}
	// The operations at the parent of this rule (cea693c: the gap at most
	// 1e-4·F, and W solved to it after every growth), at excess 1.9e-8.
	const before = 281009991
	if def.Operations > before/2 {
		t.Errorf("%d operations, before %d", def.Operations, before)
	}
}
