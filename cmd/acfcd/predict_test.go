package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/testkit"
)

// liblinearPredictors are the liblinear-predict programs to compare with,
// where installed: 2.50's and Debian's 2.3.0.
func liblinearPredictors() []string {
	var exes []string
	for _, exe := range []string{"/work/anchors/liblinear-2.50/predict", "liblinear-predict"} {
		if p, ok := testkit.Runs(exe); ok {
			exes = append(exes, p)
		}
	}
	return exes
}

// comparePredict runs acfcd predict and each installed liblinear-predict
// on the same files and requires the same output file, byte for byte,
// and the same line on stdout.
func comparePredict(t *testing.T, dir string, args ...string) string {
	t.Helper()
	n := len(args)
	data, mdl := args[n-2], args[n-1]
	out := filepath.Join(dir, "acfcd.out")
	stdout, _, err := runCmd(t, append(append([]string{"predict"}, args[:n-2]...), data, mdl, out)...)
	if err != nil {
		t.Fatal(err)
	}
	ours := string(mustRead(t, out))
	for _, exe := range liblinearPredictors() {
		lout := filepath.Join(dir, "liblinear.out")
		c := exec.Command(exe, append(append([]string{}, args[:n-2]...), data, mdl, lout)...)
		lstdout, err := c.Output()
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		if theirs := string(mustRead(t, lout)); theirs != ours {
			t.Errorf("%s writes\n%s\nacfcd predict writes\n%s", exe, theirs, ours)
		}
		if string(lstdout) != stdout {
			t.Errorf("%s prints %q, acfcd predict %q", exe, lstdout, stdout)
		}
	}
	return ours
}

// TestPredictFullPrecision: predictions are written as liblinear-predict
// writes them, with "%.17g": class labels such as 1234567 in full (not
// 1.23457e+06) and regression values that read back to the same double;
// the -b 1 "labels" line in full too. The output file is compared with
// liblinear-predict's byte for byte where it is installed.
func TestPredictFullPrecision(t *testing.T) {
	dir := t.TempDir()
	data := writeText(t, dir, "big.svm", "1234567 1:1 2:0.5\n7654321 1:-1 3:0.5\n1234567 2:1\n7654321 3:1\n-2000000001 1:-3\n")
	mdl := filepath.Join(dir, "big.model")
	if _, _, err := runCmd(t, "train", "-s", "7", "-q", data, mdl); err != nil {
		t.Fatal(err)
	}
	out := comparePredict(t, dir, data, mdl)
	for _, l := range strings.Fields(out) {
		if l != "1234567" && l != "7654321" && l != "-2000000001" {
			t.Errorf("prediction %q is not a label of the data", l)
		}
	}
	// -b 1: the labels line and each line's label in full (liblinear
	// writes "%g" there: 1.23457e+06).
	pout := filepath.Join(dir, "p.out")
	if _, _, err := runCmd(t, "predict", "-b", "1", data, mdl, pout); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(mustRead(t, pout)), "\n")
	if lines[0] != "labels 1234567 7654321 -2000000001" {
		t.Errorf("-b 1 header %q", lines[0])
	}
	for _, l := range lines[1 : len(lines)-1] {
		f := strings.Fields(l)
		if len(f) != 4 || (f[0] != "1234567" && f[0] != "7654321" && f[0] != "-2000000001") {
			t.Errorf("-b 1 line %q", l)
		}
	}
	// With small labels -b 1 is liblinear-predict's file, byte for byte.
	small := writeProblem(t, dir, "small.svm", 40, 9)
	if _, _, err := runCmd(t, "train", "-s", "7", "-q", small, mdl); err != nil {
		t.Fatal(err)
	}
	comparePredict(t, dir, "-b", "1", small, mdl)

	// Regression: an SVR model as liblinear writes one, with weights that
	// give values of every magnitude.
	svr := filepath.Join(dir, "svr.model")
	os.WriteFile(svr, []byte("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 3\nbias 1\nw\n30.439935005028694 \n-1e-7 \n3.0000000000000004e+20 \n0.1 \n"), 0o644)
	rdata := writeText(t, dir, "reg.svm", "30.4 1:1\n0 2:1\n1e20 3:1\n0.1\n-5 1:0.3333333333333333 2:7 3:1e-30\n")
	rout := comparePredict(t, dir, rdata, svr)
	m, err := acfcd.LoadModel(svr)
	if err != nil {
		t.Fatal(err)
	}
	d, err := acfcd.Load(rdata, acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Fields(rout)
	if len(got) != d.Rows {
		t.Fatalf("%d predictions for %d rows", len(got), d.Rows)
	}
	for i, s := range got {
		idx, val := d.Row(i)
		want := m.Predict(idx, val)
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Errorf("row %d: wrote %q, which reads back as %v, not %v", i, s, v, want)
		}
	}
	if got[0] != "30.539935005028696" {
		t.Errorf("first prediction %q, want 30.539935005028696", got[0])
	}
}

// TestPredictBlankLines: predictions line up with the input's lines. A
// file with blank or comment-only lines is refused, naming the first
// such line (liblinear-predict refuses it too); comments after an example,
// CRLF and a missing final newline are fine, and give one prediction per
// line.
func TestPredictBlankLines(t *testing.T) {
	dir := t.TempDir()
	train := writeProblem(t, dir, "train.svm", 60, 11)
	mdl := filepath.Join(dir, "m")
	if _, _, err := runCmd(t, "train", "-q", train, mdl); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 10 {
		switch i {
		case 3:
			b.WriteString("\n")
		case 6:
			b.WriteString("# a comment line\n")
		case 8:
			b.WriteString("   \t\n")
		default:
			fmt.Fprintf(&b, "%+d 1:%d 3:0.5\n", 1-2*(i%2), i)
		}
	}
	data := writeText(t, dir, "gaps.svm", b.String())
	out := filepath.Join(dir, "out")
	_, _, err := runCmd(t, "predict", data, mdl, out)
	want := data + ":4:1: blank line, but each line must hold an example here (acfcd predict writes one line for each line of DATA)"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("predictions were written")
	}
	for _, exe := range liblinearPredictors() {
		if err := exec.Command(exe, data, mdl, filepath.Join(dir, "lout")).Run(); err == nil {
			t.Errorf("%s accepts the blank line", exe)
		}
	}
	comment := writeText(t, dir, "comment.svm", "# header\n1 1:1\n")
	if _, _, err := runCmd(t, "predict", comment, mdl, out); err == nil || !strings.HasPrefix(err.Error(), comment+":1:1: comment line") {
		t.Errorf("comment line: %v", err)
	}
	ndjson := writeText(t, dir, "gaps.ndjson", "{\"label\": 1}\n\n{\"label\": -1}\n")
	if _, _, err := runCmd(t, "predict", ndjson, mdl, out); err == nil || !strings.HasPrefix(err.Error(), ndjson+":2:1: blank line") {
		t.Errorf("NDJSON: %v", err)
	}

	clean := writeText(t, dir, "clean.svm", "1 1:1 # why\r\n-1 2:1\r\n1 3:1 #\n-1")
	if _, _, err := runCmd(t, "predict", "-q", clean, mdl, out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(mustRead(t, out)), "\n"); n != 4 {
		t.Errorf("%d predictions for 4 lines", n)
	}
	// Training still takes such files.
	if _, _, err := runCmd(t, "train", "-q", data, filepath.Join(dir, "m2")); err != nil {
		t.Errorf("train: %v", err)
	}
}
