package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
)

// heartScale returns $ACFCD_DATA's heart_scale (270 rows), or skips.
func heartScale(t *testing.T) string {
	t.Helper()
	p := filepath.Join(os.Getenv("ACFCD_DATA"), "heart_scale.bz2")
	if os.Getenv("ACFCD_DATA") == "" {
		t.Skip("ACFCD_DATA is not set")
	}
	if _, err := os.Stat(p); err != nil {
		t.Skip(err)
	}
	return p
}

// TestFindCStopsAsLiblinear: -s 0 on heart_scale stops where liblinear
// 2.3.0 and 2.50 stop (log2c = 9: w unchanged for five C), with their
// best C, instead of running on to the largest C.
func TestFindCStopsAsLiblinear(t *testing.T) {
	out, _, err := runCmd(t, "train", "-C", "-s", "0", heartScale(t))
	if err != nil {
		t.Fatal(err)
	}
	logs := regexp.MustCompile(`(?m)^log2c=\s*(-?\d+\.\d\d)\t`).FindAllStringSubmatch(out, -1)
	if len(logs) != 22 || logs[0][1] != "-12.00" || logs[21][1] != "9.00" || strings.Contains(out, "maximum C") {
		t.Errorf("C searched:\n%s\nwant log2c -12 to 9, no maximum C warning, as liblinear", out)
	}
	if !strings.HasSuffix(out, "Best C = 0.00390625  CV accuracy = 83.3333%\n") {
		t.Errorf("output\n%s\nwant liblinear's best C 0.00390625 (83.3333%%)", out)
	}
}

// TestLeaveOneOut: more folds than rows warn as liblinear and are
// leave-one-out, for -v and -C.
func TestLeaveOneOut(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 30, 3)
	const warning = "WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out cross validation)\n"
	out, stderr, err := runCmd(t, "train", "-q", "-v", "300", data)
	if err != nil {
		t.Fatal(err)
	}
	loo, _, err := runCmd(t, "train", "-q", "-v", "30", data)
	if err != nil {
		t.Fatal(err)
	}
	if stderr != warning || out != loo {
		t.Errorf("-v 300 on 30 rows: stdout %q, stderr %q; want %q (-v 30's) and liblinear's warning", out, stderr, loo)
	}
	out, stderr, err = runCmd(t, "train", "-C", "-s", "2", "-v", "300", data)
	if err != nil || stderr != warning || !strings.HasPrefix(out, "Doing parameter search with 300-fold cross validation.\n") {
		t.Errorf("-C -v 300: %v, stdout %q, stderr %q", err, out, stderr)
	}
}

// TestMaxIterationsLine: at the epoch cap liblinear's line is on stdout
// after "optimization finished" (not with -q); acfcd's words on stderr.
func TestMaxIterationsLine(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 200, 3)
	out, stderr, err := runCmd(t, "train", "-s", "3", "-c", "100", "--fallback", "none", "--max-epochs", "1", data, filepath.Join(dir, "m"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "optimization finished, #iter = 1\nWARNING: reaching max number of iterations\n") ||
		!strings.Contains(stderr, "acfcd: warning: reached the cap") {
		t.Errorf("stdout\n%s\nstderr\n%s\nwant liblinear's line after optimization finished, acfcd's on stderr", out, stderr)
	}
	out, _, _ = runCmd(t, "train", "-q", "-s", "3", "-c", "100", "--fallback", "none", "--max-epochs", "1", data, filepath.Join(dir, "m"))
	if out != "" {
		t.Errorf("-q: stdout %q", out)
	}
}

// TestTotalsLine: the primal Newton solvers' line has no duality gap and
// no selection, or where they went through the dual first, its steps and
// selection and the Newton steps after; a gap above the objective is
// remarked upon.
func TestTotalsLine(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 100, 3)
	for _, s := range []string{"0", "2"} {
		out, _, err := runCmd(t, "train", "-s", s, data, filepath.Join(dir, "m"))
		if err != nil {
			t.Fatal(err)
		}
		last := out[strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1:]
		if !regexp.MustCompile(`^max violation = \S+, nnz\(w\) = \d+, \d+ Newton steps, \d+\.\d{3} s\n$`).MatchString(last) {
			t.Errorf("-s %s: last line %q", s, last)
		}
	}
	// Fewer examples than weights: through the dual first.
	wide := writeProblem(t, dir, "w.svm", 12, 3)
	for _, s := range []string{"0", "2", "11"} {
		out, _, err := runCmd(t, "train", "-s", s, wide, filepath.Join(dir, "m"))
		if err != nil {
			t.Fatal(err)
		}
		last := out[strings.LastIndex(strings.TrimSuffix(out, "\n"), "\n")+1:]
		if !regexp.MustCompile(`^max violation = \S+, nnz\(w\) = \d+, \d+ coordinate steps on the dual \(acf(\+shrink)? selection\), then \d+ Newton steps, \d+\.\d{3} s\n$`).MatchString(last) {
			t.Errorf("-s %s, 12 rows: last line %q", s, last)
		}
	}
	var b strings.Builder
	printTotals(&b, acfcd.HingeDual, &acfcd.Result{Violation: 0.1, Gap: 5, Objective: -2, Iterations: 10, Select: "acf"})
	if want := "max violation = 0.1, duality gap = 5 (above |objective|: a smaller -e tightens it), nnz(w) = 0, 10 coordinate steps (acf selection), 0.000 s\n"; b.String() != want {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
}

// TestReportsJSON: --report json with -v, with -C and for predict; the
// LASSO's λ by cross-validation reports lambda.min and lambda.1se.
func TestReportsJSON(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 60, 3)
	lastJSON := func(out string) map[string]any {
		t.Helper()
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		var m map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
			t.Fatalf("last line of\n%s\n: %v", out, err)
		}
		return m
	}
	out, _, err := runCmd(t, "train", "-q", "-v", "5", "--report", "json", data)
	if err != nil {
		t.Fatal(err)
	}
	if m := lastJSON(out); m["folds"] != 5.0 || m["rows"] != 60.0 || m["accuracy"] == nil || m["correct"] == nil {
		t.Errorf("-v report %v", m)
	}
	out, _, err = runCmd(t, "train", "-C", "-q", "-s", "2", "--report", "json", data)
	if err != nil {
		t.Fatal(err)
	}
	if m := lastJSON(out); m["folds"] != 5.0 || m["best_C"] == nil || m["accuracy"] == nil {
		t.Errorf("-C report %v", m)
	}
	mdl := filepath.Join(dir, "m")
	if _, _, err := runCmd(t, "train", "-q", data, mdl); err != nil {
		t.Fatal(err)
	}
	out, _, err = runCmd(t, "predict", "--report", "json", data, mdl, filepath.Join(dir, "p"))
	if err != nil {
		t.Fatal(err)
	}
	if m := lastJSON(out); m["rows"] != 60.0 || m["accuracy"] == nil || m["correct"] == nil {
		t.Errorf("predict report %v", m)
	}
	out, _, err = runCmd(t, "train", "-q", "-s", "lasso", "-v", "3", "--lambda-path", "8", "--report", "json", data, mdl)
	if err != nil {
		t.Fatal(err)
	}
	if m := lastJSON(out); m["lambda_min"] == nil || m["lambda_1se"] == nil || m["lambda_min_k"] == nil || m["lambda_1se_k"] == nil {
		t.Errorf("LASSO CV report %v", m)
	}
}
