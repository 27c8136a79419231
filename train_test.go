package acfcd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/internal/tune"
	dataio "github.com/acfcd/acfcd/io"
	"github.com/acfcd/acfcd/solver/dcd"
	"github.com/acfcd/acfcd/solver/fit"
	"github.com/acfcd/acfcd/solver/multiclass"
)

// TestModelLayout: a one-vs-rest model holds NrW = classes weight vectors
// in liblinear's layout, the bias weight last, named by its solver type,
// with the problem's defaults in its Result.
func TestModelLayout(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 60, Feats: 7, Density: 0.5, Labels: []float64{3, 1, 2}, Noise: 0.1})
	m, res := mustTrain(t, d, Params{Problem: HingeDual, C: 1, Bias: 2, Seed: 1})
	if m.NrW != 3 || len(m.W) != 8*3 || m.NumFeature != 7 || m.Bias != 2 || len(res.Classes) != 3 {
		t.Fatalf("layout: NrW %d len(W) %d NumFeature %d Bias %v classes %d", m.NrW, len(m.W), m.NumFeature, m.Bias, len(res.Classes))
	}
	if m.SolverType != "L2R_L1LOSS_SVC_DUAL" || res.Solver != m.SolverType || res.Select != "acf+shrink" || res.Eps != 0.1 {
		t.Fatalf("names/defaults: %q %q %q eps %v", m.SolverType, res.Solver, res.Select, res.Eps)
	}
	m, _ = mustTrain(t, d, Params{Problem: SquaredHingeDual, C: 1, Bias: -1, Seed: 1})
	if len(m.W) != 7*3 || m.Bias != -1 {
		t.Fatalf("no bias: len(W) %d bias %v", len(m.W), m.Bias)
	}
}

