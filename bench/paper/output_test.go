package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// sampleRuns are a few runs of every kind, statuses included.
func sampleRuns() []*runRec {
	svm := config{Problem: probSVM, S: 3, Set: "a9a", File: "a9a", Value: 1, Eps: 0.01}
	lasso := config{Problem: probLasso, S: sLasso, Set: "housing", File: "housing_scale", Value: 0.01, Eps: 0.001}
	ww := config{Problem: probWW, S: sWW, Set: "iris", File: "iris.scale", Value: 10, Eps: 0.01}

	var runs []*runRec
	add := func(c config, tool string, round int, status string, sec float64, steps int64) *runRec {
		r := newRec(c, tool, round)
		r.Status, r.Sec, r.Steps, r.Ops, r.Epochs = status, sec, steps, steps*10, steps/100
		r.Wall = sec + 0.01
		runs = append(runs, r)
		return r
	}
	base := newRec(config{Problem: probSVM, S: 3, Set: "a9a", File: "a9a", Value: 1, Eps: baselineEps}, toolBaseline, 1)
	base.Status, base.Sec, base.Wall = stOK, 0.05, 0.05
	runs = append(runs, base)
	for round := 1; round <= 3; round++ {
		add(svm, "uniform", round, stCap, 2+float64(round), 123456789)
		add(svm, "acf", round, stOK, 0.5*float64(round), 4567)
	}
	add(svm, "shrink", 1, stTimeout, 60.2, 99999)
	add(svm, "acf+shrink", 1, stError, math.NaN(), -1).Note = "worker: boom\nsecond line"
	ll := add(svm, toolLiblinear, 1, stOK, 0.7, -1)
	ll.Ops, ll.Epochs = -1, 42
	sk := newRec(config{Problem: probLasso, S: sLasso, Set: "housing", File: "housing_scale", Value: 0.01}, toolSklearn, 1)
	sk.Status, sk.Sec, sk.Epochs, sk.Eval, sk.Lambda, sk.NNZ, sk.Gap = stOK, 0.002, 100, 12154.28871, 108.3, 9, 1e-3
	runs = append(runs, sk)
	l := add(lasso, "acf", 1, stOK, 0.0005, 675)
	l.Eval, l.ObjRel, l.Lambda, l.NNZ, l.Gap = 12154.2888, 1.1e-8, 108.3, 9, 0.01
	w := add(ww, "acf", 1, stOK, 0.001, 2000)
	w.TestAcc = 0.9
	return runs
}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	if err := writeCSV(&b, sampleRuns()); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+len(sampleRuns()) {
		t.Fatalf("%d records", len(recs))
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		if len(r) != len(csvHeader) {
			t.Fatalf("row of %d fields, header %d", len(r), len(csvHeader))
		}
		switch r[col["tool"]] {
		case toolSklearn:
			if r[col["eps"]] != "" || r[col["lambda"]] != "108.3" || r[col["lasso_F"]] != "12154.28871" {
				t.Errorf("sklearn row %v", r)
			}
		case "acf+shrink":
			// NaN and unknown counts are empty fields; the note keeps its newline (quoted).
			if r[col["seconds"]] != "" || r[col["steps"]] != "" || r[col["status"]] != stError || !strings.Contains(r[col["note"]], "\n") {
				t.Errorf("error row %v", r)
			}
		case "uniform":
			if r[col["steps"]] != "123456789" || r[col["s"]] != "3" || r[col["variant"]] != "svm-s3" {
				t.Errorf("uniform row %v", r)
			}
		}
	}
}

// A Go benchmark result line: name, iteration count, then value–unit pairs.
var benchLine = regexp.MustCompile(`^Benchmark(\S+) (\d+)((?: [0-9.e+-]+ \S+)+)$`)

func TestWriteBenchfmt(t *testing.T) {
	var b bytes.Buffer
	m := machine{CPU: "Test CPU @ 1GHz", OS: "linux", Arch: "amd64"}
	if err := writeBenchfmt(&b, sampleRuns(), m, 1e-8); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if lines[3] != "cpu: Test CPU @ 1GHz" || lines[0] != "goos: linux" || lines[1] != "goarch: amd64" {
		t.Errorf("header %q", lines[:4])
	}
	names := map[string]int{}
	for _, ln := range lines[4:] {
		mm := benchLine.FindStringSubmatch(ln)
		if mm == nil {
			t.Fatalf("not a benchmark line: %q", ln)
		}
		names[mm[1]]++
		f := strings.Fields(mm[3])
		units := map[string]string{}
		for i := 0; i+1 < len(f); i += 2 {
			if _, err := strconv.ParseFloat(f[i], 64); err != nil {
				t.Errorf("%q: value %q", ln, f[i])
			}
			units[f[i+1]] = f[i]
		}
		if units["ns/op"] == "" {
			t.Errorf("%q: no ns/op", ln)
		}
		for _, part := range strings.Split(mm[1], "/")[1:] {
			if !strings.Contains(part, "=") {
				t.Errorf("%q: name part %q is not key=value", ln, part)
			}
		}
	}
	// Three rounds give three samples of one name; the error and the
	// baseline give none; the timeout and the cap are marked.
	if n := names["Paper/problem=svm/s=3/set=a9a/C=1/select=acf/eps=0.01"]; n != 3 {
		t.Errorf("acf: %d samples, want 3", n)
	}
	if n := names["Paper/problem=lasso/set=housing/lambda=0.01max/select=sklearn/eps=tol1e-08"]; n != 1 {
		t.Errorf("sklearn: %d samples: %v", n, names)
	}
	out := b.String()
	for _, want := range []string{
		"BenchmarkPaper/problem=svm/s=3/set=a9a/C=1/select=uniform/eps=0.01 1 3000000000 ns/op 123456789 iters 1234567890 ops 1234567 epochs 1 caps\n",
		"BenchmarkPaper/problem=svm/s=3/set=a9a/C=1/select=shrink/eps=0.01 1 60200000000 ns/op 99999 iters 999990 ops 999 epochs 1 timeouts\n",
		"BenchmarkPaper/problem=svm/s=3/set=a9a/C=1/select=liblinear/eps=0.01 1 700000000 ns/op 42 epochs\n",
		"BenchmarkPaper/problem=ww/set=iris/C=10/select=acf/eps=0.01 1 1000000 ns/op",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "acf+shrink") || strings.Contains(out, toolBaseline) {
		t.Errorf("an error or a baseline was written:\n%s", out)
	}
}

