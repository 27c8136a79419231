package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
)

// runCmd runs the command line in args and returns stdout, stderr and the error.
func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(&out, &errb, args)
	return out.String(), errb.String(), err
}

// writeProblem writes a separable-ish binary libsvm file and returns its path.
func writeProblem(t *testing.T, dir, name string, rows int, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for i := 0; i < rows; i++ {
		y := 1
		if r.IntN(2) == 0 {
			y = -1
		}
		fmt.Fprintf(&b, "%+d", y)
		for j := 1; j <= 20; j++ {
			if r.IntN(3) == 0 {
				v := r.Float64()
				if j <= 3 {
					v += float64(y)
				}
				fmt.Fprintf(&b, " %d:%.4g", j, v)
			}
		}
		b.WriteString("\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"frobnicate"},
		{"train"},
		{"train", "-s", "8", "x"},
		{"train", "-nosuchflag", "x"},
		{"train", "-w1"},
		{"train", "-w1", "zero", "x"},
		{"predict", "a", "b"},
		{"info"},
		{"convert", "a"},
		{"demo", "extra"},
	} {
		_, _, err := runCmd(t, args...)
		var ue usageError
		if !errors.As(err, &ue) {
			t.Errorf("%q: got %v, want a usage error (exit 2)", args, err)
		}
	}
}

func TestInfoAndConvert(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "small.svm")
	os.WriteFile(data, []byte("+1 1:0.5 3:1\n-1 2:2 # comment\n\n1 4:1e0\n"), 0o644)
	out, _, err := runCmd(t, "info", "--json", data)
	if err != nil {
		t.Fatal(err)
	}
	var in info
	if err := json.Unmarshal([]byte(out), &in); err != nil {
		t.Fatalf("info --json printed %q: %v", out, err)
	}
	if in.Rows != 3 || in.Features != 4 || in.NNZ != 4 || len(in.Labels) != 2 || in.LabelCounts[1] != 2 {
		t.Errorf("info = %+v", in)
	}
	cache := filepath.Join(dir, "small.acf")
	if _, _, err := runCmd(t, "convert", data, cache); err != nil {
		t.Fatal(err)
	}
	out2, _, err := runCmd(t, "info", "--json", cache)
	if err != nil {
		t.Fatal(err)
	}
	var in2 info
	json.Unmarshal([]byte(out2), &in2)
	if in2.Rows != in.Rows || in2.NNZ != in.NNZ || in2.Features != in.Features {
		t.Errorf("cache info %+v differs from text %+v", in2, in)
	}
}

func TestBadDataNamesFileLineColumn(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "bad.svm")
	os.WriteFile(data, []byte("1 1:1\n1 2:x\n"), 0o644)
	_, _, err := runCmd(t, "train", data, filepath.Join(dir, "m"))
	if err == nil || !strings.Contains(err.Error(), data+":2:") {
		t.Fatalf("got %v, want an error naming %s:2:col", err, data)
	}
	if _, err := os.Stat(filepath.Join(dir, "m")); !os.IsNotExist(err) {
		t.Errorf("a model file was written for bad data")
	}
}