// TestParamErrors: every parameter Train refuses is a *ParamError naming
// it; data it cannot train on is an error naming the problem.
func TestParamErrors(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 7, Rows: 20, Feats: 4, Density: 0.5, Labels: []float64{1, -1}})
	ctx := context.Background()
	bad := []struct {
		p           Params
		param, want string // the ParamError's Param, and the error's text
	}{
		{Params{Problem: Problem(99), C: 1}, "Params.Problem", "Params.Problem = 99: not a problem; the values are 0 (L2R_LR), 1 (L2R_L2LOSS_SVC_DUAL), 2 (L2R_L2LOSS_SVC), " +
			"3 (L2R_L1LOSS_SVC_DUAL), 4 (MCSVM_CS), 5 (L1R_L2LOSS_SVC), 6 (L1R_LR), 7 (L2R_LR_DUAL), 11 (L2R_L2LOSS_SVR), " +
			"12 (L2R_L2LOSS_SVR_DUAL), 13 (L2R_L1LOSS_SVR_DUAL), 21 (ONECLASS_SVM), 100 (LASSO), 101 (MCSVM_WW)"},
		{Params{Problem: HingeDual, C: -1}, "Params.C", "Params.C = -1: must be a positive finite number"},
		{Params{Problem: HingeDual, C: math.NaN()}, "Params.C", ""},
		{Params{Problem: HingeDual, C: math.Inf(1)}, "Params.C", ""},
		{Params{Problem: HingeDual, C: 1, Eps: -1}, "Params.Eps", "Params.Eps = -1: must be a finite number >= 0 (0: the problem's default)"},
		{Params{Problem: HingeDual, C: 1, Eps: math.NaN()}, "Params.Eps", ""},
		{Params{Problem: HingeDual, C: 1, Select: Selection(99)}, "Params.Select", ""},
		{Params{Problem: HingeDual, C: 1, Select: Cyclic}, "Params.Select", "Params.Select = cyclic: -s 3 (L2R_L1LOSS_SVC_DUAL) takes acf+shrink, acf, uniform, shrink"},
		{Params{Problem: HingeDual, C: 1, MaxEpochs: -1}, "Params.MaxEpochs", ""},
		{Params{Problem: HingeDual, C: 1, Weights: map[float64]float64{1: 0}}, "Params.Weights", "Params.Weights = 0: the weight of class 1 must be a positive finite number"},
		{Params{Problem: HingeDual, C: 1, Bias: math.NaN()}, "Params.Bias", ""},
		{Params{Problem: HingeDual, C: 1, UnregularizedBias: true, Bias: 1}, "Params.UnregularizedBias",
			"Params.UnregularizedBias = true: only -s 0, 2, 5, 6 and 11 (L2R_LR, L2R_L2LOSS_SVC, L1R_L2LOSS_SVC, L1R_LR and L2R_L2LOSS_SVR) leave the bias unregularised, not -s 3 (L2R_L1LOSS_SVC_DUAL)"},
		{Params{Problem: LogisticPrimal, UnregularizedBias: true}, "Params.UnregularizedBias", ""},
		{Params{Problem: OneClassSVM, Bias: 1}, "Params.Bias", "Params.Bias = 1: the one-class SVM has no bias term (liblinear refuses -B for -s 21)"},
		{Params{Problem: OneClassSVM, ZeroBias: true}, "Params.ZeroBias", "Params.ZeroBias = true: the one-class SVM has no bias term (liblinear refuses -B for -s 21)"},
		{Params{Problem: HingeDual, Bias: 2, ZeroBias: true}, "Params.ZeroBias", "Params.ZeroBias = true: a bias feature of value 0 excludes the bias 2"},
		{Params{Problem: SquaredSVRDual, P: math.Inf(1)}, "Params.P", ""},
		{Params{Problem: OneClassSVM, Nu: 1.5}, "Params.Nu", ""},
		{Params{Problem: Lasso, Lambda: 1, Alpha: 2}, "Params.Alpha", ""},
		{Params{Problem: Lasso, Lambda: -1}, "Params.Lambda", ""},
		{Params{Problem: Lasso, Lambda: 1, GapTol: math.NaN()}, "Params.GapTol", ""},
		{Params{Problem: Lasso, Lambda: 1, Thresh: -1}, "Params.Thresh", ""},
		{Params{Problem: Lasso, Lambda: 1, Thresh: 1e-7, Eps: 1e-3}, "Params.Thresh", ""},
	}
	for _, b := range bad {
		_, _, err := Train(ctx, d, b.p)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != b.param || b.want != "" && err.Error() != b.want {
			t.Errorf("Train(%+v) error %v, want a ParamError of %s: %q", b.p, err, b.param, b.want)
		}
		if check := b.p.Check(); check == nil || err == nil || check.Error() != err.Error() {
			t.Errorf("Check(%+v) = %v, want Train's %v", b.p, check, err)
		}
	}
	ok := Params{Problem: HingeDual, C: 1}
	frac := *d
	frac.Label = append([]float64(nil), d.Label...)
	frac.Label[3] = 0.5
	if _, _, err := Train(ctx, &frac, ok); err == nil || !strings.Contains(err.Error(), "integer") {
		t.Errorf("fractional label: %v", err)
	}
	short := *d
	short.Value = d.Value[:len(d.Value)-1]
	if _, _, err := Train(ctx, &short, ok); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("short value array: %v", err)
	}
	if _, _, err := Train(ctx, &dataio.Dataset{RowPtr: []int64{0}}, ok); err == nil {
		t.Error("empty dataset accepted")
	}
	badIdx := *d
	badIdx.Features = 2
	if _, _, err := Train(ctx, &badIdx, ok); err == nil || !strings.Contains(err.Error(), "feature index") {
		t.Errorf("index out of range: %v", err)
	}
	_, res, err := Train(ctx, d, Params{Problem: HingeDual, C: 1, Weights: map[float64]float64{7: 2}})
	if err != nil || len(res.Warnings) != 1 {
		t.Errorf("unknown weight label: err %v warnings %v", err, res.Warnings)
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

func TestCancelSkipsClasses(t *testing.T) {
	labels := make([]float64, 40)
	for i := range labels {
		labels[i] = float64(i + 1)
	}
	d := synth.Classes(synth.ClassesConfig{Seed: 11, Rows: 800, Feats: 40, Density: 0.2, Labels: labels, Noise: 0.2})
	for _, s := range dualProblems {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		m, res, err := Train(ctx, d, Params{Problem: s, C: 1})
		if !errors.Is(err, context.Canceled) || m == nil || res == nil {
			t.Fatalf("-s %s: model %v, result %v, error %v; want a model, a result and context.Canceled", s.Flag(), m != nil, res != nil, err)
		}
		if !res.Cancelled || !m.Partial || res.Iterations != 0 || len(res.Classes) != len(labels) {
			t.Fatalf("-s %s: %+v", s.Flag(), res)
		}
		for k, r := range res.Classes {
			if !r.Cancelled || r.Iterations != 0 {
				t.Errorf("-s %s class %d: %+v", s.Flag(), k, r)
			}
		}
		for _, w := range m.W {
			if w != 0 {
				t.Fatalf("-s %s: a weight moved in a run cancelled before it started", s.Flag())
			}
		}
	}
}

// TestHugeFeatureCount: two rows naming feature 2147483646 or 2147483647
// make every problem stop with a message that names the feature count,
// its line and --max-features, before allocating anything of that size.
func TestHugeFeatureCount(t *testing.T) {
	ctx := context.Background()
	problems := []Params{
		{Problem: SquaredHingeDual, C: 1}, {Problem: HingeDual, C: 1, Bias: 1}, {Problem: LogisticDual, C: 1},
		{Problem: WestonWatkins, C: 1}, {Problem: Lasso, Lambda: 1}, {Problem: Lasso, Lambda: 1, Intercept: true},
	}
	for _, c := range []struct {
		index int
		want  string
	}{
		{math.MaxInt32 - 1, ":2: feature count 2147483646 (set by the largest feature index, here) is too many for 2 examples with 2 non-zeros: "},
		{math.MaxInt32, ":2: feature count 2147483647 (set by the largest feature index, here) is too many: the solvers take at most 2147483646 features (the bias feature needs the next index) (reject such indices with a cap: Options.MaxFeatures)"},
	} {
		d := loadText(t, "big.svm", fmt.Sprintf("-1 1:1\n1 %d:1\n", c.index), dataio.Options{})
		for _, p := range problems {
			var err error
			if n := testkit.Allocated(func() { _, _, err = Train(ctx, d, p) }); n > 1<<20 {
				t.Errorf("index %d, -s %s: allocated %d bytes", c.index, p.Problem.Flag(), n)
			}
			if err == nil || !strings.HasPrefix(err.Error(), d.Source+c.want) {
				t.Errorf("index %d, -s %s: %v\nwant prefix %s", c.index, p.Problem.Flag(), err, c.want)
			}
			if c.index == math.MaxInt32-1 && (err == nil || !strings.Contains(err.Error(), "Options.MaxFeatures = 2147483646")) {
				t.Errorf("index %d, -s %s: %v does not name Options.MaxFeatures = 2147483646", c.index, p.Problem.Flag(), err)
			}
		}
	}
	d := loadText(t, "big.svm", "-1 1:1\n1 2147483646:1\n", dataio.Options{})
	_, _, err := Train(ctx, d, Params{Problem: SquaredHingeDual, C: 1})
	want := d.Source + ":2: feature count 2147483646 (set by the largest feature index, here) is too many for 2 examples with 2 non-zeros: " +
		"training would allocate 32.0 GiB of dense weights (16 bytes per feature) for 56 bytes of data. " +
		"If that index is a mistake, fix the data or reject such indices with a feature cap below it " +
		"(to train anyway, declare the size: Options.MaxFeatures = 2147483646)"
	var de *DataError
	if err == nil || err.Error() != want || !errors.As(err, &de) || de.Hint.Value != "2147483646" {
		t.Errorf("message:\n got  %v\n want %s (a *DataError)", err, want)
	}
	// A feature count from a cache header rather than an index.
	hdr := &dataio.Dataset{Rows: 1, Features: math.MaxInt32 - 1, RowPtr: []int64{0, 1}, Index: []int32{2},
		Value: []float64{1}, Label: []float64{1}, Source: "c.acf"}
	_, _, err = Train(ctx, hdr, Params{Problem: SquaredHingeDual, C: 1})
	if err == nil || !strings.HasPrefix(err.Error(), "c.acf: feature count 2147483646 (recorded in the data; its indices need only 3) is too many") {
		t.Errorf("header feature count: %v", err)
	}
}

// TestLabelMessages: a classifier given labels that are not integer
// classes says where, what liblinear would do and what to use instead; the
// LASSO takes class labels as numbers, but not labels whose squares
// overflow.
func TestLabelMessages(t *testing.T) {
	ctx := context.Background()
	text := "# regression targets\n1 1:1\n\n-1 2:1\n2.5 1:1 2:1\n-0.5 2:2\n"
	d := loadText(t, "reg.svm", text, dataio.Options{})
	for _, s := range []Problem{SquaredHingeDual, HingeDual, LogisticDual, WestonWatkins} {
		_, _, err := Train(ctx, d, Params{Problem: s, C: 1})
		want := d.Source + ":5: label 2.5 is not an integer: classifiers take integer class labels " +
			"(liblinear would truncate it to 2 and make every distinct value a class); for regression targets use -s lasso or an SVR (-s 11, 12, 13)"
		if err == nil || err.Error() != want {
			t.Errorf("-s %s:\n got  %v\n want %s", s.Flag(), err, want)
		}
	}
	// Cross-validation folds locate the row in the file, not in the fold.
	_, _, err := Train(ctx, d.Subset([]int{3, 0}), Params{Problem: SquaredHingeDual, C: 1})
	if want := d.Source + ":6: label -0.5 is not an integer: classifiers take integer class labels (liblinear would truncate it to 0 and"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("subset: %v\nwant prefix %s", err, want)
	}
	huge := loadText(t, "huge.svm", "1 1:1\n3e9 2:1\n", dataio.Options{})
	_, _, err = Train(ctx, huge, Params{Problem: SquaredHingeDual, C: 1})
	if want := huge.Source + ":2: label 3000000000 is not a class label: classifiers take integer labels in the int32 range [-2147483648, 2147483647] (liblinear stores them as C ints); for regression targets use -s lasso or an SVR (-s 11, 12, 13)"; err == nil || err.Error() != want {
		t.Errorf("huge label:\n got  %v\n want %s", err, want)
	}
	// The LASSO fits class labels as numbers.
	cls := loadText(t, "cls.svm", "1 1:1\n-1 2:1\n1 1:1 2:0.5\n", dataio.Options{})
	if _, _, err := Train(ctx, cls, Params{Problem: Lasso, Lambda: 0.1}); err != nil {
		t.Errorf("LASSO on class labels: %v", err)
	}
	over := loadText(t, "over.svm", "1 1:1\n1e308 2:1\n", dataio.Options{})
	for _, icpt := range []bool{false, true} {
		_, _, err := Train(ctx, over, Params{Problem: Lasso, Lambda: 0.1, Intercept: icpt})
		if want := over.Source + ":2: label 1e+308: the squares of the labels overflow (½‖y‖² is the LASSO's objective at w = 0); scale the targets down"; err == nil || err.Error() != want {
			t.Errorf("LASSO, overflowing labels:\n got  %v\n want %s", err, want)
		}
	}
	if _, err := TrainPath(ctx, over, Params{Problem: Lasso}, 3, 0.1); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("LASSO path, overflowing labels: %v", err)
	}
}

