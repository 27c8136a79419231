package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
)

// writeRegression writes a libsvm file of real targets and returns its path.
func writeRegression(t *testing.T, dir string, rows int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for range rows {
		var line strings.Builder
		y := 0.5
		for j := 1; j <= 8; j++ {
			if r.IntN(2) == 0 {
				v := r.Float64()
				y += float64(j) * v
				fmt.Fprintf(&line, " %d:%.4g", j, v)
			}
		}
		fmt.Fprintf(&b, "%.5g%s\n", y+0.1*r.NormFloat64(), line.String())
	}
	p := filepath.Join(dir, "reg.svm")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSVRAndOneClassCommands: -s 12, 13 and 21 train with -p and -n, print
// liblinear's nSV and rho lines, -B 0 writes liblinear's bias row for the
// regressions and is refused for the one-class SVM, and predict prints
// regression values as liblinear-predict does (%.17g) and one-class
// accuracy.
func TestSVRAndOneClassCommands(t *testing.T) {
	dir := t.TempDir()
	data := writeRegression(t, dir, 200)
	model := filepath.Join(dir, "m")
	for _, s := range []string{"12", "13"} {
		out, _, err := runCmd(t, "train", "-s", s, "-c", "4", "-p", "0", "-B", "0", "-e", "0.001", data, model)
		if err != nil || !strings.Contains(out, "nSV = ") {
			t.Fatalf("-s %s: %v\n%s", s, err, out)
		}
		m, err := acfcd.LoadModel(model)
		if err != nil || m.Bias != 0 || len(m.W) != 9 || m.W[8] != 0 {
			t.Fatalf("-s %s -B 0: %v, bias %g, %d weights", s, err, m.Bias, len(m.W))
		}
		pout, _, err := runCmd(t, "predict", data, model, filepath.Join(dir, "out"))
		if err != nil || !strings.HasPrefix(pout, "Mean squared error = ") {
			t.Fatalf("-s %s predict: %v %q", s, err, pout)
		}
		d, _ := acfcd.Load(data, acfcd.Options{})
		ev, _ := acfcd.Evaluate(m, d)
		b, _ := os.ReadFile(filepath.Join(dir, "out"))
		if first := strings.SplitN(string(b), "\n", 2)[0]; first != strconv.FormatFloat(ev.Predicted[0], 'g', 17, 64) {
			t.Fatalf("-s %s: first prediction %q, want %.17g", s, first, ev.Predicted[0])
		}
	}
	out, _, err := runCmd(t, "train", "-s", "21", "-n", "0.2", data, model)
	if err != nil || !strings.Contains(out, "nSV = ") || !strings.Contains(out, "rho = ") {
		t.Fatalf("-s 21: %v\n%s", err, out)
	}
	if pout, _, err := runCmd(t, "predict", data, model, filepath.Join(dir, "out")); err != nil || !strings.HasPrefix(pout, "Accuracy = ") {
		t.Fatalf("-s 21 predict: %v %q", err, pout)
	}
	for _, args := range [][]string{{"-s", "21", "-B", "0"}, {"-s", "21", "-n", "0"}, {"-s", "21", "-n", "1.5"}, {"-s", "12", "-p", "NaN"}} {
		if _, _, err := runCmd(t, append(append([]string{"train"}, args...), data, model)...); err == nil {
			t.Errorf("train %v: no error", args)
		}
	}
}
