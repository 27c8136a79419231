package solver

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	dataio "github.com/acfcd/acfcd/io"
)

// allocated returns the bytes the Go heap handed out while f ran.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// loadText writes text to a file named name and loads it.
func loadText(t *testing.T, name, text string, opt dataio.Options) *dataio.Dataset {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := dataio.Load(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestHugeFeatureCount: two rows naming feature 2147483646 or 2147483647
// make every solver stop with a message that names the feature count, its
// line and --max-features, before allocating anything of that size.
func TestHugeFeatureCount(t *testing.T) {
	ctx := context.Background()
	solvers := []Params{
		{Solver: 1, C: 1}, {Solver: 3, C: 1, Bias: 1}, {Solver: 7, C: 1},
		{Solver: WestonWatkins, C: 1}, {Solver: Lasso, Lambda: 1}, {Solver: Lasso, Lambda: 1, Intercept: true},
	}
	for _, c := range []struct {
		index int
		want  string
	}{
		{math.MaxInt32 - 1, ":2: feature count 2147483646 (set by the largest feature index, here) is too many for 2 examples with 2 non-zeros: "},
		{math.MaxInt32, ":2: feature count 2147483647 (set by the largest feature index, here) is too many: the solvers take at most 2147483646 features (the bias feature needs the next index); reject such indices with --max-features N (Options.MaxFeatures)"},
	} {
		d := loadText(t, "big.svm", fmt.Sprintf("-1 1:1\n1 %d:1\n", c.index), dataio.Options{})
		for _, p := range solvers {
			var err error
			if n := allocated(func() { _, _, err = Train(ctx, d, p) }); n > 1<<20 {
				t.Errorf("index %d, -s %d: allocated %d bytes", c.index, p.Solver, n)
			}
			if err == nil || !strings.HasPrefix(err.Error(), d.Source+c.want) {
				t.Errorf("index %d, -s %d: %v\nwant prefix %s", c.index, p.Solver, err, c.want)
			}
			if c.index == math.MaxInt32-1 && (err == nil || !strings.Contains(err.Error(), "--max-features 2147483646")) {
				t.Errorf("index %d, -s %d: %v does not name --max-features 2147483646", c.index, p.Solver, err)
			}
		}
	}
	d := loadText(t, "big.svm", "-1 1:1\n1 2147483646:1\n", dataio.Options{})
	_, _, err := Train(ctx, d, Params{Solver: 1, C: 1})
	want := d.Source + ":2: feature count 2147483646 (set by the largest feature index, here) is too many for 2 examples with 2 non-zeros: " +
		"training would allocate 32.0 GiB of dense weights (16 bytes per feature) for 56 bytes of data. " +
		"If that index is a mistake, fix the data or reject such indices with --max-features N; " +
		"to train anyway, declare the size with --max-features 2147483646 (Options.MaxFeatures)"
	if err == nil || err.Error() != want {
		t.Errorf("message:\n got  %v\n want %s", err, want)
	}
	// A feature count from a cache header rather than an index.
	hdr := &dataio.Dataset{Rows: 1, Features: math.MaxInt32 - 1, RowPtr: []int64{0, 1}, Index: []int32{2},
		Value: []float64{1}, Label: []float64{1}, Source: "c.acf"}
	_, _, err = Train(ctx, hdr, Params{Solver: 1, C: 1})
	if err == nil || !strings.HasPrefix(err.Error(), "c.acf: feature count 2147483646 (recorded in the data; its indices need only 3) is too many") {
		t.Errorf("header feature count: %v", err)
	}
}

// TestDenseGuard: the guard lets through what the data justify or what
// MaxFeatures declares.
func TestDenseGuard(t *testing.T) {
	row := func(features, nnz int) *dataio.Dataset {
		d := &dataio.Dataset{Rows: 1, Features: features, RowPtr: []int64{0, int64(nnz)}, Label: []float64{1}}
		for k := 0; k < nnz; k++ {
			d.Index = append(d.Index, int32(features-nnz+k))
			d.Value = append(d.Value, 1)
		}
		return d
	}
	small := row(16<<20-1, 1) // 16 bytes per feature and the bias: 256 MiB, the floor
	if err := checkDense(small, 16, "x", 0); err != nil {
		t.Errorf("at the floor: %v", err)
	}
	over := row(16<<20, 1)
	if err := checkDense(over, 16, "x", 0); err == nil {
		t.Error("over the floor: no error")
	}
	over.MaxFeatures = 16 << 20
	if err := checkDense(over, 16, "x", 0); err != nil {
		t.Errorf("declared by MaxFeatures: %v", err)
	}
	over.MaxFeatures = 16<<20 - 1
	if err := checkDense(over, 16, "x", 0); err == nil {
		t.Error("MaxFeatures below the feature count: no error")
	}
	// 2^25 features need 512 MiB at 16 bytes each: refused next to 2^10
	// non-zeros, taken next to 12·2^20 (144 MiB of data, of which 4× is
	// more). checkDense reads only the counts of a dataset it accepts.
	if err := checkDense(row(1<<25, 1<<10), 16, "x", 0); err == nil {
		t.Error("2^25 features, 2^10 non-zeros: no error")
	}
	fake := &dataio.Dataset{Rows: 1, Features: 1 << 25, RowPtr: []int64{0, 12 << 20}, Value: []float64{}}
	if err := checkDense(fake, 16, "x", 0); err != nil {
		t.Errorf("2^25 features, 12·2^20 non-zeros: %v", err)
	}
	if err := checkDense(row(1<<25, 1), 8*denseVectors(50), "training", 50); err == nil ||
		!strings.Contains(err.Error(), "classes") || !strings.Contains(err.Error(), "use -s lasso") {
		t.Errorf("many classes: %v", err)
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
	for _, s := range []int{1, 3, 7, WestonWatkins} {
		_, _, err := Train(ctx, d, Params{Solver: s, C: 1})
		want := d.Source + ":5: label 2.5 is not an integer: classifiers take integer class labels " +
			"(liblinear would truncate it to 2 and make every distinct value a class); for regression targets use -s lasso"
		if err == nil || err.Error() != want {
			t.Errorf("-s %d:\n got  %v\n want %s", s, err, want)
		}
	}
	// Cross-validation folds locate the row in the file, not in the fold.
	_, _, err := Train(ctx, d.Subset([]int{3, 0}), Params{Solver: 1, C: 1})
	if want := d.Source + ":6: label -0.5 is not an integer: classifiers take integer class labels (liblinear would truncate it to 0 and"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("subset: %v\nwant prefix %s", err, want)
	}
	huge := loadText(t, "huge.svm", "1 1:1\n3e9 2:1\n", dataio.Options{})
	_, _, err = Train(ctx, huge, Params{Solver: 1, C: 1})
	if want := huge.Source + ":2: label 3e+09 is not a class label: classifiers take integer labels in the int32 range (liblinear stores them as C ints); for regression targets use -s lasso"; err == nil || err.Error() != want {
		t.Errorf("huge label:\n got  %v\n want %s", err, want)
	}
	// The LASSO fits class labels as numbers.
	cls := loadText(t, "cls.svm", "1 1:1\n-1 2:1\n1 1:1 2:0.5\n", dataio.Options{})
	if _, _, err := Train(ctx, cls, Params{Solver: Lasso, Lambda: 0.1}); err != nil {
		t.Errorf("LASSO on class labels: %v", err)
	}
	over := loadText(t, "over.svm", "1 1:1\n1e308 2:1\n", dataio.Options{})
	for _, icpt := range []bool{false, true} {
		_, _, err := Train(ctx, over, Params{Solver: Lasso, Lambda: 0.1, Intercept: icpt})
		if want := over.Source + ":2: label 1e+308: the squares of the labels overflow (½‖y‖² is the LASSO's objective at w = 0); scale the targets down"; err == nil || err.Error() != want {
			t.Errorf("LASSO, overflowing labels:\n got  %v\n want %s", err, want)
		}
	}
	if _, err := LassoPath(ctx, over, Params{Solver: Lasso}, 3, 0.1); err == nil || !strings.Contains(err.Error(), "overflow") {
		t.Errorf("LASSO path, overflowing labels: %v", err)
	}
}

// Small real and broken model files with the message each gets (empty:
// valid). TestModelInputMessages checks them; TestWriteModelSeeds writes
// them as the seed corpus of FuzzReadModel.
var modelInputs = []struct{ name, text, want string }{
	{"valid-binary", "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\nw\n0.5 \n-0.25 \n", ""},
	{"valid-crlf", "solver_type L2R_LR\r\nnr_class 2\r\nlabel 1 -1\r\nnr_feature 1\r\nbias 1\r\nw\r\n0.5 \r\n-0.25 \r\n", ""},
	{"valid-no-final-newline", "solver_type L2R_LR\nnr_class 2\nlabel 0 1\nnr_feature 1\nbias -1\nw\n0.5 ", ""},
	{"valid-header-any-order", "bias -1\nnr_feature 1\nnr_class 3\nsolver_type MCSVM_CS\nlabel 3 1 2\nw\n1 2 3\n", ""},
	{"valid-liblinear-2.11", "solver_type L2R_L1LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n0.1000000000000000\n", ""},
	{"valid-lasso", "solver_type LASSO\nnr_class 2\nnr_feature 2\nbias 1\nw\n0 \n1.5 \n-3 \n", ""},
	{"valid-oneclass", "solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 1\nbias -1\nrho 0x1p-3\nw\n1\n", ""},
	{"nr-feature-1e12", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1000000000000\nbias -1\nw\n",
		`f:4: nr_feature "1000000000000" out of range [0, 2147483647]`},
	{"nr-feature-max-no-weights", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2147483647\nbias 1\nw\n",
		"f:7: unexpected end of file: 0 of 2147483648 weight rows"},
	{"nr-class-1e6-no-labels", "solver_type MCSVM_CS\nnr_class 1000000\nnr_feature 2147483647\nbias 1\nw\n",
		`f:5: missing label line before "w" (required for MCSVM_CS)`},
	{"nr-class-1e6-two-labels", "nr_class 1000000\nlabel 1 2\n", "f:2: 2 labels, nr_class is 1000000"},
	{"nr-class-1e12", "nr_class 1000000000000\n", `f:1: nr_class "1000000000000" out of range [1, 1000000]`},
	{"nr-class-0", "nr_class 0\n", `f:1: nr_class "0" out of range [1, 1000000]`},
	{"nr-feature-negative", "nr_feature -5\n", `f:1: nr_feature "-5" out of range [0, 2147483647]`},
	{"label-fraction", "nr_class 2\nlabel 1 0.5\n", `f:2: label "0.5" is not a 32-bit integer`},
	{"label-2147483648", "nr_class 2\nlabel 1 2147483648\n", `f:2: label "2147483648" is not a 32-bit integer`},
	{"bias-nan", "bias nan\n", `f:1: bias "nan": not finite`},
	{"bias-inf", "bias -Inf\n", `f:1: bias "-Inf": not finite`},
	{"weight-nan", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias -1\nw\n0.5 \nnan \n", `f:8: weight "nan": not finite`},
	{"weight-overflow", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nw\n1e999 \n", `f:7: weight "1e999": out of range`},
	{"truncated-weights", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias -1\nw\n0.5 \n0.2", "f:9: unexpected end of file: 2 of 3 weight rows"},
	{"too-many-weights", "solver_type L2R_LR\nnr_class 3\nlabel 1 2 3\nnr_feature 1\nbias -1\nw\n1 2 3 4\n", "f:7: weight row 1 has more than 3 values, want 3"},
	{"no-w-line", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\n", `f:6: unexpected end of file in the header (no "w" line)`},
	{"duplicate-header", "solver_type L2R_LR\nnr_feature 1\nnr_feature 2\n", "f:3: duplicate nr_feature line"},
	{"rho-not-oneclass", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1\nbias -1\nrho 1\nw\n", "f:7: rho line not allowed for L2R_LR"},
	{"unknown-solver", "solver_type L3R_LR\n", `f:1: unknown solver_type "L3R_LR"`},
	{"binary-garbage", "\x7fELF\x02\x01\x01\x00\x00\x00\xff\n", `f:1: unknown header field "\x7fELF\x02\x01\x01\x00\x00\x00\xff"`},
	{"data-file", "1 1:0.5 3:2\n", `f:1: unknown header field "1"`},
}

func TestModelInputMessages(t *testing.T) {
	for _, in := range modelInputs {
		var err error
		if n := allocated(func() { _, err = ReadModel(strings.NewReader(in.text), "f") }); n > 2<<20 {
			t.Errorf("%s: allocated %d bytes", in.name, n)
		}
		if got := fmt.Sprint(err); (err == nil) != (in.want == "") || (err != nil && got != in.want) {
			t.Errorf("%s:\n got  %v\n want %s", in.name, err, in.want)
		}
	}
}

// TestModelHugeLabelLine: a header with a million labels and no weights
// costs memory in proportion to the file (about 13× its size: the long
// line, the labels and their duplicate check), not to nr_class ×
// nr_feature.
func TestModelHugeLabelLine(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("solver_type MCSVM_CS\nnr_class 1000000\nlabel")
	for i := 1; i <= 1000000; i++ {
		fmt.Fprintf(&b, " %d", i)
	}
	b.WriteString("\nnr_feature 2147483647\nbias 1\nw\n0 0 0\n")
	size := b.Len()
	var err error
	if n := allocated(func() { _, err = ReadModel(&b, "f") }); n > uint64(16*size) {
		t.Errorf("a %d-byte model file allocated %d bytes", size, n)
	}
	if err == nil || err.Error() != "f:7: weight row 1 has 3 values, want 1000000" {
		t.Errorf("%v", err)
	}
}

// TestWriteModelSeeds writes testdata/fuzz/FuzzReadModel from modelInputs
// when ACFCD_WRITE_SEEDS=1.
func TestWriteModelSeeds(t *testing.T) {
	if os.Getenv("ACFCD_WRITE_SEEDS") != "1" {
		t.Skip("set ACFCD_WRITE_SEEDS=1 to rewrite testdata/fuzz")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzReadModel")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, in := range modelInputs {
		s := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", in.text)
		if err := os.WriteFile(filepath.Join(dir, in.name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
