package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// writeData writes a small noisy binary libsvm problem and returns its path.
func writeData(t *testing.T, rows int) string {
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := 0; i < rows; i++ {
		var s float64
		var row strings.Builder
		for j := 1; j <= 20; j++ {
			if r.IntN(4) == 0 {
				v := r.Float64()*2 - 1
				s += v * float64(j%5-2)
				fmt.Fprintf(&row, " %d:%.3g", j, v)
			}
		}
		y := 1
		if s+0.3*r.NormFloat64() < 0 {
			y = -1
		}
		fmt.Fprintf(&b, "%+d%s\n", y, row.String())
	}
	p := filepath.Join(t.TempDir(), "data.svm")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var lineRE = regexp.MustCompile(`seed (\d+) (whole|streamed) +(\S+) .* obj (\S+) .* conv (true|false)`)

// TestRun: every selection and sweep kind gives a line, each run
// converges, and all reach the same objective (to the tolerance of eps);
// -target and -cross add their lines.
func TestRun(t *testing.T) {
	data := writeData(t, 300)
	o, err := parseOptions([]string{"-data", data, "-test", data, "-s", "1,7", "-c", "2", "-e", "0.001",
		"-sweeps", "whole,streamed", "-seeds", "1,2", "-target", "-1e9", "-cross"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(o, &out); err != nil {
		t.Fatal(err)
	}
	objs := map[string][]float64{} // by problem
	runs := 0
	prob := ""
	for _, line := range strings.Split(out.String(), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[1] == "-s" {
			prob = f[2]
		}
		m := lineRE.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		runs++
		if m[5] != "true" {
			t.Errorf("not converged: %s", line)
		}
		if !strings.Contains(line, "test-acc ") {
			t.Errorf("no test accuracy: %s", line)
		}
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			t.Fatal(err)
		}
		objs[prob] = append(objs[prob], v)
	}
	if want := 2 * 2 * 2 * 4; runs != want { // problems × seeds × sweeps × selections
		t.Fatalf("%d runs, want %d:\n%s", runs, want, out.String())
	}
	for p, v := range objs {
		for _, x := range v {
			if math.Abs(x-v[0]) > 1e-3*math.Abs(v[0]) {
				t.Errorf("-s %s: objectives %v differ", p, v)
				break
			}
		}
	}
	if n := strings.Count(out.String(), "reached objective -1000000000 after never"); n != runs {
		t.Errorf("%d -target lines, want %d", n, runs)
	}
	if n := strings.Count(out.String(), "'s final objective"); n != 2*2*2*4*3 {
		t.Errorf("%d -cross lines, want %d", n, 2*2*2*4*3)
	}
}

// TestLasso: the LASSO runs at λ = alpha·rows with a gap tolerance.
func TestLasso(t *testing.T) {
	data := writeData(t, 200)
	o, err := parseOptions([]string{"-data", data, "-s", "lasso", "-alpha", "0.01", "-gap-tol", "1e-8", "-select", "cyclic,acf"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(o, &out); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "-s lasso alpha 0.01"); n != 2 || strings.Count(out.String(), "conv true") != 2 {
		t.Errorf("want two converged LASSO runs:\n%s", out.String())
	}
}

func TestFlags(t *testing.T) {
	for args, want := range map[string]string{
		"":                              "-data: no files given",
		"-data x -sweeps chunked":       `-sweeps: "chunked" is neither whole nor streamed`,
		"-data x -select best":          "-select: ",
		"-data x -acf 1,2":              `-acf "1,2": want c,pmin,pmax`,
		"-data x -s 99":                 "-s: ",
		"-data x -chunk-div 0":          "-chunk-div must be at least 1",
		"-data x -seeds 1 -e ,":         "-s, -c, -alpha, -e, -select, -seeds and -sweeps need at least one value each",
		"-data x extra":                 `unexpected arguments ["extra"]`,
		"-data x -acf 0.2,0.05,20 -c 1": "",
	} {
		_, err := parseOptions(strings.Fields(args))
		if (err == nil) != (want == "") || (err != nil && !strings.HasPrefix(err.Error(), want)) {
			t.Errorf("%q: err %v, want %q", args, err, want)
		}
	}
}