// modelBytes returns m as its model file.
func modelBytes(t *testing.T, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestSmallTightenLarge: above fit.Tuning.SmallNNZ non-zeros (or non-zeros
// times C) every coordinate descent solver gives the model of the rule
// switched off, byte for byte, and at the threshold the rule fires (a
// different model). The -s 3 and -s 13 gap rule, which may take both runs
// to the same point, is off.
func TestSmallTightenLarge(t *testing.T) {
	noGap := dcd.DefaultTuning()
	noGap.HingeGapSpend = 0
	base := tune.With(context.Background(), &noGap)
	bin := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 4})
	multi := synth.Classes(synth.ClassesConfig{Seed: 5, Rows: 300, Feats: 20, Density: 0.5, Labels: []float64{1, 2, 3}, Noise: 0.1})
	low := synth.Classes(synth.ClassesConfig{Seed: 4, Rows: 300, Feats: 20, Density: 0.5, Labels: []float64{1, -1}, Noise: 0.1})
	reg := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 6})
	for i := range reg.Label {
		reg.Label[i] *= float64(1 + i%7)
	}
	cases := []struct {
		s Problem
		d *dataio.Dataset
	}{
		{SquaredHingeDual, bin}, {HingeDual, bin}, {LogisticDual, bin}, {L1SquaredHinge, bin}, {L1Logistic, low},
		{CrammerSinger, multi}, {WestonWatkins, multi}, {SquaredHingeDual, multi},
		{SquaredSVRDual, reg}, {SVRDual, reg}, {OneClassSVM, bin},
	}
	for _, c := range cases {
		off := fit.DefaultTuning()
		off.SmallTighten = 0
		above := fit.DefaultTuning()
		above.SmallNNZ = c.d.NNZ() - 1
		at := fit.DefaultTuning()
		at.SmallNNZ = c.d.NNZ()
		train := func(tu *fit.Tuning) []byte {
			m, _ := mustTrainCtx(t, tune.With(base, tu), c.d, Params{Problem: c.s, Seed: 1})
			return modelBytes(t, m)
		}
		ref := train(&off)
		if !bytes.Equal(train(&above), ref) {
			t.Errorf("-s %s: %d non-zeros above SmallNNZ, yet the model changed", c.s.Flag(), c.d.NNZ())
		}
		if bytes.Equal(train(&at), ref) {
			t.Errorf("-s %s: %d non-zeros at SmallNNZ, yet the model is that of the rule off", c.s.Flag(), c.d.NNZ())
		}
		if c.s == OneClassSVM {
			continue // no C
		}
		// At C = 2 the cost model, non-zeros times C, is above SmallNNZ.
		m2, _ := mustTrainCtx(t, tune.With(base, &at), c.d, Params{Problem: c.s, C: 2, Seed: 1})
		m2off, _ := mustTrainCtx(t, tune.With(base, &off), c.d, Params{Problem: c.s, C: 2, Seed: 1})
		if !bytes.Equal(modelBytes(t, m2), modelBytes(t, m2off)) {
			t.Errorf("-s %s: C = 2 puts the cost above SmallNNZ, yet the model changed", c.s.Flag())
		}
	}
}