func TestBenchSafe(t *testing.T) {
	if got := benchSafe("a b/c\td"); got != "a_b_c_d" {
		t.Errorf("%q", got)
	}
}

func TestSpeedup(t *testing.T) {
	for _, c := range []struct {
		base, x float64
		bs, xs  string
		kind    string
		wantNaN bool
		wantVal float64
	}{
		{10, 2, stOK, stOK, "exact", false, 5},
		{10, 2, stCap, stOK, "exact", false, 5},
		{60, 2, stTimeout, stOK, "lower", false, 30},
		{2, 60, stOK, stTimeout, "upper", false, 1.0 / 30},
		{60, 60, stTimeout, stTimeout, "none", true, 0},
		{1, 2, stError, stOK, "none", true, 0},
		{math.NaN(), 2, stOK, stOK, "none", true, 0},
		{1, 0, stOK, stOK, "none", true, 0},
	} {
		r := speedup(c.base, c.x, c.bs, c.xs)
		if r.Kind != c.kind || math.IsNaN(r.V) != c.wantNaN || (!c.wantNaN && math.Abs(r.V-c.wantVal) > 1e-12) {
			t.Errorf("speedup(%g, %g, %s, %s) = %+v", c.base, c.x, c.bs, c.xs, r)
		}
	}
	g, n := geomean([]ratio{{4, "exact"}, {1, "exact"}, {100, "lower"}, {math.NaN(), "none"}})
	if n != 2 || math.Abs(g-2) > 1e-12 {
		t.Errorf("geomean = %g over %d", g, n)
	}
	if s := fmtRatio(ratio{30, "lower"}); s != "≥30.00" {
		t.Errorf("%q", s)
	}
	if s := fmtRatio(ratio{250, "exact"}); s != "250" {
		t.Errorf("%q", s)
	}
}

func TestCellsMedian(t *testing.T) {
	m := cells(sampleRuns())
	c := m[cellKey{config{Problem: probSVM, S: 3, Set: "a9a", File: "a9a", Value: 1, Eps: 0.01}, "acf"}]
	if c == nil || c.Rounds != 3 || c.Sec != 1 || c.First.Round != 1 {
		t.Fatalf("acf cell %+v", c)
	}
	sk := lookup(m, config{Problem: probLasso, S: sLasso, Set: "housing", File: "housing_scale", Value: 0.01, Eps: 0.001}, toolSklearn)
	if sk == nil || sk.Sec != 0.002 {
		t.Errorf("sklearn is looked up without eps: %+v", sk)
	}
}

func TestFormatting(t *testing.T) {
	for v, want := range map[int64]string{-1: "–", 0: "0", 999999: "999999", 1000000: "1.00e6", 123456789: "1.23e8"} {
		if got := fmtCount(v); got != want {
			t.Errorf("fmtCount(%d) = %q, want %q", v, got, want)
		}
	}
	for v, want := range map[float64]string{0.00012: "0.00012", 0.0034: "0.0034", 1.5: "1.500", 60.2: "60.2", 1234.5: "1234"} {
		if got := fmtSec(v); got != want {
			t.Errorf("fmtSec(%g) = %q, want %q", v, got, want)
		}
	}
}

// The Markdown report of the sample runs: every table row has as many
// cells as its header, and timeouts and errors are shown.
func TestWriteMarkdown(t *testing.T) {
	runs := sampleRuns()
	cfgs := distinctConfigs(runs)
	o := &options{Eps: []float64{0.01, 0.001}, Timeout: time.Minute, Rounds: 3, SkTol: 1e-8, grids: defaultGrid()}
	r := &runner{o: o, ll: "liblinear-train", python: "python3"}
	toolsOf := func(c config) []string { return r.tools(c, true) }
	rp := &report{Machine: machine{CPU: "Test CPU", NumCPU: 2, GOMAXPROCS: 2, Go: "go1.26", OS: "linux", Arch: "amd64"},
		Command: "go run ./bench/paper -test", Opts: o, Liblinear: "test", Sklearn: "test",
		Cfgs: cfgs, Runs: runs, ToolsOf: toolsOf, SetUse: map[string][]string{}}
	var b bytes.Buffer
	writeMarkdown(&b, rp)
	md := b.String()
	for _, want := range []string{"Machine: Test CPU", "timeout ≥60.2", "| error |", "1.23e8†",
		"| svm-s3 | a9a | C=1 | 0.01 | shrink | 1 | timeout |", "90.00%", "1.1e-08 ✓", "## Time limits and errors"} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q", want)
		}
	}
	cols := -1
	for _, ln := range strings.Split(md, "\n") {
		if !strings.HasPrefix(ln, "|") {
			cols = -1
			continue
		}
		n := strings.Count(strings.ReplaceAll(ln, `\|`, ""), "|")
		if cols < 0 {
			cols = n
		} else if n != cols {
			t.Errorf("row with %d separators under a header with %d: %q", n, cols, ln)
		}
	}
}
