package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acfcd/acfcd"
	"github.com/acfcd/acfcd/internal/testkit"
	"github.com/acfcd/acfcd/model"
)

// solverFlags are the -s values acfcd train takes, liblinear's and acfcd's.
func solverFlags() []string {
	var s []string
	for _, st := range model.SolverTypes() {
		s = append(s, st.Flag)
	}
	return s
}

// TestFlagsForEverySolver: for every -s, liblinear's flags that apply to it
// (and acfcd's) are accepted: the run goes on to read DATA, which here
// does not exist, so the error is the missing file, not a usage error.
func TestFlagsForEverySolver(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.svm")
	for _, s := range solverFlags() {
		p := mustProblem(t, s)
		var variants [][]string
		base := []string{"-s", s, "-c", "2", "-e", "0.5", "--max-epochs", "5", "--seed", "3", "-q"}
		if s == "lasso" {
			base = []string{"-s", s, "-e", "0.5", "--max-epochs", "5", "--seed", "3", "-q", "--lambda", "0.5"} // no C: -c is refused
			variants = append(variants, []string{"--intercept", "--gap", "0.1"}, []string{"-v", "3"})
		} else {
			variants = append(variants, []string{"-v", "3"}, []string{"-w1", "2", "-w-1", "0.5"})
		}
		if s != "21" {
			variants = append(variants, []string{"-B", "1"}, []string{"-B", "0"})
		}
		switch s {
		case "11", "12", "13":
			variants = append(variants, []string{"-p", "0.2"}, []string{"-p", "0"})
		case "21":
			variants = append(variants, []string{"-n", "0.3"}, []string{"-n", "1"})
		}
		switch s {
		case "0", "2", "5", "6", "11":
			variants = append(variants, []string{"-R", "-B", "1"})
		}
		for _, sel := range p.Selections() {
			variants = append(variants, []string{"--select", sel.String()})
		}
		for _, v := range variants {
			args := append(append(append([]string{"train"}, base...), v...), missing)
			_, stderr, err := runCmd(t, args...)
			var ue usageError
			if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), "no such file") {
				t.Errorf("%q: %v, want the missing DATA reported (the flags accepted)", args[1:], err)
			}
			if stderr != "" {
				t.Errorf("%q: stderr %q", args[1:], stderr)
			}
		}
	}
}

