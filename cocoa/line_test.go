package cocoa

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
)

// dualObjective recomputes f(α) = ½‖Σ α_i y_i x_i‖² + Σ ℓ*(α_i) from the
// blocks' α and the data alone (-s 1 and 3).
func dualObjective(d *acfcd.Dataset, spec Spec, parts []*acfcd.Dataset, blocks []*Block) (f float64, w []float64) {
	w = make([]float64, spec.Dim())
	for k, part := range parts {
		for i, a := range blocks[k].Alpha() {
			y := -1.0
			if part.Label[i] == spec.Labels[0] {
				y = 1
			}
			idx, val := part.Row(i)
			for n, j := range idx {
				w[j] += a * y * val[n]
			}
			f -= a
			if spec.Problem == acfcd.SquaredHingeDual {
				f += a * a / (4 * spec.C)
			}
		}
	}
	for _, v := range w {
		f += v * v / 2
	}
	return f, w
}

// searchGamma is the line search's γ for the blocks' last round.
func searchGamma(w []float64, blocks []*Block, ups []Update) float64 {
	var dws []Sparse
	lin, quad, top := 0.0, 0.0, math.Inf(1)
	for k, b := range blocks {
		dws = append(dws, ups[k].DW)
		l, q, t, _ := b.Line()
		lin, quad, top = lin+l, quad+q, min(top, t)
	}
	return LineGamma(w, make([]float64, len(w)), dws, lin, quad, top, 1)
}

// TestLineSearch: one round from the same point, added with γ = 1 and
// with the line search. The searched step lowers the dual (recomputed
// from α and the data) at least as much as γ = 1, keeps every α in its
// box, and the driver's w + γΣΔw is Σ α_i y_i x_i of the scaled α. At
// σ' = 1 the plain sum can overshoot; the search still descends.
func TestLineSearch(t *testing.T) {
	d := testData()
	labels, _ := Labels(nil, d.Label)
	for _, p := range []acfcd.Problem{acfcd.SquaredHingeDual, acfcd.HingeDual} {
		for _, sigma := range []float64{0, 1} {
			spec := Spec{Problem: p, C: 1, K: 4, Sigma: sigma, Features: d.Features, Labels: labels}
			parts := Partition(d, spec.K)
			round := func(search bool) (f, gamma float64) {
				w := make([]float64, spec.Dim())
				var blocks []*Block
				for k, part := range parts {
					b, err := NewBlock(spec, k, part)
					if err != nil {
						t.Fatal(err)
					}
					blocks = append(blocks, b)
				}
				var ups []Update
				for r := range 3 { // two plain rounds to a point off the start, then the one compared
					ups = ups[:0]
					for _, b := range blocks {
						ups = append(ups, b.Round(w, 200))
					}
					gamma = 1
					if search && r == 2 {
						gamma = searchGamma(w, blocks, ups)
						for _, b := range blocks {
							b.Scale(gamma)
						}
					}
					for _, u := range ups {
						for n, j := range u.DW.Index {
							w[j] += gamma * u.DW.Value[n]
						}
					}
				}
				f, want := dualObjective(d, spec, parts, blocks)
				for j := range w {
					if math.Abs(w[j]-want[j]) > 1e-9*(1+math.Abs(want[j])) {
						t.Fatalf("-s %s σ'=%g: w[%d] = %g, Σ α y x = %g", p.Flag(), sigma, j, w[j], want[j])
					}
				}
				for _, b := range blocks {
					for i, a := range b.Alpha() {
						if a < 0 || p == acfcd.HingeDual && a > spec.C {
							t.Fatalf("-s %s σ'=%g: α_%d = %g outside its box", p.Flag(), sigma, i, a)
						}
					}
				}
				return f, gamma
			}
			plain, _ := round(false)
			searched, gamma := round(true)
			if !(searched <= plain+1e-9*math.Abs(plain)) {
				t.Errorf("-s %s σ'=%g: dual %.10g with the line search (γ = %g), %.10g with γ = 1", p.Flag(), sigma, searched, gamma, plain)
			}
			t.Logf("-s %s σ'=%g: γ = %.4g, dual %.10g against %.10g", p.Flag(), sigma, gamma, searched, plain)
		}
	}
}

// TestSimulateLineSearch: with the line search (σ' = K and σ' = 1) the
// run reaches the single machine's optimum; logistic regression and a σ'
// below K without the search are refused.
func TestSimulateLineSearch(t *testing.T) {
	d := testData()
	labels, _ := Labels(nil, d.Label)
	want := single(t, d, acfcd.SquaredHingeDual)
	for _, sigma := range []float64{0, 1} {
		spec := Spec{Problem: acfcd.SquaredHingeDual, C: 0.1, K: 4, Sigma: sigma, Features: d.Features, Labels: labels}
		res, err := Simulate(context.Background(), d, spec, Options{Gap: 1e-4, MaxRounds: 400, LineSearch: true})
		if err != nil {
			t.Fatal(err)
		}
		last := res.Rounds[len(res.Rounds)-1]
		if got := primal(t, d, spec, res.W); !res.Converged || math.Abs(got-want) > 2e-4 {
			t.Errorf("σ'=%g: converged %v, primal %.9g, single machine %.9g", sigma, res.Converged, got, want)
		}
		t.Logf("σ'=%g: %d rounds, last γ %.4g", sigma, last.Round, last.Gamma)
	}
	spec := Spec{Problem: acfcd.LogisticDual, C: 0.1, K: 4, Features: d.Features, Labels: labels}
	if _, err := Simulate(context.Background(), d, spec, Options{LineSearch: true}); err == nil || !strings.Contains(err.Error(), "quadratic") {
		t.Errorf("-s 7 with the line search: %v", err)
	}
	spec = Spec{Problem: acfcd.SquaredHingeDual, C: 0.1, K: 4, Sigma: 2, Features: d.Features, Labels: labels}
	if _, err := Simulate(context.Background(), d, spec, Options{}); err == nil || !strings.Contains(err.Error(), "line search") {
		t.Errorf("σ' = 2 < K without the line search: %v", err)
	}
}

