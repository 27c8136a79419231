package l1

import (
	"context"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/tune"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestSmallTighten: on a set of at most fit.Tuning.SmallNNZ non-zeros -s 5
// and 6 stop at eps·SmallTighten while Result.Eps stays the user's: the
// violation reported against liblinear's relative rule is within the
// tightened target, where the same runs with the rule off end above it
// (so the data exercises the rule). solver/dual's TestSmallTighten is the
// same for the duals.
func TestSmallTighten(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 3})
	def := fit.DefaultTuning()
	if d.NNZ() > def.SmallNNZ {
		t.Fatalf("%d non-zeros: not small", d.NNZ())
	}
	f := def.SmallTighten
	off := fit.DefaultTuning()
	off.SmallTighten = 0
	// The rule is coordinate descent's: dense Newton (newton.go) off.
	cd := DefaultTuning()
	cd.L1DenseEpochs = 0
	onCtx := tune.With(context.Background(), &cd)
	offCtx := tune.With(onCtx, &off)
	for _, logistic := range problems {
		// The violation of the run at seed.
		viol := func(ctx context.Context, seed uint64) float64 {
			s := params{logistic: logistic}.spec()
			s.Seed = seed
			_, res, err := Train(ctx, d, s)
			if err != nil {
				t.Fatal(err)
			}
			if res.Eps != DefaultEps || !res.Converged {
				t.Errorf("-s %s seed %d: eps %g, converged %v", flag(logistic), seed, res.Eps, res.Converged)
			}
			return res.Violation
		}
		var worstOff float64
		for seed := uint64(1); seed <= 3; seed++ {
			if v := viol(onCtx, seed); v > f*DefaultEps*(1+1e-9) {
				t.Errorf("-s %s seed %d: violation %.3g above the tightened %.3g", flag(logistic), seed, v, f*DefaultEps)
			}
			worstOff = max(worstOff, viol(offCtx, seed)/DefaultEps)
		}
		if worstOff <= f {
			t.Errorf("-s %s: with the rule off the largest violation is %.3g·eps: the data no longer exercises the rule", flag(logistic), worstOff)
		}
	}
}