func TestTrainPredictReport(t *testing.T) {
	dir := t.TempDir()
	train := writeProblem(t, dir, "train.svm", 300, 1)
	test := writeProblem(t, dir, "test.svm", 100, 2)
	model := filepath.Join(dir, "train.model")
	for _, s := range []string{"1", "3", "7"} {
		out, _, err := runCmd(t, "train", "-s", s, "-c", "2", "-e", "0.001", "-B", "1", "-w1", "2", "--report", "json", train, model)
		if err != nil {
			t.Fatalf("-s %s: %v", s, err)
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var rep map[string]any
		if err := json.Unmarshal([]byte(lines[len(lines)-1]), &rep); err != nil {
			t.Fatalf("-s %s: last line %q is not JSON: %v", s, lines[len(lines)-1], err)
		}
		for _, k := range []string{"solver", "select", "C", "eps", "iterations", "epochs", "operations", "seconds", "objective", "primal", "violation", "nnz_w"} {
			if _, ok := rep[k]; !ok {
				t.Errorf("-s %s: report lacks %q: %s", s, k, lines[len(lines)-1])
			}
		}
		if v := rep["violation"].(float64); v > 0.001 {
			t.Errorf("-s %s: violation %g > eps", s, v)
		}
		m, err := acfcd.LoadModel(model)
		if err != nil {
			t.Fatal(err)
		}
		if m.SolverType != mustProblem(t, s).String() || m.Bias != 1 {
			t.Errorf("-s %s: model header %s bias %g", s, m.SolverType, m.Bias)
		}
		pout, _, err := runCmd(t, "predict", test, model, filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		var pct float64
		var a, b int
		if _, err := fmt.Sscanf(pout, "Accuracy = %g%% (%d/%d)", &pct, &a, &b); err != nil || b != 100 || pct < 80 {
			t.Errorf("-s %s: predict printed %q", s, pout)
		}
		pred, _ := os.ReadFile(filepath.Join(dir, "out"))
		if n := strings.Count(string(pred), "\n"); n != 100 {
			t.Errorf("-s %s: %d prediction lines, want 100", s, n)
		}
	}
	// -b 1 works for logistic regression only.
	if _, _, err := runCmd(t, "predict", "-b", "1", test, model, filepath.Join(dir, "p")); err != nil {
		t.Errorf("-b 1 on an LR model: %v", err)
	}
	p, _ := os.ReadFile(filepath.Join(dir, "p"))
	if !strings.HasPrefix(string(p), "labels 1 -1\n") && !strings.HasPrefix(string(p), "labels -1 1\n") {
		t.Errorf("-b 1 output starts %q", strings.SplitN(string(p), "\n", 2)[0])
	}
	runCmd(t, "train", "-s", "3", "-q", train, model)
	if _, _, err := runCmd(t, "predict", "-b", "1", test, model, filepath.Join(dir, "p")); err == nil {
		t.Errorf("-b 1 on an SVM model: no error")
	}
}

func TestCrossValidation(t *testing.T) {
	dir := t.TempDir()
	train := writeProblem(t, dir, "train.svm", 200, 3)
	out, _, err := runCmd(t, "train", "-v", "4", "-q", train)
	if err != nil {
		t.Fatal(err)
	}
	var acc float64
	if _, err := fmt.Sscanf(out, "Cross Validation Accuracy = %g%%", &acc); err != nil || acc < 80 {
		t.Errorf("cross validation printed %q", out)
	}
}

// TestCrossValidationProcs: the folds run concurrently on two processors
// and print the same accuracy as on one; float32 storage works too.
func TestCrossValidationProcs(t *testing.T) {
	dir := t.TempDir()
	train := writeProblem(t, dir, "train.svm", 400, 5)
	for _, args := range [][]string{{"-s", "1"}, {"-s", "3", "-v", "3"}, {"-s", "7", "-B", "1"}, {"-s", "ww"}, {"--float32"}} {
		var outs []string
		for _, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			out, _, err := runCmd(t, append(append([]string{"train", "-v", "5", "-q"}, args...), train)...)
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			outs = append(outs, out)
		}
		var acc float64
		if _, err := fmt.Sscanf(outs[0], "Cross Validation Accuracy = %g%%\n", &acc); err != nil || acc < 80 || outs[1] != outs[0] {
			t.Errorf("%v: printed %q on one processor, %q on two", args, outs[0], outs[1])
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, err := runCmd(t, "version")
	if err != nil || !strings.Contains(out, "chosen") || !strings.Contains(out, "cpu") {
		t.Errorf("version: %q, %v", out, err)
	}
}

// TestWarningsPrinted: a -wi label that does not occur is a warning, as in
// liblinear, printed on stderr; training goes on.
func TestWarningsPrinted(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 50, 3)
	_, stderr, err := runCmd(t, "train", "-q", "-w7", "2", data, filepath.Join(dir, "m"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "WARNING: class label 7 specified in weight is not found\n"; stderr != want { // liblinear's line
		t.Errorf("stderr %q, want %q", stderr, want)
	}
}

func mustProblem(t *testing.T, s string) acfcd.Problem {
	t.Helper()
	p, err := acfcd.ParseProblem(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
