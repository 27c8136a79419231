package acfcd

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

// TestQiiRecomputed: above Tuning.XsqStoreMax examples Q_ii is recomputed
// at each step instead of stored; the two must give bit-identical models
// and runs, for every loss and selection, with and without a bias, and for
// float32 value storage.
func TestQiiRecomputed(t *testing.T) {
	d := genData(genSpec{seed: 5, rows: 300, feats: 40, density: 0.2, labels: []float64{1, -1, 2}, noise: 0.1, empty: 3})
	d32 := *d
	d32.Value32 = make([]float32, len(d.Value))
	for k, v := range d.Value {
		d32.Value32[k] = float32(v) + 0.1 // values not exactly representable products
	}
	d32.Value = nil
	stored, recomputed := DefaultTuning(), DefaultTuning()
	stored.XsqStoreMax, recomputed.XsqStoreMax = 1<<22, 0
	for _, data := range []*dataio.Dataset{d, &d32} {
		for _, s := range dualProblems {
			for _, sel := range dualSelections {
				for _, bias := range []float64{-1, 1} {
					p := Params{Problem: s, C: 10, Eps: 1e-3, Bias: bias, Select: sel, Seed: 7}
					name := fmt.Sprintf("s=%s/select=%s/bias=%g/float32=%v", s.Flag(), sel, bias, data.Value == nil)
					p.Tuning = &stored
					m1, r1, err := Train(context.Background(), data, p)
					if err != nil {
						t.Fatal(name, err)
					}
					p.Tuning = &recomputed
					m2, r2, err := Train(context.Background(), data, p)
					if err != nil {
						t.Fatal(name, err)
					}
					if r1.Iterations != r2.Iterations || r1.Objective != r2.Objective || r1.Violation != r2.Violation {
						t.Errorf("%s: stored Q_ii: %d steps, objective %v, violation %v; recomputed: %d, %v, %v",
							name, r1.Iterations, r1.Objective, r1.Violation, r2.Iterations, r2.Objective, r2.Violation)
					}
					for j := range m1.W {
						if math.Float64bits(m1.W[j]) != math.Float64bits(m2.W[j]) {
							t.Errorf("%s: w[%d] = %v stored, %v recomputed", name, j, m1.W[j], m2.W[j])
							break
						}
					}
				}
			}
		}
	}
}

// TestNormOverflow: an example whose squared norm overflows (a value of
// 1e200, whose square is +Inf) is an error naming its line, feature and
// value for every solver, cross-validation and the λ path, not a model
// silently wrong at that coordinate (the Weston–Watkins SVM used to run to
// its epoch cap and save one); so is a bias whose square overflows.
func TestNormOverflow(t *testing.T) {
	d := loadText(t, "big.svm", "1 1:1\n-1 2:1\n2 1:-1e200 2:-1 3:1\n", dataio.Options{})
	want := d.Source + ":3: feature 1 value -1e+200: the example's squared norm ‖x‖² overflows a float64; scale the features down"
	ctx := context.Background()
	for _, s := range []Problem{SquaredHingeDual, HingeDual, LogisticDual, WestonWatkins, Lasso} {
		p := Params{Problem: s, C: 1, Lambda: 1}
		if _, _, err := Train(ctx, d, p); err == nil || err.Error() != want {
			t.Errorf("-s %s: got %v, want %s", s.Flag(), err, want)
		}
		if s == Lasso {
			if _, err := TrainPath(ctx, d, p, 3, 0.1); err == nil || err.Error() != want {
				t.Errorf("-s %s path: got %v, want %s", s.Flag(), err, want)
			}
			continue
		}
		if _, err := CrossValidate(ctx, d, p, 2); err == nil || err.Error() != want {
			t.Errorf("-s %s -v 2: got %v, want %s", s.Flag(), err, want)
		}
		ok := loadText(t, "ok.svm", "1 1:1\n-1 2:1\n", dataio.Options{})
		p.Bias = 1e200
		if _, _, err := Train(ctx, ok, p); err == nil || err.Error() != "bias 1e+200: its square overflows a float64; use a smaller -B" {
			t.Errorf("-s %s -B 1e200: got %v", s.Flag(), err)
		}
	}
}

