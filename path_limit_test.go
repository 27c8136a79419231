package acfcd

import (
	"context"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
)

// TestPathRefusesLength: a path far longer than glmnet's 100 λ is refused
// before its sequence and points are allocated (8 bytes and a point per
// λ: 88 GB for 10⁹ of them), by every entry point that generates one.
func TestPathRefusesLength(t *testing.T) {
	d := synth.SparseRegression(synth.SparseRegressionConfig{Seed: 24, Rows: 20, Feats: 10, Density: 0.5, K: 3, Noise: 0.1})
	ctx := context.Background()
	const huge = "n = 1125899906842624: a path takes at most 10000 λ (glmnet's default is 100): neighbouring λ of this one would differ by 8.18e-13% " +
		"and its points need 3.02e+08 GiB of memory; a few hundred cover the range of λ_min/λ_max"
	if _, err := TrainPath(ctx, d, Params{}, 1<<50, 0); err == nil || err.Error() != huge {
		t.Fatalf("TrainPath n = 2⁵⁰: %v\nwant %s", err, huge)
	}
	const want = "n = 1000000000: a path takes at most 10000 λ (glmnet's default is 100): neighbouring λ of this one would differ by 9.21e-07% " +
		"and its points need 268 GiB of memory; a few hundred cover the range of λ_min/λ_max"
	if _, err := TrainPath(ctx, d, Params{}, 1e9, 0); err == nil || err.Error() != want {
		t.Errorf("TrainPath: %v\nwant %s", err, want)
	}
	if _, err := LambdaSequence(d, Params{}, 1e9, 0); err == nil || err.Error() != want {
		t.Errorf("LambdaSequence: %v\nwant %s", err, want)
	}
	if _, err := CrossValidatePath(ctx, d, Params{}, CVPathOptions{Folds: 2, N: 1e9}); err == nil || err.Error() != want {
		t.Errorf("CrossValidatePath: %v\nwant %s", err, want)
	}
	if _, err := TrainPath(ctx, d, Params{}, 10000, 0); err != nil {
		t.Errorf("TrainPath n = 10000: %v", err)
	}
}