// TestFlagErrors: a mistake in the flags is a usage error (exit status 2)
// of one line, found before DATA is read (DATA does not exist here),
// with nothing on stdout or stderr from the run itself.
func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "missing.svm")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-e", "0"}, "-e 0: the tolerance must be a positive number (without -e each solver has its default)"},
		{[]string{"-e", "-1"}, "-e -1: must be a finite number >= 0 (0: the problem's default)"},
		{[]string{"--max-epochs", "0"}, "--max-epochs 0: the cap must be at least 1 (without --max-epochs each solver has its default)"},
		{[]string{"-c", "0"}, "-c 0: C must be a positive number"},
		{[]string{"-c", "abc"}, `train: -c "abc": not a valid value (acfcd help train lists the flags)`},
		{[]string{"-x"}, "train: unknown flag -x (acfcd help train lists the flags)"},
		{[]string{"--select=foo"}, `--select foo: unknown coordinate selection "foo" (want acf+shrink, acf, uniform, shrink or cyclic)`},
		{[]string{"--select", "cyclic"}, "--select cyclic: -s 1 (L2R_L2LOSS_SVC_DUAL) takes acf+shrink, acf, uniform, shrink"},
		{[]string{"-s", "8"}, "-s 8: unknown solver (acfcd help train lists them: 0 to 7, 11, 12, 13, 21, lasso, ww)"},
		{[]string{"-s", "12", "-p", "-1"}, "-p -1: the epsilon of the SVR loss must be a number >= 0"},
		{[]string{"-s", "21", "-n", "0"}, "-n 0: nu must be in (0, 1]"},
		{[]string{"-s", "21", "-n", "1.5"}, "-n 1.5: must be in (0, 1]"},
		{[]string{"-s", "21", "-B", "1"}, "-B 1: the one-class SVM has no bias term (liblinear refuses -B for -s 21)"},
		{[]string{"-s", "0", "-R"}, "-R: needs a bias feature (a positive bias; liblinear's -B 1), whose weight it leaves out of the regulariser"},
		{[]string{"-s", "0", "-R", "-B", "2"}, "-R needs -B 1: it leaves the weight of that bias feature out of the regulariser"},
		{[]string{"-s", "1", "-R", "-B", "1"}, "-R: only -s 0, 2, 5, 6 and 11 (L2R_LR, L2R_L2LOSS_SVC, L1R_L2LOSS_SVC, L1R_LR and L2R_L2LOSS_SVR) leave the bias unregularised, not -s 1 (L2R_L2LOSS_SVC_DUAL)"},
		{[]string{"-v", "1"}, "-v 1: n-fold cross validation needs n >= 2"},
		{[]string{"-v", "0"}, "-v 0: n-fold cross validation needs n >= 2"},
		{[]string{"-w1", "x"}, "-w1 x: the weight must be a positive number"},
		{[]string{"-w1.5", "2"}, "-w1.5: class label in -wi must be an integer"},
		{[]string{"--lambda", "1"}, "--lambda, --intercept, --gap, --thresh, --alpha, --standardize, --lambda-path, --lambda-ratio and --lambda-choice are for -s lasso"},
		{[]string{"--alpha", "0.5"}, "--lambda, --intercept, --gap, --thresh, --alpha, --standardize, --lambda-path, --lambda-ratio and --lambda-choice are for -s lasso"},
		{[]string{"-s", "2", "--standardize"}, "--lambda, --intercept, --gap, --thresh, --alpha, --standardize, --lambda-path, --lambda-ratio and --lambda-choice are for -s lasso"},
		{[]string{"-v", "3", "--lambda-choice", "min"}, "--lambda, --intercept, --gap, --thresh, --alpha, --standardize, --lambda-path, --lambda-ratio and --lambda-choice are for -s lasso"},
		{[]string{"-s", "lasso"}, "-s lasso needs --lambda L > 0, --lambda-path N or -v K (λ by cross-validation)"},
		{[]string{"-s", "lasso", "--lambda", "0"}, "--lambda 0: λ must be a positive number"},
		{[]string{"-s", "lasso", "--lambda", "1", "--lambda-path", "5", "-v", "3"}, "-v with --lambda cross-validates that one λ; without --lambda, the --lambda-path: give one of them"},
		{[]string{"-s", "lasso", "--lambda-path", "0"}, "--lambda-path 0: the path needs N >= 1 λ"},
		{[]string{"-s", "lasso", "--lambda-path", "5", "--lambda-ratio", "1.5"}, "--lambda-ratio 1.5: want 0 < ratio <= 1 (0: glmnet's default)"},
		{[]string{"-s", "lasso", "--lambda-path", "5", "--lambda-ratio", "-1"}, "--lambda-ratio -1: want 0 < ratio <= 1 (0: glmnet's default)"},
		{[]string{"-s", "lasso", "--lambda", "1", "--lambda-ratio", "0.1"}, "--lambda-ratio is for a path: --lambda-path N or -v K without --lambda"},
		{[]string{"-s", "lasso", "--lambda", "1", "--thresh", "-1"}, "--thresh -1: must be a finite number >= 0"},
		{[]string{"-s", "lasso", "--lambda", "1", "--thresh", "1e-7", "--gap", "0.1"}, "--thresh 1e-07: glmnet's stopping rule cannot be combined with a KKT tolerance or a gap tolerance"},
		{[]string{"-s", "lasso", "--lambda", "1", "--thresh", "1e-7", "-e", "0.1"}, "--thresh 1e-07: glmnet's stopping rule cannot be combined with a KKT tolerance or a gap tolerance"},
		{[]string{"-s", "lasso", "--lambda", "1", "--alpha", "0"}, "--alpha 0: ridge regression (glmnet's alpha = 0) is -s 11 -p 0, the L2-regularised squared loss, with C = 1/λ; the elastic-net mixing of -s lasso must be in (0, 1]"},
		{[]string{"-s", "lasso", "--lambda", "1", "--alpha", "1.5"}, "--alpha 1.5: the elastic-net mixing must be in (0, 1]"},
		{[]string{"-s", "lasso", "-v", "3", "--lambda-choice", "best"}, `--lambda-choice "best": want min or 1se`},
		{[]string{"-s", "lasso", "--lambda", "1", "--lambda-choice", "min"}, "--lambda-choice is for λ by cross-validation: -s lasso -v K without --lambda"},
		{[]string{"-s", "lasso", "-v", "3", "--lambda", "1", "--lambda-choice", "min"}, "--lambda-choice is for λ by cross-validation: -s lasso -v K without --lambda"},
		{[]string{"--fallback", "x"}, `--fallback "x": want newton or none`},
	}
	for _, tc := range cases {
		args := append(append([]string{"train"}, tc.args...), data)
		stdout, stderr, err := runCmd(t, args...)
		var ue usageError
		if !errors.As(err, &ue) || err.Error() != tc.want {
			t.Errorf("%q: %v, want the usage error %q", tc.args, err, tc.want)
		}
		if stdout != "" || stderr != "" {
			t.Errorf("%q: printed %q on stdout and %q on stderr", tc.args, stdout, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"train", "-"}, "train - reads DATA from standard input and then needs MODEL (- for standard output) (acfcd help train)"},
		{[]string{"train"}, "train takes DATA and an optional MODEL (acfcd help train)"},
		{[]string{"predict", "a", "b"}, "predict takes DATA, MODEL and OUT (acfcd help predict)"},
		{[]string{"predict", "-", "-", "out"}, "predict: DATA and MODEL cannot both come from standard input (acfcd help predict)"},
		{[]string{"predict", "-b", "2", "a", "b", "c"}, "-b 2: must be 0 or 1"},
		{[]string{"predict", "-z", "a", "b", "c"}, "predict: unknown flag -z (acfcd help predict lists the flags)"},
		{[]string{"info", "--json=x", "a"}, `info: --json "x": not a valid value (acfcd help info lists the flags)`},
		{[]string{"frobnicate"}, `unknown command "frobnicate" (acfcd help lists the commands)`},
		{[]string{"help", "frobnicate"}, "help takes one command name: convert, demo, gen, info, predict, train, version"},
	} {
		stdout, stderr, err := runCmd(t, tc.args...)
		var ue usageError
		if !errors.As(err, &ue) || err.Error() != tc.want {
			t.Errorf("%q: %v, want the usage error %q", tc.args, err, tc.want)
		}
		if stdout != "" || stderr != "" {
			t.Errorf("%q: printed %q on stdout and %q on stderr", tc.args, stdout, stderr)
		}
	}
}