// streamSweeps is the default tuning with every acf and uniform sweep
// streamed in chunks of chunk steps, as above Tuning.SweepStreamMin
// examples.
func streamSweeps(chunk int) *Tuning {
	t := DefaultTuning()
	t.SweepStreamMin, t.SweepChunk = 0, chunk
	return &t
}

// TestStreamedSweeps: with sweeps streamed in small chunks (the kdd-sized
// path), every problem and selection still converges to the KKT
// tolerance, recomputed independently from α and w, with the dual
// objective of the whole-sweep run; the same seed gives the same model;
// and acf+shrink allocates neither the n-entry sweep buffer nor the active
// list.
func TestStreamedSweeps(t *testing.T) {
	if testing.Short() {
		t.Skip("long (seconds natively, minutes emulated); go test without -short runs it")
	}
	d := genData(genSpec{seed: 5, rows: 3000, feats: 60, density: 0.1, labels: []float64{1, -1}, noise: 0.1})
	const eps = 1e-3
	for _, s := range dualProblems {
		for _, sel := range []Selection{Uniform, ACF, ACFShrink} {
			if sel == ACFShrink && s == LogisticDual {
				continue // runs as acf
			}
			p := Params{Problem: s, C: 0.5, Eps: eps, Select: sel, Seed: 3, NoFallback: true}
			name := fmt.Sprintf("s=%s/select=%s", s.Flag(), sel)
			_, whole, _ := mustTrain(t, d, p)
			p.Tuning = streamSweeps(300) // 20 rounds per sweep
			m, res, duals := mustTrain(t, d, p)
			m2, _, _ := mustTrain(t, d, p)
			if !res.Converged || !whole.Converged {
				t.Errorf("%s: converged streamed %v (%d epochs), whole-sweep %v (%d epochs)", name, res.Converged, res.Epochs, whole.Converged, whole.Epochs)
				continue
			}
			ind := evalIndependent(d, m, 0, duals[0], s)
			if ind.violation > eps*(1+1e-9) || ind.wDiff > 1e-9 {
				t.Errorf("%s: independent violation %g (eps %g), w mismatch %g", name, ind.violation, eps, ind.wDiff)
			}
			if rd := testkit.RelDiff(ind.dual, whole.Objective); rd > 1e-3 {
				t.Errorf("%s: streamed dual %.10g, whole-sweep dual %.10g (rel %g)", name, ind.dual, whole.Objective, rd)
			}
			for j := range m.W {
				if math.Float64bits(m.W[j]) != math.Float64bits(m2.W[j]) {
					t.Errorf("%s: same seed, w[%d] = %v then %v", name, j, m.W[j], m2.W[j])
					break
				}
			}
		}
	}

	// Memory: at n = 50000 the whole-sweep acf+shrink allocates a 2n-entry
	// sweep buffer and an n-entry active list (12n bytes); streamed, a
	// chunk of 1024 entries instead.
	big := genData(genSpec{seed: 6, rows: 50000, feats: 20, density: 0.2, labels: []float64{1, -1}, noise: 0.05})
	// Dual CD from the start, not primal Newton (20 features): the sweeps
	// are measured.
	dualFirst := DefaultTuning()
	dualFirst.PrimalFirstStep = 0
	p := Params{Problem: SquaredHingeDual, C: 1, Eps: 0.1, Select: ACFShrink, Seed: 1, MaxEpochs: 2, Tuning: &dualFirst}
	train := func() {
		if _, _, err := Train(context.Background(), big, p); err != nil {
			t.Fatal(err)
		}
	}
	whole := testkit.Allocated(train)
	p.Tuning = streamSweeps(1024)
	p.Tuning.PrimalFirstStep = 0
	streamed := testkit.Allocated(train)
	if saved := int64(whole) - int64(streamed); saved < 11*int64(big.Rows) {
		t.Errorf("streamed sweeps allocate %d bytes, whole sweeps %d: saved %d, want ≥ %d", streamed, whole, saved, 11*big.Rows)
	}
}
