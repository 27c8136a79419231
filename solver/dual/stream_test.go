package dual

import (
	"context"
	"fmt"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	solver "github.com/acfcd/acfcd/solver"
	"github.com/acfcd/acfcd/solver/finish"
	"github.com/acfcd/acfcd/solver/fit"
)

// streamSweeps returns ctx carrying the driver's default tuning with every
// acf and uniform sweep streamed in chunks of chunk steps, as above
// solver.Tuning.SweepStreamMin examples.
func streamSweeps(ctx context.Context, chunk int) context.Context {
	t := solver.DefaultTuning()
	t.SweepStreamMin, t.SweepChunk = 0, chunk
	return tune.With(ctx, &t)
}

// TestStreamedSweeps: with sweeps streamed in small chunks (the kdd-sized
// path), every classifier and selection still converges to the KKT
// tolerance, recomputed independently from α and w, with the dual
// objective of the whole-sweep run; the same seed gives the same model;
// and acf+shrink allocates neither the n-entry sweep buffer nor the active
// list.
func TestStreamedSweeps(t *testing.T) {
	if testing.Short() {
		t.Skip("long (seconds natively, minutes emulated); go test without -short runs it")
	}
	d := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 3000, Feats: 60, Density: 0.1, Labels: []float64{1, -1}, Noise: 0.1})
	const eps = 1e-3
	streamed := streamSweeps(context.Background(), 300) // 20 rounds per sweep
	for _, k := range classifierKinds {
		for _, sel := range []solver.Selection{solver.Uniform, solver.ACF, solver.ACFShrink} {
			if sel == solver.ACFShrink && k == LR {
				continue // runs as acf
			}
			s := Spec{Spec: fit.Spec{C: 0.5, Eps: eps, Select: sel, Seed: 3, NoFallback: true}, Kind: k}
			name := fmt.Sprintf("s=%s/select=%s", flag(k), sel)
			_, whole, _ := mustTrain(t, d, s)
			m, res, duals := mustTrainCtx(t, streamed, d, s)
			m2, _, _ := mustTrainCtx(t, streamed, d, s)
			if !res.Converged || !whole.Converged {
				t.Errorf("%s: converged streamed %v (%d epochs), whole-sweep %v (%d epochs)", name, res.Converged, res.Epochs, whole.Converged, whole.Epochs)
				continue
			}
			ind := evalIndependent(d, m, 0, duals[0], k)
			if ind.violation > eps*(1+1e-9) || ind.wDiff > 1e-9 {
				t.Errorf("%s: independent violation %g (eps %g), w mismatch %g", name, ind.violation, eps, ind.wDiff)
			}
			if rd := testkit.RelDiff(ind.dual, whole.Objective); rd > 1e-3 {
				t.Errorf("%s: streamed dual %.10g, whole-sweep dual %.10g (rel %g)", name, ind.dual, whole.Objective, rd)
			}
			if !testkit.SameBits(m.W, m2.W) {
				t.Errorf("%s: same seed, w %v then %v", name, m.W, m2.W)
			}
		}
	}

	// Memory: at n = 50000 the whole-sweep acf+shrink allocates a 2n-entry
	// sweep buffer and an n-entry active list (12n bytes); streamed, a
	// chunk of 1024 entries instead.
	big := synth.Classes(synth.ClassesConfig{Seed: 6, Rows: 50000, Feats: 20, Density: 0.2, Labels: []float64{1, -1}, Noise: 0.05})
	// Dual CD from the start, not primal Newton (20 features): the sweeps
	// are measured.
	dualFirst := finish.DefaultTuning()
	dualFirst.PrimalFirstStep = 0
	wholeCtx := tune.With(context.Background(), &dualFirst)
	s := Spec{Spec: fit.Spec{C: 1, Eps: 0.1, Select: solver.ACFShrink, Seed: 1, MaxEpochs: 2}, Kind: L2LossSVC}
	alloc := func(ctx context.Context) uint64 {
		return testkit.Allocated(func() {
			if _, _, err := train(ctx, big, s); err != nil {
				t.Fatal(err)
			}
		})
	}
	whole := alloc(wholeCtx)
	streamedBytes := alloc(streamSweeps(wholeCtx, 1024))
	if saved := int64(whole) - int64(streamedBytes); saved < 11*int64(big.Rows) {
		t.Errorf("streamed sweeps allocate %d bytes, whole sweeps %d: saved %d, want ≥ %d", streamedBytes, whole, saved, 11*big.Rows)
	}
}
