package cocoa

import (
	"context"
	"math"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/solver"
)

// textbook is CoCoA+ as Ma et al. (2015) state it, written out plainly for
// the SVM duals (-s 1, -s 3) with a bias feature: example i in block
// i mod K, every round each block minimises its local subproblem
// wᵀX_kΔ + (K/2)‖X_kΔ‖² + Σ_{i∈k} ℓ*_i(α_i + Δ_i) by `sweeps` cyclic
// coordinate sweeps from the shared w, and the K updates are added. It
// returns the duality gap before every round (rounds+1 values).
func textbook(d *acfcd.Dataset, pos float64, loss acfcd.Problem, C, bias float64, K, rounds, sweeps int) []float64 {
	n := d.Rows
	y := make([]float64, n)
	xsq := make([]float64, n)
	for i := range n {
		y[i] = -1
		if d.Label[i] == pos {
			y[i] = 1
		}
		_, val := d.Row(i)
		xsq[i] = bias * bias
		for _, v := range val {
			xsq[i] += v * v
		}
	}
	D, U := 0.5/C, math.Inf(1)
	if loss == acfcd.HingeDual {
		D, U = 0, C
	}
	nf := d.Features
	dot := func(i int, v []float64) float64 {
		idx, val := d.Row(i)
		s := bias * v[nf]
		for k, j := range idx {
			s += val[k] * v[j]
		}
		return s
	}
	axpy := func(c float64, i int, v []float64) {
		idx, val := d.Row(i)
		for k, j := range idx {
			v[j] += c * val[k]
		}
		v[nf] += c * bias
	}
	alpha := make([]float64, n)
	w := make([]float64, nf+1)
	var gaps []float64
	for r := 0; r <= rounds; r++ {
		var ww, P, f float64
		for _, v := range w {
			ww += v * v
		}
		for i := range n {
			h := max(0, 1-y[i]*dot(i, w))
			if loss == acfcd.HingeDual {
				P += C * h
			} else {
				P += C * h * h
			}
			f += 0.5*D*alpha[i]*alpha[i] - alpha[i]
		}
		gaps = append(gaps, ww+P+f)
		next := append([]float64(nil), alpha...)
		dw := make([]float64, nf+1)
		for k := range K {
			v := append([]float64(nil), w...) // w + K·X_kΔ
			for range sweeps {
				for i := k; i < n; i += K {
					G := y[i]*dot(i, v) - 1 + D*next[i]
					a := min(max(next[i]-G/(float64(K)*xsq[i]+D), 0), U)
					axpy(float64(K)*(a-next[i])*y[i], i, v)
					next[i] = a
				}
			}
			for i := k; i < n; i += K {
				axpy((next[i]-alpha[i])*y[i], i, dw)
			}
		}
		alpha = next
		for j := range w {
			w[j] += dw[j]
		}
	}
	return gaps
}

// With local subproblems solved to high accuracy, Simulate's duality gap
// follows textbook CoCoA+'s round by round: the rounds it needs are
// CoCoA+'s own, not a defect of the blocks' bookkeeping. (On data whose
// examples share a feature, such as a bias, these are many more than for
// one block: the blocks' errors on the shared features cancel in w, and
// each round's local subproblem, K times stiffer there than the whole
// problem, moves them slowly.)
func TestSimulateFollowsTextbookCoCoA(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 200, Features: 300, MeanNNZ: 10, Informative: 20, Noise: 0.05, Seed: 11})
	labels, _ := Labels(nil, d.Label)
	const rounds = 30
	for _, p := range []acfcd.Problem{acfcd.SquaredHingeDual, acfcd.HingeDual} {
		for _, k := range []int{2, 4} {
			want := textbook(d, labels[0], p, 0.5, 1, k, rounds, 300)
			spec := Spec{Problem: p, C: 0.5, Bias: 1, K: k, Features: d.Features, Labels: labels, Select: solver.Uniform}
			res, err := Simulate(context.Background(), d, spec, Options{Epochs: 300, Gap: 1e-300, MaxRounds: rounds})
			if err != nil {
				t.Fatal(err)
			}
			for r, g := range want {
				// The local subproblems, as stiff as the whole problem
				// is soft, are solved to about 1% by either solver.
				if got := res.Rounds[r].Gap; math.Abs(got-g) > 0.02*g {
					t.Fatalf("%v K=%d round %d: gap %.6g, textbook CoCoA+ %.6g", p, k, r, got, g)
				}
			}
			// Many more rounds than one block needs (the rounds are
			// CoCoA+'s): the gap is still above 1e-3·P after 30 rounds.
			if last := res.Rounds[rounds]; last.Gap < 1e-3*last.Primal {
				t.Errorf("%v K=%d: gap %.3g after %d rounds, expected CoCoA+'s slow rounds on shared features", p, k, last.Gap, rounds)
			}
		}
	}
}
