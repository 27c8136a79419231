package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// info says a cache was mapped, not parsed at some MB/s, and gives no
// per-non-zero memory figure for data too small to measure one (it said
// "267.97 resident bytes per non-zero" for a tiny file).
func TestInfoWords(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 50, 21)
	cache := filepath.Join(dir, "d.acf")
	if _, _, err := runCmd(t, "convert", data, cache); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "info", cache)
	if err != nil || !strings.Contains(out, "\nmapped      a binary cache of ") || strings.Contains(out, "MB/s") || strings.Contains(out, "parsed") {
		t.Errorf("info of a cache: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, "info", data)
	if err != nil || !strings.Contains(out, "\nparsed      ") || strings.Contains(out, "resident bytes per non-zero") {
		t.Errorf("info of a tiny file: %v\n%s", err, out)
	}
	out, _, err = runCmd(t, "info", "--json", cache)
	if err != nil || !strings.Contains(out, `"cache":true`) || !strings.Contains(out, `"resident_bytes_per_nnz":0`) {
		t.Errorf("info --json of a cache: %v\n%s", err, out)
	}
}

// The demo's table says coordinate steps, not iterations (liblinear's
// #iter is epochs), and gives the speed-up in steps, which is the same on
// every machine, beside the one run's time.
func TestDemoColumns(t *testing.T) {
	out, _, err := runCmd(t, "demo", "--rows", "300", "--features", "600")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	var header string
	for _, l := range lines {
		if strings.Contains(l, "selection") {
			header = l
		}
	}
	if !strings.Contains(header, "coordinate steps") || strings.Contains(header, "iterations") || !strings.Contains(header, "fewer steps") {
		t.Errorf("header %q", header)
	}
	again, _, _ := runCmd(t, "demo", "--rows", "300", "--features", "600")
	steps := func(s string) []string {
		var f []string
		for _, l := range strings.Split(s, "\n") {
			if w := strings.Fields(l); len(w) == 8 && strings.HasSuffix(w[6], "x") {
				f = append(f, w[0], w[1], w[2], w[6]) // selection, steps, epochs, fewer steps
			}
		}
		return f
	}
	if a, b := steps(out), steps(again); len(a) != 16 || strings.Join(a, " ") != strings.Join(b, " ") {
		t.Errorf("steps differ between runs or rows missing:\n%v\n%v", a, b)
	}
	if !strings.Contains(out, "the seconds are one run each") {
		t.Errorf("no note on the seconds:\n%s", out)
	}
}

// The LASSO's flags that were silently dropped or misread are usage
// errors naming what to do, and ridge regression is pointed to -s 11.
func TestLassoFlagConflicts(t *testing.T) {
	dir := t.TempDir()
	data := writeRegression(t, dir, 60)
	mdl := filepath.Join(dir, "m")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--lambda", "10", "--lambda-path", "5"}, "--lambda 10 and --lambda-path 5: a path chooses its own λ from λ_max down; give one of them"},
		{[]string{"-c", "5", "--lambda", "1"}, "-c 5: the LASSO has no C; its penalty is --lambda"},
		{[]string{"--alpha", "0", "--lambda", "1"}, "--alpha 0: ridge regression (glmnet's alpha = 0) is -s 11 -p 0, the L2-regularised squared loss, with C = 1/λ; the elastic-net mixing of -s lasso must be in (0, 1]"},
	} {
		args := append(append([]string{"train", "-s", "lasso"}, c.args...), data, mdl)
		_, _, err := runCmd(t, args...)
		if _, usage := err.(usageError); !usage || err.Error() != c.want {
			t.Errorf("%q: %T %v\nwant %s", c.args, err, err, c.want)
		}
	}
}

// The path table counts from 1, as the cross-validation table and glmnet
// do, and the summary's nnz counts the weights as the table does (not the
// intercept).
func TestLassoPathTable(t *testing.T) {
	dir := t.TempDir()
	data := writeRegression(t, dir, 60)
	out, _, err := runCmd(t, "train", "-s", "lasso", "--intercept", "--lambda-path", "6", data, filepath.Join(dir, "m"))
	if err != nil {
		t.Fatal(err)
	}
	var first, last []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) == 8 && f[0] != "k" {
			if first == nil {
				first = f
			}
			last = f
		}
	}
	if first == nil || first[0] != "1" || last[0] == "1" {
		t.Fatalf("path table rows %v … %v:\n%s", first, last, out)
	}
	if !strings.Contains(out, "nnz(w) = "+last[2]+",") {
		t.Errorf("summary nnz differs from the last row's %s:\n%s", last[2], out)
	}
}
