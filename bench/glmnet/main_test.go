package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"math"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/acfcd/acfcd/bench/internal/benchkit"
	"github.com/acfcd/acfcd/internal/testkit"
)

func TestParseReply(t *testing.T) {
	// Lines as glmnet.R and sklearnfit.py print them.
	kind, kv, err := parseReply("ready rows=5 features=3 nnz=8 parse_s=0.505 glmnet=4.1.6")
	if err != nil || kind != "ready" || kv["rows"] != "5" || kv["glmnet"] != "4.1.6" {
		t.Errorf("ready: %q %v %v", kind, kv, err)
	}
	kind, kv, err = parseReply("done seconds=0.037000 nlambda=2 npasses=10 jerr=0\n")
	if s, e := num(kv, "seconds"); err != nil || kind != "done" || e != nil || s != 0.037 || kv["jerr"] != "0" {
		t.Errorf("glmnet fit: %q %v %v", kind, kv, err)
	}
	_, kv, _ = parseReply("done seconds=0.002353 nlambda=2 n_iter=50 converged=1")
	if kv["converged"] != "1" || kv["n_iter"] != "50" {
		t.Errorf("sklearn fit: %v", kv)
	}
	_, kv, _ = parseReply("done seconds=0.5 nlambda=67 lambda_min=0.0123 lambda_1se=0.045")
	if v, err := num(kv, "lambda_min"); err != nil || v != 0.0123 {
		t.Errorf("cv: %v %v", v, err)
	}
	if _, err := num(kv, "npasses"); err == nil {
		t.Error("no error for a missing key")
	}
	if _, _, err := parseReply("error unknown command bad"); err == nil || err.Error() != "unknown command bad" {
		t.Errorf("error reply: %v", err)
	}
	if _, _, err := parseReply("done seconds"); err == nil {
		t.Error("no error for a pair without =")
	}
	if _, _, err := parseReply(""); err == nil {
		t.Error("no error for an empty line")
	}
}

// coefBytes writes the scripts' coefficient layout.
func coefBytes(lams, a0 []float64, colptr, idx []int32, val []float64) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, int32(len(lams)))
	for _, v := range []any{lams, a0, colptr, idx, val} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	return b.Bytes()
}

func TestReadCoefPath(t *testing.T) {
	// Two λ: w = 0 at the first, w_2 = 0.5 and w_0 = −1 at the second.
	raw := coefBytes([]float64{0.3, 0.1}, []float64{0.65, 0.05}, []int32{0, 0, 2}, []int32{0, 2}, []float64{-1, 0.5})
	c, err := readCoefPath(raw, 3)
	if err != nil {
		t.Fatal(err)
	}
	pts := fromCoef(c, 5) // glmnet's λ × 5 rows
	if len(pts) != 2 || pts[0].lambda != 1.5 || len(pts[0].idx) != 0 || pts[0].b != 0.65 ||
		pts[1].lambda != 0.5 || len(pts[1].idx) != 2 || pts[1].idx[1] != 2 || pts[1].val[0] != -1 {
		t.Errorf("points %+v", pts)
	}
	for name, b := range map[string][]byte{
		"truncated":      raw[:len(raw)-3],
		"empty":          nil,
		"feature range":  coefBytes([]float64{1}, []float64{0}, []int32{0, 1}, []int32{3}, []float64{1}),
		"decreasing ptr": coefBytes([]float64{1, 2}, []float64{0, 0}, []int32{0, 1, 0}, []int32{0}, []float64{1}),
		"huge count":     {0xff, 0xff, 0xff, 0x7f},
	} {
		if _, err := readCoefPath(b, 3); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	cv := coefBytes([]float64{2, 1}, []float64{5, 4}, []int32{3, 1}, nil, nil)
	// cv layout: int32 n, lambda, cvm, cvsd, int32 nzero.
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, int32(2))
	binary.Write(&b, binary.LittleEndian, []float64{2, 1, 5, 4, 0.5, 0.25})
	binary.Write(&b, binary.LittleEndian, []int32{0, 3})
	curve, err := readCVCurve(b.Bytes())
	if err != nil || curve.CVM[1] != 4 || curve.CVSD[0] != 0.5 || curve.NZero[1] != 3 {
		t.Errorf("cv curve %+v %v", curve, err)
	}
	if _, err := readCVCurve(cv); err == nil {
		t.Error("cv curve of the wrong size: no error")
	}
}

