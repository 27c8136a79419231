package main

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
)

// TestTrainFindC: train -C prints liblinear's lines: the header, one
// "log2c=…\trate=…" line per C (doubling), the warning when the largest C
// ended the search, and the best C, which is the first of the highest
// rate printed; -q leaves out the per-C lines, -c sets the first C.
func TestTrainFindC(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "p.svm", 120, 5)
	out, _, err := runCmd(t, "train", "-C", "-s", "3", "-v", "3", "-B", "1", data)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if lines[0] != "Doing parameter search with 3-fold cross validation." {
		t.Fatalf("first line %q", lines[0])
	}
	re := regexp.MustCompile(`^log2c=( *-?\d+\.\d\d)\trate=(\d+(\.\d+)?)$`)
	bestLog, bestRate, bestText := 0.0, -1.0, ""
	var logs []float64
	k := 1
	for ; k < len(lines) && re.MatchString(lines[k]); k++ {
		m := re.FindStringSubmatch(lines[k])
		if len(m[1]) != 7 {
			t.Errorf("line %q: log2c is not %%7.2f", lines[k])
		}
		lg, _ := strconv.ParseFloat(strings.TrimSpace(m[1]), 64)
		rate, _ := strconv.ParseFloat(m[2], 64)
		if len(logs) > 0 && lg != logs[len(logs)-1]+1 {
			t.Errorf("line %q: log2c does not follow %g", lines[k], logs[len(logs)-1])
		}
		logs = append(logs, lg)
		if rate > bestRate {
			bestLog, bestRate, bestText = lg, rate, m[2]
		}
	}
	if len(logs) < 2 || logs[len(logs)-1] != 10 {
		t.Fatalf("log2c %v: want a search up to 10 (C = 1024)\n%s", logs, out)
	}
	want := []string{"WARNING: maximum C reached.", fmt.Sprintf("Best C = %.6g  CV accuracy = %s%%", math.Exp2(bestLog), bestText)}
	if got := lines[k:]; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("last lines %q, want %q", got, want)
	}

	// The same points as the library's search.
	d, err := acfcd.Load(data, acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := acfcd.FindC(t.Context(), d, acfcd.Params{Problem: acfcd.HingeDual, Bias: 1}, 3, acfcd.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, pt := range cs.Points {
		printPoint(&b, pt, false)
	}
	if got := strings.Join(lines[1:k+1], "\n") + "\n"; got != b.String() {
		t.Errorf("lines\n%s\nwant the library's\n%s", got, b.String())
	}

	out, _, err = runCmd(t, "train", "-C", "-s", "1", "-q", "-c", "0.5", data)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`^Doing parameter search with 5-fold cross validation.\nBest C = \S+  CV accuracy = \S+%\n$`).MatchString(out) {
		t.Errorf("-q: output %q, want the header and the best C", out)
	}
	out, _, err = runCmd(t, "train", "-C", "-s", "7", "-c", "0.5", "-v", "2", data)
	if err != nil || !strings.Contains(out, "\nlog2c=  -1.00\t") || strings.Contains(out, "log2c=  -2.00") {
		t.Errorf("-c 0.5: output %q (%v), want the search to start at log2c = -1", out, err)
	}
}

// TestTrainFindCDefaults: without -s, -C uses -s 2 and says so, as
// liblinear; what has no C is refused.
func TestTrainFindCDefaults(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "p.svm", 60, 6)
	_, errOut, _ := runCmd(t, "train", "-C", "-v", "2", data)
	if !strings.HasPrefix(errOut, "Solver not specified. Using -s 2\n") {
		t.Errorf("stderr %q, want liblinear's note on the default solver", errOut)
	}
	if _, _, err := runCmd(t, "train", "-C", "-s", "lasso", "--lambda", "1", data); err == nil || !strings.Contains(err.Error(), "lambda-path") {
		t.Errorf("-C -s lasso: error %v, want one pointing to the λ path", err)
	}
	if _, _, err := runCmd(t, "train", "-C", "-s", "21", data); err == nil || !strings.Contains(err.Error(), "no C") {
		t.Errorf("-C -s 21: error %v, want one saying the one-class SVM has no C", err)
	}
}

// TestPrintPointSVR: the SVRs' line and liblinear's warning.
func TestPrintPointSVR(t *testing.T) {
	var b bytes.Buffer
	printPoint(&b, acfcd.CPoint{C: 0.125, P: 0.5, MSE: 1.234567891, MaxCReached: true}, true)
	if want := "log2c=  -3.00\tp=   0.50\tMean squared error=1.23457\nWARNING: maximum C reached.\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}
