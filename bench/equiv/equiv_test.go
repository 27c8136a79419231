package main

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// reportLine prints a --report json line as acfcd does (encoding/json).
func reportLine(t *testing.T, objective, seconds float64) []byte {
	t.Helper()
	b, err := json.Marshal(struct {
		Solver     string  `json:"solver"`
		Iterations int64   `json:"iterations"`
		Seconds    float64 `json:"seconds"`
		Objective  float64 `json:"objective"`
		Converged  bool    `json:"converged"`
		Newton     int     `json:"newton_steps"`
	}{"L2R_L2LOSS_SVC_DUAL", 4860, seconds, objective, true, 4})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func stdoutWith(lines ...[]byte) []byte {
	return append(bytes.Join(lines, []byte("\n")), '\n')
}

func TestCompareReports(t *testing.T) {
	x := -121.13472443686996
	summary := []byte("optimization finished, #iter = 18 (4860 coordinate steps, acf+shrink selection)")
	a := jsonReport(stdoutWith(summary, reportLine(t, x, 0.0014)))
	if a == nil {
		t.Fatal("the JSON report on the last line was not found")
	}

	same := jsonReport(stdoutWith(summary, reportLine(t, x, 0.25)))
	if ds := compareReports(a, same, nil); len(ds) != 0 {
		t.Errorf("reports that differ only in seconds: diffs %v", ds)
	}

	ulp := math.Nextafter(x, 0)
	b := jsonReport(stdoutWith(summary, reportLine(t, ulp, 0.0014)))
	ds := compareReports(a, b, nil)
	if len(ds) != 1 || ds[0].field != "objective" || ds[0].ignored {
		t.Fatalf("one ulp in objective: diffs %v, want one failing diff in objective", ds)
	}
	if fails, _, text := verdict(ds); !fails || text != "DIFFERS: objective" {
		t.Errorf("verdict %v %q", fails, text)
	}

	ds = compareReports(a, b, map[string]bool{"objective": true})
	if len(ds) != 1 || !ds[0].ignored {
		t.Fatalf("-ignore objective: diffs %v, want one ignored diff", ds)
	}
	if fails, only, _ := verdict(ds); fails || !only {
		t.Errorf("an ignored diff fails the run (fails %v, only ignored %v)", fails, only)
	}

	delete(b, "newton_steps")
	b["objective"] = a["objective"]
	if ds := compareReports(a, b, nil); len(ds) != 1 || ds[0].field != "newton_steps" || ds[0].new != "(missing)" {
		t.Errorf("a missing field: diffs %v", ds)
	}
	if ds := compareReports(a, nil, nil); len(ds) != 1 || ds[0].field != "report" {
		t.Errorf("a missing report: diffs %v", ds)
	}
}

func TestCompareExitAndModelAlwaysCount(t *testing.T) {
	a := &outcome{exit: "0", model: strings.Repeat("a", 64)}
	b := &outcome{exit: "1", model: strings.Repeat("b", 64)}
	ds := compare(a, b, map[string]bool{"exit": true, "model": true})
	if fails, _, text := verdict(ds); !fails || text != "DIFFERS: exit, model" {
		t.Errorf("verdict %v %q, want the exit status and model to fail the run", fails, text)
	}
}

const pathOut = `   k         lambda      nnz        objective        gap  violation   epochs   seconds
   0        10825.8        0        149813.17          0          0        1     0.000
   1        6830.56        2      139218.0071    0.01234   0.002345       12     %s
optimization finished, #iter = 13 (169 coordinate steps, acf selection)
Objective value = 139218.007100
max violation = 0.002345, duality gap = 0.01234, nnz(w) = 2, %s s
`

func TestPathTable(t *testing.T) {
	a := pathTable([]byte(strings.ReplaceAll(pathOut, "%s", "0.001")))
	if len(a) != 3 || a[0] != "k lambda nnz objective gap violation epochs" ||
		a[2] != "1 6830.56 2 139218.0071 0.01234 0.002345 12" {
		t.Fatalf("path table %q", a)
	}
	b := pathTable([]byte(strings.ReplaceAll(pathOut, "%s", "12.500")))
	if ds := compareTables(a, b, nil); len(ds) != 0 {
		t.Errorf("tables that differ only in seconds: diffs %v", ds)
	}
	c := pathTable([]byte(strings.ReplaceAll(strings.ReplaceAll(pathOut, "%s", "0.001"), "139218.0071", "139218.0072")))
	if ds := compareTables(a, c, nil); len(ds) != 1 || ds[0].field != "path" || !strings.Contains(ds[0].new, "139218.0072") {
		t.Errorf("a different objective in the path: diffs %v", ds)
	}
	if ds := compareTables(a, a[:2], nil); len(ds) != 1 || ds[0].new != "(missing)" {
		t.Errorf("a shorter path: diffs %v", ds)
	}
}

func TestNews20binLabels(t *testing.T) {
	for in, want := range map[string]string{"1": "+1", "10": "+1", "11": "-1", "20": "-1"} {
		if got, err := news20binLabel([]byte(in)); err != nil || got != want {
			t.Errorf("label %s → %q, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"0", "21", "-1", "1.5", "x"} {
		if got, err := news20binLabel([]byte(in)); err == nil {
			t.Errorf("label %s → %q, want an error", in, got)
		}
	}
	var out bytes.Buffer
	in := "3 197:2 321:3\n17 7:1\n\n10 5:1"
	if err := mapLines(strings.NewReader(in), &out, news20binLine); err != nil {
		t.Fatal(err)
	}
	if want := "+1 197:2 321:3\n-1 7:1\n+1 5:1\n"; out.String() != want {
		t.Errorf("news20bin lines %q, want %q", out.String(), want)
	}
	if err := mapLines(strings.NewReader("21 1:1\n"), &out, news20binLine); err == nil {
		t.Error("class 21 accepted")
	}
}

func TestRunList(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range runList() {
		if seen[r.name] {
			t.Errorf("run name %s twice", r.name)
		}
		seen[r.name] = true
		if r.kind() == cvRun && r.expect != anything {
			t.Errorf("%s: a -v run has no JSON report to check", r.name)
		}
	}
}
