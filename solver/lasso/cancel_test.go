package lasso

import (
	"context"
	"testing"
	"time"

	"github.com/acfcd/acfcd/internal/tune"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/fit"
)

// TestTrainStopsSoonAfterCancel: near interpolation (λ = 10⁻³·λ_max on
// dense wide data) the support Newton step and the working set's
// measures run between two epochs; a cancellation at the epoch before
// the longest of them ends Train within the bound, as a cancelled fit.
// The fit is deterministic, so a first fit finds that epoch.
func TestTrainStopsSoonAfterCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("two fits near interpolation")
	}
	d := regression(41, 300, 1200, 150, 1, 0.5, 0, 0)
	lam := 1e-3 * lamMaxOf(t, d, false)
	// A larger share for the Newton step makes its run between two epochs
	// long enough to measure.
	lt := DefaultTuning()
	lt.LassoNewton = 100
	ctx := tune.With(context.Background(), &lt)
	s := Spec{Lambda: lam, Spec: fit.Spec{Select: solver.Cyclic}}
	// The first fit ends at the first wait of a second, or runs to its end.
	fctx, stop := context.WithCancel(ctx)
	defer stop()
	var last time.Time
	epochs, worst, gap := 0, 0, time.Duration(0)
	s.Progress = func(fit.Progress) {
		now := time.Now()
		if epochs > 0 && now.Sub(last) > gap {
			worst, gap = epochs, now.Sub(last)
			if gap > time.Second {
				stop()
			}
		}
		epochs++
		last = now
	}
	start := time.Now()
	mustTrain(t, fctx, d, s)
	t.Logf("first fit: %.2f s, %d epochs, the longest wait %.3f s after epoch %d", time.Since(start).Seconds(), epochs, gap.Seconds(), worst)

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var at time.Time
	n := 0
	s.Progress = func(fit.Progress) {
		if n++; n == worst {
			at = time.Now()
			cancel()
		}
	}
	_, res := mustTrain(t, cctx, d, s)
	took := time.Since(at)
	t.Logf("returned %.3f s after the cancellation", took.Seconds())
	if at.IsZero() || !res.Cancelled || took > 2*time.Second {
		t.Errorf("returned %.3f s after the cancellation, Cancelled %v; want within 2 s, cancelled", took.Seconds(), res.Cancelled)
	}
}
