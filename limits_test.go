package acfcd

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
	dataio "github.com/acfcd/acfcd/io"
)

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
		{math.MaxInt32, ":2: feature count 2147483647 (set by the largest feature index, here) is too many: the solvers take at most 2147483646 features (the bias feature needs the next index); reject such indices with --max-features N (Options.MaxFeatures)"},
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
			if c.index == math.MaxInt32-1 && (err == nil || !strings.Contains(err.Error(), "--max-features 2147483646")) {
				t.Errorf("index %d, -s %s: %v does not name --max-features 2147483646", c.index, p.Problem.Flag(), err)
			}
		}
	}
	d := loadText(t, "big.svm", "-1 1:1\n1 2147483646:1\n", dataio.Options{})
	_, _, err := Train(ctx, d, Params{Problem: SquaredHingeDual, C: 1})
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
	_, _, err = Train(ctx, hdr, Params{Problem: SquaredHingeDual, C: 1})
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
	for _, s := range []Problem{SquaredHingeDual, HingeDual, LogisticDual, WestonWatkins} {
		_, _, err := Train(ctx, d, Params{Problem: s, C: 1})
		want := d.Source + ":5: label 2.5 is not an integer: classifiers take integer class labels " +
			"(liblinear would truncate it to 2 and make every distinct value a class); for regression targets use -s lasso"
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
	if want := huge.Source + ":2: label 3e+09 is not a class label: classifiers take integer labels in the int32 range (liblinear stores them as C ints); for regression targets use -s lasso"; err == nil || err.Error() != want {
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
