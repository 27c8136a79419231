package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/synth"
)

// writeHuge writes 60 separable rows with two features of about scale.
func writeHuge(t *testing.T, dir string, scale float64) string {
	t.Helper()
	p := filepath.Join(dir, "big.svm")
	if err := os.WriteFile(p, []byte(synth.ScaledText(60, scale, 1, 1, true)), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Values of 1e153 (squares finite, their sums not) left -s 0, 2 and 11 at
// w = 0 with "max violation = NaN", and -s 4 at about 12% accuracy, exit
// status 0 both. The data are separable: every classifier must say so.
func TestTrainHugeValues(t *testing.T) {
	dir := t.TempDir()
	data := writeHuge(t, dir, 1e153)
	model := filepath.Join(dir, "big.model")
	for _, s := range []string{"0", "2", "4"} {
		out, _, err := runCmd(t, "train", "-s", s, data, model)
		if err != nil || strings.Contains(out, "max violation = NaN") {
			t.Errorf("-s %s: %v\n%s", s, err, out)
			continue
		}
		pout, _, err := runCmd(t, "predict", data, model, filepath.Join(dir, "out"))
		if err != nil || pout != "Accuracy = 100% (60/60)\n" {
			t.Errorf("-s %s: predict: %v %q", s, err, pout)
		}
	}
}

// Where the arithmetic still leaves the float64 range (C = 1e300: the
// gradient at w = 0 overflows), train fails and names the largest value.
func TestTrainHugeValuesRefused(t *testing.T) {
	dir := t.TempDir()
	data := writeHuge(t, dir, 1e150)
	_, _, err := runCmd(t, "train", "-s", "0", "-c", "1e300", data, filepath.Join(dir, "big.model"))
	want := data + ":59: feature 1 value -1.989319e+150: the primal Newton method's ‖∇f(0)‖ is +Inf at C = 1e+300, " +
		"outside the float64 range; scale the features down (to about [-1, 1]) or use a smaller C"
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.model")); err == nil {
		t.Error("a model file was written")
	}
}