// TestCatalyst: with Catalyst (Spec.Kappa, Options.OuterRounds) the run
// reaches the single machine's optimum for the three losses, the primal
// recomputed from the model equals the reported one, and every reported
// gap is non-negative (P(w) and f(α) of the original problem).
func TestCatalyst(t *testing.T) {
	d := testData()
	labels, _ := Labels(nil, d.Label)
	for _, c := range []struct {
		p    acfcd.Problem
		step Step
	}{{acfcd.SquaredHingeDual, Line1}, {acfcd.HingeDual, Line1}, {acfcd.LogisticDual, Add}} {
		want := single(t, d, c.p)
		kap := DefaultKappa(c.p, 0.1, MeanSq(d, 0), 4)
		spec := Spec{Problem: c.p, C: 0.1, K: 4, Sigma: c.step.Sigma(), Kappa: kap, Features: d.Features, Labels: labels}
		res, err := Simulate(context.Background(), d, spec, Options{Gap: 1e-4, MaxRounds: 600, LineSearch: c.step.LineSearch(), OuterRounds: DefaultOuterRounds,
			Progress: func(r Round) {
				if !(r.Gap >= -1e-9*math.Abs(r.Primal)) {
					t.Errorf("-s %s round %d: gap %g", c.p.Flag(), r.Round, r.Gap)
				}
			}})
		if err != nil {
			t.Fatal(err)
		}
		last := res.Rounds[len(res.Rounds)-1]
		got := primal(t, d, spec, res.W)
		if !res.Converged || math.Abs(got-want) > 2e-4 || math.Abs(got-last.Primal) > 1e-9*math.Abs(got) {
			t.Errorf("-s %s κ=%.3g: converged %v, primal %.9g (reported %.9g), single machine %.9g", c.p.Flag(), kap, res.Converged, got, last.Primal, want)
		}
		t.Logf("-s %s κ=%.3g: %d rounds", c.p.Flag(), kap, last.Round)
	}
	if k := DefaultKappa(acfcd.SquaredHingeDual, 1, 5, 1); k != 0 {
		t.Errorf("one block: κ = %g, want 0", k)
	}
	if k := DefaultKappa(acfcd.LogisticDual, 2, 3, 4); k != 1.5 {
		t.Errorf("-s 7, C = 2, mean ‖x‖² = 3: κ = %g, want C/4·3 = 1.5", k)
	}
}

// TestCatalystRestart: every Rounds rounds the centre moves to
// w + β(w − w_prev), and to w itself (a restart) when the primal rose
// since the last step; w becomes κz/(1+κ) + v/(1+κ).
func TestCatalystRestart(t *testing.T) {
	w := []float64{2, 4}
	c := NewCatalyst(3, 2, w) // v = (2, 4), w = v/4
	if w[0] != 0.5 || w[1] != 1 {
		t.Fatalf("start: w = %v, want (0.5, 1)", w)
	}
	beta := (1 - 0.5) / (1 + 0.5)
	if c.EndRound(0, w, 10) {
		t.Fatal("round 0 of 2: no step, no restart")
	}
	c.Add(1, Sparse{Index: []int32{0}, Value: []float64{4}}) // v = (6, 4)
	w[0] += 1                                                // w = (1.5, 1): Scale·Δv
	if c.EndRound(1, w, 10) {
		t.Fatal("the first step restarted")
	}
	// z = w + β(w − w_prev) with w_prev = (2, 4), the start; w = 3z/4 + v/4.
	want := []float64{0.75*(1.5+beta*(1.5-2)) + 1.5, 0.75*(1+beta*(1-4)) + 1}
	for j := range w {
		if math.Abs(w[j]-want[j]) > 1e-15 {
			t.Fatalf("after the first step: w = %v, want %v", w, want)
		}
	}
	c.EndRound(2, w, 11)
	prev := slices.Clone(w)
	if !c.EndRound(3, w, 12) { // the primal rose: 10 → 12
		t.Fatal("a risen primal did not restart")
	}
	for j := range w {
		if want := 0.75*prev[j] + 0.25*c.v[j]; math.Abs(w[j]-want) > 1e-15 {
			t.Fatalf("restart: w = %v, want 3w/4 + v/4 = %g at %d", w, want, j)
		}
	}
}
