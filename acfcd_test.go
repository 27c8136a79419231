package acfcd

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
)

// TestProblemNames: every problem has its solver_type name and -s value,
// ParseProblem takes both (and names liblinear's solvers that acfcd does
// not implement as such), and the text form round-trips.
func TestProblemNames(t *testing.T) {
	for _, c := range []struct {
		p          Problem
		name, flag string
		classifier bool
	}{
		{SquaredHingeDual, "L2R_L2LOSS_SVC_DUAL", "1", true},
		{HingeDual, "L2R_L1LOSS_SVC_DUAL", "3", true},
		{LogisticDual, "L2R_LR_DUAL", "7", true},
		{Lasso, "LASSO", "lasso", false},
		{WestonWatkins, "MCSVM_WW", "ww", true},
		{LogisticPrimal, "L2R_LR", "0", true},
		{SquaredHingePrimal, "L2R_L2LOSS_SVC", "2", true},
		{CrammerSinger, "MCSVM_CS", "4", true},
		{L1SquaredHinge, "L1R_L2LOSS_SVC", "5", true},
		{L1Logistic, "L1R_LR", "6", true},
		{SquaredSVRPrimal, "L2R_L2LOSS_SVR", "11", false},
		{SquaredSVRDual, "L2R_L2LOSS_SVR_DUAL", "12", false},
		{SVRDual, "L2R_L1LOSS_SVR_DUAL", "13", false},
		{OneClassSVM, "ONECLASS_SVM", "21", false},
	} {
		if c.p.String() != c.name || c.p.Flag() != c.flag || c.p.Classifier() != c.classifier {
			t.Errorf("problem %d: String %q Flag %q Classifier %v; want %q %q %v", uint8(c.p), c.p.String(), c.p.Flag(), c.p.Classifier(), c.name, c.flag, c.classifier)
		}
		for _, s := range []string{c.name, c.flag} {
			if got, err := ParseProblem(s); got != c.p || err != nil {
				t.Errorf("ParseProblem(%q) = %v, %v; want %v", s, got, err, c.p)
			}
		}
		b, err := c.p.MarshalText()
		var q Problem = 99
		if err != nil || string(b) != c.flag || q.UnmarshalText(b) != nil || q != c.p {
			t.Errorf("%v: MarshalText %q, %v; UnmarshalText gives %v", c.p, b, err, q)
		}
		j, err := json.Marshal(map[string]Problem{"s": c.p})
		var back map[string]Problem
		if err != nil || string(j) != `{"s":"`+c.flag+`"}` || json.Unmarshal(j, &back) != nil || back["s"] != c.p {
			t.Errorf("%v: JSON %s, %v; back %v", c.p, j, err, back)
		}
	}
	if Problem(0) != SquaredHingeDual {
		t.Error("the zero Problem is not -s 1")
	}
	if s := Problem(99).String(); s != "Problem(99)" {
		t.Errorf("Problem(99).String() = %q", s)
	}
	for _, c := range []struct{ in, want string }{
		{"8", `unknown solver "8" (acfcd implements -s 0 to 7, 11, 12, 13, 21, lasso and ww)`},
		{"", `unknown solver "" (acfcd implements -s 0 to 7, 11, 12, 13, 21, lasso and ww)`},
		{"l2r_lr_dual", `unknown solver "l2r_lr_dual" (acfcd implements -s 0 to 7, 11, 12, 13, 21, lasso and ww)`},
	} {
		got, err := ParseProblem(c.in)
		if err == nil || err.Error() != c.want || got != 0 {
			t.Errorf("ParseProblem(%q) = %v, %v; want error %s", c.in, got, err, c.want)
		}
		q := LogisticDual
		if err := q.UnmarshalText([]byte(c.in)); err == nil || q != LogisticDual {
			t.Errorf("UnmarshalText(%q): %v, problem now %v", c.in, err, q)
		}
	}
}

