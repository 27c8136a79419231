package testkit

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// LiblinearTrain is Debian's liblinear-train (2.3.0, package
// liblinear-tools), the reference the families' tests compare with.
const LiblinearTrain = "/usr/bin/liblinear-train"

// LiblinearObjective finds an objective value liblinear-train prints, one
// per subproblem; the submatch is the number.
var LiblinearObjective = regexp.MustCompile(`Objective value = (\S+)`)

// NeedLiblinear skips t unless LiblinearTrain is installed and runs.
func NeedLiblinear(t testing.TB) {
	t.Helper()
	NeedTool(t, LiblinearTrain)
}

// WriteLibSVM writes labelled sparse rows to path as 1-based libsvm text
// with exact (round-trip) values: row i, for i < len(label), is label[i]
// followed by the 0-based indices and values row(i) returns. For a
// dataset d of package io: WriteLibSVM(t, d.Label, d.Row, path) (testkit
// takes the dataset's parts, not the dataset: package io's own tests use
// testkit, so testkit cannot import io).
func WriteLibSVM(t testing.TB, label []float64, row func(i int) ([]int32, []float64), path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i, y := range label {
		w.WriteString(strconv.FormatFloat(y, 'g', -1, 64))
		idx, val := row(i)
		for k, j := range idx {
			fmt.Fprintf(w, " %d:%s", j+1, strconv.FormatFloat(val[k], 'g', -1, 64))
		}
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// LiblinearArgs returns liblinear-train's options -s s, -c c, -e eps and
// -B bias, then a -wi per class weight of weights in increasing label
// order (labels are integers to liblinear).
func LiblinearArgs(s string, c, eps, bias float64, weights map[float64]float64) []string {
	args := []string{"-s", s, "-c", strconv.FormatFloat(c, 'g', -1, 64),
		"-e", strconv.FormatFloat(eps, 'g', -1, 64), "-B", strconv.FormatFloat(bias, 'g', -1, 64)}
	var wl []float64
	for l := range weights {
		wl = append(wl, l)
	}
	sort.Float64s(wl)
	for _, l := range wl {
		args = append(args, fmt.Sprintf("-w%d", int(l)), strconv.FormatFloat(weights[l], 'g', -1, 64))
	}
	return args
}

// LiblinearRun is what one liblinear-train run printed and saved.
type LiblinearRun struct {
	Objectives []float64 // the objective values printed, one per subproblem
	Labels     []float64 // the model file's label line (none for regression)
	W          []float64 // the model file's weights, in the file's order
	Capped     bool      // it stopped at its iteration cap
}

// RunLiblinear runs the program train (liblinear-train, or another
// version's train) with args, then the data file data and a model file in
// a fresh folder, and returns what it printed and saved. It fails t if
// the program fails.
func RunLiblinear(t testing.TB, train, data string, args ...string) LiblinearRun {
	t.Helper()
	file := filepath.Join(t.TempDir(), "model")
	args = append(append([]string(nil), args...), data, file)
	out, err := exec.Command(train, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("liblinear-train %v: %v\n%s", args, err, out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseLiblinear(string(out), string(b))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// parseLiblinear reads a liblinear-train run from its output out and its
// model file's text.
func parseLiblinear(out, file string) (r LiblinearRun, err error) {
	r.Capped = strings.Contains(out, "reaching max number of iterations")
	for _, m := range LiblinearObjective.FindAllStringSubmatch(out, -1) {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return r, err
		}
		r.Objectives = append(r.Objectives, v)
	}
	inW := false
	for _, line := range strings.Split(file, "\n") {
		f := strings.Fields(line)
		switch {
		case inW:
			for _, s := range f {
				v, _ := strconv.ParseFloat(s, 64)
				r.W = append(r.W, v)
			}
		case len(f) > 0 && f[0] == "label":
			for _, s := range f[1:] {
				v, _ := strconv.ParseFloat(s, 64)
				r.Labels = append(r.Labels, v)
			}
		case len(f) > 0 && f[0] == "w":
			inW = true
		}
	}
	return r, nil
}
