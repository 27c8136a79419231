package testkit

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSameBits(t *testing.T) {
	if !SameBits([]float64{1, math.NaN()}, []float64{1, math.NaN()}) {
		t.Error("equal NaNs differ")
	}
	if SameBits([]float64{0}, []float64{math.Copysign(0, -1)}) || SameBits([]float64{1}, []float64{1, 2}) {
		t.Error("−0 and 0, or different lengths, the same")
	}
}

func TestTolerances(t *testing.T) {
	v := make([]float64, 100)
	for i := range v {
		v[i] = float64(i)
	}
	want := []float64{198, 98, 97, 96, 94, 89, 69, 49}
	if got := Tolerances(v); !SameBits(got, want) {
		t.Errorf("Tolerances = %v, want %v", got, want)
	}
}

func TestAllocated(t *testing.T) {
	var keep []byte
	if n := Allocated(func() { keep = make([]byte, 1<<20) }); n < 1<<20 {
		t.Errorf("a 1 MiB allocation counted as %d bytes", n)
	}
	_ = keep
}

// errors records what Seeds reports.
type errors struct {
	testing.TB
	msgs []string
}

func (e *errors) Errorf(format string, args ...any) {
	e.msgs = append(e.msgs, fmt.Sprintf(format, args...))
}

// TestSeeds: Seeds writes the seeds with update, then finds them current;
// a changed or missing seed is reported by name, a file that is no seed
// is left alone.
func TestSeeds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fuzz", "FuzzX")
	seeds := map[string]string{"a": "go test fuzz v1\nstring(\"a\")\n", "b": "go test fuzz v1\nstring(\"b\")\n"}
	check := func(update bool) []string {
		e := &errors{TB: t}
		Seeds(e, dir, seeds, update)
		return e.msgs
	}
	if msgs := check(false); len(msgs) != 1 || !strings.Contains(msgs[0], "2 of 2 seed files missing or out of date (a, b)") {
		t.Errorf("no folder: %q", msgs)
	}
	if msgs := check(true); len(msgs) != 0 {
		t.Errorf("update: %q", msgs)
	}
	os.WriteFile(filepath.Join(dir, "found"), []byte("go test fuzz v1\nstring(\"c\")\n"), 0o644)
	if msgs := check(false); len(msgs) != 0 {
		t.Errorf("current: %q", msgs)
	}
	seeds["b"] = "go test fuzz v1\nstring(\"B\")\n"
	if msgs := check(false); len(msgs) != 1 || !strings.Contains(msgs[0], "1 of 2 seed files missing or out of date (b): rewrite them with go test -run '^TestSeeds$' -update-seeds") {
		t.Errorf("changed: %q", msgs)
	}
}

func TestDenseRowsResidual(t *testing.T) {
	idx := [][]int32{{0, 2}, {}, {1}}
	val := [][]float64{{1, 2}, {}, {3}}
	X := DenseRows(3, 3, func(i int) ([]int32, []float64) { return idx[i], val[i] })
	if fmt.Sprint(X) != "[[1 0 2] [0 0 0] [0 3 0]]" {
		t.Fatalf("DenseRows: %v", X)
	}
	if r := Residual(X, []float64{5, 1, 4}, []float64{1, 1, 1}, 0.5); fmt.Sprint(r) != "[1.5 0.5 0.5]" {
		t.Errorf("Residual: %v", r)
	}
}

// A program that is on PATH but cannot run is reported as not running,
// with the reason, so that tests comparing with it skip rather than fail.
func TestRuns(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "broken-tool")
	// A file marked executable that is no program: exec fails to start it.
	if err := os.WriteFile(bad, []byte("\x7fELF\x02garbage"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := Runs(bad); ok {
		t.Errorf("%s runs", bad)
	}
	script := filepath.Join(dir, "exits-127")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho missing library >&2\nexit 127\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := Runs(script); ok {
		t.Errorf("%s runs", script)
	}
	usage := filepath.Join(dir, "usage")
	if err := os.WriteFile(usage, []byte("#!/bin/sh\necho usage >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, ok := Runs(usage); !ok {
		t.Errorf("%s does not run", usage)
	}
	if _, ok := Runs(usage, "--probe"); ok {
		t.Errorf("%s --probe exits 1 but runs", usage)
	}
	if _, ok := Runs(filepath.Join(dir, "absent")); ok {
		t.Error("an absent program runs")
	}
}