func TestOptions(t *testing.T) {
	o, err := parseOptions([]string{"-cells", "0.1,path30,path", "-levels", "tight"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Cells) != 3 || o.Cells[0].Frac != 0.1 || o.Cells[1].N != 30 || o.Cells[1].Ratio != 1e-3 || !o.Cells[2].path() || o.Cells[2].N != 0 {
		t.Errorf("cells %+v", o.Cells)
	}
	if len(o.Levels) != 1 || o.Levels[0].GlmnetThresh != 1e-10 || o.Levels[0].ACFCDRel != 1e-6 {
		t.Errorf("levels %+v", o.Levels)
	}
	if !slices.Equal(o.RuleScales, []float64{1, 0.5, 0.1}) {
		t.Errorf("rule scales %v", o.RuleScales)
	}
	if o, err := parseOptions([]string{"-same-rule=false"}); err != nil || o.RuleScales != nil {
		t.Errorf("-same-rule=false: rule scales %v, %v", o.RuleScales, err)
	}
	for _, bad := range [][]string{{"-cells", "2"}, {"-cells", "path1"}, {"-levels", "loose"}, {"-rounds", "0"}, {"x"},
		{"-rule-scales", "0"}, {"-rule-scales", "1,x"}} {
		if _, err := parseOptions(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestDryRun runs the harness on a tiny generated set: acfcd always, R's
// glmnet and scikit-learn when they are installed (else their cells say
// "skipped: absent"). Every objective excess must be small.
func TestDryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs R and python processes")
	}
	o, err := parseOptions([]string{"-dry-run", "-q"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := testkit.Runs(o.Rscript, "-e", "library(glmnet)"); !ok {
		o.Rscript = ""
	}
	// The excess is measured against the best objective of the tools that
	// ran: with neither R's glmnet nor scikit-learn there is none.
	anchored := o.Rscript != ""
	if err := exec.Command(o.Python, "-c", "import sklearn, scipy, numpy").Run(); err == nil {
		anchored = true
	}
	var out bytes.Buffer
	if err := run(context.Background(), o, &out); err != nil {
		t.Fatal(err)
	}
	md := out.String()
	for _, want := range []string{"| gen | λ = 0.1·λmax | default |", "| gen | 5-λ path to 0.1 | tight |", "λ by cross-validation"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	cvRows := 0
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "| gen | ") || strings.Contains(line, "λ.min") {
			continue
		}
		f := strings.Split(line, " | ")
		if strings.Contains(f[1], "/") { // the cross-validation's row: acfcd's under glmnet's rule ran
			cvRows++
			if len(f) < 16 || f[13] == "–" {
				t.Errorf("cross-validation under glmnet's rule: no seconds in %s", line)
			}
			continue
		}
		if len(f) < 14 {
			continue // the sets' table
		}
		if f[9] == "–" && anchored || strings.Contains(line, "error:") {
			t.Errorf("acfcd has no excess or an error: %s", line)
		}
	}
	if cvRows != 1 {
		t.Errorf("%d cross-validation rows for gen, want 1:\n%s", cvRows, md)
	}
}

func TestMedianRatio(t *testing.T) {
	a := &result{Seconds: []float64{1, 3, 2}, Status: "ok"}
	g := &result{Seconds: []float64{4, 8, 6}, Status: "ok"}
	if ratio(g, a) != "3.00" || benchkit.Median(a.Seconds) != 2 {
		t.Errorf("ratio %s", ratio(g, a))
	}
	g.Status = "timeout"
	if ratio(g, a) != ">3.00" {
		t.Errorf("timeout ratio %s", ratio(g, a))
	}
	g.Status, a.Status = "ok", "timeout"
	if ratio(g, a) != "<3.00" {
		t.Errorf("ratio against a timeout %s", ratio(g, a))
	}
	if fmtExcess(&result{Excess: math.NaN()}) != "–" || fmtExcess(&result{Excess: 1.23e-5}) != "1.2e-05" {
		t.Error("fmtExcess")
	}
}

// TestFittedPrefix: acfcd's extra rows fit the λ glmnet fitted, and only
// when those lead the cell's sequence.
func TestFittedPrefix(t *testing.T) {
	lams := []float64{1, 0.5, 0.25, 0.125}
	path := cell{Name: "default path"}
	single := cell{Name: "λ = 0.1·λmax", Frac: 0.1}
	for _, tc := range []struct {
		name  string
		g     result
		c     cell
		want  int // λ the extra rows fit (−1: none)
		wantN int
	}{
		{"converged path", result{Status: "ok", lams: lams}, path, 4, 0},
		{"early stop", result{Status: "not converged", lams: []float64{1, 0.5}}, path, 2, 2},
		{"not a prefix", result{Status: "not converged", lams: []float64{1, 0.3}}, path, -1, 0},
		{"longer than asked", result{Status: "not converged", lams: []float64{1, 0.5, 0.25, 0.125, 0.1}}, path, -1, 0},
		{"single λ not converged", result{Status: "not converged", lams: []float64{0.1}}, single, -1, 0},
		{"timeout", result{Status: "timeout"}, path, -1, 0},
	} {
		got, c := fittedPrefix(&tc.g, tc.c, lams)
		if tc.want < 0 {
			if got != nil {
				t.Errorf("%s: extra rows on %v, want none", tc.name, got)
			}
			continue
		}
		if len(got) != tc.want || c.N != tc.wantN || !c.path() && tc.c.path() {
			t.Errorf("%s: %d λ as cell %+v, want %d λ with N = %d", tc.name, len(got), c, tc.want, tc.wantN)
		}
	}
}
