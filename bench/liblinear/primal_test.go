package main

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	dataio "github.com/acfcd/acfcd/io"
)

// A two-row problem small enough to evaluate by hand.
func tinyData(t *testing.T) *dataio.Dataset {
	t.Helper()
	d, err := dataio.Read(strings.NewReader("+1 1:1 2:2\n-1 2:1\n"), "tiny", dataio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestEvalPrimal(t *testing.T) {
	d := tinyData(t)
	// w = (0.5, 0.25), bias weight 0.1 with bias 1; labels +1 first.
	m := &acfcd.Model{SolverType: "L2R_L2LOSS_SVC_DUAL", Labels: []float64{1, -1}, NumFeature: 2,
		Bias: 1, NrW: 1, W: []float64{0.5, 0.25, 0.1}}
	// Decision values: row 0: 0.5 + 0.5 + 0.1 = 1.1 (y=+1, z=1.1);
	// row 1: 0.25 + 0.1 = 0.35 (y=−1, z=−0.35).
	reg := 0.5 * (0.25 + 0.0625 + 0.01)
	C := 2.0
	cases := []struct {
		s    int
		loss float64
	}{
		{1, 0 + 1.35*1.35},
		{3, 0 + 1.35},
		{7, math.Log1p(math.Exp(-1.1)) + math.Log1p(math.Exp(0.35))},
	}
	for _, c := range cases {
		ev, err := evalPrimal(m, d, c.s, C)
		if err != nil {
			t.Fatal(err)
		}
		want := reg + C*c.loss
		if math.Abs(ev.Primal-want) > 1e-12 {
			t.Errorf("-s %d: primal %.15g, want %.15g", c.s, ev.Primal, want)
		}
	}
	// -s 1 gradient: α_1 = 2C·1.35 for row 1 (y=−1, x̃ = (0, 1, 1));
	// ∇P = w − Σ α y x̃ = (0.5, 0.25 + 5.4, 0.1 + 5.4); the largest is 5.65.
	ev, _ := evalPrimal(m, d, 1, C)
	if want := 0.25 + 2*C*1.35; math.Abs(ev.GradInf-want) > 1e-12 {
		t.Errorf("-s 1 ‖∇P‖∞ = %g, want %g", ev.GradInf, want)
	}
	if ev, _ := evalPrimal(m, d, 3, C); !math.IsNaN(ev.GradInf) {
		t.Errorf("-s 3 ‖∇P‖∞ = %g, want NaN", ev.GradInf)
	}
}

// At the optimum of a trained model the primal gradient vanishes and the
// duality gap is small: the harness and acfcd must agree.
func TestEvalPrimalMatchesSolver(t *testing.T) {
	d := tinyData(t)
	for _, s := range []int{1, 3, 7} {
		m, res, err := acfcd.Train(t.Context(), d, acfcd.Params{Problem: mustProblem(t, s), C: 1, Eps: 1e-10})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := evalPrimal(m, d, s, 1)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ev.Primal-res.Primal) > 1e-9*math.Max(1, res.Primal) {
			t.Errorf("-s %d: harness primal %.15g, Result.Primal %.15g", s, ev.Primal, res.Primal)
		}
		if s != 3 && ev.GradInf > 1e-6 {
			t.Errorf("-s %d: ‖∇P‖∞ = %g at the optimum", s, ev.GradInf)
		}
	}
}

func mustProblem(t *testing.T, s int) acfcd.Problem {
	t.Helper()
	p, err := acfcd.ParseProblem(strconv.Itoa(s))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
