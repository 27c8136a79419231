package acfcd

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
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

// TestProblemValues: a Problem's value is liblinear's -s number, so that
// Problem(3) is -s 3 as a liblinear user expects, acfcd's own lie beyond
// liblinear's numbers, and a value that names no problem is refused.
func TestProblemValues(t *testing.T) {
	for _, c := range []struct {
		p Problem
		s int
	}{
		{LogisticPrimal, 0}, {SquaredHingeDual, 1}, {SquaredHingePrimal, 2}, {HingeDual, 3}, {CrammerSinger, 4},
		{L1SquaredHinge, 5}, {L1Logistic, 6}, {LogisticDual, 7}, {SquaredSVRPrimal, 11}, {SquaredSVRDual, 12},
		{SVRDual, 13}, {OneClassSVM, 21},
	} {
		if int(c.p) != c.s || c.p.Flag() != strconv.Itoa(c.s) {
			t.Errorf("%v = %d, flag %q; want %d", c.p, int(c.p), c.p.Flag(), c.s)
		}
		if got, err := ParseProblem(strconv.Itoa(c.s)); err != nil || int(got) != c.s {
			t.Errorf("ParseProblem(%d) = %d, %v", c.s, int(got), err)
		}
	}
	if Lasso != 100 || WestonWatkins != 101 {
		t.Errorf("Lasso = %d, WestonWatkins = %d; want 100 and 101", int(Lasso), int(WestonWatkins))
	}
	if s := Problem(3).String(); s != "L2R_L1LOSS_SVC_DUAL" {
		t.Errorf("Problem(3).String() = %q, want L2R_L1LOSS_SVC_DUAL", s)
	}
	d := synth.Classes(synth.ClassesConfig{Seed: 83, Rows: 100, Feats: 10, Density: 0.4, Labels: []float64{1, -1}, Noise: 0.1})
	m, _, err := Train(context.Background(), d, Params{Problem: Problem(3)})
	if err != nil || m.SolverType != "L2R_L1LOSS_SVC_DUAL" {
		t.Errorf("Params{Problem: Problem(3)}: %v, solver %v", err, m)
	}
	const values = "0 (L2R_LR), 1 (L2R_L2LOSS_SVC_DUAL), 2 (L2R_L2LOSS_SVC), 3 (L2R_L1LOSS_SVC_DUAL), 4 (MCSVM_CS), " +
		"5 (L1R_L2LOSS_SVC), 6 (L1R_LR), 7 (L2R_LR_DUAL), 11 (L2R_L2LOSS_SVR), 12 (L2R_L2LOSS_SVR_DUAL), " +
		"13 (L2R_L1LOSS_SVR_DUAL), 21 (ONECLASS_SVM), 100 (LASSO), 101 (MCSVM_WW)"
	for _, v := range []int{8, 10, 14, 20, 22, 99, 102, 255} {
		p := Params{Problem: Problem(v)}
		want := "Params.Problem = " + strconv.Itoa(v) + ": not a problem; the values are " + values
		_, _, err := Train(context.Background(), d, p)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != "Params.Problem" || err.Error() != want {
			t.Errorf("Problem(%d): Train error %v\nwant %s", v, err, want)
		}
		if err := p.Check(); err == nil || err.Error() != want {
			t.Errorf("Problem(%d): Check %v", v, err)
		}
	}
}