// The same for the multi-class SVMs, whose passes certify eps (Weston–
// Watkins) and multiclass.Tuning.CSCertify·eps (Crammer–Singer): a
// small problem whose tightened target is out of reach within the epoch
// cap, at a point that meets the user's eps, is converged (as liblinear
// would report it), not capped.
func TestSmallTightenCapMeetsUserEpsMulticlass(t *testing.T) {
	d := synth.Text(synth.TextConfig{Rows: 300, Features: 1000, MeanNNZ: 10, Informative: 50, Noise: 0.1, Seed: 3})
	ft, mt := fit.DefaultTuning(), multiclass.DefaultTuning()
	ft.SmallTighten = 1e-9
	ctx := tune.With(tune.With(context.Background(), &ft), &mt)
	for _, s := range []Problem{WestonWatkins, CrammerSinger} {
		_, res := mustTrainCtx(t, ctx, d, Params{Problem: s, MaxEpochs: 40})
		want := res.Eps
		if s == CrammerSinger {
			want *= mt.CSCertify
		}
		if !(res.Violation <= want) {
			t.Fatalf("%s: violation %g above the user's %g: the case under test needs a run that meets it", s, res.Violation, want)
		}
		if !res.Converged || res.HitEpochCap {
			t.Errorf("%s: converged %v, capped %v at violation %g (user's target %g)", s, res.Converged, res.HitEpochCap, res.Violation, want)
		}
	}
}