// TestSelectionNames: the selections' names are --select's values, and
// ParseSelection and the text form take them back.
func TestSelectionNames(t *testing.T) {
	for _, c := range []struct {
		s    Selection
		name string
	}{
		{AutoSelection, "auto"}, {ACFShrink, "acf+shrink"}, {ACF, "acf"}, {Uniform, "uniform"}, {Shrink, "shrink"}, {Cyclic, "cyclic"},
	} {
		if c.s.String() != c.name {
			t.Errorf("selection %d: String %q, want %q", uint8(c.s), c.s.String(), c.name)
		}
		if got, err := ParseSelection(c.name); got != c.s || err != nil {
			t.Errorf("ParseSelection(%q) = %v, %v", c.name, got, err)
		}
		b, err := c.s.MarshalText()
		var back Selection = 99
		if err != nil || string(b) != c.name || back.UnmarshalText(b) != nil || back != c.s {
			t.Errorf("%v: MarshalText %q, %v; UnmarshalText gives %v", c.s, b, err, back)
		}
	}
	if got, err := ParseSelection(""); got != AutoSelection || err != nil {
		t.Errorf(`ParseSelection("") = %v, %v`, got, err)
	}
	want := `unknown coordinate selection "random" (want acf+shrink, acf, uniform, shrink or cyclic)`
	if _, err := ParseSelection("random"); err == nil || err.Error() != want {
		t.Errorf(`ParseSelection("random"): %v, want %s`, err, want)
	}
	if s := Selection(99).String(); s != "Selection(99)" {
		t.Errorf("Selection(99).String() = %q", s)
	}
}

// TestZeroParams: the zero Params is -s 1 with C = 1, no bias, eps 0.1,
// acf+shrink and seed 1, bit for bit; Seed 0 is seed 1 and Bias 0 is no
// bias.
func TestZeroParams(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 81, Rows: 300, Feats: 20, Density: 0.3, Labels: []float64{1, -1}, Noise: 0.1})
	train := func(p Params) (*Model, *Result) {
		t.Helper()
		m, res, err := Train(context.Background(), d, p)
		if err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		return m, res
	}
	m0, r0 := train(Params{})
	if m0.SolverType != "L2R_L2LOSS_SVC_DUAL" || m0.NrW != 1 || m0.Bias != -1 || len(m0.W) != d.Features || m0.Partial {
		t.Errorf("zero Params: solver %q NrW %d bias %v %d weights for %d features, partial %v",
			m0.SolverType, m0.NrW, m0.Bias, len(m0.W), d.Features, m0.Partial)
	}
	if r0.Solver != "L2R_L2LOSS_SVC_DUAL" || r0.C != 1 || r0.Eps != 0.1 || r0.Select != "acf+shrink" || !r0.Converged {
		t.Errorf("zero Params: %+v", r0)
	}
	for _, c := range []struct {
		name string
		p    Params
		same bool
	}{
		{"explicit defaults", Params{Problem: SquaredHingeDual, C: 1, Seed: DefaultSeed}, true},
		{"eps and selection", Params{Eps: 0.1, Select: ACFShrink, MaxEpochs: DefaultMaxEpochs}, true},
		{"seed 1", Params{Seed: 1}, true},
		{"bias 0", Params{Bias: 0}, true},
		{"bias -1", Params{Bias: -1}, true},
		{"C 2", Params{C: 2}, false},
		{"seed 2", Params{Seed: 2}, false},
	} {
		m, _ := train(c.p)
		if same := m.Bias == m0.Bias && testkit.SameBits(m.W, m0.W); same != c.same {
			t.Errorf("%s: same model as Params{} %v, want %v", c.name, same, c.same)
		}
	}
}

// TestCancelConvention: for every problem, a Train cancelled (or past its
// deadline) before it starts returns a model marked Partial, a Result
// marked Cancelled and an error wrapping the context's.
func TestCancelConvention(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 82, Rows: 200, Feats: 10, Density: 0.4, Labels: []float64{1, 2, 3}, Noise: 0.1})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	for _, s := range []Problem{SquaredHingeDual, HingeDual, LogisticDual, Lasso, WestonWatkins} {
		for _, c := range []struct {
			ctx  context.Context
			want error
		}{{cancelled, context.Canceled}, {expired, context.DeadlineExceeded}} {
			m, res, err := Train(c.ctx, d, Params{Problem: s, Lambda: 1})
			if !errors.Is(err, c.want) || m == nil || res == nil || !m.Partial || !res.Cancelled || res.Converged {
				t.Errorf("-s %s, %v: error %v, model %v, result %+v", s.Flag(), c.want, err, m != nil, res)
			}
		}
	}
}