// TestLassoNeedsLambda: Train and CrossValidate refuse the LASSO without
// λ (it would run to its epoch cap fitting least squares), as acfcd train
// does; the path functions, which choose λ themselves, and so Check, take
// such Params.
func TestLassoNeedsLambda(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 84, Rows: 60, Feats: 8, Density: 0.5, Labels: []float64{1, -1}, Noise: 0.1})
	ctx := context.Background()
	p := Params{Problem: Lasso}
	const want = "Params.Lambda = 0: the LASSO needs a penalty λ > 0 (TrainPath, TrainPathLambdas and CrossValidatePath choose λ themselves)"
	_, _, err := Train(ctx, d, p)
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param != "Params.Lambda" || err.Error() != want {
		t.Errorf("Train: %v\nwant %s", err, want)
	}
	if err := p.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
	if _, err := CrossValidate(ctx, d, p, 3); err == nil || err.Error() != want {
		t.Errorf("CrossValidate: %v", err)
	}
	if pts, err := TrainPath(ctx, d, p, 3, 0); err != nil || len(pts) == 0 {
		t.Errorf("TrainPath: %d points, %v", len(pts), err)
	}
	if pts, err := TrainPathLambdas(ctx, d, p, []float64{1, 0.5}); err != nil || len(pts) != 2 {
		t.Errorf("TrainPathLambdas: %d points, %v", len(pts), err)
	}
	if _, err := CrossValidatePath(ctx, d, p, CVPathOptions{Folds: 3, N: 3}); err != nil {
		t.Errorf("CrossValidatePath: %v", err)
	}
	if _, _, err := Train(ctx, d, Params{Problem: Lasso, Lambda: 0.5}); err != nil {
		t.Errorf("Lambda 0.5: %v", err)
	}
}

// TestZeroParams: the zero Params is -s 0 (liblinear's numbering) with
// C = 1, no bias, eps 0.01 and seed 1; Params{Problem: SquaredHingeDual}
// is acfcd train's defaults, bit for bit: C = 1, no bias, eps 0.1,
// acf+shrink and seed 1; Seed 0 is seed 1 and Bias 0 is no bias.
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
	mz, rz := train(Params{})
	if mz.SolverType != "L2R_LR" || rz.Solver != "L2R_LR" || rz.C != 1 || rz.Eps != 0.01 || mz.Bias != -1 || !rz.Converged {
		t.Errorf("zero Params: solver %q bias %v, result %+v", mz.SolverType, mz.Bias, rz)
	}
	m0, r0 := train(Params{Problem: SquaredHingeDual})
	if m0.SolverType != "L2R_L2LOSS_SVC_DUAL" || m0.NrW != 1 || m0.Bias != -1 || len(m0.W) != d.Features || m0.Partial {
		t.Errorf("-s 1 defaults: solver %q NrW %d bias %v %d weights for %d features, partial %v",
			m0.SolverType, m0.NrW, m0.Bias, len(m0.W), d.Features, m0.Partial)
	}
	if r0.Solver != "L2R_L2LOSS_SVC_DUAL" || r0.C != 1 || r0.Eps != 0.1 || r0.Select != "acf+shrink" || !r0.Converged {
		t.Errorf("-s 1 defaults: %+v", r0)
	}
	const s1 = SquaredHingeDual
	for _, c := range []struct {
		name string
		p    Params
		same bool
	}{
		{"explicit defaults", Params{Problem: s1, C: 1, Seed: DefaultSeed}, true},
		{"eps and selection", Params{Problem: s1, Eps: 0.1, Select: ACFShrink, MaxEpochs: DefaultMaxEpochs}, true},
		{"seed 1", Params{Problem: s1, Seed: 1}, true},
		{"bias 0", Params{Problem: s1, Bias: 0}, true},
		{"bias -1", Params{Problem: s1, Bias: -1}, true},
		{"C 2", Params{Problem: s1, C: 2}, false},
	} {
		m, _ := train(c.p)
		if same := m.Bias == m0.Bias && testkit.SameBits(m.W, m0.W); same != c.same {
			t.Errorf("%s: same model as Params{Problem: SquaredHingeDual} %v, want %v", c.name, same, c.same)
		}
	}
	// The seed is the dual CD's: on these 20 features -s 1 starts with
	// primal Newton, whose answer no seed changes, so -s 3 (dual CD
	// throughout) shows that a zero Seed is DefaultSeed and another seed
	// another model.
	h0, _ := train(Params{Problem: HingeDual})
	h1, _ := train(Params{Problem: HingeDual, Seed: DefaultSeed})
	h2, _ := train(Params{Problem: HingeDual, Seed: 2})
	if !testkit.SameBits(h0.W, h1.W) || testkit.SameBits(h0.W, h2.W) {
		t.Errorf("-s 3: seed 0 same as DefaultSeed %v (want true), seed 2 same %v (want false)",
			testkit.SameBits(h0.W, h1.W), testkit.SameBits(h0.W, h2.W))
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
