package cocoa

import (
	"math"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/solver"
)

// Why CoCoA+ needs many rounds when the examples share features (a bias,
// or kdd's frequent features): the error left after some rounds is one the
// blocks make in opposite directions. Block k's part of w,
// u_k = X_k(α_k − α*_k), is large on the shared features, and u_1 ≈ −u_2,
// so that w − w* = u_1 + u_2 is small. Moving along such a direction
// hardly changes the whole objective (only through ℓ* and the features
// not shared), but each block's local subproblem charges it
// (σ'/2)‖X_kΔ‖²: the rounds creep along it.
func TestBlockErrorsCancelOnSharedFeatures(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 200, Features: 300, MeanNNZ: 10, Informative: 20, Noise: 0.05, Seed: 11})
	labels, _ := Labels(nil, d.Label)
	spec := Spec{Problem: acfcd.SquaredHingeDual, C: 0.5, Bias: 1, K: 1, Features: d.Features, Labels: labels, Select: solver.Uniform}
	// α* from one block.
	one, err := NewBlock(spec, 0, d)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, spec.Dim())
	for range 200 {
		one.Round(w, int64(20*one.Len())).DW.AddTo(w)
	}
	if l, c := one.Gap(w); measure(w, [][2]float64{{l, c}}, nil).Gap > 1e-10 {
		t.Fatalf("one block: gap %g", measure(w, [][2]float64{{l, c}}, nil).Gap)
	}
	opt := one.Alpha()
	spec.K = 2
	parts := Partition(d, 2)
	var blocks []*Block
	w = make([]float64, spec.Dim())
	for k, part := range parts {
		b, _ := NewBlock(spec, k, part)
		blocks = append(blocks, b)
	}
	for range 30 {
		var ups []Update
		for _, b := range blocks {
			ups = append(ups, b.Round(w, int64(b.Len())))
		}
		for _, u := range ups {
			u.DW.AddTo(w)
		}
	}
	u := [2][]float64{}
	for k, part := range parts {
		u[k] = make([]float64, spec.Dim())
		for i, a := range blocks[k].Alpha() {
			e := a - opt[2*i+k]
			if part.Label[i] != labels[0] {
				e = -e
			}
			idx, val := part.Row(i)
			for n, j := range idx {
				u[k][j] += e * val[n]
			}
			u[k][spec.Features] += e * spec.Bias
		}
	}
	var n0, n1, dot, sum float64
	for j := range u[0] {
		n0 += u[0][j] * u[0][j]
		n1 += u[1][j] * u[1][j]
		dot += u[0][j] * u[1][j]
		sum += (u[0][j] + u[1][j]) * (u[0][j] + u[1][j])
	}
	cos, rel, bias := dot/math.Sqrt(n0*n1), math.Sqrt(sum/n0), u[0][spec.Features]*u[0][spec.Features]/n0
	if cos > -0.95 || rel > 0.2 || bias < 0.5 {
		t.Errorf("after 30 rounds: cos(u_1, u_2) = %.4f, ‖u_1 + u_2‖/‖u_1‖ = %.3f, the bias's share of ‖u_1‖² %.3f; want opposite errors on the shared feature", cos, rel, bias)
	}
	t.Logf("cos(u_1, u_2) = %.4f, ‖u_1 + u_2‖/‖u_1‖ = %.4f, the bias's share of ‖u_1‖² %.3f", cos, rel, bias)
}