// TestHelpOnStdout: acfcd help train, train -h, --help, help predict and
// --version print on stdout and succeed; train's usage names every solver
// as liblinear's usage does ("  N -- description") and every flag.
func TestHelpOnStdout(t *testing.T) {
	outs := map[string]string{}
	for _, args := range [][]string{{"help", "train"}, {"train", "-h"}, {"train", "--help"}, {"--help"}, {"help"},
		{"help", "predict"}, {"predict", "-h"}, {"--version"}, {"version"}, {"help", "convert"}} {
		stdout, stderr, err := runCmd(t, args...)
		if err != nil || stdout == "" || stderr != "" {
			t.Errorf("%q: error %v, %d bytes on stdout, stderr %q", args, err, len(stdout), stderr)
		}
		outs[strings.Join(args, " ")] = stdout
	}
	help := outs["help train"]
	if outs["train -h"] != help || outs["train --help"] != help {
		t.Errorf("train -h and acfcd help train differ")
	}
	if !strings.HasPrefix(outs["--version"], "acfcd ") || outs["--version"] != outs["version"] {
		t.Errorf("--version printed %q", outs["--version"])
	}
	for _, s := range solverFlags() {
		if !regexp.MustCompile(`(?m)^\t *` + regexp.QuoteMeta(s) + ` -- \S`).MatchString(help) {
			t.Errorf("acfcd help train does not list -s %s", s)
		}
	}
	// Every flag train defines, liblinear's as -x, acfcd's as --name.
	fs, _, _ := newTrainFlags(nil)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	for _, name := range names {
		want := "--" + name
		if liblinearFlags[name] {
			want = "-" + name
		}
		if !regexp.MustCompile(`(?m)^ *` + want + `( |$)`).MatchString(help) {
			t.Errorf("acfcd help train does not describe %s", want)
		}
	}
	if !strings.Contains(help, "\n-wi weight") {
		t.Errorf("acfcd help train does not describe -wi")
	}
}

