package main

import (
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
)

// TestFinisherLine: a block says how Newton came in: chosen up front on
// few features, or finishing the dual (Newton steps, or -s 3's
// interior-point iterations), in words that do not alarm; nothing
// without finisher steps.
func TestFinisherLine(t *testing.T) {
	for _, tc := range []struct {
		p     acfcd.Problem
		steps int
		first bool
		want  string
	}{
		{acfcd.SquaredHingeDual, 4, true, "few features: 4 primal Newton steps chosen up front, then the full dual KKT check\n"},
		{acfcd.LogisticDual, 6, true, "few features: 6 primal Newton steps chosen up front, then the full dual KKT check\n"},
		{acfcd.SquaredHingeDual, 5, false, "finished by 5 primal Newton steps, then the full dual KKT check\n"},
		{acfcd.HingeDual, 7, false, "finished by 7 interior-point iterations on the dual, then the full dual KKT check\n"},
		{acfcd.SVRDual, 9, false, "finished by 9 interior-point iterations on the dual, then the full dual KKT check\n"},
		{acfcd.LogisticDual, 0, false, ""},
	} {
		var b strings.Builder
		printBlock(&b, tc.p, nil, &acfcd.Result{Epochs: 3, NewtonSteps: tc.steps, NewtonFirst: tc.first, Objective: 1, SupportVectors: -1})
		lines := strings.SplitAfter(b.String(), "\n")
		got := strings.Join(lines[1:len(lines)-2], "")
		if lines[0] != "optimization finished, #iter = 3\n" || got != tc.want {
			t.Errorf("-s %s, %d steps, first %v: printed\n%s\nwant the line %q", tc.p.Flag(), tc.steps, tc.first, b.String(), tc.want)
		}
	}
}
