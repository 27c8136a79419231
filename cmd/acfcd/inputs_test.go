package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/internal/testkit"
)

// writeText writes text to dir/name and returns the path.
func writeText(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTrainHugeIndex: a two-line file naming feature 2147483646 stops
// training with a message that names the line and --max-features, and
// writes no model; --max-features below the index rejects it at load.
func TestTrainHugeIndex(t *testing.T) {
	dir := t.TempDir()
	data := writeText(t, dir, "big.svm", "-1 1:1\n1 2147483646:1\n")
	model := filepath.Join(dir, "big.model")
	for _, s := range []string{"1", "3", "7", "ww"} {
		_, _, err := runCmd(t, "train", "-s", s, data, model)
		if err == nil || !strings.HasPrefix(err.Error(), data+":2: feature count 2147483646 (set by the largest feature index, here) is too many") ||
			!strings.Contains(err.Error(), "--max-features 2147483646") {
			t.Errorf("-s %s: %v", s, err)
		}
	}
	_, _, err := runCmd(t, "train", "-s", "lasso", "--lambda", "1", data, model)
	if err == nil || !strings.Contains(err.Error(), "the LASSO would allocate 64.0 GiB of dense weights") {
		t.Errorf("lasso: %v", err)
	}
	if _, err := os.Stat(model); err == nil {
		t.Error("a model was written")
	}
	_, _, err = runCmd(t, "train", "--max-features", "100", data, model)
	if want := data + ":2:3: feature index 2147483646 exceeds the cap of 100 features (--max-features 2147483646 reads this file)"; err == nil || err.Error() != want {
		t.Errorf("--max-features 100:\n got  %v\n want %s", err, want)
	}
}

// TestTrainLabels: classifiers refuse regression targets with the file and
// line, in cross-validation too; the LASSO takes class labels.
func TestTrainLabels(t *testing.T) {
	dir := t.TempDir()
	data := writeText(t, dir, "reg.svm", "# y x\n1 1:1\n\n0.5 2:1\n-1 1:1 2:1\n")
	model := filepath.Join(dir, "m")
	want := data + ":4: label 0.5 is not an integer: classifiers take integer class labels " +
		"(liblinear would truncate it to 0 and make every distinct value a class); for regression targets use -s lasso or an SVR (-s 11, 12, 13)"
	for _, s := range []string{"1", "7", "ww"} {
		if _, _, err := runCmd(t, "train", "-s", s, data, model); err == nil || err.Error() != want {
			t.Errorf("-s %s:\n got  %v\n want %s", s, err, want)
		}
	}
	if _, _, err := runCmd(t, "train", "-v", "2", data); err == nil || !strings.HasSuffix(err.Error(), want) || !strings.HasPrefix(err.Error(), "fold ") {
		t.Errorf("-v 2: %v", err)
	}
	if _, _, err := runCmd(t, "train", "-q", "-s", "lasso", "--lambda", "0.01", data, model); err != nil {
		t.Errorf("lasso on the same file: %v", err)
	}
	cls := writeText(t, dir, "cls.svm", "1 1:1\n-1 2:1\n1 1:1 2:0.5\n")
	if _, _, err := runCmd(t, "train", "-q", "-s", "lasso", "--lambda", "0.01", cls, model); err != nil {
		t.Errorf("lasso on class labels: %v", err)
	}
}

// TestPredictMismatch: data with more features than the model (up to
// index 2147483647) and labels the model does not know predict as
// liblinear-predict does: extra features are ignored.
func TestPredictMismatch(t *testing.T) {
	dir := t.TempDir()
	train := writeText(t, dir, "train.svm", "1 1:1 2:0.5\n-1 2:1 3:1\n1 1:2\n-1 3:2\n")
	model := filepath.Join(dir, "m")
	if _, _, err := runCmd(t, "train", "-q", "-B", "1", train, model); err != nil {
		t.Fatal(err)
	}
	test := writeText(t, dir, "test.svm", "1 1:1 7:3\n5 3:1 2147483647:100\n-1 2:1 3:1 4:1\n7\n")
	out := filepath.Join(dir, "out")
	stdout, _, err := runCmd(t, "predict", test, model, out)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if string(got) != "1\n-1\n-1\n1\n" || stdout != "Accuracy = 50% (2/4)\n" {
		t.Errorf("predictions %q, %q", got, stdout)
	}
	if ll, ok := testkit.Runs("liblinear-predict"); ok {
		llOut := filepath.Join(dir, "ll")
		b, err := exec.Command(ll, test, model, llOut).CombinedOutput()
		if err != nil {
			t.Fatalf("liblinear-predict: %v: %s", err, b)
		}
		want, _ := os.ReadFile(llOut)
		if string(got) != string(want) || !strings.Contains(string(b), strings.TrimSpace(stdout)) {
			t.Errorf("acfcd %q %q, liblinear-predict %q %q", got, stdout, want, b)
		}
	}
	// A model header claiming absurd sizes is an error, not an allocation.
	bad := writeText(t, dir, "bad.model", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 1000000000000\nbias -1\nw\n")
	if _, _, err := runCmd(t, "predict", test, bad, out); err == nil || err.Error() != bad+`:4: nr_feature "1000000000000" out of range [0, 2147483647]` {
		t.Errorf("absurd model: %v", err)
	}
	empty := writeText(t, dir, "empty.model", "solver_type L2R_LR\nnr_class 2\nlabel 1 -1\nnr_feature 2147483647\nbias -1\nw\n")
	if _, _, err := runCmd(t, "predict", test, empty, out); err == nil || err.Error() != empty+":7: unexpected end of file: 0 of 2147483647 weight rows" {
		t.Errorf("model without weights: %v", err)
	}
}

// TestMaxLine: a compressed file is read as a stream; --max-line bounds
// its lines for info and train alike, naming the file and line, and a
// NUL byte in it is refused where it stands.
func TestMaxLine(t *testing.T) {
	dir := t.TempDir()
	gz := func(name, text string) string {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write([]byte(text))
		w.Close()
		return writeText(t, dir, name, b.String())
	}
	data := gz("long.svm.gz", "1 1:1\n-1 1:1 2:1 3:1\n1 2:1\n")
	if _, _, err := runCmd(t, "info", "--max-line", "14", data); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	want := data + ":2: line longer than 13 bytes, the limit for a stream (--max-line)"
	for _, cmd := range []string{"info", "train"} {
		args := []string{cmd, "--max-line", "13", data}
		if cmd == "train" {
			args = append(args, filepath.Join(dir, "m"))
		}
		if _, _, err := runCmd(t, args...); err == nil || err.Error() != want {
			t.Errorf("%s: err %v, want %q", cmd, err, want)
		}
	}
	nul := gz("nul.svm.gz", "1 1:1\n-1 2:\x00\n")
	if _, _, err := runCmd(t, "info", nul); err == nil || err.Error() != nul+":2:6: a NUL byte: not libsvm or NDJSON text" {
		t.Errorf("NUL: err %v", err)
	}
}
