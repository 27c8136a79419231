package cocoa

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/solver"
)

func testData() *acfcd.Dataset {
	return synth.Text(synth.TextConfig{Rows: 1500, Features: 800, MeanNNZ: 15, Informative: 40, Noise: 0.05, Seed: 3})
}

// single trains d on one machine to a tight tolerance and returns its
// primal objective.
func single(t *testing.T, d *acfcd.Dataset, p acfcd.Problem) float64 {
	t.Helper()
	_, res, err := acfcd.Train(context.Background(), d, acfcd.Params{Problem: p, C: 0.1, Eps: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	return res.Primal
}

// primal recomputes P(w) = ½‖w‖² + C Σ loss_i from the model alone.
func primal(t *testing.T, d *acfcd.Dataset, spec Spec, w []float64) float64 {
	m := spec.Model(w)
	var ww float64
	for _, v := range m.W {
		ww += v * v
	}
	var loss float64
	out := make([]float64, 1)
	for i := range d.Rows {
		idx, val := d.Row(i)
		m.Decision(idx, val, out)
		y := -1.0
		if d.Label[i] == m.Labels[0] {
			y = 1
		}
		mg := y * out[0]
		switch spec.Problem {
		case acfcd.SquaredHingeDual:
			if h := 1 - mg; h > 0 {
				loss += spec.C * h * h
			}
		case acfcd.HingeDual:
			loss += spec.C * max(0, 1-mg)
		case acfcd.LogisticDual:
			loss += spec.C * math.Log1p(math.Exp(-mg))
		}
	}
	return ww/2 + loss
}

func TestSimulateReachesOptimum(t *testing.T) {
	d := testData()
	labels, err := Labels(nil, d.Label)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []acfcd.Problem{acfcd.SquaredHingeDual, acfcd.HingeDual, acfcd.LogisticDual} {
		for _, k := range []int{1, 4} {
			for _, sel := range []acfcd.Selection{solver.ACF, solver.Uniform} {
				spec := Spec{Problem: p, C: 0.1, K: k, Features: d.Features, Labels: labels, Select: sel}
				res, err := Simulate(context.Background(), d, spec, Options{Gap: 1e-4, MaxRounds: 400})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Converged {
					t.Fatalf("%v K=%d %v: gap %g after %d rounds", p, k, sel, res.Rounds[len(res.Rounds)-1].Gap, len(res.Rounds))
				}
				last := res.Rounds[len(res.Rounds)-1]
				got := primal(t, d, spec, res.W)
				want := single(t, d, p)
				// The gap bounds the distance to the optimum; the
				// single-machine run is within its own tiny gap of it.
				if math.Abs(got-want) > 2e-4 || math.Abs(got-last.Primal) > 1e-9*math.Abs(got) {
					t.Errorf("%v K=%d %v: primal %.9g (reported %.9g), single machine %.9g", p, k, sel, got, last.Primal, want)
				}
				t.Logf("%v K=%d %v: %d rounds, %d steps, gap %.3g", p, k, sel, last.Round, last.Steps, last.Gap)
			}
		}
	}
}

// After rounds, the shared w is Σ α_i y_i x_i over all blocks' α,
// recomputed here from the data, and every round took exactly its budget.
func TestRoundsKeepWConsistent(t *testing.T) {
	d := testData()
	labels, _ := Labels(nil, d.Label)
	for _, p := range []acfcd.Problem{acfcd.SquaredHingeDual, acfcd.LogisticDual} {
		spec := Spec{Problem: p, C: 1, K: 3, Features: d.Features, Labels: labels, Bias: 1}
		parts := Partition(d, spec.K)
		w := make([]float64, spec.Dim())
		var blocks []*Block
		for k, part := range parts {
			b, err := NewBlock(spec, k, part)
			if err != nil {
				t.Fatal(err)
			}
			b.Start().AddTo(w)
			blocks = append(blocks, b)
		}
		for range 5 {
			var ups []Update
			for _, b := range blocks {
				u := b.Round(w, 123)
				if u.Steps != 123 {
					t.Fatalf("%v: a round of 123 steps took %d", p, u.Steps)
				}
				ups = append(ups, u)
			}
			for _, u := range ups {
				u.DW.AddTo(w)
			}
		}
		want := make([]float64, spec.Dim())
		for k, part := range parts {
			for i, a := range blocks[k].Alpha() {
				y := -1.0
				if part.Label[i] == labels[0] {
					y = 1
				}
				idx, val := part.Row(i)
				for n, j := range idx {
					want[j] += a * y * val[n]
				}
				want[spec.Features] += a * y * spec.Bias
			}
		}
		for j := range w {
			if math.Abs(w[j]-want[j]) > 1e-9*(1+math.Abs(want[j])) {
				t.Fatalf("%v: w[%d] = %g, Σ α y x = %g", p, j, w[j], want[j])
			}
		}
	}
}

func TestSpecErrors(t *testing.T) {
	d := testData()
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Problem: acfcd.LogisticPrimal, C: 1, K: 2, Features: d.Features, Labels: []float64{1, -1}}, "not a dual problem"},
		{Spec{Problem: acfcd.HingeDual, C: 0, K: 2, Features: d.Features, Labels: []float64{1, -1}}, "C = 0"},
		{Spec{Problem: acfcd.HingeDual, C: 1, K: 2, Features: d.Features, Labels: []float64{1, 2}}, "label -1 is neither"},
		{Spec{Problem: acfcd.HingeDual, C: 1, K: 2, Features: 3, Labels: []float64{1, -1}}, "more than the 3"},
	} {
		_, err := NewBlock(c.spec, 0, d)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.spec, err, c.want)
		}
	}
	if _, err := Labels(nil, []float64{1, 2, 3}); err == nil || !strings.Contains(err.Error(), "row 3: a third class") {
		t.Errorf("three labels: %v", err)
	}
	if l, _ := Labels([]float64{-1}, []float64{1, -1}); l[0] != 1 {
		t.Errorf("-1 then +1: %v, want +1 first as liblinear", l)
	}
}

// A block rebuilt from the same examples and restored from a state has
// that state: α, the preferences, r̄, the credits and the counters.
func TestStateRoundTrip(t *testing.T) {
	d := testData()
	labels, _ := Labels(nil, d.Label)
	for _, p := range []acfcd.Problem{acfcd.HingeDual, acfcd.LogisticDual} {
		spec := Spec{Problem: p, C: 1, K: 2, Features: d.Features, Labels: labels}
		part := Partition(d, 2)[1]
		b, _ := NewBlock(spec, 1, part)
		w := make([]float64, spec.Dim())
		b.Start().AddTo(w)
		for range 3 {
			b.Round(w, 500).DW.AddTo(w)
		}
		st := b.State()
		if st.Pref == nil || st.Credit == nil || !st.Warm || st.Rounds != 3 || st.Steps != 1500 {
			t.Fatalf("%v: state %v prefs, %v credits, warm %v, %d rounds, %d steps", p, st.Pref != nil, st.Credit != nil, st.Warm, st.Rounds, st.Steps)
		}
		b2, _ := NewBlock(spec, 1, part)
		if err := b2.Restore(st); err != nil {
			t.Fatal(err)
		}
		if got := b2.State(); fmt.Sprint(got) != fmt.Sprint(st) {
			t.Errorf("%v: restored state differs", p)
		}
		st.Alpha = st.Alpha[1:]
		if err := b2.Restore(st); err == nil || !strings.Contains(err.Error(), "a state of") {
			t.Errorf("%v: a state of the wrong length: %v", p, err)
		}
	}
}