// writeMulticlass writes a 3-class problem with labels 1, 2, 3.
func writeMulticlass(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	for i := range 90 {
		c := 1 + i%3
		fmt.Fprintf(&b, "%d", c)
		for j := 1; j <= 6; j++ {
			v := float64((i*7+j*3)%10) / 10
			if j%3 == c%3 {
				v += 1
			}
			if (i+j)%4 != 0 {
				fmt.Fprintf(&b, " %d:%g", j, v)
			}
		}
		b.WriteString("\n")
	}
	return writeText(t, dir, "multi.svm", b.String())
}

// blockLines returns liblinear's per-subproblem lines of a training
// output: "optimization finished", "Objective value", "nSV",
// "#nonzeros/#features", "rho" (liblinear's progress dots and warnings
// and acfcd's own lines left out), with the numbers replaced by N.
func blockLines(out string) []string {
	num := regexp.MustCompile(`-?[0-9][0-9.e+-]*`)
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimLeft(l, ".*")
		for _, p := range []string{"optimization finished", "Objective value", "nSV", "#nonzeros", "rho", "Cross Validation"} {
			if strings.HasPrefix(l, p) {
				lines = append(lines, num.ReplaceAllString(l, "N"))
			}
		}
	}
	return lines
}

// TestTrainOutputLines: one block per one-vs-rest class as liblinear
// prints it ("optimization finished, #iter", "Objective value", "nSV" for
// -s 1 and 3, no nSV for -s 7), with the numbers of each class's Result;
// the same lines as liblinear 2.50's where it is installed.
func TestTrainOutputLines(t *testing.T) {
	dir := t.TempDir()
	multi := writeMulticlass(t, dir)
	binary := writeProblem(t, dir, "binary.svm", 80, 4)
	d, err := acfcd.Load(multi, acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    string
		data string
		k    int
	}{{"1", multi, 3}, {"3", multi, 3}, {"7", multi, 3}, {"3", binary, 1}, {"ww", multi, 1}} {
		out, _, err := runCmd(t, "train", "-s", tc.s, tc.data, filepath.Join(dir, "m"))
		if err != nil {
			t.Fatal(err)
		}
		nsv := tc.s == "1" || tc.s == "3"
		block := []string{"optimization finished, #iter = N", "Objective value = N"}
		if nsv {
			block = append(block, "nSV = N")
		}
		var want []string
		for range tc.k {
			want = append(want, block...)
		}
		if got := blockLines(out); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("-s %s: lines\n%s\nwant\n%s", tc.s, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		if tc.data == multi && tc.s != "ww" {
			_, res, err := acfcd.Train(t.Context(), d, acfcd.Params{Problem: mustProblem(t, tc.s)})
			if err != nil {
				t.Fatal(err)
			}
			var exp strings.Builder
			for _, r := range res.Classes {
				fmt.Fprintf(&exp, "optimization finished, #iter = %d\n", r.Epochs)
				fmt.Fprintf(&exp, "Objective value = %f\n", r.Objective)
				if nsv {
					fmt.Fprintf(&exp, "nSV = %d\n", r.SupportVectors)
					if r.SupportVectors <= 0 || r.SupportVectors > d.Rows {
						t.Errorf("-s %s: nSV %d of %d examples", tc.s, r.SupportVectors, d.Rows)
					}
				}
			}
			stalled := regexp.MustCompile(`(?m)^(finished by |few features: ).*\n`)
			if !strings.Contains(stalled.ReplaceAllString(out, ""), exp.String()) {
				t.Errorf("-s %s: output\n%s\nlacks\n%s", tc.s, out, exp.String())
			}
		}
		if tc.s == "ww" {
			continue
		}
		for _, exe := range []string{"/work/anchors/liblinear-2.50/train", "liblinear-train"} {
			lout, ok := runLiblinear(t, exe, "-s", tc.s, tc.data, filepath.Join(dir, "lm"))
			if !ok {
				continue
			}
			if got, lib := blockLines(out), blockLines(lout); strings.Join(got, "\n") != strings.Join(lib, "\n") {
				t.Errorf("-s %s: lines\n%s\n%s prints\n%s", tc.s, strings.Join(got, "\n"), exe, strings.Join(lib, "\n"))
			}
		}
	}
}

// TestRepeatedWeights: -w1 2 -w1 3 multiplies C of class 1 by 6, as
// liblinear's train() does (weighted_C[j] *= weight for each -wi in
// turn): the model is -w1 6's, byte for byte, and liblinear 2.50 agrees
// on the objective where it is installed.
func TestRepeatedWeights(t *testing.T) {
	dir := t.TempDir()
	data := writeProblem(t, dir, "d.svm", 120, 8)
	read := func(args ...string) []byte {
		m := filepath.Join(dir, "m")
		if _, _, err := runCmd(t, append(append([]string{"train", "-s", "3", "-q", "-e", "0.001"}, args...), data, m)...); err != nil {
			t.Fatal(err)
		}
		return mustRead(t, m)
	}
	twice, six, three := read("-w1", "2", "-w1", "3"), read("-w1", "6"), read("-w1", "3")
	if string(twice) != string(six) {
		t.Errorf("-w1 2 -w1 3 differs from -w1 6")
	}
	if string(twice) == string(three) {
		t.Errorf("-w1 2 -w1 3 is -w1 3: the last weight won")
	}
	lib := func(args ...string) string {
		out, ok := runLiblinear(t, "/work/anchors/liblinear-2.50/train", append(append([]string{"-s", "3", "-e", "0.001"}, args...), data, filepath.Join(dir, "lm"))...)
		if !ok {
			t.Skip("no liblinear 2.50")
		}
		return regexp.MustCompile(`Objective value = \S+`).FindString(out)
	}
	if a, b := lib("-w1", "2", "-w1", "3"), lib("-w1", "6"); a != b || a == lib("-w1", "3") {
		t.Errorf("liblinear 2.50: -w1 2 -w1 3 gives %q, -w1 6 %q", a, b)
	}
}

// TestCrossValidationRegression: -v with the LASSO prints liblinear's two
// regression lines with CrossValidate's MSE and R2; the SVRs (-s 11, 12,
// 13) print the same lines once they train.
func TestCrossValidationRegression(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := range 150 {
		x1, x2 := float64(i%13)/13, float64(i%7)/7
		fmt.Fprintf(&b, "%g 1:%g 2:%g 3:%g\n", 3*x1-2*x2+0.1*float64(i%5), x1, x2, float64(i%3))
	}
	data := writeText(t, dir, "reg.svm", b.String())
	d, err := acfcd.Load(data, acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-s", "lasso", "--lambda", "0.1"}, {"-s", "11"}, {"-s", "12"}, {"-s", "13"}} {
		out, _, err := runCmd(t, append(append([]string{"train", "-v", "5", "-q"}, args...), data)...)
		if err != nil && strings.Contains(err.Error(), "not implemented yet") {
			t.Logf("%v: %v", args, err)
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		p := acfcd.Params{Problem: mustProblem(t, args[1])}
		if args[1] == "lasso" {
			p.Lambda = 0.1
		}
		r, err := acfcd.CrossValidate(t.Context(), d, p, 5)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("Cross Validation Mean squared error = %s\nCross Validation Squared correlation coefficient = %s\n", cG(r.MSE), cG(r.R2))
		if out != want {
			t.Errorf("%v: printed %q, want %q", args, out, want)
		}
		if !(r.R2 > 0.5) {
			t.Errorf("%v: r² %g", args, r.R2)
		}
	}
	// Without -q each fold's training comes first, as liblinear prints it.
	out, _, err := runCmd(t, "train", "-v", "3", "-s", "lasso", "--lambda", "0.1", data)
	if err != nil {
		t.Fatal(err)
	}
	if got := blockLines(out); len(got) != 3*2+2 || got[0] != "optimization finished, #iter = N" || got[len(got)-1] != "Cross Validation Squared correlation coefficient = N" {
		t.Errorf("lines %q", got)
	}
}

// TestProgressLine: the progress line names the fold, the class label in
// full and "k of K".
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		pr    acfcd.Progress
		folds int
		want  string
	}{
		{acfcd.Progress{Class: 1, Label: 1234567, Subproblems: 3, Epoch: 7, Violation: 0.25, Objective: -3.5}, 0,
			"class 1234567 (2 of 3), epoch 7, violation 0.25, objective -3.5"},
		{acfcd.Progress{Fold: 2, Class: 0, Label: -1, Subproblems: 4, Epoch: 1, Violation: 1, Objective: 2}, 5,
			"fold 2 of 5, class -1 (1 of 4), epoch 1, violation 1, objective 2"},
		{acfcd.Progress{Subproblems: 1, Epoch: 3, Violation: 0.5, Objective: 1}, 0, "epoch 3, violation 0.5, objective 1"},
	} {
		if got := progressLine(tc.pr, tc.folds); got != tc.want {
			t.Errorf("progressLine(%+v) = %q, want %q", tc.pr, got, tc.want)
		}
	}
	// Train reports the labels of its one-vs-rest classes.
	dir := t.TempDir()
	d, err := acfcd.Load(writeMulticlass(t, dir), acfcd.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	_, _, err = acfcd.Train(t.Context(), d, acfcd.Params{Problem: acfcd.SquaredHingeDual, Progress: func(pr acfcd.Progress) {
		seen[progressLine(pr, 0)[:strings.Index(progressLine(pr, 0), ",")+1]] = true
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"class 1 (1 of 3),", "class 2 (2 of 3),", "class 3 (3 of 3),"} {
		if !seen[want] {
			t.Errorf("no progress line starts %q (saw %v)", want, seen)
		}
	}
}

// runLiblinear runs a liblinear program if it is installed and runs here,
// and returns its stdout.
func runLiblinear(t *testing.T, exe string, args ...string) (string, bool) {
	t.Helper()
	path, ok := testkit.Runs(exe)
	if !ok {
		return "", false
	}
	c := exec.Command(path, args...)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("%s %q: %v", exe, args, err)
	}
	return string(out), true
}

// TestReadmeListsEverything: the README's table has a row for every -s
// and its text names every flag of acfcd train, so that it lists exactly
// what the command takes.
func TestReadmeListsEverything(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Skip(err)
	}
	readme := string(b)
	for _, st := range model.SolverTypes() {
		if !strings.Contains(readme, "\n| "+st.Flag+" | ") || !strings.Contains(readme, "| "+st.Name+" |") {
			t.Errorf("README has no row for -s %s (%s)", st.Flag, st.Name)
		}
	}
	fs, _, _ := newTrainFlags(nil)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	for _, name := range names {
		want := "`--" + name
		if liblinearFlags[name] {
			want = "`-" + name
		}
		if !strings.Contains(readme, want) {
			t.Errorf("README does not name %s`", want)
		}
	}
}