// TestZeroBias: Params.ZeroBias writes liblinear's -B 0 layout (a "bias
// 0" line and a row of zero weights) around the weights of no bias.
func TestZeroBias(t *testing.T) {
	d := synth.Classes(synth.ClassesConfig{Seed: 3, Rows: 40, Feats: 5, Density: 0.6, Labels: []float64{1, 2, 3}})
	ctx := context.Background()
	for _, prob := range []Problem{SquaredHingeDual, LogisticPrimal, L1Logistic, CrammerSinger, SquaredSVRDual} {
		plain, _ := mustTrainCtx(t, ctx, d, Params{Problem: prob, C: 1})
		zero, _ := mustTrainCtx(t, ctx, d, Params{Problem: prob, C: 1, ZeroBias: true})
		nw := plain.NrW
		if zero.Bias != 0 || len(zero.W) != len(plain.W)+nw {
			t.Fatalf("-s %s: bias %g, %d weights, want 0 and %d", prob.Flag(), zero.Bias, len(zero.W), len(plain.W)+nw)
		}
		for k, w := range zero.W {
			want := 0.0
			if k < len(plain.W) {
				want = plain.W[k]
			}
			if w != want {
				t.Fatalf("-s %s: weight %d is %g, want %g", prob.Flag(), k, w, want)
			}
		}
	}
}
