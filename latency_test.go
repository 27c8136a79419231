package acfcd

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acfcd/acfcd/internal/rows"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/tune"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/primal"
)

// TestCancelLatency: Train returns within a second of the cancellation
// in every phase of -s 1, 3 and 7 at d = 4094 (d + 1 just below
// primal.Tuning.NewtonDenseMax, rows of about 1000 non-zeros, long enough
// that primal.Dense takes exact Newton steps): dual CD, the dense Newton method (whose
// Hessian formation and Cholesky factorisation take seconds there), the
// interior-point method and Newton-CG. The cancellation comes a fixed
// delay after the phase's first trace line, early (in the first
// formation) and late (in the factorisation).
func TestCancelLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("a dense problem of 4094 features (seconds)")
	}
	r := rand.New(rand.NewPCG(41, 42))
	d := synth.Linear(r, 1500, 4094, 0.2, func(_, _ int) (float64, bool) {
		if r.Float64() >= 0.25 {
			return 0, false
		}
		return 2*r.Float64() - 1, true
	})
	if pt := primal.DefaultTuning(); !primal.Dense(rows.New(d, -1), &pt) {
		t.Fatal("the problem is not one for exact Newton steps")
	}
	bg := context.Background()
	switchNow := finish.DefaultTuning()
	switchNow.SwitchOps = 1
	first := finish.DefaultTuning()
	first.PrimalFirstStep, first.PrimalFirstKappa = math.Inf(1), 0
	cg := primal.DefaultTuning()
	cg.NewtonDenseMax = 1000
	dense := primal.DefaultTuning()
	dense.DenseOpCost = 0 // -s 2's dense steps from the start
	for _, tc := range []struct {
		name, phase string
		ctx         context.Context
		p           Params
	}{
		{"dual", "batch:", bg, Params{Problem: SquaredHingeDual, C: 1000, Eps: 1e-15, MaxEpochs: 1 << 20, NoFallback: true}},
		{"dense Newton", "newton: dense", tune.With(bg, &first), Params{Problem: SquaredHingeDual, C: 1000, Eps: 1e-9}},
		{"dense Newton after a switch", "newton: dense", tune.With(bg, &switchNow), Params{Problem: LogisticDual, C: 1000, Eps: 1e-9}},
		{"interior point", "ipm start", tune.With(bg, &switchNow), Params{Problem: HingeDual, C: 1000, Eps: 1e-9}},
		{"Newton-CG", "tron ", tune.With(tune.With(bg, &switchNow), &cg), Params{Problem: SquaredHingeDual, C: 1000, Eps: 1e-9}},
		// -R: with fewer examples than weights -s 2 would go through the
		// dual (which has no free bias weight) instead of Newton.
		{"-s 2", "newton: dense", tune.With(bg, &dense), Params{Problem: SquaredHingePrimal, C: 1000, Eps: 1e-12, Bias: 1, UnregularizedBias: true}},
	} {
		for _, delay := range []time.Duration{30 * time.Millisecond, 700 * time.Millisecond} {
			// A missing poll is a fixed amount of work and shows on every
			// try; a second try tells it from a process starved of CPU on
			// a loaded machine.
			for try := 1; ; try++ {
				lat, ok := cancelAfter(t, tc.ctx, d, tc.name, tc.phase, tc.p, delay)
				if !ok {
					break
				}
				t.Logf("%-28s cancelled %v into the phase: returned after %v", tc.name, delay, lat.Round(time.Millisecond))
				if lat <= time.Second {
					break
				}
				if try == 2 {
					t.Errorf("%s: returned %v after the cancellation %v into the phase (twice)", tc.name, lat, delay)
					break
				}
			}
		}

	}
}

// cancelAfter trains with p under ctx, cancels delay after the first trace line
// starting with phase, and returns the time from the cancellation to
// Train's return; ok is false when there is nothing to measure.
func cancelAfter(t *testing.T, ctx context.Context, d *Dataset, name, phase string, p Params, delay time.Duration) (lat time.Duration, ok bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	var at time.Time
	var mu sync.Mutex
	p.trace = func(format string, _ ...any) {
		if strings.HasPrefix(format, phase) {
			once.Do(func() {
				time.AfterFunc(delay, func() {
					mu.Lock()
					at = time.Now()
					mu.Unlock()
					cancel()
				})
			})
		}
	}
	_, res, err := Train(ctx, d, p)
	end := time.Now()
	mu.Lock()
	cancelledAt := at
	mu.Unlock()
	if cancelledAt.IsZero() {
		// A fast machine may finish a phase before the late
		// cancellation; the early one must land.
		if delay == 30*time.Millisecond {
			t.Errorf("%s: finished (%v) before the cancellation %v into the phase: %+v", name, err, delay, res)
		} else {
			t.Logf("%-28s finished %v into the phase, before the cancellation", name, res.Seconds)
		}
		return 0, false
	}
	if !errors.Is(err, context.Canceled) || !res.Cancelled {
		t.Errorf("%s: error %v, cancelled %v", name, err, res.Cancelled)
		return 0, false
	}
	return end.Sub(cancelledAt), true
}
